"""Who is calling: bearer tokens mapped to principals (`serve --principals FILE`).

The file is JSON and holds no token, only each token's SHA-256:

    {"principals": [
        {"name": "ann", "roles": ["finance"], "sha256": "9f86d08..."},
        {"name": "bob", "roles": ["finance"], "sha256": "60303ae..."}
    ]}

`python -m interrupt_widget principals add FILE NAME --role finance` makes a
token, adds its digest to FILE and prints the token once (hand it to the
person; it cannot be read back). With principals, every `POST /` needs a
token the file knows; the principal it names is who starts the run
(`forwardedProps.identity`, set whatever the client put there) and who
answers (`metadata.identity` on each resume entry). An answer that names
anyone else is refused with 403 `identity_mismatch` before the agent sees
it: a client cannot claim to be someone else.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ag_ui.core import ResumeEntry, RunAgentInput

from interrupt_widget.errors import IdentityMismatch
from interrupt_widget.identity import IDENTITY_KEY, Identity, identity_in


def token_digest(token: str) -> str:
    """The SHA-256 (hex) of a bearer token, as the principals file keeps it."""
    return hashlib.sha256(token.strip().encode()).hexdigest()


@dataclass(frozen=True)
class Principals:
    """Token digests and the identities they stand for."""

    by_digest: Mapping[str, Identity]

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> Principals:
        """Read a principals file; a `ValueError` names what is wrong with it."""
        try:
            data = json.loads(Path(path).read_text(encoding="utf-8"))
        except (OSError, ValueError) as error:
            raise ValueError(f"cannot read the principals file {path}: {error}") from error
        return cls.from_json(data, str(path))

    @classmethod
    def from_json(cls, data: Any, where: str = "principals") -> Principals:
        entries = data.get("principals") if isinstance(data, Mapping) else None
        if not isinstance(entries, list):
            raise ValueError(f'{where}: expected {{"principals": [...]}}')
        found: dict[str, Identity] = {}
        for index, entry in enumerate(entries):
            digest = entry.get("sha256") if isinstance(entry, Mapping) else None
            name = entry.get("name") if isinstance(entry, Mapping) else None
            roles = entry.get("roles", []) if isinstance(entry, Mapping) else None
            if not (isinstance(digest, str) and len(digest) == 64 and isinstance(name, str)):
                raise ValueError(f"{where}: principal {index} needs a name and a sha256")
            if not isinstance(roles, list) or not all(isinstance(r, str) for r in roles):
                raise ValueError(f"{where}: principal {index}'s roles are a list of names")
            found[digest.lower()] = Identity(name, tuple(roles))
        if not found:
            raise ValueError(f"{where}: no principals; add one with `principals add`")
        return cls(found)

    def identify(self, token: str) -> Identity | None:
        """The principal a bearer token belongs to, if any (compared in constant time)."""
        given = token_digest(token)
        match = None
        for digest, identity in self.by_digest.items():
            if hmac.compare_digest(digest, given):
                match = identity
        return match


def add_principal(path: str | os.PathLike[str], name: str, roles: Iterable[str] = ()) -> str:
    """Add a principal with a new token to the file at `path` (made if missing); the token."""
    target = Path(path)
    data: dict[str, Any] = {"principals": []}
    if target.exists():
        data = json.loads(target.read_text(encoding="utf-8"))
    token = secrets.token_urlsafe(32)
    identity = Identity(name, tuple(roles))
    entry = {"name": identity.name, "roles": list(identity.roles), "sha256": token_digest(token)}
    data.setdefault("principals", []).append(entry)
    target.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    return token


def as_principal(request: RunAgentInput, principal: Identity) -> RunAgentInput:
    """`request` with `principal` as who starts the run and who gives every answer, or
    `IdentityMismatch` when the request names anyone else."""
    # Who starts the run is the token's principal, whatever the client's login is called.
    entries: list[ResumeEntry] = []
    for entry in request.resume or []:
        metadata = dict(entry.metadata) if isinstance(entry.metadata, Mapping) else {}
        claimed = identity_in(metadata)
        if claimed is not None and claimed.name != principal.name:
            raise IdentityMismatch(
                f"the answer to interrupt {entry.interrupt_id!r} names {claimed.name!r}, "
                f"but its token is {principal.name!r}'s; nothing was recorded"
            )
        metadata[IDENTITY_KEY] = principal.to_wire()
        # `by` names who answered in the audit and the span: the token's person, not the
        # client's label (which could name a policy or someone else).
        metadata["by"] = principal.name
        entries.append(entry.model_copy(update={"metadata": metadata}))
    props = request.forwarded_props if isinstance(request.forwarded_props, Mapping) else {}
    forwarded = {**props, IDENTITY_KEY: principal.to_wire()}
    update: dict[str, Any] = {"forwarded_props": forwarded}
    if request.resume is not None:
        update["resume"] = entries
    return request.model_copy(update=update)
