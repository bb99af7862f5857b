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

from temporalio.client import Client

from interrupt_widget import AgentChat
from interrupt_widget.identity import Identity
from interrupt_widget.lab.temporal_questions import TemporalQuestions
from interrupt_widget.temporal import TemporalAgent
from interrupt_widget.temporal.dev_server import DevServer
from interrupt_widget.testing import CommRecorder, until
from payment_agents import runs_in
from temporal_agents import PAYMENTS, worker_on_fresh_queue

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
