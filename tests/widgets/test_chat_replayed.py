"""A chat answered twice on one ledger says the second result was replayed, when it ran, by whom.

The same question comes back as a stale save loaded in another kernel would
bring it; runs are counted from the journal file the bank tool appends to.
"""

from __future__ import annotations

import pathlib
from datetime import UTC, datetime

from agents import set_tracing_disabled

from interrupt_widget import AgentChat, OfflineModel, SQLiteLedger
from interrupt_widget.examples.bank import bank_agent
from interrupt_widget.examples.tool_runs import read_journal
from interrupt_widget.testing import CommRecorder, until

set_tracing_disabled(True)

PAY = "transfer_funds amount=250 to_account=ACME-1 memo=INV-7"


async def test_a_second_answer_is_replayed_and_says_when_the_call_ran_and_who_approved_it(
    recorder: CommRecorder, tmp_path: pathlib.Path
) -> None:
    journal = tmp_path / "transfers.jsonl"
    first = AgentChat(bank_agent(OfflineModel(), journal=journal), ledger=tmp_path / "calls.db")
    run = first.send(PAY)
    await until(first, lambda: first.status == "waiting")
    saved = first.save(tmp_path / "waiting.json")
    began = datetime.now(UTC)
    first.picker.resolve({"approved": True}, by="user")
    result = await run
    ended = datetime.now(UTC)
    assert result.replayed == ()
    assert str(result) == result.text
    assert [d.outcome for d in first.decisions] == ["ran"]

    # Another kernel, the same ledger file: the stale save's question answered again.
    ledger = SQLiteLedger(tmp_path / "calls.db")
    again = AgentChat.load(saved, bank_agent(OfflineModel(), journal=journal), ledger=ledger)
    again.picker.resolve({"approved": True}, by="responder:approve_all")
    assert again.last_run is not None
    second = await again.last_run
    assert [t["memo"] for t in read_journal(journal)] == ["INV-7"]  # it ran once

    [decision] = second.replayed
    assert decision.ran_by == "user"  # the answer it ran on, not this later one
    assert decision.by == "responder:approve_all"
    assert decision.ran_at is not None
    assert began <= datetime.fromisoformat(decision.ran_at) <= ended
    when = datetime.fromisoformat(decision.ran_at).strftime("%Y-%m-%d %H:%M:%S UTC")
    assert decision.replay_note == f"replayed: ran on {when} (in the widget)"
    assert again.decisions[-1].replay_note == decision.replay_note
    assert str(second).endswith(f"(transfer_funds replayed: ran on {when} (in the widget); "
                                "not run again)")  # fmt: skip

    # The card reads the same from the result's marker in the synced conversation.
    [tool_message] = [m for m in again.messages if m["role"] == "tool"]
    marker = tool_message["metadata"]["interrupt"]
    assert (marker["replayed"], marker["ran_by"], marker["ran_at"]) == (
        True,
        "user",
        decision.ran_at,
    )
