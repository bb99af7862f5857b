"""The SQLite ledger's group commits: writes that wait together commit together, each
durable before its caller goes on, a failing one undone alone."""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from interrupt_widget.errors import LedgerUnavailable
from interrupt_widget.ledger.noting_ledger import Answered, Asked
from interrupt_widget.ledger.once_only import ClaimNote, noting_claim
from interrupt_widget.ledger.sqlite import SQLiteLedger
from interrupt_widget.ledger.sqlite_commits import GroupCommits


class Attempts:
    """A ledger's `_attempt` on a fresh connection, counting the transactions it runs."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.count = 0
        with sqlite3.connect(path) as db:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("CREATE TABLE t (k TEXT PRIMARY KEY)")

    def __call__(self, work: Callable[[sqlite3.Connection], Any]) -> Any:
        self.count += 1
        db = sqlite3.connect(self.path, isolation_level=None)
        try:
            return work(db)
        finally:
            db.close()

    def keys(self) -> list[str]:
        with sqlite3.connect(self.path) as db:
            return sorted(k for (k,) in db.execute("SELECT k FROM t"))


def insert(key: str) -> Callable[[sqlite3.Connection], str]:
    def work(db: sqlite3.Connection) -> str:
        db.execute("INSERT INTO t VALUES (?)", (key,))
        return f"wrote {key}"

    return work


def _writes_while_the_first_commits(
    commits: GroupCommits, first: Callable[[sqlite3.Connection], Any], keys: list[str]
) -> dict[str, Any]:
    """`first` written by one thread, `keys` by others once it is committing."""
    inside, release = threading.Event(), threading.Event()
    got: dict[str, Any] = {}

    def held(db: sqlite3.Connection) -> Any:
        inside.set()
        release.wait(5)
        return first(db)

    def write(key: str, work: Callable[[sqlite3.Connection], Any]) -> None:
        try:
            got[key] = commits.write(work)
        except Exception as error:
            got[key] = error

    leader = threading.Thread(target=write, args=("first", held))
    leader.start()
    assert inside.wait(5)
    others = [threading.Thread(target=write, args=(k, insert(k))) for k in keys]
    for thread in others:
        thread.start()
    deadline = time.monotonic() + 5
    while len(commits._waiting) < len(keys):  # every other write waits for the next commit
        assert time.monotonic() < deadline, f"{len(commits._waiting)} of {len(keys)} wait"
        threading.Event().wait(0.001)
    release.set()
    for thread in [leader, *others]:
        thread.join(5)
    return got


def test_writes_that_wait_together_commit_in_one_transaction(tmp_path: Path) -> None:
    attempts = Attempts(tmp_path / "t.db")
    commits = GroupCommits(attempts, lambda e: LedgerUnavailable(str(e)))
    keys = [f"k{n}" for n in range(6)]
    got = _writes_while_the_first_commits(commits, insert("first"), keys)
    assert got == {"first": "wrote first", **{k: f"wrote {k}" for k in keys}}
    assert attempts.count == 2  # the first alone, then the six that waited, together
    assert attempts.keys() == sorted(["first", *keys])


def test_a_write_that_fails_is_undone_alone(tmp_path: Path) -> None:
    attempts = Attempts(tmp_path / "t.db")
    commits = GroupCommits(attempts, lambda e: LedgerUnavailable(f"SQLite: {e}"))
    commits.write(insert("taken"))
    got = _writes_while_the_first_commits(commits, insert("first"), ["a", "taken", "b"])
    assert isinstance(got["taken"], LedgerUnavailable)
    assert (got["a"], got["b"]) == ("wrote a", "wrote b")
    assert attempts.keys() == ["a", "b", "first", "taken"]


def test_a_write_alone_that_fails_half_way_is_undone_whole(tmp_path: Path) -> None:
    attempts = Attempts(tmp_path / "t.db")
    commits = GroupCommits(attempts, lambda e: LedgerUnavailable(f"SQLite: {e}"))

    def half(key: str, then: BaseException) -> Callable[[sqlite3.Connection], str]:
        def work(db: sqlite3.Connection) -> str:
            db.execute("INSERT INTO t VALUES (?)", (key,))
            raise then

        return work

    commits.write(insert("taken"))
    with pytest.raises(LedgerUnavailable, match=r"SQLite: .*UNIQUE"):
        commits.write(lambda db: [insert("half")(db), insert("taken")(db)])
    with pytest.raises(KeyError):
        commits.write(half("half", KeyError("a bug in the write")))
    assert attempts.keys() == ["taken"]  # neither write left its first insert
    assert commits.write(insert("after")) == "wrote after"
    assert attempts.keys() == ["after", "taken"]


def test_a_transaction_that_fails_fails_every_write_of_its_group(tmp_path: Path) -> None:
    attempts = Attempts(tmp_path / "t.db")

    def attempt(work: Callable[[sqlite3.Connection], Any]) -> Any:
        if attempts.count == 1:  # the second transaction: the file stays locked too long
            attempts.count += 1
            raise LedgerUnavailable("SQLite: database is locked")
        return attempts(work)

    commits = GroupCommits(attempt, lambda e: LedgerUnavailable(str(e)))
    got = _writes_while_the_first_commits(commits, insert("first"), ["a", "b"])
    assert got["first"] == "wrote first"
    assert all(isinstance(got[k], LedgerUnavailable) for k in ["a", "b"])
    assert attempts.keys() == ["first"]
    assert commits.write(insert("after")) == "wrote after"  # the next write leads again


async def test_a_claim_stands_when_the_note_it_carries_cannot_be_written(tmp_path: Path) -> None:
    ledger = SQLiteLedger(tmp_path / "calls.db")
    errors: list[Exception] = []
    ledger.note_error_listeners.append(errors.append)
    with sqlite3.connect(tmp_path / "calls.db") as db:
        db.execute("DROP TABLE call_audit")
    note = Answered("send", "sha", "approved", {"approved": True}, "ann", datetime.now(UTC), "sha")
    runs: list[str] = []

    async def invoke() -> str:
        runs.append("ran")
        return "sent"

    for _ in range(2):
        with noting_claim(ClaimNote(("t", "c"), note)):
            assert await ledger.run_once(("t", "c"), invoke) == "sent"
    assert runs == ["ran"]
    assert len(errors) == 1
    assert "call_audit" in str(errors[0])
    await ledger.record_asked(("t", "sdk-state:x"), "{}", [Asked("c", "send", "sha", note.at)])
    assert len(errors) == 2
    recorded = await ledger.recorded(("t", "sdk-state:x"))
    assert recorded is not None
    assert recorded.output == "{}"


async def test_a_claim_and_its_note_are_one_commit(tmp_path: Path) -> None:
    ledger = SQLiteLedger(tmp_path / "calls.db")
    at = datetime.now(UTC)
    note = Answered("send", "sha", "approved", {"approved": True}, "ann", at, "sha")

    async def invoke() -> str:
        # The claim is on the disk, its note with it, before the tool runs.
        with sqlite3.connect(tmp_path / "calls.db") as db:
            claims = db.execute("SELECT state FROM approved_calls").fetchall()
            notes = db.execute("SELECT answered_by FROM call_audit").fetchall()
        assert (claims, notes) == ([("claimed",)], [("ann",)])
        return "sent"

    written = ClaimNote(("t", "c"), note)
    with noting_claim(written):
        assert await ledger.run_once(("t", "c"), invoke) == "sent"
    assert written.written
    [entry] = ledger.audit().entries
    assert (entry.by, entry.decision) == ("ann", "approved")


@pytest.mark.parametrize("asked", [[], ["c1", "c2"]])
async def test_a_paused_state_and_its_asked_notes_are_written_together(
    tmp_path: Path, asked: list[str]
) -> None:
    ledger = SQLiteLedger(tmp_path / "calls.db")
    at = datetime.now(UTC)
    notes = [Asked(c, "send", "sha", at) for c in asked]
    await ledger.record_asked(("t", "sdk-state:x"), '{"s": 1}', notes)
    recorded = await ledger.recorded(("t", "sdk-state:x"))
    assert recorded is not None
    assert recorded.output == '{"s": 1}'
    with sqlite3.connect(tmp_path / "calls.db") as db:
        noted = sorted(c for (c,) in db.execute("SELECT call_id FROM call_audit"))
    assert noted == asked
