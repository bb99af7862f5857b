"""Approval scenarios whose outcome the SDK patch must not change, printed as JSON.

Run as a script by `tests/test_sdk_patch.py`, once with the released `agents` package and
once with the patched copy first on `sys.path`; each scenario pauses the bank agent on
parallel gated transfers, answers them through the public `RunState` API, resumes, and
reports what the transfer tool wrote to its journal (the real runs) and what still waits.
Some scenarios change a pending call in place after `approve` has already compared it,
which is where a cache of identities would go stale.

Usage: python tests/sdk_patch_scenarios.py JOURNAL_DIR
"""

from __future__ import annotations

import asyncio
import json
import math
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import agents
from agents import (
    Agent,
    AgentsException,
    Runner,
    RunResultStreaming,
    RunState,
    UserError,
    set_tracing_disabled,
)
from openai.types.responses import ResponseFunctionToolCall

from interrupt_widget import OfflineModel
from interrupt_widget.examples import bank_agent, read_journal

CALLS = 12
Outcome = dict[str, Any]


def request(calls: int) -> str:
    return " ".join(f"transfer_funds amount={n + 1} to_account=a{n}" for n in range(calls))


async def drained(agent: Agent[Any], given: str | RunState[Any, Any]) -> RunResultStreaming:
    result = Runner.run_streamed(agent, given)
    async for _ in result.stream_events():
        pass
    return result


async def resumed(agent: Agent[Any], state: RunState[Any, Any], journal: Path) -> Outcome:
    """Resume `state` and say what ran (from the journal), what still waits, what failed."""
    outcome: Outcome = {"error": None, "waiting": None}
    try:
        result = await drained(agent, state)
    except AgentsException as error:
        outcome["error"] = type(error).__name__
    else:
        outcome["waiting"] = sorted(item.call_id or "" for item in result.interruptions)
    outcome["ran"] = sorted((r["to_account"], r["amount"]) for r in read_journal(journal))
    return outcome


def function_call(result: RunResultStreaming, n: int) -> ResponseFunctionToolCall:
    """The live raw item of the `n`th pending call (the state holds the same object)."""
    raw = result.interruptions[n].raw_item
    assert isinstance(raw, ResponseFunctionToolCall)
    return raw


async def paused(journal: Path, calls: int = CALLS) -> tuple[Agent[Any], RunResultStreaming]:
    agent = bank_agent(OfflineModel(), journal=journal)
    result = await drained(agent, request(calls))
    assert len(result.interruptions) == calls, len(result.interruptions)
    return agent, result


async def approve_all_copies(journal: Path) -> Outcome:
    """Every call approved through the detached copies `get_interruptions()` returns."""
    agent, result = await paused(journal)
    state = result.to_state()
    for item in state.get_interruptions():
        state.approve(item)
    return await resumed(agent, state, journal)


async def approve_even_reject_odd(journal: Path) -> Outcome:
    """Answers given on the result's own items: even calls approved, odd ones rejected."""
    agent, result = await paused(journal)
    state = result.to_state()
    for n, item in enumerate(result.interruptions):
        if n % 2 == 0:
            state.approve(item)
        else:
            state.reject(item, rejection_message="no")
    return await resumed(agent, state, journal)


async def changed_in_place(journal: Path) -> Outcome:
    """A pending call's arguments changed after approve compared it: the approval shown
    (the old arguments) must not approve the new ones."""
    agent, result = await paused(journal)
    state = result.to_state()
    copies = state.get_interruptions()
    state.approve(copies[0])
    live = function_call(result, 1)
    live.arguments = json.dumps({"amount": 999.0, "to_account": "mallory"})
    for item in copies[1:]:
        state.approve(item)
    return await resumed(agent, state, journal)


async def refused(journal: Path, change: Callable[[RunResultStreaming], None]) -> Outcome:
    """Approve one call, `change` the pending calls in place, approve another: the error."""
    _, result = await paused(journal)
    state = result.to_state()
    copies = state.get_interruptions()
    state.approve(copies[0])
    change(result)
    try:
        state.approve(copies[3])
    except UserError as error:
        return {"refused": str(error)}
    return {"refused": None}


def duplicate_call(result: RunResultStreaming) -> None:
    """Call 2 made a copy of call 3 in place: same call id, same arguments."""
    two, three = function_call(result, 2), function_call(result, 3)
    two.call_id = three.call_id
    two.arguments = three.arguments


def uncopyable_call(result: RunResultStreaming) -> None:
    """Call 4's arguments replaced in place by a value the SDK cannot copy safely."""
    vars(function_call(result, 4))["arguments"] = math.nan  # as no validated assignment can


async def nested_agent_tool(journal: Path) -> Outcome:
    """An approval raised inside an agent used as a tool, answered on the outer state."""
    teller = bank_agent(OfflineModel(), journal=journal)
    desk = Agent(
        name="front desk",
        model=OfflineModel(),
        tools=[teller.as_tool(tool_name="ask_bank", tool_description="Ask the bank.")],
    )
    result = await drained(desk, "ask_bank input='transfer_funds amount=5 to_account=bob'")
    state = result.to_state()
    for item in state.get_interruptions():
        state.approve(item)
    return await resumed(desk, state, journal)


SCENARIOS: dict[str, Callable[[Path], Awaitable[Outcome]]] = {
    "approve_all_copies": approve_all_copies,
    "approve_even_reject_odd": approve_even_reject_odd,
    "changed_in_place": changed_in_place,
    "duplicate_made_in_place": lambda journal: refused(journal, duplicate_call),
    "uncopyable_in_place": lambda journal: refused(journal, uncopyable_call),
    "nested_agent_tool": nested_agent_tool,
}


async def main(folder: Path) -> None:
    set_tracing_disabled(True)
    outcomes: dict[str, Any] = {"sdk": str(Path(agents.__file__).parent)}
    for name, scenario in SCENARIOS.items():
        outcomes[name] = await scenario(folder / f"{name}.jsonl")
    print(json.dumps(outcomes))


if __name__ == "__main__":
    asyncio.run(main(Path(sys.argv[1])))
