"""A check every ledger passes: what it says of a call that ran, for a replay's words."""

from __future__ import annotations

import time
from datetime import UTC, datetime

from interrupt_widget.ledger.noting_ledger import Answered, NotingLedger

KEY = ("thread-1", "call-1")


async def sent() -> str:
    return "sent"


async def check_when_and_who(ledger: NotingLedger) -> None:
    """A noted answer and a run: `recorded` says when the result was written and by whom."""
    answered = Answered("transfer_funds", "0" * 64, "approved", {"approved": True},
                        "responder:approve_all", datetime.now(UTC), None)  # fmt: skip
    await ledger.note_answered(*KEY, answered)
    before = time.time()
    assert await ledger.run_once(KEY, sent, answer={"approved": True}) == "sent"
    found = await ledger.recorded(KEY)
    assert found is not None
    assert (found.output, found.answer, found.by) == (
        "sent",
        {"approved": True},
        "responder:approve_all",
    )
    assert found.at is not None
    assert before <= found.at <= time.time()

    # A call no note names (an operator's `record`, a ledger's older rows): who is not known.
    other = ("thread-1", "call-2")
    assert await ledger.run_once(other, sent) == "sent"
    unnamed = await ledger.recorded(other)
    assert unnamed is not None
    assert (unnamed.by, unnamed.at is not None) == (None, True)
