"""AG-UI over HTTP against the same work in process, same offline model.

- Cycle: request -> interrupt -> resume -> final text, one at a time. In
  process: `OpenAIAgentsAdapter.run` twice. Over HTTP: `AGUIClient` against
  `python -m interrupt_widget serve` in its own process on 127.0.0.1 (bearer
  token, fingerprints, SSE), one kept connection pool. Prints the ratio.
- Sustained: 20 clients, each running whole pause + resume cycles back to
  back against the server, first one worker process, then `--workers 2`;
  prints completed cycles per second, the goal (0.8 / in-process cycle time)
  and each cycle's p50 / p99 latency.

Both sides keep their ledger in a SQLite file (the kind the default is), the
server's given with `--ledger` so its workers share it.

Runs alternate between the two sides so machine load hits both alike; the
cycle figures are medians of per-cycle times.

Run: .venv/bin/python bench/http_cycle.py [--cycles 100] [--clients 20] [--per-client 25] [--quick]
     [--workers 1,2]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
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
from agents import set_tracing_disabled

from interrupt_widget import AGUIClient, OfflineModel, OpenAIAgentsAdapter
from interrupt_widget.examples import meeting_agent
from interrupt_widget.free_port import free_port
from interrupt_widget.ledger.sqlite import SQLiteLedger

QUICK_HELP = "the smallest sizes: check that the bench runs (make bench-smoke), not a figure"

TOKEN = "bench-token"
ANSWER = {"approved": True, "chosen_time": "2030-01-08T10:00:00Z", "chosen_label": "Tue 10:00"}
Run = Callable[[RunAgentInput], AsyncIterator[BaseEvent]]


async def cycle(run: Run, thread_id: str) -> None:
    ask = UserMessage(id="u1", content=f"Book a call with Alice about {thread_id}")
    first = [e async for e in run(RunAgentInput(thread_id=thread_id, run_id="r1", messages=[ask]))]
    finished = first[-1]
    assert isinstance(finished, RunFinishedEvent), finished
    assert isinstance(finished.outcome, RunFinishedInterruptOutcome), finished
    snapshot = [e for e in first if isinstance(e, MessagesSnapshotEvent)][-1]
    resume = [
        ResumeEntry(interrupt_id=i.id, status="resolved", payload=ANSWER)
        for i in finished.outcome.interrupts
    ]
    second = [
        e
        async for e in run(
            RunAgentInput(
                thread_id=thread_id, run_id="r2", messages=snapshot.messages, resume=resume
            )
        )
    ]
    assert isinstance(second[-1], RunFinishedEvent), second[-1]


@asynccontextmanager
async def served(workers: int = 1) -> AsyncIterator[str]:
    """`python -m interrupt_widget serve` on a free 127.0.0.1 port, in its own process(es)."""
    port = free_port()
    with tempfile.TemporaryDirectory() as tmp:
        secret = Path(tmp) / "secret"
        secret.write_text("bench-secret-0123456789abcdef")
        env = {**os.environ, "INTERRUPT_WIDGET_MODEL": "offline"}
        env.pop("OPENAI_API_KEY", None)
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "interrupt_widget",
            "serve",
            "interrupt_widget.examples:meeting_agent",
            "--port",
            str(port),
            "--token",
            TOKEN,
            "--secret-file",
            str(secret),
            "--ledger",
            str(Path(tmp) / "ledger.db"),
            "--workers",
            str(workers),
            "--log-level",
            "warning",
            env=env,
            stderr=asyncio.subprocess.PIPE,
        )
        assert process.stderr is not None
        try:
            while True:  # ready when uvicorn has started (it logs at warning level and above)
                url = f"http://127.0.0.1:{port}/"
                try:
                    _, writer = await asyncio.open_connection("127.0.0.1", port)
                except OSError:
                    if process.returncode is not None:
                        raise RuntimeError((await process.stderr.read()).decode()) from None
                    await asyncio.sleep(0.05)
                    continue
                writer.close()
                await writer.wait_closed()
                break
            yield url
        finally:
            process.terminate()
            await process.wait()


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


async def sustained(url: str, clients: int, per_client: int) -> tuple[float, list[float]]:
    """Cycles per second with `clients` clients back to back, and each cycle's seconds."""
    times: list[float] = []
    async with AGUIClient(url, token=TOKEN) as client:
        for i in range(clients):  # every worker warm before the clock starts
            await cycle(client.run, f"warm-{i}")

        async def worker(index: int) -> None:
            for j in range(per_client):
                start = time.perf_counter()
                await cycle(client.run, f"sustained-{index}-{j}")
                times.append(time.perf_counter() - start)

        start = time.perf_counter()
        await asyncio.gather(*(worker(i) for i in range(clients)))
        elapsed = time.perf_counter() - start
    return clients * per_client / elapsed, times


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cycles", type=int, default=100)
    parser.add_argument("--clients", type=int, default=20)
    parser.add_argument("--per-client", type=int, default=25)
    parser.add_argument("--workers", default="1,2", help="worker counts to sustain, e.g. 1,2")
    parser.add_argument("--quick", action="store_true", help=QUICK_HELP)
    args = parser.parse_args()
    if args.quick:
        vars(args).update(cycles=2, clients=2, per_client=2)
    set_tracing_disabled(True)

    with tempfile.TemporaryDirectory() as tmp:
        ledger = SQLiteLedger(Path(tmp) / "in-process.db")
        adapter = OpenAIAgentsAdapter(meeting_agent(OfflineModel()), ledger=ledger)
        async with served() as url, AGUIClient(url, token=TOKEN) as client:
            for i in range(5):  # warm both sides up
                await cycle(adapter.run, f"warm-local-{i}")
                await cycle(client.run, f"warm-http-{i}")
            local: list[float] = []
            remote: list[float] = []
            for i in range(args.cycles):
                start = time.perf_counter()
                await cycle(adapter.run, f"local-{i}")
                local.append(time.perf_counter() - start)
                start = time.perf_counter()
                await cycle(client.run, f"http-{i}")
                remote.append(time.perf_counter() - start)
    in_process = statistics.median(local) * 1000
    over_http = statistics.median(remote) * 1000
    print(f"cycle in process   : {in_process:7.2f} ms (median of {args.cycles})")
    print(f"cycle over HTTP    : {over_http:7.2f} ms (median of {args.cycles})")
    print(f"ratio HTTP/process : {over_http / in_process:7.2f} (goal <= 1.5)")
    missed = []
    if over_http / in_process > 1.5:
        missed.append(f"a cycle over HTTP {over_http / in_process:.2f}x in process (goal <= 1.5x)")
    goal = 0.8 / (in_process / 1000)
    for workers in (int(w) for w in args.workers.split(",")):
        async with served(workers) as url:
            rate, times = await sustained(url, args.clients, args.per_client)
        p50 = percentile(times, 0.5) * 1000
        p99 = percentile(times, 0.99) * 1000
        print(
            f"sustained, {workers} worker{'s' if workers > 1 else ' '}: {rate:7.1f} cycles/s "
            f"({rate / goal:.2f} of the goal {goal:.0f}/s; {args.clients} clients, "
            f"p50 {p50:.0f} ms, p99 {p99:.0f} ms)"
        )
        if rate < goal:
            on = f"{workers} worker{'s' if workers > 1 else ''}"
            missed.append(f"{rate:.1f} cycles/s on {on} (goal >= {goal:.0f}/s)")
    for line in missed:
        print(f"goal not met: {line}")


if __name__ == "__main__":
    asyncio.run(main())
