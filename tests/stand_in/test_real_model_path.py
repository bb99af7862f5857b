"""The path a user with a key takes: `default_model()`, the SDK's Responses model and client.

`OPENAI_BASE_URL` points at a local stand-in (`responses_server`) on
127.0.0.1, started by the test; nothing leaves the machine.
"""

from __future__ import annotations

from typing import Any

import pytest
from ag_ui.core import (
    MessagesSnapshotEvent,
    ResumeEntry,
    RunAgentInput,
    RunFinishedEvent,
    RunFinishedInterruptOutcome,
    TextMessageContentEvent,
    UserMessage,
)
from agents.models import openai_provider
from responses_server import KEY, ResponsesStandIn

from interrupt_widget import OpenAIAgentsAdapter, default_model
from interrupt_widget.examples import meeting_agent
from interrupt_widget.testing import assert_valid_stream

ASK = "Book a call with Alice about the Q3 roadmap"
SLOT = {"approved": True, "chosen_time": "2030-01-08T10:00:00Z", "chosen_label": "Tuesday 10:00"}


@pytest.fixture
def stand_in(
    openai_stand_in: ResponsesStandIn, monkeypatch: pytest.MonkeyPatch
) -> ResponsesStandIn:
    # The SDK keeps one HTTP client per process, bound to the loop it was made on;
    # each test has its own loop, so each gets its own client.
    monkeypatch.setattr(openai_provider, "_http_client", None)
    assert openai_stand_in.base_url is not None
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("OPENAI_BASE_URL", openai_stand_in.base_url)
    monkeypatch.delenv("INTERRUPT_WIDGET_MODEL", raising=False)
    return openai_stand_in


async def _run(adapter: OpenAIAgentsAdapter, request: RunAgentInput) -> list[Any]:
    events = [e async for e in adapter.run(request)]
    assert_valid_stream(events)
    return events


async def _paused(adapter: OpenAIAgentsAdapter) -> tuple[list[Any], Any]:
    ask = RunAgentInput(thread_id="t", run_id="r1", messages=[UserMessage(id="u1", content=ASK)])
    events = await _run(adapter, ask)
    finished = events[-1]
    assert isinstance(finished, RunFinishedEvent)
    assert isinstance(finished.outcome, RunFinishedInterruptOutcome)
    snapshot = [e for e in events if isinstance(e, MessagesSnapshotEvent)][-1]
    return list(snapshot.messages), finished.outcome.interrupts[0]


@pytest.mark.parametrize(
    ("payload", "runs", "said"),
    [(SLOT, 1, "Tuesday 10:00"), ({"approved": False, "reason": "busy"}, 0, "not scheduled")],
    ids=["approve", "deny"],
)
async def test_the_quickstart_through_the_sdk_responses_model(
    stand_in: ResponsesStandIn, payload: dict[str, Any], runs: int, said: str
) -> None:
    assert isinstance(default_model(), str)  # a key is set: the SDK's own model
    agent = meeting_agent()
    adapter = OpenAIAgentsAdapter(agent, ledger=None)
    messages, interrupt = await _paused(adapter)
    assert interrupt.metadata["tool_name"] == "schedule_meeting"
    entry = ResumeEntry(interrupt_id=interrupt.id, status="resolved", payload=payload)
    then = RunAgentInput(thread_id="t", run_id="r2", messages=messages, resume=[entry])

    events = await _run(adapter, then)

    assert isinstance(events[-1], RunFinishedEvent)
    text = "".join(e.delta for e in events if isinstance(e, TextMessageContentEvent))
    assert said in text
    assert agent.executions.count("schedule_meeting") == runs
    # The pause and the reply, both over HTTP.
    assert [r.path for r in stand_in.requests] == ["/v1/responses"] * 2
    assert stand_in.requests[0].body["model"] == default_model()
    assert [t["name"] for t in stand_in.requests[0].body["tools"]] == ["schedule_meeting"]
