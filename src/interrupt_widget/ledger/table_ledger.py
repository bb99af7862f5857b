"""`TableLedger`: what `SQLiteLedger` and `PostgresLedger` share, a table of calls in SQL.

Both keep one row per (thread id, tool call id) and reach their database
only through `_attempt` (their own retries and errors); the options and the
operator tools that read the same in both dialects live here once.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import timedelta
from typing import Any, ClassVar, Generic, Protocol, TypeVar, Unpack

from interrupt_widget.ledger.noting_ledger import Asked, NotingLedger
from interrupt_widget.ledger.once_only import DEFAULT_RETENTION, Key, WaitOptions


class _Cursor(Protocol):
    @property
    def rowcount(self) -> int: ...


class Connection(Protocol):
    """What the shared tools ask of a dialect's connection (sqlite3's and psycopg's have it)."""

    def execute(self, query: str, params: tuple[Any, ...], /) -> _Cursor: ...


Db = TypeVar("Db", bound=Connection)
_T = TypeVar("_T")


class TableLedger(NotingLedger, Generic[Db]):
    """A `NotingLedger` whose record is the table `_table`, written with `_mark` placeholders."""

    _table: ClassVar[str]
    _mark: ClassVar[str]

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

    def _attempt(self, work: Callable[[Db], _T]) -> _T:
        """`work(db)` on a connection, with the dialect's retries; `LedgerUnavailable` after."""
        raise NotImplementedError
