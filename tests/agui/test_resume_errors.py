"""Every bad resume ends in RUN_ERROR with its code, runs nothing and changes nothing."""

from __future__ import annotations

from typing import Any

import pytest
from ag_ui.core import (
    BaseEvent,
    MessagesSnapshotEvent,
    ResumeEntry,
    RunAgentInput,
    RunErrorEvent,
    RunFinishedEvent,
    RunFinishedInterruptOutcome,
    ToolCallResultEvent,
    UserMessage,
)

from interrupt_widget import ErrorCode, OfflineModel, OpenAIAgentsAdapter
from interrupt_widget.examples import ExampleAgent, expense_agent, meeting_agent

TWO_CALLS = "submit_expense amount=120 for a team dinner and issue_refund amount=80 for a bad order"
EXPENSE_OK = {"approved": True, "category": "meals"}


async def _paused(collect: Any, agent: ExampleAgent, text: str) -> tuple[Any, list[Any], list[Any]]:
    adapter = OpenAIAgentsAdapter(agent)
    request = RunAgentInput(
        thread_id="t", run_id="r1", messages=[UserMessage(id="u1", content=text)]
    )
    events = await collect(adapter, request)
    finished = events[-1]
    assert isinstance(finished, RunFinishedEvent)
    assert isinstance(finished.outcome, RunFinishedInterruptOutcome)
    snapshot = [e for e in events if isinstance(e, MessagesSnapshotEvent)][-1].messages
    return adapter, snapshot, finished.outcome.interrupts


def _refused(events: list[BaseEvent], code: ErrorCode, *names: str) -> RunErrorEvent:
    error = events[-1]
    assert isinstance(error, RunErrorEvent), error
    assert error.code == code.value
    for name in names:
        assert name in error.message
    # Nothing ran and nothing was rewritten: the client keeps its conversation as it was.
    assert not any(isinstance(e, ToolCallResultEvent | MessagesSnapshotEvent) for e in events)
    return error


async def test_resume_that_leaves_an_interrupt_unanswered(collect: Any) -> None:
    agent = expense_agent(OfflineModel())
    adapter, messages, (expense, refund) = await _paused(collect, agent, TWO_CALLS)
    entry = ResumeEntry(interrupt_id=expense.id, status="resolved", payload=EXPENSE_OK)
    request = RunAgentInput(thread_id="t", run_id="r2", messages=messages, resume=[entry])

    events = await collect(adapter, request)

    _refused(events, ErrorCode.INCOMPLETE_RESUME, refund.id)
    assert agent.executions.count() == 0


async def test_new_input_while_interrupts_are_open(collect: Any) -> None:
    agent = meeting_agent(OfflineModel())
    adapter, messages, (interrupt,) = await _paused(collect, agent, "Book a call with Al about X")
    later = [*messages, UserMessage(id="u2", content="never mind, what time is it?")]

    events = await collect(adapter, RunAgentInput(thread_id="t", run_id="r2", messages=later))

    _refused(events, ErrorCode.PENDING_INTERRUPTS, interrupt.id, "schedule_meeting")


@pytest.mark.parametrize(
    ("payload", "field"),
    [
        ({"approved": True, "category": "snacks"}, "/category"),
        ({"approved": True, "category": "meals", "approved_amount": 20_000}, "/approved_amount"),
        ({"approved": True}, "/category"),
        ({"approved": "yes"}, "/approved"),
        ({"category": "meals"}, "/approved"),
    ],
)
async def test_payload_that_fails_the_response_schema(
    collect: Any, payload: dict[str, Any], field: str
) -> None:
    agent = expense_agent(OfflineModel())
    adapter, messages, (expense, refund) = await _paused(collect, agent, TWO_CALLS)
    entries = [
        ResumeEntry(interrupt_id=expense.id, status="resolved", payload=payload),
        ResumeEntry(interrupt_id=refund.id, status="resolved", payload={"approved": True}),
    ]
    request = RunAgentInput(thread_id="t", run_id="r2", messages=messages, resume=entries)

    events = await collect(adapter, request)

    _refused(events, ErrorCode.INVALID_PAYLOAD, expense.id, field)
    assert agent.executions.count() == 0  # not even the valid answer ran


async def test_meeting_time_must_be_a_date_time(collect: Any) -> None:
    agent = meeting_agent(OfflineModel())
    adapter, messages, (interrupt,) = await _paused(collect, agent, "Book a call with Al about X")
    payload = {"approved": True, "chosen_time": "next tuesday", "chosen_label": "Tue"}
    entry = ResumeEntry(interrupt_id=interrupt.id, status="resolved", payload=payload)
    request = RunAgentInput(thread_id="t", run_id="r2", messages=messages, resume=[entry])

    events = await collect(adapter, request)

    _refused(events, ErrorCode.INVALID_PAYLOAD, "/chosen_time", "date-time")
    assert agent.executions.count() == 0


async def test_two_entries_that_disagree(collect: Any) -> None:
    agent = meeting_agent(OfflineModel())
    adapter, messages, (interrupt,) = await _paused(collect, agent, "Book a call with Al about X")
    entries = [
        ResumeEntry(interrupt_id=interrupt.id, status="cancelled"),
        ResumeEntry(interrupt_id=interrupt.id, status="resolved", payload={"approved": False}),
    ]
    request = RunAgentInput(thread_id="t", run_id="r2", messages=messages, resume=entries)

    events = await collect(adapter, request)

    _refused(events, ErrorCode.CONFLICTING_RESUME_ENTRIES, interrupt.id)


async def test_two_identical_entries_are_one_answer(collect: Any) -> None:
    agent = meeting_agent(OfflineModel())
    adapter, messages, (interrupt,) = await _paused(collect, agent, "Book a call with Al about X")
    entry = ResumeEntry(interrupt_id=interrupt.id, status="resolved", payload={"approved": False})
    request = RunAgentInput(thread_id="t", run_id="r2", messages=messages, resume=[entry, entry])

    events = await collect(adapter, request)

    assert isinstance(events[-1], RunFinishedEvent)


@pytest.mark.parametrize(
    "raw",
    [
        {"interruptId": "ID", "status": "resolved"},
        {"interruptId": "ID", "status": "approved", "payload": {"approved": True}},
        {"status": "cancelled"},
        {"interruptId": "", "status": "cancelled"},
    ],
)
async def test_malformed_entry(collect: Any, raw: dict[str, Any]) -> None:
    agent = meeting_agent(OfflineModel())
    adapter, messages, (interrupt,) = await _paused(collect, agent, "Book a call with Al about X")
    entry = {k: (interrupt.id if v == "ID" else v) for k, v in raw.items()}
    # Built without validation, as a hand-written client or a raw JSON body might send it.
    request = RunAgentInput.model_construct(
        thread_id="t", run_id="r2", messages=messages, resume=[entry]
    )

    events = await collect(adapter, request)

    _refused(events, ErrorCode.MALFORMED_RESUME_ENTRY)
    assert agent.executions.count() == 0


async def test_gated_call_for_a_tool_the_agent_lacks(collect: Any) -> None:
    agent = meeting_agent(OfflineModel())
    _, messages, (interrupt,) = await _paused(collect, agent, "Book a call with Al about X")
    other = OpenAIAgentsAdapter(expense_agent(OfflineModel()))
    entry = ResumeEntry(interrupt_id=interrupt.id, status="resolved", payload={"approved": True})
    request = RunAgentInput(thread_id="t", run_id="r2", messages=messages, resume=[entry])

    events = await collect(other, request)

    _refused(events, ErrorCode.INVALID_INPUT, interrupt.id, "schedule_meeting")
    # The meeting's own answer fields are not this agent's: refused by name before that.
    meeting = {"approved": True, "chosen_time": "2030-01-08T10:00:00Z", "chosen_label": "Tue"}
    entry = ResumeEntry(interrupt_id=interrupt.id, status="resolved", payload=meeting)
    events = await collect(other, request.model_copy(update={"resume": [entry]}))
    error = _refused(events, ErrorCode.INVALID_PAYLOAD, interrupt.id, "schedule_meeting")
    assert "unknown field 'chosen_time'" in error.message


def test_error_codes_are_stable_strings() -> None:
    assert {code.value for code in ErrorCode} == {
        "incomplete_resume",
        "interrupt_expired",
        "invalid_payload",
        "call_mismatch",
        "unknown_interrupt",
        "malformed_resume_entry",
        "conflicting_resume_entries",
        "pending_interrupts",
        "invalid_input",
        "model_error",
        "tool_error",
        "call_in_doubt",
        "state_unavailable",
        "ledger_unavailable",
        "ledger_not_shared",
        "agent_error",
        "max_turns",
        "model_refusal",
        "guardrail_tripwire",
        "adapter_failed",
        "fingerprint_missing",
        "fingerprint_invalid",
        "fingerprint_other_secret",
        "agent_failed",
        "unauthorized",
        "malformed_json",
        "body_timeout",
        "body_too_large",
        "unsupported_media_type",
        "not_found",
        "method_not_allowed",
        "http_error",
        "internal_error",
        "connection_failed",
        "invalid_stream",
        "not_allowed_to_answer",
        "identity_mismatch",
        "answered_elsewhere",
        "temporal_unavailable",
        "edit_not_allowed",
        "edit_outside_fields",
        "invalid_edit",
        "unanswerable_pause",
        "cassette_mismatch",
        "cassette_missing",
        "temporal_namespace_missing",
        "temporal_search_attribute_missing",
        "no_worker",
    }
