"""The custom messages between the picker's front end and Python.

User actions travel from the browser as `model.send` custom messages rather
than trait updates (a trait saved while a cell awaits stalls the widget's later
updates on ipykernel 7.4). Their shapes are described once, in
`wire/picker.schema.json` (with `wire/common.schema.json`, which the inbox's and
the chat's contracts share); this module is the one place where those camelCase
wire dicts become typed Python values and back, and `js/picker/protocol.ts` is the
same for TypeScript. Both are checked against the schema on the examples in
`tests/fixtures/wire/`.

Front end -> Python::

    {"type": "answer", "requestId": str, "interruptId": str,
     "status": "resolved" | "cancelled", "payload"?: <json>, "viewId"?: str}
    {"type": "settle", "requestId": str, "interruptId": str, "ran": bool,
     "output"?: str, "viewId"?: str}
    {"type": "attached"}                 # a front end created the model (attendance.py)

`viewId` names the view that sent it (one per mounted view); the answer is then
recorded as by `view:<viewId>`, so every view can tell its own answer from another's.
`settle` is a person's word on a call in doubt (its run ended before recording a
result): `ran` true, it ran and `output` is its result, as the person read it;
false, it did not run, so the resume runs it now. A key a message does not have is
refused, never ignored: the front end is the kit's own bundle, so it means the two
sides drifted apart.

Python -> front end, once per request::

    {"type": "answer_result", "requestId": str, "ok": bool, "error": str,
     "errors": [{"path": <json pointer>, "message": str}]}
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Set
from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias

from interrupt_widget.errors import AnswerError
from interrupt_widget.widgets._bundle import WIDGET_CODE, WantsCode
from interrupt_widget.widgets.attendance import ATTACHED, Attached

AnswerStatus: TypeAlias = Literal["resolved", "cancelled"]
_STATUSES: tuple[AnswerStatus, ...] = ("resolved", "cancelled")
_VIEW_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
VIEW_PREFIX = "view:"
"""`by` of an answer a view sent with its `viewId`: `view:<viewId>`."""


class ProtocolError(ValueError):
    """A front-end message that does not follow the contract."""

    def __init__(self, message: str, *, request_id: str | None = None) -> None:
        super().__init__(message)
        self.request_id = request_id
        """The request to reply to, when the message carried a usable one."""


class FromView:
    """A message a view sent; `view_id` names the view when the front end names itself."""

    view_id: str | None

    @property
    def by(self) -> str:
        """Who answered (or settled), as the picker records it: `view:<id>`, or `user` from
        an unnamed view."""
        return answered_by(self.view_id)


@dataclass(frozen=True)
class AnswerRequest(FromView):
    """A person's answer (or cancel) for one interrupt, sent by a view."""

    request_id: str
    """Chosen by the view; echoed in the reply so the view that asked can match it."""
    interrupt_id: str
    """The interrupt being answered."""
    status: AnswerStatus
    """`resolved` with a payload, or `cancelled`."""
    payload: Any = None
    """The answer; checked against the interrupt's `response_schema` before it is recorded."""
    view_id: str | None = None
    """The view that sent it, when the front end names itself."""


@dataclass(frozen=True)
class AnswerResult:
    """Python's verdict on one `AnswerRequest`."""

    request_id: str
    """The request this answers."""
    ok: bool
    """True when the answer was recorded."""
    error: str = ""
    """Why it was refused, as one sentence; empty when `ok`."""
    errors: list[AnswerError] = field(default_factory=list)
    """Per-field reasons (JSON pointers), shown beside the fields."""


@dataclass(frozen=True)
class Settle(FromView):
    """A person's word on a call in doubt, sent by a picker's view or an inbox's."""

    request_id: str
    """Chosen by the view; echoed in the reply."""
    id: str
    """What is settled: the interrupt's id in a picker, the waiting item's id in an inbox."""
    ran: bool
    """True: it ran, and `output` is its result. False: it did not run; run it now."""
    output: str | None = None
    """The call's result as the person gives it (only when `ran`)."""
    view_id: str | None = None
    """The view that sent it."""


_ANSWER_FIELDS = frozenset({"type", "requestId", "interruptId", "status", "payload", "viewId"})
_SETTLE_FIELDS = frozenset({"type", "requestId", "ran", "output", "viewId"})
"""A settle's fields, less the one naming what it settles (`interruptId` or `id`)."""


def parse_front_end_message(content: Any) -> AnswerRequest | Settle | Attached | WantsCode:
    """The typed request in a front-end custom message, or `ProtocolError`."""
    if not isinstance(content, Mapping):
        raise ProtocolError("a picker message must be a JSON object")
    kind = content.get("type")
    if kind in (ATTACHED, WIDGET_CODE):
        only_fields(content, {"type"}, None)
        return Attached() if kind == ATTACHED else WantsCode()
    request_id = request_id_of(content)
    if kind not in ("answer", "settle"):
        raise ProtocolError(f"unknown picker message type {kind!r}", request_id=request_id)
    if request_id is None:
        raise ProtocolError(f"{kind!r} needs a string requestId")
    interrupt_id = content.get("interruptId")
    if not isinstance(interrupt_id, str) or not interrupt_id:
        raise ProtocolError(f"{kind!r} needs a string interruptId", request_id=request_id)
    view_id = view_id_of(content, request_id)
    if kind == "settle":
        only_fields(content, _SETTLE_FIELDS | {"interruptId"}, request_id)
        ran, output = settle_word(content, request_id)
        return Settle(request_id, interrupt_id, ran, output, view_id)
    only_fields(content, _ANSWER_FIELDS, request_id)
    resolved = answer_status(content, request_id)
    return AnswerRequest(
        request_id=request_id,
        interrupt_id=interrupt_id,
        status=resolved,
        payload=content.get("payload") if resolved == "resolved" else None,
        view_id=view_id,
    )


def request_id_of(content: Mapping[str, Any]) -> str | None:
    """The message's `requestId` when it is usable (a non-empty string), else None."""
    request_id = content.get("requestId")
    return request_id if isinstance(request_id, str) and request_id else None


def only_fields(content: Mapping[str, Any], fields: Set[str], request_id: str | None) -> None:
    """Refuse a key the message does not have. The front end is the kit's own bundle, so an
    unknown key means the two sides drifted apart: refused, never ignored."""
    unknown = sorted(repr(k)[:40] for k in content if k not in fields)
    if unknown:
        raise ProtocolError(
            f"a message of type {content.get('type')!r} has no field {unknown[0]} "
            f"(its fields: {', '.join(sorted(fields))})",
            request_id=request_id,
        )


def answer_status(content: Mapping[str, Any], request_id: str) -> AnswerStatus:
    """The message's `status`, `resolved` or `cancelled`."""
    status = content.get("status")
    if status not in _STATUSES:
        raise ProtocolError(
            "an answer's status must be 'resolved' or 'cancelled'", request_id=request_id
        )
    return "resolved" if status == "resolved" else "cancelled"


def answered_by(view_id: str | None) -> str:
    """Who answered from a view: `view:<viewId>`, or `user` from a view that names no id."""
    return f"{VIEW_PREFIX}{view_id}" if view_id else "user"


def view_id_of(content: Mapping[str, Any], request_id: str) -> str | None:
    """The message's `viewId`, checked (letters, digits, '-' or '_'), or None."""
    view_id = content.get("viewId")
    if view_id is not None and not (isinstance(view_id, str) and _VIEW_ID.fullmatch(view_id)):
        raise ProtocolError(
            "a viewId must be 1-64 letters, digits, '-' or '_'", request_id=request_id
        )
    return view_id


def settle_word(content: Mapping[str, Any], request_id: str) -> tuple[bool, str | None]:
    """`(ran, output)` of a settle message: a call that ran has its output, as text; one
    that did not has none (no `output` key at all)."""
    ran, output = content.get("ran"), content.get("output")
    if not isinstance(ran, bool):
        raise ProtocolError("a settle needs ran: true or false", request_id=request_id)
    if ran and not isinstance(output, str):
        raise ProtocolError("a call that ran needs its output, as text", request_id=request_id)
    if not ran and "output" in content:
        raise ProtocolError("a call that did not run has no output", request_id=request_id)
    return ran, output if ran else None


def answer_result_to_wire(result: AnswerResult) -> dict[str, Any]:
    """The camelCase reply for the front end."""
    return {
        "type": "answer_result",
        "requestId": result.request_id,
        "ok": result.ok,
        "error": result.error,
        "errors": errors_to_wire(result.errors),
    }


def errors_to_wire(errors: list[AnswerError]) -> list[dict[str, str]]:
    """Field errors as the front end (and the `errors` trait) holds them."""
    return [{"path": e.path, "message": e.message} for e in errors]
