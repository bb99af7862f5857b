"""`TemporalAgent` on a real Temporal server, its worker in this process: the kit's thread runs
a conversation whose runs happen in activities, answers go through the workflow's update
validator, and what ran is read from the file the tool writes."""

from __future__ import annotations

import asyncio
import pathlib
import uuid
from collections.abc import AsyncIterator
from typing import Any

import pytest

pytest.importorskip("temporalio")

from ag_ui.core import ResumeEntry, RunAgentInput, RunErrorEvent, RunFinishedEvent
from temporalio.client import Client, WithStartWorkflowOperation, WorkflowContinuedAsNewError
from temporalio.common import WorkflowIDConflictPolicy

from interrupt_widget.agui.wire import to_wire
from interrupt_widget.asking.thread import ConversationThread
from interrupt_widget.errors import ErrorCode
from interrupt_widget.free_port import free_port
from interrupt_widget.identity import IDENTITY_KEY, Identity
from interrupt_widget.temporal import TemporalAgent
from interrupt_widget.temporal.dev_server import DevServer
from interrupt_widget.temporal.shapes import RUN_UPDATE, WORKFLOW
from interrupt_widget.testing import conversation_until
from payment_agents import PAY, PAY_PROPOSAL, REFUSED_SEND, SEND, runs_in
from temporal_agents import EXPIRING, FOUR_EYES, PAYMENTS, worker_on_fresh_queue

APPROVE = {"approved": True}


@pytest.fixture
async def served(temporal_server: DevServer) -> AsyncIterator[tuple[Client, str]]:
    """A client and a task queue with one in-process worker serving both test agents."""
    async with worker_on_fresh_queue(temporal_server, (PAYMENTS, EXPIRING, FOUR_EYES)) as served:
        yield served


def agent_on(served: tuple[Client, str], target: str = PAYMENTS) -> TemporalAgent:
    client, queue = served
    return TemporalAgent(client, agent=target, task_queue=queue, heartbeat_seconds=2)


async def paused(agent: TemporalAgent) -> ConversationThread:
    thread = ConversationThread(agent, thread_id=f"t-{uuid.uuid4().hex[:8]}")
    outcome = await thread.start(thread.user_input(SEND))
    assert outcome.kind == "interrupt", outcome
    return thread


def answer(thread: ConversationThread, payload: Any, status: str = "resolved") -> RunAgentInput:
    entries = [
        ResumeEntry(interrupt_id=i.id, status=status, payload=payload)  # type: ignore[arg-type]
        for i in thread.interrupts
    ]
    return thread.resume_input(entries)


async def events_of(agent: TemporalAgent, input: RunAgentInput) -> list[Any]:
    return [event async for event in agent.run(input)]


async def test_an_approved_call_runs_once_on_the_worker_and_a_repeated_answer_is_the_same(
    served: tuple[Client, str], runs: pathlib.Path
) -> None:
    agent = agent_on(served)
    thread = await paused(agent)
    resume = answer(thread, APPROVE)
    outcome = await thread.start(resume)
    assert outcome.kind == "success", outcome
    assert runs_in(runs) == [{"tool": "send_money", "amount": 42.0, "to": "Bob"}]
    # The same answer again (a retry: the same run, so the same update id): the same events.
    again = await events_of(agent, resume)
    assert isinstance(again[-1], RunFinishedEvent)
    assert [to_wire(e) for e in again] == [to_wire(e) for e in thread.runs[-1].events]
    assert len(runs_in(runs)) == 1


async def test_a_bad_answer_is_refused_before_history_and_the_question_stays_open(
    served: tuple[Client, str], runs: pathlib.Path
) -> None:
    agent = agent_on(served)
    thread = await paused(agent)
    asked = list(thread.interrupts)
    refused = await thread.start(answer(thread, {"approved": "yes", "extra": 1}))
    assert refused.kind == "error", refused
    assert refused.code == ErrorCode.INVALID_PAYLOAD
    held = await agent.conversation(thread.thread_id)
    assert [i["id"] for i in held.interrupts] == [i.id for i in asked]
    client, _ = served
    history = await client.get_workflow_handle(thread.thread_id).fetch_history()
    accepted = [
        e
        for e in history.events
        if e.HasField("workflow_execution_update_accepted_event_attributes")
    ]
    assert len(accepted) == 1  # the first message's run, not the refused answer
    assert runs_in(runs) == []
    assert (await thread.start(answer(thread, {"approved": False}))).kind == "success"
    assert runs_in(runs) == []  # denied: never runs


async def test_every_answer_refused_in_process_is_refused_on_temporal_with_the_same_words(
    served: tuple[Client, str], runs: pathlib.Path
) -> None:
    # The update validator meets the one answer check: an edit in the old field, an unknown
    # field, a typo: each ends the run with the code and words the in-process resume gives
    # (tests/test_unknown_answer_fields.py), and the tool never runs.
    agent = agent_on(served)
    thread = await paused(agent)
    for case in REFUSED_SEND:
        refused = await thread.start(answer(thread, case.payload))
        assert (refused.kind, refused.code) == ("error", case.code), case.name
        assert case.says in (refused.error or ""), (case.name, refused.error)
        assert runs_in(runs) == [], case.name
    assert (await thread.start(answer(thread, APPROVE))).kind == "success"
    assert runs_in(runs) == [{"tool": "send_money", "amount": 42.0, "to": "Bob"}]


def approval_by(thread: ConversationThread, name: str) -> RunAgentInput:
    entries = [
        ResumeEntry(
            interrupt_id=i.id,
            status="resolved",
            payload=APPROVE,
            metadata={IDENTITY_KEY: Identity(name).to_wire()},
        )
        for i in thread.interrupts
    ]
    return thread.resume_input(entries)


async def test_a_call_needing_two_people_runs_once_on_the_second_approval_not_the_first(
    served: tuple[Client, str], runs: pathlib.Path, tmp_path: pathlib.Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    monkeypatch.setenv("INTERRUPT_WIDGET_LEDGER", str(tmp_path / "votes.db"))
    agent = agent_on(served, FOUR_EYES)
    thread = await paused(agent)
    asked = [i.id for i in thread.interrupts]
    first = await thread.start(approval_by(thread, "ann"))
    assert first.kind == "interrupt", first  # one of two: asked again, the same question
    assert [i.id for i in first.interrupts] == asked
    assert runs_in(runs) == []
    again = await thread.start(approval_by(thread, "ann"))  # the same person twice: one vote
    assert again.kind in ("interrupt", "error"), again
    assert runs_in(runs) == []
    second = await thread.start(approval_by(thread, "bob"))
    assert second.kind == "success", second
    assert runs_in(runs) == [{"tool": "send_money", "amount": 42.0, "to": "Bob"}]


async def test_two_notebooks_answering_at_once_run_the_call_once_and_the_other_is_told(
    served: tuple[Client, str], runs: pathlib.Path
) -> None:
    agent = agent_on(served)
    thread = await paused(agent)
    entries = [
        ResumeEntry(interrupt_id=i.id, status="resolved", payload=APPROVE)
        for i in thread.interrupts
    ]
    first, second = (
        RunAgentInput(
            thread_id=thread.thread_id, run_id=f"run-{n}", messages=thread.messages,
            tools=[], context=[], resume=entries,
        )
        for n in (1, 2)
    )  # fmt: skip
    a, b = await asyncio.gather(events_of(agent, first), events_of(agent, second))
    ends = sorted(type(run[-1]).__name__ for run in (a, b))
    assert ends == ["RunErrorEvent", "RunFinishedEvent"]
    told = next(run[-1] for run in (a, b) if isinstance(run[-1], RunErrorEvent))
    assert told.code == ErrorCode.ANSWERED_ELSEWHERE
    assert len(runs_in(runs)) == 1


async def test_a_new_client_finds_the_open_question_through_visibility(
    served: tuple[Client, str], runs: pathlib.Path, temporal_server: DevServer
) -> None:
    thread = await paused(agent_on(served))
    # A new kernel: a new client, knowing only the address and the queue.
    later = TemporalAgent(temporal_server.address, agent=PAYMENTS, task_queue=served[1])
    found = await later.waiting(at_least=1)  # visibility follows the workflow by moments
    assert [c.thread_id for c in found] == [thread.thread_id]
    assert [i["id"] for i in found[0].interrupts] == [i.id for i in thread.interrupts]
    fresh = ConversationThread(
        later, thread_id=found[0].thread_id, messages=found[0].messages,
        interrupts=found[0].interrupts,
    )  # fmt: skip
    assert (await fresh.start(answer(fresh, APPROVE))).kind == "success"
    assert len(runs_in(runs)) == 1
    assert await later.waiting() == []


async def test_an_expired_question_is_cancelled_by_the_workflow_timer(
    served: tuple[Client, str], runs: pathlib.Path
) -> None:
    agent = agent_on(served, EXPIRING)
    thread = await paused(agent)
    assert thread.interrupts[0].expires_at is not None
    held = await conversation_until(
        agent, thread.thread_id, lambda held: not held.interrupts and not held.running
    )
    assert held.problem is None
    refused = await thread.start(answer(thread, APPROVE))
    assert refused.kind == "error"
    assert refused.code == ErrorCode.ANSWERED_ELSEWHERE
    assert runs_in(runs) == []


async def test_a_server_not_there_is_said_clearly() -> None:
    agent = TemporalAgent(f"127.0.0.1:{free_port()}", agent=PAYMENTS, task_queue="q")
    thread = ConversationThread(agent)
    outcome = await thread.start(thread.user_input(SEND))
    assert outcome.kind == "error"
    assert outcome.code == ErrorCode.TEMPORAL_UNAVAILABLE
    assert "cannot be reached" in (outcome.error or "")


async def test_a_second_notebook_answering_late_is_told_and_catches_up_with_the_first(
    served: tuple[Client, str], runs: pathlib.Path
) -> None:
    agent = agent_on(served)
    first = await paused(agent)
    second = ConversationThread(
        agent_on(served), thread_id=first.thread_id, messages=first.messages,
        interrupts=first.interrupts,
    )  # fmt: skip
    assert (await first.start(answer(first, APPROVE))).kind == "success"
    late = await second.start(answer(second, {"approved": False}))
    assert late.kind == "error"
    assert late.code == ErrorCode.ANSWERED_ELSEWHERE
    assert second.interrupts == []  # it no longer asks
    assert second.messages == first.messages  # the approved call's result included
    assert len(runs_in(runs)) == 1


async def test_an_edit_outside_the_editable_fields_is_refused_before_history(
    served: tuple[Client, str], runs: pathlib.Path
) -> None:
    agent = agent_on(served)
    thread = ConversationThread(agent, thread_id=f"t-{uuid.uuid4().hex[:8]}")
    assert (await thread.start(thread.user_input(PAY))).kind == "interrupt"
    edit = {"approved": True, "editedArgs": {**PAY_PROPOSAL, "to": "MALLORY"}}
    refused = await thread.start(answer(thread, edit))
    assert refused.kind == "error"
    assert refused.code == ErrorCode.EDIT_OUTSIDE_FIELDS
    assert "only 'amount', 'memo' may be changed" in (refused.error or "")
    client, _ = served
    history = await client.get_workflow_handle(thread.thread_id).fetch_history()
    accepted = [
        e
        for e in history.events
        if e.HasField("workflow_execution_update_accepted_event_attributes")
    ]
    assert len(accepted) == 1  # the message's run only: the edit never entered history
    assert runs_in(runs) == []
    allowed = {"approved": True, "editedArgs": {**PAY_PROPOSAL, "amount": 200}}
    assert (await thread.start(answer(thread, allowed))).kind == "success"
    assert runs_in(runs) == [{"tool": "pay", **PAY_PROPOSAL, "amount": 200.0}]


async def test_a_long_history_continues_as_new_and_the_question_still_answers(
    served: tuple[Client, str], runs: pathlib.Path
) -> None:
    client, queue = served
    agent = TemporalAgent(client, agent=PAYMENTS, task_queue=queue, max_history_events=10)
    thread = await paused(agent)
    # It continues as new once the pause is in: its first run's result says so when it does.
    described = await client.get_workflow_handle(thread.thread_id).describe()
    first_run = described.raw_description.workflow_execution_info.first_run_id
    first = client.get_workflow_handle(thread.thread_id, run_id=first_run)
    with pytest.raises(WorkflowContinuedAsNewError):
        await asyncio.wait_for(first.result(follow_runs=False), timeout=30)
    found = await agent.waiting(at_least=1)  # the search attribute went along
    assert [c.thread_id for c in found] == [thread.thread_id]
    held = await agent.conversation(thread.thread_id)
    assert [i["id"] for i in held.interrupts] == [i.id for i in thread.interrupts]
    assert (await thread.start(answer(thread, APPROVE))).kind == "success"
    assert len(runs_in(runs)) == 1
    assert [c.thread_id for c in await agent.waiting()] == []


async def test_malformed_run_input_ends_the_run_with_invalid_input_on_its_first_try(
    served: tuple[Client, str], runs: pathlib.Path
) -> None:
    client, queue = served
    thread_id = f"t-{uuid.uuid4().hex[:8]}"
    start: WithStartWorkflowOperation[Any, Any] = WithStartWorkflowOperation(
        WORKFLOW, agent_on(served).start, id=thread_id, task_queue=queue,
        id_conflict_policy=WorkflowIDConflictPolicy.USE_EXISTING,
    )  # fmt: skip
    # A client of its own sends what no AG-UI run is: a message in a role AG-UI lacks.
    bad = {
        "threadId": thread_id, "runId": "r1", "tools": [], "context": [],
        "messages": [{"id": "u1", "role": "wizard", "content": SEND}],
    }  # fmt: skip
    events = await asyncio.wait_for(
        client.execute_update_with_start_workflow(
            RUN_UPDATE, bad, start_workflow_operation=start, result_type=list
        ),
        timeout=30,
    )
    assert [e["type"] for e in events] == ["RUN_STARTED", "RUN_ERROR"]
    assert events[-1]["code"] == ErrorCode.INVALID_INPUT
    assert "is not an AG-UI RunAgentInput" in events[-1]["message"]
    history = await client.get_workflow_handle(thread_id).fetch_history()
    failed = [e for e in history.events if e.HasField("activity_task_failed_event_attributes")]
    started = [e for e in history.events if e.HasField("activity_task_started_event_attributes")]
    assert len(failed) == 1  # one failure, for good
    assert started[0].activity_task_started_event_attributes.attempt == 1  # never retried
    assert runs_in(runs) == []
    held = await agent_on(served).conversation(thread_id)
    assert (held.interrupts, held.running) == ([], False)  # it takes the next message
