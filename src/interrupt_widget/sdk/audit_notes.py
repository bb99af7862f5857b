"""The audit notes a run writes beside its ledger's claims (see `ledger/noting_ledger.py`).

Three moments: the calls a run pauses on (asked, written with the paused
state), the answer that settles a call, written with the claim (an approved
call, before the SDK may run it) or the record (a denial, a cancel) of the
run that settles it (answered, `held_calls.claim`), and a tool that raised
(failed). A ledger that keeps no notes (`AuditedLedger`) is left alone; a
note that cannot be written is logged by the ledger and the run goes on.
"""

from __future__ import annotations

from datetime import datetime

from ag_ui.core import Interrupt

from interrupt_widget.agui.interrupts import tool_arguments, tool_name
from interrupt_widget.agui.resume import Resolution
from interrupt_widget.ledger.audit import arguments_sha256
from interrupt_widget.ledger.noting_ledger import Answered, Asked, keeps_notes
from interrupt_widget.ledger.once_only import CallLedger, Key


def asked(ledger: CallLedger, interrupts: list[Interrupt], at: datetime) -> list[Asked]:
    """The notes of the calls a run pauses on (none for a ledger that keeps no notes), which
    `paused_runs.keep` writes with the paused state."""
    if not keeps_notes(ledger):
        return []
    return [
        Asked(
            call_id=i.tool_call_id,
            tool=tool_name(i),
            arguments_sha256=arguments_sha256(tool_arguments(i)),
            at=at,
        )
        for i in interrupts
        if i.tool_call_id
    ]


def answered_note(resolution: Resolution, by: str | None, at: datetime) -> Answered:
    """The note of the answer that settles a call, written with its claim or record."""
    call = resolution.gated.call
    proposed = arguments_sha256(call.function.arguments)
    executed = None
    if resolution.decision == "approved":
        edited = resolution.edited_arguments
        executed = proposed if edited is None else arguments_sha256(edited)
    return Answered(
        tool=call.function.name,
        arguments_sha256=proposed,
        decision=resolution.decision,
        answer=resolution.payload,
        by=by,
        at=at,
        executed_arguments_sha256=executed,
    )


async def failed(ledger: CallLedger, key: Key, error: str) -> None:
    """Note that an approved call's tool raised `error`."""
    if keeps_notes(ledger):
        await ledger.note_failed(*key, error)
