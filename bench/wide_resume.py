"""One resume answering many parallel calls, and where its time goes.

The offline model asked for `--calls` transfers in one request (default 200) calls
`transfer_funds` that many times in one turn, all gated: the run pauses with that many
interrupts. Two sides, each timed from the answers to the end of the resumed run:

- kit: `OpenAIAgentsAdapter` with the default durable ledger (a SQLite file), a resume
  that approves every interrupt (one `RunAgentInput.resume`), drained to its end;
- raw SDK: `to_state()`, `RunState.approve(item)` for each interruption (timed apart),
  then `Runner.run_streamed(agent, state)` drained.

Both run every approved call once (counted). Goal: the kit's resume of 200 calls <= 2 s.

Where the kit's time goes: while its resume runs, a thread samples the main thread's
stack every `--sample-ms` (default 5 ms; `sys._current_frames()`, nothing patched, the
run's own code untouched) and files each sample under the first of: inside the SDK's
`RunState.approve`/`reject` (called by the kit once per answer, as a plain SDK user
does); inside the kit's ledger (SQLite); else the innermost frame that belongs to the SDK
(`agents`, `openai`) or to the kit (`interrupt_widget`), else "other" (asyncio, pydantic
and the like, called from neither directly). The SDK's `approve` compares the approval
with every pending call, copying both raw items each time (`_find_current_approval_item`,
called twice per approval), so n answers cost n^2 comparisons.

`bench/wide_resume_patched.py` runs the same on the SDK with the upstream fix for that
(`patches/openai-agents-linear-approve.patch`) beside the released SDK.

Run: .venv/bin/python bench/wide_resume.py [--calls 200] [--sample-ms 5] [--quick]
"""

from __future__ import annotations

import argparse
import asyncio
import collections
import sys
import tempfile
import threading
import time
import types
from pathlib import Path

from ag_ui.core import (
    MessagesSnapshotEvent,
    ResumeEntry,
    RunAgentInput,
    RunFinishedEvent,
    RunFinishedInterruptOutcome,
    UserMessage,
)
from agents import Runner, set_tracing_disabled

from interrupt_widget import OfflineModel, OpenAIAgentsAdapter, SQLiteLedger
from interrupt_widget.examples import bank_agent
from interrupt_widget.ledger.memory import MemoryLedger

GOAL_S = 2.0
"""A resume answering 200 parallel calls: at most this many seconds (wall clock)."""

QUICK_HELP = "ten calls: check that the bench runs (make bench-smoke), not a figure"


def request(calls: int) -> str:
    """`calls` transfers in one request, short enough for the offline model's first 8,000
    characters to hold 200 of them."""
    return " ".join(f"transfer_funds amount={n % 9 + 1} to_account=a{n}" for n in range(calls))


class StackSampler:
    """Samples one thread's stack from another thread and files each sample by who runs."""

    def __init__(self, interval_s: float) -> None:
        self.interval_s = interval_s
        self.thread_id = threading.get_ident()
        self.counts: collections.Counter[str] = collections.Counter()
        """Samples of the sampled thread, by where it was."""
        self.in_workers: collections.Counter[str] = collections.Counter()
        """Samples of other threads that were in the kit's ledger."""
        self._stop = threading.Event()
        self._sampler = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> StackSampler:
        self._sampler.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._sampler.join()

    def _run(self) -> None:
        me = threading.get_ident()
        while not self._stop.wait(self.interval_s):
            for thread, frame in sys._current_frames().items():
                if thread == self.thread_id:
                    self.counts[self.file(frame)] += 1
                elif thread != me and (where := self.file(frame)).startswith("kit: ledger"):
                    self.in_workers[where] += 1  # asyncio.to_thread's: beside the main thread

    @staticmethod
    def file(frame: types.FrameType | None) -> str:
        if frame is not None and frame.f_code.co_filename.endswith("selectors.py"):
            return "waiting: the event loop idle (worker threads, disk)"
        innermost: str | None = None
        while frame is not None:
            code = frame.f_code
            path = code.co_filename
            if path.endswith("agents/run_state.py") and code.co_name in {"approve", "reject"}:
                return "SDK: RunState.approve / reject"
            if "interrupt_widget/ledger/" in path:
                return "kit: ledger (SQLite)"
            if innermost is None and ("/agents/" in path or "/openai/" in path):
                innermost = "SDK: the rest of its resume (runs the calls, streams)"
            elif innermost is None and "/interrupt_widget/" in path:
                innermost = "kit: its own work (checks, records, events)"
            frame = frame.f_back
        return innermost or "other (asyncio, pydantic..., called from neither)"


async def kit_resume(
    calls: int, folder: Path, sample_s: float, *, in_memory: bool = False
) -> tuple[float, float, StackSampler]:
    """Wall and CPU seconds of the kit's resume answering every call, and its samples.

    The ledger is a SQLite file in `folder` (the default ledger), or in memory.
    """
    agent = bank_agent(OfflineModel())
    ledger = MemoryLedger() if in_memory else SQLiteLedger(folder / f"kit-{calls}.db")
    adapter = OpenAIAgentsAdapter(agent, ledger=ledger)
    ask = UserMessage(id="u1", content=request(calls))
    first = [
        e async for e in adapter.run(RunAgentInput(thread_id="t", run_id="r1", messages=[ask]))
    ]
    snapshot, paused = first[-2], first[-1]
    assert isinstance(snapshot, MessagesSnapshotEvent)
    assert isinstance(paused, RunFinishedEvent)
    assert isinstance(paused.outcome, RunFinishedInterruptOutcome)
    interrupts = paused.outcome.interrupts
    assert len(interrupts) == calls, len(interrupts)
    entries = [
        ResumeEntry(interrupt_id=i.id, status="resolved", payload={"approved": True})
        for i in interrupts
    ]
    resume = RunAgentInput(thread_id="t", run_id="r2", messages=snapshot.messages, resume=entries)
    with StackSampler(sample_s) as sampler:
        wall, cpu = time.perf_counter(), time.process_time()
        async for _ in adapter.run(resume):
            pass
        cpu, wall = time.process_time() - cpu, time.perf_counter() - wall
    assert agent.executions.count("transfer_funds") == calls
    return wall, cpu, sampler


async def sdk_resume(calls: int) -> tuple[float, float, float, float]:
    """The raw SDK: wall seconds of the approvals and of the resumed run, then their CPU."""
    agent = bank_agent(OfflineModel())
    first = Runner.run_streamed(agent, request(calls))
    async for _ in first.stream_events():
        pass
    assert len(first.interruptions) == calls, f"{len(first.interruptions)} calls of {calls}"
    state = first.to_state()
    cpu, started = time.process_time(), time.perf_counter()
    for item in first.interruptions:
        state.approve(item)
    approved, approved_cpu = time.perf_counter(), time.process_time()
    second = Runner.run_streamed(agent, state)
    async for _ in second.stream_events():
        pass
    ended = time.perf_counter()
    assert agent.executions.count("transfer_funds") == calls
    ended_cpu = time.process_time()
    return approved - started, ended - approved, approved_cpu - cpu, ended_cpu - approved_cpu


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--sample-ms", type=float, default=5.0)
    parser.add_argument("--quick", action="store_true", help=QUICK_HELP)
    args = parser.parse_args()
    if args.quick:
        args.calls = 10
    set_tracing_disabled(True)
    await sdk_resume(3)  # warm up the SDK, the model and the kit's imports
    approving, running, approving_cpu, running_cpu = await sdk_resume(args.calls)
    with tempfile.TemporaryDirectory() as folder:
        wall, cpu, sampler = await kit_resume(args.calls, Path(folder), args.sample_ms / 1000)
    n = args.calls
    print(f"one resume answering {n} parallel calls (offline model, every call approved):")
    print(
        f"  raw SDK: approve x{n} {approving:7.2f} s wall ({approving_cpu:.2f} s cpu), "
        f"resumed run {running:6.2f} s ({running_cpu:.2f} s cpu), "
        f"in all {approving + running:7.2f} s wall"
    )
    print(f"  kit, SQLite ledger: the resume {wall:7.2f} s wall ({cpu:.2f} s cpu)")
    samples = sum(sampler.counts.values())
    print(f"  where the kit's resume went ({samples} samples, one every {args.sample_ms:g} ms):")
    for where, count in sampler.counts.most_common():
        print(f"    {count / samples:6.1%}  {count * wall / samples:7.2f} s  {where}")
    for where, count in sampler.in_workers.items():
        print(f"    meanwhile in worker threads: {count * wall / samples:.2f} s  {where}")
    if n != 200:
        print(f"goal not judged: it is for 200 calls (<= {GOAL_S:g} s), this run answered {n}")
    elif wall <= GOAL_S:
        print(f"goal met: 200 calls answered in one resume in {wall:.2f} s (<= {GOAL_S:g} s)")
    else:
        print(f"goal not met: 200 calls answered in one resume in {wall:.2f} s (<= {GOAL_S:g} s)")


if __name__ == "__main__":
    asyncio.run(main())
