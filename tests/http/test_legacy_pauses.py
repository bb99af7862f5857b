"""Pauses without AG-UI 1.0's outcome, read from the event shapes real servers send.

The LangGraph shapes are those `ag-ui-langgraph` 0.0.47 sends in its default mode
(the whole server runs in `test_interop_langgraph.py`); the unanswered client tool
call is what `ag-ui-adk` 0.11 sends by default for a confirmation.
"""

from __future__ import annotations

import json
from typing import Any, Literal

import pytest
from ag_ui.core import (
    BaseEvent,
    CustomEvent,
    ResumeEntry,
    RunErrorEvent,
    RunFinishedCancelledOutcome,
    RunFinishedEvent,
    RunFinishedInterruptOutcome,
    RunStartedEvent,
    ToolCallEndEvent,
    ToolCallResultEvent,
    ToolCallStartEvent,
)

from interrupt_widget.agui.wire import interrupt_from_wire, to_wire
from interrupt_widget.errors import ErrorCode
from interrupt_widget.http.langgraph_pauses import LegacyPauses

URL = "http://127.0.0.1:9/"
INBOX = {
    "action_request": {"action": "send_email", "args": {"to": "ada@example.com"}},
    "config": {
        "allow_accept": True,
        "allow_edit": True,
        "allow_respond": True,
        "allow_ignore": True,
    },
    "description": "Send the email to Ada?",
}


def watched(pauses: LegacyPauses, events: list[BaseEvent]) -> list[BaseEvent]:
    watch = pauses.watch()
    return [watch.see(e) for e in events]


def legacy_run(value: Any, interrupt_id: str = "lg-1") -> list[BaseEvent]:
    return [
        RunStartedEvent(thread_id="t", run_id="r"),
        CustomEvent(name="on_interrupt", value=value, raw_event={"id": interrupt_id}),
        RunFinishedEvent(thread_id="t", run_id="r"),
    ]


def test_a_legacy_finish_becomes_the_interrupt_it_stands_for() -> None:
    pauses = LegacyPauses(URL)
    finished = watched(pauses, legacy_run(json.dumps([INBOX])))[-1]
    assert isinstance(finished, RunFinishedEvent)
    assert isinstance(finished.outcome, RunFinishedInterruptOutcome)
    [interrupt] = finished.outcome.interrupts
    assert interrupt.id == "lg-1"
    assert interrupt.reason == "tool_call"
    assert interrupt.message == "Send the email to Ada?"
    assert interrupt.metadata is not None
    assert interrupt.metadata["tool_name"] == "send_email"
    assert interrupt.response_schema is not None
    assert set(interrupt.response_schema["properties"]) == {"approved", "editedArgs", "reason"}


def answer(
    pauses: LegacyPauses, payload: Any, status: Literal["resolved", "cancelled"] = "resolved"
) -> Any:
    entry = ResumeEntry(interrupt_id="lg-1", status=status, payload=payload)
    shaped = pauses.shaped([entry])
    assert shaped is not None
    return shaped[0].payload


def test_human_interrupt_answers_are_human_responses_in_the_graph_s_list() -> None:
    pauses = LegacyPauses(URL)
    watched(pauses, legacy_run([INBOX]))
    assert answer(pauses, {"approved": True}) == [{"type": "accept", "args": None}]
    edited = {"approved": True, "editedArgs": {"to": "bob@example.com"}}
    assert answer(pauses, edited) == [
        {"type": "edit", "args": {"action": "send_email", "args": {"to": "bob@example.com"}}}
    ]
    assert answer(pauses, {"approved": False, "reason": "Not now"}) == [
        {"type": "response", "args": "Not now"}
    ]
    assert answer(pauses, {"approved": False}) == [{"type": "ignore", "args": None}]
    # A cancel travels as the standard cancelled entry; the server maps it.
    assert answer(pauses, None, status="cancelled") is None


def test_a_human_interrupt_that_only_takes_a_reply_is_a_question() -> None:
    pauses = LegacyPauses(URL)
    only_reply = {**INBOX, "config": {"allow_respond": True}}
    finished = watched(pauses, legacy_run(only_reply))[-1]
    assert isinstance(finished, RunFinishedEvent)
    assert isinstance(finished.outcome, RunFinishedInterruptOutcome)
    assert finished.outcome.interrupts[0].reason == "input_required"
    assert answer(pauses, {"response": "Use the other address"}) == {
        "type": "response",
        "args": "Use the other address",
    }


def test_a_human_interrupt_without_config_may_be_approved_or_denied_not_edited() -> None:
    # What ag-ui-langgraph 0.0.47 sends in its legacy event: the value without `config`.
    pauses = LegacyPauses(URL)
    bare = {k: v for k, v in INBOX.items() if k != "config"}
    finished = watched(pauses, legacy_run(json.dumps([bare])))[-1]
    assert isinstance(finished, RunFinishedEvent)
    assert isinstance(finished.outcome, RunFinishedInterruptOutcome)
    [interrupt] = finished.outcome.interrupts
    assert interrupt.reason == "tool_call"
    assert interrupt.response_schema is not None
    assert set(interrupt.response_schema["properties"]) == {"approved", "reason"}
    assert answer(pauses, {"approved": True}) == [{"type": "accept", "args": None}]


def test_a_plain_string_is_a_question_answered_with_the_text() -> None:
    pauses = LegacyPauses(URL)
    finished = watched(pauses, legacy_run("Which room?"))[-1]
    assert isinstance(finished, RunFinishedEvent)
    assert isinstance(finished.outcome, RunFinishedInterruptOutcome)
    assert finished.outcome.interrupts[0].message == "Which room?"
    assert answer(pauses, {"response": "The big one"}) == "The big one"


def test_a_run_with_the_1_0_outcome_is_passed_on_as_it_is() -> None:
    pauses = LegacyPauses(URL)
    events = legacy_run({"reason": "tool_call", "message": "Go?"})
    cancelled = RunFinishedEvent(thread_id="t", run_id="r", outcome=RunFinishedCancelledOutcome())
    out = watched(pauses, [*events[:-1], cancelled])
    assert out[-1] is cancelled
    assert pauses.shapes == {}


def test_a_client_tool_call_left_without_a_result_ends_in_an_error_saying_why() -> None:
    pauses = LegacyPauses(URL)
    events: list[BaseEvent] = [
        RunStartedEvent(thread_id="t", run_id="r"),
        ToolCallStartEvent(tool_call_id="adk-1", tool_call_name="adk_request_confirmation"),
        ToolCallEndEvent(tool_call_id="adk-1"),
        RunFinishedEvent(thread_id="t", run_id="r"),
    ]
    error = watched(pauses, events)[-1]
    assert isinstance(error, RunErrorEvent)
    assert error.code == ErrorCode.UNANSWERABLE_PAUSE
    assert "adk_request_confirmation (adk-1)" in error.message
    assert "emit_interrupt_outcome=True" in error.message
    assert URL in error.message


def test_tool_calls_with_results_finish_as_they_are() -> None:
    pauses = LegacyPauses(URL)
    events: list[BaseEvent] = [
        RunStartedEvent(thread_id="t", run_id="r"),
        ToolCallStartEvent(tool_call_id="c1", tool_call_name="lookup"),
        ToolCallEndEvent(tool_call_id="c1"),
        ToolCallResultEvent(message_id="m1", tool_call_id="c1", content="42"),
        RunFinishedEvent(thread_id="t", run_id="r"),
    ]
    assert watched(pauses, events) == events


@pytest.mark.parametrize(
    ("value", "payload", "graph_gets"),
    [
        (
            [INBOX],
            {"approved": False, "reason": "Not now"},
            [{"type": "response", "args": "Not now"}],
        ),
        ("When?", {"response": "Tuesday"}, "Tuesday"),
    ],
)
def test_a_saved_pause_is_answered_alike_by_a_watcher_that_never_saw_it(
    value: Any, payload: dict[str, Any], graph_gets: Any
) -> None:
    finished = watched(LegacyPauses(URL), legacy_run(value))[-1]
    assert isinstance(finished, RunFinishedEvent)
    assert isinstance(finished.outcome, RunFinishedInterruptOutcome)
    # Through JSON, as a save and a load in another kernel carry it.
    saved = [interrupt_from_wire(to_wire(i)) for i in finished.outcome.interrupts]
    fresh = LegacyPauses(URL)
    fresh.adopt(saved)
    assert answer(fresh, payload) == graph_gets
