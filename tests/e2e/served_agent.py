"""`python -m interrupt_widget serve` as a real process, and a folder served on another port.

The pages a browser test opens come from a static server on one port while the
agent listens on another: two origins, as a web app and its agent have in production.
"""

from __future__ import annotations

import functools
import os
import re
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from jupyter_process import free_port


@dataclass
class ServedAgent:
    """A running `serve` process: its base URL and what it printed so far."""

    process: subprocess.Popen[str]
    url: str
    log: list[str]

    def wait_for_line(self, pattern: str, timeout: float = 20.0) -> str:
        """The first line of the server's log matching `pattern`, once it has been printed."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for line in list(self.log):
                if re.search(pattern, line):
                    return line
            time.sleep(0.05)
        raise AssertionError(f"no log line matches {pattern!r}:\n" + "".join(self.log[-20:]))


@contextmanager
def served_agent(
    target: str, *args: str, env: dict[str, str] | None = None
) -> Iterator[ServedAgent]:
    """Run `serve TARGET ARGS...` on a free loopback port, offline, until the block ends."""
    port = free_port()
    environment = {k: v for k, v in os.environ.items() if k != "OPENAI_API_KEY"}
    environment.update(INTERRUPT_WIDGET_MODEL="offline", OPENAI_AGENTS_DISABLE_TRACING="1")
    environment.update(env or {})
    command = [sys.executable, "-m", "interrupt_widget", "serve", target, *args]
    process = subprocess.Popen(
        [*command, "--host", "127.0.0.1", "--port", str(port)],
        env=environment,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,  # one log: uvicorn prints its access lines on stdout
        text=True,
    )
    assert process.stdout is not None
    log: list[str] = []
    for line in process.stdout:  # ready once uvicorn says so
        log.append(line)
        if "Uvicorn running on" in line:
            break
    else:
        process.wait()
        raise AssertionError("serve exited before listening:\n" + "".join(log))

    # Keep draining the pipe so a chatty server never blocks on it.
    def drain_lines() -> None:
        for line in process.stdout or ():
            log.append(line)

    drain = threading.Thread(target=drain_lines, daemon=True)
    drain.start()
    try:
        yield ServedAgent(process, f"http://127.0.0.1:{port}/", log)
    finally:
        process.terminate()
        process.wait(timeout=30)


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


@contextmanager
def static_site(folder: Path) -> Iterator[str]:
    """Serve `folder` on a free loopback port; yields its origin (no trailing slash)."""
    handler = functools.partial(_QuietHandler, directory=str(folder))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def origins(*sites: str) -> Sequence[str]:
    """`--cors-origin` arguments for each site."""
    return [arg for site in sites for arg in ("--cors-origin", site)]
