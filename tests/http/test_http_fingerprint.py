"""Fingerprints: an HMAC that binds a gated call to its thread, tool, arguments and interrupt."""

from __future__ import annotations

import base64
import hashlib
import hmac
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from interrupt_widget.agui.canonical import spell_as_double
from interrupt_widget.errors import FingerprintSecretError
from interrupt_widget.http.fingerprint import (
    SECRET_ENV,
    Fingerprinter,
    canonical_arguments,
    random_secret,
    secret_from_env,
)

CALL = {
    "thread_id": "thread-1",
    "call_id": "call-1",
    "tool_name": "schedule_meeting",
    "arguments": '{"topic": "budget", "attendee": "Ada"}',
    "interrupt": {
        "id": "approve-call-1",
        "reason": "tool_call",
        "expiresAt": "2030-01-01T00:00:00Z",
    },
}


@pytest.fixture
def signer() -> Fingerprinter:
    return Fingerprinter("a-server-secret-of-enough-length")


def test_a_fingerprint_verifies_only_for_the_exact_call(signer: Fingerprinter) -> None:
    fingerprint = signer.sign(**CALL)
    assert fingerprint.startswith("v2.")
    assert signer.verify(fingerprint, **CALL)
    changes = {
        "thread_id": "thread-2",
        "call_id": "call-2",
        "tool_name": "delete_everything",
        "arguments": '{"topic": "budget", "attendee": "Mallory"}',
        "interrupt": {**CALL["interrupt"], "expiresAt": "2099-01-01T00:00:00Z"},
    }
    for field, value in changes.items():
        assert not signer.verify(fingerprint, **{**CALL, field: value}), field


def test_another_secret_or_a_malformed_value_never_verifies(signer: Fingerprinter) -> None:
    fingerprint = signer.sign(**CALL)
    assert not Fingerprinter("another-secret-of-enough-length").verify(fingerprint, **CALL)
    for bogus in (None, "", "v1.", fingerprint[:-1], fingerprint + "A", 42, ["v1"]):
        assert not signer.verify(bogus, **CALL)


def test_reserialised_json_still_matches(signer: Fingerprinter) -> None:
    """A JavaScript client parses and re-writes metadata: key order, spaces, 1.0 -> 1."""
    fingerprint = signer.sign(**{**CALL, "interrupt": {"id": "i", "minimum": 1.0, "b": [2.0]}})
    rewritten = {"b": [2], "minimum": 1, "id": "i"}
    assert signer.verify(fingerprint, **{**CALL, "interrupt": rewritten})
    compact = json.dumps(json.loads(CALL["arguments"]), separators=(",", ":"))
    assert signer.verify(signer.sign(**CALL), **{**CALL, "arguments": compact})


def test_broken_argument_json_is_signed_byte_for_byte() -> None:
    assert canonical_arguments('{"a": ') == '{"a": '
    assert canonical_arguments('{ "b": 1, "a": 2 }') == '{"a":2,"b":1}'


@given(st.text(), st.text(), st.text(), st.text())
def test_distinct_fields_never_collide(thread: str, call: str, tool: str, args: str) -> None:
    signer = Fingerprinter("a-server-secret-of-enough-length")
    base = signer.sign(thread_id=thread, call_id=call, tool_name=tool, arguments=args)
    # Moving text from one field to the next must change the fingerprint.
    shifted = signer.sign(thread_id=thread + call, call_id="", tool_name=tool, arguments=args)
    if call:
        assert base != shifted


def test_secrets_are_checked_and_read_from_the_environment() -> None:
    with pytest.raises(FingerprintSecretError):
        Fingerprinter("short")
    with pytest.raises(FingerprintSecretError):
        Fingerprinter("   ")
    assert len(random_secret()) >= 32
    assert random_secret() != random_secret()
    assert secret_from_env({SECRET_ENV: "  s3cret-from-env  "}) == "s3cret-from-env"
    assert secret_from_env({SECRET_ENV: "  "}) is None
    assert secret_from_env({}) is None


def test_a_fingerprint_names_its_secret_by_a_key_id(signer: Fingerprinter) -> None:
    fingerprint = signer.sign(**CALL)
    other = Fingerprinter("another-secret-of-enough-length")
    assert signer.key_id_of(fingerprint) == signer.key_id != other.key_id
    assert signer.key_id not in "a-server-secret-of-enough-length"
    assert other.other_secret(fingerprint)
    assert not signer.other_secret(fingerprint)
    # A changed call under this server's own secret is not "another secret".
    assert not signer.other_secret(fingerprint[:-1])
    assert not signer.other_secret("v1.abc")


def test_a_version_1_fingerprint_made_before_key_ids_still_verifies(
    signer: Fingerprinter,
) -> None:
    # Computed as servers before key ids did, so interrupts open across the upgrade still verify.
    interrupt = spell_as_double(CALL["interrupt"])
    fields = [CALL[k] for k in ("thread_id", "call_id", "tool_name")]
    message = json.dumps(
        ["interrupt-widget", "v1", *fields, canonical_arguments(CALL["arguments"]), interrupt],
        separators=(",", ":"),
        ensure_ascii=False,
    )
    mac = hmac.new(b"a-server-secret-of-enough-length", message.encode(), hashlib.sha256)
    legacy = "v1." + base64.urlsafe_b64encode(mac.digest()).rstrip(b"=").decode()
    assert signer.verify(legacy, **CALL)
    assert not signer.verify(legacy, **{**CALL, "call_id": "call-2"})
    assert not Fingerprinter("another-secret-of-enough-length").verify(legacy, **CALL)
