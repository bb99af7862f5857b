"""A batch row whose approved call was left in doubt asks a person whether it ran, and
settles it through the ledger: from Python (`row.settle`) or from the inbox's card.

The doubt is made the way it happens: the process running the batch dies (SIGKILL)
in the middle of the tool, and a new `AgentBatch` on the same ledger finds the claim
with no result. Runs are counted from the file the tool writes.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from ag_ui.core import Interrupt

from crash_agent import billing_agent, claimed_by_the_dead, runs_of
from crash_batch import billing_batch
from interrupt_widget import AgentBatch, AgentChat, Inbox, SQLiteLedger, responders
from interrupt_widget.asking import in_doubt_refusal
from interrupt_widget.errors import AnswerRefused, ChatRunError
from interrupt_widget.testing import CommRecorder, batch_until, until

SCRIPT = Path(__file__).parents[1] / "crash_batch.py"


def _die_mid_call(tmp_path: Path, when: str) -> None:
    """Another process runs the batch, approves the call, and dies in the tool."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    died = subprocess.run(
        [sys.executable, str(SCRIPT), str(tmp_path / "calls.db"), str(tmp_path / "runs"),
         f"--{when}"],
        env=env, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert died.returncode == -9, died.stderr


async def _rerun(tmp_path: Path, **options: Any) -> AgentBatch:
    """The same batch on the same ledger, in this process, waiting on its call in doubt."""
    batch = billing_batch(tmp_path / "calls.db", tmp_path / "runs", **options).start()
    await batch_until(batch, lambda: bool(batch.waiting()) and bool(batch.waiting()[0].doubt))
    return batch


async def _in_doubt_after_an_approval(tmp_path: Path) -> tuple[AgentBatch, str]:
    """A batch whose row's approval, given here, found its call in doubt: the row asks again."""
    batch = billing_batch(tmp_path / "calls.db", tmp_path / "runs").start()
    await batch_until(batch, lambda: len(batch.waiting()) == 1)
    row = batch.row(0)
    interrupt = row.open_interrupts[0]
    assert interrupt.tool_call_id is not None
    claimed_by_the_dead(tmp_path / "calls.db", row.thread.thread_id, interrupt.tool_call_id)
    row.resolve({"approved": True}, by="user")
    await batch_until(batch, lambda: bool(batch.waiting()) and bool(batch.waiting()[0].doubt))
    assert row.status == "waiting"
    assert list(row.doubts) == [interrupt.id]
    assert "Approved in the widget" in row.doubts[interrupt.id]
    return batch, interrupt.id


async def test_a_rerun_after_a_crash_after_the_effect_records_the_given_result(
    tmp_path: Path, recorder: CommRecorder
) -> None:
    _die_mid_call(tmp_path, "after")
    assert runs_of(tmp_path / "runs") == ["ACME"]  # the effect happened, its result was lost

    batch = await _rerun(tmp_path)
    row = batch.row(0)
    [waiting] = batch.waiting()
    assert "may have run" in waiting.doubt
    assert "Approved by responder approve_all" in waiting.doubt  # from the ledger's notes
    said = f"row 0: {in_doubt_refusal('send_invoice', waiting.interrupt.id)}"
    with pytest.raises(AnswerRefused) as refused:
        row.resolve({"approved": True})
    assert str(refused.value) == said
    with pytest.raises(AnswerRefused, match="may have run already"):
        row.cancel()
    assert batch.inbox.approve() == {"0": f"refused: {said}"}  # bulk passes it by
    assert batch.inbox.cancel() == {"0": f"refused: {said}"}

    row.settle(waiting.interrupt.id, ran=True, output="Invoice INV-7 sent to ACME.", by="user")
    [result] = await batch
    assert (result.status, runs_of(tmp_path / "runs")) == ("done", ["ACME"])
    assert "Invoice INV-7 sent to ACME." in result.text
    decision = result.decisions[-1]
    assert (decision.verdict, decision.settled, decision.by) == ("approved", "ran", "user")
    assert decision.settled_output == "Invoice INV-7 sent to ACME."
    assert SQLiteLedger(tmp_path / "calls.db").in_doubt() == []

    [again] = await billing_batch(tmp_path / "calls.db", tmp_path / "runs")
    assert (again.status, again.replayed, again.decisions[-1].settled) == ("done", True, "ran")
    assert runs_of(tmp_path / "runs") == ["ACME"]


async def test_a_rerun_after_a_crash_before_the_effect_runs_it_once_from_the_inbox(
    tmp_path: Path, recorder: CommRecorder
) -> None:
    _die_mid_call(tmp_path, "before")
    assert runs_of(tmp_path / "runs") == []

    # A responder answers what it can; whether a call ran, only a person can say.
    batch = await _rerun(tmp_path, responder=responders.approve_all())
    channel = recorder.of(batch.inbox)
    channel.deliver({"type": "hello"})
    [snapshot] = [m for m in channel.custom_messages() if m["type"] == "snapshot"]
    [item] = snapshot["items"]
    assert "may have run" in item["doubt"]
    channel.clear()
    for n, bad in enumerate(
        [
            {"ran": "yes"},
            {"ran": True},  # no output
            {"ran": True, "output": " \n\t"},  # only whitespace
            {"ran": False, "output": "it ran"},
            {"ran": False, "id": "0:nope:nope"},
        ]
    ):
        channel.deliver({"type": "settle", "requestId": f"r{n}", "id": item["id"], **bad})
    replies = [m for m in channel.custom_messages() if m["type"] == "answer_result"]
    assert [(r["requestId"], r["results"][0]["ok"]) for r in replies] == [
        (f"r{n}", False) for n in range(5)
    ]
    assert "say what the call returned" in replies[2]["results"][0]["error"]
    assert len(SQLiteLedger(tmp_path / "calls.db").in_doubt()) == 1  # nothing changed
    assert runs_of(tmp_path / "runs") == []

    good = {"type": "settle", "requestId": "ok", "id": item["id"], "ran": False, "viewId": "v1"}
    channel.deliver(good)
    assert channel.custom_messages()[-1]["results"][0] == {
        "id": item["id"], "ok": True, "verdict": "approved", "error": "", "errors": [],
    }  # fmt: skip
    [result] = await batch
    assert (result.status, runs_of(tmp_path / "runs")) == ("done", ["ACME"])
    decision = result.decisions[-1]
    assert (decision.by, decision.settled, decision.outcome) == ("view:v1", "not_run", "ran")


async def test_a_resume_that_finds_its_call_in_doubt_asks_again_and_keeps_the_text_verbatim(
    tmp_path: Path, recorder: CommRecorder
) -> None:
    batch, interrupt_id = await _in_doubt_after_an_approval(tmp_path)
    row = batch.row(0)
    row.settle(interrupt_id, ran=True, output="<b>INV-9</b>\x00 sent", by="user")
    [result] = await batch
    assert "<b>INV-9</b>\x00 sent" in result.text  # as the person wrote it: text, not markup
    assert runs_of(tmp_path / "runs") == []
    assert [d.verdict for d in result.decisions] == ["approved", "approved"]
    assert result.decisions[-1].settled_output == "<b>INV-9</b>\x00 sent"


@pytest.mark.parametrize(
    ("which", "ran", "output", "refusal"),
    [
        ("it", True, None, "say what the call returned"),
        ("it", True, "   \n", "say what the call returned"),
        ("it", False, "it ran", "a call that did not run has no output"),
        ("nope", False, None, "'nope' is not a call in doubt"),
    ],
)
async def test_a_settle_that_says_too_little_or_too_much_changes_nothing(
    tmp_path: Path, recorder: CommRecorder, which: str, ran: bool, output: str | None, refusal: str
) -> None:
    batch, interrupt_id = await _in_doubt_after_an_approval(tmp_path)
    row = batch.row(0)
    with pytest.raises(AnswerRefused, match=refusal):
        row.settle(interrupt_id if which == "it" else which, ran=ran, output=output)
    assert (row.status, list(row.doubts)) == ("waiting", [interrupt_id])
    assert [d.verdict for d in row.decisions] == ["approved"]  # only the first approval
    assert len(SQLiteLedger(tmp_path / "calls.db").in_doubt()) == 1
    batch.cancel()
    await batch
    assert runs_of(tmp_path / "runs") == []


async def test_a_batch_stopped_with_a_call_in_doubt_offers_it_again_on_its_next_run(
    tmp_path: Path, recorder: CommRecorder
) -> None:
    _die_mid_call(tmp_path, "before")
    batch = await _rerun(tmp_path)
    interrupt_id = batch.waiting()[0].interrupt.id
    batch.cancel()  # the call in doubt is not settled by stopping: it stays in doubt
    [stopped] = await batch
    assert (stopped.status, stopped.code) == ("failed", "call_in_doubt")
    again = await _rerun(tmp_path)
    assert list(again.row(0).doubts) == [interrupt_id]
    again.row(0).settle(interrupt_id, ran=False, by="user")
    [result] = await again
    assert (result.status, runs_of(tmp_path / "runs")) == ("done", ["ACME"])


async def test_a_call_settled_elsewhere_meanwhile_is_not_overwritten(
    tmp_path: Path, recorder: CommRecorder
) -> None:
    batch, interrupt_id = await _in_doubt_after_an_approval(tmp_path)
    row = batch.row(0)
    call_id = row.open_interrupts[0].tool_call_id
    assert call_id is not None
    SQLiteLedger(tmp_path / "calls.db").record(row.thread.thread_id, call_id, "By the operator.")
    with pytest.raises(AnswerRefused, match="not in doubt any more"):
        row.settle(interrupt_id, ran=True, output="Mine instead.")
    assert row.doubts == {}  # answered as usual from now on
    assert batch.waiting()[0].doubt == ""
    row.resolve({"approved": True}, by="user")
    [result] = await batch
    assert "By the operator." in result.text
    assert "Mine instead." not in result.text
    assert runs_of(tmp_path / "runs") == []


async def _chat_in_doubt(tmp_path: Path) -> tuple[AgentChat, Inbox, Interrupt]:
    """A chat whose approval, given here, found its call in doubt, and an inbox over it."""
    chat = AgentChat(billing_agent(tmp_path / "runs"), ledger=str(tmp_path / "calls.db"))
    chat.send("Please send_invoice customer=ACME")
    await until(chat, lambda: chat.status == "waiting")
    [interrupt] = chat.interrupts
    assert interrupt.tool_call_id is not None
    claimed_by_the_dead(tmp_path / "calls.db", chat.thread.thread_id, interrupt.tool_call_id)
    inbox = Inbox(chat)  # made before the doubt: it follows the chat
    chat.picker.resolve({"approved": True}, by="user")
    assert chat.last_run is not None
    with pytest.raises(ChatRunError, match="may have run"):
        await chat.last_run
    return chat, inbox, interrupt


async def test_an_answer_to_a_call_in_doubt_is_refused_in_the_same_words_everywhere(
    tmp_path: Path, recorder: CommRecorder
) -> None:
    chat, inbox, interrupt = await _chat_in_doubt(tmp_path)
    said = in_doubt_refusal("send_invoice", interrupt.id)
    assert "may have run already" in said
    assert "say on its card whether it did" in said
    assert said.endswith("nothing was answered")
    with pytest.raises(AnswerRefused) as from_the_card:
        chat.picker.resolve({"approved": True}, by="user")
    with pytest.raises(AnswerRefused) as cancelled:
        chat.picker.cancel(by="user")
    assert str(from_the_card.value) == str(cancelled.value) == said
    refused = {chat.thread.thread_id: f"refused: {said}"}
    assert inbox.approve() == refused  # a bulk answer passes it by, in the same words
    assert inbox.cancel() == refused
    assert list(chat.picker.doubts) == [interrupt.id]  # still waiting for a person's word
    assert chat.picker.answers == {}
    assert runs_of(tmp_path / "runs") == []


async def test_an_inbox_over_a_chat_settles_the_chat_s_call_in_doubt(
    tmp_path: Path, recorder: CommRecorder
) -> None:
    chat, inbox, interrupt = await _chat_in_doubt(tmp_path)
    [waiting] = inbox.waiting
    assert "may have run" in waiting.doubt
    said = in_doubt_refusal("send_invoice", interrupt.id)
    assert inbox.approve() == {chat.thread.thread_id: f"refused: {said}"}
    channel = recorder.of(inbox)
    channel.deliver({"type": "hello"})
    [snapshot] = [m for m in channel.custom_messages() if m["type"] == "snapshot"]
    item = snapshot["items"][0]["id"]
    channel.deliver({"type": "settle", "requestId": "s", "id": item, "ran": False})
    assert channel.custom_messages()[-1]["results"][0]["ok"] is True
    assert chat.last_run is not None
    await chat.last_run
    assert runs_of(tmp_path / "runs") == ["ACME"]
    assert (chat.decisions[-1].settled, chat.decisions[-1].by) == ("not_run", "user")
