"""AG-UI messages into Agents SDK input items: what the model sees of a conversation."""

from __future__ import annotations

from collections.abc import Mapping
from typing import cast

from ag_ui.core import (
    AssistantMessage,
    DeveloperMessage,
    Message,
    SystemMessage,
    ToolMessage,
    UserMessage,
)
from agents import TResponseInputItem

from interrupt_widget.agui.messages import NOT_RUN_PREFIX, content_text

STOPPED_BEFORE_RUN = f"{NOT_RUN_PREFIX} the run stopped before this call ran."


def run_input(messages: list[Message]) -> str | list[TResponseInputItem]:
    """What a new SDK run starts from: `to_sdk_input`, or the text of a lone user message.

    A conversation that is one user message starts the run as a user of the SDK starts
    it, `Runner.run_streamed(agent, "text")`: the SDK makes the same item of it (an input
    guardrail sees the same list), and skips copying a list it was given.
    """
    if len(messages) == 1 and isinstance(messages[0], UserMessage):
        return content_text(messages[0].content)
    return to_sdk_input(messages)


def to_sdk_input(
    messages: list[Message], *, outputs: Mapping[str, str] | None = None
) -> list[TResponseInputItem]:
    """The conversation as Responses-format input items.

    Each tool call is followed by its output: the tool message for it, else the
    entry in `outputs` (results produced by this run's resume), else a note that
    it did not run, so the model never sees a call without an answer. Media
    parts, activity and reasoning messages are not sent to the model.
    """
    extra = dict(outputs or {})
    results = {
        m.tool_call_id: content_text(m.content) for m in messages if isinstance(m, ToolMessage)
    }
    called: set[str] = set()
    items: list[TResponseInputItem] = []
    for message in messages:
        if isinstance(message, UserMessage):
            items.append(_easy("user", content_text(message.content)))
        elif isinstance(message, SystemMessage):
            items.append(_easy("system", message.content))
        elif isinstance(message, DeveloperMessage):
            items.append(_easy("developer", message.content))
        elif isinstance(message, AssistantMessage):
            if message.content:
                items.append(_easy("assistant", message.content))
            calls = [c for c in message.tool_calls or [] if c.id not in called]
            for call in calls:
                called.add(call.id)
                items.append(
                    cast(
                        TResponseInputItem,
                        {
                            "type": "function_call",
                            "call_id": call.id,
                            "name": call.function.name,
                            "arguments": call.function.arguments,
                        },
                    )
                )
            for call in calls:
                output = results.get(call.id, extra.get(call.id, STOPPED_BEFORE_RUN))
                items.append(
                    cast(
                        TResponseInputItem,
                        {"type": "function_call_output", "call_id": call.id, "output": output},
                    )
                )
    return items


def _easy(role: str, content: str) -> TResponseInputItem:
    return cast(TResponseInputItem, {"role": role, "content": content})
