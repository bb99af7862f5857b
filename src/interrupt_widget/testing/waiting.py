"""Awaiting a widget's observable state instead of sleeping."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import traitlets

if TYPE_CHECKING:
    from interrupt_widget.batch.agent_batch import AgentBatch


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
