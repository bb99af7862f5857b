"""Checking a human's answer against the interrupt's `response_schema`.

The picker (to show an error beside a field) and the adapter (to refuse a bad
resume before any tool runs) share this one check, so a payload the widget
accepts is exactly a payload the agent accepts.

An answer field a schema closes out (`additionalProperties: false`, as every
schema the kit builds says) is refused by name, with the nearest declared
field as a hint: a typo such as `aproved` would otherwise be dropped, and the
call would run as proposed while the person meant something else. A schema
that leaves extra fields open (another server's) keeps its own rule.

An answer that fits is told so by `jsonschema-rs` in a few microseconds, where `jsonschema`
walks the schema in Python; only a schema whose every keyword and format the two read alike
takes that path (`date-time` through `jsonschema`'s own checker), and an answer it does not
call valid goes to `jsonschema`, whose errors name the fields
(`tests/agui/test_quick_answer_check.py` holds the two to the same verdicts).

`jsonschema` is imported on the first check, not with the kit: importing it builds its
format checkers (an IRI grammar among them), over a second on a loaded machine, which
`import interrupt_widget` would otherwise pay before anyone answers anything. Nor does the
first answer pay it: the first question asked starts the import on a thread of its own
(`prepare_checks_soon`), in the seconds a person takes to read the question; an answer given
sooner waits for the rest of it. Code that must not pay it at the first check (a Temporal
workflow task, which has two seconds to yield) calls `prepare_checks()` first.
"""

from __future__ import annotations

import contextlib
import difflib
import functools
import json
import re
import sys
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, Final

from ag_ui.core import Interrupt

from interrupt_widget import clock
from interrupt_widget.agui.answer_edit import EDIT_KEY, OLD_EDIT_KEY
from interrupt_widget.agui.wire import json_pointer
from interrupt_widget.clock import parse_instant
from interrupt_widget.errors import AnswerError, ErrorCode

if TYPE_CHECKING:
    import jsonschema
    import jsonschema_rs


def prepare_checks() -> None:
    """Import `jsonschema` now (and build its format checkers), so no answer check pays it."""
    import jsonschema

    jsonschema.FormatChecker()


_preparing: list[threading.Thread] = []


def prepare_checks_soon() -> None:
    """`prepare_checks` on a daemon thread, once per process, unless it is done already.

    The thread shares the interpreter's lock with the kernel's loop, which keeps turning
    (the import is mostly pure Python, handed over every few milliseconds)."""
    if "jsonschema" in sys.modules or _preparing:
        return
    thread = threading.Thread(target=_prepare_quietly, name="prepare-answer-checks", daemon=True)
    _preparing.append(thread)
    thread.start()


def _prepare_quietly() -> None:
    # A failure here is the first check's to report, where the person is looking.
    with contextlib.suppress(Exception):
        prepare_checks()


# Built once: `json.dumps` with an option builds an encoder on every call.
_SCHEMA_TEXT: Final = json.JSONEncoder(sort_keys=True).encode
"""A schema's text, the key its compiled validators are kept under."""
_STRICT_JSON: Final = json.JSONEncoder(allow_nan=False).encode
"""Raises for what plain JSON cannot hold (a NaN, an object of another class)."""


def validate_payload(schema: Mapping[str, Any] | None, payload: Any) -> list[AnswerError]:
    """Every way `payload` fails `schema`, sorted by field; empty when it fits.

    A missing schema accepts anything. Formats (`date-time`, `date`, `time`, ...)
    are enforced, not merely annotated: a time picker that sends garbage is refused.
    """
    if schema is None:
        return []
    import jsonschema  # here, not at the top: see the module's docstring
    import referencing.exceptions

    schema_json = _SCHEMA_TEXT(schema)
    try:
        validator = _validator(schema_json)
    except jsonschema.SchemaError as exc:
        return [AnswerError("", f"the interrupt's response_schema is invalid: {exc.message}")]
    if _fits_quickly(schema_json, payload):
        return []
    try:
        errors = [found for e in validator.iter_errors(payload) for found in _answer_errors(e)]
    except referencing.exceptions.Unresolvable as exc:  # a $ref to nowhere, found lazily
        return [AnswerError("", f"the interrupt's response_schema is invalid: {exc}")]
    return sorted(errors, key=lambda e: (e.path, e.message))


@dataclass(frozen=True)
class AnswerProblem:
    """Why an answer to one interrupt cannot be taken; nothing records or runs it."""

    code: ErrorCode
    """`INTERRUPT_EXPIRED` (only a cancel is taken now) or `INVALID_PAYLOAD`."""
    reason: str
    """What is wrong, in a clause that needs no subject (`describe` of the fields)."""
    errors: list[AnswerError]
    """The failing fields, for a form to show beside each; empty when none is to blame."""

    def sentence(self, label: str) -> str:
        """The refusal as one sentence about the question `label` names."""
        if self.code is ErrorCode.INTERRUPT_EXPIRED:
            return f"{label} {self.reason}"
        return f"{label}: {self.reason}"


def check_answer(
    interrupt: Interrupt,
    payload: Any,
    schema: Mapping[str, Any] | None,
    now: datetime | None = None,
) -> AnswerProblem | None:
    """The one check of a resolved answer, wherever it comes from (a click, Python, a
    responder, a resume over HTTP, a workflow update): the interrupt has not expired, the
    payload is plain JSON, and it fits `schema` (an unknown field named with the nearest
    declared one). None when the answer may be taken."""
    problem = _payload_problem(payload, schema)
    if is_expired(interrupt, now):  # told first: an expired question takes no answer at all
        reason = f"expired at {interrupt.expires_at}; it can only be cancelled"
        return AnswerProblem(ErrorCode.INTERRUPT_EXPIRED, reason, [])
    return problem


def _payload_problem(payload: Any, schema: Mapping[str, Any] | None) -> AnswerProblem | None:
    """What is wrong with `payload` itself: not plain JSON, or not what `schema` asks."""
    try:
        _STRICT_JSON(payload)
    except (TypeError, ValueError) as exc:
        reason = f"the answer must be plain JSON ({exc})"
        return AnswerProblem(ErrorCode.INVALID_PAYLOAD, reason, [])
    except RecursionError:  # thousands of arrays in arrays: refused, not a crash of the check
        reason = "the answer is nested too deeply to be checked"
        return AnswerProblem(ErrorCode.INVALID_PAYLOAD, reason, [])
    errors = validate_payload(schema, payload)
    if errors:
        return AnswerProblem(ErrorCode.INVALID_PAYLOAD, describe(errors), errors)
    return None


@functools.lru_cache(maxsize=256)
def _validator(schema_json: str) -> jsonschema.protocols.Validator:
    # Checking a schema against its metaschema costs far more than checking an
    # answer; every answer to one interrupt shares the schema, so build it once.
    import jsonschema

    schema = json.loads(schema_json)
    validator_cls = jsonschema.validators.validator_for(schema, jsonschema.Draft202012Validator)
    validator_cls.check_schema(schema)
    return validator_cls(schema, format_checker=validator_cls.FORMAT_CHECKER)


_QUICK_KEYWORDS: Final = frozenset(
    {
        "type", "properties", "required", "additionalProperties", "if", "then", "else",
        "const", "enum", "minLength", "maxLength", "minimum", "maximum", "exclusiveMinimum",
        "exclusiveMaximum", "items", "minItems", "maxItems", "minProperties", "maxProperties",
        "allOf", "anyOf", "oneOf", "not", "format", "title", "description", "default",
        "examples", "readOnly", "writeOnly", "deprecated",
    }
)  # fmt: skip
"""The keywords `jsonschema-rs` reads as `jsonschema` does (a differential test keeps it so)."""

_DATA_KEYWORDS: Final = frozenset({"title", "description", "default", "examples", "const", "enum"})
"""Keywords whose values are data, not subschemas."""


def _fits_quickly(schema_json: str, payload: Any) -> bool:
    """Whether `jsonschema-rs` says at once that `payload` fits; False when it cannot say.

    The common answer fits its schema; `jsonschema-rs` says so in a microsecond where
    `jsonschema` walks the schema in Python (30-150 us). Only a schema it reads exactly as
    `jsonschema` does gets this path (`_quick_validator`), and only a payload it calls valid:
    anything else goes to `jsonschema`, whose errors name the fields."""
    quick = _quick_validator(schema_json)
    try:
        if quick is None or not _plain(payload):
            return False
    except RecursionError:  # too deep to walk here: `jsonschema` says what it says
        return False
    try:
        return bool(quick.is_valid(payload))
    except (ValueError, TypeError, OverflowError):  # a value it cannot read (an infinity)
        return False


_PLAIN_SCALARS: Final = (str, int, float, bool, type(None))


def _plain(value: Any) -> bool:
    """Whether `value` is built of JSON's own Python types alone: `jsonschema-rs` reads a tuple
    as an array, where `jsonschema` (and so the kit) refuses it."""
    kind = type(value)
    if kind is dict:
        return all(type(k) is str and _plain(v) for k, v in value.items())
    if kind is list:
        return all(_plain(v) for v in value)
    return kind in _PLAIN_SCALARS


@functools.lru_cache(maxsize=256)
def _quick_validator(schema_json: str) -> jsonschema_rs.Draft202012Validator | None:
    schema = json.loads(schema_json)
    if not _read_alike(schema):
        return None
    import jsonschema
    import jsonschema_rs

    # `date-time` checked by `jsonschema`'s own checker (RFC 3339, no leap second), not as
    # `jsonschema-rs` checks it (it takes `23:59:60`, which no `datetime` holds).
    # Its function itself, as `FormatChecker.conforms` calls it (no `raises` for this format),
    # without the two calls and the exception it goes through to say no.
    is_date_time = jsonschema.Draft202012Validator.FORMAT_CHECKER.checkers["date-time"][0]

    def date_time(text: str) -> bool:
        return bool(is_date_time(text))

    formats: dict[str, Callable[..., bool]] = {"date-time": date_time}
    try:
        return jsonschema_rs.Draft202012Validator(schema, formats=formats, validate_formats=True)
    except Exception:  # a schema it will not build: `jsonschema` alone checks it
        return None


def _read_alike(schema: Any) -> bool:
    """Whether every keyword of `schema` is one both validators read alike."""
    if isinstance(schema, bool):
        return True
    if not isinstance(schema, dict):
        return False
    for keyword, value in schema.items():
        if keyword not in _QUICK_KEYWORDS:
            return False
        if keyword in _DATA_KEYWORDS:
            continue
        if keyword == "format" and value != "date-time":
            return False
        if keyword == "properties" and not (
            isinstance(value, dict) and all(_read_alike(v) for v in value.values())
        ):
            return False
        if keyword in ("allOf", "anyOf", "oneOf") and not (
            isinstance(value, list) and all(_read_alike(v) for v in value)
        ):
            return False
        if keyword in ("additionalProperties", "items", "if", "then", "else", "not") and not (
            _read_alike(value)
        ):
            return False
    return True


def describe(errors: list[AnswerError]) -> str:
    """One line naming each failing field, for an exception or a RUN_ERROR."""
    return "; ".join(f"{e.path or '(answer)'}: {e.message}" for e in errors)


def is_expired(interrupt: Interrupt, now: datetime | None = None) -> bool:
    """True once `expires_at` has passed. A timestamp without a zone counts as UTC."""
    if not interrupt.expires_at:
        return False
    return parse_instant(interrupt.expires_at) <= (now or clock.now())


def too_late(label: str, deadline: str | None, status: str) -> str:
    """Why an answer to a question its deadline settled (`status`: how) changes nothing."""
    settled = "denied" if status == "resolved" else "cancelled"
    return (
        f"{label} expired at {deadline or 'its deadline'} and was {settled}: this answer came "
        "too late; nothing was changed"
    )


ZONED_EXAMPLE = "2030-01-08T10:00:00Z or 2030-01-08T10:00:00+02:00"
"""How a date-time answer looks, in the sentences that refuse one."""


def _date_time_problem(instance: Any) -> str:
    """Why a `date-time` answer was refused: above all, a time without a zone."""
    if isinstance(instance, str):
        try:
            moment = clock.parse_iso(instance)
        except ValueError:
            pass
        else:
            if moment.tzinfo is None:
                return f"needs a time zone (Z or an offset), e.g. {ZONED_EXAMPLE}"
    return "must be a valid date-time"


def pattern_problem(pattern: str, schema: Any) -> str:
    """Why a text failed `pattern`: the pattern, and the field's `examples` when it gives some
    (JSON, at most three). The front end words it the same (`js/card/collect.ts`)."""
    said = f"must match the pattern {_shortened(pattern)}"
    examples = schema.get("examples") if isinstance(schema, Mapping) else None
    if not isinstance(examples, list) or not examples:
        return said
    shown = " or ".join(_shortened(json.dumps(e, ensure_ascii=False)) for e in examples[:3])
    return f"{said}, e.g. {shown}"


def _shortened(text: str, limit: int = 120) -> str:
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _answer_errors(err: jsonschema.ValidationError) -> list[AnswerError]:
    """What one jsonschema error says, as errors a person can act on: an object with
    undeclared fields gives one per field (a few, then how many more)."""
    if err.validator in _CLOSED and err.validator_value is False:
        return undeclared_fields(err.schema, err.instance, list(err.absolute_path))
    return [AnswerError(_field(err), _sentence(err))]


_CLOSED = frozenset({"additionalProperties", "unevaluatedProperties"})
"""The keywords that close an object to fields its schema does not declare."""

_NAMED_AT_MOST = 5
"""Undeclared fields named one by one in a refusal; a flood of them is counted."""


def undeclared_fields(schema: Any, instance: Any, at: list[Any]) -> list[AnswerError]:
    """The fields of `instance` (an object at path `at`) that `schema` does not declare,
    each with the nearest declared field to say instead.

    Each error points at the object (a field it lacks has no place in a form) and names
    the field in its message, escaped: a client's field name may hold anything."""
    if not isinstance(schema, Mapping) or not isinstance(instance, Mapping):
        return [AnswerError(json_pointer(at), "has fields its schema does not allow")]
    declared = schema.get("properties")
    names = [str(n) for n in declared] if isinstance(declared, Mapping) else []
    patterns = schema.get("patternProperties")
    unknown = [
        str(key)
        for key in instance
        if key not in names and not _matches_pattern(str(key), patterns)
    ]
    errors = [
        AnswerError(json_pointer(at), unknown_field(key, names, at))
        for key in unknown[:_NAMED_AT_MOST]
    ]
    if len(unknown) > _NAMED_AT_MOST:
        more = len(unknown) - _NAMED_AT_MOST
        errors.append(AnswerError(json_pointer(at), f"has {more} more unknown fields"))
    return errors


def _matches_pattern(key: str, patterns: Any) -> bool:
    if not isinstance(patterns, Mapping):
        return False
    try:
        return any(re.search(str(p), key) for p in patterns)
    except re.error:  # jsonschema has already refused such a schema; declare nothing
        return False


def unknown_field(key: str, names: list[str], at: list[Any]) -> str:
    """Why field `key` (in the object at path `at`, which declares `names`) is refused,
    and what the person likely meant."""
    shown = repr(_cut(key))
    fields = f"(the fields: {', '.join(names)})" if names else "(it takes no fields)"
    if key == OLD_EDIT_KEY and not at:  # the kit's old edit field, from an older client
        if EDIT_KEY in names:
            return (
                f"unknown field {shown}: did you mean {EDIT_KEY!r}? edited arguments "
                f"travel in {EDIT_KEY!r}, in full"
            )
        if "approved" in names:
            return f"unknown field {shown}: this tool does not take edits {fields}"
    nearest = _nearest(key, names) if len(key) <= _LONGEST_NAME else None
    if nearest is not None:
        return f"unknown field {shown}: did you mean {nearest!r}?"
    return f"unknown field {shown} {fields}"


def _nearest(key: str, names: list[str]) -> str | None:
    """The declared field `key` most likely misspells: the same name in another case,
    else the closest spelling."""
    folded = [n for n in names if n.casefold() == key.casefold()]
    if folded:
        return folded[0]
    close = difflib.get_close_matches(key, names, n=1, cutoff=0.6)
    return close[0] if close else None


_LONGEST_NAME = 60
"""Longer field names are cut short where a refusal repeats them, and never spell-checked."""


def _cut(key: str) -> str:
    # A field name is the client's text, of any length: never echoed whole.
    return key if len(key) <= _LONGEST_NAME else key[: _LONGEST_NAME - 3] + "..."


def _field(err: jsonschema.ValidationError) -> str:
    path = list(err.absolute_path)
    if err.validator == "required":  # point at the missing field, where the form shows it
        path.append(_missing_name(err))
    return json_pointer(path)


def _missing_name(err: jsonschema.ValidationError) -> str:
    required: Any = err.validator_value
    names = [n for n in required if repr(n) in str(err.message)]
    return str(names[0]) if names else ""


def _sentence(err: jsonschema.ValidationError) -> str:
    # jsonschema's own messages quote the whole instance, which can be huge or
    # hostile; keep the ones that name a field and shorten the rest.
    if err.validator == "required":
        return "is required"
    if err.validator == "format" and err.validator_value == "date-time":
        return _date_time_problem(err.instance)
    if err.validator == "format":
        return f"must be a valid {err.validator_value}"
    if err.validator in {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"}:
        bound = {"minimum": ">=", "maximum": "<=", "exclusiveMinimum": ">", "exclusiveMaximum": "<"}
        return f"must be {bound[str(err.validator)]} {err.validator_value}"
    if err.validator == "type":
        return f"must be of type {err.validator_value}"
    if err.validator == "enum":
        choices: Any = err.validator_value
        return "must be one of " + ", ".join(repr(v) for v in choices)
    if err.validator == "pattern":
        return pattern_problem(str(err.validator_value), err.schema)
    message = str(err.message)
    return message if len(message) <= 200 else message[:197] + "..."
