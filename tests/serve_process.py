"""Real `python -m interrupt_widget serve` processes for the tests, and an agent to serve
whose gated tool writes a line to `$RUNS_FILE` each time its body runs (the run count)."""

from __future__ import annotations

import asyncio
import re
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path

from ag_ui.core import (
    BaseEvent,
    MessagesSnapshotEvent,
    ResumeEntry,
    RunAgentInput,
    RunFinishedEvent,
    RunFinishedInterruptOutcome,
    UserMessage,
)

from interrupt_widget.http.client import AGUIClient

DEADLINE = 60.0
"""How long a server may take to start listening."""

_LISTENING = re.compile(r"Uvicorn running on \S+:(\d+) ")


AGENT_MODULE = '''
"""A billing agent whose gated tool writes a line to $RUNS_FILE each time its body runs."""

import asyncio
import os
import pathlib

from agents import Agent, function_tool

from interrupt_widget import OfflineModel


@function_tool(needs_approval=True)
async def send_invoice(customer: str) -> str:
    """Send an invoice to `customer`."""
    with open(os.environ["RUNS_FILE"], "a") as runs:
        runs.write(f"{customer} {os.getpid()}\\n")
    gate = os.environ.get("GATE_FILE")
    while gate and not pathlib.Path(gate).exists():  # held mid-tool until the gate appears
        await asyncio.sleep(0.01)
    return f"Invoice sent to {customer}."


agent = Agent(name="billing", model=OfflineModel(), tools=[send_invoice])
'''


class Served:
    """A `serve` process; its log is read on a thread so the pipe never fills.

    Without a `port` it listens on one the kernel picks as it binds and reads it back from
    the log: a port picked beforehand can be taken by someone else before the server binds."""

    def __init__(self, args: list[str], env: dict[str, str], *, port: int | None = None) -> None:
        self.port = port or 0
        self.process = subprocess.Popen(
            [sys.executable, "-m", "interrupt_widget", "serve", *args, "--port", str(self.port)],
            env=env,
            stderr=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            text=True,
        )
        self.log: list[str] = []
        self._ready = threading.Event()
        threading.Thread(target=self._read, daemon=True).start()

    @property
    def url(self) -> str:
        assert self.port, "the server is not listening yet: wait_ready() first"
        return f"http://127.0.0.1:{self.port}/"

    def _read(self) -> None:
        assert self.process.stderr is not None
        for line in self.process.stderr:
            self.log.append(line)
            listening = _LISTENING.search(line)
            if listening:
                self.port = int(listening.group(1))
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


async def until_written(check: Callable[[], bool]) -> None:
    """Wait for state another process writes (a file): there is nothing to await but a look."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + DEADLINE
    while not check():
        assert loop.time() < deadline, "the state never came"
        await asyncio.sleep(0.02)


def write_agent_module(folder: Path) -> str:
    """Write the agent module into `folder` (put it on PYTHONPATH); its serve target."""
    (folder / "counted_billing.py").write_text(AGENT_MODULE)
    return "counted_billing:agent"


async def paused_invoice(url: str) -> RunAgentInput:
    """Ask for an invoice on `url`; the resume that approves it."""
    ask = RunAgentInput(
        thread_id="thread-billing",
        run_id="run-1",
        messages=[UserMessage(id="u1", content="Please send_invoice customer=ACME")],
    )
    events = [e async for e in AGUIClient(url).run(ask)]
    finished = events[-1]
    assert isinstance(finished, RunFinishedEvent)
    assert isinstance(finished.outcome, RunFinishedInterruptOutcome)
    [interrupt] = finished.outcome.interrupts
    snapshot = next(e for e in reversed(events) if isinstance(e, MessagesSnapshotEvent))
    entry = ResumeEntry(interrupt_id=interrupt.id, status="resolved", payload={"approved": True})
    return RunAgentInput(
        thread_id="thread-billing", run_id="run-2", messages=snapshot.messages, resume=[entry]
    )


async def events_of(url: str, request: RunAgentInput) -> list[BaseEvent]:
    return [e async for e in AGUIClient(url).run(request)]
