"""The durable approval cycle against what a user would pick instead of the kit.

One cycle: request -> tool approval (the paused run saved) -> the answer (the run read
back) -> approve -> resume -> final text, the meeting scheduler's, on a scripted offline
model. A new thread every cycle. Five sides:

- raw SDK: `bench/adapter.py`'s baseline, nothing saved (`to_state()`, `approve()`,
  `run_streamed(state)` in memory). Not durable: the yardstick for the kit's memory ledger.
- kit, memory ledger: `OpenAIAgentsAdapter` with `MemoryLedger()`.
- kit, SQLite ledger: `OpenAIAgentsAdapter` with `SQLiteLedger(file)`, the default kind.
- (a) raw SDK + SQLite: the paused run kept on the server as the SDK's docs advise:
  `RunState.to_string()` written to SQLite (stdlib `sqlite3`, one row per thread,
  committed), read back with `await RunState.from_string(agent, s)`, approved, resumed
  with `Runner.run_streamed`, the row deleted when the run ends.
- (b) LangGraph + SQLite: `interrupt()` in a `ToolNode`'s tool and `Command(resume=...)`,
  the graph compiled with `AsyncSqliteSaver` (`langgraph-checkpoint-sqlite`), a scripted
  `BaseChatModel` playing the offline model's two turns (`bench/peers/langgraph_cycle.py`).
  **It runs in another process**: LangGraph's pins conflict with the kit's, so it runs in
  `.venv-interop/langgraph` (made by `scripts/interop-venv langgraph`, once).

Every SQLite file is in WAL mode with the default `synchronous=FULL` (the kit's ledger
and LangGraph's saver set WAL themselves; (a) does too), in one temporary folder.

Timing is `bench/adapter.py`'s: each cycle after `gc.collect()`, CPU time
(`time.process_time()`, the ratios and the goals) and wall-clock time (printed beside:
SQLite's fsync waits show only there). The four in-process sides alternate cycle by
cycle, their order rotating. LangGraph's process times its cycles with the same clocks
and the same count, in the same blocks: the cycles run in `--blocks` blocks, each block
first in this process, then in LangGraph's, so the machine's load drifts over both alike.
After the warm-up both processes `gc.freeze()` what they hold, so the collection before
each cycle takes microseconds instead of a fifth of a second (untimed either way).

Goals (a goal not met prints a line; the run still succeeds):
- kit, memory ledger <= 1.10x the raw SDK;
- kit, SQLite ledger <= 1.0x (a) and <= 1.0x (b).

Run: .venv/bin/python bench/durable.py [--cycles 200] [--blocks 10] [--quick]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import sqlite3
import subprocess
import sys
import tempfile
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from agents import Agent, Runner, RunState, set_tracing_disabled

from adapter import QUICK_HELP, REQUEST, Timings, adapter_cycle, raw_cycle
from interrupt_widget import OfflineModel, OpenAIAgentsAdapter, SQLiteLedger
from interrupt_widget.examples import meeting_agent
from interrupt_widget.ledger.memory import MemoryLedger

ROOT = Path(__file__).resolve().parent.parent
PEER = Path(__file__).resolve().parent / "peers" / "langgraph_cycle.py"

GOALS = {"memory / raw SDK": 1.1, "SQLite / (a)": 1.0, "SQLite / (b)": 1.0}
"""Kit cycle over a peer's, CPU medians: at most this."""


class SavedRuns:
    """Paused SDK runs kept on the server, one row per thread: `RunState.to_string()`."""

    def __init__(self, path: Path) -> None:
        self.db = sqlite3.connect(path)
        self.db.execute("PRAGMA journal_mode=WAL")
        with self.db:
            self.db.execute(
                "CREATE TABLE IF NOT EXISTS paused_runs (thread TEXT PRIMARY KEY, state TEXT)"
            )

    def save(self, thread: str, state: str) -> None:
        with self.db:  # committed: the answer may come to another process, or after a restart
            self.db.execute("INSERT OR REPLACE INTO paused_runs VALUES (?, ?)", (thread, state))

    def load(self, thread: str) -> str:
        [(state,)] = self.db.execute("SELECT state FROM paused_runs WHERE thread = ?", (thread,))
        return str(state)

    def finish(self, thread: str) -> None:
        with self.db:
            self.db.execute("DELETE FROM paused_runs WHERE thread = ?", (thread,))


async def saved_state_cycle(agent: Agent[Any], runs: SavedRuns, thread: str) -> str:
    """(a): the raw SDK's cycle with its paused run written to SQLite and read back."""
    first = Runner.run_streamed(agent, REQUEST)
    async for _ in first.stream_events():
        pass
    runs.save(thread, first.to_state().to_string())
    # The answer arrives: a later request, maybe in another process, reads the run back.
    state: RunState[Any] = await RunState.from_string(agent, runs.load(thread))
    for item in state.get_interruptions():
        state.approve(item)
    second = Runner.run_streamed(agent, state)
    async for _ in second.stream_events():
        pass
    if not second.interruptions:
        runs.finish(thread)
    return str(second.final_output)


class LangGraphPeer:
    """(b) in its own process and venv: asked for blocks of cycles, it answers their times."""

    def __init__(self, python: str, db_file: Path) -> None:
        self.process = subprocess.Popen(
            [python, str(PEER), str(db_file)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        hello = self._reply()
        self.version, self.reply = str(hello["ready"]), str(hello["reply"])

    def _reply(self) -> dict[str, Any]:
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError(f"LangGraph's cycle process ended ({self.process.wait()})")
        reply: dict[str, Any] = json.loads(line)
        return reply

    def cycles(self, count: int, timings: Timings) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(f"cycles {count}\n")
        self.process.stdin.flush()
        times = self._reply()
        timings.cpu.extend(times["cpu"])
        timings.wall.extend(times["wall"])

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()
        self.process.wait(timeout=60)


def langgraph_python() -> str | None:
    """The LangGraph venv's python, made first if missing or stale; None (said why) if not."""
    made = subprocess.run(
        [str(ROOT / "scripts" / "interop-venv"), "langgraph"],
        capture_output=True,
        text=True,
        check=False,
    )
    if made.returncode != 0:
        print(f"(b) LangGraph: its venv could not be made: {made.stderr.strip()[-400:]}")
        return None
    return made.stdout.strip().splitlines()[-1]


Cycle = Callable[[str], Awaitable[str]]


def in_process_sides(folder: Path) -> dict[str, Cycle]:
    agent = meeting_agent(OfflineModel())
    memory = OpenAIAgentsAdapter(agent, ledger=MemoryLedger())
    durable = OpenAIAgentsAdapter(agent, ledger=SQLiteLedger(folder / "kit.db"))
    runs = SavedRuns(folder / "sdk.db")
    return {
        "raw SDK, nothing saved": lambda thread: raw_cycle(agent),
        "kit, memory ledger": lambda thread: adapter_cycle(memory, thread),
        "(a) raw SDK + RunState in SQLite": lambda thread: saved_state_cycle(agent, runs, thread),
        "kit, SQLite ledger": lambda thread: adapter_cycle(durable, thread),
    }


async def measure(
    sides: dict[str, Cycle], peer: LangGraphPeer | None, cycles: int, blocks: int
) -> dict[str, Timings]:
    timings = {name: Timings() for name in sides}
    peer_name = "(b) LangGraph + AsyncSqliteSaver"
    if peer is not None:
        timings[peer_name] = Timings()
    for warm in range(5):
        for name, cycle in sides.items():
            await cycle(f"warm-{name}-{warm}")
    gc.freeze()  # the gc.collect() before each cycle then skips what import and warm-up left
    names = list(sides)
    done = 0
    for block in range(blocks):
        size = cycles // blocks + (1 if block < cycles % blocks else 0)
        for n in range(done, done + size):
            for name in names[n % len(names) :] + names[: n % len(names)]:
                await timings[name].time(sides[name](f"cycle-{n}"))
        if peer is not None:
            peer.cycles(size, timings[peer_name])
        done += size
    return timings


def report(timings: dict[str, Timings], peer: LangGraphPeer | None, cycles: int) -> None:
    def ms(t: Timings) -> str:
        return f"cpu {t.cpu_s * 1000:7.2f} ms  wall {t.wall_s * 1000:7.2f} ms"

    print(f"durable approval cycle, median of {cycles} cycles a side (CPU time; wall beside):")
    for name, t in timings.items():
        print(f"  {name:34} {ms(t)}")
    if peer is not None:
        print(f"  ((b) ran in its own process: .venv-interop/langgraph, langgraph {peer.version})")
    raw, memory = timings["raw SDK, nothing saved"], timings["kit, memory ledger"]
    durable = timings["kit, SQLite ledger"]
    peers = {"(a)": timings["(a) raw SDK + RunState in SQLite"]}
    if peer is not None:
        peers["(b)"] = timings["(b) LangGraph + AsyncSqliteSaver"]
    ratios = {"memory / raw SDK": (memory, raw)}
    ratios |= {f"SQLite / {p}": (durable, t) for p, t in peers.items()}
    missed = []
    for goal, (kit, other) in ratios.items():
        cpu, wall = kit.cpu_s / other.cpu_s, kit.wall_s / other.wall_s
        met = cpu <= GOALS[goal]
        print(
            f"  kit {goal:17} {cpu:5.2f}x cpu ({wall:.2f}x wall)  goal <= {GOALS[goal]}x: "
            f"{'met' if met else 'NOT met'}"
        )
        if not met:
            missed.append(f"goal not met: kit {goal} cycle {cpu:.2f}x (goal <= {GOALS[goal]}x)")
    if peer is None:
        missed.append("goal not measured: kit SQLite / (b) (LangGraph's venv is missing)")
    for line in missed:
        print(line)
    print(f"goals {'met' if not missed else 'NOT met'}")


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--cycles", type=int, default=200)
    parser.add_argument("--blocks", type=int, default=10)
    parser.add_argument("--quick", action="store_true", help=QUICK_HELP)
    args = parser.parse_args()
    if args.quick:
        vars(args).update(cycles=2, blocks=1)
    set_tracing_disabled(True)
    python = langgraph_python()
    with tempfile.TemporaryDirectory() as temporary:
        folder = Path(temporary)
        peer = LangGraphPeer(python, folder / "langgraph.db") if python else None
        try:
            timings = await measure(in_process_sides(folder), peer, args.cycles, args.blocks)
        finally:
            if peer is not None:
                peer.close()
    report(timings, peer, args.cycles)
    sys.stdout.flush()


if __name__ == "__main__":
    asyncio.run(main())
