"""Workers from Python and from the command line: `run_worker` serves until told to stop, and
the command refuses a target it cannot load or a server it cannot reach, saying which."""

from __future__ import annotations

import asyncio
import pathlib
import uuid

import pytest

pytest.importorskip("temporalio")

from interrupt_widget.__main__ import main
from interrupt_widget.temporal import TemporalAgent, run_worker
from interrupt_widget.temporal.dev_server import DevServer, free_port
from interrupt_widget.thread import ConversationThread
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
