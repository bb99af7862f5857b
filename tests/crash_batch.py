"""A batch of one invoice whose process dies in the middle of the approved call.

Run as a script it plays a kernel that died while a batch row's call ran: it
runs the batch on a SQLite ledger with every call approved, and the tool kills
its own process with SIGKILL, after its effect (`--after`) or before it
(`--before`). The ledger keeps the claim with no result: the call is in doubt,
and a new `AgentBatch` of the same name on the same ledger finds it there.

    python tests/crash_batch.py LEDGER RUNS --after|--before
"""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path
from typing import Any

from crash_agent import CRASH, billing_agent
from interrupt_widget import AgentBatch, responders

ASK = "Please send_invoice customer=ACME"
"""The one row's prompt: the offline model calls send_invoice for ACME."""

NAME = "billing"
"""The batch's name (with the row's key, its thread id)."""


def billing_batch(ledger: Path, runs: Path, **options: Any) -> AgentBatch:
    """The batch of one row (key `0`) on the SQLite ledger at `ledger`."""
    return AgentBatch(billing_agent(runs), [ASK], name=NAME, ledger=str(ledger), **options)


async def _approve_and_die(ledger: Path, runs: Path) -> None:
    await billing_batch(ledger, runs, responder=responders.approve_all())


if __name__ == "__main__":
    ledger_path, runs_path, when = sys.argv[1:4]
    os.environ[CRASH] = when.removeprefix("--")
    asyncio.run(_approve_and_die(Path(ledger_path), Path(runs_path)))
