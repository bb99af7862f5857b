"""A gated bank tool whose every real run appends one line to a file.

The fault tests count the tool's runs from that file, never from the kit's
own bookkeeping. `serve` loads `bank:agent` (with this folder on the path),
which reads the file's location from `BANK_RUNS_FILE`; when `BANK_HOLD_FILE`
names a file, each run, once its line is written, waits for that file to
disappear, so a test can kill the server while the tool is running.

The tool carries a `tool_input_guardrail` that refuses any transfer over
`LIMIT`, as a real bank agent's would: the SDK applies it to every approved
call, so a transfer over the limit never runs whatever a person answers.
"""

from __future__ import annotations

import asyncio
import json
import os
import pathlib
import time
from collections.abc import Callable
from typing import Any

from agents import (
    Agent,
    Model,
    ToolGuardrailFunctionOutput,
    ToolInputGuardrailData,
    function_tool,
    tool_input_guardrail,
)

from interrupt_widget.sdk.offline_model import OfflineModel

RUNS_ENV = "BANK_RUNS_FILE"
HOLD_ENV = "BANK_HOLD_FILE"
SERVED_ENV = "BANK_SERVED_FILE"
"""When set, every model turn appends the serving process's pid to this file."""
HOLD_LIMIT_SECONDS = 120.0
"""A held run gives up after this long, so no server a test forgot can run on for ever."""
LIMIT = 1000
"""The largest amount the guardrail lets through; the tests' transfers stay below it."""
REFUSED = f"Refused: transfers over {LIMIT} are not allowed."
"""What the guardrail tells the model instead of running a transfer over `LIMIT`."""


@tool_input_guardrail
def at_most_limit(data: ToolInputGuardrailData) -> ToolGuardrailFunctionOutput:
    """Refuse a transfer over `LIMIT`, approved or not."""
    arguments = json.loads(data.context.tool_arguments or "{}")
    if float(arguments.get("amount", 0)) > LIMIT:
        return ToolGuardrailFunctionOutput.reject_content(REFUSED)
    return ToolGuardrailFunctionOutput.allow()


def bank_agent(
    runs: pathlib.Path,
    *,
    hold: pathlib.Path | None = None,
    model: Model | None = None,
    fault: Callable[[], None] | None = None,
) -> Agent[Any]:
    """An agent with one gated tool, `transfer_funds(amount, to)`, recording its runs in `runs`.

    `fault`, when given, is called (in a worker thread) once the run's line is written: a
    test breaks the ledger's database there, between the call's claim and its result.
    """

    @function_tool(needs_approval=True, tool_input_guardrails=[at_most_limit])
    async def transfer_funds(amount: float, to: str) -> str:
        """Send `amount` to `to`; a person approves each transfer."""
        line = json.dumps({"tool": "transfer_funds", "amount": amount, "to": to})
        await asyncio.to_thread(_transfer, runs, line, hold)
        if fault is not None:
            await asyncio.to_thread(fault)
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


class _NotingModel(OfflineModel):
    """The offline model, noting which process serves each model turn (which worker)."""

    def __init__(self, served: pathlib.Path) -> None:
        super().__init__()
        self._served = served

    def _note(self) -> None:
        with self._served.open("a", encoding="utf-8") as file:
            file.write(f"{os.getpid()}\n")

    async def get_response(self, *args: Any, **kwargs: Any) -> Any:
        self._note()
        return await super().get_response(*args, **kwargs)

    def stream_response(self, *args: Any, **kwargs: Any) -> Any:
        self._note()
        return super().stream_response(*args, **kwargs)


def agent() -> Agent[Any]:
    """The agent `serve bank:agent` runs, configured from the environment."""
    hold = os.environ.get(HOLD_ENV)
    served = os.environ.get(SERVED_ENV)
    return bank_agent(
        pathlib.Path(os.environ[RUNS_ENV]),
        hold=pathlib.Path(hold) if hold else None,
        model=_NotingModel(pathlib.Path(served)) if served else None,
    )


def served_by(path: pathlib.Path) -> list[int]:
    """The pid of the process that served each model turn noted in `path`, oldest first."""
    if not path.exists():
        return []
    return [int(line) for line in path.read_text(encoding="utf-8").split()]


def runs(path: pathlib.Path) -> list[dict[str, Any]]:
    """Every real run of the tool recorded in `path`, oldest first."""
    if not path.exists():
        return []
    lines = path.read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]
