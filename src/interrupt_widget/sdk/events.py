"""The Agents SDK's stream events as AG-UI events.

One `EventTranslator` per run. It keeps what is open (text messages, tool
calls) so a run that stops early can close them, and gives every model
response one assistant message id that its text and its tool calls share.
It also says which AG-UI message carried each message the model streamed, and
builds a whole reply the model did not stream (the SDK's final output taken
from a tool, `sdk.endings`).
"""

from __future__ import annotations

from typing import Any

from ag_ui.core import (
    BaseEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallResultEvent,
    ToolCallStartEvent,
)
from agents import RawResponsesStreamEvent, RunItemStreamEvent, StreamEvent

from interrupt_widget.agui.interrupts import result_message_id
from interrupt_widget.agui.messages import output_text

_CONTENT_VALIDATOR = TextMessageContentEvent.__pydantic_validator__


def _content(message_id: str, delta: str) -> TextMessageContentEvent:
    # The hot path, once per streamed chunk: the model's validator straight from
    # a dict skips the keyword-argument plumbing of `__init__` (a third faster).
    event: TextMessageContentEvent = _CONTENT_VALIDATOR.validate_python(
        {"message_id": message_id, "delta": delta}
    )
    return event


class MessageIds:
    """Message ids for one run: `msg-<run id>-<input message count>-<n>`.

    The input length makes them unique even when a client reuses a run id to
    resume (the resumed run's input is longer), and keeps them deterministic.
    """

    def __init__(self, run_id: str, input_length: int) -> None:
        self._prefix = f"msg-{run_id}-{input_length}"
        self._count = 0

    def next(self) -> str:
        self._count += 1
        return f"{self._prefix}-{self._count}"


class EventTranslator:
    """Turns SDK stream events into AG-UI events, remembering what is still open."""

    def __init__(self, ids: MessageIds) -> None:
        self._ids = ids
        self._response_message: str | None = None
        self._text_used = False
        self._open_text: dict[int, str] = {}
        self._open_calls: dict[int, str] = {}
        self._args_seen: set[str] = set()
        self.started_calls: set[str] = set()
        """Every tool call id this run started."""
        self.streamed_messages: dict[str, str] = {}
        """The SDK's id of each message the model streamed -> the AG-UI message id it got."""

    def translate(self, event: StreamEvent) -> list[BaseEvent]:
        if isinstance(event, RawResponsesStreamEvent):
            return self._raw(event.data)
        if isinstance(event, RunItemStreamEvent):
            return self._item(event)
        return []

    def close_open(self) -> list[BaseEvent]:
        """END events for every text message and tool call still open."""
        events: list[BaseEvent] = [
            TextMessageEndEvent(message_id=m) for m in self._open_text.values()
        ]
        events += [ToolCallEndEvent(tool_call_id=c) for c in self._open_calls.values()]
        self._open_text.clear()
        self._open_calls.clear()
        return events

    def reply(self, text: str, metadata: dict[str, Any] | None = None) -> list[BaseEvent]:
        """A whole assistant text message with a new id: START, one CONTENT, END."""
        message_id = self._ids.next()
        return [
            TextMessageStartEvent(message_id=message_id, role="assistant", metadata=metadata),
            _content(message_id, text),
            TextMessageEndEvent(message_id=message_id),
        ]

    def _message_id(self) -> str:
        if self._response_message is None:
            self._response_message = self._ids.next()
        return self._response_message

    def _raw(self, data: Any) -> list[BaseEvent]:
        kind = data.type
        if kind == "response.output_text.delta" or kind == "response.refusal.delta":
            message_id = self._open_text.get(data.output_index)
            if message_id is None or not data.delta:
                return []
            return [_content(message_id, data.delta)]
        if kind == "response.function_call_arguments.delta":
            call_id = self._open_calls.get(data.output_index)
            if call_id is None or not data.delta:
                return []
            self._args_seen.add(call_id)
            return [ToolCallArgsEvent(tool_call_id=call_id, delta=data.delta)]
        if kind == "response.created":
            self._response_message = None
            self._text_used = False
            return []
        if kind == "response.output_item.added":
            return self._item_added(data.output_index, data.item)
        if kind == "response.output_item.done":
            return self._item_done(data.output_index, data.item)
        return []

    def _item_added(self, index: int, item: Any) -> list[BaseEvent]:
        if item.type == "message":
            message_id = self._ids.next() if self._text_used else self._message_id()
            self._response_message = message_id
            self._text_used = True
            self._open_text[index] = message_id
            if item.id:
                self.streamed_messages[item.id] = message_id
            return [TextMessageStartEvent(message_id=message_id, role="assistant")]
        if item.type == "function_call":
            self._open_calls[index] = item.call_id
            self.started_calls.add(item.call_id)
            return [
                ToolCallStartEvent(
                    tool_call_id=item.call_id,
                    tool_call_name=item.name,
                    parent_message_id=self._message_id(),
                )
            ]
        return []

    def _item_done(self, index: int, item: Any) -> list[BaseEvent]:
        if item.type == "message" and index in self._open_text:
            return [TextMessageEndEvent(message_id=self._open_text.pop(index))]
        if item.type == "function_call" and index in self._open_calls:
            call_id = self._open_calls.pop(index)
            events: list[BaseEvent] = []
            if call_id not in self._args_seen and item.arguments:
                events.append(ToolCallArgsEvent(tool_call_id=call_id, delta=item.arguments))
            events.append(ToolCallEndEvent(tool_call_id=call_id))
            return events
        return []

    def _item(self, event: RunItemStreamEvent) -> list[BaseEvent]:
        raw = getattr(event.item, "raw_item", None)
        if not isinstance(raw, dict) or raw.get("type") != "function_call_output":
            return []
        call_id = raw.get("call_id")
        if not isinstance(call_id, str) or call_id not in self.started_calls:
            return []
        return [
            ToolCallResultEvent(
                message_id=result_message_id(call_id),
                tool_call_id=call_id,
                content=output_text(raw.get("output")),
                role="tool",
            )
        ]
