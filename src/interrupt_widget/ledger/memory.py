"""`MemoryLedger`: exactly-once for approved calls in one process's memory.

Only when asked for by name (`ledger="memory"`, `serve --ledger memory`): its
record ends with the process, so a restart would run an approved call again
if the same resume came back. The default is the persistent per-user
`SQLiteLedger` (`interrupt_widget.ledger.opening`). The once-only bookkeeping is the
shared core's (`interrupt_widget.ledger.once_only`); this module holds only the record.
"""

from __future__ import annotations

import os
import socket
import threading
import time
import uuid
from dataclasses import dataclass, replace
from datetime import timedelta
from typing import Any, ClassVar

from interrupt_widget.ledger.audit import Claimed, Note, utc_from_epoch
from interrupt_widget.ledger.noting_ledger import Answered, Asked, NotingLedger
from interrupt_widget.ledger.once_only import (
    CLAIMED_HERE,
    DEFAULT_RETENTION,
    CallLedger,
    Claim,
    HeldByLiveRun,
    Key,
    KeyState,
    Recorded,
    seconds,
)

__all__ = ["CallLedger", "Key", "MemoryLedger"]


@dataclass
class _Entry:
    answer: Any
    claimed_at: float
    output: str | None = None
    finished_at: float | None = None


class MemoryLedger(NotingLedger):
    """Outputs of approved calls by (thread id, tool call id), kept `retention` after they ran."""

    blocking: ClassVar[bool] = False

    def __init__(self, *, retention: timedelta = DEFAULT_RETENTION) -> None:
        super().__init__()
        self.retention = retention
        """How long a call's record is kept after it ran (pruned as new calls come)."""
        self._entries: dict[Key, _Entry] = {}
        self._notes: dict[Key, Note] = {}
        self._entries_lock = threading.Lock()
        self._pruned_at = time.time()
        self._name = uuid.uuid4().hex[:8]

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
            for key in [k for k, n in self._notes.items() if _noted_before(n, cutoff)]:
                if key not in self._entries:
                    del self._notes[key]
        return len(old)

    def __len__(self) -> int:
        with self._entries_lock:
            return len(self._entries)

    def __repr__(self) -> str:
        return "MemoryLedger(in memory)"

    @property
    def place(self) -> str:
        """This ledger's memory, in this process: no other ledger shares it."""
        return f"the memory of process {os.getpid()} on {socket.gethostname()} ({self._name})"

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
                return CLAIMED_HERE
            return _found(entry, self._notes.get(key))

    def _insert_first(self, key: Key, output: str, answer: Any = None) -> bool:
        now = time.time()
        with self._entries_lock:
            if key in self._entries:
                return False
            self._entries[key] = _Entry(answer, now, output, now)
            return True

    def _look(self, key: Key) -> KeyState:
        with self._entries_lock:
            entry = self._entries.get(key)
            return None if entry is None else _found(entry, self._notes.get(key))

    def _store(self, key: Key, output: str) -> None:
        with self._entries_lock:
            entry = self._entries[key]
            entry.output, entry.finished_at = output, time.time()

    def _unclaim(self, key: Key) -> None:
        with self._entries_lock:
            entry = self._entries.get(key)
            if entry is not None and entry.output is None:
                del self._entries[key]

    # -- audit notes (see ledger/noting_ledger.py) ---------------------------------------------

    def _note_asked(self, thread_id: str, asked: list[Asked]) -> None:
        with self._entries_lock:
            for call in asked:
                key = (thread_id, call.call_id)
                asked_note = Note(
                    tool=call.tool, arguments_sha256=call.arguments_sha256, asked_at=call.at
                )
                self._notes.setdefault(key, asked_note)

    def _note_answered(self, key: Key, answered: Answered) -> None:
        with self._entries_lock:
            earlier = self._notes.get(key) or Note()
            self._notes[key] = Note(
                tool=answered.tool,
                arguments_sha256=earlier.arguments_sha256 or answered.arguments_sha256,
                asked_at=earlier.asked_at,
                decision=answered.decision,
                answer=answered.answer,
                by=answered.by,
                answered_at=answered.at,
                executed_arguments_sha256=answered.executed_arguments_sha256,
            )

    def _note_failed(self, key: Key, error: str) -> None:
        with self._entries_lock:
            self._notes[key] = replace(self._notes.get(key) or Note(), error=error)

    def _audit_read(self) -> tuple[dict[Key, Note], dict[Key, Claimed], set[Key]]:
        with self._entries_lock:
            claims = {
                key: Claimed(
                    done=entry.output is not None,
                    output=entry.output,
                    answer=entry.answer,
                    claimed_at=utc_from_epoch(entry.claimed_at),
                    finished_at=utc_from_epoch(entry.finished_at),
                )
                for key, entry in self._entries.items()
            }
            return dict(self._notes), claims, set()


def _noted_before(note: Note, cutoff: float) -> bool:
    moment = note.answered_at or note.asked_at
    return moment is not None and moment.timestamp() < cutoff


def _found(entry: _Entry, note: Note | None) -> Recorded | HeldByLiveRun:
    if entry.output is None:
        return HeldByLiveRun()  # settled by this process's shared future; never in doubt here
    by = note.by if note is not None else None
    return Recorded(entry.output, entry.answer, entry.finished_at, by)
