"""The quick answer check (`jsonschema-rs` saying at once that an answer fits) against
`jsonschema` itself: on every schema it takes, the same answers fit and the same fail, with
`jsonschema`'s own errors; a schema it might read otherwise never takes it."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from interrupt_widget.agui import answers
from interrupt_widget.agui.answers import validate_payload
from interrupt_widget.agui.interrupts import approval_schema

MEETING = approval_schema(
    {
        "type": "object",
        "properties": {
            "chosen_time": {"type": "string", "format": "date-time", "title": "Time"},
            "chosen_label": {"type": "string", "title": "Label", "minLength": 1},
        },
        "required": ["chosen_time", "chosen_label"],
    }
)

WIDE: dict[str, Any] = {
    "type": "object",
    "properties": {
        "approved": {"type": "boolean"},
        "n": {"type": "integer", "minimum": 1, "exclusiveMaximum": 100},
        "x": {"type": "number"},
        "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 3},
        "label": {"type": "string", "minLength": 1, "maxLength": 3},
        "kind": {"enum": ["a", "b", 1, None]},
        "fixed": {"const": {"k": [1, 2]}},
        "either": {"oneOf": [{"type": "string"}, {"type": "integer"}]},
        "some": {"anyOf": [{"type": "string", "maxLength": 2}, {"type": "boolean"}]},
        "never_null": {"not": {"type": "null"}},
        "nested": {
            "type": "object",
            "properties": {"when": {"type": "string", "format": "date-time"}},
            "additionalProperties": False,
            "minProperties": 1,
        },
    },
    "required": ["approved"],
    "additionalProperties": False,
    "if": {"properties": {"approved": {"const": False}}},
    "then": {"maxProperties": 2},
    "else": {"allOf": [{"required": ["approved"]}]},
}

TIMES = [
    "2030-01-08T10:00:00Z",
    "2030-01-08t10:00:00z",
    "2030-01-08 10:00:00Z",
    "2030-01-08T10:00:00",
    "2030-01-08T10:00:00+01:00",
    "2030-01-08T10:00:00.123456789Z",
    "2030-02-30T10:00:00Z",
    "2016-12-31T23:59:60Z",  # a leap second: RFC 3339 allows it, no datetime holds it
    "1990-12-31T15:59:60-08:00",
    "2030-01-08T24:00:00Z",
    "2030-01-08T10:00Z",
    "2030-1-8T10:00:00Z",
    "2030-01-08T10:00:00+0100",
    "２０３０-01-08T10:00:00Z",
    "2030-01-08T10:00:00,5Z",
    "",
    "garbage",
]


def _answers() -> list[Any]:
    """Answers a person, a client or a bug could send, fitting and not."""
    found: list[Any] = [
        {"approved": True, "chosen_time": t, "chosen_label": "Tue 10:00"} for t in TIMES
    ]
    found += [
        {"approved": True, "chosen_time": "2030-01-08T10:00:00Z"},
        {"approved": True, "chosen_time": "2030-01-08T10:00:00Z", "chosen_label": ""},
        {"approved": True, "chosen_time": 20300108, "chosen_label": "x"},
        {"approved": False},
        {"approved": False, "reason": "r" * 1000},
        {"approved": False, "reason": "r" * 1001},
        {"approved": False, "reason": "😀" * 1000},
        {"approved": 1},
        {"approved": 0},
        {"approved": "true"},
        {"aproved": True},
        {"approved": True, "arguments": {}},
        {"approved": True, "editedArgs": {"amount": 5}},
        {},
        [],
        None,
        "yes",
        True,
    ]
    numbers = (1, 0, 1.0, 1.5, True, -1, 99, 100, 10**30, "1", float("inf"), float("nan"))
    found += [{"approved": True, "n": n} for n in numbers]
    found += [{"approved": True, "x": x} for x in (1, 1.5, True, "1", None, float("inf"), -0.0)]
    labels = ("", "a", "abc", "abcd", "😀😀😀", "😀😀😀😀", "e\u0301e\u0301", "\x00")
    found += [{"approved": True, "label": label} for label in labels]
    found += [{"approved": True, "kind": k} for k in ("a", "c", 1, 1.0, True, None, 0, [])]
    fixed = ({"k": [1, 2]}, {"k": [1.0, 2.0]}, {"k": [True, 2]})
    found += [{"approved": True, "fixed": f} for f in fixed]
    found += [{"approved": True, "either": e} for e in ("s", 1, 1.0, True, None)]
    found += [{"approved": True, "some": v} for v in ("ab", "abc", False, 1)]
    found += [{"approved": True, "never_null": v} for v in (None, 0, "", [])]
    nested = ({}, {"when": "2030-01-08T10:00:00Z"}, {"when": TIMES[7]}, {"when": "x"}, {"o": 1})
    found += [{"approved": True, "nested": n} for n in nested]
    found += [
        {"approved": False, "n": 5},
        {"approved": False, "n": 5, "x": 1},
        {"approved": True, "tags": []},
        {"approved": True, "tags": ["a", "b", "c", "d"]},
        {"approved": True, "tags": [1]},
        {"approved": True, "tags": "a"},
        {"approved": True, "tags": ("a",)},  # a tuple: JSON's dumps takes it, a schema does not
        {"approved": True, "tags": ["a", ("b",)]},
        {"approved": True, "nested": {"when": ("x",)}},
    ]
    return found


ANSWERS = _answers()


def _slow(schema: dict[str, Any], payload: Any, monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """What `jsonschema` alone says."""
    with monkeypatch.context() as patched:
        patched.setattr(answers, "_fits_quickly", lambda schema_json, payload: False)
        return validate_payload(schema, payload)


@pytest.mark.parametrize(
    "schema", [approval_schema(), MEETING, WIDE], ids=["plain", "meeting", "wide"]
)
def test_the_quick_check_agrees_with_jsonschema_on_every_answer(
    schema: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    schema_json = json.dumps(schema, sort_keys=True)
    quick = answers._quick_validator(schema_json)
    assert quick is not None  # these schemas take the quick path
    taken = 0
    for payload in ANSWERS:
        expected = _slow(schema, payload, monkeypatch)
        if answers._fits_quickly(schema_json, payload):
            taken += 1
            assert expected == [], f"jsonschema refuses {payload!r}: {expected}"
        assert validate_payload(schema, payload) == expected, payload
    assert taken >= 3  # the quick path did answer, the test is not empty


def test_a_leap_second_is_refused_as_jsonschema_refuses_it() -> None:
    refused = validate_payload(
        MEETING, {"approved": True, "chosen_time": "2016-12-31T23:59:60Z", "chosen_label": "x"}
    )
    assert [e.path for e in refused] == ["/chosen_time"]


@pytest.mark.parametrize(
    "schema",
    [
        {"type": "string", "pattern": "^a"},  # a regex dialect of its own
        {"type": "string", "format": "email"},  # a format checked otherwise
        {"type": "string", "format": "date"},
        {"$ref": "#/$defs/a", "$defs": {"a": {"type": "string"}}},
        {"$schema": "http://json-schema.org/draft-07/schema#", "type": "string"},
        {"type": "number", "multipleOf": 0.1},
        {"type": "array", "uniqueItems": True},
        {"type": "object", "properties": {"a": {"type": "string", "pattern": "x"}}},
        {"type": "object", "additionalProperties": {"format": "uri"}},
        {"anyOf": [{"type": "string"}, {"dependentRequired": {}}]},
    ],
)
def test_a_schema_the_two_might_read_otherwise_goes_to_jsonschema(schema: dict[str, Any]) -> None:
    assert answers._quick_validator(json.dumps(schema, sort_keys=True)) is None


def test_an_invalid_schema_is_still_named_invalid() -> None:
    [error] = validate_payload({"type": 12}, {"approved": True})
    assert "response_schema is invalid" in error.message


def _random_value(rnd: random.Random, depth: int = 0) -> Any:
    """A JSON value drawn from edges the two validators might read otherwise."""
    if depth > 2 or rnd.random() < 0.5:
        return rnd.choice(
            [0, 1, -1, 99, 100, 1.0, 1.5, -0.0, 2**63, 2**70, -(2**70), 1e308, True, False,
             None, "", "a", "abcd", "é", "\U0001f600" * 3, *TIMES, "1"]
        )  # fmt: skip
    if rnd.random() < 0.5:
        return [_random_value(rnd, depth + 1) for _ in range(rnd.randint(0, 4))]
    names = [
        "approved",
        "n",
        "x",
        "tags",
        "label",
        "kind",
        "fixed",
        "either",
        "some",
        "nested",
        "when",
    ]
    return {rnd.choice(names): _random_value(rnd, depth + 1) for _ in range(rnd.randint(0, 4))}


@pytest.mark.parametrize("seed", range(3))
def test_the_quick_check_never_takes_a_random_answer_jsonschema_refuses(seed: int) -> None:
    import jsonschema

    rnd = random.Random(seed)
    schema_json = json.dumps(WIDE, sort_keys=True)
    slow = jsonschema.Draft202012Validator(
        WIDE, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER
    )
    taken = 0
    for _ in range(2000):
        drawn = _random_value(rnd, 1)
        payload = {
            "approved": rnd.choice([True, False]),
            **(drawn if isinstance(drawn, dict) else {}),
        }
        if rnd.random() < 0.25:  # a time where the schema reads one: every edge of TIMES
            payload["nested"] = {"when": rnd.choice(TIMES)}
        if answers._fits_quickly(schema_json, payload):
            taken += 1
            assert slow.is_valid(payload), payload
    assert taken >= 50  # answers that fit were drawn, and the quick path took them
