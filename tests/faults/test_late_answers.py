"""A call has one truth: a late deny after a run, a stale approval after a deny or a cancel,
an approval racing a denial, and a replay after 1,000 other approved calls."""

from __future__ import annotations

import asyncio
import pathlib

import pytest
from ag_ui.core import (
    BaseEvent,
    Interrupt,
    Message,
    ResumeEntry,
    RunAgentInput,
    TextMessageContentEvent,
    ToolCallResultEvent,
)
from bank import bank_agent, runs
from steps import DENY, ask, events_of, paused, resume

from interrupt_widget import OpenAIAgentsAdapter

BATCH = 20
"""Parallel calls per request. The SDK's `RunState.approve` compares each approval with every
pending call, so a resume of n calls costs n^2 (200 at once: 72 s of approving alone)."""


def said(events: list[BaseEvent]) -> str:
    parts = [e.content for e in events if isinstance(e, ToolCallResultEvent)]
    parts += [e.delta for e in events if isinstance(e, TextMessageContentEvent)]
    return "\n".join(parts)


async def test_a_late_deny_after_the_call_ran_never_says_not_run(
    runs_file: pathlib.Path,
) -> None:
    adapter = OpenAIAgentsAdapter(bank_agent(runs_file))
    messages, interrupts = paused(await events_of(adapter, ask()))
    ran = await events_of(adapter, resume(messages, interrupts))
    [result] = [e for e in ran if isinstance(e, ToolCallResultEvent)]

    late = await events_of(adapter, resume(messages, interrupts, DENY, run_id="run-3"))

    assert "Not run" not in said(late)
    assert [e.content for e in late if isinstance(e, ToolCallResultEvent)] == [result.content]
    assert len(runs(runs_file)) == 1


def cancel(messages: list[Message], interrupts: list[Interrupt], *, run_id: str) -> RunAgentInput:
    entries = [ResumeEntry(interrupt_id=i.id, status="cancelled") for i in interrupts]
    return RunAgentInput(thread_id="thread-1", run_id=run_id, messages=messages, resume=entries)


def results(events: list[BaseEvent]) -> list[str]:
    return [e.content for e in events if isinstance(e, ToolCallResultEvent)]


@pytest.mark.parametrize("first", ["deny", "cancel"])
async def test_a_stale_approval_after_a_deny_or_cancel_runs_nothing(
    runs_file: pathlib.Path, first: str
) -> None:
    adapter = OpenAIAgentsAdapter(bank_agent(runs_file))
    messages, interrupts = paused(await events_of(adapter, ask()))
    settle = (
        resume(messages, interrupts, DENY)
        if first == "deny"
        else cancel(messages, interrupts, run_id="run-2")
    )
    [settled] = results(await events_of(adapter, settle))
    assert settled.startswith("Not run")

    # A second tab, or a client that never saw the denial, approves the same interrupt.
    late = await events_of(adapter, resume(messages, interrupts, run_id="run-3"))

    assert results(late) == [settled]
    assert runs(runs_file) == []


async def test_an_approval_racing_a_denial_gives_both_the_same_truth(
    runs_file: pathlib.Path,
) -> None:
    adapter = OpenAIAgentsAdapter(bank_agent(runs_file))
    messages, interrupts = paused(await events_of(adapter, ask()))

    approved, denied = await asyncio.gather(
        events_of(adapter, resume(messages, interrupts, run_id="run-a")),
        events_of(adapter, resume(messages, interrupts, DENY, run_id="run-d")),
    )

    assert results(approved) == results(denied)
    [truth] = results(approved)
    assert len(runs(runs_file)) == (0 if truth.startswith("Not run") else 1)


async def test_1000_approved_calls_then_a_replay_of_the_first_runs_nothing(
    runs_file: pathlib.Path,
) -> None:
    adapter = OpenAIAgentsAdapter(bank_agent(runs_file))
    first = None
    for batch in range(1_000 // BATCH):
        words = " and ".join(f"transfer_funds amount={batch} to=p{n}" for n in range(BATCH))
        messages, interrupts = paused(
            await events_of(adapter, ask(words, message_id=f"user-{batch}"))
        )
        assert len(interrupts) == BATCH
        request = resume(messages, interrupts)
        first = first or request
        await events_of(adapter, request)
    assert first is not None
    assert len(runs(runs_file)) == 1_000

    await events_of(adapter, first)

    assert len(runs(runs_file)) == 1_000
