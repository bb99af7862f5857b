"""A real PostgreSQL server for the tests and the benchmark: 127.0.0.1, a free port, data in a
temporary folder, stopped by its pid. Debian's `postgresql` package provides the binaries
(`scripts/ensure-postgresql` installs it); as root the server runs as the `postgres` user.
"""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import signal
import subprocess
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg

from interrupt_widget.free_port import free_port

START_DEADLINE = 60.0
"""How long to wait for a new server to accept connections."""


def binaries() -> Path | None:
    """The newest installed PostgreSQL's bin folder, or None."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/postgres"))
    return Path(found[-1]).parent if found else None


class PostgresServer:
    """One PostgreSQL server with its data in a temporary folder, on one port for its life:
    `start`, `stop` (fast or immediate shutdown) and `start` again, as an operator would."""

    def __init__(self) -> None:
        bin_dir = binaries()
        if bin_dir is None:
            raise RuntimeError("PostgreSQL is not installed: run scripts/ensure-postgresql")
        self._bin = bin_dir
        self.folder = Path(tempfile.mkdtemp(prefix="interrupt-widget-pg-"))
        self._as_user: dict[str, Any] = {}
        if os.geteuid() == 0:  # initdb and postgres refuse to run as root
            shutil.chown(self.folder, "postgres", "postgres")
            self._as_user = {"user": "postgres", "group": "postgres", "extra_groups": []}
        self._data = self.folder / "data"
        subprocess.run(
            [bin_dir / "initdb", "-D", self._data, "-U", "postgres", "--auth=trust", "-E", "UTF8"],
            check=True,
            capture_output=True,
            **self._as_user,
        )
        self.port = free_port()
        self.url = f"postgresql://postgres@127.0.0.1:{self.port}/postgres"
        """The server's URL (`postgresql://postgres@127.0.0.1:PORT/postgres`)."""
        self._server: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        """Start the server and wait until it accepts connections."""
        log = (self.folder / "server.log").open("a")
        self._server = subprocess.Popen(
            [
                self._bin / "postgres",
                "-D",
                self._data,
                "-p",
                str(self.port),
                "-c",
                "listen_addresses=127.0.0.1",
                "-c",
                "unix_socket_directories=",
                "-c",
                "max_connections=300",
            ],
            stdout=log,
            stderr=subprocess.STDOUT,
            **self._as_user,
        )
        log.close()
        _wait_until_up(self.url, self._server, self.folder)

    def start_if_stopped(self) -> None:
        """Start the server unless it is running."""
        if self._server is None or self._server.poll() is not None:
            self.start()

    def stop(self, mode: str = "fast") -> None:
        """Stop the server: `fast` (SIGINT: clients cut, a clean checkpoint) or `immediate`
        (SIGQUIT: no checkpoint, crash recovery at the next start)."""
        server, self._server = self._server, None
        if server is None or server.poll() is not None:
            return
        # SIGTERM would wait for every client to hang up, and the ledger `open_ledger` keeps
        # for the process's lifetime holds an idle connection.
        server.send_signal(signal.SIGQUIT if mode == "immediate" else signal.SIGINT)
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()

    def remove(self) -> None:
        """Stop the server and delete its data."""
        self.stop()
        shutil.rmtree(self.folder, ignore_errors=True)


@contextlib.contextmanager
def running_postgres() -> Iterator[str]:
    """Start a server; yield its URL (`postgresql://postgres@127.0.0.1:PORT/postgres`)."""
    server = PostgresServer()
    try:
        server.start()
        yield server.url
    finally:
        server.remove()


def _wait_until_up(url: str, server: subprocess.Popen[bytes], folder: Path) -> None:
    deadline = time.monotonic() + START_DEADLINE
    while True:
        try:
            with psycopg.connect(url, connect_timeout=2):
                return
        except psycopg.OperationalError:
            if server.poll() is not None or time.monotonic() > deadline:
                log = (folder / "server.log").read_text(errors="replace")
                raise RuntimeError(f"PostgreSQL did not start:\n{log}") from None
            time.sleep(0.05)  # the server is starting: look again


def fresh_database(url: str) -> str:
    """A new empty database on the server at `url`; its URL."""
    name = f"t_{uuid.uuid4().hex[:16]}"
    with psycopg.connect(url, autocommit=True) as db:
        db.execute(f"CREATE DATABASE {name}")
    return url.rsplit("/", 1)[0] + f"/{name}"
