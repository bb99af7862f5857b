"""The custom messages between the inbox's front end and Python.

The list of waiting calls travels as messages, not as a trait: a view asks for
the whole list once (`hello`, answered by a `snapshot`), then gets only what
changed, merged into at most a few `delta` messages a second, so an update costs
bytes in proportion to what changed, not to the length of the list. Their shapes are
described once, in `wire/inbox.schema.json` (with `wire/common.schema.json`); this
module is the one place where those camelCase dicts become typed values and back, and
`js/inbox/protocol.ts` is the same for TypeScript. Both are checked against the schema
on the examples in `tests/fixtures/wire/`.

Front end -> Python::

    {"type": "hello"}
    {"type": "attached"}       # a front end created the model, shown or not (attendance.py)
    {"type": "answer", "requestId": str, "ids": [str, ...],
     "status": "resolved" | "cancelled", "payload"?: <json>, "viewId"?: str}
    {"type": "remember", "requestId": str, "id": str, "field"?: str,
     "op"?: "eq" | "le", "viewId"?: str}
    {"type": "forget", "requestId": str, "name": str}
    {"type": "settle", "requestId": str, "id": str, "ran": bool, "output"?: str,
     "viewId"?: str}

`settle` is a person's word on a call in doubt (its run ended before recording a
result): `ran` true, it ran and `output` is its result; false, it did not run, so
it runs now. It is the picker's `settle` naming an item instead of an interrupt (one
`Settle` for both), and is answered with an `answer_result`, as an answer is. A key a
message does not have is refused, never ignored, as in the picker's.

Python -> front end::

    {"type": "snapshot", "items": [Item, ...]}
    {"type": "delta", "upsert": [Item, ...], "remove": [str, ...]}
    {"type": "answer_result", "requestId": str,
     "results": [{"id": str, "ok": bool, "verdict": str, "error": str,
                  "errors": [{"path", "message"}]}]}

An `Item` is one waiting call: `{"id", "key", "tool", "args", "interrupt", "since",
"expiresAt", "error", "doubt"}` (`args` the arguments as one compact line, `interrupt` the
AG-UI interrupt as camelCase JSON for the card, `since` milliseconds since the epoch,
`doubt` what is known of a call that may have run, or "").
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal, TypeAlias

from interrupt_widget.errors import AnswerError
from interrupt_widget.identity import Identity
from interrupt_widget.policy.quorum import escalates_to, not_allowed_reason
from interrupt_widget.widgets._bundle import WIDGET_CODE, WantsCode
from interrupt_widget.widgets.attendance import ATTACHED, Attached
from interrupt_widget.widgets.picker_protocol import (
    AnswerStatus,
    FromView,
    ProtocolError,
    Settle,
    answer_status,
    errors_to_wire,
    only_fields,
    request_id_of,
    settle_word,
    view_id_of,
)

__all__ = [
    "AnswerItems",
    "AnswerOutcome",
    "Attached",
    "Forget",
    "Hello",
    "ProtocolError",
    "Remember",
    "Settle",
    "answer_result_to_wire",
    "delta_to_wire",
    "outcome_from_wire",
    "outcome_to_wire",
    "parse_front_end_message",
    "snapshot_to_wire",
]

RuleOp: TypeAlias = Literal["eq", "le"]


@dataclass(frozen=True)
class Hello:
    """A view that (re)draws and needs the whole list."""


@dataclass(frozen=True)
class AnswerItems(FromView):
    """One answer for one or several waiting calls (a card's, or Approve/Deny/Cancel selected)."""

    request_id: str
    ids: tuple[str, ...]
    """The items answered."""
    status: AnswerStatus
    payload: Any = None
    view_id: str | None = None
    """The view that sent it; the answer is recorded as by `view:<id>` (see `FromView`)."""


@dataclass(frozen=True)
class Remember(FromView):
    """Approve one call and the calls like it: same tool, and `field` equal to (`eq`) or at
    most (`le`) this call's value; no field: every call to the tool."""

    request_id: str
    id: str
    field: str | None = None
    op: RuleOp = "eq"
    view_id: str | None = None
    """The view that sent it."""


@dataclass(frozen=True)
class Forget:
    """Remove a remembered rule by name."""

    request_id: str
    name: str


@dataclass(frozen=True)
class AnswerOutcome:
    """What one item got."""

    id: str
    ok: bool
    verdict: str = ""
    """`approved`, `denied`, `cancelled` or `answered` when ok."""
    error: str = ""
    errors: list[AnswerError] = field(default_factory=list)


FrontEndMessage = Hello | Attached | WantsCode | AnswerItems | Remember | Forget | Settle

_FIELDS: dict[str, frozenset[str]] = {
    "hello": frozenset({"type"}),
    ATTACHED: frozenset({"type"}),
    WIDGET_CODE: frozenset({"type"}),
    "answer": frozenset({"type", "requestId", "ids", "status", "payload", "viewId"}),
    "remember": frozenset({"type", "requestId", "id", "field", "op", "viewId"}),
    "forget": frozenset({"type", "requestId", "name"}),
    "settle": frozenset({"type", "requestId", "id", "ran", "output", "viewId"}),
}
"""The keys each message may carry; any other is refused."""


def parse_front_end_message(content: Any) -> FrontEndMessage:
    """The typed message, or `ProtocolError` (with the request id when there was one)."""
    if not isinstance(content, Mapping):
        raise ProtocolError("an inbox message must be a JSON object")
    kind = content.get("type")
    if kind in ("hello", ATTACHED, WIDGET_CODE):
        only_fields(content, _FIELDS[kind], None)
        if kind == "hello":
            return Hello()
        return Attached() if kind == ATTACHED else WantsCode()
    request_id = request_id_of(content)
    if request_id is None:
        raise ProtocolError(f"an inbox {kind!r} message needs a string requestId")
    if kind not in _FIELDS:
        raise ProtocolError(f"unknown inbox message type {kind!r}", request_id=request_id)
    only_fields(content, _FIELDS[kind], request_id)
    view_id = view_id_of(content, request_id)
    if kind == "answer":
        ids = content.get("ids")
        if not isinstance(ids, list) or not ids or not all(isinstance(i, str) for i in ids):
            raise ProtocolError("an answer needs a non-empty list of ids", request_id=request_id)
        status = answer_status(content, request_id)
        payload = content.get("payload") if status == "resolved" else None
        return AnswerItems(request_id, tuple(ids), status, payload, view_id)
    if kind == "remember":
        return _remember(content, request_id, view_id)
    if kind == "forget":
        name = content.get("name")
        if not isinstance(name, str) or not name:
            raise ProtocolError("forget needs a rule name", request_id=request_id)
        return Forget(request_id, name)
    item = content.get("id")
    if not isinstance(item, str) or not item:
        raise ProtocolError("settle needs an item id", request_id=request_id)
    ran, output = settle_word(content, request_id)
    return Settle(request_id, item, ran, output, view_id)


def _remember(content: Mapping[str, Any], request_id: str, view_id: str | None) -> Remember:
    item, name, op = content.get("id"), content.get("field"), content.get("op", "eq")
    if not isinstance(item, str) or not item or (name is not None and not isinstance(name, str)):
        raise ProtocolError("remember needs an item id and a field name", request_id=request_id)
    if op not in ("eq", "le"):
        raise ProtocolError("op must be 'eq' or 'le'", request_id=request_id)
    return Remember(request_id, item, name, "le" if op == "le" else "eq", view_id)


def answer_result_to_wire(request_id: str, outcomes: list[AnswerOutcome]) -> dict[str, Any]:
    """The reply to an `AnswerItems` or `Remember`: what each item got."""
    return {
        "type": "answer_result",
        "requestId": request_id,
        "results": [outcome_to_wire(o) for o in outcomes],
    }


def outcome_to_wire(outcome: AnswerOutcome) -> dict[str, Any]:
    """What one item got, as every list of questions (the inbox, the server's sidebar) says it."""
    return {
        "id": outcome.id,
        "ok": outcome.ok,
        "verdict": outcome.verdict,
        "error": outcome.error,
        "errors": errors_to_wire(outcome.errors),
    }


def outcome_from_wire(value: Mapping[str, Any]) -> AnswerOutcome:
    """An outcome read back (from the server's board, where a kernel wrote it)."""
    errors = [
        AnswerError(str(e.get("path", "")), str(e.get("message", "")))
        for e in value.get("errors", [])
    ]
    return AnswerOutcome(
        str(value.get("id", "")),
        value.get("ok") is True,
        str(value.get("verdict", "")),
        str(value.get("error", "")),
        errors,
    )


def snapshot_to_wire(items: list[dict[str, Any]]) -> dict[str, Any]:
    """The whole list, for a view's `hello`."""
    return {"type": "snapshot", "items": items}


def delta_to_wire(upsert: list[dict[str, Any]], remove: list[str]) -> dict[str, Any]:
    """What changed since the last message: items added or changed, and the ids that left."""
    return {"type": "delta", "upsert": upsert, "remove": remove}


def for_viewer(metadata: Any, person: Identity, now: datetime) -> dict[str, bool]:
    """Whether `person` may answer a question whose interrupt carries `metadata` at `now`,
    and whether it escalates to them (a call no rule about people covers: anyone may, and
    it escalates nowhere)."""
    return {
        "mayAnswer": not_allowed_reason(metadata, person, True, now) is None,
        "escalatesToMe": escalates_to(metadata, person),
    }
