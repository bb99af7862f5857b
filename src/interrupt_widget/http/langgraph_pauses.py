"""Pauses a remote server signals without AG-UI 1.0's interrupt outcome.

LangGraph's AG-UI server, in its default settings, ends a paused run with a
`CUSTOM` event named `on_interrupt` (its value whatever the graph passed to
`interrupt()`, often as a JSON string; the interrupt id in `rawEvent.id`) and a
RUN_FINISHED with no outcome. Read naively, that run is "done" with nothing
said. `LegacyPauses` watches a stream, turns such a finish into the interrupt
outcome the chat shows, and remembers how each answer must be shaped for the
graph (LangGraph takes the standard `resume` array back). A finish that leaves
a tool call without a result and no interrupt (ADK's `adk_request_confirmation`
client tool call) cannot be answered here: it ends in RUN_ERROR saying what the
server sent and which server option gives the 1.0 outcome.

The value of `on_interrupt` comes in three shapes:

- a plain string (a question): answered with the person's text;
- an AG-UI-shaped dict (`reason`, `message`, `toolCallId`, `responseSchema`):
  shown as that interrupt and answered with the payload as it is;
- Agent Inbox's `HumanInterrupt` (`action_request`, `config.allow_*`,
  `description`), alone or in a list: shown as an approval of the action (with
  the arguments editable and a reason when the config allows) and answered with
  a `HumanResponse` of type accept, edit, response or ignore (in a list if the
  graph sent a list). LangGraph's 1.0 mode passes such a request through raw
  (`metadata.langgraph.raw`, no schema); it is read and answered the same way.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from ag_ui.core import (
    BaseEvent,
    CustomEvent,
    Interrupt,
    MessagesSnapshotEvent,
    ResumeEntry,
    RunErrorEvent,
    RunFinishedEvent,
    RunFinishedInterruptOutcome,
    RunFinishedSuccessOutcome,
    ToolCallResultEvent,
    ToolCallStartEvent,
    ToolMessage,
)

from interrupt_widget.agui.answer_edit import EDIT_KEY
from interrupt_widget.errors import ErrorCode

LEGACY_EVENT = "on_interrupt"
"""The CUSTOM event name older AG-UI servers pause with."""

Shape = Callable[[Any], Any]
ANSWER_SHAPE = "answer_shape"
"""Metadata key of how a legacy pause's answer is shaped for its graph: kept in the
interrupt itself, so a chat saved while waiting and loaded elsewhere answers alike."""
"""Turns the picker's payload into the value the server's graph expects."""

_TEXT_ANSWER: dict[str, Any] = {
    "type": "object",
    "properties": {"response": {"type": "string", "title": "Your answer", "minLength": 1}},
    "required": ["response"],
    "additionalProperties": False,
}


def _as_is(payload: Any) -> Any:
    return payload


def _text_of(payload: Any) -> Any:
    return payload.get("response") if isinstance(payload, dict) else payload


def _decoded(value: Any) -> Any:
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


def _is_human_interrupt(value: Any) -> bool:
    return isinstance(value, dict) and isinstance(value.get("action_request"), dict)


def _human_interrupt(
    interrupt_id: str, request: dict[str, Any], listed: bool
) -> tuple[Interrupt, Shape]:
    action = request["action_request"]
    name = str(action.get("action") or "action")
    given_args = action.get("args")
    args: dict[str, Any] = given_args if isinstance(given_args, dict) else {}
    allow = _allowed(request)
    description = request.get("description")
    message = str(description) if description else f"Run {name}?"
    metadata = {
        "tool_name": name,
        "tool_input": args,
        "source": "langgraph HumanInterrupt",
        ANSWER_SHAPE: {"kind": "human_interrupt", "request": request, "listed": listed},
    }

    def wrap(response: dict[str, Any]) -> Any:
        return [response] if listed else response

    if not (allow["accept"] or allow["edit"]):
        # Only a reply is possible: a question, answered in words.
        def reply(payload: Any) -> Any:
            return wrap({"type": "response", "args": _text_of(payload)})

        return (
            Interrupt(
                id=interrupt_id,
                reason="input_required",
                message=message,
                response_schema=_TEXT_ANSWER,
                metadata=metadata,
            ),
            reply,
        )
    properties: dict[str, Any] = {"approved": {"type": "boolean"}}
    if allow["edit"]:
        properties[EDIT_KEY] = {"type": "object", "title": "Edited arguments"}
    if allow["respond"]:
        properties["reason"] = {"type": "string", "title": "Reason"}

    schema = {"type": "object", "properties": properties, "required": ["approved"]}
    interrupt = Interrupt(
        id=interrupt_id,
        reason="tool_call",
        message=message,
        response_schema=schema,
        metadata=metadata,
    )
    return interrupt, _approval_answer(name, args, allow, wrap)


def _allowed(request: dict[str, Any]) -> dict[str, bool]:
    """Which of accept, edit, respond and ignore the HumanInterrupt's `config` allows."""
    # ag-ui-langgraph 0.0.47 drops `config` from the legacy event's value; without it
    # the person may approve, or deny with or without a reason, but not edit.
    given_config = request.get("config")
    config: dict[str, Any] = (
        given_config
        if isinstance(given_config, dict)
        else {"allow_accept": True, "allow_respond": True, "allow_ignore": True}
    )
    kinds = ("accept", "edit", "respond", "ignore")
    return {kind: bool(config.get(f"allow_{kind}", False)) for kind in kinds}


def _approval_answer(
    name: str,
    args: dict[str, Any],
    allow: dict[str, bool],
    wrap: Callable[[dict[str, Any]], Any],
) -> Shape:
    """An approval form's answer as the HumanResponse the `allow`ed kinds permit."""

    def answer(payload: Any) -> Any:
        if not isinstance(payload, dict):
            return payload
        if payload.get("approved") is True:
            edited = payload.get(EDIT_KEY)
            if allow["edit"] and isinstance(edited, dict) and edited != args:
                return wrap({"type": "edit", "args": {"action": name, "args": edited}})
            if allow["accept"]:
                return wrap({"type": "accept", "args": None})
            return wrap({"type": "edit", "args": {"action": name, "args": args}})
        reason = payload.get("reason")
        if allow["respond"] and (reason or not allow["ignore"]):
            return wrap({"type": "response", "args": reason or "Not approved."})
        return wrap({"type": "ignore", "args": None})

    return answer


def interrupt_from_event(event: CustomEvent, position: int) -> tuple[Interrupt, Shape]:
    """The interrupt a legacy `on_interrupt` event stands for, and how to shape its answer."""
    raw = event.raw_event if isinstance(event.raw_event, dict) else {}
    interrupt_id = str(raw.get("id") or f"{LEGACY_EVENT}-{position}")
    value = _decoded(event.value)
    if isinstance(value, list) and len(value) == 1 and _is_human_interrupt(value[0]):
        return _human_interrupt(interrupt_id, value[0], listed=True)
    if _is_human_interrupt(value):
        return _human_interrupt(interrupt_id, value, listed=False)
    if isinstance(value, dict) and ("reason" in value or "responseSchema" in value):
        schema = value.get("responseSchema", value.get("response_schema"))
        metadata = value.get("metadata") if isinstance(value.get("metadata"), dict) else None
        interrupt = Interrupt(
            id=interrupt_id,
            reason=str(value.get("reason") or "input_required"),
            message=str(value["message"]) if value.get("message") is not None else None,
            tool_call_id=value.get("toolCallId", value.get("tool_call_id")),
            response_schema=schema if isinstance(schema, dict) else None,
            metadata=metadata,
        )
        return interrupt, _as_is
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return (
        Interrupt(
            id=interrupt_id,
            reason="input_required",
            message=text,
            response_schema=_TEXT_ANSWER,
            metadata={ANSWER_SHAPE: {"kind": "text"}},
        ),
        _text_of,
    )


def shape_of(interrupt: Interrupt) -> Shape | None:
    """The answer shape recorded in `interrupt` (None: its answers go as they are)."""
    shape = (interrupt.metadata or {}).get(ANSWER_SHAPE)
    if not isinstance(shape, dict):
        return None
    if shape.get("kind") == "text":
        return _text_of
    request = shape.get("request")
    if shape.get("kind") == "human_interrupt" and _is_human_interrupt(request):
        assert isinstance(request, dict)
        return _human_interrupt(interrupt.id, request, listed=shape.get("listed") is True)[1]
    return None


@dataclass
class LegacyPauses:
    """Watches one remote agent's streams; remembers the answer shapes of its legacy pauses."""

    url: str
    """The server, named in the messages."""
    shapes: dict[str, Shape] = field(default_factory=dict)
    """Answer shapes by interrupt id, for the interrupts this watcher made."""

    def shaped(self, entries: list[ResumeEntry] | None) -> list[ResumeEntry] | None:
        """Resume entries with each resolved payload in the shape its server expects."""
        if not entries:
            return entries
        out: list[ResumeEntry] = []
        for entry in entries:
            shape = self.shapes.get(entry.interrupt_id)
            if shape is not None and entry.status == "resolved":
                entry = entry.model_copy(update={"payload": shape(entry.payload)})
            out.append(entry)
        return out

    def adopt(self, interrupts: Iterable[Interrupt]) -> None:
        """Learn the answer shapes of interrupts made elsewhere (a loaded save)."""
        for interrupt in interrupts:
            shape = shape_of(interrupt)
            if shape is not None:
                self.shapes.setdefault(interrupt.id, shape)

    def watch(self) -> StreamWatch:
        """A watch over one run's events."""
        return StreamWatch(self)


@dataclass
class StreamWatch:
    """What one run's stream said so far about pauses."""

    pauses: LegacyPauses
    legacy: list[CustomEvent] = field(default_factory=list)
    started: dict[str, str] = field(default_factory=dict)
    """Tool calls started in this run: id -> tool name."""
    answered: set[str] = field(default_factory=set)

    def see(self, event: BaseEvent) -> BaseEvent:
        """Note `event`; returns the event to pass on in its place."""
        if isinstance(event, CustomEvent) and event.name == LEGACY_EVENT:
            self.legacy.append(event)
        elif isinstance(event, ToolCallStartEvent):
            self.started[event.tool_call_id] = event.tool_call_name
        elif isinstance(event, ToolCallResultEvent):
            self.answered.add(event.tool_call_id)
        elif isinstance(event, MessagesSnapshotEvent):
            results = (m.tool_call_id for m in event.messages if isinstance(m, ToolMessage))
            self.answered.update(results)
        elif isinstance(event, RunFinishedEvent):
            return self._finish(event)
        return event

    def _inbox_request(self, interrupt: Interrupt) -> Interrupt:
        langgraph = (interrupt.metadata or {}).get("langgraph")
        raw = langgraph.get("raw") if isinstance(langgraph, dict) else None
        listed = isinstance(raw, list) and len(raw) == 1
        request = raw[0] if isinstance(raw, list) and listed else raw
        if interrupt.response_schema is not None or not _is_human_interrupt(request):
            return interrupt
        assert isinstance(request, dict)
        read, shape = _human_interrupt(interrupt.id, request, listed=listed)
        self.pauses.shapes[interrupt.id] = shape
        return read

    def _finish(self, event: RunFinishedEvent) -> BaseEvent:
        if isinstance(event.outcome, RunFinishedInterruptOutcome):
            # The 1.0 outcome says it all (a legacy event beside it is a copy), but LangGraph
            # passes an Agent Inbox request through raw: show and answer it as one.
            read = [self._inbox_request(i) for i in event.outcome.interrupts]
            return event.model_copy(
                update={"outcome": RunFinishedInterruptOutcome(interrupts=read)}
            )
        if event.outcome is not None and not isinstance(event.outcome, RunFinishedSuccessOutcome):
            return event  # cancelled: nothing is waiting
        if self.legacy:
            interrupts: list[Interrupt] = []
            for position, custom in enumerate(self.legacy, start=1):
                interrupt, shape = interrupt_from_event(custom, position)
                if any(i.id == interrupt.id for i in interrupts):
                    continue
                self.pauses.shapes[interrupt.id] = shape
                interrupts.append(interrupt)
            return event.model_copy(
                update={"outcome": RunFinishedInterruptOutcome(interrupts=interrupts)}
            )
        waiting = {i: n for i, n in self.started.items() if i not in self.answered}
        if waiting:
            calls = ", ".join(f"{name} ({call_id})" for call_id, name in waiting.items())
            return RunErrorEvent(
                code=ErrorCode.UNANSWERABLE_PAUSE,
                message=(
                    f"The agent at {self.pauses.url} finished its run waiting on a client tool "
                    f"call this chat cannot answer, {calls}, and sent no AG-UI interrupt. Start "
                    "that server so it emits the 1.0 interrupt outcome (ag-ui-adk and "
                    "ag-ui-langgraph: emit_interrupt_outcome=True), and the chat asks here."
                ),
            )
        return event
