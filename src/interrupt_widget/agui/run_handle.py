"""The run-handle and agent Protocols every layer speaks, and the handle for a plain stream.

An agent (`AGUIAgent`) turns one RunAgentInput into one run; the run
(`RunHandle`) is an async iterator of `ag_ui.core` events that can be asked to
stop and can be closed. The adapter's `AdapterRunHandle`, the fingerprint layer's
`FingerprintCheckedRunHandle` and the server's detached runs all are, or hold, one of these;
the thread, the guard and the server drive them through this Protocol alone.

An AG-UI agent from elsewhere may answer with a plain async iterator of
events: `as_run_handle` wraps it in a `EventIteratorHandle`, a handle that cannot stop
itself, so a caller closes it instead (at a safe point, see
`http/detached_run.py`).
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncGenerator, AsyncIterator
from typing import Protocol, runtime_checkable

from ag_ui.core import BaseEvent, RunAgentInput


@runtime_checkable
class RunHandle(Protocol):
    """One run: its AG-UI events in order, `stop()` to end it early, `aclose()` to drop it."""

    def __aiter__(self) -> AsyncIterator[BaseEvent]: ...

    async def __anext__(self) -> BaseEvent: ...

    @property
    def can_stop(self) -> bool:
        """Whether `stop()` makes the run end itself, cancelled, at its next safe point.

        When False, `stop()` does nothing and a caller that wants the run over
        closes it with `aclose()`.
        """
        ...

    def stop(self) -> None:
        """Ask the run to end with the cancelled outcome; keep reading for its last events.

        Idempotent and safe from any thread; a tool already running finishes first.
        """

    async def aclose(self) -> None:
        """End the stream now: no further events."""


@runtime_checkable
class AGUIAgent(Protocol):
    """An AG-UI agent: one run per input, answered as a stream of `ag_ui.core` events.

    `OpenAIAgentsAdapter`, `RemoteAgent` and the server's fingerprint layer are
    ones; so is any object whose `run` returns a plain async iterator of events
    (read through `as_run_handle`), which then cannot be stopped, only closed.
    """

    def run(self, input: RunAgentInput) -> RunHandle:
        """Start one run for `input`; its events come from the handle returned."""
        ...


class EventIteratorHandle:
    """A `RunHandle` around a plain async iterator of events: it cannot stop itself."""

    def __init__(self, events: AsyncIterator[BaseEvent]) -> None:
        self._events = events

    def __aiter__(self) -> EventIteratorHandle:
        return self

    async def __anext__(self) -> BaseEvent:
        return await self._events.__anext__()

    @property
    def can_stop(self) -> bool:
        return False

    def stop(self) -> None:
        """Nothing to ask: the stream has no safe point of its own (see `can_stop`)."""

    async def aclose(self) -> None:
        if isinstance(self._events, AsyncGenerator):
            await self._events.aclose()


@runtime_checkable
class LinksRuns(Protocol):
    """An AG-UI agent whose runs can be looked at elsewhere (a `TemporalAgent` given its Web
    UI): a card links to the conversation there."""

    def run_link(self, thread_id: str) -> str | None:
        """Where the runs of the conversation `thread_id` can be seen, or None."""
        ...


def run_link_of(agent: object, thread_id: str) -> str:
    """The link to the runs of `thread_id` when `agent` gives one, else ""."""
    return (agent.run_link(thread_id) if isinstance(agent, LinksRuns) else None) or ""


def as_run_handle(run: RunHandle | AsyncIterator[BaseEvent]) -> RunHandle:
    """`run` itself when it is a handle, else a `EventIteratorHandle` around it."""
    return run if isinstance(run, RunHandle) else EventIteratorHandle(run)


async def close_quietly(run: RunHandle) -> None:
    """Close `run`, ignoring a failure: closing a broken stream must not hide how it ended."""
    with contextlib.suppress(Exception):
        await run.aclose()


async def _no_events() -> AsyncIterator[BaseEvent]:
    return
    yield  # an async generator that ends at once


def no_run() -> RunHandle:
    """A run with no events, for one stopped before it began."""
    return EventIteratorHandle(_no_events())
