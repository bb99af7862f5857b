"""Exactly-once for approved calls within one adapter, across threads and event loops.

The first run to claim a (thread id, tool call id) runs the call; a run that
claims it while it is in flight, or after it finished, gets the same output
instead of running it again. Keyed on the thread and the call, never on the
run id, since some clients reuse a run id when they resume.

`CallLedger` is what the adapter needs from a ledger. `ExecutionLedger`, the
default, lives in one process's memory: enough for one kernel or one server
process. Replicas that may get the same resume share a `SQLiteLedger` instead
(`interrupt_widget.sqlite_ledger`).
"""

from __future__ import annotations

import asyncio
import threading
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from concurrent.futures import Future
from typing import Protocol

Key = tuple[str, str]
"""(thread id, tool call id)."""


class CallLedger(Protocol):
    """Runs each approved call at most once per key, and hands its output to every asker."""

    async def run_once(self, key: Key, invoke: Callable[[], Awaitable[str]]) -> str:
        """`invoke()`'s output: run now if nobody claimed `key`, else the recorded output.

        A call that raised may be tried again by a later resume; a waiter that is
        cancelled never stops a call halfway.
        """
        ...


class ExecutionLedger:
    """Outputs of approved calls by (thread id, tool call id), bounded in size."""

    def __init__(self, *, capacity: int = 4096) -> None:
        self._capacity = capacity
        self._lock = threading.Lock()
        self._entries: OrderedDict[Key, Future[str]] = OrderedDict()

    async def run_once(self, key: Key, invoke: Callable[[], Awaitable[str]]) -> str:
        """`invoke()`'s output, running it only if no run claimed `key` before.

        The call runs in its own task: cancelling the waiting run does not stop
        a tool halfway, and its output is still recorded for the next resume.
        A call that raises is forgotten, so a later resume may try it again.
        """
        with self._lock:
            future = self._entries.get(key)
            owner = future is None
            if future is None:
                future = Future()
                self._entries[key] = future
                self._evict()
            else:
                self._entries.move_to_end(key)
        if owner:
            task = asyncio.ensure_future(invoke())
            task.add_done_callback(lambda t: self._settle(key, future, t))
        return await asyncio.shield(asyncio.wrap_future(future))

    def _settle(self, key: Key, future: Future[str], task: asyncio.Task[str]) -> None:
        if task.cancelled():
            error: BaseException = RuntimeError("the tool call was cancelled before it finished")
        else:
            error_or_none = task.exception()
            if error_or_none is None:
                future.set_result(task.result())
                return
            error = error_or_none
        with self._lock:
            if self._entries.get(key) is future:
                del self._entries[key]
        future.set_exception(error)

    def _evict(self) -> None:
        while len(self._entries) > self._capacity:
            oldest_key, oldest = next(iter(self._entries.items()))
            if not oldest.done():
                break
            del self._entries[oldest_key]

    def __len__(self) -> int:
        with self._lock:
            return len(self._entries)
