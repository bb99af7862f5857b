"""Four eyes in a notebook: two people answer one chat's card in one kernel, each as who
they are (`identity=`, `as_identity`). The card says "1 of 2" after the first approval,
refuses the same person again and the run's starter with the reason, and the second
approver's click runs the call once; the runs are read from the file the tool writes.
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import pytest

from interrupt_widget import (
    AgentBatch,
    AgentChat,
    Identity,
    Inbox,
    NotAllowedToAnswer,
    Policy,
    ResponderError,
    as_identity,
    escalate,
    require,
    responders,
)
from interrupt_widget.policy.quorum import APPROVALS_KEY
from interrupt_widget.testing import CommRecorder, batch_until, until
from payment_agents import payment_agent, runs_in

BIG = "send_money amount=5000 to=Bob"
FOUR_EYES = Policy(require("send_money", approvals=2, when=lambda a: a["amount"] > 1000))


async def test_two_people_in_one_kernel_approve_and_the_call_runs_once(
    recorder: CommRecorder, tmp_path: Path
) -> None:
    runs = tmp_path / "runs.jsonl"
    chat = AgentChat(payment_agent(runs), policy=FOUR_EYES, ledger=str(tmp_path / "l.db"))
    with as_identity("carl"):
        handle = chat.send(BIG)
    await until(chat, lambda: chat.status == "waiting")
    first = chat.picker
    assert first is not None
    needs = first.interrupts[0]["metadata"][APPROVALS_KEY]
    assert (needs["needed"], needs["started_by"]) == (2, "carl")

    with pytest.raises(NotAllowedToAnswer, match="carl started this run"):
        first.resolve({"approved": True}, identity="carl")
    first.resolve({"approved": True}, identity="ann")

    def given() -> list[str]:
        picker = chat.picker
        if chat.status != "waiting" or picker is None or not picker.interrupts:
            return []
        shown = picker.interrupts[0]["metadata"][APPROVALS_KEY]["given"]
        return [v["name"] for v in shown]

    await until(chat, lambda: given() == ["ann"], names=("status", "interrupts"))
    second = chat.picker
    assert second is not None
    assert runs_in(runs) == []

    with pytest.raises(NotAllowedToAnswer, match="ann already approved"):
        second.resolve({"approved": True}, identity="ann")
    second.resolve({"approved": True}, identity="bob")
    await handle
    assert runs_in(runs) == [{"tool": "send_money", "amount": 5000.0, "to": "Bob"}]
    last = chat.decisions[-1]
    assert (last.verdict, last.identity, last.approvers) == ("approved", "bob", ["ann", "bob"])
    assert chat.decisions[0].identity == "ann"


async def test_the_inbox_lists_what_waits_for_each_person_and_what_escalates_to_them(
    recorder: CommRecorder, tmp_path: Path
) -> None:
    runs = tmp_path / "runs.jsonl"
    policy = Policy(
        require("send_money", approvals=2, roles=["finance"]),
        escalate("send_money", after=timedelta(hours=1), to="cfo", then="deny"),
    )
    chat = AgentChat(payment_agent(runs), policy=policy, ledger=str(tmp_path / "l.db"))
    chat.responder = None
    with as_identity("carl", roles=["finance"]):
        handle = chat.send(BIG)
    await until(chat, lambda: chat.status == "waiting")
    inbox = Inbox(chat, remind_after=600)
    assert len(inbox.waiting) == 1
    assert inbox.waiting_for(Identity("ann", ("finance",))) == inbox.waiting
    assert inbox.waiting_for(Identity("carl", ("finance",))) == []  # started the run
    assert inbox.waiting_for(Identity("dan")) == []  # no finance role, not escalated yet
    assert inbox.escalated(Identity("cleo", ("cfo",))) == inbox.waiting
    assert inbox.escalated(Identity("ann", ("finance",))) == []
    with as_identity("dan"):
        inbox._refresh()
        assert inbox.viewer == {"name": "dan", "roles": []}
    items = [
        item
        for message in recorder.of(inbox).custom_messages()
        for item in message.get("items", message.get("upsert", []))
    ]
    assert {"mayAnswer", "escalatesToMe"} <= set(items[-1])
    assert inbox.remind_after == 600
    with pytest.raises(ValueError, match="remind_after"):
        Inbox(chat, remind_after=0)
    chat.stop()
    await handle
    assert runs_in(runs) == []


async def test_a_batch_row_takes_two_approvers_and_refuses_the_same_one_twice(
    tmp_path: Path,
) -> None:
    runs = tmp_path / "runs.jsonl"
    batch = AgentBatch(
        payment_agent(runs),
        [{"id": "T-1", "amount": 5000}],
        name="pay",
        prompt="send_money amount={amount} to=Bob",
        key="id",
        policy=FOUR_EYES,
        ledger=str(tmp_path / "l.db"),
    ).start()

    def given() -> list[str]:
        waiting = batch.waiting()
        if not waiting:
            return []
        shown = (waiting[0].interrupt.metadata or {}).get(APPROVALS_KEY, {})
        return [v["name"] for v in shown.get("given", [])]

    await batch_until(batch, lambda: len(batch.waiting()) == 1)
    row = batch.row("T-1")
    with as_identity("ann"):
        row.resolve({"approved": True})
    await batch_until(batch, lambda: given() == ["ann"])
    with as_identity("ann"), pytest.raises(NotAllowedToAnswer, match="ann already approved"):
        row.resolve({"approved": True})
    with as_identity("bob"):
        row.resolve({"approved": True})
    await batch_until(batch, lambda: batch.counts()["done"] == 1)
    assert runs_in(runs) == [{"tool": "send_money", "amount": 5000.0, "to": "Bob"}]


async def test_a_responder_counts_as_one_person_and_never_makes_a_quorum_alone(
    recorder: CommRecorder, tmp_path: Path
) -> None:
    runs = tmp_path / "runs.jsonl"
    chat = AgentChat(
        payment_agent(runs),
        policy=FOUR_EYES,
        ledger=str(tmp_path / "l.db"),
        responder=responders.approve_all(),
    )
    with pytest.raises(ResponderError, match="responder:approve_all already approved"):
        await chat.send(BIG)
    assert runs_in(runs) == []
