"""A headless ``marimo run`` app on 127.0.0.1 and a free port, with its own config and log.

``marimo run`` gives each page its own session: a fresh kernel that runs the notebook's
cells when the page connects.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import httpx
from jupyter_process import free_port

_ENV = {
    "OPENAI_AGENTS_DISABLE_TRACING": "1",
    "INTERRUPT_WIDGET_MODEL": "offline",
    "MARIMO_SKIP_UPDATE_CHECK": "1",
}
"""Offline model, no trace exporter, no update check."""
_NOT_INHERITED = frozenset({"OPENAI_API_KEY", "INTERRUPT_WIDGET_RESPONDER"})
"""No real model, and no headless responder: a person clicks here."""


@dataclass
class MarimoApp:
    """One running app; build it with :meth:`start`."""

    port: int
    process: subprocess.Popen[bytes]
    log_path: Path

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/"

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    @classmethod
    def start(
        cls, notebook: Path, base: Path, args: list[str], *, ready_timeout: float = 60.0
    ) -> MarimoApp:
        """Serve ``notebook`` with ``args`` after ``--`` (read by ``mo.cli_args()``)."""
        port = free_port()
        (base / "config").mkdir(parents=True, exist_ok=True)
        env = {key: value for key, value in os.environ.items() if key not in _NOT_INHERITED}
        env.update(_ENV)
        env["XDG_CONFIG_HOME"] = str(base / "config")  # the user's marimo.toml stays out
        command = [
            str(Path(sys.executable).with_name("marimo")),
            "run",
            str(notebook),
            "--headless",
            "--host=127.0.0.1",
            f"--port={port}",
            "--no-token",
            "--show-tracebacks",
            "--",
            *args,
        ]
        log_path = base / "marimo.log"
        with log_path.open("wb") as log:
            process = subprocess.Popen(
                command,
                cwd=base,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )
        app = cls(port=port, process=process, log_path=log_path)
        app._wait_ready(ready_timeout)
        return app

    def _wait_ready(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"marimo exited early:\n{self.log()}")
            try:
                if httpx.get(f"{self.url}health", timeout=2).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            # Polling a child process coming up: there is no event to await instead.
            time.sleep(0.2)
        self.stop()
        raise TimeoutError(f"marimo not ready after {timeout} s:\n{self.log()}")

    def stop(self) -> None:
        """End the app's process group (its kernels with it)."""
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()
