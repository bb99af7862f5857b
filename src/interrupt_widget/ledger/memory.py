"""`ExecutionLedger`: exactly-once for approved calls in one process's memory.

Only when asked for by name (`ledger="memory"`, `serve --ledger memory`): its
record ends with the process, so a restart would run an approved call again
if the same resume came back. The default is the persistent per-user
`SQLiteLedger` (`interrupt_widget.ledger.choose`). The once-only bookkeeping is the
shared core's (`interrupt_widget.ledger.core`); this module holds only the record.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, ClassVar

from interrupt_widget.ledger.core import (
    DEFAULT_RETENTION,
    MINE,
    CallLedger,
    Claim,
    Held,
    Key,
    Look,
    OnceOnlyLedger,
    Recorded,
    seconds,
)

__all__ = ["CallLedger", "ExecutionLedger", "Key"]


@dataclass
class _Entry:
    answer: Any
    claimed_at: float
    output: str | None = None
    finished_at: float | None = None


class ExecutionLedger(OnceOnlyLedger):
    """Outputs of approved calls by (thread id, tool call id), kept `retention` after they ran."""

    blocking: ClassVar[bool] = False

    def __init__(self, *, retention: timedelta = DEFAULT_RETENTION) -> None:
        super().__init__()
        self.retention = retention
        """How long a call's record is kept after it ran (pruned as new calls come)."""
        self._entries: dict[Key, _Entry] = {}
        self._entries_lock = threading.Lock()
        self._pruned_at = time.time()

    def prune(self, older_than: timedelta | float) -> int:
        """Forget calls that finished more than `older_than` ago; how many were forgotten."""
        cutoff = time.time() - seconds(older_than)
        with self._entries_lock:
            old = [
                key
                for key, entry in self._entries.items()
                if entry.finished_at is not None and entry.finished_at < cutoff
            ]
            for key in old:
                del self._entries[key]
        return len(old)

    def __len__(self) -> int:
        with self._entries_lock:
            return len(self._entries)

    def __repr__(self) -> str:
        return "ExecutionLedger(in memory)"

    # -- hooks -------------------------------------------------------------------------------

    def _claim(self, key: Key, answer: Any) -> Claim:
        now = time.time()
        if now - self._pruned_at > 60.0:  # by age, at most once a minute
            self._pruned_at = now
            self.prune(self.retention)
        with self._entries_lock:
            entry = self._entries.get(key)
            if entry is None:
                self._entries[key] = _Entry(answer=answer, claimed_at=now)
                return MINE
            return _found(entry)

    def _look(self, key: Key) -> Look:
        with self._entries_lock:
            entry = self._entries.get(key)
            return None if entry is None else _found(entry)

    def _store(self, key: Key, output: str) -> None:
        with self._entries_lock:
            entry = self._entries[key]
            entry.output, entry.finished_at = output, time.time()

    def _unclaim(self, key: Key) -> None:
        with self._entries_lock:
            entry = self._entries.get(key)
            if entry is not None and entry.output is None:
                del self._entries[key]


def _found(entry: _Entry) -> Recorded | Held:
    if entry.output is None:
        return Held()  # settled by this process's shared future; never in doubt here
    return Recorded(entry.output, entry.answer)
