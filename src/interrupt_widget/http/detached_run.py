"""An agent run that outlives its HTTP connection until it reaches a safe point.

A client that goes away mid-stream must not leave a tool half-run. The run
therefore lives in its own task, apart from the connection. When the client
disconnects, a run that can be stopped (the adapter's runs have `stop()`) is
asked to stop, which it does at a safe point: a tool already running finishes,
no new one starts. It is drained to its end, its events dropped. A run with no
`stop()` goes on until no tool call is between its start and its result and
every call the resume asked for has its result, and is closed there. Either
way a tool approved in the request ran to the end, with its TOOL_CALL_RESULT
in the stream, or never started.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator
from typing import Any

from ag_ui.core import (
    PROTOCOL_VERSION,
    AssistantMessage,
    BaseEvent,
    RunAgentInput,
    RunErrorEvent,
    RunFinishedEvent,
    RunStartedEvent,
    ToolCallResultEvent,
    ToolCallStartEvent,
)

from interrupt_widget.agui.interrupts import answered_call_ids, interrupt_id_of
from interrupt_widget.agui.run_handle import AGUIAgent, as_run_handle, close_quietly
from interrupt_widget.errors import ErrorCode

logger = logging.getLogger(__name__)

_END = object()
_QUEUE_SIZE = 256


def _calls_the_resume_may_run(input: RunAgentInput) -> set[str]:
    targeted = {entry.interrupt_id for entry in input.resume or ()}
    if not targeted:
        return set()
    answered = answered_call_ids(input.messages)
    pending: set[str] = set()
    for message in input.messages:
        if isinstance(message, AssistantMessage):
            for call in message.tool_calls or ():
                if interrupt_id_of(call) in targeted and call.id not in answered:
                    pending.add(call.id)
    return pending


class DetachedRun:
    """One agent run in its own task, read through `events()`, abandoned with `abandon()`."""

    def __init__(self, agent: AGUIAgent, input: RunAgentInput) -> None:
        self._agent = agent
        self._input = input
        self._queue: asyncio.Queue[object] = asyncio.Queue(_QUEUE_SIZE)
        self._abandoned = asyncio.Event()
        self._in_flight = _calls_the_resume_may_run(input)
        self._stream = as_run_handle(agent.run(input))
        self.task = asyncio.create_task(self._produce(), name=f"agui-run-{input.run_id}")

    @property
    def abandoned(self) -> bool:
        """Whether the client has gone; the run then stops at its next safe point."""
        return self._abandoned.is_set()

    async def until_abandoned(self) -> None:
        """Return once the client has gone."""
        await self._abandoned.wait()

    def abandon(self) -> None:
        """The client went away: drop further events and stop once no tool is mid-run."""
        if self._abandoned.is_set():
            return
        self._abandoned.set()
        if self._stream.can_stop:
            self._stream.stop()

    async def events(self, *, idle: float | None = None) -> AsyncIterator[BaseEvent | None]:
        """The run's events in order, ending when the run ends or is abandoned.

        With `idle` set, None is yielded whenever that many seconds pass with no
        event, so the caller can keep a quiet connection alive.
        """
        async for batch in self.batches(idle=idle):
            if not batch:
                yield None
            for event in batch:
                yield event

    async def batches(self, *, idle: float | None = None) -> AsyncIterator[list[BaseEvent]]:
        """The run's events in order, as many at a time as are ready; `[]` after `idle` quiet s.

        Events that are ready together go out together (one write for the lot);
        the iterator waits only when none is ready.
        """
        gone: asyncio.Future[Any] | None = None
        get: asyncio.Future[Any] | None = None
        try:
            while not self.abandoned:
                ready: list[object] = []
                if get is not None and get.done():
                    ready.append(get.result())
                    get = None
                if get is None:
                    while not self._queue.empty():
                        ready.append(self._queue.get_nowait())
                if ready:
                    batch = [item for item in ready if isinstance(item, BaseEvent)]
                    if batch:
                        yield batch
                    if any(item is _END for item in ready):
                        return
                    continue
                # Nothing ready: wait for the next event, the client's leaving, or `idle`.
                if gone is None:
                    gone = asyncio.ensure_future(self._abandoned.wait())
                if get is None:
                    get = asyncio.ensure_future(self._queue.get())
                done, _ = await asyncio.wait(
                    {get, gone}, timeout=idle, return_when=asyncio.FIRST_COMPLETED
                )
                if not done:
                    yield []
                elif not get.done():
                    return
        finally:
            if gone is not None:
                gone.cancel()
            if get is not None:
                get.cancel()

    async def _deliver(self, item: object) -> None:
        if self.abandoned:
            return
        if not self._queue.full():  # the usual case: no task, no wait
            self._queue.put_nowait(item)
            return
        put = asyncio.ensure_future(self._queue.put(item))
        gone = asyncio.ensure_future(self._abandoned.wait())
        try:
            await asyncio.wait({put, gone}, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for future in (put, gone):
                future.cancel()

    def _track(self, event: BaseEvent) -> None:
        if isinstance(event, ToolCallStartEvent):
            self._in_flight.add(event.tool_call_id)
        elif isinstance(event, ToolCallResultEvent):
            self._in_flight.discard(event.tool_call_id)

    async def _produce(self) -> None:
        started = ended = False
        stream = self._stream
        try:
            async for event in stream:
                started = started or isinstance(event, RunStartedEvent)
                ended = isinstance(event, RunFinishedEvent | RunErrorEvent)
                self._track(event)
                await self._deliver(event)
                if self.abandoned and not self._in_flight and not ended and not stream.can_stop:
                    logger.info(
                        "client left run %s; stopped it with no tool mid-run", self._input.run_id
                    )
                    break
        except Exception:
            logger.exception("agent run %s failed", self._input.run_id)
            if not started:
                await self._deliver(
                    RunStartedEvent(
                        thread_id=self._input.thread_id,
                        run_id=self._input.run_id,
                        protocol_version=PROTOCOL_VERSION,
                    )
                )
            if not ended:
                await self._deliver(
                    RunErrorEvent(
                        message="The agent failed while running; the server log has the details.",
                        code=ErrorCode.AGENT_FAILED,
                    )
                )
        finally:
            await close_quietly(stream)
            await self._deliver(_END)
