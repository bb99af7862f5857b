"""A reply on Temporal reads as it is written: the worker's run sends its events to the
workflow while it runs, and the client reads them then, not when the run ends. Each event is
said once, in the kernel's order, and the run's result stays the authority."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncIterator
from typing import Any

import pytest

pytest.importorskip("temporalio")

from ag_ui.core import RunAgentInput, UserMessage
from temporalio.client import Client

from interrupt_widget import AgentChat
from interrupt_widget.agui.run_handle import AGUIAgent
from interrupt_widget.agui.wire import to_wire
from interrupt_widget.temporal import TemporalAgent
from interrupt_widget.temporal.dev_server import DevServer
from interrupt_widget.testing import CommRecorder
from temporal_agents import SLOW_TALKER, WORD_DELAY, slow_talker, worker_on_fresh_queue

WORDS = 20
ASK = f"reply with {WORDS} words"


@pytest.fixture
async def queue(temporal_server: DevServer) -> AsyncIterator[tuple[Client, str]]:
    async with worker_on_fresh_queue(temporal_server, (SLOW_TALKER,)) as served:
        yield served


def _input(thread_id: str) -> RunAgentInput:
    message = UserMessage(id=f"u-{uuid.uuid4().hex[:8]}", content=ASK)
    return RunAgentInput(
        thread_id=thread_id, run_id=f"r-{uuid.uuid4().hex[:8]}", state={}, messages=[message],
        tools=[], context=[], forwarded_props={},
    )  # fmt: skip


async def _timed(agent: AGUIAgent, thread_id: str) -> tuple[float, float, list[dict[str, Any]]]:
    """Seconds to the first text delta and to the run's end, and the events (wire form)."""
    started = time.perf_counter()
    first: float | None = None
    events: list[dict[str, Any]] = []
    async for event in agent.run(_input(thread_id)):
        events.append(to_wire(event))
        if first is None and events[-1]["type"] == "TEXT_MESSAGE_CONTENT":
            first = time.perf_counter() - started
    assert first is not None
    return first, time.perf_counter() - started, events


def _shape(events: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return [(e["type"], str(e.get("delta", ""))) for e in events]


async def test_a_reply_on_temporal_streams_as_in_the_kernel_each_event_once(
    queue: tuple[Client, str],
) -> None:
    kernel_first, kernel_end, kernel = await _timed(slow_talker(), f"k-{uuid.uuid4().hex[:8]}")
    agent = TemporalAgent(queue[0], agent=SLOW_TALKER, task_queue=queue[1])
    await agent.wait_for_worker()
    first, end, events = await _timed(agent, f"t-{uuid.uuid4().hex[:8]}")
    print(
        f"\ntime to first token: kernel {kernel_first * 1000:.0f} ms, Temporal "
        f"{first * 1000:.0f} ms; run: kernel {kernel_end:.2f} s, Temporal {end:.2f} s"
    )
    writing = WORDS * WORD_DELAY
    assert end > writing
    assert first < end - writing / 2  # the first word came while the rest was being written
    assert first < kernel_first + 0.5
    # Every event once, in the kernel's order (the deltas as they were written).
    assert _shape(events) == _shape(kernel)
    assert sum(e["type"] == "RUN_STARTED" for e in events) == 1


async def test_a_chat_on_temporal_shows_the_reply_before_the_run_ends(
    queue: tuple[Client, str], recorder: CommRecorder
) -> None:
    agent = TemporalAgent(queue[0], agent=SLOW_TALKER, task_queue=queue[1])
    await agent.wait_for_worker()
    chat = AgentChat(agent)
    comm = recorder.of(chat)
    handle = chat.send(ASK)

    def said() -> str:
        batches = [m for m in comm.custom_messages() if m.get("type") == "events"]
        return "".join(
            str(e.get("delta", ""))
            for b in batches
            for e in b["events"]
            if e["type"] == "TEXT_MESSAGE_CONTENT"
        )

    for _ in range(int(WORDS * WORD_DELAY * 0.75 / 0.02)):  # most of the writing time
        if len(said().split()) >= 3:
            break
        await asyncio.sleep(0.02)
    assert len(said().split()) >= 3
    assert not handle.done()  # words on the front end while the run still writes
    assert chat.status == "running"
    result = await handle
    assert len(said().split()) >= WORDS
    assert said().strip() in result.text
