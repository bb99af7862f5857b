"""Rows per second through `AgentBatch`, against the raw SDK; what the inbox sends for 500 calls.

1. Throughput: `--rows` bank transfers (1,000 by default), the offline model, a
   policy that approves every transfer, `--concurrency` runs at once (16). The
   baseline is the same agent and rows through the raw SDK: `asyncio.gather` over
   the rows with an `asyncio.Semaphore(16)`, each row `Runner.run_streamed` drained,
   then `RunState.approve` for each interruption and `Runner.run_streamed(agent,
   state)` drained again. The batch is measured with the durable default ledger (a
   SQLite file) and with the in-memory one. Each side is warmed up first (the SDK's
   imports, the inbox's), then `--rounds` rounds run the three side by side, each round
   in another order; the figures are the medians, and a ratio is the median of the
   rounds' own ratios, so a slow minute on a shared machine moves one round, not the
   figure. Goal: the batch >= 0.8x the baseline.
2. The inbox: a batch with `--waiting` (500) calls waiting; the bytes of the
   messages that brought the list to a view (merged deltas, not one per row), the
   time to build the snapshot a view asks for, and Approve on all of them through
   the inbox, each tool run counted.

Run: PYTHONPATH=src .venv/bin/python bench/batch.py [--rows 1000] [--concurrency 16]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import tempfile
import time
import uuid
import warnings
from pathlib import Path
from typing import Any

from agents import Runner, set_tracing_disabled

from interrupt_widget import AgentBatch, OfflineModel, Policy, approve
from interrupt_widget.examples import bank_agent
from interrupt_widget.testing import batch_until, recording_comms, until

BATCH_GOAL = 0.8
"""`AgentBatch` with the durable SQLite ledger: at least this share of the raw SDK's rows/s."""


def rows(count: int) -> list[str]:
    return [
        f"transfer_funds amount={n % 90 + 1} to_account=ACME-{n} memo=m{n}" for n in range(count)
    ]


async def through_batch(texts: list[str], concurrency: int, ledger: Any) -> float:
    agent = bank_agent(OfflineModel())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # the in-memory ledger's warning
        batch = AgentBatch(
            agent,
            texts,
            name=f"bench-{uuid.uuid4().hex[:8]}",
            concurrency=concurrency,
            policy=Policy(approve("transfer_funds")),
            ledger=ledger,
        )
    started = time.perf_counter()
    results = await batch
    elapsed = time.perf_counter() - started
    assert {r.status for r in results} == {"done"}, {r.status for r in results}
    assert agent.executions.count("transfer_funds") == len(texts)
    return elapsed


async def through_sdk(texts: list[str], concurrency: int) -> float:
    agent = bank_agent(OfflineModel())
    slots = asyncio.Semaphore(concurrency)

    async def one(text: str) -> None:
        async with slots:
            result = Runner.run_streamed(agent, text)
            async for _ in result.stream_events():
                pass
            while result.interruptions:
                state = result.to_state()
                for item in result.interruptions:
                    state.approve(item)
                result = Runner.run_streamed(agent, state)
                async for _ in result.stream_events():
                    pass

    started = time.perf_counter()
    await asyncio.gather(*(one(t) for t in texts))
    elapsed = time.perf_counter() - started
    assert agent.executions.count("transfer_funds") == len(texts)
    return elapsed


async def inbox_figures(count: int) -> None:
    agent = bank_agent(OfflineModel())
    with tempfile.TemporaryDirectory() as folder, recording_comms() as recorder:
        batch = AgentBatch(
            agent, rows(count), name="inbox-bench", concurrency=16, ledger=Path(folder) / "c.db"
        )
        inbox = batch.inbox
        channel = recorder.of(inbox)
        batch.start()
        await batch_until(batch, lambda: len(batch.waiting()) == count, timeout=600)
        await until(inbox, lambda: inbox.counts.get("waiting") == count, names=["counts"])
        deltas = [m for m in channel.custom_messages() if m["type"] == "delta"]
        sent = sum(len(json.dumps(m)) for m in deltas)
        largest = max(len(json.dumps(m)) for m in deltas)
        print(
            f"inbox, {count} waiting: {len(deltas)} delta messages, {sent / 1024:.0f} KB in all, "
            f"largest {largest / 1024:.0f} KB ({sent / count:.0f} B per call)"
        )
        started = time.perf_counter()
        channel.deliver({"type": "hello"})
        print(f"snapshot for a view: {1000 * (time.perf_counter() - started):.1f} ms")
        ids = [m for m in channel.custom_messages() if m["type"] == "snapshot"][-1]["items"]
        started = time.perf_counter()
        channel.deliver(
            {
                "type": "answer",
                "requestId": "all",
                "ids": [i["id"] for i in ids],
                "status": "resolved",
                "payload": {"approved": True},
            }
        )
        answered = time.perf_counter() - started
        await batch
        ran = agent.executions.count("transfer_funds")
        print(
            f"approve all {count}: answered in {1000 * answered:.0f} ms, every row done after "
            f"{time.perf_counter() - started:.1f} s; the tool ran {ran} times"
        )
        assert ran == count


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1000)
    parser.add_argument("--concurrency", type=int, default=16)
    parser.add_argument("--waiting", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument(
        "--quick",
        action="store_true",
        help="the smallest sizes: check that the bench runs (make bench-smoke), not a figure",
    )
    args = parser.parse_args()
    if args.quick:
        vars(args).update(rows=40, concurrency=4, waiting=20, rounds=1)
    texts = rows(args.rows)
    sides = {
        "sdk": lambda: through_sdk(texts, args.concurrency),
        "durable": lambda: durable_batch(texts, args.concurrency),
        "memory": lambda: through_batch(texts, args.concurrency, "memory"),
    }
    # Warm each side up: the SDK and the model; the batch's first await imports the inbox.
    await through_sdk(texts[:50], args.concurrency)
    await durable_batch(texts[:50], args.concurrency)
    await through_batch(texts[:50], args.concurrency, "memory")
    seconds: dict[str, list[float]] = {side: [] for side in sides}
    order = list(sides)
    for _ in range(args.rounds):
        for side in order:
            seconds[side].append(await sides[side]())
        order = order[1:] + order[:1]  # another side first next round
    n = args.rows
    rate = {side: n / statistics.median(times) for side, times in seconds.items()}
    ratio = {
        side: statistics.median(s / t for s, t in zip(seconds["sdk"], times, strict=True))
        for side, times in seconds.items()
    }
    print(
        f"{n} rows, concurrency {args.concurrency}, offline model, a policy approving all; "
        f"median of {args.rounds} rounds side by side"
    )
    print(f"raw SDK (gather + semaphore + RunState.approve): {rate['sdk']:7.1f} rows/s")
    verdict = "met" if ratio["durable"] >= BATCH_GOAL else "NOT met"
    print(
        f"AgentBatch, durable SQLite ledger:               {rate['durable']:7.1f} rows/s  "
        f"{ratio['durable']:.2f}x the SDK (goal >= {BATCH_GOAL}x: {verdict})"
    )
    print(
        f"AgentBatch, in-memory ledger:                    {rate['memory']:7.1f} rows/s  "
        f"{ratio['memory']:.2f}x the SDK"
    )
    await inbox_figures(args.waiting)
    if ratio["durable"] < BATCH_GOAL:
        print(
            f"goal not met: AgentBatch with SQLite {ratio['durable']:.2f}x the raw SDK's "
            f"rows/s (goal >= {BATCH_GOAL}x)"
        )
    else:
        print("goal met")


async def durable_batch(texts: list[str], concurrency: int) -> float:
    with tempfile.TemporaryDirectory() as folder:
        return await through_batch(texts, concurrency, Path(folder) / "calls.db")


if __name__ == "__main__":
    set_tracing_disabled(True)
    asyncio.run(main())
