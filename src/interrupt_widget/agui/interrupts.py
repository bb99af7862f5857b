"""Tool approvals as AG-UI interrupts, and the facts every layer reads from them.

An interrupt is built from the SDK's pending approval (`ToolApprovalItem`). So
that a later run in any process can check its answer, the whole interrupt is
stored in the gated tool call's `metadata["interrupt"]` inside the
MESSAGES_SNAPSHOT; nothing is kept on the server.

This is the one home of what is known about interrupts: the interrupt recorded
on a call (`interrupt_record`, `gated_calls`), which calls already have a
result (`answered_call_ids`), how an interrupt is named to a person
(`tool_name`), and how an answer reads (`verdict`).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Final

from ag_ui.core import AssistantMessage, Interrupt, Message, ToolCall, ToolMessage

from interrupt_widget.agui.canonical import spell
from interrupt_widget.agui.wire import interrupt_from_wire, to_wire
from interrupt_widget.clock import utc_text

INTERRUPT_KEY = "interrupt"
"""Key of the interrupt in a gated `ToolCall.metadata` (and of the decision in its tool message)."""

TOOL_CALL_REASON = "tool_call"


def interrupt_id_for(tool_call_id: str) -> str:
    """The interrupt id for a gated call: derived from the call id, unique as it is."""
    return f"approve-{tool_call_id}"


def result_message_id(tool_call_id: str) -> str:
    """The id of the tool message the adapter writes for a call's result."""
    return f"result-{tool_call_id}"


DENIAL_REASON = "reason"
"""The answer field that carries why a tool was denied."""


def approval_schema(extra: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """The answer schema: a required `approved` boolean plus the tool's own fields.

    An optional `reason` goes with a denial (`{"approved": false, "reason": ...}`),
    so the model learns why, not only that, it was refused.

    Fields the tool marks required are required only when `approved` is true, so
    `{"approved": false}` is always a valid denial.

    The object is closed (`additionalProperties: false`) unless the tool's fields
    say otherwise: an undeclared field (`aproved`, an old client's `arguments`) is
    refused before anything runs, never ignored while the proposal runs. Every
    client reads it so; the kit's checks name the field meant (`agui.answers`).
    """
    properties: dict[str, Any] = {
        "approved": {"type": "boolean", "title": "Approve", "description": "Run the tool?"},
        DENIAL_REASON: {
            "type": "string",
            "title": "Reason",
            "maxLength": 1000,
            "description": "Why not: told to the agent with a denial.",
        },
    }
    schema: dict[str, Any] = {
        "type": "object",
        "properties": properties,
        "required": ["approved"],
        "additionalProperties": False,
    }
    if not extra:
        return schema
    properties.update(dict(extra.get("properties", {})))
    required = [name for name in extra.get("required", []) if name != "approved"]
    if required:
        schema["if"] = {"properties": {"approved": {"const": True}}, "required": ["approved"]}
        schema["then"] = {"required": required}
    if "additionalProperties" in extra:
        schema["additionalProperties"] = extra["additionalProperties"]
    return schema


def expiry(expires_in: float | timedelta | None, now: datetime) -> str | None:
    """`expires_at` for an interrupt raised at `now`: ISO 8601 in UTC, or None."""
    if expires_in is None:
        return None
    delta = expires_in if isinstance(expires_in, timedelta) else timedelta(seconds=expires_in)
    return utc_text(now + delta)


def parse_arguments(arguments: str) -> Any:
    """A call's arguments as JSON, or the raw text when the model sent something else."""
    try:
        return json.loads(arguments) if arguments.strip() else {}
    except json.JSONDecodeError:
        return arguments


def tool_call_interrupt(
    *,
    tool_call_id: str,
    tool_name: str,
    arguments: str,
    response_schema: Mapping[str, Any] | None,
    expires_at: str | None,
    agent_name: str | None = None,
    extra_metadata: Mapping[str, Any] | None = None,
) -> Interrupt:
    """The interrupt asking a human to approve one tool call (`extra_metadata` added last)."""
    tool_input = parse_arguments(arguments)
    metadata: dict[str, Any] = {"tool_name": tool_name, "tool_input": tool_input}
    if agent_name:
        metadata["agent_name"] = agent_name
    if extra_metadata:
        metadata.update(extra_metadata)
    return Interrupt(
        id=interrupt_id_for(tool_call_id),
        reason=TOOL_CALL_REASON,
        tool_call_id=tool_call_id,
        message=approval_message(tool_name, tool_input),
        response_schema=approval_schema(response_schema),
        expires_at=expires_at,
        metadata=metadata,
    )


def approval_message(tool_name: str, tool_input: Any) -> str:
    """The question an approval interrupt asks, built from the call it shows."""
    return f"Allow {tool_name} to run with {describe_arguments(tool_input)}?"


def describe_arguments(tool_input: Any) -> str:
    """A call's arguments as its question and every list of questions say them:
    `amount=120, to="ACME-1"`, each value in its canonical spelling (what a JavaScript card
    shows, and what is compared: `120`, not Python's `120.0`)."""
    if isinstance(tool_input, dict) and tool_input:
        return ", ".join(f"{k}={spell(v)}" for k, v in tool_input.items())
    if isinstance(tool_input, dict):
        return "no arguments"
    return spell(tool_input)


ARGUMENTS_LINE_LIMIT: Final = 160
"""How many characters of a call's arguments a list of questions (the inbox, the sidebar) or a
webhook's message shows; the card shows them whole."""


def arguments_line(arguments: Any, limit: int = ARGUMENTS_LINE_LIMIT) -> str:
    """`describe_arguments` on one line cut at `limit` characters (`…` its last); `""` for
    none: a list row or a chat message stays short however large the call."""
    if arguments is None:
        return ""
    text = describe_arguments(arguments)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def attach(call: ToolCall, interrupt: Interrupt) -> ToolCall:
    """A copy of `call` carrying `interrupt` in its metadata."""
    metadata = dict(call.metadata or {})
    metadata[INTERRUPT_KEY] = to_wire(interrupt)
    return call.model_copy(update={"metadata": metadata})


@dataclass(frozen=True)
class GatedCall:
    """A tool call in the messages that was interrupted for approval."""

    call: ToolCall
    """The call as the model made it."""
    interrupt: Interrupt
    """The interrupt raised for it, read back from the call's metadata."""
    message_index: int
    """Position of the assistant message holding the call."""

    @property
    def call_id(self) -> str:
        return self.call.id


def interrupt_record(call: ToolCall) -> Mapping[str, Any] | None:
    """The interrupt stored on a gated call's metadata, as stored (wire form), if any."""
    record = (call.metadata or {}).get(INTERRUPT_KEY)
    return record if isinstance(record, Mapping) else None


def interrupt_id_of(call: ToolCall) -> str | None:
    """The id of the interrupt recorded on a gated call, if any."""
    record = interrupt_record(call)
    value = None if record is None else record.get("id")
    return value if isinstance(value, str) else None


def gated_calls(messages: list[Message]) -> list[GatedCall]:
    """Every interrupted tool call in `messages`, in conversation order."""
    found: list[GatedCall] = []
    for index, message in enumerate(messages):
        if not isinstance(message, AssistantMessage):
            continue
        for call in message.tool_calls or []:
            record = interrupt_record(call)
            if record is not None:
                found.append(GatedCall(call, interrupt_from_wire(record), index))
    return found


def answered_call_ids(messages: Iterable[Message]) -> set[str]:
    """The ids of the tool calls that already have a result (a tool message) in `messages`."""
    return {m.tool_call_id for m in messages if isinstance(m, ToolMessage)}


CONFIRMATION_CALLS = frozenset({"adk_request_confirmation", "confirm_changes"})
"""Calls a framework makes to ask for a confirmation: they name the asking, not the tool."""


def _framework_call(metadata: Mapping[str, Any]) -> tuple[str | None, Any]:
    """The call a framework describes in its own metadata, as (name, arguments).

    Microsoft Agent Framework sends `agent_framework.function_call` (`name`,
    `arguments`), Google ADK `adk.originalFunctionCall` (`name`, `args`).
    """
    for outer, inner, args_key in (
        ("agent_framework", "function_call", "arguments"),
        ("adk", "originalFunctionCall", "args"),
    ):
        holder = metadata.get(outer)
        call = holder.get(inner) if isinstance(holder, Mapping) else None
        if isinstance(call, Mapping):
            name = call.get("name")
            return (name if isinstance(name, str) and name else None), call.get(args_key)
    return None, None


def _called_name(tool_call_id: str | None, messages: Iterable[Message]) -> str | None:
    if not tool_call_id:
        return None
    for message in messages:
        if isinstance(message, AssistantMessage):
            for call in message.tool_calls or []:
                if call.id == tool_call_id:
                    return call.function.name
    return None


def tool_name(interrupt: Interrupt, messages: Iterable[Message] = ()) -> str:
    """How a person reads which tool an interrupt asks about, whatever server sent it.

    `metadata.tool_name` (the kit, Strands), else the tool call in `messages` that
    `tool_call_id` points at (unless that is a framework's own confirmation call),
    else the framework's metadata (Agent Framework, ADK), else the interrupt's reason.
    """
    metadata = interrupt.metadata or {}
    name = metadata.get("tool_name")
    if isinstance(name, str) and name:
        return name
    called = _called_name(interrupt.tool_call_id, messages)
    if called and called not in CONFIRMATION_CALLS:
        return called
    return _framework_call(metadata)[0] or called or interrupt.reason


def tool_arguments(interrupt: Interrupt) -> Any:
    """The call's arguments as the interrupt carries them (`tool_input`, else a framework's)."""
    metadata = interrupt.metadata or {}
    if "tool_input" in metadata:
        return metadata["tool_input"]
    return _framework_call(metadata)[1]


ANSWERED_BY_EXPIRY = "expiry"
"""Who answered an interrupt that expired unanswered (it is then cancelled)."""


def verdict(status: str, payload: Any, by: str) -> str:
    """How an answer reads: `approved`, `denied`, `cancelled`, `expired` or `answered`."""
    if by == ANSWERED_BY_EXPIRY:
        return "expired"
    if status == "cancelled":
        return "cancelled"
    if isinstance(payload, Mapping) and isinstance(payload.get("approved"), bool):
        return "approved" if payload["approved"] else "denied"
    return "answered"


def is_adapter_result(message: ToolMessage) -> bool:
    """True for a tool message this adapter wrote (not one a client appended)."""
    marker = (message.metadata or {}).get(INTERRUPT_KEY)
    return message.id == result_message_id(message.tool_call_id) or isinstance(marker, Mapping)
