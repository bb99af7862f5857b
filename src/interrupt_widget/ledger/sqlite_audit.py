"""The SQLite ledger's audit notes: the `call_audit` table beside the calls' table.

Created when a ledger opens its file, so a file made before notes were kept
gains the table on its next open (its earlier calls appear in the audit from
their claims alone).

The notes that go with a write (a paused run's asked calls with its state,
an approved call's answer with its claim) are written in that write's own
synced commit, each in a savepoint, so a note that fails never costs the
write. The others go through one connection the ledger keeps open
(`NoteConnection`), committed with `synchronous=NORMAL`: in WAL mode a
process crash keeps them, and the next synced commit writes them to the
disk with it. Kept open, it also spares every other connection's close the
checkpoint SQLite runs when the last connection to a WAL file closes (a
note on a connection of its own paid that checkpoint's syncs: as much as a
claim).
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import Any, Final

from interrupt_widget.ledger import audit_rows
from interrupt_widget.ledger.audit import Claimed, Note, utc_from_epoch
from interrupt_widget.ledger.noting_ledger import Answered, Asked
from interrupt_widget.ledger.once_only import Key

AUDIT_TABLE: Final = "call_audit"
"""The table the audit notes are kept in."""

AUDIT_SCHEMA: Final = f"""
CREATE TABLE IF NOT EXISTS {AUDIT_TABLE} (
    thread_id         TEXT NOT NULL,
    call_id           TEXT NOT NULL,
    tool              TEXT,
    arguments_sha256  TEXT,
    asked_at          REAL,
    decision          TEXT,
    answer            TEXT,
    answered_by       TEXT,
    answered_at       REAL,
    executed_sha256   TEXT,
    failed_at         REAL,
    error             TEXT,
    PRIMARY KEY (thread_id, call_id)
)
"""


_ANSWER_UPSERT: Final = audit_rows.answer_upsert(AUDIT_TABLE, "?")


class NoteConnection:
    """The ledger's one connection for notes, opened on first use, shared by its threads."""

    def __init__(self, path: Path) -> None:
        self._path = path
        self._lock = threading.Lock()
        self._db: sqlite3.Connection | None = None
        self._finalizer: weakref.finalize[Any, NoteConnection] | None = None

    def run(self, write: Callable[..., None], *args: Any) -> None:
        """`write(db, *args)` on the note connection (autocommit: each statement commits)."""
        with self._lock:
            if self._db is None:
                db = sqlite3.connect(
                    self._path, timeout=30.0, isolation_level=None, check_same_thread=False
                )
                db.execute("PRAGMA synchronous=NORMAL")
                self._db = db
                self._finalizer = weakref.finalize(self, db.close)
            try:
                write(self._db, *args)
            except sqlite3.Error:
                self.close()  # a broken connection is opened afresh next time
                raise

    def close(self) -> None:
        if self._finalizer is not None:
            self._finalizer()
        self._db = self._finalizer = None


def note_asked(db: sqlite3.Connection, thread_id: str, asked: list[Asked]) -> None:
    db.executemany(
        f"INSERT INTO {AUDIT_TABLE} (thread_id, call_id, tool, arguments_sha256, asked_at) "
        "VALUES (?, ?, ?, ?, ?) ON CONFLICT (thread_id, call_id) DO NOTHING",
        [(thread_id, a.call_id, a.tool, a.arguments_sha256, a.at.timestamp()) for a in asked],
    )


def note_answered(db: sqlite3.Connection, key: Key, answered: Answered) -> None:
    at = answered.at.timestamp()
    db.execute(
        _ANSWER_UPSERT,
        audit_rows.answer_values(key, answered, answer=_json(answered.answer), at=at),
    )


def note_failed(db: sqlite3.Connection, key: Key, error: str) -> None:
    db.execute(
        f"UPDATE {AUDIT_TABLE} SET failed_at = ?, error = ? WHERE thread_id = ? AND call_id = ?",
        (time.time(), error, *key),
    )


def prune_notes(db: sqlite3.Connection, calls_table: str, cutoff: float) -> None:
    """Forget notes older than `cutoff` whose call has no claim left (pruned or never made)."""
    db.execute(
        f"DELETE FROM {AUDIT_TABLE} WHERE coalesce(answered_at, asked_at, failed_at) < ? "
        f"AND NOT EXISTS (SELECT 1 FROM {calls_table} c "
        f"WHERE c.thread_id = {AUDIT_TABLE}.thread_id AND c.call_id = {AUDIT_TABLE}.call_id "
        "AND c.state = 'claimed')",
        (cutoff,),
    )


def read(db: sqlite3.Connection, calls_table: str) -> tuple[dict[Key, Note], dict[Key, Claimed]]:
    notes = db.execute(f"SELECT {audit_rows.NOTE_COLUMNS} FROM {AUDIT_TABLE}").fetchall()
    claims = db.execute(f"SELECT {audit_rows.CLAIM_COLUMNS} FROM {calls_table}").fetchall()
    return (
        audit_rows.notes_of(notes, utc_from_epoch, _parsed),
        audit_rows.claims_of(claims, utc_from_epoch, _parsed),
    )


def _json(value: Any) -> str | None:
    return None if value is None else json.dumps(value, sort_keys=True, default=str)


def _parsed(text: str | None) -> Any:
    return None if text is None else json.loads(text)
