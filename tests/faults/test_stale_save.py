"""A stale save loaded and approved in a new kernel runs nothing again."""

from __future__ import annotations

import pathlib
from collections.abc import Iterator
from typing import Any

import pytest
from bank import runs
from jupyter_client.blocking.client import BlockingKernelClient
from jupyter_client.manager import KernelManager
from served import HERE

KERNEL_DEADLINE = 120.0


class Kernel:
    """A real ipykernel; `run` executes a cell and returns what it printed."""

    def __init__(self) -> None:
        self.manager = KernelManager(kernel_name="python3")
        self.manager.start_kernel(extra_arguments=["--HistoryManager.enabled=False"])
        self.client: BlockingKernelClient = self.manager.blocking_client()
        self.client.start_channels()
        self.client.wait_for_ready(timeout=KERNEL_DEADLINE)

    def run(self, code: str) -> str:
        out: list[str] = []

        def keep(msg: dict[str, Any]) -> None:
            if msg["msg_type"] == "stream":
                out.append(msg["content"]["text"])
            elif msg["msg_type"] == "error":
                out.append("\n".join(msg["content"]["traceback"]))

        reply = self.client.execute_interactive(code, timeout=KERNEL_DEADLINE, output_hook=keep)
        assert reply["content"]["status"] == "ok", "".join(out)
        return "".join(out)

    def close(self) -> None:
        self.client.stop_channels()
        self.manager.shutdown_kernel(now=True)


@pytest.fixture
def kernels() -> Iterator[list[Kernel]]:
    started: list[Kernel] = []
    yield started
    for kernel in started:
        kernel.close()


SETUP = """
import sys, pathlib
sys.path.insert(0, {here!r})
from bank import bank_agent
from interrupt_widget import AgentChat
from interrupt_widget.testing import until
runs = pathlib.Path({runs!r})
"""


def test_a_stale_save_approved_in_a_new_kernel_runs_nothing_again(
    kernels: list[Kernel], runs_file: pathlib.Path, tmp_path: pathlib.Path
) -> None:
    saved = tmp_path / "waiting.json"
    first = Kernel()
    kernels.append(first)
    first.run(SETUP.format(here=str(HERE), runs=str(runs_file)))
    first.run(
        "chat = AgentChat(bank_agent(runs))\n"
        "chat.send('transfer_funds amount=5 to=bob')\n"
        "await until(chat, lambda: chat.status == 'waiting')\n"
        f"chat.save({str(saved)!r})\n"
        "chat.picker.resolve({'approved': True}, by='user')\n"
        "result = await chat.last_run\n"
        "print(result.outcome)"
    )
    assert len(runs(runs_file)) == 1
    first.close()
    kernels.remove(first)

    second = Kernel()
    kernels.append(second)
    second.run(SETUP.format(here=str(HERE), runs=str(runs_file)))
    out = second.run(
        f"stale = AgentChat.load({str(saved)!r}, bank_agent(runs))\n"
        "stale.picker.resolve({'approved': True}, by='user')\n"
        "result = await stale.last_run\n"
        "print(result.outcome)\n"
        "print(result.text)"
    )
    assert "Sent 5.00 to bob." in out
    assert "Not run" not in out
    assert len(runs(runs_file)) == 1
