"""What a batch row has got to, kept in the call ledger so a new kernel goes on from there.

The ledger keys its records by (thread id, call id) and keeps the first output
written under a key for good: that is all a row needs. Under its thread id a row
writes

- `batch-row-step-<n>`: the conversation and its open interrupts each time a run
  stopped to ask (n = 1, 2, ...), so a new kernel asks the same calls again, under
  the same call ids, and the ledger runs none of them twice;
- `batch-row-outcome`: how the row ended, once; a later run reports it and runs
  nothing.

A record whose writing was cut off (the process killed in between) is in doubt:
it counts as not written, and the row goes on from the record before it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, Final

from ag_ui.core import Interrupt, Message

from interrupt_widget.agui.wire import (
    interrupts_from_wire,
    message_from_wire,
    messages_to_wire,
    to_wire,
)
from interrupt_widget.errors import CallInDoubt
from interrupt_widget.ledger.once_only import CallLedger, OnceOnlyLedger

ROW_OUTCOME_CALL: Final = "batch-row-outcome"
"""The call id under which a finished row's outcome is kept."""

ROW_STEP_CALL: Final = "batch-row-step-"
"""How the call id of a row's saved conversation begins (the step number follows)."""


async def read(ledger: CallLedger, thread_id: str, call_id: str) -> Mapping[str, Any] | None:
    """The JSON record under (thread id, call id); None if none, or if it is in doubt."""
    try:
        found = await ledger.recorded((thread_id, call_id))
    except CallInDoubt:
        return None
    if found is None:
        return None
    value = json.loads(found.output)
    return value if isinstance(value, Mapping) else None


async def write(
    ledger: CallLedger,
    thread_id: str,
    call_id: str,
    record: Mapping[str, Any],
    *,
    synced: bool = True,
) -> Mapping[str, Any] | None:
    """Write `record` unless one is there: the record that stands (`record` itself when
    this one does; None if in doubt). `synced=False`: see `OnceOnlyLedger.keep_first`."""
    mine = json.dumps(record)  # key order kept: an interrupt's message follows its arguments' order
    key = (thread_id, call_id)

    async def output() -> str:
        return mine

    try:
        if isinstance(ledger, OnceOnlyLedger):  # one write, where a claim and a result are two
            first = await ledger.keep_first(key, mine, synced=synced)
        else:
            first = await ledger.run_once(key, output)
    except CallInDoubt:
        return None
    if first == mine:
        return record
    value = json.loads(first)
    return value if isinstance(value, Mapping) else None


async def not_begun(ledger: CallLedger, thread_ids: Sequence[str]) -> set[str]:
    """The rows (by thread id) that have neither an outcome nor a saved conversation, read
    in one trip to a ledger that can (none found otherwise: `begun` reads each)."""
    if not isinstance(ledger, OnceOnlyLedger) or not thread_ids:
        return set()
    keys = [key for thread_id in thread_ids for key in _first_records(thread_id)]
    free = await ledger.unclaimed_each(keys)
    pairs = zip(thread_ids, free[::2], free[1::2], strict=True)
    return {thread_id for thread_id, outcome, step in pairs if outcome and step}


def _first_records(thread_id: str) -> tuple[tuple[str, str], tuple[str, str]]:
    return (thread_id, ROW_OUTCOME_CALL), (thread_id, f"{ROW_STEP_CALL}1")


async def begun(
    ledger: CallLedger, thread_id: str
) -> tuple[Mapping[str, Any] | None, tuple[int, list[Message], list[Interrupt]] | None]:
    """How the row ended (its outcome), else its latest saved conversation (`last_step`).

    A row not begun has neither: a ledger that can tells so in one look at both records.
    """
    if isinstance(ledger, OnceOnlyLedger) and await ledger.unclaimed(_first_records(thread_id)):
        return None, None
    outcome = await read(ledger, thread_id, ROW_OUTCOME_CALL)
    if outcome is not None:
        return outcome, None
    return None, await last_step(ledger, thread_id)


async def last_step(
    ledger: CallLedger, thread_id: str
) -> tuple[int, list[Message], list[Interrupt]] | None:
    """The latest saved conversation of a row: (step, messages, open interrupts), or None."""
    step, found = 0, None
    while True:
        record = await read(ledger, thread_id, f"{ROW_STEP_CALL}{step + 1}")
        if record is None:
            break
        step, found = step + 1, record
    if found is None:
        return None
    messages = [message_from_wire(m) for m in found.get("messages", ())]
    return step, messages, interrupts_from_wire(found.get("interrupts", ()))


async def save_step(
    ledger: CallLedger,
    thread_id: str,
    step: int,
    messages: list[Message],
    interrupts: list[Interrupt],
) -> None:
    """Keep the conversation as it waits for answers to `interrupts`, as step `step`."""
    record = {
        "messages": messages_to_wire(messages),
        "interrupts": [to_wire(i) for i in interrupts],
    }
    await write(ledger, thread_id, f"{ROW_STEP_CALL}{step}", record)
