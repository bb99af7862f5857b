"""Headless responders answer through a real picker, on the same path as a click."""

from __future__ import annotations

import json
import pathlib
from datetime import UTC, datetime
from typing import Any

import pytest
from ag_ui.core import Interrupt

from interrupt_widget import AnswerRefused, responders
from interrupt_widget.agui.interrupts import approval_schema
from interrupt_widget.asking.responders import CANCEL, ResponderError
from interrupt_widget.decisions import decisions_for, load_decisions, save_decisions
from interrupt_widget.policy.quorum import APPROVALS_KEY, Quorum
from interrupt_widget.testing import recording_comms
from interrupt_widget.widgets.picker import InterruptPicker

NOW = datetime.now(UTC)

MEETING_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "approved": {"type": "boolean"},
        "chosen_time": {"type": "string", "format": "date-time"},
        "chosen_label": {"type": "string"},
    },
    "required": ["approved"],
}


def approval(call_id: str, tool: str = "schedule_meeting", **args: Any) -> Interrupt:
    return Interrupt(
        id=f"approve-{call_id}",
        reason="tool_call",
        tool_call_id=call_id,
        message=f"Run {tool}?",
        metadata={"tool_name": tool, "tool_input": args or {"topic": "Q3 roadmap"}},
        response_schema=MEETING_SCHEMA,
    )


def question(qid: str = "q1", default: str | None = None) -> Interrupt:
    prop: dict[str, Any] = {"type": "string"}
    if default is not None:
        prop["default"] = default
    return Interrupt(
        id=qid,
        reason="input_required",
        message="Which room?",
        response_schema={"type": "object", "properties": {"room": prop}, "required": ["room"]},
    )


def picker_for(*interrupts: Interrupt) -> InterruptPicker:
    with recording_comms():
        return InterruptPicker(list(interrupts))


def test_approve_all_answers_every_interrupt_and_says_who_answered() -> None:
    picker = picker_for(approval("c1"), approval("c2", "pay", amount=120), question(default="A"))
    responders.approve_all().respond(picker)
    assert picker.submitted
    assert [e.payload for e in picker.entries or []] == [
        {"approved": True},
        {"approved": True},
        {"room": "A"},
    ]
    assert {a["by"] for a in picker.answers.values()} == {"responder:approve_all"}
    assert "approved" in repr(picker)


def test_approve_all_fails_clearly_on_a_question_it_cannot_answer() -> None:
    picker = picker_for(question())
    with pytest.raises(ResponderError, match=r"approve_all could not answer input_required.*room"):
        responders.approve_all().respond(picker)
    assert not picker.submitted


def test_deny_all_denies_tools_and_cancels_questions() -> None:
    picker = picker_for(approval("c1"), question())
    responders.deny_all().respond(picker)
    entries = picker.entries or []
    assert [(e.status, e.payload) for e in entries] == [
        ("resolved", {"approved": False}),
        ("cancelled", None),
    ]


def test_cancel_all_cancels_everything() -> None:
    picker = picker_for(approval("c1"), approval("c2"))
    responders.cancel_all().respond(picker)
    assert [e.status for e in picker.entries or []] == ["cancelled", "cancelled"]
    assert {a["by"] for a in picker.answers.values()} == {"responder:cancel_all"}


def test_fail_names_each_interrupt_and_answers_nothing() -> None:
    picker = picker_for(approval("c1", topic="<b>x</b>"), approval("c2", "pay", amount=5))
    with pytest.raises(ResponderError) as raised:
        responders.fail().respond(picker)
    message = str(raised.value)
    assert "schedule_meeting" in message
    assert "approve-c1" in message
    assert "pay" in message
    assert '"amount": 5' in message
    assert picker.answers == {}


def test_answers_by_tool_name_by_reason_by_callable_and_cancel() -> None:
    picker = picker_for(approval("c1"), approval("c2", "pay", amount=1), question())
    responder = responders.answers(
        {
            "schedule_meeting": {"approved": True, "chosen_label": "Tue 10:00"},
            "pay": CANCEL,
            "input_required": lambda i: {"room": f"room for {i.id}"},
        }
    )
    responder.respond(picker)
    assert [(e.status, e.payload) for e in picker.entries or []] == [
        ("resolved", {"approved": True, "chosen_label": "Tue 10:00"}),
        ("cancelled", None),
        ("resolved", {"room": "room for q1"}),
    ]
    assert picker.answers["q1"]["by"] == "responder:answers"


def test_answers_with_one_callable_for_everything() -> None:
    picker = picker_for(approval("c1"), approval("c2"))
    responders.answers(lambda i: {"approved": i.id.endswith("1")}).respond(picker)
    assert [e.payload for e in picker.entries or []] == [{"approved": True}, {"approved": False}]


def test_answers_missing_an_interrupt_records_nothing() -> None:
    picker = picker_for(approval("c1"), approval("c2", "pay", amount=3))
    responder = responders.answers({"schedule_meeting": {"approved": True}})
    with pytest.raises(ResponderError, match=r"no answer for pay .*approve-c2.*schedule_meeting"):
        responder.respond(picker)
    assert picker.answers == {}  # decided before recording: no half-applied answer


def test_answers_with_an_invalid_payload_fails_naming_the_field() -> None:
    picker = picker_for(approval("c1"))
    responder = responders.answers({"schedule_meeting": {"approved": True, "chosen_time": "soon"}})
    with pytest.raises(ResponderError, match="chosen_time"):
        responder.respond(picker)
    assert not picker.submitted


def _record_interactively(path: pathlib.Path) -> None:
    first = approval("c1")
    second = approval("c2", "pay", amount=120)
    picker = picker_for(first, second)
    picker.resolve(
        {"approved": True, "chosen_time": "2026-12-08T10:00:00Z", "chosen_label": "Tue"},
        first.id,
        by="user",
    )
    picker.cancel(second.id, by="user")
    save_decisions(decisions_for([first, second], picker.answers), path)


def test_replay_answers_as_recorded_even_with_new_ids(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "decisions.json"
    _record_interactively(path)
    assert [d.verdict for d in load_decisions(path)] == ["approved", "cancelled"]
    picker = picker_for(approval("x9"), approval("x8", "pay", amount=120))
    responders.replay(path).respond(picker)
    assert [(e.status, e.payload) for e in picker.entries or []] == [
        (
            "resolved",
            {"approved": True, "chosen_time": "2026-12-08T10:00:00Z", "chosen_label": "Tue"},
        ),
        ("cancelled", None),
    ]
    assert picker.answers["approve-x9"]["by"] == "responder:replay:decisions.json"


def test_replay_fails_when_arguments_changed(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "decisions.json"
    _record_interactively(path)
    picker = picker_for(approval("c1"), approval("c2", "pay", amount=999))
    with pytest.raises(ResponderError, match=r"arguments of pay .*999.* changed.*120"):
        responders.replay(path).respond(picker)
    assert picker.answers == {}


def test_replay_fails_when_an_interrupt_is_missing_from_the_file(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "decisions.json"
    _record_interactively(path)
    picker = picker_for(approval("c3", "refund", amount=1))
    with pytest.raises(ResponderError, match=r"no recorded decision for refund"):
        responders.replay(path).respond(picker)


def test_replay_refuses_a_file_that_is_not_a_decision_file(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "other.json"
    path.write_text("[1, 2]", encoding="utf-8")
    with pytest.raises(ValueError, match="not a decision file"):
        responders.replay(path)
    with pytest.raises(FileNotFoundError, match="no decision file"):
        responders.replay(tmp_path / "missing.json")


def test_environment_variable_names_a_responder(tmp_path: pathlib.Path) -> None:
    env = responders.ENV_VAR
    assert responders.from_env({}) is None
    assert responders.from_env({env: " "}) is None
    for name in ("approve_all", "deny_all", "cancel_all", "fail"):
        found = responders.from_env({env: name})
        assert found is not None
        assert found.name == name
    path = tmp_path / "d.json"
    _record_interactively(path)
    replayer = responders.from_env({env: f"replay:{path}"})
    assert replayer is not None
    assert replayer.name == "replay:d.json"
    with pytest.raises(ValueError, match=r"not a responder; use one of approve_all.*replay:<path>"):
        responders.from_env({env: "approve_everything"})


def test_a_notebook_with_nobody_at_it_is_answered_by_its_file_itself_or_approve_all(
    tmp_path: pathlib.Path,
) -> None:
    def notebook(name: str, metadata: dict[str, Any]) -> pathlib.Path:
        path = tmp_path / name
        path.write_text(json.dumps({"cells": [], "metadata": metadata}), encoding="utf-8")
        return path

    recorded = notebook("pay.ipynb", {})
    (tmp_path / "pay.decisions.json").write_text("[]", encoding="utf-8")
    itself = notebook("own.ipynb", {"interrupt_widget": {"answers_itself": True}})
    truthy = notebook("odd.ipynb", {"interrupt_widget": {"answers_itself": "yes"}})
    plain = notebook("plain.ipynb", {"kernelspec": {"name": "python3"}})
    odd_shape = notebook("shape.ipynb", {"interrupt_widget": ["answers_itself"]})

    assert responders.for_notebook(recorded) == f"replay:{tmp_path / 'pay.decisions.json'}"
    assert responders.for_notebook(str(itself)) == ""
    assert responders.for_notebook(truthy) == "approve_all"  # only `true` says so
    assert responders.for_notebook(plain) == "approve_all"
    assert responders.for_notebook(odd_shape) == "approve_all"  # not an object: not said


def test_a_refused_answer_leaves_every_interrupt_unanswered() -> None:
    first, second = approval("c1"), approval("c2", "pay", amount=120)
    picker = picker_for(first, second)
    bad_time = {"approved": True, "chosen_time": "next week"}
    responder = responders.answers({"schedule_meeting": {"approved": True}, "pay": bad_time})
    with pytest.raises(ResponderError, match=r"pay .*chosen_time: must be a valid date-time"):
        responder.respond(picker)
    assert picker.answers == {}
    assert not picker.submitted
    # A person can still answer both.
    picker.resolve({"approved": False}, first.id)
    picker.resolve({"approved": False}, second.id)
    assert picker.submitted


def approval_with(fields: dict[str, Any], required: list[str]) -> Interrupt:
    schema = approval_schema({"type": "object", "properties": fields, "required": required})
    return Interrupt(
        id="approve-c9",
        reason="tool_call",
        tool_call_id="c9",
        message="Allow book?",
        response_schema=schema,
        metadata={"tool_name": "book", "tool_input": {}},
    )


def test_approve_all_fills_required_fields_default_then_enum_then_examples() -> None:
    fields = {
        "room": {"type": "string", "enum": ["Aurora", "Borealis"], "default": "Borealis"},
        "floor": {"type": "integer", "enum": [3, 4]},
        "when": {"type": "string", "format": "date-time", "examples": ["2030-01-08T10:00:00Z"]},
        "note": {"type": "string"},  # optional: left out
    }
    picker = picker_for(approval_with(fields, ["room", "floor", "when"]))
    responders.approve_all().respond(picker)
    (entry,) = picker.entries or []
    assert entry.payload == {
        "approved": True,
        "room": "Borealis",
        "floor": 3,
        "when": "2030-01-08T10:00:00Z",
    }


def test_approve_all_refuses_a_required_field_it_has_nothing_for_and_names_it() -> None:
    fields = {"room": {"type": "string", "enum": ["A"]}, "code": {"type": "string"}}
    picker = picker_for(approval_with(fields, ["room", "code"]))
    with pytest.raises(ResponderError, match=r"required field 'code' has no default, enum or"):
        responders.approve_all().respond(picker)
    assert not picker.submitted


def test_a_responder_the_rules_about_people_refuse_is_told_before_it_answers_anything() -> None:
    # The second call needs a person of the finance role and approve_all answers as itself,
    # so it may not answer it; the first is not answered either (all judged before any is).
    quorum = Quorum(needed=2, roles=("finance",), started_by="carl")
    needs_finance = approval("c2", "pay", amount=5000)
    metadata = {**(needs_finance.metadata or {}), APPROVALS_KEY: quorum.to_metadata([], NOW)}
    picker = picker_for(approval("c1"), needs_finance.model_copy(update={"metadata": metadata}))
    with pytest.raises(ResponderError) as refused:
        responders.approve_all().respond(picker)
    # The words the picker and the run give (`policy.quorum.admit`).
    said = "responder:approve_all (no roles) may not answer this call: it needs finance"
    assert said in str(refused.value)
    assert str(refused.value).startswith("responder approve_all could not answer pay")
    assert picker.answers == {}
    assert not picker.submitted


@pytest.mark.parametrize(
    "payload",
    [
        {"approved": True, "chosen_time": "next week"},  # does not fit the schema
        {"chosen_label": "Tuesday"},  # no `approved`
    ],
)
def test_a_responder_is_refused_for_the_reason_the_questions_give(payload: Any) -> None:
    # One rule, in `asking.open_questions.answer_refusal`: the responder's check up front
    # and the picker's own refusal say the same reason.
    interrupt = approval("c1")
    picker = picker_for(interrupt)
    with pytest.raises(ResponderError) as refused:
        responders.answers({"schedule_meeting": payload}).respond(picker)
    with pytest.raises(AnswerRefused):
        picker.resolve(payload, interrupt.id)
    reason = picker.refused(interrupt.id).split(": ", 1)[1]
    label = 'schedule_meeting with {"topic": "Q3 roadmap"} (interrupt approve-c1)'
    assert str(refused.value) == f"responder answers could not answer {label}: {reason}"
