"""A call that ran has one truth: a late deny, and a replay after 5,000 other approved calls."""

from __future__ import annotations

import pathlib

from ag_ui.core import BaseEvent, TextMessageContentEvent, ToolCallResultEvent
from bank import bank_agent, runs
from steps import DENY, ask, events_of, paused, resume

from interrupt_widget import OpenAIAgentsAdapter

BATCH = 200
"""Parallel calls per request (the offline model reads 8,000 characters of it)."""


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


async def test_5000_approved_calls_then_a_replay_of_the_first_runs_nothing(
    runs_file: pathlib.Path,
) -> None:
    adapter = OpenAIAgentsAdapter(bank_agent(runs_file))
    first = None
    for batch in range(5_000 // BATCH):
        words = " and ".join(f"transfer_funds amount={batch} to=p{n}" for n in range(BATCH))
        messages, interrupts = paused(
            await events_of(adapter, ask(words, message_id=f"user-{batch}"))
        )
        assert len(interrupts) == BATCH
        request = resume(messages, interrupts)
        first = first or request
        await events_of(adapter, request)
    assert first is not None
    assert len(runs(runs_file)) == 5_000

    await events_of(adapter, first)

    assert len(runs(runs_file)) == 5_000
