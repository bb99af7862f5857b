"""The custom messages between the chat's front end and Python.

Traits hold what a freshly drawn view needs (`kind`, `messages`, `status`,
`status_line`, `picker`); custom messages carry the event stream one way and
user actions the other. Their shapes are described once, in `wire/chat.schema.json`
(with `wire/common.schema.json`); this module is the one place where those camelCase
wire dicts become typed Python values and back, and `js/chat/protocol.ts` is the same
for TypeScript. Both are checked against the schema on the examples in
`tests/fixtures/wire/`. A key a message does not have is refused, never ignored.

Front end -> Python::

    {"type": "prompt", "text": str, "requestId": str}
    {"type": "stop"}
    {"type": "hello"}                  # a view opened: send it the run so far
    {"type": "attached"}               # a front end created the model (see attendance.py)

Python -> front end::

    {"type": "events", "events": [<AG-UI event, camelCase>]}   # the batched stream
    {"type": "catchup", "events": [...]}                       # the run so far, for "hello"
    {"type": "prompt_result", "requestId": str, "ok": bool, "error"?: str}
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, TypeAlias

from interrupt_widget.agui.wire import JsonDict
from interrupt_widget.widgets._bundle import WIDGET_CODE, WantsCode
from interrupt_widget.widgets.attendance import ATTACHED, Attached
from interrupt_widget.widgets.picker_protocol import ProtocolError, only_fields, request_id_of

__all__ = [
    "Attached",
    "Hello",
    "Prompt",
    "PromptResult",
    "ProtocolError",
    "Stop",
    "events_to_wire",
    "parse_front_end_message",
    "prompt_result_to_wire",
]


@dataclass(frozen=True)
class Prompt:
    """A person's message for the agent, typed in a view."""

    request_id: str
    """Chosen by the view; echoed in the `PromptResult` so the view that asked can match it."""
    text: str
    """What they wrote."""


@dataclass(frozen=True)
class Stop:
    """Stop pressed in a view."""


@dataclass(frozen=True)
class Hello:
    """A view just opened and needs the run so far."""


FrontEndMessage: TypeAlias = Prompt | Stop | Hello | Attached | WantsCode


@dataclass(frozen=True)
class PromptResult:
    """Python's verdict on one `Prompt`."""

    request_id: str
    """The request this answers."""
    ok: bool
    """True when the run started."""
    error: str = ""
    """Why it did not, as one sentence; empty when `ok`."""


EventsKind: TypeAlias = Literal["events", "catchup"]


_BARE: dict[str, Callable[[], FrontEndMessage]] = {
    "stop": Stop,
    "hello": Hello,
    ATTACHED: Attached,
    WIDGET_CODE: WantsCode,
}
"""The messages that carry nothing but their type."""


def parse_front_end_message(content: Any) -> FrontEndMessage:
    """The typed message in a front-end custom message, or `ProtocolError`.

    A refused prompt carries its request id in the error, so it can be answered.
    """
    if not isinstance(content, Mapping):
        raise ProtocolError("a chat message must be a JSON object")
    kind = content.get("type")
    bare = _BARE.get(kind) if isinstance(kind, str) else None
    if bare is not None:
        only_fields(content, {"type"}, None)
        return bare()
    if kind != "prompt":
        raise ProtocolError(f"unknown chat message type {kind!r}")
    request_id = request_id_of(content)
    if request_id is None:
        raise ProtocolError("a prompt needs a string requestId")
    only_fields(content, {"type", "text", "requestId"}, request_id)
    text = content.get("text")
    if not isinstance(text, str):
        raise ProtocolError("the message is empty", request_id=request_id)
    return Prompt(request_id=request_id, text=text)


def events_to_wire(kind: EventsKind, events: list[JsonDict]) -> JsonDict:
    """A batch of camelCase events (from `delta_batching.coalesce`) for the front end."""
    return {"type": kind, "events": events}


def prompt_result_to_wire(result: PromptResult) -> JsonDict:
    """The camelCase reply for the front end (`error` only on a refusal)."""
    reply: JsonDict = {"type": "prompt_result", "requestId": result.request_id, "ok": result.ok}
    if not result.ok:
        reply["error"] = result.error
    return reply
