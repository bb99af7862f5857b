"""Rows per second of an `AgentBatch` on Temporal workers, against the same batch in the kernel.

1. Policy: `--rows` bank transfers (1,000 by default), the offline model, `--workers` worker
   processes (4) on one shared SQLite ledger, a policy on the workers approving every transfer,
   `--concurrency` rows at once (64). The baseline is the in-kernel `AgentBatch` of the same
   rows in this process, with the same policy, concurrency and a SQLite ledger.
2. Inbox: the same rows with no policy: every row waits for an answer in its workflow, then the
   batch's inbox approves them all at once; rows/s from start to the last row done.
3. A worker killed (SIGKILL) once a third of a policy batch is done: every row ends, each
   transfer runs at most once (read from the journal the workers write); a call whose worker died
   between its claim and its record is in doubt (never run twice), and is counted as such.
4. Latency, p50 and p99 of `--samples` (200), one conversation at a time: from an answer to the
   approved tool's result (TOOL_CALL_RESULT on the client), and from a send to the reply's first
   token (TEXT_MESSAGE_CONTENT), on the workers and in the kernel; and Temporal's own floor on
   the same server, a bare update's round trip (a trivial workflow, in a worker process of its
   own, whose update handler returns at once). Goal: the answer's round trip on Temporal within
   2x the bare update's (p50); `goal not met: ...` says when it is not.

Run: PYTHONPATH=src .venv/bin/python bench/temporal.py [--rows 1000] [--workers 4] [--quick]
(`--quick`: a few rows on two workers, to check that the bench runs.)

This file is also the workers' target module (`temporal:approving`): importing it runs nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

from ag_ui.core import BaseEvent, EventType, ResumeEntry
from agents import set_tracing_disabled
from temporalio import workflow

from interrupt_widget import AgentBatch, OfflineModel, OpenAIAgentsAdapter, Policy, approve
from interrupt_widget.agui.run_handle import AGUIAgent
from interrupt_widget.asking import ConversationThread
from interrupt_widget.examples import bank_agent, read_journal
from interrupt_widget.examples.bank import JOURNAL_ENV

HERE = Path(__file__).resolve().parent
APPROVING = "temporal:approving"
ASKING = "interrupt_widget.examples:bank_agent"


def approving() -> OpenAIAgentsAdapter:
    """The workers' bank agent with a policy approving every transfer (the ledger: theirs)."""
    return OpenAIAgentsAdapter(
        bank_agent(OfflineModel()),
        policy=Policy(approve("transfer_funds")),
        ledger=os.environ["INTERRUPT_WIDGET_LEDGER"],
    )


@workflow.defn(name="BenchBareUpdate")
class Bare:
    """Temporal's floor: a workflow whose update returns at once."""

    def __init__(self) -> None:
        self._done = False

    @workflow.run
    async def run(self) -> None:
        await workflow.wait_condition(lambda: self._done)

    @workflow.update
    def ping(self, n: int) -> int:
        return n

    @workflow.signal
    def done(self) -> None:
        self._done = True


async def serve_bare(address: str, queue: str) -> None:
    """A worker process for `Bare` alone (`--bare-worker ADDRESS QUEUE`), until killed."""
    from temporalio.client import Client
    from temporalio.worker import UnsandboxedWorkflowRunner, Worker

    client = await Client.connect(address)
    worker = Worker(
        client, task_queue=queue, workflows=[Bare], workflow_runner=UnsandboxedWorkflowRunner()
    )
    print("serves", flush=True)
    await worker.run()


def rows(count: int, tag: str) -> list[str]:
    return [
        f"transfer_funds amount={n % 90 + 1} to_account=ACME-{n} memo={tag}-{n}"
        for n in range(count)
    ]


class Workers:
    """`count` `python -m interrupt_widget worker` processes on one queue and one ledger."""

    def __init__(self, address: str, folder: Path, count: int, *, sandboxed: bool = False) -> None:
        self.queue = f"bench-{uuid.uuid4().hex[:8]}"
        self.sandboxed = sandboxed
        self.journal = folder / "transfers.jsonl"
        self.env = {
            **os.environ,
            "PYTHONPATH": os.pathsep.join([str(HERE), os.environ.get("PYTHONPATH", "")]),
            JOURNAL_ENV: str(self.journal),
            "INTERRUPT_WIDGET_LEDGER": str(folder / "calls.db"),
            "OPENAI_API_KEY": "",
            "OPENAI_AGENTS_DISABLE_TRACING": "1",
        }
        self.logs = [folder / f"worker-{self.queue}-{n}.log" for n in range(count)]
        self.processes = [self._start(address, log) for log in self.logs]
        self._wait_ready()

    def _start(self, address: str, log: Path) -> subprocess.Popen[bytes]:
        command = [
            sys.executable, "-m", "interrupt_widget", "worker", APPROVING, ASKING,
            "--temporal", address, "--task-queue", self.queue, "--graceful-seconds", "2",
            "--log-level", "warning", *(["--sandboxed"] if self.sandboxed else []),
        ]  # fmt: skip
        with log.open("ab") as out:
            return subprocess.Popen(command, env=self.env, stdout=out, stderr=out)

    def _wait_ready(self) -> None:
        deadline = time.monotonic() + 120
        for process, log in zip(self.processes, self.logs, strict=True):
            while "serves" not in log.read_text(errors="replace"):
                if process.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"a worker did not start:\n{log.read_text()}")
                time.sleep(0.05)

    def kill_one(self) -> None:
        os.kill(self.processes[0].pid, signal.SIGKILL)
        self.processes[0].wait()

    def stop(self) -> None:
        for process in self.processes:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        for process in self.processes:
            process.wait(timeout=30)


def ran_per_memo(journal: Path, tag: str) -> collections.Counter[str]:
    return collections.Counter(
        str(t["memo"]) for t in read_journal(journal) if str(t["memo"]).startswith(f"{tag}-")
    )


async def in_kernel(count: int, concurrency: int, folder: Path) -> float:
    agent = bank_agent(OfflineModel())
    batch = AgentBatch(
        agent, rows(count, "kernel"), name=f"kernel-{uuid.uuid4().hex[:8]}",
        concurrency=concurrency, policy=Policy(approve("transfer_funds")),
        ledger=folder / "kernel.db",
    )  # fmt: skip
    started = time.perf_counter()
    results = await batch
    elapsed = time.perf_counter() - started
    assert {r.status for r in results} == {"done"}, collections.Counter(r.status for r in results)
    assert agent.executions.count("transfer_funds") == count
    return elapsed


async def on_temporal(agent: Any, workers: Workers, count: int, concurrency: int) -> float:
    tag = f"policy{uuid.uuid4().hex[:6]}"
    batch = AgentBatch(agent, rows(count, tag), name=tag, concurrency=concurrency)
    started = time.perf_counter()
    results = await batch
    elapsed = time.perf_counter() - started
    assert {r.status for r in results} == {"done"}, collections.Counter(r.status for r in results)
    ran = ran_per_memo(workers.journal, tag)
    assert len(ran) == count, ran.most_common(3)
    assert set(ran.values()) == {1}, ran.most_common(3)
    return elapsed


async def inbox_on_temporal(agent: Any, workers: Workers, count: int, concurrency: int) -> float:
    from interrupt_widget.testing import batch_until, recording_comms

    tag = f"inbox{uuid.uuid4().hex[:6]}"
    with recording_comms():
        batch = AgentBatch(agent, rows(count, tag), name=tag, concurrency=concurrency)
        started = time.perf_counter()
        batch.start()
        await batch_until(batch, lambda: len(batch.waiting()) == count, timeout=600)
        asked = time.perf_counter() - started
        answered = batch.inbox.approve(by="bench")
        assert set(answered.values()) == {"approved"}, collections.Counter(answered.values())
        results = await batch
    elapsed = time.perf_counter() - started
    failed = [(r.code, r.error) for r in results if r.status != "done"]
    assert not failed, failed[:2]
    ran = ran_per_memo(workers.journal, tag)
    assert len(ran) == count, ran.most_common(3)
    assert set(ran.values()) == {1}, ran.most_common(3)
    print(f"  (every row waiting after {asked:.1f} s; all done {elapsed - asked:.1f} s later)")
    return elapsed


async def with_a_worker_killed(
    agent: Any, workers: Workers, count: int, concurrency: int
) -> dict[str, int]:
    from interrupt_widget.testing import batch_until

    tag = f"killed{uuid.uuid4().hex[:6]}"
    batch = AgentBatch(agent, rows(count, tag), name=tag, concurrency=concurrency)
    batch.start()
    await batch_until(batch, lambda: batch.counts()["done"] >= count // 3, timeout=600)
    workers.kill_one()
    results = await batch
    ran = ran_per_memo(workers.journal, tag)
    in_doubt = [r for r in results if r.status == "failed" and r.code == "call_in_doubt"]
    other = [r for r in results if r.status != "done" and r not in in_doubt]
    assert not other, collections.Counter((r.status, r.code) for r in other)
    assert max(ran.values()) == 1, ran.most_common(3)
    return {
        "rows": count,
        "done": sum(r.status == "done" for r in results),
        "in doubt": len(in_doubt),
        "ran once": len(ran),
        "ran twice": sum(n > 1 for n in ran.values()),
    }


WARM_UP = 3
"""Samples timed and dropped before each latency series (connections, caches)."""


def quantiles(times: list[float]) -> tuple[float, float]:
    """p50 and p99 of `times`, in milliseconds."""
    cuts = statistics.quantiles(times, n=100, method="inclusive")
    return 1000 * statistics.median(times), 1000 * cuts[98]


async def _timed_run(thread: ConversationThread, input: Any, kind: EventType) -> float:
    """Seconds from starting `input` to its first event of `kind`; the run is awaited."""
    seen: asyncio.Future[float] = asyncio.get_running_loop().create_future()

    def note(event: BaseEvent) -> None:
        if event.type == kind and not seen.done():
            seen.set_result(time.perf_counter())

    started = time.perf_counter()
    running = thread.start(input, on_event=note)
    await running
    assert seen.done(), f"no {kind} in the run"
    return seen.result() - started


async def answer_round_trips(agent: AGUIAgent, samples: int, tag: str) -> list[float]:
    """From an answer (approve) to the approved transfer's result, per conversation."""
    times = []
    for n in range(samples + WARM_UP):
        thread = ConversationThread(agent, thread_id=f"{tag}-{n}-{uuid.uuid4().hex[:6]}")
        ask = f"transfer_funds amount=5 to_account=LAT-{n} memo={tag}-{n}"
        assert (await thread.start(thread.user_input(ask))).kind == "interrupt"
        entries = [
            ResumeEntry(interrupt_id=i.id, status="resolved", payload={"approved": True})
            for i in thread.interrupts
        ]
        resume = thread.resume_input(entries)
        times.append(await _timed_run(thread, resume, EventType.TOOL_CALL_RESULT))
    return times[WARM_UP:]


async def first_tokens(agent: AGUIAgent, samples: int, tag: str) -> list[float]:
    """From a send to the reply's first token, per conversation."""
    times = []
    for n in range(samples + WARM_UP):
        thread = ConversationThread(agent, thread_id=f"{tag}-{n}-{uuid.uuid4().hex[:6]}")
        sent = thread.user_input("reply with 20 words")
        times.append(await _timed_run(thread, sent, EventType.TEXT_MESSAGE_CONTENT))
    return times[WARM_UP:]


async def bare_round_trips(address: str, samples: int) -> list[float]:
    """A bare update's round trip on the same server, its worker in a process of its own."""
    from temporalio.client import Client

    queue = f"bare-{uuid.uuid4().hex[:8]}"
    command = [sys.executable, __file__, "--bare-worker", address, queue]
    worker = await asyncio.create_subprocess_exec(*command, stdout=asyncio.subprocess.PIPE)
    try:
        assert worker.stdout is not None
        assert b"serves" in await worker.stdout.readline()
        client = await Client.connect(address)
        handle = await client.start_workflow(Bare.run, id=queue, task_queue=queue)
        times = []
        for n in range(samples + WARM_UP):
            started = time.perf_counter()
            await handle.execute_update(Bare.ping, n)
            times.append(time.perf_counter() - started)
        await handle.signal(Bare.done)
        return times[WARM_UP:]
    finally:
        worker.kill()
        await worker.wait()


async def latencies(
    address: str, temporal_agent: AGUIAgent, samples: int, folder: Path
) -> dict[str, tuple[float, float]]:
    """Every latency series, as p50 and p99 in milliseconds."""
    kernel = OpenAIAgentsAdapter(bank_agent(OfflineModel()), ledger=folder / "latency.db")
    return {
        "bare update": quantiles(await bare_round_trips(address, samples)),
        "answer, Temporal": quantiles(await answer_round_trips(temporal_agent, samples, "lt")),
        "answer, kernel": quantiles(await answer_round_trips(kernel, samples, "lk")),
        "first token, Temporal": quantiles(await first_tokens(temporal_agent, samples, "ft")),
        "first token, kernel": quantiles(await first_tokens(kernel, samples, "fk")),
    }


async def sandboxed_answers(address: str, args: Any, folder: Path) -> tuple[float, float]:
    """The answer's round trip on one worker whose workflow runs in Temporal's sandbox."""
    from interrupt_widget.temporal import TemporalAgent

    sandboxed = Workers(address, folder, 1, sandboxed=True)
    try:
        options = {"task_queue": sandboxed.queue, "heartbeat_seconds": args.heartbeat}
        agent = TemporalAgent(address, agent=ASKING, **options)
        return quantiles(await answer_round_trips(agent, args.samples, "ls"))
    finally:
        sandboxed.stop()


def report_latencies(found: dict[str, tuple[float, float]], samples: int) -> None:
    print(f"latency, {samples} samples each, one conversation at a time (p50 / p99):")
    for name, (p50, p99) in found.items():
        print(f"  {name + ':':<24}{p50:8.1f} ms {p99:8.1f} ms")
    answer, floor = found["answer, Temporal"][0], found["bare update"][0]
    ratio = answer / floor
    print(f"  the answer's round trip on Temporal: {ratio:.1f}x the bare update's (goal <= 2x)")
    if ratio > 2:
        print(
            f"goal not met: an answer's round trip on Temporal (p50 {answer:.1f} ms) is "
            f"{ratio:.1f}x a bare update's ({floor:.1f} ms), over 2x"
        )


async def main() -> None:
    from interrupt_widget.temporal import DevServer, TemporalAgent

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1000)
    parser.add_argument("--workers", type=int, default=4)
    parser.add_argument("--concurrency", type=int, default=64)
    parser.add_argument("--heartbeat", type=float, default=5.0, help="seconds (activities)")
    parser.add_argument("--samples", type=int, default=200, help="per latency series")
    parser.add_argument("--quick", action="store_true", help="a few rows on two workers")
    args = parser.parse_args()
    if args.quick:
        vars(args).update(rows=12, workers=2, concurrency=8, heartbeat=1.0, samples=10)
    n, c = args.rows, args.concurrency
    with tempfile.TemporaryDirectory() as name, DevServer(ui=False, in_memory=True) as server:
        folder = Path(name)
        kernel = await in_kernel(n, c, folder)
        workers = Workers(server.address, folder, args.workers)
        try:
            options = {"task_queue": workers.queue, "heartbeat_seconds": args.heartbeat}
            policy_agent = TemporalAgent(server.address, agent=APPROVING, **options)
            asking_agent = TemporalAgent(server.address, agent=ASKING, **options)
            # First, on a quiet server: one conversation at a time.
            latency = await latencies(server.address, asking_agent, args.samples, folder)
            latency["answer, sandboxed"] = await sandboxed_answers(server.address, args, folder)
            report_latencies(latency, args.samples)
            policy = await on_temporal(policy_agent, workers, n, c)
            inbox = await inbox_on_temporal(asking_agent, workers, n, c)
            killed = await with_a_worker_killed(policy_agent, workers, n, c)
        finally:
            workers.stop()
    print(f"{n} rows, concurrency {c}, offline model, {args.workers} worker processes")
    print(f"in-kernel AgentBatch, policy approving all:     {n / kernel:7.1f} rows/s")
    print(
        f"on Temporal, policy on the workers:             {n / policy:7.1f} rows/s  "
        f"{kernel / policy:.2f}x the in-kernel batch"
    )
    print(
        f"on Temporal, every row asked, inbox approves:   {n / inbox:7.1f} rows/s  "
        f"{kernel / inbox:.2f}x the in-kernel batch"
    )
    print(f"one worker killed after a third was done: {killed}")


if __name__ == "__main__":
    set_tracing_disabled(True)
    if sys.argv[1:2] == ["--bare-worker"]:
        asyncio.run(serve_bare(sys.argv[2], sys.argv[3]))
    else:
        asyncio.run(main())
