"""Resume saved conversations of the endings sweep in this (new) process, and say what happened.

Usage: python resume_elsewhere.py < spec.json, where the spec is
`{"ledger": path, "cases": [{"name", "answer", "log", "threadId", "messages", "interrupts"}]}`:
each case a conversation saved when its run paused (the SDK's paused state is in the
ledger file). Each is resumed with its answer ("approve" or "deny") through a
`ConversationThread` and the adapter; one JSON line per case says how the run
ended, the reply it streamed last, and the hooks and function spans it fired.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

from ag_ui.core import BaseEvent
from agents import set_trace_processors, set_tracing_disabled
from observers import SUCCESS, Spans, shown_reply, watch

from ending_agents import ending_agent
from interrupt_widget import OpenAIAgentsAdapter
from interrupt_widget.asking.thread import ConversationThread


async def resume(case: dict[str, Any], ledger: str, spans: Spans) -> dict[str, Any]:
    fired: list[str] = []
    agent = ending_agent(case["name"], Path(case["log"]))
    hooks = watch(agent, fired)
    thread = ConversationThread(
        OpenAIAgentsAdapter(agent, ledger=ledger, hooks=hooks),
        thread_id=case["threadId"],
        messages=case["messages"],
        interrupts=case["interrupts"],
    )
    approved = case["answer"] == "approve"
    entries = [
        {"interruptId": i.id, "status": "resolved", "payload": {"approved": approved}}
        for i in thread.interrupts
    ]
    spans.functions.clear()
    events: list[BaseEvent] = []
    outcome = await thread.start(thread.resume_input(entries), on_event=events.append)
    ended = {"success": SUCCESS, "error": outcome.code}.get(outcome.kind, outcome.kind)
    return {
        "name": case["name"],
        "answer": case["answer"],
        "ending": ended,
        "reason": outcome.error or "",
        "reply": shown_reply(events),
        "hooks": fired,
        "spans": list(spans.functions),
    }


async def main() -> None:
    spec = json.loads(sys.stdin.read())
    spans = Spans()
    set_trace_processors([spans])
    set_tracing_disabled(False)
    for case in spec["cases"]:
        print(json.dumps(await resume(case, spec["ledger"], spans)), flush=True)


if __name__ == "__main__":
    asyncio.run(main())
