"""Fingerprints: proof that a gated tool call came from this server.

A stateless server receives the whole conversation back from its client, so it
cannot take the client's word that a tool call was made by the model and
stopped for approval. Every gated call therefore carries an HMAC, under a
secret only the server holds, over the thread id, the call id, the tool name
and the arguments, and over the interrupt record the adapter keeps on the call
(its id, answer schema and expiry, which a later run trusts). A resume is
honoured only for calls whose fingerprint the server can recompute; anything
forged, edited, re-dated or moved to another thread fails.

A fingerprint reads `v2.<key id>.<mac>`: the key id names the secret it was
made with (a hash of the secret, which reveals nothing of it), so a call
signed under another secret (a server restarted with a new one, a replica
given a different one) is told apart from a call that was changed. Version 1
fingerprints (`v1.<mac>`, no key id) are still checked.

JSON is signed in the kit's canonical reading (`canonical`), so a client that
parses and writes it again, as a JavaScript client does, still matches. The
arguments' text reaches the tool, so it is signed to the last digit; the
interrupt record is parsed by every client, so it is signed as a client that
holds numbers in doubles reads it (its agreement with the call is checked
apart from the fingerprint, and one way only).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
import secrets
from collections.abc import Mapping
from typing import Any, Final

from interrupt_widget.agui.canonical import spell, spell_as_double
from interrupt_widget.errors import FingerprintSecretError

SECRET_ENV: Final = "INTERRUPT_WIDGET_SECRET"
"""The environment variable a server reads its fingerprint secret from."""

FINGERPRINT_KEY: Final = "fingerprint"
"""The metadata key the fingerprint travels under, on tool calls and interrupts."""

_VERSION: Final = "v2"
_LEGACY_VERSION: Final = "v1"
_KEY_ID_CHARS: Final = 8
_MIN_SECRET_BYTES: Final = 16


def _secret_bytes(secret: str | bytes) -> bytes:
    raw = secret.encode() if isinstance(secret, str) else bytes(secret)
    raw = raw.strip()
    if len(raw) < _MIN_SECRET_BYTES:
        raise FingerprintSecretError(
            f"the fingerprint secret must be at least {_MIN_SECRET_BYTES} bytes long"
        )
    return raw


def random_secret() -> str:
    """A fresh secret: 32 random bytes, URL-safe text."""
    return secrets.token_urlsafe(32)


def secret_from_env(environ: Mapping[str, str] | None = None) -> str | None:
    """The secret set in `INTERRUPT_WIDGET_SECRET`, or None when it is unset or blank."""
    value = (os.environ if environ is None else environ).get(SECRET_ENV, "").strip()
    return value or None


def canonical_arguments(arguments: str) -> str:
    """A call's argument string in canonical JSON; broken JSON (a model can emit it) as is."""
    try:
        parsed: Any = json.loads(arguments)
    except ValueError:
        return arguments
    return spell(parsed)


class Fingerprinter:
    """Signs and checks gated tool calls with one server secret."""

    def __init__(self, secret: str | bytes) -> None:
        self._key = _secret_bytes(secret)
        named = hashlib.sha256(b"interrupt-widget key id\0" + self._key).digest()
        self.key_id: str = base64.urlsafe_b64encode(named).decode()[:_KEY_ID_CHARS]
        """Names this secret in every fingerprint it makes (a hash: it reveals nothing)."""

    def sign(
        self,
        *,
        thread_id: str,
        call_id: str,
        tool_name: str,
        arguments: str,
        interrupt: Mapping[str, Any] | None = None,
    ) -> str:
        """The fingerprint of one gated tool call (and its interrupt record) in one thread."""
        digest = self._mac(
            _VERSION, thread_id, call_id, tool_name, arguments, interrupt, key_id=self.key_id
        )
        return f"{_VERSION}.{self.key_id}.{digest}"

    def key_id_of(self, fingerprint: object) -> str | None:
        """The key id a fingerprint names (None for a version 1 one, or one unreadable)."""
        if not isinstance(fingerprint, str):
            return None
        parts = fingerprint.split(".")
        return parts[1] if len(parts) == 3 and parts[0] == _VERSION else None

    def other_secret(self, fingerprint: object) -> bool:
        """Whether `fingerprint` was made with another secret than this one (by its key id)."""
        found = self.key_id_of(fingerprint)
        return found is not None and not hmac.compare_digest(found, self.key_id)

    def _mac(
        self,
        version: str,
        thread_id: str,
        call_id: str,
        tool_name: str,
        arguments: str,
        interrupt: Mapping[str, Any] | None,
        *,
        key_id: str | None = None,
    ) -> str:
        message = json.dumps(
            [
                "interrupt-widget",
                version,
                *([] if key_id is None else [key_id]),
                thread_id,
                call_id,
                tool_name,
                canonical_arguments(arguments),
                None if interrupt is None else spell_as_double(interrupt),
            ],
            separators=(",", ":"),
            ensure_ascii=False,
        )
        mac = hmac.new(self._key, message.encode(), hashlib.sha256)
        return base64.urlsafe_b64encode(mac.digest()).rstrip(b"=").decode()

    def verify(
        self,
        fingerprint: object,
        *,
        thread_id: str,
        call_id: str,
        tool_name: str,
        arguments: str,
        interrupt: Mapping[str, Any] | None = None,
    ) -> bool:
        """Whether `fingerprint` is this server's for exactly this call (constant time)."""
        if not isinstance(fingerprint, str):
            return False
        if fingerprint.startswith(f"{_LEGACY_VERSION}."):
            # Made before fingerprints named their secret: still honoured.
            digest = self._mac(_LEGACY_VERSION, thread_id, call_id, tool_name, arguments, interrupt)
            expected = f"{_LEGACY_VERSION}.{digest}"
        else:
            expected = self.sign(
                thread_id=thread_id,
                call_id=call_id,
                tool_name=tool_name,
                arguments=arguments,
                interrupt=interrupt,
            )
        return hmac.compare_digest(expected.encode(), fingerprint.encode())
