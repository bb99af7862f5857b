"""Questions whose deadline passes on Temporal: the workflow's timer cancels them; when that
cancel fails (the ledger down), it is tried again a bounded number of times with a growing
wait, then the questions stay open, saying why, for a person to cancel, and nothing loops."""

from __future__ import annotations

import pathlib
import uuid

import pytest

pytest.importorskip("temporalio")

from ag_ui.core import ResumeEntry

from interrupt_widget.asking.thread import ConversationThread
from interrupt_widget.temporal import TemporalAgent
from interrupt_widget.temporal.dev_server import DevServer
from interrupt_widget.testing import conversation_until
from payment_agents import SEND, runs_in
from temporal_agents import (
    DENIED_WHEN_NOBODY_ANSWERS,
    EXPIRING_ON_A_LEDGER_THAT_FAILS,
    HOLD_ENV,
    LEDGER_DOWN,
    SHARED_LEDGER_ENV,
    worker_on_fresh_queue,
)


async def test_an_expiry_that_fails_is_tried_a_bounded_number_of_times_then_left_to_a_person(
    temporal_server: DevServer,
    runs: pathlib.Path,
    tmp_path: pathlib.Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(HOLD_ENV, str(tmp_path))
    monkeypatch.setenv(SHARED_LEDGER_ENV, str(tmp_path / "calls.db"))
    (tmp_path / LEDGER_DOWN).touch()
    async with worker_on_fresh_queue(temporal_server, (EXPIRING_ON_A_LEDGER_THAT_FAILS,)) as (
        client,
        queue,
    ):
        agent = TemporalAgent(
            client, agent=EXPIRING_ON_A_LEDGER_THAT_FAILS, task_queue=queue,
            expiry_attempts=3, expiry_backoff_seconds=0.1,
        )  # fmt: skip
        thread = ConversationThread(agent, thread_id=f"t-{uuid.uuid4().hex[:8]}")
        assert (await thread.start(thread.user_input(SEND))).kind == "interrupt"
        [asked] = thread.interrupts
        held = await conversation_until(
            agent, thread.thread_id, lambda held: held.problem is not None
        )
        assert [i["id"] for i in held.interrupts] == [asked.id]  # open again, for a person
        assert not held.running
        assert "cancelling them failed 3 times (ledger_unavailable:" in (held.problem or "")
        tries = (tmp_path / "ledger-tries").read_text().splitlines()
        assert len(tries) == 3  # bounded: three tries, then no more
        history = await client.get_workflow_handle(thread.thread_id).fetch_history()
        scheduled = [
            e for e in history.events if e.HasField("activity_task_scheduled_event_attributes")
        ]
        assert len(scheduled) == 2  # the message's run and one expiry, retried by its policy
        # The ledger is back: a person cancels the expired question, and nothing ran.
        (tmp_path / LEDGER_DOWN).unlink()
        cancel = ResumeEntry(interrupt_id=asked.id, status="cancelled")
        assert (await thread.start(thread.resume_input([cancel]))).kind == "success"
        held = await agent.conversation(thread.thread_id)
        assert (held.interrupts, held.problem) == ([], None)
        assert len((tmp_path / "ledger-tries").read_text().splitlines()) == 3
        assert runs_in(runs) == []


async def test_an_escalation_that_denies_denies_on_time_by_the_workflow_s_timer(
    temporal_server: DevServer, runs: pathlib.Path
) -> None:
    async with worker_on_fresh_queue(temporal_server, (DENIED_WHEN_NOBODY_ANSWERS,)) as (
        client,
        queue,
    ):
        agent = TemporalAgent(client, agent=DENIED_WHEN_NOBODY_ANSWERS, task_queue=queue)
        thread = ConversationThread(agent, thread_id=f"t-{uuid.uuid4().hex[:8]}")
        assert (await thread.start(thread.user_input(SEND))).kind == "interrupt"
        assert thread.interrupts[0].expires_at is not None  # when it lapses
        held = await conversation_until(
            agent, thread.thread_id, lambda held: not held.interrupts and not held.running
        )
        told = [str(m.get("content")) for m in held.messages if m.get("role") == "tool"]
        assert len(told) == 1
        assert "did not approve send_money" in told[0]
        assert "the call is denied" in told[0]
        assert runs_in(runs) == []
