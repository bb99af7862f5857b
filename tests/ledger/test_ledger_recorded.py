"""What a ledger says of a call that ran, for a replay's words: when, and who answered."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from interrupt_widget.ledger.memory import MemoryLedger
from interrupt_widget.ledger.sqlite import SQLiteLedger
from recorded_calls import KEY, check_when_and_who


@pytest.mark.parametrize("kind", ["memory", "sqlite"])
async def test_a_recorded_call_says_when_it_ran_and_who_answered(kind: str, tmp_path: Path) -> None:
    ledger = MemoryLedger() if kind == "memory" else SQLiteLedger(tmp_path / "calls.db")
    await check_when_and_who(ledger)


async def test_a_call_record_is_read_when_its_audit_notes_cannot_be(tmp_path: Path) -> None:
    # The notes are best effort; the record decides what runs, and must not need them.
    ledger = SQLiteLedger(tmp_path / "calls.db")
    await check_when_and_who(ledger)
    with sqlite3.connect(tmp_path / "calls.db") as db:
        db.execute("DROP TABLE call_audit")
    found = await ledger.recorded(KEY)
    assert found is not None
    assert (found.output, found.by) == ("sent", None)
    assert found.at is not None
