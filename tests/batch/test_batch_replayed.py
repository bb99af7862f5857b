"""A batch run again on its ledger says which rows were replayed, and when their calls ran.

Runs are counted from the journal file the bank tool appends to, outside the
process's own bookkeeping: a replayed row's call must not have run again.
"""

from __future__ import annotations

import pathlib
import re
import sys
from datetime import UTC, datetime
from typing import Any

import pytest
from agents import set_tracing_disabled

from interrupt_widget import AgentBatch, OfflineModel, SQLiteLedger, responders
from interrupt_widget.examples.bank import bank_agent
from interrupt_widget.examples.tool_runs import read_journal

set_tracing_disabled(True)

PROMPT = "transfer_funds amount={amount} to_account={account} memo={invoice}"
ROWS = [{"invoice": f"INV-{n}", "amount": 200 + n, "account": f"ACME-{n}"} for n in range(5)]
WHEN = r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC"


def batch_on(ledger: SQLiteLedger, journal: pathlib.Path) -> AgentBatch:
    return AgentBatch(
        bank_agent(OfflineModel(), journal=journal),
        ROWS,
        name="replays",
        prompt=PROMPT,
        key="invoice",
        ledger=ledger,
        responder=responders.approve_all(),
    )


async def test_a_second_run_says_replayed_on_every_row_and_no_call_ran_twice(
    tmp_path: pathlib.Path,
) -> None:
    journal = tmp_path / "transfers.jsonl"
    ledger = SQLiteLedger(tmp_path / "calls.db")
    first = batch_on(ledger, journal)
    began = datetime.now(UTC)
    await first
    ended = datetime.now(UTC)
    assert len(read_journal(journal)) == 5
    frame = first.frame()
    assert frame["replayed"].tolist() == [False] * 5
    assert all(line == ["transfer_funds: approved by responder:approve_all"] for line in
               frame["decisions"])  # fmt: skip

    second = batch_on(SQLiteLedger(tmp_path / "calls.db"), journal)  # as a new kernel would
    results = await second
    memos = sorted(t["memo"] for t in read_journal(journal))
    assert memos == [r["invoice"] for r in ROWS]  # each ran once, in the first run
    frame = second.frame()
    assert frame["replayed"].tolist() == [True] * 5
    assert frame["status"].tolist() == ["done"] * 5
    for lines in frame["decisions"]:
        [line] = lines
        assert re.fullmatch(
            rf"transfer_funds: approved by responder:approve_all; replayed: ran on {WHEN} "
            r"\(by responder approve_all\)",
            line,
        ), line
    assert all(r.replayed for r in results)
    for decision in second.decisions:
        assert decision.outcome == "replayed"
        assert decision.ran_by == "responder:approve_all"
        assert decision.ran_with == {"approved": True}
        # When it ran is the ledger's record of the first run, not this one.
        assert decision.ran_at is not None
        assert began <= datetime.fromisoformat(decision.ran_at) <= ended


async def test_without_pandas_the_frame_says_how_to_install_it_and_results_say_replayed(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    journal = tmp_path / "transfers.jsonl"
    ledger = SQLiteLedger(tmp_path / "calls.db")
    await batch_on(ledger, journal)
    second = batch_on(ledger, journal)
    results = await second
    monkeypatch.setitem(sys.modules, "pandas", None)  # as if pandas were not installed
    with pytest.raises(ImportError, match=r"pip install pandas; .*results"):
        second.frame()
    replayed: list[Any] = [(r.key, r.replayed) for r in results]
    assert replayed == [(r["invoice"], True) for r in ROWS]
    assert [r.decisions[0].replay_note.startswith("replayed: ran on ") for r in results] == [
        True
    ] * 5
    assert len(read_journal(journal)) == 5
