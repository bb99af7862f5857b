"""What a ledger says of a call that ran, for a replay's words: when, and who answered."""

from __future__ import annotations

from pathlib import Path

import pytest

from interrupt_widget.ledger.memory import ExecutionLedger
from interrupt_widget.ledger.sqlite import SQLiteLedger
from recorded_calls import check_when_and_who


@pytest.mark.parametrize("kind", ["memory", "sqlite"])
async def test_a_recorded_call_says_when_it_ran_and_who_answered(kind: str, tmp_path: Path) -> None:
    ledger = ExecutionLedger() if kind == "memory" else SQLiteLedger(tmp_path / "calls.db")
    await check_when_and_who(ledger)
