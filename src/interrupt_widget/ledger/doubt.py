"""Settling a call in doubt: a person says whether it ran, and the ledger records that.

A call is *in doubt* when its run claimed it and ended (a crash mid-tool, or
the ledger's storage failing) before its result was recorded: it may have run,
so no resume runs it again (`CallInDoubt`). Only a person who checked its
effect can settle it, one of two ways:

- **it ran**: the result they give is recorded as the call's output, so the
  next resume hands the model that output and runs nothing;
- **it did not run**: the claim is dropped, so the next resume runs the call,
  once, through the ledger as any approved call.

The widgets (chat, picker, inbox) offer both answers on the call's card; this
module is what they do with the answer. A ledger that can be settled this way
(`SQLiteLedger`, `PostgresLedger`) is a `DoubtLedger`; the in-memory ledger
never leaves a call in doubt (its record ends with its process).
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Protocol, runtime_checkable

from interrupt_widget.errors import NotInDoubt
from interrupt_widget.ledger.audit import AuditTrail
from interrupt_widget.ledger.once_only import Key

__all__ = ["DoubtLedger", "NotInDoubt", "doubted", "settle_doubt"]


@runtime_checkable
class DoubtLedger(Protocol):
    """A ledger that lists its calls in doubt and lets an operator settle them."""

    def in_doubt(self) -> list[Key]: ...

    def release(self, thread_id: str, call_id: str) -> bool: ...

    def record(self, thread_id: str, call_id: str, output: str) -> None: ...

    def audit(self, since: datetime | None = None, until: datetime | None = None) -> AuditTrail: ...


def doubted(ledger: DoubtLedger, thread_id: str, call_ids: Iterable[str]) -> set[str]:
    """Which of `call_ids` (in `thread_id`) the ledger holds in doubt (blocking: one read)."""
    wanted = set(call_ids)
    if not wanted:
        return set()
    keys = ledger.in_doubt()
    return {call for thread, call in keys if thread == thread_id and call in wanted}


def settle_doubt(ledger: DoubtLedger, key: Key, *, ran: bool, output: str | None) -> None:
    """Record a person's word on a call in doubt: its output if it ran, else free it to run.

    Blocking (the ledger's own I/O). Raises `NotInDoubt` when the call is not in doubt
    any more, so a result somebody else recorded, or a run that finished meanwhile, is
    never overwritten; `LedgerUnavailable` when the ledger cannot be reached (nothing
    changed then).
    """
    if key not in ledger.in_doubt():
        raise NotInDoubt(
            f"tool call {key[1]!r} is not in doubt any more: somebody settled it, or its "
            "run recorded a result meanwhile"
        )
    thread_id, call_id = key
    if ran:
        if output is None:
            raise ValueError("say what the call returned: its result is what the model sees")
        ledger.record(thread_id, call_id, output)
    else:
        ledger.release(thread_id, call_id)
