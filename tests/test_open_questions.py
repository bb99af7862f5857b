"""`OpenQuestions` on its own, with no widget and no loop: one submission however many
threads answer at once, who answered on every entry, the deadlines it keeps (its own one
denying with a reason), and a call in doubt that never expires and is settled through the
owner's settler."""

from __future__ import annotations

import subprocess
import sys
import threading
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from ag_ui.core import Interrupt, ResumeEntry

from interrupt_widget.agui.interrupts import ANSWERED_BY_EXPIRY, DENIAL_REASON
from interrupt_widget.asking.open_questions import EXPIRED_REASON, OpenQuestions
from interrupt_widget.errors import AnswerRefused
from interrupt_widget.identity import Identity

APPROVAL = {
    "type": "object",
    "properties": {"approved": {"type": "boolean"}, "reason": {"type": "string"}},
    "required": ["approved"],
    "additionalProperties": False,
}


def approval(interrupt_id: str, **extra: Any) -> Interrupt:
    return Interrupt(
        id=interrupt_id,
        reason="tool_call",
        tool_call_id=f"call-{interrupt_id}",
        response_schema=APPROVAL,
        metadata={"tool_name": "send_money", "tool_input": {"amount": 5}},
        **extra,
    )


def test_many_threads_answering_at_once_record_one_answer_and_submit_once() -> None:
    submitted: list[list[ResumeEntry]] = []
    questions = OpenQuestions([approval("a")], on_submit=submitted.append)
    start = threading.Barrier(8)
    taken: list[str] = []
    refused: list[str] = []

    def answer(n: int) -> None:
        start.wait()
        try:
            questions.answer(
                "a", "resolved", {"approved": n % 2 == 0}, by=f"view:{n}", identity=f"p{n}"
            )
        except AnswerRefused as exc:
            refused.append(str(exc))
        else:
            taken.append(f"view:{n}")

    threads = [threading.Thread(target=answer, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=10)
    assert len(taken) == 1
    assert len(refused) == 7
    assert all("already answered elsewhere" in message for message in refused)
    [entries] = submitted
    [entry] = entries
    assert entry.metadata is not None
    assert entry.metadata["by"] == taken[0]  # who answered travels with the answer
    assert entry.metadata["identity"]["name"] == f"p{taken[0].split(':')[1]}"


def test_an_unknown_field_is_refused_with_the_nearest_name_and_kept_for_the_views() -> None:
    changes: list[str] = []
    questions = OpenQuestions([approval("a")], on_change=lambda: changes.append("changed"))
    with pytest.raises(AnswerRefused, match="did you mean 'approved'") as refused:
        questions.answer("a", "resolved", {"aproved": True}, by="python")
    assert [e.path for e in refused.value.errors] == ["", "/approved"]  # and it is missing
    assert questions.refusals["a"].message == str(refused.value)
    assert questions.error == str(refused.value)
    assert changes
    assert questions.records == {}
    assert questions.entries is None
    questions.answer("a", "resolved", {"approved": True}, by="python")
    assert questions.refusals == {}
    assert questions.error == ""
    assert questions.status == "submitted"


def test_its_own_deadline_denies_with_a_reason_and_a_late_answer_is_told_when() -> None:
    past = (datetime.now(UTC) - timedelta(seconds=1)).isoformat()
    questions = OpenQuestions(
        [approval("own"), approval("given", expires_at=past)],
        expires_in=timedelta(minutes=5),
        on_expiry="deny",
        prefix="row r1: ",
    )
    deadline = questions.next_deadline()
    assert deadline is not None
    assert deadline < datetime.now(UTC)
    questions.expire()
    given = questions.record("given")
    assert given is not None
    assert given["status"] == "cancelled"  # its own deadline: cancelled, as a picker does
    own = questions.next_deadline()
    assert own is not None
    assert own > datetime.now(UTC) + timedelta(minutes=4)
    questions.expire(own)
    record = questions.record("own")
    assert record is not None
    assert record["by"] == ANSWERED_BY_EXPIRY
    assert record["payload"] == {"approved": False, DENIAL_REASON: EXPIRED_REASON}
    assert questions.status == "expired"
    assert questions.next_deadline() is None
    with pytest.raises(AnswerRefused, match=r"^row r1: send_money expired at \S+ and was denied"):
        questions.answer("own", "resolved", {"approved": True}, by="python")


def test_a_call_in_doubt_never_expires_and_is_settled_through_the_owners_settler() -> None:
    said: list[tuple[str, bool]] = []

    def settler(interrupt: Interrupt, ran: bool, output: str | None, by: str) -> Any:
        said.append((interrupt.id, ran))
        return {"approved": True}

    submitted: list[list[ResumeEntry]] = []
    questions = OpenQuestions(
        [approval("a")], expires_in=timedelta(seconds=0), on_submit=submitted.append
    )
    questions.offer_settling({"a": "approved by ann; it may have run"}, settler)
    assert questions.next_deadline() is None
    assert questions.deadline("a") is None
    questions.expire(datetime.now(UTC) + timedelta(days=1))
    assert questions.open_interrupts == [approval("a")]
    with pytest.raises(AnswerRefused, match="may have run already"):
        questions.answer("a", "resolved", {"approved": True}, by="python")
    with pytest.raises(AnswerRefused, match="say what the call returned") as refused:
        questions.settle("a", ran=True)
    assert questions.refusals["a"].problems[0].message == str(refused.value)  # on its card
    questions.settle("a", ran=False, by="ann")
    assert said == [("a", False)]
    assert [e.payload for e in submitted[0]] == [{"approved": True}]
    assert questions.records["a"]["settled"] == "not_run"


def test_a_call_in_doubt_is_settled_only_by_whom_its_rules_let_answer_and_names_them() -> None:
    rules = {"needed": 2, "roles": ["treasury"], "started_by": "carl", "given": []}
    metadata = {"tool_name": "send_money", "tool_input": {"amount": 5}, "approvals": rules}
    asked = approval("a").model_copy(update={"metadata": metadata})
    submitted: list[list[ResumeEntry]] = []
    questions = OpenQuestions([asked], on_submit=submitted.append)
    questions.offer_settling({"a": "it may have run"}, lambda *_: {"approved": True})
    with pytest.raises(AnswerRefused, match=r"carl \(no roles\) may not answer this call"):
        questions.settle("a", ran=False, by="sidebar:carl", identity=Identity("carl"))
    assert submitted == []  # refused: nothing recorded, the call still in doubt
    # A word on what happened, not a vote: the starter's rule does not apply, the roles do.
    treasurer = Identity("ann", ("treasury",))
    questions.settle("a", ran=False, by="sidebar:ann", identity=treasurer)
    assert questions.records["a"]["identity"] == treasurer.to_wire()
    assert submitted[0][0].metadata["identity"] == treasurer.to_wire()


def test_questions_withdrawn_for_others_take_no_answer_and_submit_nothing() -> None:
    submitted: list[list[ResumeEntry]] = []
    questions = OpenQuestions([approval("a")], on_submit=submitted.append)
    questions.offer_settling({"a": "it may have run"}, lambda *_: {"approved": True})
    questions.withdraw()
    with pytest.raises(AnswerRefused, match="unknown interrupt id 'a'"):
        questions.answer("a", "resolved", {"approved": True}, by="python")
    with pytest.raises(AnswerRefused, match="not a call in doubt"):
        questions.settle("a", ran=False)
    questions.cancel_open(by="stopped")
    assert submitted == []
    assert questions.entries is None


_FIRST_ASK = """
import sys
from ag_ui.core import Interrupt
from interrupt_widget.agui import answers
from interrupt_widget.asking.open_questions import OpenQuestions

OpenQuestions([])
assert "jsonschema" not in sys.modules and not answers._preparing, "nothing asked yet"
OpenQuestions([Interrupt(id="a", reason="tool_call")])
(thread,) = answers._preparing
assert thread.daemon
thread.join(60)
assert "jsonschema" in sys.modules
OpenQuestions([Interrupt(id="b", reason="tool_call")])
assert answers._preparing == [thread], "once per process"
"""


def test_the_first_question_prepares_the_answer_check_while_the_person_reads() -> None:
    """Importing `jsonschema` takes over a second; the first ask starts it on a thread, so
    the first answer does not stall the kernel for it (bench/import_time.py times it)."""
    subprocess.run([sys.executable, "-c", _FIRST_ASK], check=True, timeout=120)
