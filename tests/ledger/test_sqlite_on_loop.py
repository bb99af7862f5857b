"""The SQLite ledger writes on the event loop while its file is free, and on a worker thread
when a write would wait: never blocking the loop for a lock, never writing half."""

from __future__ import annotations

import asyncio
import sqlite3
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from interrupt_widget.ledger import sqlite as sqlite_ledger
from interrupt_widget.ledger import sqlite_connections
from interrupt_widget.ledger.once_only import WouldWait
from interrupt_widget.ledger.sqlite import SQLiteLedger
from interrupt_widget.ledger.sqlite_commits import GroupCommits


class _Clock:
    """The `time` module as the ledger reads it, with a wall clock and a thread's CPU clock
    that only the test moves."""

    def __init__(self) -> None:
        self.wall = 0.0
        self.cpu = 0.0

    def perf_counter(self) -> float:
        return self.wall

    def thread_time(self) -> float:
        return self.cpu

    def __getattr__(self, name: str) -> Any:
        return getattr(time, name)


class Threads:
    """The threads a ledger's writes ran on, by the SQL they ran."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, ledger: SQLiteLedger) -> None:
        self.seen: list[int] = []
        attempt = ledger._attempt

        def traced(work: Callable[[sqlite3.Connection], Any]) -> Any:
            self.seen.append(threading.get_ident())
            return attempt(work)

        monkeypatch.setattr(ledger, "_attempt", traced)
        ledger._commits._attempt = traced


async def test_a_free_file_is_written_on_the_loop(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ledger = SQLiteLedger(tmp_path / "calls.db")
    threads = Threads(monkeypatch, ledger)
    runs: list[str] = []

    async def send() -> str:
        runs.append("sent")
        return "sent"

    assert await ledger.run_once(("t", "c"), send) == "sent"
    assert await ledger.keep_first(("t", "row"), "done") == "done"
    assert await ledger.run_once(("t", "c"), send) == "sent"  # replayed
    assert runs == ["sent"]
    loop_thread = threading.get_ident()
    assert threads.seen
    assert set(threads.seen) == {loop_thread}
    with sqlite3.connect(tmp_path / "calls.db") as db:  # another process's view: all there
        rows = db.execute("SELECT call_id, state, output FROM approved_calls ORDER BY 1").fetchall()
    assert rows == [("c", "done", "sent"), ("row", "done", "done")]


async def test_a_locked_file_is_waited_for_on_a_thread_and_the_loop_runs_on(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ledger = SQLiteLedger(tmp_path / "calls.db")
    clock = _Clock()  # the ledger's clocks: only a busy try moves them, not the machine's load
    monkeypatch.setattr(sqlite_ledger, "time", clock)
    attempt = ledger._attempt

    def busy_for_long(work: Callable[[sqlite3.Connection], Any]) -> Any:
        try:
            return attempt(work)
        except WouldWait:
            clock.wall += sqlite_ledger._SLOW_ON_LOOP * 2  # the try waited, blocked
            raise

    monkeypatch.setattr(ledger, "_attempt", busy_for_long)
    ledger._commits._attempt = busy_for_long
    threads = Threads(monkeypatch, ledger)
    other = sqlite3.connect(tmp_path / "calls.db", isolation_level=None)
    other.execute("BEGIN IMMEDIATE")  # another process holds the write lock
    runs: list[str] = []

    async def send() -> str:
        runs.append("sent")
        return "sent"

    claim = asyncio.ensure_future(ledger.run_once(("t", "c"), send))
    ticks = 0
    started = time.monotonic()
    while time.monotonic() - started < 0.3:  # the loop is not held while the file is locked
        await asyncio.sleep(0.01)
        ticks += 1
    assert ticks >= 10
    assert not claim.done()
    assert runs == []
    assert ledger._slow_on_loop == 0  # the try that would wait wrote nothing: not a slow one
    other.execute("COMMIT")
    other.close()
    assert await asyncio.wait_for(claim, 10) == "sent"
    assert runs == ["sent"]
    assert any(t != threading.get_ident() for t in threads.seen)  # the wait was a thread's
    assert ledger._slow_on_loop == 0


async def test_after_three_slow_writes_in_a_row_on_the_loop_the_ledger_writes_on_threads(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    ledger = SQLiteLedger(tmp_path / "calls.db")
    threads = Threads(monkeypatch, ledger)
    write = ledger._commits.write
    disk = ["slow", "slow", "fast", "busy", "slow", "slow", "slow", "slow"]
    clock = _Clock()  # the ledger's clocks, moved by the writes alone (not the machine's load)
    monkeypatch.setattr(sqlite_ledger, "time", clock)

    def disk_of(work: Callable[[sqlite3.Connection], Any], *, synced: bool = True) -> Any:
        if threading.get_ident() == loop_thread:
            how = disk.pop(0)
            if how == "slow":  # a sync that blocks 10 ms
                clock.wall += sqlite_ledger._SLOW_ON_LOOP * 2
            elif how == "busy":  # 10 ms computing (a collection of garbage): not the disk
                clock.wall += sqlite_ledger._SLOW_ON_LOOP * 2
                clock.cpu += sqlite_ledger._SLOW_ON_LOOP * 2
        return write(work, synced=synced)

    loop_thread = threading.get_ident()
    monkeypatch.setattr(ledger._commits, "write", disk_of)

    async def send() -> str:
        return "sent"

    for n in range(5):  # a claim and a result each: ten writes
        assert await ledger.run_once(("t", f"c{n}"), send) == "sent"
    on_loop = [t == loop_thread for t in threads.seen]
    assert on_loop == [True] * 7 + [False] * 3  # the fast and the busy one broke the run
    assert ledger._slow_on_loop == 3
    assert disk == ["slow"]  # the eighth write never came to the loop


def test_a_write_on_the_loop_never_waits_for_a_group_under_way(tmp_path: Path) -> None:
    path = tmp_path / "t.db"
    with sqlite3.connect(path) as db:
        db.execute("CREATE TABLE t (k TEXT PRIMARY KEY)")
    on_loop = threading.local()
    inside, release = threading.Event(), threading.Event()

    def attempt(work: Callable[[sqlite3.Connection], Any]) -> Any:
        db = sqlite3.connect(path, isolation_level=None)
        try:
            return work(db)
        finally:
            db.close()

    commits = GroupCommits(attempt, LookupError, may_wait=lambda: not getattr(on_loop, "now", 0))

    def held(db: sqlite3.Connection) -> None:
        inside.set()
        release.wait(5)
        db.execute("INSERT INTO t VALUES ('thread')")

    leader = threading.Thread(target=commits.write, args=(held,))
    leader.start()
    assert inside.wait(5)
    on_loop.now = True
    with pytest.raises(WouldWait):
        commits.write(lambda db: db.execute("INSERT INTO t VALUES ('loop')"))
    release.set()
    leader.join(5)
    assert commits.write(lambda db: db.execute("INSERT INTO t VALUES ('loop')")) is not None
    with sqlite3.connect(path) as db:
        assert sorted(k for (k,) in db.execute("SELECT k FROM t")) == ["loop", "thread"]


@dataclass
class Traced:
    """A SQLite ledger on a new file, and every statement its connections ran since it opened."""

    ledger: SQLiteLedger
    said: list[str]
    path: Path


@pytest.fixture
def traced(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Traced:
    said: list[str] = []
    opened = sqlite_connections._Kept.open.__func__  # type: ignore[attr-defined]

    def tracing(cls: type[Any], path: Path, busy_timeout: float) -> Any:
        kept = opened(cls, path, busy_timeout)
        kept.db.set_trace_callback(said.append)
        return kept

    monkeypatch.setattr(sqlite_connections._Kept, "open", classmethod(tracing))
    ledger = SQLiteLedger(tmp_path / "calls.db")
    said.clear()
    return Traced(ledger, said, tmp_path / "calls.db")


def unsynced_write(statements: list[str]) -> str:
    """The one statement of the write `statements` commit without a sync of its own: a crash
    keeps it, the next synced commit syncs it, and the claims after it are synced again. No
    savepoint: the write is alone in its transaction."""
    assert statements[0] == "PRAGMA synchronous=NORMAL"
    assert statements[-1] == "PRAGMA synchronous=FULL"
    assert [s.split()[0] for s in statements[1:-1:2]] == ["BEGIN", "COMMIT"]
    assert len(statements) == 5
    return statements[2].split()[0]


async def test_a_claim_is_synced_and_a_result_is_committed_without_its_own_sync(
    traced: Traced,
) -> None:
    said, ledger = traced.said, traced.ledger

    async def send() -> str:
        assert said[-1] == "COMMIT"  # the claim, committed and synced before the tool runs
        assert "PRAGMA synchronous=NORMAL" not in said
        said.append("-- the tool runs")
        return "sent"

    assert await ledger.run_once(("t", "c"), send) == "sent"
    ran = said.index("-- the tool runs")
    assert unsynced_write(said[ran + 1 :]) == "UPDATE"  # alone in its transaction
    kept = sqlite3.connect(traced.path)
    assert kept.execute("SELECT state, output FROM approved_calls").fetchall() == [("done", "sent")]


async def test_a_row_outcome_kept_unsynced_is_committed_without_its_own_sync_and_stands_first(
    traced: Traced,
) -> None:
    said, ledger = traced.said, traced.ledger
    assert await ledger.keep_first(("t", "row"), "done", synced=False) == "done"
    assert unsynced_write(said[said.index("PRAGMA synchronous=NORMAL") :]) == "INSERT"
    said.clear()
    assert await ledger.keep_first(("t", "other"), "done") == "done"
    assert "PRAGMA synchronous=NORMAL" not in said  # synced, as by default
    # The record that stood first stands, synced or not; another process reads it.
    assert await ledger.keep_first(("t", "row"), "again", synced=False) == "done"
    other = SQLiteLedger(traced.path)
    found = await other.recorded(("t", "row"))
    assert found is not None
    assert found.output == "done"


def test_a_group_with_one_write_that_needs_a_sync_is_synced(tmp_path: Path) -> None:
    path = tmp_path / "t.db"
    with sqlite3.connect(path) as db:
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("CREATE TABLE t (k TEXT PRIMARY KEY)")
    said: list[str] = []
    inside, release = threading.Event(), threading.Event()

    def attempt(work: Callable[[sqlite3.Connection], Any]) -> Any:
        db = sqlite3.connect(path, isolation_level=None)
        db.set_trace_callback(said.append)
        try:
            return work(db)
        finally:
            db.close()

    commits = GroupCommits(attempt, LookupError)

    def held(db: sqlite3.Connection) -> None:
        inside.set()
        release.wait(5)

    leader = threading.Thread(target=commits.write, args=(held,), kwargs={"synced": False})
    leader.start()
    assert inside.wait(5)

    def insert(key: str) -> Callable[[sqlite3.Connection], Any]:
        return lambda db: db.execute("INSERT INTO t VALUES (?)", (key,))

    results = [
        threading.Thread(target=commits.write, args=(insert("result"),), kwargs={"synced": False}),
        threading.Thread(target=commits.write, args=(insert("claim"),)),
    ]
    for thread in results:
        thread.start()
    deadline = time.monotonic() + 5
    while len(commits._waiting) < 2:  # both wait for the next commit
        assert time.monotonic() < deadline, f"{len(commits._waiting)} of 2 wait"
        time.sleep(0.001)
    release.set()
    for thread in [leader, *results]:
        thread.join(5)
    begins = [n for n, s in enumerate(said) if s == "BEGIN IMMEDIATE"]
    assert len(begins) == 2  # the first alone (unsynced), then the two that waited, together
    assert said[begins[0] - 1] == "PRAGMA synchronous=NORMAL"
    assert said[begins[1] - 1] != "PRAGMA synchronous=NORMAL"  # a claim in it: synced
    with sqlite3.connect(path) as db:
        assert sorted(k for (k,) in db.execute("SELECT k FROM t")) == ["claim", "result"]
