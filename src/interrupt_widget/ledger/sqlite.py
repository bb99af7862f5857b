"""`SQLiteLedger`: exactly-once for approved calls across the processes of one host.

A stateless server can be replicated, and a client may send the same resume
to two replicas (a retry after a timeout, a load balancer that tries twice).
Each replica's adapter then asks its ledger to run the approved call; with
the in-memory default each one would run it. Replicas that share one SQLite
file (`asgi_app(agent, ledger="calls.db")`, `serve --ledger calls.db`, and by
default the per-user file of `interrupt_widget.ledger.opening`) share the record:

1. **Claim before run.** A replica inserts a row keyed on (thread id, tool
   call id), the table's primary key, and commits it before the tool starts.
   Exactly one insert succeeds; that replica runs the tool.
2. **Record the result.** When the tool returns, the owner stores its output
   in the row. A replica that lost the claim polls the row and replays that
   output, as the in-memory ledger does for a second run in one process.
3. **Failures.** A tool that raises deletes its claim, so a later resume may
   try again (as in memory). A waiter that is cancelled (a client that left)
   never stops the owner's tool halfway.

**A replica that dies between claim and result** leaves its claim behind,
and nobody can know whether the tool ran (it may have sent the e-mail and died
before the row was updated). The ledger never guesses: the call is *in doubt*
and is not run again. A replica that finds a claim whose owner process has
exited (owners are identified by host and process id, so this is checked for
claims made on this host) stops waiting and raises `CallInDoubt`, which the
adapter turns into a RUN_ERROR with code `call_in_doubt` naming the call. After checking the tool's
effect by hand, an operator calls `release(thread_id, call_id)` to let the
next resume run it, or `record(thread_id, call_id, output)` to hand the next
resume the output it should see. So a crash can cost one call's certainty,
never a second run. (Process ids are reused in time; a claim whose pid was
reused by a live process is waited on, which `wait_timeout` bounds.) A run cut
off while its call may have been running (a worker shut down mid-tool) gives
its claim up without deleting it: the row's process id becomes 0, so every
process reads the call in doubt at once, even while the owner still lives.

**Retention.** A call's record is kept `retention` after it ran (365 days
by default; rows older than that are pruned when a ledger opens the file),
and `prune(older_than=...)` forgets older ones on demand. Claims in doubt are
never pruned: only `release` or `record` settles them.

**When the file fails.** Many processes may share the file (WAL mode):
a writer that finds it locked waits up to `busy_timeout` seconds, retrying
with back-off where SQLite itself would not wait. A claim that still cannot
be written (locked for longer, a full disk, a read-only or vanished file)
runs nothing and raises `LedgerUnavailable` (RUN_ERROR `ledger_unavailable`);
a call that ran but whose result cannot be written stays claimed and in
doubt (see `interrupt_widget.once`). Other processes on this host wait for
such a claim as for a live run (its owner is alive) until that process
exits or `wait_timeout` passes; the process that left it answers
`CallInDoubt` at once.

SQLite's locking is only as good as the file system's: keep the file on a
local disk shared by processes on one host, not on a network share. Each
approved call costs one synced commit, its claim, so that the claim survives
a power cut as well as a crash, and one commit of its result that a crash of
the process keeps and the next synced commit puts on the disk: a power cut
in between loses only the result, and the call, still claimed, is in doubt
(never run again). A batch row's outcome is committed so too (`keep_first(...,
synced=False)`): a power cut can cost a repeat of the row, never a second run of
its calls. Writes from threads that wait at the same moment share one
commit (`interrupt_widget.ledger.sqlite_commits`). A run's writes are made on
its event loop while the file is free (a commit and its sync: 0.2-0.3 ms on a
local disk, less than a worker thread's round trip in a busy loop); one that
would wait for a lock goes to a worker thread, so the loop never waits for
another process, and every write does once three in a row were slow there. See
`docs/performance.md` for the figures (`bench/ledger.py`, `bench/batch.py`).
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import sqlite3
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any, Final, TypeVar, Unpack

from interrupt_widget.errors import CallInDoubt, LedgerUnavailable
from interrupt_widget.ledger import sqlite_audit
from interrupt_widget.ledger.audit import Claimed, Note
from interrupt_widget.ledger.noting_ledger import Answered, Asked
from interrupt_widget.ledger.once_only import (
    CLAIMED_HERE,
    DEFAULT_RETENTION,
    Claim,
    ClaimNote,
    HeldByLiveRun,
    InDoubt,
    Key,
    KeyState,
    Recorded,
    WaitOptions,
    WouldWait,
    record_synced,
    seconds,
)
from interrupt_widget.ledger.sqlite_commits import GroupCommits, best_effort, busy
from interrupt_widget.ledger.sqlite_connections import KeptConnections
from interrupt_widget.ledger.table_ledger import TableLedger

__all__ = ["CallInDoubt", "SQLiteLedger"]

_T = TypeVar("_T")

TABLE: Final = "approved_calls"
"""The table the ledger keeps its record in."""

_SCHEMA: Final = f"""
CREATE TABLE IF NOT EXISTS {TABLE} (
    thread_id   TEXT NOT NULL,
    call_id     TEXT NOT NULL,
    state       TEXT NOT NULL CHECK (state IN ('claimed', 'done')),
    output      TEXT,
    owner       TEXT NOT NULL,
    owner_host  TEXT NOT NULL,
    owner_pid   INTEGER NOT NULL,
    claimed_at  REAL NOT NULL,
    finished_at REAL,
    answer      TEXT,
    PRIMARY KEY (thread_id, call_id)
)
"""


class SQLiteLedger(TableLedger[sqlite3.Connection]):
    """A `CallLedger` in one SQLite file, shared by every process that opens it.

    ::

        ledger = SQLiteLedger("/var/lib/agent/calls.db")
        app = asgi_app(agent, ledger=ledger)   # in each replica, same file

    See the module docs for what happens when a replica dies mid-call.
    """

    _table = TABLE
    _audit_table = sqlite_audit.AUDIT_TABLE
    _mark = "?"
    _note_writes = sqlite_audit

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        retention: timedelta = DEFAULT_RETENTION,
        busy_timeout: float = 30.0,
        **wait: Unpack[WaitOptions],
    ) -> None:
        super().__init__(retention=retention, **wait)
        if not busy_timeout > 0:
            raise ValueError("busy_timeout must be a positive number of seconds")
        self.path = Path(path)
        """The database file (created with its table if missing)."""
        self.busy_timeout = busy_timeout
        """How long a write waits for the file while other processes hold it locked, before
        the ledger counts as unavailable."""
        self._host = socket.gethostname()
        self._owner = f"{self._host}:{os.getpid()}:{uuid.uuid4().hex[:12]}"
        self._notes = sqlite_audit.NoteConnection(self.path)
        self._connections = KeptConnections(self.path, busy_timeout)
        self._on_loop = _OnLoop()
        self._slow_on_loop = 0  # slow writes in a row on the event loop
        self._commits = GroupCommits(
            self._attempt,
            lambda exc: LedgerUnavailable(_reason(exc)),
            may_wait=lambda: not self._on_loop.now,
        )
        try:
            self._attempt(_create)
            self.prune(retention)
        except LedgerUnavailable as exc:
            raise ValueError(f"cannot use {self.path} as a call ledger: {exc}") from exc

    # -- operator tools ----------------------------------------------------------------------

    def record(self, thread_id: str, call_id: str, output: str) -> None:
        """Set the output the next resume of this call gets, without running it."""
        self._commits.write(lambda db: self._write_record(db, (thread_id, call_id), output))

    def in_doubt(self) -> list[Key]:
        """Claims with no result whose owner on this host has exited, or that this ledger
        left when it could not write their outcome."""
        rows = self._attempt(
            lambda db: db.execute(
                f"SELECT thread_id, call_id, owner_host, owner_pid FROM {TABLE} "
                "WHERE state = 'claimed'"
            ).fetchall()
        )
        return [
            (thread_id, call_id)
            for thread_id, call_id, host, pid in rows
            if _ended(host, pid, self._host) or (thread_id, call_id) in self._abandoned
        ]

    def prune(self, older_than: timedelta | float) -> int:
        """Forget calls that finished more than `older_than` ago; how many were forgotten.

        Claims without a result (running, or in doubt) are kept.
        """
        cutoff = time.time() - seconds(older_than)

        def prune(db: sqlite3.Connection) -> int:
            gone: int = db.execute(
                f"DELETE FROM {TABLE} WHERE state = 'done' AND finished_at < ?", (cutoff,)
            ).rowcount
            sqlite_audit.prune_notes(db, TABLE, cutoff)
            return gone

        return self._attempt(prune)

    def __repr__(self) -> str:
        return f"SQLiteLedger({str(self.path)!r})"

    @property
    def place(self) -> str:
        """The file, its path resolved, on this host: another host's file of that name is
        another ledger."""
        return f"the SQLite file {os.path.realpath(self.path)} on {self._host}"

    # -- hooks -------------------------------------------------------------------------------

    @contextlib.contextmanager
    def _connect(self, timeout: float | None = None) -> Iterator[sqlite3.Connection]:
        # Autocommit: each statement commits at once, the claim above all.
        wait = self.busy_timeout if timeout is None else timeout
        db = sqlite3.connect(self.path, timeout=wait, isolation_level=None)
        try:
            yield db
        finally:
            db.close()

    def _without_waiting(self, hook: Callable[..., _T], *args: Any) -> _T:
        """`hook(*args)` on the event loop while the file is free: a claim's commit and
        sync take 0.2-0.3 ms on a local disk, where a worker thread's round trip took
        40-60 ms in a busy loop (the thread waits for the interpreter's lock after each
        statement). A write that would wait (another process holds the file, this
        process's threads are committing) raises `WouldWait` having written nothing, and
        goes to a worker thread; so does every note (their connection is shared by
        threads), and every write once three in a row on the loop were slow: blocked
        (waiting, not computing) for longer than `_SLOW_ON_LOOP`, as on a slow disk. The
        time it computes does not count: a collection of the garbage that falls in a
        write is not the disk's.

        Each hook makes one write at most, and raises `WouldWait` only before it: run again
        on a thread, it must not find its own write there."""
        if self._slow_on_loop >= _SLOW_WRITES:
            raise WouldWait
        started, computed = time.perf_counter(), time.thread_time()
        self._on_loop.now = True
        try:
            done = hook(*args)
        finally:  # a write that would wait wrote nothing: it is neither slow nor fast
            self._on_loop.now = False
        blocked = time.perf_counter() - started - (time.thread_time() - computed)
        self._slow_on_loop = self._slow_on_loop + 1 if blocked > _SLOW_ON_LOOP else 0
        return done

    def _attempt(self, work: Callable[[sqlite3.Connection], _T]) -> _T:
        """`work(db)` on this thread's kept connection (`sqlite_connections`), tried again on
        a fresh one while the file is busy (up to `busy_timeout`); any other failure, or busy
        for longer, is `LedgerUnavailable`. On the event loop (`_without_waiting`), one try
        with the shortest wait: busy is `WouldWait`.

        Every write here commits whole or not at all (a statement alone, or a group's
        transaction, `sqlite_commits`), so trying again is safe.
        """
        if self._on_loop.now:
            try:
                with self._connections.using(0.001) as db:
                    return work(db)
            except sqlite3.Error as exc:
                if busy(exc):
                    raise WouldWait from exc
                raise LedgerUnavailable(_reason(exc)) from exc
        deadline = time.monotonic() + self.busy_timeout
        delay = 0.005
        while True:
            try:
                with self._connections.using(max(deadline - time.monotonic(), 0.001)) as db:
                    return work(db)
            except sqlite3.Error as exc:
                # SQLite does not wait on every lock (a stale WAL snapshot, a recovery):
                # those come back at once as busy, so wait here as its busy handler would.
                if busy(exc) and time.monotonic() + delay < deadline:
                    time.sleep(delay)
                    delay = min(delay * 2, 0.1)
                    continue
                raise LedgerUnavailable(_reason(exc)) from exc

    def _ping(self) -> None:
        if self._on_loop.now:
            raise WouldWait  # a check may wait up to a second: not on the loop
        try:
            with self._connect(1.0) as db:
                db.execute(f"SELECT 1 FROM {TABLE} LIMIT 1").fetchall()
        except sqlite3.Error as exc:
            raise LedgerUnavailable(_reason(exc)) from exc

    def _claim(self, key: Key, answer: Any) -> Claim:
        return self._commits.write(lambda db: self._claim_in(db, key, answer))

    def _claim_in(self, db: sqlite3.Connection, key: Key, answer: Any) -> Claim:
        cursor = db.execute(
            f"INSERT OR IGNORE INTO {TABLE} (thread_id, call_id, state, owner, "
            "owner_host, owner_pid, claimed_at, answer) "
            "VALUES (?, ?, 'claimed', ?, ?, ?, ?, ?)",
            (*key, self._owner, self._host, os.getpid(), time.time(), _json(answer)),
        )
        if cursor.rowcount == 1:
            return CLAIMED_HERE
        return self._read(db, key) or HeldByLiveRun()  # released meanwhile: look again

    def _claim_noting(self, key: Key, answer: Any, note: ClaimNote | None) -> Claim:
        """The claim and, when it is `CLAIMED_HERE`, its answer's note in one synced commit: the
        claim is as durable as alone, and the note rides on its commit."""
        answered = None if note is None else note.note
        if not isinstance(answered, Answered):
            return self._claim(key, answer)

        def claim(db: sqlite3.Connection) -> tuple[Claim, sqlite3.Error | None]:
            found = self._claim_in(db, key, answer)
            if found is not CLAIMED_HERE:
                return found, None
            return found, best_effort(db, sqlite_audit.note_answered, key, answered)

        found, trouble = self._commits.write(claim)
        if found is CLAIMED_HERE and note is not None:
            note.written = True
        if trouble is not None:
            self._note_trouble(trouble)
        return found

    def _record_asked(self, key: Key, output: str, asked: list[Asked]) -> None:
        """The record and the asked notes in one synced commit (see `record_asked`)."""

        def write(db: sqlite3.Connection) -> sqlite3.Error | None:
            self._write_record(db, key, output)
            return best_effort(db, sqlite_audit.note_asked, key[0], asked) if asked else None

        trouble = self._commits.write(write)
        if trouble is not None:
            self._note_trouble(trouble)

    def _write_record(self, db: sqlite3.Connection, key: Key, output: str) -> None:
        now = time.time()
        db.execute(
            f"INSERT INTO {TABLE} (thread_id, call_id, state, output, owner, "
            "owner_host, owner_pid, claimed_at, finished_at) "
            "VALUES (?, ?, 'done', ?, ?, ?, ?, ?, ?) "
            "ON CONFLICT (thread_id, call_id) DO UPDATE SET state = 'done', "
            "output = excluded.output, finished_at = excluded.finished_at",
            (*key, output, self._owner, self._host, os.getpid(), now, now),
        )

    def _look(self, key: Key) -> KeyState:
        return self._attempt(lambda db: self._read(db, key))

    def _look_all(self, keys: list[Key]) -> list[KeyState]:
        return self._attempt(lambda db: [self._read(db, key) for key in keys])

    def _read(self, db: sqlite3.Connection, key: Key) -> KeyState:
        row = db.execute(_READ, key).fetchone()
        if row is None:
            return None
        state, host, pid = row[0], row[4], row[5]
        if state == "done":
            return _recorded(row, self._answered_by(db, key))
        if _ended(host, pid, self._host):
            # Read again: the owner may have stored its result just before it exited.
            again = db.execute(_READ, key).fetchone()
            if again is None:
                return None
            if again[0] == "done":
                return _recorded(again, self._answered_by(db, key))
            return InDoubt(f"{host}:{pid}")
        return HeldByLiveRun()

    def _insert_first(self, key: Key, output: str, answer: Any = None) -> bool:
        # Unsynced when asked (a batch row's outcome): a power cut before the next synced
        # commit runs the row again, its calls replayed from their records or in doubt.
        return self._commits.write(
            lambda db: self._insert_first_in(db, key, output, answer), synced=record_synced(key)
        )

    def _insert_first_in(self, db: sqlite3.Connection, key: Key, output: str, answer: Any) -> bool:
        now = time.time()
        cursor = db.execute(
            f"INSERT OR IGNORE INTO {TABLE} (thread_id, call_id, state, output, "
            "owner, owner_host, owner_pid, claimed_at, finished_at, answer) "
            "VALUES (?, ?, 'done', ?, ?, ?, ?, ?, ?, ?)",
            (*key, output, self._owner, self._host, os.getpid(), now, now, _json(answer)),
        )
        return cursor.rowcount == 1

    def _insert_first_noting(
        self, key: Key, output: str, answer: Any, note: ClaimNote | None
    ) -> bool:
        """The record and, when it is this one, its answer's note in one synced commit (see
        `_claim_noting`)."""
        answered = None if note is None else note.note
        if not isinstance(answered, Answered):
            return self._insert_first(key, output, answer)

        def insert(db: sqlite3.Connection) -> tuple[bool, sqlite3.Error | None]:
            if not self._insert_first_in(db, key, output, answer):
                return False, None
            return True, best_effort(db, sqlite_audit.note_answered, key, answered)

        inserted, trouble = self._commits.write(insert)
        if inserted and note is not None:
            note.written = True
        if trouble is not None:
            self._note_trouble(trouble)
        return inserted

    def _store(self, key: Key, output: str) -> None:
        # Not synced on its own: a power cut before the next synced commit leaves the call
        # claimed, in doubt, never run twice (see the module docs).
        self._commits.write(
            lambda db: db.execute(
                f"UPDATE {TABLE} SET state = 'done', output = ?, finished_at = ? "
                "WHERE thread_id = ? AND call_id = ? AND owner = ?",
                (output, time.time(), *key, self._owner),
            ),
            synced=False,
        )

    def _abandon(self, key: Key) -> None:
        # Owner process 0 is never alive: every process on this host now reads it in doubt.
        self._commits.write(
            lambda db: db.execute(
                f"UPDATE {TABLE} SET owner_pid = 0 WHERE thread_id = ? AND call_id = ? "
                "AND owner = ? AND state = 'claimed'",
                (*key, self._owner),
            )
        )

    def _unclaim(self, key: Key) -> None:
        self._commits.write(
            lambda db: db.execute(
                f"DELETE FROM {TABLE} WHERE thread_id = ? AND call_id = ? AND owner = ? "
                "AND state = 'claimed'",
                (*key, self._owner),
            )
        )

    # -- audit notes (see ledger/noting_ledger.py) ---------------------------------------------

    def _write_note(self, write: Callable[..., None], *args: Any) -> None:
        if self._on_loop.now:
            raise WouldWait  # the note connection's lock may be held by a thread
        self._notes.run(write, *args)

    def _read_aside(self, db: sqlite3.Connection, sql: str, params: tuple[Any, ...]) -> Any:
        try:
            return db.execute(sql, params).fetchone()
        except sqlite3.Error:
            return None

    def _audit_read(self) -> tuple[dict[Key, Note], dict[Key, Claimed], set[Key]]:
        with self._connect() as db:
            notes, claims = sqlite_audit.read(db, TABLE)
        return notes, claims, set(self.in_doubt())


class _OnLoop(threading.local):
    """Whether this thread is running a hook on the event loop (`_without_waiting`)."""

    now = False


_SLOW_ON_LOOP: Final = 0.005
"""A write on the event loop blocked for longer than this (seconds) counts as slow."""

_SLOW_WRITES: Final = 3
"""After this many slow writes in a row on the event loop, a ledger writes on worker threads
only."""


_READ: Final = (
    f"SELECT state, output, answer, finished_at, owner_host, owner_pid FROM {TABLE} "
    "WHERE thread_id = ? AND call_id = ?"
)
"""A call's record."""


def _recorded(row: tuple[Any, ...], by: str | None) -> Recorded:
    """The `Recorded` of a done row read by `_READ`, answered `by` (as the notes say)."""
    _state, output, answer, finished_at, *_owner = row
    answer = None if answer is None else json.loads(answer)
    return Recorded(output or "", answer, finished_at, by)


def _create(db: sqlite3.Connection) -> None:
    db.execute("PRAGMA journal_mode=WAL")  # readers never block the writer, nor it them
    db.execute(_SCHEMA)
    columns = {row[1] for row in db.execute(f"PRAGMA table_info({TABLE})")}
    if "answer" not in columns:  # a file made before answers were kept
        db.execute(f"ALTER TABLE {TABLE} ADD COLUMN answer TEXT")
    db.execute(sqlite_audit.AUDIT_SCHEMA)  # a file made before notes were kept


def _reason(error: sqlite3.Error) -> str:
    """What failed, for a client to read: SQLite's own words, which name no path."""
    return f"SQLite: {error}"


def _json(answer: Any) -> str | None:
    return None if answer is None else json.dumps(answer, sort_keys=True, default=str)


def _ended(host: str, pid: int, here: str) -> bool:
    """Whether no run holds a claim owned by `pid` on `host`: one its owner gave up
    (`_abandon` sets pid 0), or one whose owner on this host has exited."""
    return pid <= 0 or (host == here and not _alive(pid))


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process: alive
    return True
