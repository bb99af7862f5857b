"""Awaiting observable state instead of sleeping: a widget's, a batch's, a Temporal
conversation's."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import traitlets

if TYPE_CHECKING:
    from interrupt_widget.batch.agent_batch import AgentBatch
    from interrupt_widget.temporal.agent import TemporalAgent
    from interrupt_widget.temporal.shapes import OpenConversation


async def until(
    widget: traitlets.HasTraits,
    predicate: Callable[[], bool],
    *,
    names: Sequence[str] = ("status",),
    timeout: float = 30.0,  # noqa: ASYNC109 - a bounded default, as picker.wait(timeout=)
) -> None:
    """Return once `predicate()` holds, checking it again on each change of `names`.

    `await until(chat, lambda: chat.status == "waiting")` waits for the picker
    to be open; a `TimeoutError` after `timeout` seconds says the state never came.
    """
    changed = asyncio.Event()

    def wake(_change: Any) -> None:
        changed.set()

    widget.observe(wake, names=list(names))
    try:
        async with asyncio.timeout(timeout):
            await _woken_until(changed, predicate)
    finally:
        widget.unobserve(wake, names=list(names))


async def batch_until(
    batch: AgentBatch,
    predicate: Callable[[], bool],
    *,
    timeout: float = 30.0,  # noqa: ASYNC109 - a bounded default, as `until`
) -> None:
    """Return once `predicate()` holds, checking it again whenever a row of `batch` changes.

    `await batch_until(batch, lambda: len(batch.waiting()) == 3)`; a `TimeoutError`
    after `timeout` seconds says the state never came.
    """
    changed = asyncio.Event()
    unsubscribe = batch.subscribe(lambda _row: changed.set())
    try:
        async with asyncio.timeout(timeout):
            await _woken_until(changed, predicate)
    finally:
        unsubscribe()


async def _woken_until(changed: asyncio.Event, predicate: Callable[[], bool]) -> None:
    """Check `predicate()` again each time `changed` is set, until it holds."""
    while not predicate():
        await changed.wait()
        changed.clear()


async def conversation_until(
    agent: TemporalAgent,
    thread_id: str,
    predicate: Callable[[OpenConversation], bool],
    *,
    timeout: float = 30.0,  # noqa: ASYNC109 - a bounded default, as `until`
) -> OpenConversation:
    """The conversation `thread_id` as its workflow holds it, once `predicate(held)` holds.

    `await conversation_until(agent, thread.thread_id, lambda held: not held.interrupts)`.
    It is read again after each new event of the workflow's history (Temporal's long poll,
    no sleep), the next run's once it continues as new; a `TimeoutError` after `timeout`
    seconds, or once the conversation ended, says the state never came.
    """
    handle = (await agent.client()).get_workflow_handle(thread_id)
    async with asyncio.timeout(timeout):
        while True:
            described = await handle.describe()
            held = await agent.conversation(thread_id)
            if predicate(held):
                return held
            if described.close_time is not None and described.status is not None:
                # Continued as new, `describe` already names the next run: only an end stops.
                raise TimeoutError(f"the conversation {thread_id} ended ({described.status.name})")
            async for event in handle.fetch_history_events(wait_new_event=True):
                if event.event_id <= described.history_length:
                    continue  # what the first reading already saw
                held = await agent.conversation(thread_id)
                if predicate(held):
                    return held
