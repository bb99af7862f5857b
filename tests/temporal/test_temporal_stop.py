"""Stop on a run that happens on a worker: the workflow asks the worker's run to end itself at
its next safe point, as Stop does in the kernel, within a second; an approved call already
running finishes first (it ran once, its result kept), and the conversation goes on."""

from __future__ import annotations

import asyncio
import pathlib
import time
import uuid
from typing import Any

import pytest

pytest.importorskip("temporalio")

from ag_ui.core import (
    BaseEvent,
    MessagesSnapshotEvent,
    ResumeEntry,
    RunAgentInput,
    RunFinishedCancelledOutcome,
    RunFinishedEvent,
    UserMessage,
)
from temporalio import activity
from temporalio.client import Client, WorkflowUpdateFailedError, WorkflowUpdateStage
from temporalio.exceptions import ApplicationError
from temporalio.service import RPCError

from interrupt_widget.agui.run_handle import RunHandle
from interrupt_widget.asking.thread import ConversationThread, RunOutcome
from interrupt_widget.errors import ErrorCode
from interrupt_widget.temporal import TemporalAgent, adapter_for, build_worker, segments
from interrupt_widget.temporal.dev_server import DevServer
from interrupt_widget.temporal.shapes import ANSWER_UPDATE, ResumeUpdate
from payment_agents import RUNS_ENV, SEND, runs_in
from temporal_agents import (
    FAULTY,
    HOLD_ENV,
    LINGER_STARTED,
    LINGERING,
    SHARED_LEDGER_ENV,
    worker_on_fresh_queue,
)


def worker_files(folder: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> pathlib.Path:
    """Point the in-process worker's runs file, hold gates and shared ledger into `folder`;
    the runs file, where the tool writes each real run."""
    runs = folder / "runs.jsonl"
    monkeypatch.setenv(RUNS_ENV, str(runs))
    monkeypatch.setenv(HOLD_ENV, str(folder))
    monkeypatch.setenv(SHARED_LEDGER_ENV, str(folder / "calls.db"))
    return runs


def faulty_thread(client: Client, queue: str) -> tuple[TemporalAgent, ConversationThread]:
    """The faulty agent on `queue`, heartbeating each second, and a new thread of it."""
    agent = TemporalAgent(client, agent=FAULTY, task_queue=queue, heartbeat_seconds=1)
    return agent, ConversationThread(agent, thread_id=f"t-{uuid.uuid4().hex[:8]}")


async def approve_all(thread: ConversationThread) -> RunOutcome:
    """Approve every open question of `thread`, and run on."""
    entries = [
        ResumeEntry(interrupt_id=i.id, status="resolved", payload={"approved": True})
        for i in thread.interrupts
    ]
    return await thread.start(thread.resume_input(entries))


def _until_exists(path: pathlib.Path) -> None:
    while not path.exists():
        time.sleep(0.02)


async def test_stop_mid_call_lets_the_call_finish_and_ends_the_run_cancelled(
    temporal_server: DevServer, tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runs = worker_files(tmp_path, monkeypatch)
    client = await Client.connect(temporal_server.address)
    queue = f"q-{uuid.uuid4().hex[:8]}"
    async with build_worker(client, {FAULTY: adapter_for(FAULTY)}, task_queue=queue):
        agent, thread = faulty_thread(client, queue)
        assert (await thread.start(thread.user_input(SEND))).kind == "interrupt"
        (tmp_path / "mid").touch()  # the tool holds once it has written its run
        entries = [
            ResumeEntry(interrupt_id=i.id, status="resolved", payload={"approved": True})
            for i in thread.interrupts
        ]
        running = thread.start(thread.resume_input(entries))
        await asyncio.to_thread(_until_exists, tmp_path / "mid.arrived")
        assert thread.stop()
        # A cancel reaches a worker in its next heartbeat's answer (one goes out every
        # `STOP_REACH` seconds): the call, still running, lets go once it has.
        await asyncio.to_thread(_until_exists, tmp_path / "mid.cancelled")
        (tmp_path / "mid").unlink()
        outcome = await asyncio.wait_for(running, timeout=30)
        assert outcome.kind == "cancelled"
        assert len(runs_in(runs)) == 1  # it finished, once
        held = await agent.conversation(thread.thread_id)
        assert held.interrupts == []
        assert not held.running
        assert any("Sent 42.0 to Bob." in str(m.get("content")) for m in held.messages)
        again = await thread.start(thread.user_input("reply with 3 words"))
        assert again.kind == "success"
        assert len(runs_in(runs)) == 1


async def _ending(handle: RunHandle) -> list[BaseEvent]:
    return [event async for event in handle]


async def _stopped_when_started(
    handle: RunHandle, started: pathlib.Path
) -> tuple[float, list[BaseEvent]]:
    """Stop `handle` once `started` exists: how long its events then took to end, and they."""
    reading = asyncio.ensure_future(_ending(handle))
    await asyncio.wait_for(asyncio.to_thread(_until_exists, started), timeout=30)
    began = time.monotonic()
    handle.stop()
    events = await asyncio.wait_for(reading, timeout=30)
    return time.monotonic() - began, events


async def test_stop_reaches_a_long_run_on_its_worker_without_waiting_for_its_heartbeat_timeout(
    temporal_server: DevServer, tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A run busy in a tool that takes a minute (asked for no approval) ends cancelled soon
    after Stop (a third of a second on an idle machine), with the ending the same run's Stop
    gives in the kernel; not after 0.8 of the heartbeat timeout (8 s), as it once did."""
    monkeypatch.setenv(HOLD_ENV, str(tmp_path))
    started = tmp_path / LINGER_STARTED
    _, in_kernel = await _stopped_when_started(adapter_for(LINGERING).run(_input()), started)
    started.unlink()
    async with worker_on_fresh_queue(temporal_server, (LINGERING,)) as (client, queue):
        # The default heartbeat timeout (10 s): Stop no longer waits for 0.8 of it.
        agent = TemporalAgent(client, agent=LINGERING, task_queue=queue)
        took, on_worker = await _stopped_when_started(agent.run(_input()), started)
    assert took < 3.0, took  # a few heartbeats under load; the old wait was 8 s
    for events in (in_kernel, on_worker):
        assert [type(e) for e in events[-2:]] == [MessagesSnapshotEvent, RunFinishedEvent]
        assert isinstance(events[-1].outcome, RunFinishedCancelledOutcome)
    print(f"stopped on a worker in {took:.2f} s")  # the timing, seen with -s


async def test_stop_while_the_worker_is_looked_for_sends_nothing_and_ends_the_run_cancelled(
    temporal_server: DevServer, tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Stop pressed before the run reached a workflow (its worker still starting) ends it
    cancelled, as the kernel does, and no worker ever runs it once one comes."""
    monkeypatch.setenv(HOLD_ENV, str(tmp_path))
    client = await Client.connect(temporal_server.address)
    queue = f"q-{uuid.uuid4().hex[:8]}"
    agent = TemporalAgent(client, agent=LINGERING, task_queue=queue, worker_wait_seconds=30)
    input = _input()
    handle = agent.run(input)
    reading = asyncio.ensure_future(_ending(handle))
    await asyncio.sleep(0)  # the run begins: it looks for a worker on a queue nobody polls
    handle.stop()
    async with build_worker(client, {LINGERING: adapter_for(LINGERING)}, task_queue=queue):
        events = await asyncio.wait_for(reading, timeout=30)
        assert isinstance(events[-1], RunFinishedEvent)
        assert isinstance(events[-1].outcome, RunFinishedCancelledOutcome)
        with pytest.raises(RPCError):  # no workflow was started for the thread
            await client.get_workflow_handle(input.thread_id).describe()
    assert not (tmp_path / LINGER_STARTED).exists()


async def test_stop_landing_after_the_run_paused_keeps_the_pause_and_its_question(
    temporal_server: DevServer, tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A Stop that reaches the worker after its run paused, while the activity still hands its
    result back, comes too late, as in the kernel: the question stays asked and answerable,
    and the approved call runs once."""
    runs = worker_files(tmp_path, monkeypatch)
    handing_back = tmp_path / "handing-back"
    seen = tmp_path / "cancel-seen"
    read_state = segments._paused_state

    async def slowly(*args: Any) -> Any:
        # The run has ended; the Stop lands while the result is on its way back.
        handing_back.touch()
        for _ in range(200):
            activity.heartbeat()  # a cancel reaches an activity in a heartbeat's answer
            if activity.is_cancelled():
                seen.touch()
                break
            await asyncio.sleep(0.05)
        return await read_state(*args)

    monkeypatch.setattr(segments, "_paused_state", slowly)
    async with worker_on_fresh_queue(temporal_server, (FAULTY,)) as (client, queue):
        agent, thread = faulty_thread(client, queue)
        asking = thread.start(thread.user_input(SEND))
        await asyncio.wait_for(asyncio.to_thread(_until_exists, handing_back), timeout=30)
        thread.stop()
        outcome = await asyncio.wait_for(asking, timeout=30)
        assert outcome.kind == "interrupt", outcome
        assert seen.exists()  # the Stop did reach the activity before it handed back
        held = await agent.conversation(thread.thread_id)
        assert [i["id"] for i in held.interrupts] == [i.id for i in thread.interrupts]
        monkeypatch.setattr(segments, "_paused_state", read_state)
        resumed = await approve_all(thread)
        assert resumed.kind == "success", resumed
    assert len(runs_in(runs)) == 1


async def test_a_bad_answer_sent_while_a_stopped_run_winds_down_is_checked_when_it_has(
    temporal_server: DevServer, tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An answer that comes while a stopped run winds down passes the update's validator
    unchecked (the run may yet put its questions back); the update checks it in full once the
    run has ended. A malformed one is then refused with the words a bad answer always gets,
    and nothing of it is taken: the question stays open, and the right answer runs the call
    once."""
    runs = worker_files(tmp_path, monkeypatch)
    paused, seen = tmp_path / "paused", tmp_path / "cancel-seen"
    release = tmp_path / "release"
    asked: list[str] = []
    read_state = segments._paused_state

    async def held(adapter: Any, input: Any, events: list[Any]) -> Any:
        # The run has paused; its result waits here until the test lets it go.
        asked.extend(str(i["id"]) for i in events[-1]["outcome"]["interrupts"])
        paused.touch()
        while not release.exists():
            activity.heartbeat()  # a cancel reaches an activity in a heartbeat's answer
            if activity.is_cancelled():
                seen.touch()
            await asyncio.sleep(0.05)
        return await read_state(adapter, input, events)

    monkeypatch.setattr(segments, "_paused_state", held)
    async with worker_on_fresh_queue(temporal_server, (FAULTY,)) as (client, queue):
        agent, thread = faulty_thread(client, queue)
        asking = thread.start(thread.user_input(SEND))
        await asyncio.wait_for(asyncio.to_thread(_until_exists, paused), timeout=30)
        assert thread.stop()
        await asyncio.wait_for(asyncio.to_thread(_until_exists, seen), timeout=30)
        bad = [{"interruptId": asked[0], "status": "resolved", "payload": {"approved": "yes"}}]
        workflow = client.get_workflow_handle(thread.thread_id)
        waiting = await workflow.start_update(  # accepted: the validator let it through
            ANSWER_UPDATE,
            ResumeUpdate(run_id="r-bad", entries=bad),
            id="answer-r-bad",
            wait_for_stage=WorkflowUpdateStage.ACCEPTED,
            result_type=list,
        )
        release.touch()
        with pytest.raises(WorkflowUpdateFailedError) as failed:
            await asyncio.wait_for(waiting.result(), timeout=30)
        cause = failed.value.cause
        assert isinstance(cause, ApplicationError)
        assert cause.type == ErrorCode.INVALID_PAYLOAD
        assert "approved" in cause.message
        outcome = await asyncio.wait_for(asking, timeout=30)
        assert outcome.kind == "interrupt", outcome
        held_now = await agent.conversation(thread.thread_id)
        assert [i["id"] for i in held_now.interrupts] == asked
        assert runs_in(runs) == []
        monkeypatch.setattr(segments, "_paused_state", read_state)
        resumed = await approve_all(thread)
        assert resumed.kind == "success", resumed
    assert len(runs_in(runs)) == 1


def _input() -> RunAgentInput:
    message = UserMessage(id=f"m-{uuid.uuid4().hex[:8]}", content="linger seconds=60")
    return RunAgentInput(
        thread_id=f"t-{uuid.uuid4().hex[:8]}", run_id=f"r-{uuid.uuid4().hex[:8]}", state={},
        messages=[message], tools=[], context=[], forwarded_props={},
    )  # fmt: skip
