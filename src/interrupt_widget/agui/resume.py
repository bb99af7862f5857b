"""Checking a run's resume entries against the interrupts its messages hold open.

`plan_resume` either returns what to do with every open gated call (run it,
tell the model it was denied, or cancelled) or raises `AdapterError` with the
code of the first problem found, an entry for an interrupt no call raised
included. An entry for an interrupt whose call already has a result is a
replay, and is fine. It runs before anything else, so a bad
resume runs no tool and changes nothing. An open call that is not what its
interrupt record shows (`call_agreement`) fails it before any entry is read.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from ag_ui.core import Message, ResumeEntry, ToolMessage
from pydantic import ValidationError

from interrupt_widget.agui.answers import check_answer
from interrupt_widget.agui.call_agreement import check_agreement
from interrupt_widget.agui.interrupts import (
    GatedCall,
    answered_call_ids,
    gated_calls,
    is_adapter_result,
)
from interrupt_widget.errors import AdapterError, ErrorCode
from interrupt_widget.identity import MAX_NAME, Identity, identity_in

logger = logging.getLogger(__name__)

ResolvedAs = Literal["approved", "denied", "cancelled"]
"""How a resume resolved one gated call (`Resolution.decision`); not a recorded `Decision`."""
EditCheck = Callable[[GatedCall, Any], dict[str, Any] | None]


@dataclass(frozen=True)
class Resolution:
    """What the human decided for one open gated call."""

    gated: GatedCall
    """The call and its interrupt."""
    decision: ResolvedAs
    """Run it (`approved`), or tell the model it was `denied` or `cancelled`."""
    payload: Any
    """The resolved payload (None for a cancel)."""
    edited_arguments: dict[str, Any] | None = None
    """The arguments to run with when the answer edits the proposal; None to run it as proposed."""
    by: str | None = None
    """Who answered, as the resume entry's `metadata.by` says (bounded); None when it does not
    say. For a call several people decided, their names."""
    identity: str | None = None
    """The person who gave the answer, as the entry's `metadata.identity` names them."""
    answerer: Identity | None = None
    """Who gave the answer, as the rules about people count it: the entry's identity (with its
    roles), else its `by` as a name; None when the entry says neither."""
    approvers: tuple[str, ...] = ()
    """For a call that needed several people (`require`): the names whose votes decided it."""


@dataclass(frozen=True)
class ResumePlan:
    """The outcome of checking a run's input."""

    messages: list[Message]
    """The input messages without client-appended duplicates of gated-call results."""
    resolutions: list[Resolution]
    """One per open gated call, in conversation order; empty when nothing was open."""
    replayed: bool
    """True when entries were given but every one answered an interrupt already done."""
    answered: frozenset[str] = frozenset()
    """The ids of the tool calls in `messages` that have a result."""


def plan_resume(
    messages: Sequence[Message],
    entries: Sequence[ResumeEntry | Mapping[str, Any]] | None,
    *,
    schema_for: Callable[[GatedCall], Mapping[str, Any] | None],
    now: datetime,
    check_edit: EditCheck | None = None,
) -> ResumePlan:
    """Check `entries` against the gated calls in `messages`; raise `AdapterError` if bad.

    `schema_for` gives the answer schema to enforce for a call (the adapter
    rebuilds it from its own configuration rather than trusting the messages).
    `check_edit` returns the edited arguments an answer asks to run with (or
    None), raising `AdapterError` for an edit it refuses.
    """
    gated = gated_calls(list(messages))
    gated_ids = {g.call_id for g in gated}
    cleaned = [m for m in messages if not _is_duplicate_result(m, gated_ids)]
    done = answered_call_ids(cleaned)
    open_calls = [g for g in gated if g.call_id not in done]
    # What would run must be what was shown, for every open call, before any is answered.
    for call in open_calls:
        check_agreement(call.call, call.interrupt)
    by_interrupt = {g.interrupt.id: g for g in gated}

    answers: dict[str, ResumeEntry] = {}
    given = list(entries or [])
    for raw in given:
        entry = _parse_entry(raw)
        target = by_interrupt.get(entry.interrupt_id)
        if target is None:
            # AG-UI lists an unknown interruptId among the inputs that end in RunError:
            # it answers nothing here, so a client that sent it means some other run.
            raise AdapterError(
                ErrorCode.UNKNOWN_INTERRUPT,
                f"A resume entry answers interrupt {entry.interrupt_id!r}, which no tool call "
                "in the messages raised; nothing was run. Resume with the ids the interrupt "
                "outcome gave, and the messages of the last MESSAGES_SNAPSHOT.",
                interrupt_id=entry.interrupt_id,
            )
        earlier = answers.get(entry.interrupt_id)
        if earlier is not None and _key(earlier) != _key(entry):
            raise AdapterError(
                ErrorCode.CONFLICTING_RESUME_ENTRIES,
                f"Two resume entries answer interrupt {entry.interrupt_id!r} differently.",
                interrupt_id=entry.interrupt_id,
            )
        answers[entry.interrupt_id] = entry

    # Every open interrupt needs an entry before any entry is judged on its own.
    for call in open_calls:
        if call.interrupt.id not in answers:
            code = ErrorCode.INCOMPLETE_RESUME if given else ErrorCode.PENDING_INTERRUPTS
            raise AdapterError(code, _unanswered(call, bool(given)), interrupt_id=call.interrupt.id)
    resolutions = [
        _resolve(call, answers[call.interrupt.id], schema_for(call), now, check_edit)
        for call in open_calls
    ]

    for interrupt_id in answers:
        if by_interrupt[interrupt_id].call_id in done:
            logger.info("interrupt %r already has a result; its entry is ignored", interrupt_id)
    replayed = bool(given) and not open_calls
    return ResumePlan(cleaned, resolutions, replayed, frozenset(done))


def _is_duplicate_result(message: Message, gated_ids: set[str]) -> bool:
    # Some clients append a `tool` message carrying the answer to a tool_call
    # interrupt; it is not the tool's result and must never reach the model.
    return (
        isinstance(message, ToolMessage)
        and message.tool_call_id in gated_ids
        and not is_adapter_result(message)
    )


def _parse_entry(raw: ResumeEntry | Mapping[str, Any]) -> ResumeEntry:
    try:
        entry = raw if isinstance(raw, ResumeEntry) else ResumeEntry.model_validate(dict(raw))
    except (ValidationError, TypeError, ValueError) as exc:
        name = raw.get("interruptId", raw.get("interrupt_id")) if isinstance(raw, Mapping) else None
        raise AdapterError(
            ErrorCode.MALFORMED_RESUME_ENTRY,
            f"A resume entry (interrupt {name!r}) is malformed: {_first_error(exc)}",
            interrupt_id=name if isinstance(name, str) else None,
        ) from exc
    if not isinstance(entry.interrupt_id, str) or not entry.interrupt_id:
        raise AdapterError(ErrorCode.MALFORMED_RESUME_ENTRY, "A resume entry has no interrupt id.")
    if entry.status not in ("resolved", "cancelled"):
        raise AdapterError(
            ErrorCode.MALFORMED_RESUME_ENTRY,
            f"The resume entry for interrupt {entry.interrupt_id!r} has status {entry.status!r}; "
            "expected 'resolved' or 'cancelled'.",
            interrupt_id=entry.interrupt_id,
        )
    if entry.status == "resolved" and entry.payload is None:
        raise AdapterError(
            ErrorCode.MALFORMED_RESUME_ENTRY,
            f"The resume entry for interrupt {entry.interrupt_id!r} is resolved without a payload.",
            interrupt_id=entry.interrupt_id,
        )
    return entry


def _first_error(exc: Exception) -> str:
    if isinstance(exc, ValidationError) and exc.errors():
        error = exc.errors()[0]
        where = ".".join(str(p) for p in error["loc"])
        return f"{where}: {error['msg']}" if where else str(error["msg"])
    return str(exc)


def _key(entry: ResumeEntry) -> tuple[str, Any]:
    return (entry.status, entry.payload if entry.status == "resolved" else None)


def _unanswered(call: GatedCall, resuming: bool) -> str:
    what = f"interrupt {call.interrupt.id!r} ({_tool_name(call)})"
    if resuming:
        return f"The resume does not answer {what}; every open interrupt needs an entry."
    return f"New input arrived while {what} still waits for an answer; resume it first."


def _tool_name(call: GatedCall) -> str:
    return call.call.function.name


def _resolve(
    call: GatedCall,
    entry: ResumeEntry,
    schema: Mapping[str, Any] | None,
    now: datetime,
    check_edit: EditCheck | None,
) -> Resolution:
    verdict, edited = _verdict(call, entry, schema, now, check_edit)
    # Who gave the answer, read here once: for the rules about people, the audit and the
    # decision's span alike.
    metadata = entry.metadata if isinstance(entry.metadata, Mapping) else {}
    raw_by = metadata.get("by")
    by = raw_by[:MAX_NAME] if isinstance(raw_by, str) and raw_by.strip() else None
    who = identity_in(metadata)
    return Resolution(
        call,
        verdict,
        None if verdict == "cancelled" else entry.payload,
        edited,
        by,
        identity=who.name if who is not None else None,
        answerer=who if who is not None or by is None else Identity(by),
    )


def _verdict(
    call: GatedCall,
    entry: ResumeEntry,
    schema: Mapping[str, Any] | None,
    now: datetime,
    check_edit: EditCheck | None,
) -> tuple[ResolvedAs, dict[str, Any] | None]:
    """What `entry` decides for `call`, and the arguments an edit asks to run with."""
    if entry.status == "cancelled":
        return "cancelled", None
    interrupt_id = call.interrupt.id
    # The one answer check every entry shares; an expiry is told before an edit is judged.
    problem = check_answer(call.interrupt, entry.payload, schema, now)
    if problem is not None and problem.code is ErrorCode.INTERRUPT_EXPIRED:
        raise AdapterError(
            problem.code,
            f"Interrupt {interrupt_id!r} ({_tool_name(call)}) {problem.reason} now.",
            interrupt_id=interrupt_id,
        )
    # An edit is judged next, so a refused edit gets its own code, not INVALID_PAYLOAD.
    edited = check_edit(call, entry.payload) if check_edit is not None else None
    if problem is not None:
        raise AdapterError(
            problem.code,
            f"The answer to interrupt {interrupt_id!r} ({_tool_name(call)}) is invalid: "
            f"{problem.reason}",
            interrupt_id=interrupt_id,
        )
    approved = isinstance(entry.payload, Mapping) and entry.payload.get("approved") is True
    return ("approved" if approved else "denied"), edited
