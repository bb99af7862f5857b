"""The SQLite ledger's writes committed in groups: one transaction, one sync, for all that wait.

Every write to the calls' table that decides whether a call may run (a claim, a
dropped claim, a kept record) must be on the disk before its caller goes on: a claim
before the tool runs. A result is committed without its own sync (`synced=False`): a
crash of the process keeps it (WAL), the next synced commit puts it on the disk, and a
power cut before that loses only the result, leaving the call claimed: in doubt, never
run again. Synced one by one, writes that arrive together (the rows of a batch, the
calls of a wide resume) each pay a commit and its sync. Here
the first writer to arrive commits: it takes every write waiting, runs each in its
own savepoint inside one transaction, commits once, and only then hands each caller
its own result. Writes that arrive meanwhile wait for the next commit, led by the
first of them. So each write is as durable when its caller returns as when it
committed alone; a write that fails is undone alone (its savepoint; a write alone in
its transaction needs none: the transaction is rolled back), and the others commit. A
failure of the transaction itself (a busy file past the ledger's wait, a full disk)
fails every write of the group, none of which is then on the disk.

A write made on the event loop (`may_wait` says no) never waits for a group: it commits
alone when no commit is under way, and otherwise raises `WouldWait`, having written
nothing.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
from collections.abc import Callable, Iterator
from typing import Any, Generic, TypeVar

from interrupt_widget.ledger.once_only import WouldWait

_T = TypeVar("_T")

Attempt = Callable[[Callable[[sqlite3.Connection], Any]], Any]
"""The ledger's `_attempt`: work on a connection, tried again while the file is busy."""


class _Write(Generic[_T]):
    """One caller's write, and what came of it."""

    def __init__(self, work: Callable[[sqlite3.Connection], _T], synced: bool) -> None:
        self.work = work
        self.synced = synced
        self.turn = threading.Event()
        self.leads = False
        self.done = False
        self.value: Any = None
        self.error: BaseException | None = None

    def settle(self, value: Any, error: BaseException | None) -> None:
        self.value, self.error, self.done = value, error, True
        self.turn.set()

    def result(self) -> _T:
        if self.error is not None:
            raise self.error
        value: _T = self.value
        return value


class _Undone(Exception):
    """The one write of a transaction failed with `error`: the transaction is rolled back."""

    def __init__(self, error: BaseException) -> None:
        super().__init__(error)
        self.error = error


class GroupCommits:
    """Writes to one SQLite file from this process's threads, committed together."""

    def __init__(
        self,
        attempt: Attempt,
        failed: Callable[[sqlite3.Error], BaseException],
        may_wait: Callable[[], bool] = lambda: True,
    ) -> None:
        self._attempt = attempt
        self._failed = failed  # a write's own SQLite error as its caller should see it
        self._may_wait = may_wait  # False on the event loop: a write there never waits
        self._forked()

    def _forked(self) -> None:
        # A process forked while another thread committed must not wait for that thread.
        self._pid = os.getpid()
        self._lock = threading.Lock()
        self._waiting: list[_Write[Any]] = []
        self._leading = False

    def write(self, work: Callable[[sqlite3.Connection], _T], *, synced: bool = True) -> _T:
        """`work(db)`'s result once it is committed with the writes waiting now: synced to
        the disk, unless no write of the group asks for it (`synced=False`)."""
        if os.getpid() != self._pid:
            self._forked()
        mine = _Write(work, synced)
        if not self._may_wait():
            with self._lock:
                if self._leading:
                    raise WouldWait
                self._leading = True
            self._lead(alone=mine)
            return mine.result()
        with self._lock:
            self._waiting.append(mine)
            mine.leads = not self._leading
            self._leading = True
        if not mine.leads:
            mine.turn.wait()  # committed by a leader, or handed the lead
        if not mine.done:
            self._lead()
        return mine.result()

    def _lead(self, alone: _Write[Any] | None = None) -> None:
        """Commit the writes waiting now (or `alone`, which waited for none) as one group."""
        if alone is not None:
            group = [alone]
        else:
            with self._lock:
                group, self._waiting = self._waiting, []
        try:
            self._commit(group)
        finally:
            with self._lock:
                if self._waiting:
                    self._waiting[0].leads = True
                    self._waiting[0].turn.set()  # the first to wait leads the next commit
                else:
                    self._leading = False

    def _commit(self, group: list[_Write[Any]]) -> None:
        synced = any(write.synced for write in group)

        def run(db: sqlite3.Connection) -> list[tuple[Any, BaseException | None]]:
            try:
                with transaction(db, synced=synced):
                    if len(group) == 1:  # its failure undoes the transaction: no savepoint
                        return [(self._alone(db, group[0].work), None)]
                    return [self._apart(db, write.work) for write in group]
            except _Undone as undone:
                return [(None, undone.error)]

        try:
            outcomes = self._attempt(run)
        except BaseException as failure:  # nothing of the group is on the disk
            for write in group:
                write.settle(None, failure)
            return
        for write, (value, error) in zip(group, outcomes, strict=True):
            write.settle(value, error)

    def _alone(self, db: sqlite3.Connection, work: Callable[[sqlite3.Connection], Any]) -> Any:
        """`work(db)`, the transaction's one write: its failure is `_Undone` (the transaction
        rolled back), as `_apart` would report it; a busy file is tried again whole."""
        try:
            return work(db)
        except sqlite3.Error as error:
            if busy(error):
                raise
            raise _Undone(self._failed(error)) from error
        except Exception as failure:
            raise _Undone(failure) from failure

    def _apart(
        self, db: sqlite3.Connection, work: Callable[[sqlite3.Connection], Any]
    ) -> tuple[Any, BaseException | None]:
        """`work(db)` in its own savepoint: (its value, None), or (None, its error), undone."""
        db.execute("SAVEPOINT write")
        try:
            value = work(db)
        except sqlite3.Error as error:
            if busy(error):
                raise  # the whole transaction is tried again
            db.execute("ROLLBACK TO write")
            db.execute("RELEASE write")
            return None, self._failed(error)
        except Exception as failure:
            db.execute("ROLLBACK TO write")
            db.execute("RELEASE write")
            return None, failure
        db.execute("RELEASE write")
        return value, None


@contextlib.contextmanager
def transaction(db: sqlite3.Connection, *, synced: bool = True) -> Iterator[None]:
    """One transaction on an autocommit connection: committed whole (synced to the disk,
    unless not `synced`), or rolled back.

    IMMEDIATE takes the write lock at the start, so a busy file is found before anything
    is written (and the ledger tries the whole transaction again). The connection syncs
    every commit (`synchronous=FULL`) outside an unsynced one."""
    if not synced:
        db.execute("PRAGMA synchronous=NORMAL")  # WAL: kept by a crash, synced later
    try:
        db.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            if db.in_transaction:
                with contextlib.suppress(sqlite3.Error):
                    db.execute("ROLLBACK")
            raise
        db.execute("COMMIT")
    finally:
        if not synced:
            db.execute("PRAGMA synchronous=FULL")


def best_effort(
    db: sqlite3.Connection, write: Callable[..., None], *args: Any
) -> sqlite3.Error | None:
    """`write(db, *args)` inside a transaction, undone alone if it fails (a note must never
    cost the write it goes with): the error, or None."""
    db.execute("SAVEPOINT note")
    try:
        write(db, *args)
    except sqlite3.Error as error:
        db.execute("ROLLBACK TO note")
        db.execute("RELEASE note")
        return error
    db.execute("RELEASE note")
    return None


_BUSY = (sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED)


def busy(error: sqlite3.Error) -> bool:
    """Whether SQLite says the file is locked (worth trying again), not that it failed."""
    code = getattr(error, "sqlite_errorcode", None)
    return isinstance(code, int) and code & 0xFF in _BUSY
