"""Fingerprints: proof that a gated tool call came from this server.

A stateless server receives the whole conversation back from its client, so it
cannot take the client's word that a tool call was made by the model and
stopped for approval. Every gated call therefore carries an HMAC, under a
secret only the server holds, over the thread id, the call id, the tool name
and the arguments, and over the interrupt record the adapter keeps on the call
(its id, answer schema and expiry, which a later run trusts). A resume is
honoured only for calls whose fingerprint the server can recompute; anything
forged, edited, re-dated or moved to another thread fails.

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

SECRET_ENV: Final = "INTERRUPT_WIDGET_SECRET"
"""The environment variable a server reads its fingerprint secret from."""

FINGERPRINT_KEY: Final = "fingerprint"
"""The metadata key the fingerprint travels under, on tool calls and interrupts."""

_VERSION: Final = "v1"
_MIN_SECRET_BYTES: Final = 16


class FingerprintSecretError(ValueError):
    """The configured secret is unusable (empty or too short)."""


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
        message = json.dumps(
            [
                "interrupt-widget",
                _VERSION,
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
        digest = base64.urlsafe_b64encode(mac.digest()).rstrip(b"=").decode()
        return f"{_VERSION}.{digest}"

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
        expected = self.sign(
            thread_id=thread_id,
            call_id=call_id,
            tool_name=tool_name,
            arguments=arguments,
            interrupt=interrupt,
        )
        return hmac.compare_digest(expected.encode(), fingerprint.encode())
