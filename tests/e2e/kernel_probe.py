"""Run code in the very kernel a notebook page is using, to check facts where they happen.

The probe attaches to the kernel's connection file in the server's runtime dir and works
on its own kernel subshell, so it answers even while a notebook cell is suspended in
``await`` (the main shell is busy then) and never shows up in the page's cells.
"""

from __future__ import annotations

import ast
import contextlib
import queue
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from jupyter_client.blocking.client import BlockingKernelClient


class KernelError(AssertionError):
    """Code sent by the probe raised in the kernel."""


class KernelProbe:
    """A second client on a running kernel, executing on a private subshell."""

    def __init__(self, connection_file: Path, *, timeout: float = 20.0) -> None:
        self._timeout = timeout
        self._client = BlockingKernelClient()
        self._client.load_connection_file(str(connection_file))
        # No `wait_for_ready`: its kernel_info request goes to the main shell, which stays
        # busy while a cell awaits. The control channel answers at once instead.
        self._client.start_channels()
        self._subshell_id = self._create_subshell()

    def _create_subshell(self) -> str:
        request = self._client.session.msg("create_subshell_request", {})
        self._client.control_channel.send(request)
        reply = self._reply(self._client.control_channel.get_msg, request)
        subshell_id: str = reply["content"]["subshell_id"]
        return subshell_id

    def _reply(
        self, get_msg: Callable[..., dict[str, Any]], request: dict[str, Any]
    ) -> dict[str, Any]:
        deadline = time.monotonic() + self._timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError(f"no reply to {request['header']['msg_type']}")
            message = get_msg(timeout=remaining)
            if message["parent_header"].get("msg_id") == request["header"]["msg_id"]:
                return message

    def execute(self, code: str) -> None:
        """Run ``code`` in the kernel's namespace; raise :class:`KernelError` if it fails."""
        self._run(code, {})

    def eval(self, expression: str) -> Any:
        """The value of a Python ``expression`` in the kernel (a literal: str, number, list...)."""
        result = self._run("", {"value": expression})["value"]
        if result["status"] != "ok":
            raise KernelError(f"{expression!r} raised {result['ename']}: {result['evalue']}")
        return ast.literal_eval(result["data"]["text/plain"])

    def wait_for(
        self,
        expression: str,
        predicate: Callable[[Any], bool] = bool,
        *,
        timeout: float | None = None,
    ) -> Any:
        """Poll ``expression`` in the kernel until ``predicate`` holds; return its value.

        The kernel has no event a second client could subscribe to, so this asks again
        until the state shows up (each ask is a full round trip, a few ms).
        """
        deadline = time.monotonic() + (timeout or self._timeout)
        while True:
            value = self.eval(expression)
            if predicate(value):
                return value
            if time.monotonic() > deadline:
                raise AssertionError(f"kernel: {expression} is still {value!r}")
            time.sleep(0.05)

    def _run(self, code: str, user_expressions: dict[str, str]) -> dict[str, Any]:
        content = {
            "code": code,
            "silent": True,
            "store_history": False,
            "user_expressions": user_expressions,
            "allow_stdin": False,
            "stop_on_error": False,
        }
        request = self._client.session.msg("execute_request", content)
        request["header"]["subshell_id"] = self._subshell_id
        self._client.shell_channel.send(request)
        reply = self._reply(self._client.shell_channel.get_msg, request)["content"]
        if reply["status"] != "ok":
            raise KernelError(f"{reply.get('ename')}: {reply.get('evalue')}\n{code}")
        expressions: dict[str, Any] = reply["user_expressions"]
        return expressions

    def close(self) -> None:
        request = self._client.session.msg(
            "delete_subshell_request", {"subshell_id": self._subshell_id}
        )
        self._client.control_channel.send(request)
        # The kernel may already be gone at teardown; there is nothing left to free then.
        with contextlib.suppress(TimeoutError, queue.Empty):
            self._reply(self._client.control_channel.get_msg, request)
        self._client.stop_channels()
