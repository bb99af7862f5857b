"""A kernel a Jupyter server started (for a notebook path, or with no notebook at all), driven
on its main shell as a cell would be, from the test's process."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Protocol

from jupyter_client.blocking.client import BlockingKernelClient


class KernelHost(Protocol):
    """A Jupyter server as the tests reach it: a `JupyterServer`, or a person's server on a hub."""

    @property
    def runtime_dir(self) -> Path: ...

    def api(self, method: str, path: str, body: Any = None) -> Any: ...


class ServerKernel:
    """`ServerKernel(server, "pay.ipynb")`: a session's kernel; `path=None`: a bare kernel."""

    def __init__(self, server: KernelHost, path: str | None) -> None:
        if path is None:
            self.id = server.api("POST", "/api/kernels", {"name": "python3"})["id"]
        else:
            body = {"path": path, "type": "notebook", "kernel": {"name": "python3"}}
            self.id = server.api("POST", "/api/sessions", body)["kernel"]["id"]
        self.client = BlockingKernelClient()
        self.client.load_connection_file(str(server.runtime_dir / f"kernel-{self.id}.json"))
        self.client.start_channels()
        self._ready(server, deadline=time.monotonic() + 60)

    def _ready(self, server: KernelHost, deadline: float) -> None:
        """Wait for the kernel's first reply. A client without a kernel manager takes one
        missed heartbeat (a 1 s window) for a dead kernel, as a loaded machine can make it
        miss: then the server says whether the kernel lives, and a live one is waited for."""
        while True:
            try:
                self.client.wait_for_ready(timeout=max(deadline - time.monotonic(), 1))
                return
            except RuntimeError:
                state = server.api("GET", f"/api/kernels/{self.id}").get("execution_state")
                if state == "dead" or time.monotonic() > deadline:
                    raise

    def run(self, code: str) -> None:
        """Run `code` as a cell; fail the test with its error if it raises."""
        reply = self.client.execute_interactive(code, timeout=60, output_hook=lambda _m: None)
        assert reply["content"]["status"] == "ok", reply["content"]

    def eval(self, expression: str) -> Any:
        """The value of `expression` in the kernel (its repr, read back with literal_eval)."""
        import ast

        reply = self.client.execute_interactive(
            "", user_expressions={"v": expression}, timeout=60, output_hook=lambda _m: None
        )
        found = reply["content"]["user_expressions"]["v"]
        assert found["status"] == "ok", found
        return ast.literal_eval(found["data"]["text/plain"])

    def close(self) -> None:
        self.client.stop_channels()
