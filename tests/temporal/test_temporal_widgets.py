"""The kit's widgets on a `TemporalAgent`, unchanged: a chat answered in its picker, a batch
answered by a responder and by a policy on the worker, and a new kernel's inbox built from the
conversations Temporal's visibility finds waiting. Runs are counted from the tool's file."""

from __future__ import annotations

import pathlib
import uuid
from collections.abc import AsyncIterator

import pytest

pytest.importorskip("temporalio")

from temporalio.client import Client

from interrupt_widget import AgentBatch, AgentChat, Inbox, responders
from interrupt_widget.temporal import TemporalAgent
from interrupt_widget.temporal.dev_server import DevServer
from interrupt_widget.testing import CommRecorder, batch_until, until
from payment_agents import SEND, runs_in
from temporal_agents import APPROVING, PAYMENTS, worker_on_fresh_queue

ROWS = [{"n": n} for n in range(6)]
PROMPT = "send_money amount={n} to=R{n}"


@pytest.fixture
async def queue(temporal_server: DevServer) -> AsyncIterator[tuple[Client, str]]:
    async with worker_on_fresh_queue(temporal_server, (PAYMENTS, APPROVING)) as served:
        yield served


async def test_a_chat_on_temporal_is_answered_in_its_picker_and_the_call_runs_once(
    queue: tuple[Client, str], runs: pathlib.Path, recorder: CommRecorder
) -> None:
    chat = AgentChat(TemporalAgent(queue[0], agent=PAYMENTS, task_queue=queue[1]))
    handle = chat.send(SEND)
    await until(chat, lambda: chat.status == "waiting")
    assert chat.picker is not None
    chat.picker.resolve({"approved": True})
    await handle
    assert runs_in(runs) == [{"tool": "send_money", "amount": 42.0, "to": "Bob"}]
    [decision] = chat.decisions
    assert (decision.tool, decision.verdict) == ("send_money", "approved")


async def test_a_batch_on_temporal_answered_by_a_responder_runs_each_row_once(
    queue: tuple[Client, str], runs: pathlib.Path, recorder: CommRecorder
) -> None:
    agent = TemporalAgent(queue[0], agent=PAYMENTS, task_queue=queue[1])
    tag = uuid.uuid4().hex[:6]
    batch = AgentBatch(
        agent, ROWS, name=f"pay-{tag}", prompt=PROMPT, key="n", concurrency=4,
        responder=responders.approve_all(),
    )  # fmt: skip
    results = await batch
    assert {r.status for r in results} == {"done"}, [r.error for r in results]
    assert sorted(r["to"] for r in runs_in(runs)) == sorted(f"R{n}" for n in range(6))


async def test_a_policy_on_the_worker_settles_a_batch_with_no_question(
    queue: tuple[Client, str], runs: pathlib.Path, recorder: CommRecorder
) -> None:
    agent = TemporalAgent(queue[0], agent=APPROVING, task_queue=queue[1])
    batch = AgentBatch(agent, ROWS, name=f"auto-{uuid.uuid4().hex[:6]}", prompt=PROMPT, key="n")
    results = await batch
    assert {r.status for r in results} == {"done"}
    assert len(runs_in(runs)) == len(ROWS)
    assert {d.by for d in batch.decisions} == {"policy:all"}


async def test_a_new_kernel_inbox_lists_the_waiting_conversations_and_answers_them(
    queue: tuple[Client, str],
    runs: pathlib.Path,
    recorder: CommRecorder,
    temporal_server: DevServer,
) -> None:
    first = TemporalAgent(queue[0], agent=PAYMENTS, task_queue=queue[1])
    batch = AgentBatch(first, ROWS[:3], name=f"wait-{uuid.uuid4().hex[:6]}", prompt=PROMPT, key="n")
    batch.start()
    await batch_until(batch, lambda: len(batch.waiting()) == 3)
    # The kernel restarts: a new client finds the three through visibility.
    later = TemporalAgent(temporal_server.address, agent=PAYMENTS, task_queue=queue[1])
    found = await later.waiting(at_least=3)  # visibility follows the workflows by moments
    chats = [
        AgentChat.for_thread(later, c.thread_id, messages=c.messages, interrupts=c.interrupts)
        for c in found
    ]
    inbox = Inbox(*chats)
    assert len(inbox.waiting) == 3
    inbox.approve()
    for chat in chats:
        await until(chat, lambda chat=chat: chat.status == "done")
    assert len(runs_in(runs)) == 3
    batch.cancel()
