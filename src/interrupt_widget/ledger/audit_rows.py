"""The audit notes' rows as both SQL ledgers keep them: one statement, one reading.

`SQLiteLedger` and `PostgresLedger` keep the same columns under their own
names and types (REAL seconds and TEXT JSON in SQLite, TIMESTAMPTZ and JSONB
in PostgreSQL). What an answer writes and how a row becomes a `Note` or a
`Claimed` is written here once; each dialect passes its table, its
placeholder and how it turns its values into Python.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from datetime import datetime
from typing import Any, Final

from interrupt_widget.ledger.audit import Claimed, Note
from interrupt_widget.ledger.noting_ledger import Answered
from interrupt_widget.ledger.once_only import Key

NOTE_COLUMNS: Final = (
    "thread_id, call_id, tool, arguments_sha256, asked_at, decision, answer, "
    "answered_by, answered_at, executed_sha256, error"
)
"""The columns `notes_of` reads, in its order."""

CLAIM_COLUMNS: Final = "thread_id, call_id, state, output, answer, claimed_at, finished_at"
"""The calls' table's columns `claims_of` reads, in its order."""

When = Callable[[Any], datetime | None]
"""A dialect's stored instant as a datetime."""
Parsed = Callable[[Any], Any]
"""A dialect's stored JSON as Python."""


def answer_upsert(table: str, mark: str) -> str:
    """The statement that notes an answer (a later answer replaces it, a failure is cleared);
    `mark` is the dialect's placeholder."""
    marks = ", ".join([mark] * 9)
    return (
        f"INSERT INTO {table} (thread_id, call_id, tool, arguments_sha256, decision, answer, "
        f"answered_by, answered_at, executed_sha256) VALUES ({marks}) "
        "ON CONFLICT (thread_id, call_id) DO UPDATE SET tool = excluded.tool, "
        f"arguments_sha256 = coalesce({table}.arguments_sha256, excluded.arguments_sha256), "
        "decision = excluded.decision, answer = excluded.answer, "
        "answered_by = excluded.answered_by, answered_at = excluded.answered_at, "
        "executed_sha256 = excluded.executed_sha256, failed_at = NULL, error = NULL"
    )


def answer_values(key: Key, answered: Answered, *, answer: Any, at: Any) -> tuple[Any, ...]:
    """`answer_upsert`'s values, the answer and its instant already in the dialect's form."""
    return (
        *key,
        answered.tool,
        answered.arguments_sha256,
        answered.decision,
        answer,
        answered.by,
        at,
        answered.executed_arguments_sha256,
    )


def notes_of(rows: Iterable[Sequence[Any]], when: When, parsed: Parsed) -> dict[Key, Note]:
    """Rows of `NOTE_COLUMNS` as notes by key."""
    return {(row[0], row[1]): _note(row, when, parsed) for row in rows}


def claims_of(rows: Iterable[Sequence[Any]], when: When, parsed: Parsed) -> dict[Key, Claimed]:
    """Rows of `CLAIM_COLUMNS` as claims by key."""
    return {(row[0], row[1]): _claimed(row, when, parsed) for row in rows}


def _note(row: Sequence[Any], when: When, parsed: Parsed) -> Note:
    _thread, _call, tool, sha, asked_at, decision, answer, by, answered_at, ran, error = row
    return Note(
        tool=tool,
        arguments_sha256=sha,
        asked_at=when(asked_at),
        decision=decision,
        answer=parsed(answer),
        by=by,
        answered_at=when(answered_at),
        executed_arguments_sha256=ran,
        error=error,
    )


def _claimed(row: Sequence[Any], when: When, parsed: Parsed) -> Claimed:
    _thread, _call, state, output, answer, claimed_at, finished_at = row
    return Claimed(
        done=state == "done",
        output=output,
        answer=parsed(answer),
        claimed_at=when(claimed_at),
        finished_at=when(finished_at),
    )
