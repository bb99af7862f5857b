"""One of several processes settling the same calls through one SQLite ledger file.

`work` runs in a process forked by the test (so it imports nothing, and eight of
them start at once): it waits for `start`, opens the ledger, settles `keys` calls
concurrently, each call appending `key worker` to `runs` when it really runs, and
writes one JSON object to `report`: each key's output, or the error it ended with.
"""

from __future__ import annotations

import asyncio
import json
import os
import pathlib
from multiprocessing.synchronize import Event
from typing import Any

from interrupt_widget import CallInDoubt, LedgerUnavailable, SQLiteLedger

START_LIMIT = 60.0


def append(runs: pathlib.Path, line: str) -> None:
    descriptor = os.open(runs, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
    try:
        os.write(descriptor, (line + "\n").encode())
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


async def settle(ledger: SQLiteLedger, runs: pathlib.Path, worker: int, key: str) -> str:
    async def transfer() -> str:
        await asyncio.to_thread(append, runs, f"{key} {worker}")
        return f"{key} sent by {worker}"

    try:
        return await ledger.run_once(("thread", key), transfer)
    except (LedgerUnavailable, CallInDoubt) as error:
        return f"error {type(error).__name__}: {error}"


async def settle_all(
    ledger: SQLiteLedger, runs: pathlib.Path, worker: int, keys: int
) -> dict[str, str]:
    names = [f"call-{n}" for n in range(keys)]
    order = names[worker % keys :] + names[: worker % keys]
    outputs = await asyncio.gather(*(settle(ledger, runs, worker, key) for key in order))
    return dict(zip(order, outputs, strict=True))


def work(
    ledger_path: pathlib.Path,
    runs: pathlib.Path,
    start: Event,
    worker: int,
    keys: int,
    report: pathlib.Path,
) -> None:
    """The body of one worker process (see the module docs)."""
    if not start.wait(START_LIMIT):
        raise SystemExit("never started")
    ledger = SQLiteLedger(ledger_path)  # every worker opens the new file at the same moment
    outputs = asyncio.run(settle_all(ledger, runs, worker, keys))
    report.write_text(json.dumps(outputs))


def cut_power(ledger_path: pathlib.Path, disk: pathlib.Path) -> None:
    """Copy the ledger's file and WAL to `disk`: the disk as a power cut at this moment may
    leave it (each caller says which commits that keeps)."""
    for suffix in ("", "-wal"):
        source = ledger_path.with_name(ledger_path.name + suffix)
        (disk / source.name).write_bytes(source.read_bytes())


def run_then_lose_power(ledger_path: pathlib.Path, runs: pathlib.Path, disk: pathlib.Path) -> None:
    """Run one call; from inside its tool, once its claim is committed and synced, copy the
    ledger's file and WAL to `disk`: what a power cut leaves when it comes before anything
    after the claim is synced (the result's commit, which has no sync of its own)."""

    async def transfer() -> str:
        await asyncio.to_thread(append, runs, "call-0 ran")
        cut_power(ledger_path, disk)
        return "call-0 sent"

    ledger = SQLiteLedger(ledger_path)
    assert asyncio.run(ledger.run_once(("thread", "call-0"), transfer)) == "call-0 sent"


POWER_ROW = "transfer_funds amount=80 to=acct-7"
"""The one row of `batch_then_lose_power`'s batch, named `power-cut`."""


async def power_batch(ledger_path: pathlib.Path, runs: pathlib.Path) -> tuple[Any, ...]:
    """`power-cut`'s one row on the ledger at `ledger_path`, its call approved by a policy;
    each run of the tool is a line in `runs`."""
    from agents import Agent, function_tool

    from interrupt_widget import AgentBatch, OfflineModel, Policy, approve

    @function_tool(needs_approval=True)
    async def transfer_funds(amount: float, to: str) -> str:
        """Send `amount` to `to`."""
        await asyncio.to_thread(append, runs, f"{to} ran")
        return f"Sent {amount:.2f} to {to}."

    agent = Agent(name="payouts", tools=[transfer_funds], model=OfflineModel())
    batch = AgentBatch(
        agent,
        [POWER_ROW],
        name="power-cut",
        policy=Policy(approve("transfer_funds")),
        ledger=SQLiteLedger(ledger_path),
    )
    return tuple(await batch)


def batch_then_lose_power(
    ledger_path: pathlib.Path, runs: pathlib.Path, disk: pathlib.Path
) -> None:
    """Run `power_batch`; just before the row's outcome is written (committed without a sync
    of its own), copy the ledger's file and WAL to `disk`: what a power cut leaves when the
    disk kept the call's claim and result but not the outcome."""
    from interrupt_widget.batch import records

    write = records.write

    async def cut_first(*args: Any, **kwargs: Any) -> Any:
        cut_power(ledger_path, disk)
        return await write(*args, **kwargs)

    records.write = cut_first  # type: ignore[assignment]
    [result] = asyncio.run(power_batch(ledger_path, runs))
    assert result.status == "done", result
