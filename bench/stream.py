"""A 10,000-chunk reply through AgentChat against consuming the adapter's stream alone.

Both sides use the same offline model and the same prompt, in one process.
The chat side runs with a recording comm, so every byte it would send to the
front end is counted: custom messages (the batched stream) and state updates.

Goals: bytes to the front end <= 2 x the text + a fixed overhead per message,
and time <= 1.3 x the adapter alone.

Run: .venv/bin/python bench/stream.py [--chunks 10000] [--repeats 5] [--quick]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import time

from ag_ui.core import RunAgentInput, UserMessage
from agents import set_tracing_disabled

from interrupt_widget.examples import meeting_agent
from interrupt_widget.sdk.adapter import OpenAIAgentsAdapter
from interrupt_widget.sdk.offline_model import OfflineModel
from interrupt_widget.testing import recording_comms
from interrupt_widget.widgets.chat import AgentChat

QUICK_HELP = "the smallest sizes: check that the bench runs (make bench-smoke), not a figure"

PER_MESSAGE_OVERHEAD = 1024
"""Bytes allowed per message beyond the text it carries (the batch's JSON frame)."""


async def adapter_alone(chunks: int) -> tuple[float, int]:
    adapter = OpenAIAgentsAdapter(meeting_agent(OfflineModel()))
    run_input = RunAgentInput(
        thread_id="bench",
        run_id="r1",
        messages=[UserMessage(id="u1", content=f"reply with {chunks} words")],
    )
    start = time.perf_counter()
    count = 0
    async for _event in adapter.run(run_input):
        count += 1
    return time.perf_counter() - start, count


async def through_chat(chunks: int) -> tuple[float, int, int, int]:
    """Seconds, text length, bytes to the front end, messages to the front end."""
    with recording_comms() as recorder:
        chat = AgentChat(meeting_agent(OfflineModel()))
    comm = recorder.of(chat)
    comm.clear()
    start = time.perf_counter()
    result = await chat.send(f"reply with {chunks} words")
    elapsed = time.perf_counter() - start
    sent = [json.dumps(m.data, separators=(",", ":")) for m in comm.messages]
    return elapsed, len(result.text), sum(len(s.encode()) for s in sent), len(sent)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--chunks", type=int, default=10_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help=QUICK_HELP)
    args = parser.parse_args()
    if args.quick:
        vars(args).update(chunks=100, repeats=1)
    set_tracing_disabled(True)

    await adapter_alone(100)  # warm both paths up
    await through_chat(100)
    alone: list[float] = []
    chat: list[float] = []
    events = text = sent_bytes = messages = 0
    for _ in range(args.repeats):  # interleaved, so drift hits both sides alike
        seconds, events = await adapter_alone(args.chunks)
        alone.append(seconds)
        seconds, text, sent_bytes, messages = await through_chat(args.chunks)
        chat.append(seconds)

    alone_s, chat_s = statistics.median(alone), statistics.median(chat)
    ratio = chat_s / alone_s
    budget = 2 * text + PER_MESSAGE_OVERHEAD * messages
    print(f"reply: {args.chunks} chunks, {events} adapter events, {text} characters of text")
    print(f"adapter alone:   {alone_s * 1000:8.1f} ms (median of {args.repeats})")
    print(f"through chat:    {chat_s * 1000:8.1f} ms  ratio {ratio:.2f} (goal <= 1.30)")
    print(
        f"to the front end: {sent_bytes} bytes in {messages} messages "
        f"= {sent_bytes / text:.2f} x text; budget {budget} bytes "
        f"(2 x text + {PER_MESSAGE_OVERHEAD} per message): "
        f"{'within' if sent_bytes <= budget else 'OVER'}"
    )
    if ratio > 1.3:
        print(f"goal not met: through the chat {ratio:.2f}x the adapter alone (goal <= 1.30x)")
    if sent_bytes > budget:
        print(f"goal not met: {sent_bytes} bytes to the front end (budget {budget})")
    print(f"goal {'met' if ratio <= 1.3 and sent_bytes <= budget else 'NOT met'}")


if __name__ == "__main__":
    asyncio.run(main())
