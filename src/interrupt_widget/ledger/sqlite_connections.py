"""The SQLite ledger's connections: one per thread, kept open from one operation to the next.

Opening a WAL file costs more CPU than the short write it serves (SQLite maps the
file's shared memory and reads the schema again: about 0.2 ms, three times an
insert), and a resume makes several, so each thread that works on the ledger keeps
its connection. Each statement still commits on its own (autocommit), synced as
before. A kept connection is given up, and the path opened afresh, whenever reusing
it could differ from opening the path: after any error (a full disk, a lock held too
long: the next operation starts clean), in a process forked from the one that opened
it, and when the path no longer names the file it opened (removed or replaced), so a
vanished ledger fails as it did when every operation opened the path.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import threading
from collections.abc import Iterator
from pathlib import Path


class KeptConnections:
    """This process's connections to one SQLite file, one per thread that uses it."""

    def __init__(self, path: Path, busy_timeout: float) -> None:
        self._path = path
        self._busy_timeout = busy_timeout
        self._local = threading.local()

    @contextlib.contextmanager
    def using(self, timeout: float) -> Iterator[sqlite3.Connection]:
        """This thread's connection, waiting up to `timeout` seconds for a locked file.

        Any exception inside drops the connection: the next use opens the path again.
        """
        kept: _Kept | None = getattr(self._local, "kept", None)
        if kept is not None and not kept.still_the_file(self._path):
            self._local.kept = None  # not closed here: in a forked child it is the parent's
            kept = None
        if kept is None:
            kept = _Kept.open(self._path, self._busy_timeout)
            self._local.kept = kept
        try:
            kept.wait_at_most(timeout)
            yield kept.db
        except BaseException:
            self._local.kept = None
            kept.close()
            raise


class _Kept:
    """One open connection, and what it was opened on."""

    def __init__(self, db: sqlite3.Connection, file: tuple[int, int], timeout_ms: int) -> None:
        self.db = db
        self._file = file
        self._pid = os.getpid()
        self._timeout_ms = timeout_ms

    @classmethod
    def open(cls, path: Path, busy_timeout: float) -> _Kept:
        db = sqlite3.connect(
            path, timeout=busy_timeout, isolation_level=None, check_same_thread=False
        )
        try:
            db.execute("PRAGMA synchronous=FULL")  # every commit synced unless told otherwise
            found = os.stat(path)
        except (OSError, sqlite3.Error):
            db.close()
            raise
        return cls(db, (found.st_dev, found.st_ino), round(busy_timeout * 1000))

    def still_the_file(self, path: Path) -> bool:
        """Whether this process opened it, and the path still names the file it opened."""
        if os.getpid() != self._pid:
            return False
        try:
            found = os.stat(path)
        except OSError:
            return False
        return (found.st_dev, found.st_ino) == self._file

    def wait_at_most(self, timeout: float) -> None:
        """Set SQLite's busy wait, when a retry has less time left than the last use."""
        wanted = max(round(timeout * 1000), 1)
        if wanted != self._timeout_ms:
            self.db.execute(f"PRAGMA busy_timeout = {wanted}")
            self._timeout_ms = wanted

    def close(self) -> None:
        if os.getpid() == self._pid:
            self.db.close()
