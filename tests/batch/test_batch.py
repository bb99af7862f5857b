"""AgentBatch: one run per row, at most `concurrency` at once, each approved call run once."""

from __future__ import annotations

import asyncio
import pathlib
import re
from typing import Any

import pytest
from agents import Agent, function_tool

from interrupt_widget import AgentBatch, AnswerRefused, OfflineModel, Policy, approve, responders
from interrupt_widget.examples.bank import bank_agent
from interrupt_widget.examples.tool_runs import read_journal
from interrupt_widget.testing import batch_until

PROMPT = "transfer_funds amount={amount} to_account={account} memo={invoice}"


def invoices(count: int) -> list[dict[str, Any]]:
    """`count` invoices; every seventh is large (over 100), the rest small."""
    return [
        {
            "invoice": f"INV-{n:04d}",
            "amount": 5000 if n % 7 == 0 else 20 + n % 50,
            "account": f"ACME-{n}",
        }
        for n in range(count)
    ]


def small_ones() -> Policy:
    return Policy(approve("transfer_funds", when=lambda a: a["amount"] <= 100, name="small"))


def ran(journal: pathlib.Path) -> list[str]:
    return sorted(record["memo"] for record in read_journal(journal))


async def test_two_hundred_rows_approved_and_denied_each_run_at_most_once(
    tmp_path: pathlib.Path,
) -> None:
    journal = tmp_path / "transfers.jsonl"
    rows = invoices(200)
    batch = AgentBatch(
        bank_agent(OfflineModel(), journal=journal),
        rows,
        name="pay",
        prompt=PROMPT,
        key="invoice",
        concurrency=16,
        policy=small_ones(),
    ).start()
    large = [r["invoice"] for r in rows if r["amount"] > 100]
    await batch_until(batch, lambda: len(batch.waiting()) == len(large), timeout=60)
    assert sorted(w.key for w in batch.waiting()) == sorted(large)
    approved, denied = large[::2], large[1::2]
    for key in approved:
        batch.row(key).resolve({"approved": True}, by="user")
    for key in denied:
        batch.row(key).resolve({"approved": False, "reason": "too much"}, by="user")
    results = await batch

    small = [r["invoice"] for r in rows if r["amount"] <= 100]
    assert ran(journal) == sorted([*small, *approved])
    assert {r.status for r in results} == {"done"}
    frame = batch.frame()
    assert list(frame.columns)[:3] == ["invoice", "amount", "account"]
    assert frame.set_index("key").loc[denied[0], "decisions"] == ["transfer_funds: denied by user"]
    by = {d.by for d in batch.decisions}
    assert by == {"policy:small", "user"}
    assert all(
        d.outcome == ("ran" if d.verdict == "approved" else "not_run") for d in batch.decisions
    )

    # The same batch again, on the same ledger: nothing runs, each row reports its first outcome.
    again = AgentBatch(
        bank_agent(OfflineModel(), journal=journal),
        rows,
        name="pay",
        prompt=PROMPT,
        key="invoice",
        policy=small_ones(),
        responder=responders.fail(),
    )
    second = await again
    assert ran(journal) == sorted([*small, *approved])
    assert all(r.replayed for r in second)
    assert [(r.key, r.status, r.text) for r in second] == [
        (r.key, r.status, r.text) for r in results
    ]
    assert again.row(denied[0]).decisions[0].verdict == "denied"


async def test_a_row_that_raises_leaves_the_others_running(tmp_path: pathlib.Path) -> None:
    @function_tool(failure_error_function=None)
    def lookup(code: str) -> str:
        """Look a code up."""
        if code == "bad":
            raise RuntimeError("no such code")
        return f"found {code}"

    agent = Agent(name="lookups", tools=[lookup], model=OfflineModel())
    batch = AgentBatch(agent, ["lookup code=a", "lookup code=bad", "lookup code=c"], concurrency=2)
    results = await batch
    assert [r.status for r in results] == ["done", "failed", "done"]
    assert "no such code" in (results[1].error or "")
    assert batch.frame()["status"].tolist() == ["done", "failed", "done"]


async def test_the_environment_names_the_responder_for_a_batch(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(responders.ENV_VAR, "approve_all")
    journal = tmp_path / "transfers.jsonl"
    batch = AgentBatch(
        bank_agent(OfflineModel(), journal=journal), invoices(8), prompt=PROMPT, key="invoice"
    )
    results = await batch
    assert len(ran(journal)) == 8
    assert {d.by for r in results for d in r.decisions} == {"responder:approve_all"}


async def test_cancel_stops_waiting_rows_and_runs_none_of_their_calls(
    tmp_path: pathlib.Path,
) -> None:
    journal = tmp_path / "transfers.jsonl"
    rows = [{"invoice": f"I{n}", "amount": 900, "account": "ACME-1"} for n in range(6)]
    batch = AgentBatch(
        bank_agent(OfflineModel(), journal=journal),
        rows,
        prompt=PROMPT,
        key="invoice",
        concurrency=2,
    ).start()
    await batch_until(batch, lambda: len(batch.waiting()) == 6, timeout=30)
    batch.cancel()
    results = await batch
    assert {r.status for r in results} == {"cancelled"}
    assert ran(journal) == []
    assert {d.by for d in batch.decisions} == {"batch"}

    # A stopped row ended cancelled for good; a row the stop kept from starting runs next time.
    again = AgentBatch(
        bank_agent(OfflineModel(), journal=journal),
        [*rows, {"invoice": "I9", "amount": 900, "account": "ACME-1"}],
        prompt=PROMPT,
        key="invoice",
        responder=responders.approve_all(),
    )
    second = await again
    assert [(r.status, r.replayed) for r in second] == [("cancelled", True)] * 6 + [("done", False)]
    assert ran(journal) == ["I9"]


async def test_an_unanswered_question_expires_to_the_default_and_never_runs(
    tmp_path: pathlib.Path,
) -> None:
    journal = tmp_path / "transfers.jsonl"
    rows = [{"invoice": "late", "amount": 900, "account": "ACME-1"}]
    for answer in ("cancel", "deny"):
        batch = AgentBatch(
            bank_agent(OfflineModel(), journal=journal),
            rows,
            name=f"expiry-{answer}",
            prompt=PROMPT,
            key="invoice",
            expires_in=0.2,
            on_expiry=answer,  # type: ignore[arg-type]
        )
        results = await asyncio.wait_for(batch._finished(), 30)
        decision = results[0].decisions[0]
        assert (decision.verdict, decision.by) == ("expired", "expiry")
        assert decision.status == ("cancelled" if answer == "cancel" else "resolved")
        # An answer that comes after the deadline says so, and when; it changes nothing.
        with pytest.raises(AnswerRefused) as late:
            batch.row("late").resolve({"approved": True}, decision.interrupt_id)
        settled = "cancelled" if answer == "cancel" else "denied"
        assert re.fullmatch(
            rf"row late: transfer_funds expired at \S+Z and was {settled}: this answer came "
            "too late; nothing was changed",
            str(late.value),
        ), str(late.value)
    assert ran(journal) == []


async def test_a_dataframe_is_read_row_by_row_and_its_index_names_the_rows(
    tmp_path: pathlib.Path,
) -> None:
    import pandas as pd

    journal = tmp_path / "transfers.jsonl"
    table = pd.DataFrame(
        {"amount": [10, 20], "account": ["ACME-1", "ACME-2"], "invoice": ["A", "B"]},
        index=["first", "second"],
    )
    batch = AgentBatch(
        bank_agent(OfflineModel(), journal=journal),
        table,
        prompt=PROMPT,
        responder=responders.approve_all(),
    )
    assert [row.thread.thread_id for row in batch.rows] == ["Bank/first", "Bank/second"]
    await batch
    frame = batch.frame()
    assert frame[["amount", "key", "status"]].values.tolist() == [
        [10, "first", "done"],
        [20, "second", "done"],
    ]
    assert ran(journal) == ["A", "B"]


def test_inputs_that_cannot_make_rows_are_refused_before_anything_runs() -> None:
    agent = bank_agent(OfflineModel())
    with pytest.raises(ValueError, match="repeated: x"):
        AgentBatch(agent, [{"k": "x"}, {"k": "x"}], key="k", prompt="{k}")
    with pytest.raises(TypeError, match="give prompt="):
        AgentBatch(agent, [{"k": "x"}])
    with pytest.raises(ValueError, match="prompt names 'missing'"):
        AgentBatch(agent, [{"k": "x"}], prompt="{missing}")
    with pytest.raises(ValueError, match="on_expiry"):
        AgentBatch(agent, ["a"], on_expiry="run")  # type: ignore[arg-type]
