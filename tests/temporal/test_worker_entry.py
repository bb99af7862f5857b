"""Workers from Python and from the command line: `run_worker` serves until told to stop, and
the command refuses a target it cannot load or a server it cannot reach, saying which."""

from __future__ import annotations

import asyncio
import pathlib
import uuid

import pytest

pytest.importorskip("temporalio")

from interrupt_widget.__main__ import main
from interrupt_widget.asking.thread import ConversationThread
from interrupt_widget.free_port import free_port
from interrupt_widget.temporal import TemporalAgent, run_worker
from interrupt_widget.temporal.dev_server import DevServer
from payment_agents import RUNS_ENV, SEND, runs_in
from temporal_agents import PAYMENTS


async def test_run_worker_serves_until_stopped(
    temporal_server: DevServer, tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(RUNS_ENV, str(tmp_path / "runs.jsonl"))
    queue = f"q-{uuid.uuid4().hex[:8]}"
    stop = asyncio.Event()
    serving = asyncio.ensure_future(
        run_worker(PAYMENTS, temporal=temporal_server.address, task_queue=queue, stop=stop)
    )
    thread = ConversationThread(
        TemporalAgent(temporal_server.address, agent=PAYMENTS, task_queue=queue)
    )
    assert (await thread.start(thread.user_input(SEND))).kind == "interrupt"
    [asked] = thread.interrupts
    entry = {"interruptId": asked.id, "status": "resolved", "payload": {"approved": True}}
    assert (await thread.start(thread.resume_input([entry]))).kind == "success"
    assert len(runs_in(tmp_path / "runs.jsonl")) == 1
    stop.set()
    await asyncio.wait_for(serving, timeout=30)


def test_the_worker_command_names_a_target_it_cannot_load(
    temporal_server: DevServer, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["worker", "interrupt_widget.nowhere:agent", "--temporal",
                 temporal_server.address, "--task-queue", "q"])  # fmt: skip
    assert code == 2
    assert "cannot import 'interrupt_widget.nowhere'" in capsys.readouterr().err


def test_the_worker_command_says_when_the_server_cannot_be_reached(
    capsys: pytest.CaptureFixture[str],
) -> None:
    address = f"127.0.0.1:{free_port()}"
    assert main(["worker", PAYMENTS, "--temporal", address, "--task-queue", "q"]) == 2
    said = capsys.readouterr().err
    assert f"the Temporal server at {address} cannot be reached" in said


def test_the_web_ui_link_lists_the_conversations_runs_and_is_none_without_a_ui() -> None:
    agent = TemporalAgent("127.0.0.1:1", agent=PAYMENTS, task_queue="q", ui_url="http://h:8")
    assert agent.run_link('t "1"') == (
        "http://h:8/namespaces/default/workflows?query=WorkflowId%3D%22t%20%5C%221%5C%22%22"
    )
    assert TemporalAgent("127.0.0.1:1", agent=PAYMENTS, task_queue="q").run_link("t") is None
