"""A webhook receiver on 127.0.0.1 for tests: keeps every JSON body it is sent, or answers
`status` (500: down for a moment; 429 with `retry_after`: slow down) to the first `failures`
of them. It takes `delay` seconds over each, and counts how many it holds at once."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class Receiver:
    def __init__(
        self,
        failures: int = 0,
        *,
        status: int = 500,
        retry_after: str | None = None,
        delay: float = 0.0,
    ) -> None:
        self.bodies: list[dict[str, Any]] = []
        self.failures = failures
        self.arrivals: list[float] = []
        """When each request came (`time.monotonic()`), refused ones included."""
        self.most_at_once = 0
        """The most requests it held at one time."""
        self._held = 0
        self._lock = threading.Lock()
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length", "0"))
                body = json.loads(self.rfile.read(length))
                with owner._lock:
                    owner.arrivals.append(time.monotonic())
                    owner._held += 1
                    owner.most_at_once = max(owner.most_at_once, owner._held)
                time.sleep(delay)  # a slow receiver, in its own thread
                with owner._lock:
                    owner._held -= 1
                    failing = owner.failures > 0
                    owner.failures -= 1
                    if not failing:
                        owner.bodies.append(body)
                self.send_response(status if failing else 200)
                if failing and retry_after is not None:
                    self.send_header("Retry-After", retry_after)
                self.end_headers()

            def log_message(self, *_args: Any) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self._server.server_address[1]}/hook"
        threading.Thread(target=self._server.serve_forever, daemon=True).start()

    def wait_for(self, count: int, timeout: float = 20) -> list[dict[str, Any]]:
        """The bodies once `count` arrived (raises after `timeout` seconds)."""
        deadline = time.monotonic() + timeout
        while True:
            with self._lock:
                if len(self.bodies) >= count:
                    return list(self.bodies)
            if time.monotonic() > deadline:
                raise TimeoutError(f"{len(self.bodies)} of {count} messages arrived")
            time.sleep(0.02)  # another thread's server: no event to await here

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
