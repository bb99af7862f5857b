"""`serve --workers N`: worker processes sharing one secret and one ledger, run for real.

The gated tool is the fault tier's bank transfer, which appends a line to a
file for every real run: the run count comes from that file.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import psutil
import pytest
from ag_ui.core import BaseEvent, RunErrorEvent, RunFinishedEvent, ToolCallResultEvent
from agents import set_tracing_disabled

from interrupt_widget.errors import WorkersRefused
from interrupt_widget.examples import meeting_agent
from interrupt_widget.free_port import free_port
from interrupt_widget.http import serve
from interrupt_widget.http.cli import main
from interrupt_widget.http.client import AGUIClient
from interrupt_widget.http.workers import shareable_ledger, worker_config
from interrupt_widget.ledger.memory import MemoryLedger
from interrupt_widget.ledger.opening import default_ledger_path

FAULTS = Path(__file__).parents[1] / "faults"
sys.path.insert(0, str(FAULTS))

from bank import RUNS_ENV, SERVED_ENV, runs, served_by  # noqa: E402
from steps import ask, paused, resume  # noqa: E402

set_tracing_disabled(True)

TOKEN = "workers-token"
WORKERS = 2
RESUMES = 50
MAX_WAVES = 10
AGENT = "interrupt_widget.examples:meeting_agent"


class Workers:
    def __init__(self, process: subprocess.Popen[str], url: str, log: list[str]) -> None:
        self.process = process
        self.url = url
        self.log = log


@pytest.fixture
def runs_file(tmp_path: Path) -> Path:
    return tmp_path / "runs.jsonl"


@pytest.fixture
def served_file(tmp_path: Path) -> Path:
    return tmp_path / "served.txt"


@pytest.fixture
def workers(tmp_path: Path, runs_file: Path, served_file: Path) -> Iterator[Workers]:
    secret = tmp_path / "secret"
    secret.write_text("a-secret-every-worker-shares-0123456789\n")
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k not in {"INTERRUPT_WIDGET_SECRET"}}
    env.update(
        INTERRUPT_WIDGET_MODEL="offline",
        OPENAI_AGENTS_DISABLE_TRACING="1",
        PYTHONPATH=os.pathsep.join([str(FAULTS), env.get("PYTHONPATH", "")]),
        **{RUNS_ENV: str(runs_file), SERVED_ENV: str(served_file)},
    )
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "interrupt_widget",
            "serve",
            "bank:agent",
            "--port",
            str(port),
            "--workers",
            str(WORKERS),
            "--token",
            TOKEN,
            "--secret-file",
            str(secret),
            "--ledger",
            str(tmp_path / "ledger.db"),
        ],
        env=env,
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        text=True,
    )
    assert process.stderr is not None
    log: list[str] = []
    ready = 0
    for line in process.stderr:  # every worker says when it is up
        log.append(line)
        ready += "Application startup complete" in line
        if ready == WORKERS:
            break
    else:
        process.wait()
        raise AssertionError("the workers did not start:\n" + "".join(log))
    try:
        yield Workers(process, f"http://127.0.0.1:{port}/", log)
    finally:
        process.terminate()
        process.wait(timeout=60)


async def _events(url: str, run_input: object) -> list[BaseEvent]:
    async with AGUIClient(url, token=TOKEN) as client:  # its own connection each time
        return [event async for event in client.run(run_input)]  # type: ignore[arg-type]


async def test_concurrent_resumes_across_workers_run_the_tool_once(
    workers: Workers, runs_file: Path, served_file: Path
) -> None:
    children = psutil.Process(workers.process.pid).children()
    pids = {c.pid for c in children if "spawn" in " ".join(c.cmdline())}
    assert len(pids) == WORKERS

    messages, interrupts = paused(await _events(workers.url, ask()))
    again = resume(messages, interrupts)
    before = len(served_by(served_file))  # the turn that asked
    results: set[str] = set()
    # The kernel picks the worker that accepts each connection: send waves of
    # concurrent resumes of the same approval until every worker has served some.
    for _ in range(MAX_WAVES):
        answers = await asyncio.gather(*(_events(workers.url, again) for _ in range(RESUMES)))
        for events in answers:
            assert isinstance(events[-1], RunFinishedEvent | RunErrorEvent)
            results |= {e.content for e in events if isinstance(e, ToolCallResultEvent)}
        if set(served_by(served_file)[before:]) == pids:
            break
    assert set(served_by(served_file)[before:]) == pids, "the resumes never reached every worker"

    assert len(runs(runs_file)) == 1
    assert runs(runs_file)[0]["to"] == "bob"
    assert results == {"Sent 5.00 to bob."}


def test_workers_without_a_shared_ledger_are_refused(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["serve", AGENT, "--workers", "2", "--ledger", "memory"]) == 2
    err = capsys.readouterr().err
    assert "could each run the same approved call" in err
    assert "Traceback" not in err


def test_workers_share_the_default_ledger_file(monkeypatch: pytest.MonkeyPatch) -> None:
    assert shareable_ledger(None) == os.environ["INTERRUPT_WIDGET_LEDGER"]
    monkeypatch.delenv("INTERRUPT_WIDGET_LEDGER")
    assert shareable_ledger(None) == str(default_ledger_path())
    monkeypatch.setenv("INTERRUPT_WIDGET_LEDGER", "memory")
    with pytest.raises(WorkersRefused, match="in memory"):
        shareable_ledger(None)


def test_workers_need_names_they_can_import_and_ledgers_they_can_open(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("INTERRUPT_WIDGET_MODEL", "offline")
    with pytest.raises(WorkersRefused, match=r"package\.module:attribute"):
        serve(meeting_agent(), workers=2, ledger=tmp_path / "ledger.db")
    with pytest.raises(WorkersRefused, match=r"lives in one process \(MemoryLedger\)"):
        serve(AGENT, workers=2, ledger=MemoryLedger())
    with pytest.raises(ValueError, match="at least 1"):
        serve(AGENT, workers=0)
    assert (
        shareable_ledger("postgresql://u@127.0.0.1:5432/db") == "postgresql://u@127.0.0.1:5432/db"
    )
    assert shareable_ledger("~/calls.db") == os.path.expanduser("~/calls.db")


def test_workers_carry_the_options_given_settled_and_leave_the_rest_to_asgi_app(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("INTERRUPT_WIDGET_MODEL", "offline")
    config = worker_config(
        AGENT,
        policy=None,
        secret=b"a-secret-every-worker-shares-0123456789",
        ledger=tmp_path / "ledger.db",
        expires_in=timedelta(minutes=5),
        cors_origins=("http://localhost:5173",),
        token=None,
    )
    assert config.options == {
        "secret": "a-secret-every-worker-shares-0123456789",
        "ledger": str(tmp_path / "ledger.db"),
        "expires_in": 300.0,
        "cors_origins": ["http://localhost:5173"],
    }  # no token, body limits or schemas given: asgi_app's defaults apply in each worker
    with pytest.raises(WorkersRefused, match="plain JSON data"):
        worker_config(
            AGENT,
            policy=None,
            ledger=tmp_path / "ledger.db",
            response_schemas={"schedule_meeting": {"enum": {1, 2}}},
        )
