"""AG-UI messages: the events a run emits folded back into messages, and their text.

`Transcript` folds the events a run emits into the AG-UI messages its
MESSAGES_SNAPSHOT carries, so the snapshot says exactly what the stream said
(`interrupt_widget.sdk.model_input` turns messages into what the model sees).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from ag_ui.core import (
    AssistantMessage,
    BaseEvent,
    FunctionCall,
    Message,
    TextMessageContentEvent,
    TextMessageStartEvent,
    ToolCall,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallResultEvent,
    ToolCallStartEvent,
    ToolMessage,
)
from pydantic import TypeAdapter
from pydantic_core import PydanticSerializationError

NOT_RUN_PREFIX = "Not run:"
"""How every tool output for a call that did not run begins (denied, cancelled, stopped)."""

REASON_LABEL = "Reason:"
"""What stands before the human's words in the output of a denied call."""

OUTPUT_TYPE_KEY = "output_type"
"""Metadata of an assistant message whose text is structured output (JSON): the type's name."""


def content_text(content: Any) -> str:
    """The text of a message's content: a string, or the text parts of a part list."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    texts: list[str] = []
    for part in content:
        text = getattr(part, "text", None)
        if isinstance(text, str):
            texts.append(text)
    return "\n".join(texts)


def output_text(output: Any) -> str:
    """A tool's output as the text of its tool message."""
    if isinstance(output, str):
        return output
    try:
        return json.dumps(output, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        return str(output)


def final_output_text(output: Any) -> str:
    """An agent's final output as the text of its reply: a string as it is, anything else
    (a model, a dataclass, a mapping) as JSON."""
    if isinstance(output, str):
        return output
    try:
        return TypeAdapter(type(output)).dump_json(output).decode()
    except (PydanticSerializationError, TypeError, ValueError):
        return output_text(output)


class Transcript:
    """Folds a run's emitted events into new AG-UI messages, in order."""

    def __init__(self) -> None:
        self._messages: list[Message] = []
        self._assistant: dict[str, AssistantMessage] = {}
        self._text: dict[str, list[str]] = {}
        self._calls: dict[str, ToolCall] = {}

    @property
    def messages(self) -> list[Message]:
        """The messages this run added so far; reading them changes nothing."""
        return [self._with_text(message) for message in self._messages]

    def _with_text(self, message: Message) -> Message:
        parts = self._text.get(message.id) if isinstance(message, AssistantMessage) else None
        if not parts:
            return message
        return message.model_copy(update={"content": "".join(parts)})

    def apply(self, event: BaseEvent) -> None:
        # Text deltas are the hot path (one per streamed chunk): collect them and
        # join them when the messages are read.
        if isinstance(event, TextMessageContentEvent):
            parts = self._text.get(event.message_id)
            if parts is None:
                self._assistant_message(event.message_id)
                parts = self._text[event.message_id]
            parts.append(event.delta)
        elif isinstance(event, TextMessageStartEvent):
            message = self._assistant_message(event.message_id)
            if event.metadata:
                message.metadata = {**(message.metadata or {}), **event.metadata}
        elif isinstance(event, ToolCallStartEvent):
            parent = self._assistant_message(event.parent_message_id or f"{event.tool_call_id}-msg")
            call = ToolCall(
                id=event.tool_call_id,
                function=FunctionCall(name=event.tool_call_name, arguments=""),
            )
            parent.tool_calls = [*(parent.tool_calls or []), call]
            self._calls[call.id] = call
        elif isinstance(event, ToolCallArgsEvent):
            call = self._calls[event.tool_call_id]
            call.function.arguments += event.delta
        elif isinstance(event, ToolCallResultEvent):
            self._messages.append(
                ToolMessage(
                    id=event.message_id,
                    tool_call_id=event.tool_call_id,
                    content=event.content,
                    metadata=event.metadata,
                )
            )

    def _assistant_message(self, message_id: str) -> AssistantMessage:
        message = self._assistant.get(message_id)
        if message is None:
            message = AssistantMessage(id=message_id)
            self._assistant[message_id] = message
            self._text[message_id] = []
            self._messages.append(message)
        return message

    def replace_call(self, call: ToolCall) -> None:
        """Swap in an updated copy of a call this run made (e.g. carrying its interrupt)."""
        for message in self._assistant.values():
            if message.tool_calls and any(c.id == call.id for c in message.tool_calls):
                message.tool_calls = [call if c.id == call.id else c for c in message.tool_calls]
                self._calls[call.id] = call

    def call(self, call_id: str) -> ToolCall | None:
        return self._calls.get(call_id)

    def text(self, message_id: str) -> str | None:
        """The text an assistant message of this run holds so far; None if there is none."""
        parts = self._text.get(message_id)
        return None if parts is None else "".join(parts)

    def mark(self, message_id: str, metadata: dict[str, Any]) -> None:
        """Add `metadata` to an assistant message of this run."""
        message = self._assistant.get(message_id)
        if message is not None:
            message.metadata = {**(message.metadata or {}), **metadata}


def last_reply(messages: Iterable[Message]) -> str:
    """The agent's last non-empty text reply in `messages` (empty when it said nothing)."""
    for message in reversed(list(messages)):
        if (
            isinstance(message, AssistantMessage)
            and isinstance(message.content, str)
            and message.content
        ):
            return reply_text(message)
    return ""


def reply_text(message: AssistantMessage) -> str:
    """An assistant message as a person reads it: its text, structured output laid out.

    Structured output (`OUTPUT_TYPE_KEY`) arrives as JSON text; it reads as indented
    JSON, one field a line.
    """
    text = content_text(message.content)
    if not (message.metadata or {}).get(OUTPUT_TYPE_KEY):
        return text
    try:
        value = json.loads(text)
    except ValueError:
        return text
    return json.dumps(value, indent=2, ensure_ascii=False)


def call_events(call_id: str, name: str, arguments: str) -> list[BaseEvent]:
    """The events that show a tool call whole: its start, its arguments (if any), its end."""
    events: list[BaseEvent] = [ToolCallStartEvent(tool_call_id=call_id, tool_call_name=name)]
    if arguments:
        events.append(ToolCallArgsEvent(tool_call_id=call_id, delta=arguments))
    events.append(ToolCallEndEvent(tool_call_id=call_id))
    return events
