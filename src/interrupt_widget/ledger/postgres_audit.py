"""The PostgreSQL ledger's audit notes: the `interrupt_widget_audit` table.

Created with the calls' table when a ledger connects (`CREATE TABLE IF NOT
EXISTS`), so a database used before notes were kept gains it on the next
start; its earlier calls appear in the audit from their claims alone.

Notes commit without waiting for the WAL to reach the disk
(`synchronous_commit = off` for that transaction alone): a crash of the
server process keeps them, and the claim's or result's synchronous commit
that follows flushes the WAL, notes included.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Final

from interrupt_widget.ledger import audit_rows
from interrupt_widget.ledger.audit import Claimed, Note
from interrupt_widget.ledger.noting_ledger import Answered, Asked
from interrupt_widget.ledger.once_only import Key

if TYPE_CHECKING:
    import psycopg

AUDIT_TABLE: Final = "interrupt_widget_audit"
"""The table the audit notes are kept in."""

_QUICK: Final = "SET LOCAL synchronous_commit = off"

AUDIT_SCHEMA: Final = f"""
CREATE TABLE IF NOT EXISTS {AUDIT_TABLE} (
    thread_id         TEXT NOT NULL,
    call_id           TEXT NOT NULL,
    tool              TEXT,
    arguments_sha256  TEXT,
    asked_at          TIMESTAMPTZ,
    decision          TEXT,
    answer            JSONB,
    answered_by       TEXT,
    answered_at       TIMESTAMPTZ,
    executed_sha256   TEXT,
    failed_at         TIMESTAMPTZ,
    error             TEXT,
    PRIMARY KEY (thread_id, call_id)
)
"""


_ANSWER_UPSERT: Final = audit_rows.answer_upsert(AUDIT_TABLE, "%s")


def note_asked(db: psycopg.Connection[Any], thread_id: str, asked: list[Asked]) -> None:
    with db.transaction(), db.cursor() as cursor:
        cursor.execute(_QUICK)
        cursor.executemany(
            f"INSERT INTO {AUDIT_TABLE} (thread_id, call_id, tool, arguments_sha256, asked_at) "
            "VALUES (%s, %s, %s, %s, %s) ON CONFLICT (thread_id, call_id) DO NOTHING",
            [(thread_id, a.call_id, a.tool, a.arguments_sha256, a.at) for a in asked],
        )


def note_answered(db: psycopg.Connection[Any], key: Key, answered: Answered) -> None:
    with db.transaction():
        db.execute(_QUICK)
        _upsert_answer(db, key, answered)


def _upsert_answer(db: psycopg.Connection[Any], key: Key, answered: Answered) -> None:
    values = audit_rows.answer_values(key, answered, answer=_jsonb(answered.answer), at=answered.at)
    db.execute(_ANSWER_UPSERT, values)


def note_failed(db: psycopg.Connection[Any], key: Key, error: str) -> None:
    db.execute(
        f"UPDATE {AUDIT_TABLE} SET failed_at = now(), error = %s "
        "WHERE thread_id = %s AND call_id = %s",
        (error, *key),
    )


def prune_notes(db: psycopg.Connection[Any], calls_table: str, older_than: float) -> None:
    """Forget notes older than `older_than` seconds whose call holds no claim."""
    db.execute(
        f"DELETE FROM {AUDIT_TABLE} a WHERE coalesce(a.answered_at, a.asked_at, a.failed_at) "
        "< now() - make_interval(secs => %s) AND NOT EXISTS (SELECT 1 FROM "
        f"{calls_table} c WHERE c.thread_id = a.thread_id AND c.call_id = a.call_id "
        "AND c.state = 'claimed')",
        (older_than,),
    )


def read(
    db: psycopg.Connection[Any], calls_table: str
) -> tuple[dict[Key, Note], dict[Key, Claimed]]:
    notes = db.execute(f"SELECT {audit_rows.NOTE_COLUMNS} FROM {AUDIT_TABLE}").fetchall()
    claims = db.execute(f"SELECT {audit_rows.CLAIM_COLUMNS} FROM {calls_table}").fetchall()
    return (
        audit_rows.notes_of(notes, _as_is, _as_is),
        audit_rows.claims_of(claims, _as_is, _as_is),
    )


def _as_is(value: Any) -> Any:
    return value  # psycopg reads TIMESTAMPTZ and JSONB as datetimes and Python already


def _jsonb(value: Any) -> Any:
    if value is None:
        return None
    from psycopg.types.json import Jsonb

    return Jsonb(json.loads(json.dumps(value, default=str)))
