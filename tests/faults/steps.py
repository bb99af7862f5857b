"""Pausing a bank run and building its resume, in process: shared by the fault tests."""

from __future__ import annotations

from typing import Any

from ag_ui.core import (
    BaseEvent,
    Interrupt,
    Message,
    MessagesSnapshotEvent,
    ResumeEntry,
    RunAgentInput,
    RunErrorEvent,
    RunFinishedEvent,
    RunFinishedInterruptOutcome,
    UserMessage,
)

from interrupt_widget.sdk.adapter import OpenAIAgentsAdapter
from interrupt_widget.testing import assert_valid_stream

APPROVE: dict[str, Any] = {"approved": True}
DENY: dict[str, Any] = {"approved": False, "reason": "not today"}
ASK = "transfer_funds amount=5 to=bob"


def ask(
    text: str = ASK, *, thread_id: str = "thread-1", message_id: str = "user-1"
) -> RunAgentInput:
    return RunAgentInput(
        thread_id=thread_id,
        run_id="run-1",
        messages=[UserMessage(id=message_id, content=text)],
    )


async def events_of(adapter: OpenAIAgentsAdapter, run_input: RunAgentInput) -> list[BaseEvent]:
    events = [event async for event in adapter.run(run_input)]
    assert_valid_stream(events)
    return events


def paused(events: list[BaseEvent]) -> tuple[list[Message], list[Interrupt]]:
    """The messages of the last snapshot and the interrupts a paused run ended with."""
    snapshot = [e for e in events if isinstance(e, MessagesSnapshotEvent)][-1]
    finished = events[-1]
    assert isinstance(finished, RunFinishedEvent), [e.type for e in events]
    assert isinstance(finished.outcome, RunFinishedInterruptOutcome)
    return list(snapshot.messages), list(finished.outcome.interrupts)


def resume(
    messages: list[Message],
    interrupts: list[Interrupt],
    payload: dict[str, Any] = APPROVE,
    *,
    thread_id: str = "thread-1",
    run_id: str = "run-2",
) -> RunAgentInput:
    entries = [
        ResumeEntry(interrupt_id=i.id, status="resolved", payload=payload) for i in interrupts
    ]
    return RunAgentInput(thread_id=thread_id, run_id=run_id, messages=messages, resume=entries)


def error_of(events: list[BaseEvent]) -> RunErrorEvent:
    assert isinstance(events[-1], RunErrorEvent), [e.type for e in events]
    return events[-1]
