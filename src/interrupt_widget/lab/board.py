"""The question board: every question waiting across a Jupyter server, and the answers
given to them from outside the cell that asked.

Each kernel that uses the kit (its `KernelDesk`) posts the questions its chats and
batches wait on, and takes the answers queued for it; the Jupyter server extension
lists the questions for the sidebar and queues the answers people give there. The
board is a small database the two share: a SQLite file beside the server's runtime
files by default (every kernel of the server reaches it), or PostgreSQL by URL, so
several Jupyter servers (one per person on a JupyterHub) list the same questions.

The board decides nothing: an answer is checked, admitted and run by the kernel that
asked, on the one answer path (`OpenQuestions`), and its verdict is written back for
whoever queued it. An answer the kernel has not taken can be withdrawn, so a queued
answer is either taken once or never.

Every change bumps one revision number, which is all a waiting list has to read to
know whether anything changed.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
import threading
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, Literal, Protocol

AnswerState = Literal["queued", "taken", "refused", "withdrawn"]
"""A queued answer: waiting for its kernel, taken by it, refused by it, or called back."""

BOARD_ENV: Final = "INTERRUPT_WIDGET_BOARD"
"""Names the board (a file or a URL); the server extension sets it for its kernels."""
SERVER_ENV: Final = "INTERRUPT_WIDGET_SERVER"
"""Names the Jupyter server a kernel belongs to; set beside `BOARD_ENV`."""
SIDEBAR_BY: Final = "sidebar:"
"""How `by` begins for an answer given in the sidebar: `sidebar:<name>`."""
BUSY_TIMEOUT: Final = 5.0
"""Seconds a writer waits for another's lock on a SQLite board."""

_TABLES: Final = (
    "CREATE TABLE IF NOT EXISTS iw_board_rev (one INTEGER PRIMARY KEY, rev BIGINT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS iw_board_owners (owner TEXT PRIMARY KEY, label TEXT NOT NULL, "
    "path TEXT, server TEXT NOT NULL, seen DOUBLE PRECISION NOT NULL)",
    "CREATE TABLE IF NOT EXISTS iw_board_questions (id TEXT PRIMARY KEY, owner TEXT NOT NULL, "
    "item TEXT NOT NULL, cell_id TEXT, asked_by TEXT, posted DOUBLE PRECISION NOT NULL)",
)
_ANSWERS: Final = {
    "sqlite": "seq INTEGER PRIMARY KEY AUTOINCREMENT",
    "postgres": "seq BIGSERIAL PRIMARY KEY",
}
_ANSWER_COLUMNS: Final = (
    ", question TEXT NOT NULL, owner TEXT NOT NULL, kind TEXT NOT NULL, body TEXT NOT NULL, "
    "state TEXT NOT NULL, result TEXT, at DOUBLE PRECISION NOT NULL)"
)


@dataclass(frozen=True)
class Owner:
    """Who posts questions: one kernel (or process) of one Jupyter server."""

    id: str
    """The kernel's id (or another unique name for a process that is no kernel)."""
    label: str
    """How the sidebar names it when it has no notebook: `kernel 1a2b3c4d`."""
    path: str | None
    """The notebook it runs for, relative to the server's root; None when none."""
    server: str
    """The Jupyter server it belongs to (`Board.server` of that server's extension)."""


@dataclass(frozen=True)
class Posted:
    """One question on the board, with what is known of its owner."""

    id: str
    item: dict[str, Any]
    """The inbox's wire item for it (`wire/inbox.schema.json`), with no viewer's fields."""
    owner: Owner
    seen: float
    """When its owner last said it is alive (seconds since the epoch)."""
    cell_id: str | None
    asked_by: str | None


@dataclass(frozen=True)
class Queued:
    """An answer queued for a kernel: an answer (`kind` "answer") or a word on a call in
    doubt (`kind` "settle"), with who gave it."""

    seq: int
    question: str
    kind: str
    body: dict[str, Any]


class _Connector(Protocol):
    dialect: str

    def connect(self) -> contextlib.AbstractContextManager[Any]: ...


class Board:
    """The shared database of waiting questions (see the module docs)."""

    def __init__(self, where: str | Path) -> None:
        """`where`: a file path (SQLite) or a `postgresql://` URL."""
        text = str(where)
        self.where = text
        """The board's file or URL, as kernels are told it."""
        self._db: _Connector = (
            _Postgres(text) if text.startswith(("postgresql://", "postgres://")) else _SQLite(text)
        )
        with self._db.connect() as db:
            for statement in (*_TABLES, self._answers_table()):
                db.execute(statement)
            db.execute(
                "INSERT INTO iw_board_rev (one, rev) VALUES (1, 0) ON CONFLICT (one) DO NOTHING"
            )

    def _answers_table(self) -> str:
        key = _ANSWERS[self._db.dialect]
        return f"CREATE TABLE IF NOT EXISTS iw_board_answers ({key}{_ANSWER_COLUMNS}"

    # -- what changed ------------------------------------------------------------------------

    def rev(self) -> int:
        """The revision: it grows with every change to the questions or their owners."""
        with self._db.connect() as db:
            row = db.execute("SELECT rev FROM iw_board_rev WHERE one = 1").fetchone()
        return int(row[0])

    # -- a kernel's side --------------------------------------------------------------------

    def post(
        self,
        owner: Owner,
        upsert: Mapping[str, tuple[dict[str, Any], str | None, str | None]],
        remove: list[str],
    ) -> None:
        """`owner` is alive and waits on these questions: `{id: (item, cell id, asked by)}`
        added or changed (or posted again), and `remove` answered or gone. Bumps the
        revision when any question changed."""
        now = time.time()
        with self._db.connect() as db:
            db.execute(
                self._sql(
                    "INSERT INTO iw_board_owners (owner, label, path, server, seen) "
                    "VALUES (?, ?, ?, ?, ?) ON CONFLICT (owner) DO UPDATE SET label = "
                    "excluded.label, path = excluded.path, server = excluded.server, "
                    "seen = excluded.seen"
                ),
                (owner.id, owner.label, owner.path, owner.server, now),
            )
            changed = 0
            for question in remove:
                changed += db.execute(
                    self._sql("DELETE FROM iw_board_questions WHERE id = ?"), (question,)
                ).rowcount
            for question, (item, cell_id, asked_by) in upsert.items():
                # A row posted again as it was (a heartbeat) changes nothing, and wakes no one.
                changed += db.execute(
                    self._sql(
                        "INSERT INTO iw_board_questions (id, owner, item, cell_id, asked_by, "
                        "posted) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET "
                        "item = excluded.item, cell_id = excluded.cell_id, "
                        "asked_by = excluded.asked_by WHERE iw_board_questions.item <> "
                        "excluded.item OR COALESCE(iw_board_questions.cell_id, '') <> "
                        "COALESCE(excluded.cell_id, '') OR COALESCE(iw_board_questions.asked_by, "
                        "'') <> COALESCE(excluded.asked_by, '')"
                    ),
                    (question, owner.id, json.dumps(item), cell_id, asked_by, now),
                ).rowcount
            if changed:
                db.execute("UPDATE iw_board_rev SET rev = rev + 1 WHERE one = 1")

    def leave(self, owner_id: str) -> None:
        """`owner_id` is gone (its kernel stopped): its questions leave the board."""
        with self._db.connect() as db:
            db.execute(self._sql("DELETE FROM iw_board_questions WHERE owner = ?"), (owner_id,))
            db.execute(self._sql("DELETE FROM iw_board_owners WHERE owner = ?"), (owner_id,))
            db.execute("UPDATE iw_board_rev SET rev = rev + 1 WHERE one = 1")

    def queued_for(self, owner_id: str) -> list[Queued]:
        """The answers queued for `owner_id` and not taken yet, oldest first."""
        with self._db.connect() as db:
            rows = db.execute(
                self._sql(
                    "SELECT seq, question, kind, body FROM iw_board_answers "
                    "WHERE owner = ? AND state = 'queued' ORDER BY seq"
                ),
                (owner_id,),
            ).fetchall()
        return [Queued(int(r[0]), str(r[1]), str(r[2]), json.loads(r[3])) for r in rows]

    def take(self, seq: int) -> bool:
        """Take queued answer `seq` for applying it; False when it was withdrawn meanwhile."""
        return self._move(seq, "queued", "taken", None)

    def settle(self, seq: int, refused: bool, result: Mapping[str, Any]) -> None:
        """The verdict on taken answer `seq`: `result` is `{ok, verdict, error, errors}`."""
        self._move(seq, "taken", "refused" if refused else "taken", dict(result))

    # -- the server's side ------------------------------------------------------------------

    def listing(self) -> tuple[int, list[Posted]]:
        """The revision and every question on the board, oldest first."""
        with self._db.connect() as db:
            rev = int(db.execute("SELECT rev FROM iw_board_rev WHERE one = 1").fetchone()[0])
            rows = db.execute(
                "SELECT q.id, q.item, q.cell_id, q.asked_by, o.owner, o.label, o.path, "
                "o.server, o.seen FROM iw_board_questions q JOIN iw_board_owners o "
                "ON o.owner = q.owner ORDER BY q.posted, q.id"
            ).fetchall()
        return rev, [
            Posted(
                id=str(r[0]),
                item=json.loads(r[1]),
                cell_id=r[2],
                asked_by=r[3],
                owner=Owner(id=str(r[4]), label=str(r[5]), path=r[6], server=str(r[7])),
                seen=float(r[8]),
            )
            for r in rows
        ]

    def queue(self, question: str, owner_id: str, kind: str, body: Mapping[str, Any]) -> int:
        """Queue an answer (or a word on a call in doubt) for `owner_id`; returns its number."""
        with self._db.connect() as db:
            row = db.execute(
                self._sql(
                    "INSERT INTO iw_board_answers (question, owner, kind, body, state, at) "
                    "VALUES (?, ?, ?, ?, 'queued', ?) RETURNING seq"
                ),
                (question, owner_id, kind, json.dumps(dict(body)), time.time()),
            ).fetchone()
        return int(row[0])

    def outcome(self, seq: int) -> tuple[AnswerState, dict[str, Any] | None]:
        """Where queued answer `seq` stands, and its verdict once it has one."""
        with self._db.connect() as db:
            row = db.execute(
                self._sql("SELECT state, result FROM iw_board_answers WHERE seq = ?"), (seq,)
            ).fetchone()
        if row is None:
            raise KeyError(seq)
        state: AnswerState = row[0]
        return state, None if row[1] is None else json.loads(row[1])

    def withdraw(self, seq: int) -> bool:
        """Call back queued answer `seq` if its kernel has not taken it: True when withdrawn
        (it will never apply), False when the kernel has it."""
        return self._move(seq, "queued", "withdrawn", None)

    # -- internals --------------------------------------------------------------------------

    def _move(self, seq: int, before: str, after: str, result: dict[str, Any] | None) -> bool:
        with self._db.connect() as db:
            moved = db.execute(
                self._sql(
                    "UPDATE iw_board_answers SET state = ?, result = COALESCE(?, result) "
                    "WHERE seq = ? AND state = ?"
                ),
                (after, None if result is None else json.dumps(result), seq, before),
            ).rowcount
        return bool(moved)

    def _sql(self, statement: str) -> str:
        return statement.replace("?", "%s") if self._db.dialect == "postgres" else statement

    def __repr__(self) -> str:
        return f"Board({self.where!r})"


class _SQLite:
    """A board in one SQLite file: a connection per thread, each statement its own commit."""

    dialect = "sqlite"

    def __init__(self, path: str) -> None:
        self._path = Path(path).expanduser()
        self._path.parent.mkdir(parents=True, exist_ok=True)
        self._local = threading.local()

    @contextlib.contextmanager
    def connect(self) -> Iterator[sqlite3.Connection]:
        db: sqlite3.Connection | None = getattr(self._local, "db", None)
        if db is None:
            db = sqlite3.connect(self._path, timeout=BUSY_TIMEOUT, isolation_level=None)
            db.execute("PRAGMA journal_mode=WAL")
            # A view of what waits, rebuilt by its kernels: no need to sync every change.
            db.execute("PRAGMA synchronous=NORMAL")
            self._local.db = db
        try:
            db.execute("BEGIN IMMEDIATE")
            yield db
            db.execute("COMMIT")
        except BaseException:
            with contextlib.suppress(sqlite3.Error):
                db.execute("ROLLBACK")
            raise


class _Postgres:
    """A board in PostgreSQL, shared by several Jupyter servers: a connection per thread."""

    dialect = "postgres"

    def __init__(self, url: str) -> None:
        try:
            import psycopg
        except ImportError as exc:  # pragma: no cover - the postgres extra is missing
            raise ImportError(
                'a postgresql:// board needs psycopg: pip install ".[postgres]"'
            ) from exc
        self._psycopg = psycopg
        self._url = url
        self._local = threading.local()

    @contextlib.contextmanager
    def connect(self) -> Iterator[Any]:
        db = getattr(self._local, "db", None)
        if db is None or db.closed:
            db = self._psycopg.connect(self._url, connect_timeout=5)
            self._local.db = db
        try:
            with db.transaction():
                yield db
        except self._psycopg.OperationalError:
            self._local.db = None
            raise
