"""`DetachedRun.batches`: events ready together are read together, in order, none lost."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

from ag_ui.core import (
    PROTOCOL_VERSION,
    BaseEvent,
    RunAgentInput,
    RunFinishedEvent,
    RunStartedEvent,
    TextMessageContentEvent,
)

from interrupt_widget.http.detached_run import DetachedRun

INPUT = RunAgentInput(thread_id="t", run_id="r", messages=[])


class Scripted:
    """An AG-UI agent that yields `burst` events at once, waits for `go`, then the rest."""

    def __init__(self, burst: int, rest: int) -> None:
        self.burst = burst
        self.rest = rest
        self.go = asyncio.Event()

    async def _events(self) -> AsyncIterator[BaseEvent]:
        yield RunStartedEvent(thread_id="t", run_id="r", protocol_version=PROTOCOL_VERSION)
        for n in range(self.burst):
            yield TextMessageContentEvent(message_id="m", delta=f"a{n}")
        await self.go.wait()
        for n in range(self.rest):
            yield TextMessageContentEvent(message_id="m", delta=f"b{n}")
        yield RunFinishedEvent(thread_id="t", run_id="r")

    def run(self, input: RunAgentInput) -> AsyncIterator[BaseEvent]:
        return self._events()


async def test_a_burst_is_one_batch_and_every_event_arrives_in_order() -> None:
    agent = Scripted(burst=50, rest=30)
    run = DetachedRun(agent, INPUT)
    batches: list[list[BaseEvent]] = []
    async for batch in run.batches(idle=0.01):
        batches.append(batch)
        if not batch:
            agent.go.set()  # quiet for `idle`: an empty batch, then the rest comes
    events = [e for b in batches for e in b]
    deltas = [e.delta for e in events if isinstance(e, TextMessageContentEvent)]
    assert deltas == [f"a{n}" for n in range(50)] + [f"b{n}" for n in range(30)]
    assert isinstance(events[0], RunStartedEvent)
    assert isinstance(events[-1], RunFinishedEvent)
    assert [] in batches
    assert max(len(b) for b in batches) > 1  # the burst was read as more than one event
    assert len([b for b in batches if b]) < len(events)
    await run.task


async def test_events_reads_the_same_stream_one_at_a_time() -> None:
    agent = Scripted(burst=5, rest=5)
    agent.go.set()
    run = DetachedRun(agent, INPUT)
    events = [e async for e in run.events()]
    assert len(events) == 12
    assert all(e is not None for e in events)
    await run.task
