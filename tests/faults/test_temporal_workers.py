"""Exactly once on Temporal's terms: worker processes killed with SIGKILL before and inside an
approved call, one stopped with SIGTERM mid-call (within and past its graceful time: a call
cut off is in doubt, settled by a person, never run twice), the same answer sent twice, two clients
answering one call at once, and a kernel that asked and is gone. Every run is counted from the
file the tool writes.

The workers are `python -m interrupt_widget worker` processes on one shared SQLite ledger,
started once for the module and replaced when one is killed; activities heartbeat every third
of a second, so a dead worker's run is retried on another within about a second.
"""

from __future__ import annotations

import asyncio
import os
import pathlib
import signal
import subprocess
import sys
import textwrap
import time
import uuid
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("temporalio")

from ag_ui.core import Interrupt, ResumeEntry, RunAgentInput, RunErrorEvent, RunFinishedEvent

from interrupt_widget import AgentChat, Inbox
from interrupt_widget.asking.thread import ConversationThread
from interrupt_widget.errors import ErrorCode
from interrupt_widget.temporal import TemporalAgent
from interrupt_widget.temporal.cli import THREAD_GRACE
from interrupt_widget.temporal.dev_server import DevServer
from interrupt_widget.temporal.worker import SHUTDOWN_MARGIN
from interrupt_widget.testing import recording_comms, until
from payment_agents import RUNS_ENV, SEND, runs_in
from temporal_agents import FAULTY, HOLD_ENV, SHARED_LEDGER_ENV

TESTS = pathlib.Path(__file__).parents[1]
SOURCE = TESTS.parent / "src"
HEARTBEAT = 1.0
APPROVE = {"approved": True}


class Workers:
    """`count` worker processes on one queue, one ledger, one runs file and one hold folder."""

    def __init__(self, server: DevServer, folder: pathlib.Path, count: int) -> None:
        self.queue = f"faults-{uuid.uuid4().hex[:8]}"
        self.folder = folder
        self.runs = folder / "runs.jsonl"
        self.ledger = folder / "calls.db"
        self.hold = folder / "hold"
        self.hold.mkdir()
        self.server = server
        self.env = {
            **os.environ,
            "PYTHONPATH": os.pathsep.join([str(SOURCE), str(TESTS)]),
            RUNS_ENV: str(self.runs),
            HOLD_ENV: str(self.hold),
            SHARED_LEDGER_ENV: str(self.ledger),
            "OPENAI_API_KEY": "",
        }
        self.processes: dict[int, subprocess.Popen[bytes]] = {}
        self.logs: dict[int, pathlib.Path] = {}
        self.started = 0
        for _ in range(count):
            self.start_one()
        self.wait_ready()

    def start_one(self, graceful: float = 5.0) -> subprocess.Popen[bytes]:
        command = [
            sys.executable, "-m", "interrupt_widget", "worker", FAULTY,
            "--temporal", self.server.address, "--task-queue", self.queue,
            "--graceful-seconds", str(graceful), "--log-level", "warning",
        ]  # fmt: skip
        self.started += 1
        path = self.folder / f"worker-{self.started}.log"
        with path.open("ab") as log:
            process = subprocess.Popen(command, env=self.env, stdout=log, stderr=log)
        self.processes[process.pid] = process
        self.logs[process.pid] = path
        return process

    def wait_ready(self, timeout: float = 60.0) -> None:
        """Until every worker says it serves its queue."""
        deadline = time.monotonic() + timeout
        for pid, path in self.logs.items():
            while "serves" not in path.read_text(errors="replace"):
                assert self.processes[pid].poll() is None, path.read_text()
                assert time.monotonic() < deadline, f"worker {pid} did not start"
                time.sleep(0.05)

    def agent(self, **options: Any) -> TemporalAgent:
        return TemporalAgent(
            self.server.address, agent=FAULTY, task_queue=self.queue,
            heartbeat_seconds=HEARTBEAT, **options,
        )  # fmt: skip

    def gate(self, stage: str) -> None:
        (self.hold / f"{stage}.arrived").unlink(missing_ok=True)
        (self.hold / stage).touch()

    async def arrived(self, stage: str) -> int:
        """The pid of the worker held at `stage`."""
        marker = self.hold / f"{stage}.arrived"
        deadline = time.monotonic() + 30
        while not marker.exists() or not marker.read_text():
            assert time.monotonic() < deadline, f"no worker reached {stage}"
            await asyncio.sleep(0.05)
        return int(marker.read_text())

    def lose(self, pid: int) -> None:
        """SIGKILL the worker `pid`, with no replacement."""
        os.kill(pid, signal.SIGKILL)
        self.processes.pop(pid).wait()
        self.logs.pop(pid)

    def kill(self, pid: int, stage: str) -> None:
        """SIGKILL the worker `pid`, open the gate, and start a replacement."""
        self.lose(pid)
        (self.hold / stage).unlink()
        self.start_one()

    def stop(self) -> None:
        for process in self.processes.values():
            process.kill()
            process.wait()


@pytest.fixture(scope="module")
def workers(
    temporal_server: DevServer, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Workers]:
    pool = Workers(temporal_server, tmp_path_factory.mktemp("temporal-workers"), count=2)
    try:
        yield pool
    finally:
        pool.stop()


@pytest.fixture
def agent(workers: Workers) -> TemporalAgent:
    """The notebook's agent, given the workers' ledger so a call in doubt settles from a card."""
    return workers.agent(ledger=str(workers.ledger))


def new_runs(workers: Workers, since: int) -> list[dict[str, Any]]:
    return runs_in(workers.runs)[since:]


async def paused(agent: TemporalAgent) -> ConversationThread:
    thread = ConversationThread(agent, thread_id=f"t-{uuid.uuid4().hex[:8]}")
    outcome = await thread.start(thread.user_input(SEND))
    assert outcome.kind == "interrupt", outcome
    return thread


def approval(thread: ConversationThread, run_id: str) -> RunAgentInput:
    entries = [
        ResumeEntry(interrupt_id=i.id, status="resolved", payload=APPROVE)
        for i in thread.interrupts
    ]
    return RunAgentInput(
        thread_id=thread.thread_id, run_id=run_id, messages=thread.messages, tools=[],
        context=[], resume=entries,
    )  # fmt: skip


async def events(agent: TemporalAgent, input: RunAgentInput) -> list[Any]:
    return [event async for event in agent.run(input)]


async def approved_into_the_tool(workers: Workers, agent: TemporalAgent) -> tuple[int, AgentChat]:
    """A chat's call approved with the workers gated inside the tool; the runs before it."""
    since = len(runs_in(workers.runs))
    with recording_comms():
        chat = AgentChat(agent)
    chat.send(SEND)
    await until(chat, lambda: chat.status == "waiting")
    workers.gate("mid")
    assert chat.picker is not None
    chat.picker.resolve(APPROVE, by="user")
    return since, chat


async def test_a_worker_killed_after_the_approval_before_the_tool_runs_it_once_elsewhere(
    workers: Workers, agent: TemporalAgent
) -> None:
    since = len(runs_in(workers.runs))
    thread = await paused(agent)
    workers.gate("before")
    answering = asyncio.ensure_future(thread.start(thread.resume_input(
        [ResumeEntry(interrupt_id=i.id, status="resolved", payload=APPROVE)
         for i in thread.interrupts]
    )))  # fmt: skip
    held = await workers.arrived("before")
    assert new_runs(workers, since) == []  # approved, not yet run
    workers.kill(held, "before")
    outcome = await asyncio.wait_for(answering, timeout=30)
    assert outcome.kind == "success", outcome
    assert new_runs(workers, since) == [{"tool": "send_money", "amount": 42.0, "to": "Bob"}]


async def test_a_worker_killed_inside_the_tool_leaves_the_call_in_doubt_settled_from_the_card(
    workers: Workers, agent: TemporalAgent
) -> None:
    since, chat = await approved_into_the_tool(workers, agent)
    held = await workers.arrived("mid")
    workers.kill(held, "mid")
    await until(chat, lambda: bool(chat.picker.doubts), names=("status_line",), timeout=30)
    assert len(new_runs(workers, since)) == 1  # it ran, and its result was lost with the worker
    [interrupt] = chat.interrupts
    assert "may have run" in chat.picker.doubts[interrupt.id]
    chat.picker.settle(interrupt.id, ran=True, output="Sent 42.0 to Bob.", by="user")
    assert chat.last_run is not None
    result = await chat.last_run
    assert "Sent 42.0 to Bob." in result.text
    assert len(new_runs(workers, since)) == 1  # settled: never run again
    assert chat.decisions[-1].settled == "ran"


async def test_the_same_answer_twice_is_one_update_and_one_run(
    workers: Workers, agent: TemporalAgent
) -> None:
    since = len(runs_in(workers.runs))
    thread = await paused(agent)
    resume = approval(thread, run_id=f"run-{uuid.uuid4().hex[:8]}")
    a, b = await asyncio.gather(events(agent, resume), events(agent, resume))
    assert isinstance(a[-1], RunFinishedEvent)
    assert [e.type for e in a] == [e.type for e in b]
    assert len(new_runs(workers, since)) == 1


async def test_two_clients_answering_one_call_at_once_run_it_once_and_the_other_is_told(
    workers: Workers, agent: TemporalAgent
) -> None:
    since = len(runs_in(workers.runs))
    thread = await paused(agent)
    other = workers.agent()  # a second notebook: its own client
    a, b = await asyncio.gather(
        events(agent, approval(thread, "run-a")), events(other, approval(thread, "run-b"))
    )
    ends = {type(run[-1]) for run in (a, b)}
    assert ends == {RunFinishedEvent, RunErrorEvent}
    told = next(run[-1] for run in (a, b) if isinstance(run[-1], RunErrorEvent))
    assert told.code == ErrorCode.ANSWERED_ELSEWHERE
    assert "already answered" in told.message
    assert len(new_runs(workers, since)) == 1


KERNEL = textwrap.dedent(
    """
    import asyncio, sys
    from interrupt_widget.temporal import TemporalAgent
    from interrupt_widget.asking.thread import ConversationThread

    async def main() -> None:
        agent = TemporalAgent(sys.argv[1], agent=sys.argv[2], task_queue=sys.argv[3])
        for n in range(2):
            thread = ConversationThread(agent, thread_id=f"{sys.argv[4]}-{n}")
            outcome = await thread.start(thread.user_input("send_money amount=7 to=Kim"))
            assert outcome.kind == "interrupt", outcome
        print("asked")

    asyncio.run(main())
    """
)


async def test_after_a_kernel_restart_the_inbox_lists_the_open_approvals_again(
    workers: Workers, agent: TemporalAgent
) -> None:
    since = len(runs_in(workers.runs))
    tag = f"k-{uuid.uuid4().hex[:8]}"
    kernel = await asyncio.create_subprocess_exec(
        sys.executable, "-c", KERNEL, workers.server.address, FAULTY, workers.queue, tag,
        env=workers.env, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    said, complaint = await asyncio.wait_for(kernel.communicate(), timeout=60)
    assert said.decode().strip() == "asked", complaint.decode()
    found: list[Any] = []
    for _ in range(100):  # visibility follows the workflow's upsert within moments
        found = [c for c in await agent.waiting() if c.thread_id.startswith(tag)]
        if len(found) == 2:
            break
        await asyncio.sleep(0.05)
    assert sorted(c.thread_id for c in found) == [f"{tag}-0", f"{tag}-1"]
    with recording_comms():
        chats = [
            AgentChat.for_thread(agent, c.thread_id, messages=c.messages, interrupts=c.interrupts)
            for c in found
        ]
        inbox = Inbox(*chats)
    assert len(inbox.waiting) == 2
    inbox.approve(by="user")
    for chat in chats:
        await until(chat, lambda chat=chat: chat.status == "done", timeout=30)
    assert new_runs(workers, since) == [{"tool": "send_money", "amount": 7.0, "to": "Kim"}] * 2


async def test_sigterm_lets_a_running_call_finish_before_the_worker_exits(
    workers: Workers, agent: TemporalAgent
) -> None:
    since = len(runs_in(workers.runs))
    thread = await paused(agent)
    workers.gate("mid")
    answering = asyncio.ensure_future(events(agent, approval(thread, f"run-{uuid.uuid4().hex}")))
    held = await workers.arrived("mid")
    workers.processes[held].send_signal(signal.SIGTERM)
    await asyncio.sleep(0.3)
    assert workers.processes[held].poll() is None  # still finishing its call
    (workers.hold / "mid").unlink()
    done = await asyncio.wait_for(answering, timeout=30)
    assert isinstance(done[-1], RunFinishedEvent)
    assert workers.processes.pop(held).wait(timeout=10) == 0
    workers.logs.pop(held)
    workers.start_one()
    assert len(new_runs(workers, since)) == 1


async def test_a_worker_stopped_while_its_call_will_not_end_still_exits_on_time(
    workers: Workers, agent: TemporalAgent
) -> None:
    """A tool stuck in a thread past the graceful time used to keep a stopped worker alive for
    ever (Python joins the thread at exit): the worker now exits within its graceful time and
    a few seconds, saying so, and the run's retry elsewhere finds the call in doubt (never
    running it again)."""
    since = len(runs_in(workers.runs))
    thread = await paused(agent)
    workers.gate("mid")
    answering = asyncio.ensure_future(events(agent, approval(thread, f"run-{uuid.uuid4().hex}")))
    held = await workers.arrived("mid")  # inside the tool, in a thread that will not end
    began = time.monotonic()
    workers.processes[held].send_signal(signal.SIGTERM)
    code = await asyncio.to_thread(workers.processes.pop(held).wait, 60)
    took = time.monotonic() - began
    # graceful 5 s, then at most Temporal's shutdown margin and the threads' grace
    assert took < 5.0 + SHUTDOWN_MARGIN + THREAD_GRACE + 3.0, took
    assert code == 0
    assert "exiting without them" in workers.logs.pop(held).read_text()
    (workers.hold / "mid").unlink()
    done = await asyncio.wait_for(answering, timeout=30)
    assert isinstance(done[-1], RunErrorEvent), done[-1]
    assert done[-1].code == ErrorCode.CALL_IN_DOUBT
    assert len(new_runs(workers, since)) == 1
    workers.start_one()
    workers.wait_ready()


def cut_short(workers: Workers, pid: int, how: str) -> None:
    """Stop the worker `pid` mid-tool: SIGTERM, whose graceful time the tool outlasts (the
    activity is cancelled by the shutdown), or SIGKILL."""
    process = workers.processes[pid]
    if how == "sigterm":
        process.send_signal(signal.SIGTERM)
        return
    process.kill()
    process.wait()  # reaped, as a supervisor would: a zombie's pid still reads alive


async def replace(workers: Workers, pid: int, stage: str) -> None:
    """Once the worker `pid` has exited, let its stuck tool go and start another worker."""
    await asyncio.to_thread(workers.processes.pop(pid).wait, 60)
    workers.logs.pop(pid)
    (workers.hold / stage).unlink()
    workers.start_one()
    workers.wait_ready()


@pytest.mark.parametrize("ran", [True, False], ids=["settled-ran", "settled-not-run"])
@pytest.mark.parametrize("how", ["sigterm", "kill"])
async def test_a_worker_stopped_inside_the_tool_never_runs_it_twice_and_a_person_settles_it(
    workers: Workers, agent: TemporalAgent, how: str, ran: bool
) -> None:
    """The retry of a run whose worker stopped mid-tool (its shutdown cancelling the run past
    the graceful time, or a kill -9) finds the call in doubt within seconds and runs nothing;
    "it ran" records the given result and nothing runs again, "it did not run" runs it once."""
    since, chat = await approved_into_the_tool(workers, agent)
    held = await workers.arrived("mid")  # the tool wrote its run, and holds
    began = time.monotonic()
    cut_short(workers, held, how)
    await until(chat, lambda: bool(chat.picker.doubts), names=("status_line",), timeout=30)
    took = time.monotonic() - began
    # The run is cut off at the graceful time (5 s), or its heartbeat lapses (1 s); its retry
    # then finds the call in doubt at the first look (3-6 s on a quiet machine; the figure is
    # printed, and `until`'s 30 s bound is the test's: a timed bound fails on a loaded one).
    await replace(workers, held, "mid")  # first, so a failure below leaves the workers whole
    assert len(new_runs(workers, since)) == 1  # the cut-off run, and no other
    assert len(new_runs(workers, since)) == 1
    [interrupt] = chat.interrupts
    assert "may have run" in chat.picker.doubts[interrupt.id]
    output = "Sent 42.0 to Bob." if ran else None
    chat.picker.settle(interrupt.id, ran=ran, output=output, by="user")
    assert chat.last_run is not None
    result = await asyncio.wait_for(chat.last_run, timeout=30)
    assert "Sent 42.0 to Bob." in result.text
    assert len(new_runs(workers, since)) == (1 if ran else 2)
    assert chat.decisions[-1].settled == ("ran" if ran else "not_run")
    print(f"{how}: in doubt {took:.2f} s after the signal")  # the timing, seen with -s


NO_WORKER = "No worker has taken this run"


async def approved_with_no_worker(
    pool: Workers,
) -> tuple[TemporalAgent, AgentChat, Interrupt]:
    """A chat's question (returned) approved once the pool's only worker was killed (SIGKILL:
    its pollers stay listed on Temporal), and the chat saying that no worker takes the run."""
    agent = pool.agent(ledger=str(pool.ledger), worker_wait_seconds=2)
    with recording_comms():
        chat = AgentChat(agent)
    chat.send(SEND)
    await until(chat, lambda: chat.status == "waiting")
    [interrupt] = chat.interrupts
    [pid] = list(pool.processes)
    pool.lose(pid)
    assert chat.picker is not None
    chat.picker.resolve(APPROVE, by="user")
    await until(chat, lambda: NO_WORKER in chat.status_line, names=("status_line",))
    return agent, chat, interrupt


async def test_a_run_no_worker_takes_is_told_and_stop_ends_it_and_it_never_runs(
    temporal_server: DevServer, tmp_path: pathlib.Path
) -> None:
    """The queue's only worker is killed while a question waits (its pollers stay listed on
    Temporal for minutes): the approval's run waits for a worker. The chat says so within
    seconds, Stop ends the run at once, and a worker that comes later cancels it unstarted:
    the approved call never runs, and the question is open again."""
    pool = Workers(temporal_server, tmp_path, count=1)
    try:
        agent, chat, interrupt = await approved_with_no_worker(pool)
        assert chat.status == "running"
        assert repr(pool.queue) in chat.status_line
        stopped = time.monotonic()
        chat.stop()
        await until(chat, lambda: chat.status == "cancelled", timeout=15)
        print(f"no worker: stopped in {time.monotonic() - stopped:.1f} s")  # seen with -s
        again = "Stopped before the answers were taken: the question is open again."
        await until(chat, lambda: chat.status_line == again, names=("status_line",))
        assert chat.picker is not None
        assert [i.id for i in chat.picker.open_interrupts] == [interrupt.id]
        pool.start_one()
        pool.wait_ready()
        thread_id = chat._thread.thread_id

        async def settled() -> Any:
            while True:
                held = await agent.conversation(thread_id)
                if not held.running and held.interrupts:
                    return held
                await asyncio.sleep(0.1)

        held = await asyncio.wait_for(settled(), timeout=30)
        assert [i["id"] for i in held.interrupts] == [interrupt.id]
        assert runs_in(pool.runs) == []  # the stopped run was cancelled before it started
        chat.picker.resolve(APPROVE, by="user")  # answered anew, now that a worker is there
        await until(chat, lambda: chat.status == "done", timeout=60)
        assert runs_in(pool.runs) == [{"tool": "send_money", "amount": 42.0, "to": "Bob"}]
    finally:
        pool.stop()


async def test_a_run_told_no_worker_takes_it_goes_on_once_one_comes_and_runs_once(
    temporal_server: DevServer, tmp_path: pathlib.Path
) -> None:
    pool = Workers(temporal_server, tmp_path, count=1)
    try:
        _agent, chat, _interrupt = await approved_with_no_worker(pool)
        pool.start_one()
        await until(chat, lambda: chat.status == "done", timeout=60)
        assert NO_WORKER not in chat.status_line
        assert "Sent 42.0 to Bob." in chat.text
        assert runs_in(pool.runs) == [{"tool": "send_money", "amount": 42.0, "to": "Bob"}]
    finally:
        pool.stop()


async def test_a_run_stopped_after_its_only_worker_died_mid_tool_is_settled_once_one_returns(
    temporal_server: DevServer, tmp_path: pathlib.Path
) -> None:
    """The queue's only worker is killed inside the approved tool, and the person presses Stop
    while no worker is there: the chat ends the run saying the call may have run. When a worker
    comes back, the run's retry the server hands it must not go on with the stopped run: the
    person's "it ran" is taken, the run ends with the given result, and the tool ran once."""
    pool = Workers(temporal_server, tmp_path, count=1)
    try:
        agent = pool.agent(ledger=str(pool.ledger), worker_wait_seconds=2)
        since, chat = await approved_into_the_tool(pool, agent)
        pool.lose(await pool.arrived("mid"))
        (pool.hold / "mid").unlink()
        await until(chat, lambda: NO_WORKER in chat.status_line, names=("status_line",))
        chat.stop()
        await until(chat, lambda: chat.status == "cancelled", timeout=15)
        assert chat.picker is not None
        [interrupt] = chat.interrupts
        await until(chat, lambda: bool(chat.picker.doubts), names=("status_line",), timeout=15)
        assert "may have run" in chat.picker.doubts[interrupt.id]
        pool.start_one()
        pool.wait_ready()
        chat.picker.settle(interrupt.id, ran=True, output="Sent 42.0 to Bob.", by="user")
        await until(chat, lambda: chat.status == "done", names=("status_line",), timeout=60)
        assert "Sent 42.0 to Bob." in chat.text
        assert chat.decisions[-1].settled == "ran"
        assert len(new_runs(pool, since)) == 1  # the killed worker's run, and no other
    finally:
        pool.stop()
