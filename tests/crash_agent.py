"""A billing agent whose gated tool counts its runs in a file, and can die mid-call.

Run as a script it plays a kernel that died while a call ran: it loads a saved
chat, approves its open call, and the tool kills its own process with SIGKILL,
after its effect (`--after`) or before it (`--before`), so the claim stays in the
ledger with no result: the call is in doubt.

    python tests/crash_agent.py SAVE LEDGER RUNS --after|--before
"""

from __future__ import annotations

import asyncio
import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

from agents import Agent, function_tool

from interrupt_widget import AgentChat, OfflineModel, responders

CRASH = "CRASH_AGENT_DIES"
"""`after` or `before`: when the tool kills its process (unset: it never does)."""


def billing_agent(runs: Path) -> Agent:
    """`send_invoice(customer)`, gated; each real run appends the customer to `runs`."""

    @function_tool(needs_approval=True)
    def send_invoice(customer: str) -> str:
        """Send an invoice to `customer`."""
        if os.environ.get(CRASH) == "before":
            os.kill(os.getpid(), signal.SIGKILL)
        with runs.open("a", encoding="utf-8") as journal:
            journal.write(customer + "\n")
        if os.environ.get(CRASH) == "after":
            os.kill(os.getpid(), signal.SIGKILL)
        return f"Invoice sent to {customer}."

    return Agent(name="billing", model=OfflineModel(), tools=[send_invoice])


def runs_of(runs: Path) -> list[str]:
    """The customers invoiced, one per real run of the tool."""
    return runs.read_text(encoding="utf-8").splitlines() if runs.exists() else []


def claimed_by_the_dead(db: Path, thread_id: str, call_id: str) -> None:
    """The row a process leaves in a SQLite ledger when it dies between claim and result
    (as kill -9 leaves it): the call is in doubt."""
    gone = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    with sqlite3.connect(db) as connection:
        connection.execute(
            "INSERT INTO approved_calls (thread_id, call_id, state, owner, owner_host, owner_pid, "
            "claimed_at) VALUES (?, ?, 'claimed', 'gone', ?, ?, 0)",
            (thread_id, call_id, os.uname().nodename, int(gone.stdout)),
        )


async def _approve_and_die(save: Path, ledger: Path, runs: Path) -> None:
    chat = AgentChat.load(
        save, billing_agent(runs), ledger=str(ledger), responder=responders.approve_all()
    )
    run = chat.last_run
    assert run is not None, "the saved chat was not waiting for an answer"
    await run


if __name__ == "__main__":
    save_path, ledger_path, runs_path, when = sys.argv[1:5]
    os.environ[CRASH] = when.removeprefix("--")
    asyncio.run(_approve_and_die(Path(save_path), Path(ledger_path), Path(runs_path)))
