"""Who is answering: a person's name and roles, as every answer carries them.

In a notebook the person is the JupyterHub user where there is one
(`JUPYTERHUB_USER`), else the operating system's user; code may answer as
someone else, for one block (`as_identity("ann")`) or from now on in this
process (`set_identity("ann")`, which a click in the browser then answers
as). Over HTTP the server decides: a bearer token names its principal
(`serve --principals FILE`), and an answer naming anyone else is refused.

An identity travels on the wire as `{"name": ..., "roles": [...]}` under the
`identity` key of a resume entry's `metadata` (who answered) and of a run's
`forwardedProps` (who started the run).
"""

from __future__ import annotations

import contextlib
import functools
import getpass
import os
import threading
from collections.abc import Iterable, Iterator, Mapping
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any, Final

IDENTITY_KEY: Final = "identity"
"""Where an identity travels: a resume entry's `metadata`, a run's `forwarded_props`."""

MAX_NAME: Final = 200
"""Names are cut to this many characters (a client's word is kept, but bounded)."""


@dataclass(frozen=True)
class Identity:
    """One person (or principal) who may answer: a name, and the roles rules ask for."""

    name: str
    """How the person is named in rules, records, spans and on the card."""
    roles: tuple[str, ...] = ()
    """The roles the person holds (`require(..., roles=...)` asks for them), sorted."""

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name.strip():
            raise ValueError("an identity needs a name")
        roles = self.roles
        if isinstance(roles, str):
            roles = (roles,)
        if not all(isinstance(r, str) and r for r in roles):
            raise ValueError(f"roles are non-empty strings, got {roles!r}")
        object.__setattr__(self, "name", self.name.strip()[:MAX_NAME])
        object.__setattr__(self, "roles", tuple(sorted(set(roles))))

    def to_wire(self) -> dict[str, Any]:
        """The identity as it travels (`{"name", "roles"}`)."""
        return {"name": self.name, "roles": list(self.roles)}

    def __str__(self) -> str:
        return self.name


def identity_from_wire(value: Any) -> Identity | None:
    """The identity a wire value names (`{"name", "roles"}` or a bare name); None if none."""
    if isinstance(value, str) and value.strip():
        return Identity(value)
    if not isinstance(value, Mapping):
        return None
    name, roles = value.get("name"), value.get("roles", ())
    if not isinstance(name, str) or not name.strip():
        return None
    if not isinstance(roles, list | tuple) or not all(isinstance(r, str) and r for r in roles):
        return None
    return Identity(name, tuple(r[:MAX_NAME] for r in roles))


def identity_in(metadata: Any) -> Identity | None:
    """The identity under `IDENTITY_KEY` in a metadata or forwarded-props mapping, if any."""
    if not isinstance(metadata, Mapping):
        return None
    return identity_from_wire(metadata.get(IDENTITY_KEY))


def as_identity_value(who: str | Identity, roles: Iterable[str] = ()) -> Identity:
    """`who` as an `Identity` (a name with `roles`, or an identity as it is)."""
    if isinstance(who, Identity):
        return who
    return Identity(who, tuple(roles))


def login_identity(environ: Mapping[str, str] | None = None) -> Identity:
    """The person this process runs for: `JUPYTERHUB_USER`, else the operating system's user."""
    env = os.environ if environ is None else environ
    hub = env.get("JUPYTERHUB_USER", "").strip()
    if hub:
        return Identity(hub)
    login = tuple(os.environ.get(name) for name in _LOGIN_VARIABLES)
    return Identity(_os_user(login, getattr(os, "getuid", lambda: -1)()))


_LOGIN_VARIABLES: Final = ("LOGNAME", "USER", "LNAME", "USERNAME")
"""What `getpass.getuser` reads before it asks the password database."""


@functools.lru_cache(maxsize=8)
def _os_user(login: tuple[str | None, ...], uid: int) -> str:
    """`getpass.getuser()`, asked once for each value of the variables it reads (`login`) and
    user id: where none is set it reads the password database, 40 us for every answer."""
    try:
        return getpass.getuser()
    except (OSError, KeyError, ValueError):  # no user name known (a bare container)
        return "unknown"


_override: ContextVar[Identity | None] = ContextVar("interrupt_widget_identity", default=None)
_lock = threading.Lock()
_default: Identity | None = None


def current_identity() -> Identity:
    """Who answers here and now: `as_identity`'s, else `set_identity`'s, else the login's."""
    found = _override.get()
    if found is not None:
        return found
    with _lock:
        chosen = _default
    return chosen if chosen is not None else login_identity()


ANSWERS_AS_ITSELF = ("responder:", "policy:")
"""How `by` begins for an answerer that answers as itself, not as the person at the keyboard."""


def answering_identity(by: str, given: str | Identity | None = None) -> Identity:
    """Who gives an answer recorded `by`: `given` if any; a responder or a policy rule as
    itself (`responder:approve_all`); anyone else as `current_identity()`."""
    if given is not None:
        return as_identity_value(given)
    if by.startswith(ANSWERS_AS_ITSELF):
        return Identity(by)
    return current_identity()


def set_identity(who: str | Identity | None, roles: Iterable[str] = ()) -> None:
    """Answer as `who` from now on in this process (clicks included); None: the login again."""
    global _default
    chosen = None if who is None else as_identity_value(who, roles)
    with _lock:
        _default = chosen


@contextlib.contextmanager
def as_identity(who: str | Identity, roles: Iterable[str] = ()) -> Iterator[Identity]:
    """Answer as `who` (with `roles`) inside the block, in this task or thread only."""
    token = _override.set(as_identity_value(who, roles))
    try:
        yield _override.get() or Identity(str(who))
    finally:
        _override.reset(token)
