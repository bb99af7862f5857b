"""The rules about people on Temporal: the answer update's validator refuses an answer its
quorum does not let count (who may answer, the run's starter, an answer that says nobody, the
same person twice) with the code and words the run in process gives, before the answer enters
the workflow's history, and the tool never runs."""

from __future__ import annotations

import pathlib
import uuid
from collections.abc import AsyncIterator

import pytest

pytest.importorskip("temporalio")

from ag_ui.core import ResumeEntry, RunAgentInput
from temporalio.client import Client

from interrupt_widget.asking.thread import ConversationThread
from interrupt_widget.errors import ErrorCode
from interrupt_widget.identity import IDENTITY_KEY, Identity, as_identity
from interrupt_widget.temporal import TemporalAgent
from interrupt_widget.temporal.dev_server import DevServer
from payment_agents import SEND, runs_in
from temporal_agents import FINANCE_FOUR_EYES, worker_on_fresh_queue

ANN = Identity("ann", ("finance",))
BOB = Identity("bob", ("finance",))
CARL = Identity("carl", ("finance",))


@pytest.fixture
async def served(
    temporal_server: DevServer, tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[tuple[Client, str]]:
    monkeypatch.setenv("INTERRUPT_WIDGET_LEDGER", str(tmp_path / "votes.db"))
    async with worker_on_fresh_queue(temporal_server, (FINANCE_FOUR_EYES,)) as served:
        yield served


def approval_by(thread: ConversationThread, who: Identity | None) -> RunAgentInput:
    metadata = {} if who is None else {IDENTITY_KEY: who.to_wire()}
    entries = [
        ResumeEntry(
            interrupt_id=i.id, status="resolved", payload={"approved": True}, metadata=metadata
        )
        for i in thread.interrupts
    ]
    return thread.resume_input(entries)


async def accepted_updates(client: Client, thread_id: str) -> int:
    history = await client.get_workflow_handle(thread_id).fetch_history()
    field = "workflow_execution_update_accepted_event_attributes"
    return sum(1 for e in history.events if e.HasField(field))


async def scheduled_activities(client: Client, thread_id: str) -> int:
    history = await client.get_workflow_handle(thread_id).fetch_history()
    field = "activity_task_scheduled_event_attributes"
    return sum(1 for e in history.events if e.HasField(field))


async def test_an_answer_the_rules_about_people_refuse_never_enters_history(
    served: tuple[Client, str], runs: pathlib.Path
) -> None:
    client, queue = served
    agent = TemporalAgent(client, agent=FINANCE_FOUR_EYES, task_queue=queue)
    thread = ConversationThread(agent, thread_id=f"t-{uuid.uuid4().hex[:8]}")
    with as_identity(CARL):  # carl starts the run
        assert (await thread.start(thread.user_input(SEND))).kind == "interrupt"
    [asked] = thread.interrupts
    cases = [
        (Identity("dan", ("clerk",)), "dan (roles: clerk) may not answer this call: it needs"),
        (CARL, "carl started this run and may not approve its own calls"),
        (None, "takes answers that say who gives them (metadata.identity)"),
    ]
    for who, says in cases:
        refused = await thread.start(approval_by(thread, who))
        assert (refused.kind, refused.code) == ("error", ErrorCode.NOT_ALLOWED_TO_ANSWER), who
        # The words of the run in process (`sdk/vote_counting.py`), to the letter.
        said = refused.error or ""
        assert said.startswith(f"The answer to interrupt {asked.id!r} (send_money) is refused: ")
        assert says in said, said
        assert said.endswith("; nothing was recorded."), said
    assert await accepted_updates(client, thread.thread_id) == 1  # the message's run only
    assert await scheduled_activities(client, thread.thread_id) == 1  # no refusal cost a run
    first = await thread.start(approval_by(thread, ANN))
    assert first.kind == "interrupt", first  # one of two
    again = await thread.start(approval_by(thread, ANN))  # the same person twice: told at once
    assert (again.kind, again.code) == ("error", ErrorCode.NOT_ALLOWED_TO_ANSWER), again
    assert "ann already approved at" in (again.error or "")
    assert await accepted_updates(client, thread.thread_id) == 2  # and ann's one vote
    assert runs_in(runs) == []
    assert (await thread.start(approval_by(thread, BOB))).kind == "success"
    assert runs_in(runs) == [{"tool": "send_money", "amount": 42.0, "to": "Bob"}]
