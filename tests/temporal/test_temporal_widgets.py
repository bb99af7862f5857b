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

from interrupt_widget import AgentBatch, AgentChat, Inbox, OfflineModel, responders
from interrupt_widget.examples import meeting_agent
from interrupt_widget.temporal import TemporalAgent
from interrupt_widget.temporal.dev_server import DevServer
from interrupt_widget.testing import CommRecorder, batch_until, until
from payment_agents import SEND, runs_in
from temporal_agents import APPROVING, PAYMENTS, worker_on_fresh_queue

ROWS = [{"n": n} for n in range(6)]
PROMPT = "send_money amount={n} to=R{n}"
WEB_UI = "http://127.0.0.1:8233"


@pytest.fixture
async def queue(temporal_server: DevServer) -> AsyncIterator[tuple[Client, str]]:
    async with worker_on_fresh_queue(temporal_server, (PAYMENTS, APPROVING)) as served:
        yield served


async def test_a_chat_on_temporal_is_answered_in_its_picker_and_the_call_runs_once(
    queue: tuple[Client, str], runs: pathlib.Path, recorder: CommRecorder
) -> None:
    agent = TemporalAgent(queue[0], agent=PAYMENTS, task_queue=queue[1], ui_url=WEB_UI)
    chat = AgentChat(agent)
    handle = chat.send(SEND)
    await until(chat, lambda: chat.status == "waiting")
    # The card links to the conversation's runs; the link is the picker's, beside the
    # interrupts and never in one, so the answer below passes the checks of its question.
    link = agent.run_link(chat.thread.thread_id)
    assert str(link).startswith(f"{WEB_UI}/namespaces/default/workflows?")
    assert chat.picker.run_link == link
    sent = [m.data.get("state", {}) for m in recorder.of(chat.picker).messages]
    assert link in [state.get("run_link") for state in sent]
    assert all(link not in str(i) for i in chat.picker.interrupts)
    chat.picker.resolve({"approved": True})
    await handle
    assert runs_in(runs) == [{"tool": "send_money", "amount": 42.0, "to": "Bob"}]
    [decision] = chat.decisions
    assert (decision.tool, decision.verdict) == ("send_money", "approved")


def test_a_card_has_no_run_link_without_a_web_ui_or_off_temporal(recorder: CommRecorder) -> None:
    unlinked = TemporalAgent("127.0.0.1:1", agent=PAYMENTS, task_queue="q")
    AgentChat(unlinked)
    AgentChat(meeting_agent(OfflineModel()))
    opened = [c.messages[0].data["state"] for c in recorder.comms]
    pickers = [state for state in opened if state.get("kind") == "picker"]
    assert [state["run_link"] for state in pickers] == ["", ""]


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
    first = TemporalAgent(queue[0], agent=PAYMENTS, task_queue=queue[1], ui_url=WEB_UI)
    batch = AgentBatch(first, ROWS[:3], name=f"wait-{uuid.uuid4().hex[:6]}", prompt=PROMPT, key="n")
    batch.start()
    await batch_until(batch, lambda: len(batch.waiting()) == 3)
    assert {w.run_link for w in batch.waiting()} == {
        first.run_link(row.thread.thread_id) for row in batch.rows
    }
    # The kernel restarts: a new client finds the three through visibility.
    later = TemporalAgent(
        temporal_server.address, agent=PAYMENTS, task_queue=queue[1], ui_url=WEB_UI
    )
    found = await later.waiting(at_least=3)  # visibility follows the workflows by moments
    chats = [
        AgentChat.for_thread(later, c.thread_id, messages=c.messages, interrupts=c.interrupts)
        for c in found
    ]
    inbox = Inbox(*chats)
    assert len(inbox.waiting) == 3
    # Each row links to its conversation; the questions it asks again pass their checks.
    assert sorted(w.run_link for w in inbox.waiting) == sorted(
        later.run_link(c.thread_id) or "" for c in found
    )
    inbox.approve()
    for chat in chats:
        await until(chat, lambda chat=chat: chat.status == "done")
    assert len(runs_in(runs)) == 3
    batch.cancel()
