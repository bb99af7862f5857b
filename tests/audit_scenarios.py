"""Gated calls driven through the adapter on a given ledger, for the audit tests (SQLite,
PostgreSQL, memory): one approved, one denied, one cancelled, one that raises, one left waiting."""

from __future__ import annotations

from typing import Any

from ag_ui.core import (
    BaseEvent,
    MessagesSnapshotEvent,
    ResumeEntry,
    RunAgentInput,
    RunFinishedEvent,
    RunFinishedInterruptOutcome,
    ToolCallResultEvent,
    UserMessage,
)
from agents import Agent, function_tool

from interrupt_widget import OfflineModel, OpenAIAgentsAdapter
from interrupt_widget.ledger.once_only import CallLedger

APPROVE = {"approved": True}


@function_tool(needs_approval=True)
def send_invoice(customer: str) -> str:
    """Send an invoice to `customer`."""
    return f"Invoice sent to {customer}."


@function_tool(needs_approval=True, failure_error_function=None)  # the error reaches the run
def wipe_disk(name: str) -> str:
    """Wipe the disk `name` (it always fails)."""
    raise RuntimeError(f"disk {name} is write-protected")


def billing_adapter(ledger: CallLedger) -> OpenAIAgentsAdapter:
    agent = Agent(name="billing", model=OfflineModel(), tools=[send_invoice, wipe_disk])
    return OpenAIAgentsAdapter(agent, ledger=ledger)


async def pause(
    adapter: OpenAIAgentsAdapter, thread_id: str, ask: str = "Please send_invoice customer=ACME"
) -> tuple[list[Any], str, str]:
    """Ask on `thread_id` until the run pauses: the messages, the interrupt id, the call id."""
    request = RunAgentInput(
        thread_id=thread_id, run_id="run-1", messages=[UserMessage(id="u1", content=ask)]
    )
    events = [e async for e in adapter.run(request)]
    finished = events[-1]
    assert isinstance(finished, RunFinishedEvent), events[-1]
    assert isinstance(finished.outcome, RunFinishedInterruptOutcome)
    [interrupt] = finished.outcome.interrupts
    snapshot = next(e for e in reversed(events) if isinstance(e, MessagesSnapshotEvent))
    assert interrupt.tool_call_id is not None
    return list(snapshot.messages), interrupt.id, interrupt.tool_call_id


async def answer(
    adapter: OpenAIAgentsAdapter,
    thread_id: str,
    paused: tuple[list[Any], str, str],
    entry: dict[str, Any],
) -> list[BaseEvent]:
    messages, interrupt_id, _ = paused
    request = RunAgentInput(
        thread_id=thread_id,
        run_id="run-2",
        messages=messages,
        resume=[ResumeEntry(interrupt_id=interrupt_id, **entry)],
    )
    return [e async for e in adapter.run(request)]


def result_of(events: list[BaseEvent]) -> str:
    [result] = [e for e in events if isinstance(e, ToolCallResultEvent)]
    return result.content


async def every_outcome(ledger: CallLedger) -> dict[str, Any]:
    """Drive one call to each outcome on `ledger`; what the test checks, by thread id."""
    adapter = billing_adapter(ledger)
    ran = await pause(adapter, "t-ran")
    denied = await pause(adapter, "t-denied", "Please send_invoice customer=Globex")
    cancelled = await pause(adapter, "t-cancelled", "Please send_invoice customer=Initech")
    failed = await pause(adapter, "t-failed", "Please wipe_disk name=sda")
    waiting = await pause(adapter, "t-waiting", "Please send_invoice customer=Hooli")
    by_view = {"by": "view:inbox-7"}
    ran_events = await answer(
        adapter, "t-ran", ran, {"status": "resolved", "payload": APPROVE, "metadata": by_view}
    )
    deny = {"approved": False, "reason": "wrong customer"}
    await answer(
        adapter, "t-denied", denied, {"status": "resolved", "payload": deny, "metadata": by_view}
    )
    await answer(adapter, "t-cancelled", cancelled, {"status": "cancelled"})
    await answer(adapter, "t-failed", failed, {"status": "resolved", "payload": APPROVE})
    return {
        "ran_output": result_of(ran_events),
        "calls": {
            "t-ran": ran[2],
            "t-denied": denied[2],
            "t-cancelled": cancelled[2],
            "t-failed": failed[2],
            "t-waiting": waiting[2],
        },
    }
