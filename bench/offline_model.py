"""What a client's oversized message costs the offline model, against a short one.

Each side runs one request through `OpenAIAgentsAdapter` with `OfflineModel`:
a 1.9 MB message (echoed, and one naming a tool), and "reply with N words" for
an N far above `MAX_REPLY_WORDS`, against the same requests of ordinary size.
Goal: the 1.9 MB message under 1 s of CPU (it used to take 92 s); the reply
capped at `MAX_REPLY_WORDS` chunks.

Run: .venv/bin/python bench/offline_model.py [--repeats 5] [--quick]
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import statistics
import time

from ag_ui.core import RunAgentInput, UserMessage
from agents import set_tracing_disabled

from interrupt_widget.examples import expense_agent
from interrupt_widget.sdk.adapter import OpenAIAgentsAdapter
from interrupt_widget.sdk.offline_model import MAX_REPLY_WORDS, OfflineModel

QUICK_HELP = "the smallest sizes: check that the bench runs (make bench-smoke), not a figure"

HUGE = 950_000  # "x " repeated: 1.9 MB


async def cost(adapter: OpenAIAgentsAdapter, text: str) -> tuple[float, int]:
    """CPU seconds for one run of `text`, and the number of events it gave."""
    request = RunAgentInput(thread_id="t", run_id="r", messages=[UserMessage(id="u", content=text)])
    gc.collect()
    started = time.process_time()
    events = [event async for event in adapter.run(request)]
    return time.process_time() - started, len(events)


async def main(repeats: int) -> None:
    set_tracing_disabled(True)
    adapter = OpenAIAgentsAdapter(expense_agent(OfflineModel()))
    cases = [
        ("echo", "x " * HUGE, "x " * 50),
        ("tool call", "submit_expense 12 for " + "x " * HUGE, "submit_expense 12 for lunch"),
        ("reply", "reply with 1000000000000 words", f"reply with {MAX_REPLY_WORDS} words"),
    ]
    await cost(adapter, "warm up")
    for name, big, small in cases:
        big_runs = [await cost(adapter, big) for _ in range(repeats)]
        small_runs = [await cost(adapter, small) for _ in range(repeats)]
        big_cpu = statistics.median(t for t, _ in big_runs) * 1000
        small_cpu = statistics.median(t for t, _ in small_runs) * 1000
        print(
            f"{name}: {len(big):,} chars {big_cpu:.1f} ms cpu ({big_runs[0][1]} events), "
            f"{len(small):,} chars {small_cpu:.1f} ms cpu ({small_runs[0][1]} events), "
            f"ratio {big_cpu / small_cpu:.2f}"
        )
        if big_cpu > 1000:
            print(f"goal not met: {name} of {len(big):,} chars {big_cpu:.0f} ms cpu (goal < 1 s)")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help=QUICK_HELP)
    args = parser.parse_args()
    asyncio.run(main(1 if args.quick else args.repeats))
