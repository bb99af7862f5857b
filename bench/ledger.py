"""The price of exactly-once across replicas: `SQLiteLedger` against the in-memory ledger.

Each approved call goes through `ledger.run_once((thread, call), tool)`, as the
adapter does before it runs a call a person approved. First runs claim, run
and record (what the replica that wins pays); replays return the recorded
output (what a second replica, or a retried resume, pays). The tool itself is
a no-op so only the ledger is timed. Both ledgers run in one process,
interleaved; the SQLite file sits in a temporary folder on the local disk.

Run: .venv/bin/python bench/ledger.py [--calls 300]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path

from interrupt_widget import SQLiteLedger
from interrupt_widget.execution_ledger import CallLedger, ExecutionLedger


async def _tool() -> str:
    return "done"


async def _time(ledger: CallLedger, keys: list[tuple[str, str]]) -> list[float]:
    samples = []
    for key in keys:
        start = time.perf_counter()
        await ledger.run_once(key, _tool)
        samples.append((time.perf_counter() - start) * 1000)
    return samples


def _row(name: str, memory: list[float], sqlite: list[float]) -> str:
    m, s = statistics.median(memory), statistics.median(sqlite)
    p95 = statistics.quantiles(sqlite, n=20)[-1]
    return (
        f"{name:<20} in memory {m:8.3f} ms   sqlite {s:8.3f} ms (p95 {p95:.2f})"
        f"   ratio {s / m:7.1f}"
    )


async def main(calls: int) -> None:
    keys = [(f"thread-{i % 7}", f"call-{i}") for i in range(calls)]
    with tempfile.TemporaryDirectory() as folder:
        memory = ExecutionLedger()
        sqlite = SQLiteLedger(Path(folder) / "calls.db")
        await _time(memory, keys[:20])  # warm both up on keys of their own
        await _time(sqlite, [(t, c + "-warm") for t, c in keys[:20]])
        first_m = await _time(memory, keys)
        first_s = await _time(sqlite, keys)
        replay_m = await _time(memory, keys)
        replay_s = await _time(sqlite, keys)
    print(f"{calls} approved calls, a no-op tool; medians")
    print(_row("claim, run, record", first_m, first_s))
    print(_row("replay", replay_m, replay_s))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=300)
    asyncio.run(main(parser.parse_args().calls))
