"""What replaying a recorded model costs, against the offline model it stands beside.

Both sides run the same approval cycle through the Agents SDK's own streamed runner
(ask, pause on a gated tool, approve, resume, final text: two model turns): one with
`OfflineModel` answering, the other replaying those answers from a `Cassette` in mode
`none` (the canonical request and its digest per turn, then every recorded stream event
read back). The runs alternate in one process, so load on the machine falls on both.
Goal: replay <= 1.1x the offline model per turn. Also printed: the cassette's bytes per
turn, the size a pull request reviews.

Run: .venv/bin/python bench/cassette.py [--cycles 200] [--quick]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

from agents import Agent, Model, ModelProvider, RunConfig, Runner, function_tool

from interrupt_widget import Cassette, OfflineModel

QUICK_HELP = "the smallest sizes: check that the bench runs (make bench-smoke), not a figure"
GOAL = 1.1
TURNS_PER_CYCLE = 2


class Offline(ModelProvider):
    def get_model(self, model_name: str | None) -> Model:
        return OfflineModel()


@function_tool(needs_approval=True)
def delete_rows(table: str, count: int) -> str:
    """Delete the oldest rows of a table."""
    return f"deleted {count} rows from {table}"


AGENT: Agent[Any] = Agent(
    name="ops", instructions="Be careful.", tools=[delete_rows], model="gpt-4o"
)
PROMPT = "delete_rows table=staging_orders count=5 " + "and mind the audit trail " * 20


async def cycle(config: RunConfig) -> float:
    """CPU seconds for one ask-approve-resume cycle."""
    gc.collect()
    started = time.process_time()
    first = Runner.run_streamed(AGENT, PROMPT, run_config=config)
    async for _ in first.stream_events():
        pass
    state = first.to_state()
    state.approve(first.interruptions[0])
    second = Runner.run_streamed(AGENT, state, run_config=config)
    async for _ in second.stream_events():
        pass
    assert "deleted 5 rows" in str(second.final_output)
    return time.process_time() - started


async def main(cycles: int) -> None:
    offline = RunConfig(model_provider=Offline(), tracing_disabled=True)
    with tempfile.TemporaryDirectory() as folder:
        tape = Path(folder) / "bench.cassette.jsonl"
        await cycle(
            RunConfig(
                model_provider=Cassette(tape, "all", provider=Offline()), tracing_disabled=True
            )
        )
        replay = RunConfig(model_provider=Cassette(tape, "none"), tracing_disabled=True)
        for config in (offline, replay):  # warm up both paths
            await cycle(config)
        timed: dict[str, list[float]] = {"offline": [], "replay": []}
        for _ in range(cycles):
            timed["offline"].append(await cycle(offline))
            timed["replay"].append(await cycle(replay))
        size = tape.stat().st_size
    per_turn = {k: statistics.median(v) / TURNS_PER_CYCLE * 1000 for k, v in timed.items()}
    ratio = per_turn["replay"] / per_turn["offline"]
    print(f"{cycles} cycles of {TURNS_PER_CYCLE} turns, CPU medians per turn:")
    print(f"  offline model    {per_turn['offline']:.2f} ms")
    print(f"  cassette replay  {per_turn['replay']:.2f} ms   ratio {ratio:.2f}x (goal <= {GOAL}x)")
    print(f"  cassette bytes   {size / TURNS_PER_CYCLE:,.0f} per turn ({size:,} for the cycle)")
    if ratio > GOAL:
        print(f"  goal not met: replay is {ratio:.2f}x the offline model")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--cycles", type=int, default=200)
    parser.add_argument("--quick", action="store_true", help=QUICK_HELP)
    args = parser.parse_args()
    asyncio.run(main(3 if args.quick else args.cycles))
