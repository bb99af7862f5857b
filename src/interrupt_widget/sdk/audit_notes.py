"""The audit notes a run writes beside its ledger's claims (see `ledger/audit_log.py`).

Three moments: the calls a run pauses on (asked), the answer that settles a
call, written by the run that holds its claim before the SDK may run it
(answered), and a tool that raised (failed). A ledger that keeps no notes
(`AuditedLedger`) is left alone; a note that cannot be written is logged by
the ledger and the run goes on.
"""

from __future__ import annotations

from datetime import datetime

from ag_ui.core import Interrupt

from interrupt_widget.agui.interrupts import tool_arguments, tool_name
from interrupt_widget.agui.resume import Resolution
from interrupt_widget.ledger.audit import arguments_sha256
from interrupt_widget.ledger.audit_log import Answered, Asked, AuditedLedger
from interrupt_widget.ledger.once_only import CallLedger, Key


async def asked(
    ledger: CallLedger, thread_id: str, interrupts: list[Interrupt], at: datetime
) -> None:
    """Note the calls a run pauses on."""
    if not interrupts or not isinstance(ledger, AuditedLedger):
        return
    calls = [
        Asked(
            call_id=i.tool_call_id,
            tool=tool_name(i),
            arguments_sha256=arguments_sha256(tool_arguments(i)),
            at=at,
        )
        for i in interrupts
        if i.tool_call_id
    ]
    await ledger.note_asked(thread_id, calls)


async def answered(
    ledger: CallLedger, key: Key, resolution: Resolution, by: str | None, at: datetime
) -> None:
    """Note the answer that settles a call, from the run that holds its claim."""
    if not isinstance(ledger, AuditedLedger):
        return
    call = resolution.gated.call
    proposed = arguments_sha256(call.function.arguments)
    executed = None
    if resolution.decision == "approved":
        edited = resolution.edited_arguments
        executed = proposed if edited is None else arguments_sha256(edited)
    note = Answered(
        tool=call.function.name,
        arguments_sha256=proposed,
        decision=resolution.decision,
        answer=resolution.payload,
        by=by,
        at=at,
        executed_arguments_sha256=executed,
    )
    await ledger.note_answered(*key, note)


async def failed(ledger: CallLedger, key: Key, error: str) -> None:
    """Note that an approved call's tool raised `error`."""
    if isinstance(ledger, AuditedLedger):
        await ledger.note_failed(*key, error)
