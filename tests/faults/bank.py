"""A gated bank tool whose every real run appends one line to a file.

The fault tests count the tool's runs from that file, never from the kit's
own bookkeeping. `serve` loads `bank:agent` (with this folder on the path),
which reads the file's location from `BANK_RUNS_FILE`; when `BANK_HOLD_FILE`
names a file, each run, once its line is written, waits for that file to
disappear, so a test can kill the server while the tool is running.
"""

from __future__ import annotations

import asyncio
import json
import os
import pathlib
import time
from typing import Any

from agents import Agent, Model, function_tool

from interrupt_widget.offline_model import OfflineModel

RUNS_ENV = "BANK_RUNS_FILE"
HOLD_ENV = "BANK_HOLD_FILE"
HOLD_LIMIT_SECONDS = 120.0
"""A held run gives up after this long, so no server a test forgot can run on for ever."""


def bank_agent(
    runs: pathlib.Path, *, hold: pathlib.Path | None = None, model: Model | None = None
) -> Agent[Any]:
    """An agent with one gated tool, `transfer_funds(amount, to)`, recording its runs in `runs`."""

    @function_tool(needs_approval=True)
    async def transfer_funds(amount: float, to: str) -> str:
        """Send `amount` to `to`; a person approves each transfer."""
        line = json.dumps({"tool": "transfer_funds", "amount": amount, "to": to})
        await asyncio.to_thread(_transfer, runs, line, hold)
        return f"Sent {amount:.2f} to {to}."

    return Agent(
        name="bank",
        instructions="Move money only as asked; each transfer needs approval.",
        tools=[transfer_funds],
        model=model or OfflineModel(),
    )


def _transfer(runs: pathlib.Path, line: str, hold: pathlib.Path | None) -> None:
    with runs.open("a", encoding="utf-8") as file:
        file.write(line + "\n")
        file.flush()
        os.fsync(file.fileno())
    deadline = time.monotonic() + HOLD_LIMIT_SECONDS
    while hold is not None and hold.exists() and time.monotonic() < deadline:
        time.sleep(0.02)  # the tool's own pace, mid-run; no test waits on it


def agent() -> Agent[Any]:
    """The agent `serve bank:agent` runs, configured from the environment."""
    hold = os.environ.get(HOLD_ENV)
    return bank_agent(pathlib.Path(os.environ[RUNS_ENV]), hold=pathlib.Path(hold) if hold else None)


def runs(path: pathlib.Path) -> list[dict[str, Any]]:
    """Every real run of the tool recorded in `path`, oldest first."""
    if not path.exists():
        return []
    lines = path.read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]
