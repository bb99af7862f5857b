"""The price of a durable exactly-once: each ledger's cost per approved call.

For each approved call the adapter asks its ledger whether the call already
ran (`recorded`), then claims, runs and records it (`run_once`): that pair is
timed here as "first run". A later answer to the same interrupt (a retried
resume, a second replica, a late deny) costs one `recorded`: "replay". The
tool is a no-op so only the ledger is timed. "Audited" is the first run with
the audit note a run writes once it holds the claim (who answered, when, the
arguments' hash: `interrupt_widget.ledger.noting_ledger`). Ledgers, run in one
process:

- in memory: `MemoryLedger`, the default until this release, now only by name;
- SQLite: the default, one file on the local disk (two synced commits per call);
- PostgreSQL: a real server started for the run (Debian's package, 127.0.0.1,
  data in a temporary folder, default durability settings); skipped when
  PostgreSQL is not installed (`scripts/ensure-postgresql`).

Run: .venv/bin/python bench/ledger.py [--calls 300] [--quick]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import statistics
import sys
import tempfile
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

from interrupt_widget import SQLiteLedger
from interrupt_widget.ledger.audit import arguments_sha256
from interrupt_widget.ledger.memory import MemoryLedger
from interrupt_widget.ledger.noting_ledger import Answered, AuditedLedger
from interrupt_widget.ledger.once_only import CallLedger

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
from postgres_server import binaries, fresh_database, running_postgres

QUICK_HELP = "the smallest sizes: check that the bench runs (make bench-smoke), not a figure"

ANSWER = {"approved": True, "note": "as the picker sends it"}
NOTE = Answered(
    tool="send_invoice",
    arguments_sha256=arguments_sha256({"customer": "ACME"}),
    decision="approved",
    answer=ANSWER,
    by="view:bench",
    at=datetime.now(UTC),
    executed_arguments_sha256=arguments_sha256({"customer": "ACME"}),
)


async def _tool() -> str:
    return "done"


async def _first(ledger: CallLedger, keys: list[tuple[str, str]]) -> list[float]:
    samples = []
    for key in keys:
        start = time.perf_counter()
        if await ledger.recorded(key) is None:
            await ledger.run_once(key, _tool, answer=ANSWER)
        samples.append((time.perf_counter() - start) * 1000)
    return samples


async def _noted(ledger: AuditedLedger, key: tuple[str, str]) -> str:
    # As a run does: noted once the claim is held, before the tool runs.
    await ledger.note_answered(*key, NOTE)
    return await _tool()


async def _audited(ledger: CallLedger, keys: list[tuple[str, str]]) -> list[float]:
    assert isinstance(ledger, AuditedLedger)
    samples = []
    for key in keys:
        start = time.perf_counter()
        if await ledger.recorded(key) is None:
            await ledger.run_once(key, functools.partial(_noted, ledger, key), answer=ANSWER)
        samples.append((time.perf_counter() - start) * 1000)
    return samples


async def _replay(ledger: CallLedger, keys: list[tuple[str, str]]) -> list[float]:
    samples = []
    for key in keys:
        start = time.perf_counter()
        assert await ledger.recorded(key) is not None
        samples.append((time.perf_counter() - start) * 1000)
    return samples


def _row(
    name: str, first: list[float], replay: list[float], audited: list[float], memory: float
) -> str:
    m = statistics.median(first)
    p95 = statistics.quantiles(first, n=20)[-1]
    return (
        f"{name:<12} first run {m:8.3f} ms (p95 {p95:7.2f}, {m - memory:+8.3f} ms vs memory)"
        f"   replay {statistics.median(replay):7.3f} ms"
        f"   audited {statistics.median(audited):8.3f} ms"
    )


@contextlib.contextmanager
def _postgres() -> Iterator[str | None]:
    if binaries() is None:
        yield None
        return
    with running_postgres() as url:
        yield fresh_database(url)


async def main(calls: int) -> None:
    keys = [(f"thread-{i % 7}", f"call-{i}") for i in range(calls)]
    warm = [(t, c + "-warm") for t, c in keys[:20]]
    with tempfile.TemporaryDirectory() as folder, _postgres() as pg_url:
        ledgers: dict[str, CallLedger] = {
            "in memory": MemoryLedger(),
            "SQLite": SQLiteLedger(Path(folder) / "calls.db"),
        }
        if pg_url is not None:
            from interrupt_widget.ledger.postgres import PostgresLedger

            ledgers["PostgreSQL"] = PostgresLedger(pg_url)
        results = {}
        for name, ledger in ledgers.items():
            await _first(ledger, warm)
            first = await _first(ledger, keys)
            replay = await _replay(ledger, keys)
            audited = await _audited(ledger, [(t, c + "-audited") for t, c in keys])
            results[name] = (first, replay, audited)
    memory = statistics.median(results["in memory"][0])
    print(f"{calls} approved calls, a no-op tool; medians")
    for name, (first, replay, audited) in results.items():
        print(_row(name, first, replay, audited, memory))
    if "PostgreSQL" in results:
        pg, sq = (statistics.median(results[n][0]) for n in ("PostgreSQL", "SQLite"))
        print(f"PostgreSQL / SQLite per approved call: {pg / sq:.2f}x")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--quick", action="store_true", help=QUICK_HELP)
    args = parser.parse_args()
    asyncio.run(main(10 if args.quick else args.calls))
