"""`TableLedger`: what `SQLiteLedger` and `PostgresLedger` share, a table of calls in SQL.

Both keep one row per (thread id, tool call id) and reach their database
only through `_attempt` (their own retries and errors); the options, the
operator tools and the audit notes that read the same in both dialects live
here once: each dialect names its tables, its placeholder, its module of note
writes (`sqlite_audit`, `postgres_audit`) and the connection a note goes on.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import timedelta
from typing import Any, ClassVar, Generic, Protocol, TypeVar, Unpack

from interrupt_widget.ledger.noting_ledger import Answered, Asked, NotingLedger
from interrupt_widget.ledger.once_only import DEFAULT_RETENTION, Key, WaitOptions


class _Cursor(Protocol):
    @property
    def rowcount(self) -> int: ...


class Connection(Protocol):
    """What the shared tools ask of a dialect's connection (sqlite3's and psycopg's have it)."""

    def execute(self, query: str, params: tuple[Any, ...], /) -> _Cursor: ...


Db = TypeVar("Db", bound=Connection)
_T = TypeVar("_T")
_DbIn = TypeVar("_DbIn", contravariant=True)


class NoteWrites(Protocol[_DbIn]):
    """A dialect's module of audit note writes, each on the connection it is given."""

    def note_asked(self, db: _DbIn, thread_id: str, asked: list[Asked], /) -> None:
        """Note the calls a run paused on in `thread_id`."""

    def note_answered(self, db: _DbIn, key: Key, answered: Answered, /) -> None:
        """Note the answer that settles the call `key`."""

    def note_failed(self, db: _DbIn, key: Key, error: str, /) -> None:
        """Note that the call `key` raised `error`, now."""


class TableLedger(NotingLedger, Generic[Db]):
    """A `NotingLedger` whose record is the table `_table` and whose notes are in
    `_audit_table`, written with `_mark` placeholders through `_note_writes`."""

    _table: ClassVar[str]
    _audit_table: ClassVar[str]
    _mark: ClassVar[str]
    _note_writes: NoteWrites[Db]

    def __init__(
        self, *, retention: timedelta = DEFAULT_RETENTION, **wait: Unpack[WaitOptions]
    ) -> None:
        super().__init__(**wait)
        self.retention = retention
        """How long a call's record is kept after it ran (pruned when a ledger opens its
        database)."""

    def release(self, thread_id: str, call_id: str) -> bool:
        """Forget a claim or result, so the next resume runs the call. True if one existed.

        For a call in doubt, once its effect has been checked by hand.
        """
        sql = f"DELETE FROM {self._table} WHERE thread_id = {self._mark} AND call_id = {self._mark}"
        return self._attempt(lambda db: db.execute(sql, (thread_id, call_id)).rowcount == 1)

    def record(self, thread_id: str, call_id: str, output: str) -> None:
        """Set the output the next resume of this call gets, without running it."""
        raise NotImplementedError

    async def record_asked(self, key: Key, output: str, asked: Sequence[Asked]) -> None:
        """`record(*key, output)` and the notes of the calls asked in thread `key[0]`, in one
        trip to the database: a run that pauses keeps its state and notes its questions.

        The record is written, or this raises `LedgerUnavailable`; the notes are best
        effort, as every note is.
        """
        await self._io(self._record_asked, key, output, list(asked))

    def _record_asked(self, key: Key, output: str, asked: list[Asked]) -> None:
        self.record(*key, output)
        if asked:
            try:
                self._note_asked(key[0], asked)
            except Exception as error:
                self._note_trouble(error)

    def _answered_by(self, db: Db, key: Key) -> str | None:
        """Who answered the call, as its audit note says: best effort, as the notes are (a
        note that cannot be read leaves it unknown, never the call's record)."""
        sql = (
            f"SELECT answered_by FROM {self._audit_table} "
            f"WHERE thread_id = {self._mark} AND call_id = {self._mark}"
        )
        row = self._read_aside(db, sql, key)
        return None if row is None else row[0]

    # -- audit notes (see ledger/noting_ledger.py) -----------------------------------------

    def _note_asked(self, thread_id: str, asked: list[Asked]) -> None:
        self._write_note(self._note_writes.note_asked, thread_id, asked)

    def _note_answered(self, key: Key, answered: Answered) -> None:
        self._write_note(self._note_writes.note_answered, key, answered)

    def _note_failed(self, key: Key, error: str) -> None:
        self._write_note(self._note_writes.note_failed, key, error)

    # -- the dialect's -----------------------------------------------------------------------

    def _attempt(self, work: Callable[[Db], _T]) -> _T:
        """`work(db)` on a connection, with the dialect's retries; `LedgerUnavailable` after."""
        raise NotImplementedError

    def _write_note(self, write: Callable[..., None], *args: Any) -> None:
        """`write(db, *args)` on the connection the dialect writes its notes on."""
        raise NotImplementedError

    def _read_aside(self, db: Db, sql: str, params: tuple[Any, ...]) -> Any:
        """The first row `sql` reads on `db`, or None when it reads none or fails: a read
        beside the call's record, which leaves `db` usable when it fails."""
        raise NotImplementedError
