"""Whether a gated tool call is the call its interrupt record shows.

A person approves what the picker (or any client) shows: the interrupt record
on the call, with its tool name, its `tool_input` and the question built from
them. What runs is the call itself, `function.name` and `function.arguments`.
Messages come back from clients and save files, so the two can be made to
disagree; before any gated call is answered, in process, over HTTP or from a
loaded save, they must agree, or nothing runs.

Arguments are compared in the kit's one canonical reading (`canonical`), so
key order, whitespace, a client that writes `5.0` as `5` or reads a large
integer as a double do not count; arguments that are not JSON at all must be
the very text the record shows. The message is checked against the call
itself: it is text, which every client passes on as it is.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ag_ui.core import Interrupt, Message, ToolCall

from interrupt_widget.agui.canonical import agrees, spell
from interrupt_widget.agui.interrupts import (
    TOOL_CALL_REASON,
    answered_call_ids,
    approval_message,
    gated_calls,
    parse_arguments,
)
from interrupt_widget.errors import AdapterError, CallMismatch, ErrorCode

_MISSING = object()
_SHOWN_CHARS = 120


def _short(text: str) -> str:
    return text if len(text) <= _SHOWN_CHARS else text[: _SHOWN_CHARS - 1] + "…"


def disagreement(call: ToolCall, interrupt: Interrupt) -> str | None:
    """What differs between `call` and the interrupt record it carries, or None if they agree."""
    metadata = interrupt.metadata or {}
    if interrupt.tool_call_id != call.id:
        return f"its interrupt record is for call {interrupt.tool_call_id!r}"
    shown_name = metadata.get("tool_name")
    if not isinstance(shown_name, str):
        return "its interrupt record names no tool"
    if shown_name != call.function.name:
        return f"it calls {call.function.name!r} but its interrupt shows {shown_name!r}"
    shown_input = metadata.get("tool_input", _MISSING)
    if shown_input is _MISSING:
        return "its interrupt record shows no arguments"
    actual = parse_arguments(call.function.arguments)
    if not agrees(actual, shown_input):
        return (
            f"its arguments {_short(spell(actual))} differ from the {_short(spell(shown_input))} "
            "its interrupt shows"
        )
    if interrupt.reason == TOOL_CALL_REASON and not _describes(
        interrupt.message, shown_name, actual, shown_input
    ):
        return "its interrupt's message does not describe the call"
    return None


def _describes(message: str | None, tool_name: str, actual: Any, shown: Any) -> bool:
    # Built from the call's own values (a client may have rounded the shown copy's),
    # in the call's key order or the record's (the same keys, as `agrees` checked).
    if message == approval_message(tool_name, actual):
        return True
    return (
        isinstance(actual, Mapping)
        and isinstance(shown, Mapping)
        and message == approval_message(tool_name, {k: actual[k] for k in shown})
    )


def _what(call: ToolCall, interrupt: Interrupt, why: str) -> str:
    return (
        f"Tool call {call.id!r} ({call.function.name}) for interrupt {interrupt.id!r} is not "
        f"the call that was shown: {why}."
    )


def mismatch_error(call: ToolCall, interrupt: Interrupt, why: str) -> AdapterError:
    """The `call_mismatch` error for `call`, naming it and saying what differs."""
    return AdapterError(
        ErrorCode.CALL_MISMATCH,
        f"{_what(call, interrupt, why)} Nothing was run; resume from the messages exactly "
        "as the last MESSAGES_SNAPSHOT gave them.",
        interrupt_id=interrupt.id,
    )


def check_agreement(call: ToolCall, interrupt: Interrupt) -> None:
    """Raise `AdapterError` (`call_mismatch`) unless `call` is what `interrupt` shows."""
    why = disagreement(call, interrupt)
    if why is not None:
        raise mismatch_error(call, interrupt, why)


def check_saved(messages: list[Message], interrupts: Iterable[Interrupt]) -> None:
    """Raise `CallMismatch` unless every open gated call agrees with its record.

    `interrupts` are those a save lists as open, which a loaded picker shows:
    each must be the very record on its call (a server's fingerprint, which
    rides on the listed one only, left aside).
    """
    gated = gated_calls(messages)
    done = answered_call_ids(messages)
    records = {g.interrupt.id: g for g in gated}
    for g in gated:
        if g.call_id in done:
            continue
        why = disagreement(g.call, g.interrupt)
        if why is not None:
            raise _saved_mismatch(g.call, g.interrupt, why)
    for shown in interrupts:
        recorded = records.get(shown.id)
        if recorded is None or recorded.call_id in done:
            continue
        if _comparable(shown) != _comparable(recorded.interrupt):
            why = "the interrupt the save lists as open differs from the record on its call"
            raise _saved_mismatch(recorded.call, shown, why)


def _saved_mismatch(call: ToolCall, interrupt: Interrupt, why: str) -> CallMismatch:
    return CallMismatch(
        f"{_what(call, interrupt, why)} The save was changed after it was written; "
        "nothing was loaded.",
        call_id=call.id,
        interrupt_id=interrupt.id,
    )


def _comparable(interrupt: Interrupt) -> str:
    wire = interrupt.model_dump(by_alias=True, exclude_none=True, mode="json")
    metadata = {k: v for k, v in dict(wire.get("metadata") or {}).items() if k != "fingerprint"}
    wire["metadata"] = metadata
    return spell(wire)
