"""`PostgresLedger`: exactly-once for approved calls across hosts, in one PostgreSQL database.

`SQLiteLedger` shares its record between the processes of one host; servers
on several hosts behind one load balancer share a database instead
(`serve --ledger postgresql://user@host:5432/db`, `asgi_app(agent,
ledger="postgresql://...")`, the adapter's and `AgentChat`'s `ledger=`). The
semantics are `SQLiteLedger`'s, kept by the database's own guarantees:

1. **Claim before run.** A row keyed on (thread id, tool call id), the
   table's primary key, is inserted and committed before the tool starts;
   exactly one insert succeeds, on whichever host.
2. **Who is alive.** The claimer takes a session advisory lock on the key
   before inserting, and holds it, on its own connection, until the result
   is stored. A process that dies (kill -9, a crash) loses its connection and
   PostgreSQL drops the lock with it. So a claimed row whose lock is free
   belongs to a run that ended: the call is *in doubt*, never run again, and
   the asker gets `CallInDoubt` (RUN_ERROR `call_in_doubt`). After checking
   its effect, an operator calls `release` or `record`, as for SQLite.
3. **Result.** The output is stored in the row (committed) and the lock let
   go; every later asker replays it. A tool that raises deletes its claim.

**When the database fails** (a restart, a failover, a network cut), every
operation tries again on a new connection, with back-off, for up to
`reconnect_timeout` seconds, so a server keeps working across a database
restart without being restarted itself. Past that it raises
`LedgerUnavailable` (RUN_ERROR `ledger_unavailable`): a claim that could not
be taken runs nothing. A claim whose insert may have committed although its
answer was lost is recognised as this ledger's own on the next try and
taken, never run twice. A connection lost between claim and result lets go
of the claim's lock: other servers find the call in doubt at once, and this
one writes the result on a new connection when the database answers again
within `reconnect_timeout`; if it does not, the call stays in doubt.

A host that vanishes without closing its connections (a power cut) keeps
its locks until the server's TCP keepalive gives up on them; until then
the call counts as running (bounded by `wait_timeout`). The table
(`interrupt_widget_calls`) is created on first use. An unreachable database
is an error when the ledger is made (at start-up), naming host, port and
database but never the password. Each approved call costs two committed
transactions and a few round trips; see `docs/performance.md`.

Needs the `postgres` extra (psycopg 3): `pip install ".[postgres]"` in the kit's clone, or
`pip install "psycopg[binary]"`.
"""

from __future__ import annotations

import json
import logging
import os
import socket
import threading
import time
import uuid
import weakref
from collections.abc import Callable
from datetime import timedelta
from typing import TYPE_CHECKING, Any, Final, TypeVar, Unpack

from interrupt_widget.errors import LedgerUnavailable
from interrupt_widget.ledger import postgres_audit
from interrupt_widget.ledger.audit import Claimed, Note
from interrupt_widget.ledger.once_only import (
    CLAIMED_HERE,
    DEFAULT_RETENTION,
    Claim,
    HeldByLiveRun,
    InDoubt,
    Key,
    KeyState,
    Recorded,
    WaitOptions,
    seconds,
)
from interrupt_widget.ledger.table_ledger import TableLedger

if TYPE_CHECKING:
    import psycopg

__all__ = ["PostgresLedger"]

logger = logging.getLogger(__name__)

_T = TypeVar("_T")

TABLE: Final = "interrupt_widget_calls"
"""The table the ledger keeps its record in."""

_SCHEMA: Final = f"""
CREATE TABLE IF NOT EXISTS {TABLE} (
    thread_id   TEXT NOT NULL,
    call_id     TEXT NOT NULL,
    state       TEXT NOT NULL CHECK (state IN ('claimed', 'done')),
    output      TEXT,
    answer      JSONB,
    owner       TEXT NOT NULL,
    claimed_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    finished_at TIMESTAMPTZ,
    PRIMARY KEY (thread_id, call_id)
)
"""
_SCHEMA_LOCK: Final = 0x1D6E_7A11  # serialises CREATE TABLE between servers starting at once
_KEY_LOCK: Final = "hashtextextended(%s, 0)"


class PostgresLedger(TableLedger["psycopg.Connection[Any]"]):
    """A `CallLedger` in a PostgreSQL database, shared by every server that connects to it.

    ::

        ledger = PostgresLedger("postgresql://agent@db.internal:5432/agent")
        app = asgi_app(agent, ledger=ledger)   # on each host, same database and secret

    See the module docs for what happens when a server dies mid-call.
    """

    _table = TABLE
    _audit_table = postgres_audit.AUDIT_TABLE
    _mark = "%s"
    _note_writes = postgres_audit

    def __init__(
        self,
        url: str,
        *,
        retention: timedelta = DEFAULT_RETENTION,
        connect_timeout: int = 5,
        reconnect_timeout: float = 10.0,
        **wait: Unpack[WaitOptions],
    ) -> None:
        super().__init__(retention=retention, **wait)
        try:
            import psycopg
        except ImportError:  # pragma: no cover - the extra is in the dev install
            raise ValueError(
                'a postgresql:// ledger needs psycopg: pip install "psycopg[binary]"'
            ) from None
        self._psycopg = psycopg
        self.url = url
        """The database's connection URL."""
        self.connect_timeout = connect_timeout
        """Seconds to wait for the database when connecting."""
        if reconnect_timeout < 0:
            raise ValueError("reconnect_timeout must not be negative")
        self.reconnect_timeout = reconnect_timeout
        """How long an operation keeps trying new connections while the database is down or
        restarting, before the ledger counts as unavailable (`LedgerUnavailable`)."""
        self._where = _describe(url)
        self._owner = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:12]}"
        self._idle: list[psycopg.Connection[Any]] = []
        self._idle_lock = threading.Lock()
        self._claims: dict[Key, psycopg.Connection[Any]] = {}
        # Idle connections close with the ledger, not at the interpreter's leisure.
        weakref.finalize(self, _close_all, self._idle)
        try:
            with (
                self._psycopg.connect(url, connect_timeout=connect_timeout) as db,
                db.transaction(),
            ):
                db.execute("SELECT pg_advisory_xact_lock(%s)", (_SCHEMA_LOCK,))
                db.execute(_SCHEMA)
                db.execute(postgres_audit.AUDIT_SCHEMA)
            self.prune(retention)
        except self._psycopg.Error as exc:
            raise ValueError(
                f"cannot use the PostgreSQL database {self._where} as a call ledger: "
                f"{_first_line(exc)}"
            ) from exc

    # -- operator tools ----------------------------------------------------------------------

    def record(self, thread_id: str, call_id: str, output: str) -> None:
        """Set the output the next resume of this call gets, without running it."""
        self._attempt(
            lambda db: db.execute(
                f"INSERT INTO {TABLE} (thread_id, call_id, state, output, owner, finished_at) "
                "VALUES (%s, %s, 'done', %s, %s, now()) ON CONFLICT (thread_id, call_id) "
                "DO UPDATE SET state = 'done', output = excluded.output, finished_at = now()",
                (thread_id, call_id, output, self._owner),
            )
        )

    def in_doubt(self) -> list[Key]:
        """Claims with no result whose run has ended (its lock is free)."""

        def in_doubt(db: psycopg.Connection[Any]) -> list[Key]:
            rows = db.execute(
                f"SELECT thread_id, call_id FROM {TABLE} WHERE state = 'claimed'"
            ).fetchall()
            keys = [(thread_id, call_id) for thread_id, call_id in rows]
            return [key for key in keys if isinstance(self._read(db, key, locked=False), InDoubt)]

        return self._attempt(in_doubt)

    def prune(self, older_than: timedelta | float) -> int:
        """Forget calls that finished more than `older_than` ago; how many were forgotten.

        Claims without a result (running, or in doubt) are kept.
        """

        def prune(db: psycopg.Connection[Any]) -> int:
            gone: int = db.execute(
                f"DELETE FROM {TABLE} WHERE state = 'done' "
                "AND finished_at < now() - make_interval(secs => %s)",
                (seconds(older_than),),
            ).rowcount
            postgres_audit.prune_notes(db, TABLE, seconds(older_than))
            return gone

        return self._attempt(prune)

    def close(self) -> None:
        """Close the idle connections (claims in flight keep theirs until they finish)."""
        self._drop_idle()

    def __repr__(self) -> str:
        return f"PostgresLedger({self._where})"

    @property
    def place(self) -> str:
        """The database's host, port and name (never its user or password)."""
        return f"the PostgreSQL database {self._where}"

    # -- hooks -------------------------------------------------------------------------------

    def _ping(self) -> None:
        for fresh in (False, True):  # an idle connection may have died with a restart
            try:
                db = self._connect() if fresh else self._take()
            except self._psycopg.Error as exc:
                raise LedgerUnavailable(self._reason(exc, connecting=True)) from exc
            try:
                db.execute("SELECT 1")
            except self._psycopg.Error as exc:
                db.close()
                self._drop_idle()
                if fresh:
                    raise LedgerUnavailable(self._reason(exc)) from exc
                continue
            self._give(db)
            return

    def _claim(self, key: Key, answer: Any) -> Claim:
        def claim(db: psycopg.Connection[Any]) -> Claim:
            if not self._try_lock(db, key):
                return HeldByLiveRun()  # its owner (or another asker, for a moment) is on it
            cursor = db.execute(
                f"INSERT INTO {TABLE} (thread_id, call_id, state, answer, owner) "
                "VALUES (%s, %s, 'claimed', %s, %s) ON CONFLICT DO NOTHING",
                (*key, _jsonb(answer), self._owner),
            )
            found = CLAIMED_HERE if cursor.rowcount == 1 else self._read(db, key, locked=True)
            if (
                isinstance(found, InDoubt)
                and found.owner == self._owner
                and key not in self._abandoned
            ):
                # This ledger's own insert, committed on a connection that broke before it
                # answered: no run ever started on it, so it is taken now.
                found = CLAIMED_HERE
            if found is CLAIMED_HERE:
                self._claims[key] = db  # lock and connection held until the result is in
                return CLAIMED_HERE
            self._unlock(db, key)
            return found or HeldByLiveRun()  # released meanwhile: claim again

        return self._attempt(claim, keep=lambda found: found is CLAIMED_HERE)

    def _insert_first(self, key: Key, output: str, answer: Any = None) -> bool:
        # No lock to take: a live claim's row is there, and the insert leaves it alone.
        sql = (
            f"INSERT INTO {TABLE} (thread_id, call_id, state, output, answer, owner, "
            "finished_at) VALUES (%s, %s, 'done', %s, %s, %s, now()) ON CONFLICT DO NOTHING"
        )
        values = (*key, output, _jsonb(answer), self._owner)
        return self._attempt(lambda db: db.execute(sql, values).rowcount == 1)

    def _look(self, key: Key) -> KeyState:
        return self._attempt(lambda db: self._read(db, key, locked=False))

    def _look_all(self, keys: list[Key]) -> list[KeyState]:
        return self._attempt(lambda db: [self._read(db, key, locked=False) for key in keys])

    def _store(self, key: Key, output: str) -> None:
        sql = (
            f"UPDATE {TABLE} SET state = 'done', output = %s, finished_at = now() "
            "WHERE thread_id = %s AND call_id = %s AND owner = %s"
        )
        self._finish_claim(key, lambda db: db.execute(sql, (output, *key, self._owner)))

    def _abandon(self, key: Key) -> None:
        # The row stays claimed; with its lock let go, every other process reads it in doubt.
        db = self._claims.pop(key, None)
        if db is None:
            return
        try:
            self._unlock(db, key)
        except BaseException:
            db.close()  # the lock goes with the connection
            raise
        self._give(db)

    def _unclaim(self, key: Key) -> None:
        sql = (
            f"DELETE FROM {TABLE} WHERE thread_id = %s AND call_id = %s AND owner = %s "
            "AND state = 'claimed'"
        )
        self._finish_claim(key, lambda db: db.execute(sql, (*key, self._owner)))

    # -- audit notes (see ledger/noting_ledger.py) ---------------------------------------------

    def _write_note(self, write: Callable[..., None], *args: Any) -> None:
        with self._connection() as db:
            write(db, *args)

    def _read_aside(self, db: psycopg.Connection[Any], sql: str, params: tuple[Any, ...]) -> Any:
        try:
            with db.transaction():  # a savepoint: a failed read leaves the connection usable
                return db.execute(sql, params).fetchone()
        except self._psycopg.Error:
            return None

    def _audit_read(self) -> tuple[dict[Key, Note], dict[Key, Claimed], set[Key]]:
        with self._connection() as db:
            notes, claims = postgres_audit.read(db, TABLE)
        return notes, claims, set(self.in_doubt())

    # -- internals ---------------------------------------------------------------------------

    def _read(self, db: psycopg.Connection[Any], key: Key, *, locked: bool) -> KeyState:
        row = db.execute(
            f"SELECT state, output, answer, owner, extract(epoch FROM finished_at) FROM {TABLE} "
            "WHERE thread_id = %s AND call_id = %s",
            key,
        ).fetchone()
        if row is None:
            return None
        state, output, answer, owner, finished_at = row
        if state == "done":
            at = None if finished_at is None else float(finished_at)
            return Recorded(output or "", answer, at, self._answered_by(db, key))
        if locked:
            return InDoubt(str(owner))  # claimed, and no live run holds its lock
        if not self._try_lock(db, key):
            return HeldByLiveRun()
        try:
            # Read again under the lock: the owner may have stored its result meanwhile.
            return self._read(db, key, locked=True)
        finally:
            self._unlock(db, key)

    @staticmethod
    def _try_lock(db: psycopg.Connection[Any], key: Key) -> bool:
        row = db.execute(f"SELECT pg_try_advisory_lock({_KEY_LOCK})", (_lock_name(key),))
        got = row.fetchone()
        return bool(got and got[0])

    @staticmethod
    def _unlock(db: psycopg.Connection[Any], key: Key) -> None:
        db.execute(f"SELECT pg_advisory_unlock({_KEY_LOCK})", (_lock_name(key),))

    def _finish_claim(self, key: Key, write: Callable[[psycopg.Connection[Any]], object]) -> None:
        """`write` on the claim's own connection, then let go of its lock; if that connection
        failed, `write` again on a new one (the lock went with the old one)."""
        db = self._claims.pop(key)
        try:
            write(db)
            self._unlock(db, key)
        except self._psycopg.Error as exc:
            db.close()
            logger.warning(
                "the call ledger %s lost the claim's connection for %r: %s",
                self._where,
                key,
                _first_line(exc),
            )
            self._attempt(write)  # idempotent: keyed on this ledger's own claim
            return
        except BaseException:
            db.close()
            raise
        self._give(db)

    def _attempt(
        self,
        work: Callable[[psycopg.Connection[Any]], _T],
        *,
        keep: Callable[[_T], bool] = lambda _: False,
    ) -> _T:
        """`work(db)` on a pooled connection, tried again on new ones while the database is
        unreachable (up to `reconnect_timeout`); then `LedgerUnavailable`. The connection goes
        back to the pool unless `keep(result)`; on any error it is closed."""
        deadline = time.monotonic() + self.reconnect_timeout
        delay = 0.05
        while True:
            db: psycopg.Connection[Any] | None = None
            try:
                db = self._take()
                result = work(db)
            except self._psycopg.Error as exc:
                lost = db is None or db.broken or db.closed
                if db is not None:
                    db.close()
                if lost:
                    self._drop_idle()  # a restart took every pooled connection with it
                if lost and time.monotonic() + delay < deadline:
                    time.sleep(delay)
                    delay = min(delay * 2, 1.0)
                    continue
                logger.warning("the call ledger %s failed: %s", self._where, _first_line(exc))
                raise LedgerUnavailable(self._reason(exc, connecting=db is None)) from exc
            except BaseException:
                if db is not None:
                    db.close()
                raise
            if not keep(result):
                self._give(db)
            return result

    def _reason(self, error: BaseException, *, connecting: bool = False) -> str:
        """What failed, for a client to read: never the host, the user or the password."""
        if connecting:
            return "PostgreSQL cannot be reached"
        sqlstate = getattr(error, "sqlstate", None)
        if isinstance(error, self._psycopg.OperationalError | self._psycopg.InterfaceError):
            return "the connection to PostgreSQL was lost" + (
                f" (SQLSTATE {sqlstate})" if sqlstate else ""
            )
        return f"PostgreSQL failed (SQLSTATE {sqlstate or 'unknown'})"

    def _drop_idle(self) -> None:
        with self._idle_lock:
            idle = list(self._idle)
            self._idle.clear()
        _close_all(idle)

    def _take(self) -> psycopg.Connection[Any]:
        with self._idle_lock:
            if self._idle:
                return self._idle.pop()
        return self._connect()

    def _connect(self) -> psycopg.Connection[Any]:
        return self._psycopg.connect(
            self.url, autocommit=True, connect_timeout=self.connect_timeout
        )

    def _give(self, db: psycopg.Connection[Any]) -> None:
        if db.closed:
            return
        with self._idle_lock:
            self._idle.append(db)

    def _connection(self) -> _Borrowed:
        return _Borrowed(self)


class _Borrowed:
    """`with ledger._connection() as db:` an idle connection, given back after (closed on error)."""

    def __init__(self, ledger: PostgresLedger) -> None:
        self._ledger = ledger
        self._db: psycopg.Connection[Any] | None = None

    def __enter__(self) -> psycopg.Connection[Any]:
        self._db = self._ledger._take()
        return self._db

    def __exit__(self, kind: object, error: object, trace: object) -> None:
        assert self._db is not None
        if error is None:
            self._ledger._give(self._db)
        else:
            self._db.close()


def _close_all(connections: list[Any]) -> None:
    for db in connections:
        db.close()


def _lock_name(key: Key) -> str:
    return json.dumps(list(key))


def _jsonb(answer: Any) -> Any:
    if answer is None:
        return None
    from psycopg.types.json import Jsonb

    return Jsonb(json.loads(json.dumps(answer, default=str)))


def _describe(url: str) -> str:
    """host:port/db of a connection URL, without user or password."""
    from psycopg.conninfo import conninfo_to_dict

    try:
        parts = conninfo_to_dict(url)
    except Exception:
        return "(unreadable URL)"
    host = parts.get("host") or "localhost"
    port = parts.get("port") or "5432"
    return f"{host}:{port}/{parts.get('dbname') or ''}"


def _first_line(error: BaseException) -> str:
    text = str(error).strip()
    return text.splitlines()[0] if text else type(error).__name__
