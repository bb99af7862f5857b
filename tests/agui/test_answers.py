"""The one answer check shared by every entry: the open questions (a picker, a batch row),
responders, and the resume the adapter checks (in process, over HTTP, in a workflow)."""

from __future__ import annotations

import subprocess
import sys
from datetime import UTC, datetime, timedelta

import pytest
from ag_ui.core import Interrupt

from interrupt_widget.agui.answers import (
    check_answer,
    describe,
    is_expired,
    validate_payload,
)
from interrupt_widget.clock import parse_instant
from interrupt_widget.errors import ErrorCode

SCHEMA = {
    "type": "object",
    "properties": {
        "approved": {"type": "boolean"},
        "chosen_time": {"type": "string", "format": "date-time"},
        "seats": {"type": "integer", "minimum": 1, "maximum": 4},
        "room": {"enum": ["a/b", "c~d"]},
    },
    "required": ["approved"],
}


def test_a_fitting_answer_has_no_errors() -> None:
    payload = {"approved": True, "chosen_time": "2026-12-03T10:00:00+01:00", "seats": 4}
    assert validate_payload(SCHEMA, payload) == []


def test_each_error_points_at_its_field_and_a_missing_field_at_itself() -> None:
    errors = validate_payload(SCHEMA, {"chosen_time": "tomorrow", "seats": 5, "room": "x"})
    assert [(e.path, e.message) for e in errors] == [
        ("/approved", "is required"),
        ("/chosen_time", "must be a valid date-time"),
        ("/room", "must be one of 'a/b', 'c~d'"),
        ("/seats", "must be <= 4"),
    ]
    assert describe(errors).startswith("/approved: is required; /chosen_time:")


@pytest.mark.parametrize("payload", [None, "yes", 1, [True], {"approved": "true"}])
def test_wrong_shapes_are_refused(payload: object) -> None:
    assert validate_payload(SCHEMA, payload) != []


def test_pointer_escapes_slash_and_tilde_in_field_names() -> None:
    schema = {"type": "object", "required": ["a/b", "c~d"]}
    assert [e.path for e in validate_payload(schema, {})] == ["/a~1b", "/c~0d"]


def test_hostile_long_values_do_not_flood_the_message() -> None:
    schema = {"type": "object", "properties": {"x": {"not": {"type": "string"}}}}
    errors = validate_payload(schema, {"x": "<script>" * 1000})
    assert len(errors) == 1
    assert len(errors[0].message) <= 200


def test_an_invalid_schema_is_reported_not_raised() -> None:
    errors = validate_payload({"type": "no-such-type"}, {})
    assert len(errors) == 1
    assert "response_schema is invalid" in errors[0].message


def test_no_schema_accepts_anything() -> None:
    assert validate_payload(None, object()) == []


def test_expiry_reads_offsets_and_treats_naive_times_as_utc() -> None:
    now = datetime(2026, 12, 2, 12, 0, tzinfo=UTC)
    assert parse_instant("2026-12-02T13:00:00+01:00") == now
    assert parse_instant("2026-12-02T12:00:00Z") == now
    assert parse_instant("2026-12-02T12:00:00") == now
    soon = Interrupt(
        id="i", reason="tool_call", expires_at=(now + timedelta(seconds=1)).isoformat()
    )
    assert not is_expired(soon, now)
    assert is_expired(soon, now + timedelta(seconds=1))
    assert not is_expired(Interrupt(id="j", reason="tool_call"), now)


def test_a_date_time_without_a_zone_is_refused_saying_a_zone_is_needed() -> None:
    [error] = validate_payload(SCHEMA, {"approved": True, "chosen_time": "2030-01-08T10:00:00"})
    assert error.path == "/chosen_time"
    assert error.message.startswith("needs a time zone (Z or an offset), e.g. 2030-01-08T10:00:00Z")


PATTERNED = {
    "type": "object",
    "properties": {
        "approved": {"type": "boolean"},
        "table": {
            "type": "string",
            "pattern": "^[a-z_]+$",
            "examples": ["invoices", "old_rows", "a", "b"],
        },
        "code": {"type": "string", "pattern": "^[A-Z]{3}-\\d{4}$"},
    },
    "required": ["approved", "table"],
}


def test_a_pattern_mismatch_names_the_pattern_and_the_schema_examples() -> None:
    payload = {"approved": True, "table": "DROP TABLE x;" * 50, "code": "abc"}
    errors = validate_payload(PATTERNED, payload)
    assert [(e.path, e.message) for e in errors] == [
        ("/code", "must match the pattern ^[A-Z]{3}-\\d{4}$"),
        # The front end words it the same (js/picker/picker.test.ts checks this sentence).
        ("/table", 'must match the pattern ^[a-z_]+$, e.g. "invoices" or "old_rows" or "a"'),
    ]
    assert "DROP TABLE" not in describe(errors)  # the answer itself is not repeated
    long = {"type": "string", "pattern": "x" * 300, "examples": ["é" * 300]}
    [error] = validate_payload(long, "y")
    assert error.message == f'must match the pattern {"x" * 117}..., e.g. "{"é" * 116}...'


def test_the_one_answer_check_tells_an_expiry_first_then_plain_json_then_the_schema() -> None:
    now = datetime.now(UTC)
    schema = {
        "type": "object",
        "properties": {"approved": {"type": "boolean"}},
        "required": ["approved"],
        "additionalProperties": False,
    }
    asked = Interrupt(id="i", reason="tool_call", response_schema=schema)
    assert check_answer(asked, {"approved": True}, schema, now) is None
    late = asked.model_copy(update={"expires_at": (now - timedelta(seconds=1)).isoformat()})
    expired = check_answer(late, {"aproved": True}, schema, now)  # the deadline comes first
    assert expired is not None
    assert (expired.code, expired.errors) == (ErrorCode.INTERRUPT_EXPIRED, [])
    assert expired.sentence("send_money") == (
        f"send_money expired at {late.expires_at}; it can only be cancelled"
    )
    not_json = check_answer(asked, {"approved": True, "amount": float("nan")}, schema, now)
    assert not_json is not None
    assert not_json.code is ErrorCode.INVALID_PAYLOAD
    assert not_json.reason.startswith("the answer must be plain JSON")
    typo = check_answer(asked, {"aproved": True}, schema, now)
    assert typo is not None
    assert "unknown field 'aproved': did you mean 'approved'?" in typo.reason
    assert typo.sentence("send_money") == f"send_money: {typo.reason}"
    assert [e.path for e in typo.errors] == ["", "/approved"]


def test_importing_the_kit_leaves_jsonschema_for_the_first_check() -> None:
    # Importing jsonschema builds its format checkers (an IRI grammar among them): over a
    # second on a loaded machine, paid by `import interrupt_widget` before any answer.
    code = (
        "import sys, interrupt_widget\n"
        "from interrupt_widget.agui.answers import validate_payload\n"
        "assert 'jsonschema' not in sys.modules, 'jsonschema imported with the kit'\n"
        "field = {'type': 'string', 'format': 'date-time'}\n"
        "schema = {'type': 'object', 'properties': {'t': field}}\n"
        "print(validate_payload(schema, {'t': 'soon'})[0].message)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "must be a valid date-time"


def test_an_answer_nested_thousands_deep_is_refused_not_a_crash() -> None:
    deep: list[object] = []
    inner = deep
    for _ in range(5000):
        inner.append([])
        inner = inner[0]  # type: ignore[assignment]
    asked = Interrupt(id="i", reason="tool_call", response_schema=SCHEMA)
    problem = check_answer(asked, {"approved": True, "room": deep}, SCHEMA, datetime.now(UTC))
    assert problem is not None
    assert problem.code is ErrorCode.INVALID_PAYLOAD
    assert problem.reason == "the answer is nested too deeply to be checked"
