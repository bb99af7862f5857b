"""Four eyes in a batch: a row whose call needs two people refuses, as a picker does, an
approval from the person who started the batch and a second one from the same person;
two different people approve and the call runs once (read from the file the tool writes).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from interrupt_widget import AgentBatch, NotAllowedToAnswer, Policy, as_identity, require
from interrupt_widget.batch.agent_batch import RowResult
from interrupt_widget.policy.quorum import APPROVALS_KEY
from interrupt_widget.testing import batch_until
from payment_agents import payment_agent, runs_in


def given(batch: AgentBatch) -> list[str]:
    """Who approved the row's open question so far, as its interrupt shows it."""
    waiting = batch.waiting()
    if len(waiting) != 1:
        return []
    shown = (waiting[0].interrupt.metadata or {})[APPROVALS_KEY]["given"]
    return [v["name"] for v in shown]


async def test_a_batch_row_needing_two_people_refuses_a_self_approval_and_a_second_vote(
    tmp_path: Path,
) -> None:
    runs = tmp_path / "runs.jsonl"
    with as_identity("carl"):
        batch = AgentBatch(
            payment_agent(runs),
            [{"id": "r1", "amount": 5000, "to": "Bob"}],
            name="four-eyes",
            prompt="send_money amount={amount} to={to}",
            key="id",
            policy=Policy(require("send_money", approvals=2)),
            ledger=str(tmp_path / "l.db"),
        ).start()
    await batch_until(batch, lambda: len(batch.waiting()) == 1)
    row = batch.row("r1")

    with pytest.raises(NotAllowedToAnswer, match="carl started this run"):
        row.resolve({"approved": True}, identity="carl")
    assert "carl started this run" in batch.waiting()[0].error  # the inbox shows why
    row.resolve({"approved": True}, identity="ann")
    await batch_until(batch, lambda: given(batch) == ["ann"])
    with pytest.raises(NotAllowedToAnswer, match="ann already approved"):
        batch.row("r1").resolve({"approved": True}, identity="ann")
    assert runs_in(runs) == []

    batch.row("r1").resolve({"approved": True}, identity="bob")
    results: tuple[RowResult, ...] = await batch
    assert [r.status for r in results] == ["done"]
    assert runs_in(runs) == [{"tool": "send_money", "amount": 5000.0, "to": "Bob"}]
    last = batch.decisions[-1]
    assert (last.identity, last.approvers) == ("bob", ["ann", "bob"])
