"""A batch run in a process of its own, for the kill -9 test: `python batch_kernel.py RUNS STUCK N`.

Runs `N` transfers (`to` = `acct-<n>`) through `AgentBatch` with every call approved,
eight at a time (so that their claims and results share commits), on the ledger
`INTERRUPT_WIDGET_LEDGER` names. Each real run of the
tool appends a line to RUNS; the run to `STUCK` then never returns, so the process
can be killed in the middle of it. A row whose call an earlier, killed run left in
doubt waits for a person's word: once nothing else moves, this process checks RUNS for
the call's line, as an operator would check its effect, and says it ran or did not.
At the end it prints each row's status, code, whether it replayed, and whether its
call was in doubt.
"""

from __future__ import annotations

import asyncio
import json
import os
import pathlib
import sys
from typing import Any

from agents import Agent, function_tool, set_tracing_disabled

from interrupt_widget import AgentBatch, OfflineModel, responders
from interrupt_widget.testing import batch_until


def main(runs: pathlib.Path, stuck: str, count: int) -> None:
    @function_tool(needs_approval=True)
    async def transfer_funds(amount: float, to: str) -> str:
        """Send `amount` to `to`."""
        with runs.open("a", encoding="utf-8") as file:
            file.write(json.dumps({"to": to}) + "\n")
            file.flush()
            os.fsync(file.fileno())
        if to == stuck:
            await asyncio.sleep(120)  # cut off here by the test's kill -9
        return f"Sent {amount:.2f} to {to}."

    agent = Agent(name="payouts", tools=[transfer_funds], model=OfflineModel())
    rows = [f"transfer_funds amount={n + 1} to=acct-{n}" for n in range(count)]
    batch = AgentBatch(agent, rows, concurrency=8, responder=responders.approve_all())
    results, doubted = asyncio.run(_all(batch, runs))
    print(json.dumps([[r.key, r.status, r.code, r.replayed, r.key in doubted] for r in results]))


async def _all(batch: AgentBatch, runs: pathlib.Path) -> tuple[tuple[Any, ...], set[str]]:
    batch.start()
    settled = ("done", "failed", "cancelled")
    await batch_until(
        batch,
        lambda: all(row.status in settled or row.doubts for row in batch.rows),
        timeout=300,
    )
    doubted = {row.key for row in batch.rows if row.doubts}
    for waiting in batch.waiting():
        if waiting.doubt:  # the operator checks the effect: the tool's line in RUNS
            to = waiting.arguments["to"]
            ran = _ran(runs, to)
            output = f"Sent to {to} (checked by hand)." if ran else None
            batch.row(waiting.key).settle(
                waiting.interrupt.id, ran=ran, output=output, by="operator"
            )
    return await batch, doubted


def _ran(runs: pathlib.Path, to: str) -> bool:
    """Whether the tool's line for `to` is in RUNS (the effect happened)."""
    return any(json.loads(line)["to"] == to for line in runs.read_text().splitlines())


if __name__ == "__main__":
    set_tracing_disabled(True)
    main(pathlib.Path(sys.argv[1]), sys.argv[2], int(sys.argv[3]))
