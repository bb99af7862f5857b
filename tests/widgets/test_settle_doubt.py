"""A call left in doubt is settled from the chat's card: "it ran" (with its result) or
"it did not run" (run it now), each through the ledger, each recorded as a decision.

The doubt is made the way it happens: a process that approved the call dies (SIGKILL)
in the middle of the tool, leaving the ledger's claim without a result. Runs are
counted from the file the tool writes.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from agents import set_tracing_disabled

from crash_agent import billing_agent, claimed_by_the_dead, runs_of
from interrupt_widget import SQLiteLedger
from interrupt_widget.agui.answers import is_expired
from interrupt_widget.errors import AnswerRefused, LedgerUnavailable
from interrupt_widget.testing import recording_comms, until
from interrupt_widget.widgets.chat import DOUBT_LINE, AgentChat, ChatRunError

set_tracing_disabled(True)

ASK = "Please send_invoice customer=ACME"
SCRIPT = Path(__file__).parents[1] / "crash_agent.py"


async def _paused(tmp_path: Path) -> tuple[AgentChat, Path]:
    """A chat on a SQLite ledger, waiting for the approval of one send_invoice call."""
    with recording_comms():
        chat = AgentChat(billing_agent(tmp_path / "runs"), ledger=str(tmp_path / "calls.db"))
    chat.send(ASK)
    await until(chat, lambda: chat.status == "waiting")
    return chat, tmp_path / "calls.db"


def _die_mid_call(chat: AgentChat, tmp_path: Path, when: str) -> Path:
    """Save the waiting chat; another process approves it and dies in the tool."""
    save = chat.save(tmp_path / "chat.json")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    died = subprocess.run(
        [sys.executable, str(SCRIPT), str(save), str(tmp_path / "calls.db"),
         str(tmp_path / "runs"), f"--{when}"],
        env=env, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert died.returncode == -9, died.stderr
    return save


async def _reopened(save: Path, tmp_path: Path) -> AgentChat:
    with recording_comms():
        chat = AgentChat.load(
            save, billing_agent(tmp_path / "runs"), ledger=str(tmp_path / "calls.db")
        )
    return chat


async def test_it_ran_records_the_given_result_and_never_runs_it_again(tmp_path: Path) -> None:
    chat, _ = await _paused(tmp_path)
    save = _die_mid_call(chat, tmp_path, "after")
    assert runs_of(tmp_path / "runs") == ["ACME"]  # the effect happened, its result was lost

    again = await _reopened(save, tmp_path)
    [interrupt] = again.interrupts
    assert again.status_line == DOUBT_LINE
    assert "may have run" in again.picker.doubts[interrupt.id]
    assert "Approved by responder approve_all" in again.picker.doubts[interrupt.id]
    with pytest.raises(AnswerRefused, match="may have run already"):
        again.picker.resolve(
            {"approved": True}
        )  # a fresh approval would be refused: no doubt left unsaid

    again.picker.settle(interrupt.id, ran=True, output="Invoice INV-7 sent to ACME.", by="user")
    assert again.last_run is not None
    result = await again.last_run
    assert runs_of(tmp_path / "runs") == ["ACME"]
    assert "Invoice INV-7 sent to ACME." in result.text
    decision = again.decisions[-1]
    assert (decision.verdict, decision.settled, decision.by) == ("approved", "ran", "user")
    assert decision.settled_output == "Invoice INV-7 sent to ACME."
    assert decision.outcome == "replayed"
    assert SQLiteLedger(tmp_path / "calls.db").in_doubt() == []


async def test_it_did_not_run_runs_it_once_now(tmp_path: Path) -> None:
    chat, _ = await _paused(tmp_path)
    save = _die_mid_call(chat, tmp_path, "before")
    assert runs_of(tmp_path / "runs") == []

    again = await _reopened(save, tmp_path)
    [interrupt] = again.interrupts
    again.picker.settle(interrupt.id, ran=False, by="user")
    assert again.last_run is not None
    result = await again.last_run
    assert runs_of(tmp_path / "runs") == ["ACME"]
    assert "Invoice sent to ACME." in result.text
    decision = again.decisions[-1]
    assert (decision.settled, decision.outcome, decision.settled_output) == ("not_run", "ran", None)


async def _in_doubt_after_a_click(tmp_path: Path) -> tuple[AgentChat, str, Path]:
    """A chat whose approval, clicked here, found its call in doubt: the card offers settling."""
    chat, db = await _paused(tmp_path)
    [interrupt] = chat.interrupts
    assert interrupt.tool_call_id is not None
    claimed_by_the_dead(db, chat.thread.thread_id, interrupt.tool_call_id)
    chat.picker.resolve({"approved": True}, by="user")
    run = chat.last_run
    assert run is not None
    with pytest.raises(ChatRunError, match="may have run"):
        await run
    assert chat.status == "error"
    assert chat.status_line.startswith(DOUBT_LINE)
    assert list(chat.picker.doubts) == [interrupt.id]
    return chat, interrupt.id, db


async def test_a_click_that_finds_the_call_in_doubt_offers_settling_in_the_same_card(
    tmp_path: Path,
) -> None:
    chat, interrupt_id, _ = await _in_doubt_after_a_click(tmp_path)
    chat.picker.settle(interrupt_id, ran=True, output="<b>INV-9</b>\x00 sent", by="user")
    assert chat.last_run is not None
    result = await chat.last_run
    assert "<b>INV-9</b>\x00 sent" in result.text  # kept as the person wrote it: text, not markup
    assert runs_of(tmp_path / "runs") == []
    assert [d.verdict for d in chat.decisions] == ["approved", "approved"]
    assert chat.decisions[-1].settled == "ran"


@pytest.mark.parametrize(
    ("ran", "output", "refusal"),
    [
        (True, None, "say what the call returned"),
        (True, "   \n", "say what the call returned"),
        (False, "it ran", "a call that did not run has no output"),
    ],
)
async def test_a_settle_that_says_too_little_or_too_much_changes_nothing(
    tmp_path: Path, ran: bool, output: str | None, refusal: str
) -> None:
    chat, interrupt_id, db = await _in_doubt_after_a_click(tmp_path)
    with pytest.raises(AnswerRefused, match=refusal):
        chat.picker.settle(interrupt_id, ran=ran, output=output)
    assert refusal in chat.picker.error
    assert list(chat.picker.doubts) == [interrupt_id]
    assert chat.picker.answers == {}
    assert SQLiteLedger(db).in_doubt() == [(chat.thread.thread_id, chat.interrupts[0].tool_call_id)]


async def test_a_call_settled_elsewhere_meanwhile_is_not_overwritten(tmp_path: Path) -> None:
    chat, interrupt_id, db = await _in_doubt_after_a_click(tmp_path)
    call_id = chat.interrupts[0].tool_call_id
    assert call_id is not None
    SQLiteLedger(db).record(chat.thread.thread_id, call_id, "Recorded by the operator.")
    with pytest.raises(AnswerRefused, match="not in doubt any more"):
        chat.picker.settle(interrupt_id, ran=True, output="Mine instead.")
    assert chat.picker.doubts == {}  # answered as usual from now on
    chat.picker.resolve({"approved": True}, by="user")
    assert chat.last_run is not None
    result = await chat.last_run
    assert "Recorded by the operator." in result.text
    assert "Mine instead." not in result.text
    assert runs_of(tmp_path / "runs") == []


async def test_a_ledger_that_cannot_be_reached_leaves_the_doubt_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    chat, interrupt_id, db = await _in_doubt_after_a_click(tmp_path)

    def unreachable(*_: Any) -> None:
        raise LedgerUnavailable("database is locked (busy for 5.0 s)")

    monkeypatch.setattr(SQLiteLedger, "release", unreachable)
    with pytest.raises(AnswerRefused, match="database is locked"):
        chat.picker.settle(interrupt_id, ran=False)
    assert list(chat.picker.doubts) == [interrupt_id]
    assert chat.picker.answers == {}
    assert len(SQLiteLedger(db).in_doubt()) == 1
    monkeypatch.undo()
    chat.picker.settle(interrupt_id, ran=False)  # once it is back, the same click works
    assert chat.last_run is not None
    await chat.last_run
    assert runs_of(tmp_path / "runs") == ["ACME"]


async def test_a_view_settles_through_its_message_and_bad_messages_are_answered(
    tmp_path: Path,
) -> None:
    chat, interrupt_id, _ = await _in_doubt_after_a_click(tmp_path)
    replies: list[dict[str, Any]] = []
    chat.picker.send = lambda content, buffers=None: replies.append(content)  # type: ignore[method-assign]
    for bad in (
        {"type": "settle", "requestId": "r1", "interruptId": interrupt_id, "ran": "yes"},
        {"type": "settle", "requestId": "r2", "interruptId": interrupt_id, "ran": True},
        {"type": "settle", "requestId": "r3", "interruptId": "nope", "ran": False},
    ):
        chat.picker._on_front_end_message(chat.picker, bad, [])
    assert [(r["requestId"], r["ok"]) for r in replies] == [
        ("r1", False),
        ("r2", False),
        ("r3", False),
    ]
    assert list(chat.picker.doubts) == [interrupt_id]
    good = {"type": "settle", "requestId": "r4", "interruptId": interrupt_id, "ran": False,
            "viewId": "view-1"}  # fmt: skip
    chat.picker._on_front_end_message(chat.picker, good, [])
    assert replies[-1]["ok"] is True
    assert chat.picker.answers[interrupt_id]["settled"] == "not_run"
    assert chat.last_run is not None
    await chat.last_run
    assert runs_of(tmp_path / "runs") == ["ACME"]
    assert chat.decisions[-1].by == "view:view-1"
    json.dumps(chat.picker.answers)  # what the views are sent stays plain JSON


async def test_a_question_that_expires_in_doubt_waits_and_is_not_resumed_again_and_again(
    tmp_path: Path,
) -> None:
    with recording_comms():
        chat = AgentChat(
            billing_agent(tmp_path / "runs"), ledger=str(tmp_path / "calls.db"), expires_in=0.5
        )
    chat.send(ASK)
    await until(chat, lambda: chat.status == "waiting")
    [interrupt] = chat.interrupts
    assert interrupt.tool_call_id is not None
    claimed_by_the_dead(tmp_path / "calls.db", chat.thread.thread_id, interrupt.tool_call_id)
    chat.picker.resolve({"approved": True}, by="user")
    assert chat.last_run is not None
    with pytest.raises(ChatRunError):
        await chat.last_run
    runs = len(chat.thread.runs)
    assert interrupt.expires_at is not None
    deadline = datetime.fromisoformat(interrupt.expires_at.replace("Z", "+00:00"))
    # The deadline is wall time, with nothing to observe before it; then let a resume
    # that the expiry would start happen, if one does.
    await asyncio.sleep((deadline - datetime.now(UTC)).total_seconds() + 0.3)
    assert is_expired(interrupt)
    assert len(chat.thread.runs) == runs  # no resume by itself, let alone one after another
    assert list(chat.picker.doubts) == [interrupt.id]
    with pytest.raises(AnswerRefused, match=r"expired .* stays in doubt"):
        chat.picker.settle(interrupt.id, ran=False)
    assert SQLiteLedger(tmp_path / "calls.db").in_doubt() == [
        (chat.thread.thread_id, interrupt.tool_call_id)
    ]
    assert runs_of(tmp_path / "runs") == []


async def test_a_second_word_on_a_settled_call_is_refused_and_the_call_runs_once(
    tmp_path: Path,
) -> None:
    chat, interrupt_id, _ = await _in_doubt_after_a_click(tmp_path)
    chat.picker.settle(interrupt_id, ran=False, by="view:first")
    with pytest.raises(AnswerRefused, match="not a call in doubt"):
        chat.picker.settle(interrupt_id, ran=True, output="It ran after all.", by="view:second")
    assert chat.last_run is not None
    result = await chat.last_run
    assert runs_of(tmp_path / "runs") == ["ACME"]
    assert "It ran after all." not in result.text
    assert [d.by for d in chat.decisions if d.settled] == ["view:first"]
