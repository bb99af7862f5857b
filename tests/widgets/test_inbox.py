"""The inbox: every waiting call of batches and chats, answered on a picker's path."""

from __future__ import annotations

import pathlib
from typing import Any

import pytest

from interrupt_widget import AgentBatch, AgentChat, AnswerRefused, Inbox, OfflineModel, Policy
from interrupt_widget.agui.interrupts import ARGUMENTS_LINE_LIMIT, approval_message, arguments_line
from interrupt_widget.examples.bank import bank_agent
from interrupt_widget.examples.tool_runs import read_journal
from interrupt_widget.testing import CommRecorder, batch_until, until

PROMPT = "transfer_funds amount={amount} to_account={account} memo={invoice}"
TICKET = {"properties": {"ticket": {"type": "string", "minLength": 1}}, "required": ["ticket"]}


def invoices(count: int, start: int = 0) -> list[dict[str, Any]]:
    return [
        {"invoice": f"INV-{n:03d}", "amount": 100 + 100 * (n % 5), "account": f"ACME-{n % 3}"}
        for n in range(start, start + count)
    ]


def ran(journal: pathlib.Path) -> list[str]:
    return sorted(record["memo"] for record in read_journal(journal))


def batch_of(journal: pathlib.Path, rows: list[dict[str, Any]], **options: Any) -> AgentBatch:
    return AgentBatch(
        bank_agent(OfflineModel(), journal=journal), rows, prompt=PROMPT, key="invoice", **options
    ).start()


async def test_approve_deny_and_cancel_by_row_return_what_each_row_got(
    tmp_path: pathlib.Path, recorder: CommRecorder
) -> None:
    journal = tmp_path / "transfers.jsonl"
    batch = batch_of(journal, invoices(6), name="a")
    await batch_until(batch, lambda: len(batch.waiting()) == 6)
    inbox = batch.inbox
    assert inbox is batch.inbox
    assert repr(inbox) == "Inbox: 6 waiting (transfer_funds 6)"
    assert inbox.approve(["INV-000", "INV-001"]) == {"INV-000": "approved", "INV-001": "approved"}
    assert inbox.deny(["INV-002"], reason="duplicate") == {"INV-002": "denied"}
    assert inbox.cancel(["INV-003"]) == {"INV-003": "cancelled"}
    assert inbox.approve(["INV-003"]) == {}  # nothing of that row waits any more
    assert set(inbox.approve()) == {"INV-004", "INV-005"}
    await batch
    assert ran(journal) == ["INV-000", "INV-001", "INV-004", "INV-005"]
    denied = batch.row("INV-002").decisions[0]
    assert (denied.verdict, denied.payload["reason"], denied.by) == (
        "denied",
        "duplicate",
        "python",
    )
    await until(inbox, lambda: inbox.counts.get("done") == 6, names=["counts"])
    assert inbox.counts == {
        **dict.fromkeys(["pending", "running", "waiting"], 0),
        "done": 6,
        "failed": 0,
        "cancelled": 0,
        "total": 6,
    }


async def test_a_bulk_answer_refused_by_some_rows_answers_the_others(
    tmp_path: pathlib.Path, recorder: CommRecorder
) -> None:
    journal = tmp_path / "transfers.jsonl"
    plain = batch_of(journal, invoices(3), name="plain")
    strict = batch_of(
        journal, invoices(2, start=10), name="strict", response_schemas={"transfer_funds": TICKET}
    )
    inbox = Inbox(plain, strict)
    await batch_until(plain, lambda: len(plain.waiting()) == 3)
    await batch_until(strict, lambda: len(strict.waiting()) == 2)
    got = inbox.approve()
    assert [got[k] for k in ("INV-000", "INV-001", "INV-002")] == ["approved"] * 3
    assert got["INV-010"].startswith("refused: transfer_funds:")
    assert "ticket" in got["INV-010"]
    assert [w.key for w in inbox.waiting] == ["INV-010", "INV-011"]
    assert "ticket" in inbox.waiting[0].error  # shown on that row
    await plain
    assert inbox.deny() == {"INV-010": "denied", "INV-011": "denied"}
    await strict
    assert ran(journal) == ["INV-000", "INV-001", "INV-002"]


async def test_the_front_end_gets_a_snapshot_then_merged_deltas_and_answers_by_item(
    tmp_path: pathlib.Path, recorder: CommRecorder
) -> None:
    journal = tmp_path / "transfers.jsonl"
    batch = batch_of(journal, invoices(40), name="wire", concurrency=8)
    inbox = batch.inbox
    channel = recorder.of(inbox)
    await batch_until(batch, lambda: len(batch.waiting()) == 40)
    await until(inbox, lambda: inbox.counts.get("waiting") == 40, names=["counts"])
    deltas = [m for m in channel.custom_messages() if m["type"] == "delta"]
    assert sum(len(d["upsert"]) for d in deltas) >= 40
    assert len(deltas) < 40  # merged: not one message per row
    channel.clear()

    channel.deliver({"type": "hello"})
    [snapshot] = [m for m in channel.custom_messages() if m["type"] == "snapshot"]
    items = snapshot["items"]
    assert len(items) == 40
    first = items[0]
    assert first["tool"] == "transfer_funds"
    assert first["args"].startswith("amount=")
    assert first["interrupt"]["responseSchema"]["required"] == ["approved"]

    ids = [i["id"] for i in items[:5]]
    channel.deliver(
        {
            "type": "answer",
            "requestId": "r1",
            "ids": ids,
            "status": "resolved",
            "payload": {"approved": True},
            "viewId": "v1",
        }
    )
    [reply] = [m for m in channel.custom_messages() if m["type"] == "answer_result"]
    assert [r["ok"] for r in reply["results"]] == [True] * 5
    assert {d.by for row in batch.rows for d in row.decisions} == {"view:v1"}
    channel.deliver({"type": "answer", "requestId": "r2", "ids": ids[:1], "status": "cancelled"})
    again = next(m for m in channel.custom_messages() if m.get("requestId") == "r2")
    assert again["results"][0]["ok"] is False  # already answered: nothing changes
    inbox.cancel()
    await batch
    assert len(ran(journal)) == 5


async def test_a_remembered_rule_settles_the_calls_like_it_and_exports_a_policy(
    tmp_path: pathlib.Path, recorder: CommRecorder
) -> None:
    journal = tmp_path / "transfers.jsonl"
    rows = invoices(10)  # amounts 100..500
    batch = batch_of(journal, rows, name="rules", concurrency=10)
    inbox = batch.inbox
    await batch_until(batch, lambda: len(batch.waiting()) == 10)
    rule = inbox.remember("INV-002", "amount", "le")  # amount 300: 100, 200, 300 ones go
    assert rule.name == "transfer_funds when amount <= 300.0"
    small = sorted(r["invoice"] for r in rows if r["amount"] <= 300)
    assert sorted(w.key for w in inbox.waiting) == sorted(
        r["invoice"] for r in rows if r["amount"] > 300
    )
    assert inbox.remembered[0]["settled"] == len(small) - 1
    by = {d.by for row in batch.rows for d in row.decisions}
    assert by == {"python", f"rule:{rule.name}"}

    policy = inbox.rules
    assert isinstance(policy, Policy)
    assert "approve('transfer_funds', when=lambda a: a.get('amount') <= 300.0" in str(policy)
    assert policy.decide("transfer_funds", {"amount": 250}).verdict == "approve"
    assert policy.decide("transfer_funds", {"amount": 450}).verdict == "ask"

    assert inbox.forget(rule.name) is True
    assert inbox.remembered == []
    inbox.deny()
    await batch
    assert ran(journal) == small
    report = policy.evaluate(batch.decisions)
    assert report is not None


async def test_a_chat_waiting_for_an_answer_is_listed_and_answered_through_its_picker(
    tmp_path: pathlib.Path, recorder: CommRecorder
) -> None:
    journal = tmp_path / "transfers.jsonl"
    chat = AgentChat(bank_agent(OfflineModel(), journal=journal))
    run = chat.send("transfer_funds amount=70 to_account=ACME-1 memo=chat")
    await until(chat, lambda: chat.status == "waiting")
    inbox = Inbox(chat)
    [waiting] = inbox.waiting
    assert waiting.key == chat.thread.thread_id
    # A refused answer shows on the chat's item as on a batch row's: one object keeps it.
    assert chat.picker is not None
    with pytest.raises(AnswerRefused, match="did you mean 'approved'") as refused:
        chat.picker.resolve({"approved": True, "aproved": True})
    assert inbox.waiting[0].error == str(refused.value)
    assert inbox.approve() == {waiting.key: "approved"}
    await run
    assert ran(journal) == ["chat"]
    assert chat.decisions[0].by == "python"


def test_a_rows_arguments_read_as_its_question_says_them() -> None:
    # Numbers as the card writes them (the offline model's floats: 120, not 120.0), strings
    # quoted with what they hold, nested values canonical; cut at the line's limit.
    arguments = {"amount": 120.0, "memo": 'rent "May" – ünï', "tags": {"b": 1.5, "a": [2.0]}}
    line = arguments_line(arguments)
    assert line == 'amount=120, memo="rent \\"May\\" – ünï", tags={"a":[2],"b":1.5}'
    assert approval_message("pay", arguments) == f"Allow pay to run with {line}?"
    assert arguments_line({}) == "no arguments"
    assert arguments_line(None) == ""
    long = arguments_line({"text": "x" * 1000})
    assert len(long) == ARGUMENTS_LINE_LIMIT
    assert long.endswith("…")
