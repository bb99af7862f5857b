"""Temporal conversations in the server's sidebar with no kernel at all: found through
visibility, listed for each person as their rules let them answer, answered through the
conversation's open questions (a partial answer waits, a bad one is refused, nothing runs),
and the call runs once on the worker when the last question is answered (the tool's own
file counts the runs)."""

from __future__ import annotations

import asyncio
import pathlib
import uuid
from collections.abc import AsyncIterator
from datetime import UTC, datetime

import pytest

pytest.importorskip("temporalio")

from ag_ui.core import RunAgentInput
from temporalio.client import Client

from interrupt_widget import AgentChat
from interrupt_widget.agui.run_handle import RunHandle
from interrupt_widget.identity import Identity
from interrupt_widget.lab import temporal_questions
from interrupt_widget.lab.temporal_questions import TemporalQuestions
from interrupt_widget.temporal import TemporalAgent
from interrupt_widget.temporal.dev_server import DevServer
from interrupt_widget.testing import CommRecorder, until
from payment_agents import runs_in
from temporal_agents import (
    FAULTY,
    HOLD_ENV,
    PAYMENTS,
    SHARED_LEDGER_ENV,
    worker_on_fresh_queue,
)

ANN = Identity("ann")


@pytest.fixture
async def queue(temporal_server: DevServer) -> AsyncIterator[tuple[Client, str]]:
    async with worker_on_fresh_queue(temporal_server, (PAYMENTS,)) as served:
        yield served


async def listed(sidebar: TemporalQuestions, count: int) -> list[dict[str, object]]:
    for _ in range(100):  # visibility follows the workflows by moments
        await sidebar.refresh()
        items = sidebar.items(ANN, datetime.now(UTC))
        if len(items) == count:
            return items
        await asyncio.sleep(0.1)
    raise TimeoutError(f"{count} questions never listed")


async def test_a_waiting_temporal_conversation_is_listed_and_answered_with_no_kernel(
    queue: tuple[Client, str],
    runs: pathlib.Path,
    recorder: CommRecorder,
    temporal_server: DevServer,
) -> None:
    asking = TemporalAgent(queue[0], agent=PAYMENTS, task_queue=queue[1])
    chat = AgentChat(asking)
    chat.send(f"send_money amount=42 to=T{uuid.uuid4().hex[:4]}")
    await until(chat, lambda: chat.status == "waiting")

    # The server holds no chat: it finds the question through Temporal's visibility alone.
    found_by = TemporalAgent(
        temporal_server.address, agent=PAYMENTS, task_queue=queue[1], ui_url="http://h:8233"
    )
    sidebar = TemporalQuestions([found_by])
    [item] = await listed(sidebar, 1)
    assert item["tool"] == "send_money"
    assert item["runLink"] == found_by.run_link(chat.thread.thread_id)  # the card's link
    assert item["where"]["source"] == "temporal"
    assert item["mayAnswer"] is True
    question = str(item["id"])

    bad = await sidebar.answer(ANN, question, "resolved", {"approved": True, "sneaky": 1})
    assert not bad.ok
    assert "sneaky" in bad.error
    assert runs_in(runs) == []

    done = await sidebar.answer(ANN, question, "resolved", {"approved": True})
    assert (done.ok, done.verdict) == (True, "approved"), done.error
    assert [r["amount"] for r in runs_in(runs)] == [42.0]
    again = await sidebar.answer(ANN, question, "resolved", {"approved": True})
    assert not again.ok
    await listed(sidebar, 0)
    assert len(runs_in(runs)) == 1


class _BlinkingOnce(TemporalAgent):
    """The real agent, whose first resume cannot reach Temporal (the network blinked)."""

    blinked = False

    def run(self, input: RunAgentInput) -> RunHandle:
        if not self.blinked:
            self.blinked = True
            raise ConnectionError("the network blinked")
        return super().run(input)


async def test_an_answer_that_could_not_reach_temporal_leaves_its_question_to_answer_again(
    queue: tuple[Client, str],
    runs: pathlib.Path,
    recorder: CommRecorder,
    temporal_server: DevServer,
) -> None:
    chat = AgentChat(TemporalAgent(queue[0], agent=PAYMENTS, task_queue=queue[1]))
    chat.send(f"send_money amount=42 to=T{uuid.uuid4().hex[:4]}")
    await until(chat, lambda: chat.status == "waiting")
    found_by = _BlinkingOnce(temporal_server.address, agent=PAYMENTS, task_queue=queue[1])
    sidebar = TemporalQuestions([found_by])
    [item] = await listed(sidebar, 1)
    failed = await sidebar.answer(ANN, str(item["id"]), "resolved", {"approved": True})
    assert not failed.ok
    assert "could not reach Temporal: the network blinked" in failed.error
    assert runs_in(runs) == []
    [again] = await listed(sidebar, 1)  # the workflow still waits: listed again, answerable
    done = await sidebar.answer(ANN, str(again["id"]), "resolved", {"approved": True})
    assert (done.ok, done.verdict) == (True, "approved"), done.error
    assert [r["amount"] for r in runs_in(runs)] == [42.0]


async def test_an_answer_whose_run_goes_on_long_is_told_taken_not_a_server_error(
    temporal_server: DevServer,
    runs: pathlib.Path,
    recorder: CommRecorder,
    tmp_path: pathlib.Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(HOLD_ENV, str(tmp_path))
    monkeypatch.setenv(SHARED_LEDGER_ENV, str(tmp_path / "calls.db"))
    monkeypatch.setattr(temporal_questions, "ANSWER_WAIT", 0.5)
    async with worker_on_fresh_queue(temporal_server, (FAULTY,)) as (client, task_queue):
        chat = AgentChat(TemporalAgent(client, agent=FAULTY, task_queue=task_queue))
        chat.send("send_money amount=42 to=Bob")
        await until(chat, lambda: chat.status == "waiting")
        sidebar = TemporalQuestions([TemporalAgent(client, agent=FAULTY, task_queue=task_queue)])
        [item] = await listed(sidebar, 1)
        (tmp_path / "mid").touch()  # the approved tool holds once it has written its run
        done = await sidebar.answer(ANN, str(item["id"]), "resolved", {"approved": True})
        assert (done.ok, done.verdict) == (True, "approved"), done.error
        assert len(runs_in(runs)) == 1  # it is running, on its worker
        (tmp_path / "mid").unlink()
        await ended(sidebar.agents[0], chat.thread.thread_id)
    assert len(runs_in(runs)) == 1


async def ended(agent: TemporalAgent, thread_id: str) -> None:
    """Return once the conversation's workflow runs nothing (it is looked at, as a person would)."""
    for _ in range(300):
        if not (await agent.conversation(thread_id)).running:
            return
        await asyncio.sleep(0.1)
    raise TimeoutError(f"the run of {thread_id} never ended")
