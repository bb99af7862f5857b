"""Real `python -m interrupt_widget serve bank:agent` processes for the fault tests."""

from __future__ import annotations

import os
import pathlib
import socket
import subprocess
import sys
import threading

from bank import HOLD_ENV, RUNS_ENV

HERE = pathlib.Path(__file__).parent
DEADLINE = 60.0
"""How long a server may take to start listening, or to exit."""


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def server_env(runs: pathlib.Path, **extra: str) -> dict[str, str]:
    """The environment of a served bank: offline, its runs file, this folder on the path."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in {"OPENAI_API_KEY", "INTERRUPT_WIDGET_SECRET", HOLD_ENV}
    }
    env.update(
        INTERRUPT_WIDGET_MODEL="offline",
        OPENAI_AGENTS_DISABLE_TRACING="1",
        PYTHONPATH=os.pathsep.join([str(HERE), env.get("PYTHONPATH", "")]).rstrip(os.pathsep),
    )
    env[RUNS_ENV] = str(runs)
    env.update(extra)
    return env


class Served:
    """One `serve` process; its log is read on a thread so the pipe never fills."""

    def __init__(self, args: list[str], env: dict[str, str], *, port: int | None = None) -> None:
        self.port = port or free_port()
        self.url = f"http://127.0.0.1:{self.port}/"
        port_args = ["--port", str(self.port)]
        self.process = subprocess.Popen(
            [sys.executable, "-m", "interrupt_widget", "serve", "bank:agent", *args, *port_args],
            env=env,
            stderr=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            text=True,
        )
        self.log: list[str] = []
        self._ready = threading.Event()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self.log.append(line)
            if "Uvicorn running on" in line:
                self._ready.set()
        self._ready.set()

    def wait_ready(self) -> Served:
        assert self._ready.wait(DEADLINE), "".join(self.log)
        assert self.process.poll() is None, "".join(self.log)
        return self

    def kill(self) -> None:
        """kill -9: no shutdown, nothing flushed."""
        self.process.kill()
        self.process.wait(timeout=DEADLINE)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=DEADLINE)
