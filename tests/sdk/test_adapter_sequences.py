"""Generated sequences of runs, resumes and replays never break the interrupt rules."""

from __future__ import annotations

import asyncio
from collections import Counter
from dataclasses import dataclass, field
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
    RunFinishedSuccessOutcome,
    UserMessage,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from interrupt_widget import ErrorCode, OfflineModel, OpenAIAgentsAdapter
from interrupt_widget.examples import expense_agent
from interrupt_widget.ledger.memory import MemoryLedger
from interrupt_widget.testing.stream_rules import assert_valid_stream

MENTIONS = {
    "expense": "submit_expense amount=120 for a team dinner",
    "big_refund": "issue_refund amount=80 for a bad order",
    "small_refund": "issue_refund amount=20 for a typo",
    "budget": "check_budget",
}
APPROVE = {
    "submit_expense": {"approved": True, "category": "travel"},
    "issue_refund": {"approved": True},
}
BAD = {
    "submit_expense": {"approved": True, "category": "snacks"},
    "issue_refund": {"approved": "maybe"},
}

say = st.tuples(st.just("say"), st.lists(st.sampled_from(sorted(MENTIONS)), min_size=1, max_size=3))
answer = st.sampled_from(["approve", "deny", "cancel", "bad", "omit"])
resume = st.tuples(st.just("resume"), st.lists(answer, min_size=3, max_size=3))
replay = st.tuples(st.just("replay"), st.just([]))
steps = st.lists(st.one_of(say, resume, replay), min_size=1, max_size=6)


@dataclass
class Thread:
    """What a client holds between runs, and what should have run so far."""

    messages: list[Message] = field(default_factory=list)
    open: list[Interrupt] = field(default_factory=list)
    approved: set[str] = field(default_factory=set)
    last_resume: RunAgentInput | None = None
    runs: int = 0

    def request(self, **fields: Any) -> RunAgentInput:
        self.runs += 1
        return RunAgentInput(thread_id="t", run_id=f"r{self.runs}", **fields)


def _entry(interrupt: Interrupt, choice: str) -> ResumeEntry | None:
    tool = (interrupt.metadata or {})["tool_name"]
    if choice == "omit":
        return None
    if choice == "cancel":
        return ResumeEntry(interrupt_id=interrupt.id, status="cancelled")
    payload = {"approve": APPROVE[tool], "deny": {"approved": False}, "bad": BAD[tool]}[choice]
    return ResumeEntry(interrupt_id=interrupt.id, status="resolved", payload=payload)


async def _play(script: list[tuple[str, list[str]]]) -> None:
    agent = expense_agent(OfflineModel())
    # Each example its own record: the offline model's call ids repeat between examples.
    adapter = OpenAIAgentsAdapter(agent, ledger=MemoryLedger())
    thread = Thread()

    async def run(request: RunAgentInput) -> list[BaseEvent]:
        events = [e async for e in adapter.run(request)]
        assert_valid_stream(events)
        return events

    def adopt(events: list[BaseEvent]) -> None:
        thread.messages = [e for e in events if isinstance(e, MessagesSnapshotEvent)][-1].messages
        finished = events[-1]
        assert isinstance(finished, RunFinishedEvent)
        outcome = finished.outcome
        thread.open = outcome.interrupts if isinstance(outcome, RunFinishedInterruptOutcome) else []

    for action, args in script:
        if action == "say":
            text = " and ".join(MENTIONS[m] for m in args)
            message = UserMessage(id=f"u{thread.runs}", content=text)
            events = await run(thread.request(messages=[*thread.messages, message]))
            if thread.open:
                assert isinstance(events[-1], RunErrorEvent)
                assert events[-1].code == ErrorCode.PENDING_INTERRUPTS
            else:
                adopt(events)
        elif action == "resume" and thread.open:
            choices = [args[i % len(args)] for i in range(len(thread.open))]
            entries = [e for e in map(_entry, thread.open, choices) if e is not None]
            request = thread.request(messages=thread.messages, resume=entries)
            events = await run(request)
            if "omit" in choices:
                assert isinstance(events[-1], RunErrorEvent)
                # No entry at all is no resume: the open interrupts are still pending.
                code = ErrorCode.INCOMPLETE_RESUME if entries else ErrorCode.PENDING_INTERRUPTS
                assert events[-1].code == code
            elif "bad" in choices:
                assert isinstance(events[-1], RunErrorEvent)
                assert events[-1].code == ErrorCode.INVALID_PAYLOAD
            else:
                thread.approved |= {
                    i.tool_call_id or ""
                    for i, c in zip(thread.open, choices, strict=True)
                    if c == "approve"
                }
                thread.last_resume = request
                adopt(events)
                assert isinstance(events[-1], RunFinishedEvent)
                assert isinstance(events[-1].outcome, RunFinishedSuccessOutcome)
        elif action == "replay" and thread.last_resume is not None:
            await run(thread.last_resume)  # the same request again: harmless

        runs_per_call = Counter(c.call_id for c in agent.executions.calls)
        assert all(n == 1 for n in runs_per_call.values()), runs_per_call
        gated_runs = {
            c.call_id
            for c in agent.executions.calls
            if c.tool_name == "submit_expense" or c.payload
        }
        assert gated_runs == thread.approved


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(steps)
def test_runs_and_resumes_keep_the_rules(script: list[tuple[str, list[str]]]) -> None:
    asyncio.run(_play(script))
