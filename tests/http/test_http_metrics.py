"""`serve --metrics`: runs through a real server (uvicorn on 127.0.0.1), then `GET /metrics`
scraped and parsed as Prometheus reads it."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import httpx
import pytest
from ag_ui.core import (
    BaseEvent,
    MessagesSnapshotEvent,
    ResumeEntry,
    RunAgentInput,
    RunErrorEvent,
    RunFinishedEvent,
    UserMessage,
)
from agents import Agent
from prometheus_client.parser import text_string_to_metric_families

from audit_scenarios import send_invoice, wipe_disk
from interrupt_widget import OfflineModel, Policy, SQLiteLedger, deny
from interrupt_widget.errors import WorkersRefused
from interrupt_widget.http.app import asgi_app
from interrupt_widget.http.client import AGUIClient
from interrupt_widget.http.serve import running_server
from interrupt_widget.http.workers import worker_config
from serve_process import Served, write_agent_module

TOKEN = "metrics-token"
SECRET = "a-metrics-test-secret-of-enough-length"


def billing() -> Agent[Any]:
    return Agent(name="billing", model=OfflineModel(), tools=[send_invoice, wipe_disk])


Samples = dict[tuple[str, tuple[tuple[str, str], ...]], float]


async def get(url: str, token: str | None = TOKEN) -> httpx.Response:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with httpx.AsyncClient() as client:
        return await client.get(url + "metrics", headers=headers)


async def scrape(url: str) -> Samples:
    """GET /metrics, parsed as Prometheus parses it: value by (name, labels)."""
    response = await get(url)
    response.raise_for_status()
    assert response.headers["content-type"].startswith("text/plain")
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(response.text)
        for sample in family.samples
    }


def value(samples: Samples, name: str, **labels: str) -> float:
    return samples.get((f"interrupt_widget_{name}", tuple(sorted(labels.items()))), 0.0)


async def run(url: str, request: RunAgentInput) -> list[BaseEvent]:
    return [e async for e in AGUIClient(url, token=TOKEN).run(request)]


def answered(resume: RunAgentInput, thread_id: str, **entry: Any) -> RunAgentInput:
    [first] = resume.resume or []
    new = ResumeEntry(interrupt_id=first.interrupt_id, **entry)
    return resume.model_copy(update={"thread_id": thread_id, "resume": [new]})


async def _paused(url: str, thread_id: str, ask: str) -> RunAgentInput:
    request = RunAgentInput(
        thread_id=thread_id, run_id="r1", messages=[UserMessage(id="u1", content=ask)]
    )
    events = await run(url, request)
    finished = events[-1]
    assert isinstance(finished, RunFinishedEvent)
    snapshot = next(e for e in reversed(events) if isinstance(e, MessagesSnapshotEvent))
    [interrupt] = finished.outcome.interrupts  # type: ignore[union-attr]
    entry = ResumeEntry(interrupt_id=interrupt.id, status="resolved", payload={"approved": True})
    return RunAgentInput(
        thread_id=thread_id, run_id="r2", messages=snapshot.messages, resume=[entry]
    )


async def test_decisions_runs_and_waits_are_counted_from_real_runs(tmp_path: Path) -> None:
    ledger = SQLiteLedger(tmp_path / "calls.db")
    policy = Policy(deny("wipe_disk", reason="never wipe a disk"))
    app = asgi_app(
        billing(), token=TOKEN, secret=SECRET, ledger=ledger, policy=policy, metrics=True
    )
    async with running_server(app) as url:
        before = await scrape(url)
        assert value(before, "open_interrupts") == 0

        a = await _paused(url, "t-a", "Please send_invoice customer=ACME")
        b = await _paused(url, "t-b", "Please send_invoice customer=Globex")
        c = await _paused(url, "t-c", "Please send_invoice customer=Initech")
        asked = await scrape(url)
        assert value(asked, "open_interrupts") == 3
        assert value(asked, "interrupts_total", tool="send_invoice") == 3
        assert value(asked, "runs_total", outcome="interrupt") == 3

        approve_a = answered(
            a, "t-a", status="resolved", payload={"approved": True}, metadata={"by": "view:w1"}
        )
        await run(url, approve_a)
        await run(url, approve_a)  # the same resume again: replays, counted once
        await run(url, answered(b, "t-b", status="resolved", payload={"approved": False}))
        await run(url, answered(c, "t-c", status="cancelled", metadata={"by": "responder:x"}))
        # A call the policy settles in the run: a decision with no wait.
        wipe = RunAgentInput(
            thread_id="t-d",
            run_id="r1",
            messages=[UserMessage(id="u1", content="Please wipe_disk name=sda")],
        )
        await run(url, wipe)

        after = await scrape(url)
    assert value(after, "open_interrupts") == 0
    assert value(after, "decisions_total", verdict="approved", by="view") == 1
    assert value(after, "decisions_total", verdict="denied", by="client") == 1
    assert value(after, "decisions_total", verdict="cancelled", by="responder") == 1
    assert value(after, "decisions_total", verdict="denied", by="policy") == 1
    assert value(after, "tool_runs_total", tool="send_invoice") == 1
    assert value(after, "tool_runs_total", tool="wipe_disk") == 0
    assert value(after, "answer_seconds_count") == 3  # the policy's decision waited for nobody
    assert value(after, "answer_seconds_sum") > 0
    assert value(after, "runs_total", outcome="success") == 5
    assert value(after, "calls_in_doubt_total") == 0


@pytest.fixture
def dead_pid() -> int:
    """The pid of a process that has exited."""
    gone = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        check=True,
        capture_output=True,
        text=True,
    )
    return int(gone.stdout)


async def test_calls_in_doubt_and_ledger_errors_are_counted(tmp_path: Path, dead_pid: int) -> None:
    path = tmp_path / "calls.db"
    app = asgi_app(billing(), token=TOKEN, secret=SECRET, ledger=SQLiteLedger(path), metrics=True)
    async with running_server(app) as url:
        doubtful = await _paused(url, "t-doubt", "Please send_invoice customer=ACME")
        # A claim left by a process that died mid-call: the call is in doubt.
        [gated] = [
            call.id
            for message in doubtful.messages
            for call in (getattr(message, "tool_calls", None) or [])
        ]
        with sqlite3.connect(path) as db:
            db.execute(
                "INSERT INTO approved_calls (thread_id, call_id, state, owner, owner_host, "
                "owner_pid, claimed_at) VALUES ('t-doubt', ?, 'claimed', 'x', ?, ?, 0)",
                (gated, os.uname().nodename, dead_pid),
            )
        events = await run(url, doubtful)
        assert [e.code for e in events if isinstance(e, RunErrorEvent)] == ["call_in_doubt"]

        # The audit table gone from under the server: its notes fail, the calls still run once.
        with sqlite3.connect(path) as db:
            db.execute("DROP TABLE call_audit")
        later = await _paused(url, "t-later", "Please send_invoice customer=Hooli")
        assert not [e for e in await run(url, later) if isinstance(e, RunErrorEvent)]
        samples = await scrape(url)
    assert value(samples, "calls_in_doubt_total") == 1
    assert value(samples, "run_errors_total", code="call_in_doubt") == 1
    assert value(samples, "ledger_errors_total", kind="audit_note") >= 2  # asked, answered
    assert value(samples, "tool_runs_total", tool="send_invoice") == 1


async def test_metrics_need_the_token_and_are_off_unless_asked(tmp_path: Path) -> None:
    on = asgi_app(billing(), token=TOKEN, secret=SECRET, metrics=True)
    off = asgi_app(billing(), token=TOKEN, secret=SECRET)
    async with running_server(on) as url:
        assert (await get(url, token=None)).status_code == 401
        assert (await get(url, token="no")).status_code == 401
    async with running_server(off) as url:
        assert (await get(url)).status_code == 404


def test_metrics_with_workers_are_refused_saying_why() -> None:
    with pytest.raises(WorkersRefused, match="one server per port"):
        worker_config("interrupt_widget.examples:meeting_agent", policy=None, metrics=True)


async def test_serve_metrics_from_the_command_line(tmp_path: Path) -> None:
    target = write_agent_module(tmp_path)
    env = {
        **os.environ,
        "RUNS_FILE": str(tmp_path / "runs.txt"),
        "PYTHONPATH": os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")]),
        "INTERRUPT_WIDGET_SECRET": SECRET,
    }
    server = Served([target, "--metrics", "--token", TOKEN], env)
    try:
        server.wait_ready()
        resume = await _paused(server.url, "thread-billing", "Please send_invoice customer=ACME")
        await run(server.url, resume)
        samples = await scrape(server.url)
    finally:
        server.stop()
    assert value(samples, "tool_runs_total", tool="send_invoice") == 1
    assert value(samples, "decisions_total", verdict="approved", by="client") == 1
