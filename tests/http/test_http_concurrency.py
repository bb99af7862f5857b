"""Fifty threads paused and resumed at once against one server over real sockets."""

from __future__ import annotations

import asyncio
from collections import Counter

from ag_ui.core import (
    MessagesSnapshotEvent,
    ResumeEntry,
    RunAgentInput,
    RunFinishedEvent,
    RunFinishedInterruptOutcome,
    TextMessageContentEvent,
    ToolCallResultEvent,
    UserMessage,
)
from agents import set_tracing_disabled

from interrupt_widget.examples import meeting_agent
from interrupt_widget.http.app import asgi_app
from interrupt_widget.http.client import AGUIClient
from interrupt_widget.http.serve import running_server
from interrupt_widget.sdk.offline_model import OfflineModel
from interrupt_widget.testing import assert_valid_thread

set_tracing_disabled(True)

THREADS = 50
TOKEN = "concurrency-token"


async def pause_and_resume(client: AGUIClient, index: int) -> tuple[str, str, str]:
    """One thread's whole cycle; returns (thread id, call id, final text)."""
    thread_id = f"thread-{index}"
    ask = UserMessage(
        id=f"user-{index}", content=f"Schedule a meeting about topic {index} with Ada."
    )
    first = [
        e async for e in client.run(RunAgentInput(thread_id=thread_id, run_id="r1", messages=[ask]))
    ]
    finished = first[-1]
    assert isinstance(finished, RunFinishedEvent)
    assert isinstance(finished.outcome, RunFinishedInterruptOutcome)
    (interrupt,) = finished.outcome.interrupts
    assert interrupt.tool_call_id is not None
    snapshot = [e for e in first if isinstance(e, MessagesSnapshotEvent)][-1]
    answer = {
        "approved": True,
        "chosen_time": f"2030-01-{1 + index % 28:02d}T10:00:00Z",
        "chosen_label": f"slot {index}",
    }
    resume = RunAgentInput(
        thread_id=thread_id,
        run_id="r2",
        messages=snapshot.messages,
        resume=[ResumeEntry(interrupt_id=interrupt.id, status="resolved", payload=answer)],
    )
    second = [e async for e in client.run(resume)]
    assert_valid_thread([first, second])
    assert isinstance(second[-1], RunFinishedEvent), second[-1]
    results = [e for e in second if isinstance(e, ToolCallResultEvent)]
    assert [r.tool_call_id for r in results] == [interrupt.tool_call_id]
    text = "".join(e.delta for e in second if isinstance(e, TextMessageContentEvent))
    return thread_id, interrupt.tool_call_id, text


async def test_fifty_threads_each_run_their_gated_tool_exactly_once() -> None:
    agent = meeting_agent(OfflineModel())
    app = asgi_app(agent, token=TOKEN, secret="concurrency-secret-long-enough")
    async with running_server(app) as url, AGUIClient(url, token=TOKEN) as client:
        outcomes = await asyncio.gather(*(pause_and_resume(client, i) for i in range(THREADS)))

    assert len({thread for thread, _, _ in outcomes}) == THREADS
    for index, (_, _, text) in enumerate(outcomes):
        assert f"slot {index}" in text  # each thread got its own answer back, nothing crossed
    executions = agent.executions.calls
    assert len(executions) == THREADS
    topics = Counter(call.arguments["topic"] for call in executions)
    assert all(count == 1 for count in topics.values())
    assert sorted(topics) == sorted(f"topic {i}" for i in range(THREADS))
    for call in executions:
        index = int(call.arguments["topic"].split()[-1])
        assert call.payload["chosen_label"] == f"slot {index}"
