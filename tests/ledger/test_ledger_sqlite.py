"""`SQLiteLedger`: an approved call runs once across replicas that share one file.

The replica tests run two real servers (two `asgi_app`s with the same secret
and ledger file) on 127.0.0.1 and send both the same resume at once; the
crash tests kill a real process between its claim and its result.
"""

from __future__ import annotations

import asyncio
import os
import pathlib
import subprocess
import sys
from contextlib import nullcontext
from typing import Any

import pytest
from ag_ui.core import (
    BaseEvent,
    MessagesSnapshotEvent,
    ResumeEntry,
    RunAgentInput,
    RunErrorEvent,
    RunFinishedEvent,
    RunFinishedInterruptOutcome,
    ToolCallResultEvent,
    UserMessage,
)
from agents import function_tool, set_tracing_disabled
from starlette.types import ASGIApp, Receive, Scope, Send

from interrupt_widget.errors import CallInDoubt, ErrorCode, LedgerUnavailable
from interrupt_widget.examples import ExampleAgent
from interrupt_widget.http.app import asgi_app
from interrupt_widget.http.cli import _parser, main
from interrupt_widget.http.client import AGUIClient
from interrupt_widget.http.serve import running_server
from interrupt_widget.ledger.memory import CallLedger, MemoryLedger
from interrupt_widget.ledger.sqlite import SQLiteLedger
from interrupt_widget.sdk.adapter import OpenAIAgentsAdapter
from interrupt_widget.sdk.offline_model import OfflineModel

set_tracing_disabled(True)

SECRET = "replicas-share-this-secret-value"
KEY = ("thread-1", "call-1")


class Calls:
    """An invoke that counts its runs and can be held mid-run."""

    def __init__(self, output: str = "done", *, hold: bool = False) -> None:
        self.output = output
        self.runs = 0
        self.started = asyncio.Event()
        self.release = asyncio.Event()
        if not hold:
            self.release.set()

    async def __call__(self) -> str:
        self.runs += 1
        self.started.set()
        await self.release.wait()
        return self.output


def test_both_ledgers_are_call_ledgers(tmp_path: pathlib.Path) -> None:
    ledgers: list[CallLedger] = [MemoryLedger(), SQLiteLedger(tmp_path / "calls.db")]
    assert all(callable(ledger.run_once) for ledger in ledgers)


async def test_a_second_replica_replays_the_recorded_output(tmp_path: pathlib.Path) -> None:
    first, second = SQLiteLedger(tmp_path / "calls.db"), SQLiteLedger(tmp_path / "calls.db")
    ran, must_not_run = Calls("sent"), Calls("ran twice")
    assert await first.run_once(KEY, ran) == "sent"
    assert await second.run_once(KEY, must_not_run) == "sent"
    assert await first.run_once(KEY, must_not_run) == "sent"
    assert (ran.runs, must_not_run.runs) == (1, 0)
    assert await second.run_once(("thread-2", "call-1"), must_not_run) == "ran twice"


async def test_a_call_in_flight_elsewhere_is_waited_for_not_run(tmp_path: pathlib.Path) -> None:
    owner = SQLiteLedger(tmp_path / "calls.db")
    impatient = SQLiteLedger(tmp_path / "calls.db", wait_timeout=0)
    patient = SQLiteLedger(tmp_path / "calls.db")
    slow, other = Calls("sent", hold=True), Calls("ran twice")
    running = asyncio.create_task(owner.run_once(KEY, slow))
    await slow.started.wait()  # claimed, and mid-run
    with pytest.raises(CallInDoubt, match="still running"):
        await impatient.run_once(KEY, other)
    waiting = asyncio.create_task(patient.run_once(KEY, other))
    slow.release.set()
    assert await running == "sent"
    assert await waiting == "sent"
    assert (slow.runs, other.runs) == (1, 0)


async def test_askers_in_one_process_share_one_claim(tmp_path: pathlib.Path) -> None:
    ledger = SQLiteLedger(tmp_path / "calls.db")
    slow = Calls("sent", hold=True)
    askers = [asyncio.create_task(ledger.run_once(KEY, slow)) for _ in range(5)]
    await slow.started.wait()
    slow.release.set()
    assert await asyncio.gather(*askers) == ["sent"] * 5
    assert slow.runs == 1


async def test_a_call_that_raises_gives_up_its_claim(tmp_path: pathlib.Path) -> None:
    first, second = SQLiteLedger(tmp_path / "calls.db"), SQLiteLedger(tmp_path / "calls.db")

    async def broken() -> str:
        raise ConnectionError("the mail server is down")

    with pytest.raises(ConnectionError, match="mail server"):
        await first.run_once(KEY, broken)
    retry = Calls("sent on retry")
    assert await second.run_once(KEY, retry) == "sent on retry"
    assert retry.runs == 1


async def test_a_cancelled_asker_does_not_stop_the_call(tmp_path: pathlib.Path) -> None:
    ledger = SQLiteLedger(tmp_path / "calls.db")
    slow = Calls("sent", hold=True)
    asker = asyncio.create_task(ledger.run_once(KEY, slow))
    await slow.started.wait()
    asker.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asker
    later = asyncio.create_task(SQLiteLedger(tmp_path / "calls.db").run_once(KEY, Calls("no")))
    slow.release.set()
    assert await later == "sent"  # the call finished and its output was recorded
    assert slow.runs == 1


async def test_a_removed_ledger_file_refuses_the_next_claim_and_runs_nothing(
    tmp_path: pathlib.Path,
) -> None:
    ledger = SQLiteLedger(tmp_path / "calls.db")
    assert await ledger.run_once(KEY, Calls("sent")) == "sent"  # its connection is kept
    _move_ledger_files(tmp_path, None)
    never = Calls("ran on a ledger that is gone")
    with pytest.raises(LedgerUnavailable, match="no such table"):
        await ledger.run_once(("thread-2", "call-1"), never)
    assert never.runs == 0


async def test_a_replaced_ledger_file_is_the_one_read(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "calls.db"
    ledger = SQLiteLedger(path)
    assert await ledger.run_once(KEY, Calls("sent")) == "sent"
    _move_ledger_files(tmp_path, "old-")
    replica = SQLiteLedger(path)  # a new file at the same path, with another record
    assert await replica.run_once(("thread-2", "call-1"), Calls("in the new file")) == (
        "in the new file"
    )
    found = await ledger.recorded(("thread-2", "call-1"))
    assert found is not None
    assert found.output == "in the new file"
    assert await ledger.recorded(KEY) is None


def _move_ledger_files(folder: pathlib.Path, prefix: str | None) -> None:
    """Remove the ledger's files (prefix None), or rename each with `prefix` before it."""
    for file in folder.glob("calls.db*"):
        if prefix is None:
            file.unlink()
        else:
            file.rename(folder / f"{prefix}{file.name}")


def test_a_forked_process_opens_its_own_connection(tmp_path: pathlib.Path) -> None:
    ledger = SQLiteLedger(tmp_path / "calls.db")
    ledger.record("thread-0", "call-0", "kept by the parent")  # this thread's connection
    child = os.fork()
    if child == 0:  # pragma: no cover - the child reports through its exit status
        try:
            ledger.record("thread-9", "call-9", "written by the child")
            os._exit(0)
        except BaseException:
            os._exit(1)
    _, status = os.waitpid(child, 0)
    assert os.waitstatus_to_exitcode(status) == 0
    found = asyncio.run(SQLiteLedger(tmp_path / "calls.db").recorded(("thread-9", "call-9")))
    assert found is not None
    assert found.output == "written by the child"
    ledger.record("thread-0", "call-1", "the parent's connection still works")


def _run_in_another_process(db: pathlib.Path, body: str) -> subprocess.CompletedProcess[str]:
    setup = (
        "import asyncio, os\n"
        "from interrupt_widget.ledger.sqlite import SQLiteLedger\n"
        f"ledger = SQLiteLedger({str(db)!r})\n"
    )
    code = setup + body
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )


async def test_a_result_recorded_by_another_process_is_replayed(tmp_path: pathlib.Path) -> None:
    db = tmp_path / "calls.db"
    body = (
        "async def invoke():\n"
        "    return 'sent by the other process'\n"
        f"print(asyncio.run(ledger.run_once({KEY!r}, invoke)))"
    )
    other = _run_in_another_process(db, body)
    assert other.returncode == 0, other.stderr
    here = Calls("ran twice")
    assert await SQLiteLedger(db).run_once(KEY, here) == "sent by the other process"
    assert here.runs == 0


async def test_a_replica_that_dies_mid_call_leaves_it_in_doubt_never_run_twice(
    tmp_path: pathlib.Path,
) -> None:
    db = tmp_path / "calls.db"
    body = (
        "async def invoke():\n"
        "    os._exit(3)  # dies after its claim, before any result\n"
        f"asyncio.run(ledger.run_once({KEY!r}, invoke))"
    )
    died = _run_in_another_process(db, body)
    assert died.returncode == 3, died.stderr
    ledger = SQLiteLedger(db)
    assert ledger.in_doubt() == [KEY]
    here = Calls("ran twice")
    with pytest.raises(CallInDoubt, match=r"ended before recording its result.*release"):
        await ledger.run_once(KEY, here)
    assert here.runs == 0
    # An operator checked the effect and found it done: resumes get that output.
    ledger.record(*KEY, "sent (checked by hand)")
    assert ledger.in_doubt() == []
    assert await ledger.run_once(KEY, here) == "sent (checked by hand)"
    assert here.runs == 0
    # Or found it not done: released, the next resume runs it.
    assert ledger.release(*KEY)
    assert await ledger.run_once(KEY, here) == "ran twice"
    assert here.runs == 1


def test_an_unusable_ledger_file_is_a_clear_error(tmp_path: pathlib.Path) -> None:
    with pytest.raises(ValueError, match=r"cannot use .* as a call ledger"):
        SQLiteLedger(tmp_path / "no-such-dir" / "calls.db")


def test_serve_takes_a_ledger_file_and_refuses_an_unusable_one(
    tmp_path: pathlib.Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = _parser().parse_args(["serve", "pkg.mod:agent", "--ledger", "calls.db"])
    assert args.ledger == "calls.db"
    unusable = str(tmp_path / "no-such-dir" / "calls.db")
    target = "interrupt_widget.examples:meeting_agent"
    assert main(["serve", target, "--port", "1", "--ledger", unusable]) == 2
    err = capsys.readouterr().err
    assert "as a call ledger" in err
    assert "Traceback" not in err


# -- two replicas over HTTP ------------------------------------------------------------------


class Arrivals:
    """Wraps an app; `both` is set once every replica has received its resume."""

    def __init__(self, app: ASGIApp, seen: list[int], both: asyncio.Event, expected: int) -> None:
        self.app, self.seen, self.both, self.expected = app, seen, both, expected

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] == "POST":
            self.seen.append(1)
            if len(self.seen) == self.expected:
                self.both.set()
        await self.app(scope, receive, send)


def billing_agent(executions: list[str], started: asyncio.Event, release: asyncio.Event) -> Any:
    @function_tool(needs_approval=True)
    async def send_invoice(customer: str) -> str:
        """Send an invoice to `customer` (slowly: it waits to be let go)."""
        started.set()
        await release.wait()
        executions.append(customer)
        return f"Invoice sent to {customer}."

    return ExampleAgent(name="billing", model=OfflineModel(), tools=[send_invoice])


async def run(client: AGUIClient, request: RunAgentInput) -> list[BaseEvent]:
    return [event async for event in client.run(request)]


@pytest.mark.parametrize("shared", [True, False], ids=["shared-ledger", "memory-ledgers"])
async def test_the_same_resume_sent_to_two_replicas_at_once(
    tmp_path: pathlib.Path, shared: bool
) -> None:
    executions: list[str] = []
    started, release, both = asyncio.Event(), asyncio.Event(), asyncio.Event()
    agent = billing_agent(executions, started, release)
    ledger = str(tmp_path / "calls.db") if shared else "memory"
    with pytest.warns(RuntimeWarning, match="in memory") if not shared else nullcontext():
        first_app = asgi_app(agent, secret=SECRET, ledger=ledger)
        second_app = asgi_app(agent, secret=SECRET, ledger=ledger)
    resumes: list[int] = []
    ask = RunAgentInput(
        thread_id="thread-billing",
        run_id="run-1",
        messages=[UserMessage(id="u1", content="Please send_invoice customer=ACME")],
    )
    async with (
        running_server(first_app) as first_url,
        running_server(Arrivals(second_app, resumes, both, 1)) as second_url,
    ):
        paused = await run(AGUIClient(first_url), ask)
        finished = paused[-1]
        assert isinstance(finished, RunFinishedEvent)
        assert isinstance(finished.outcome, RunFinishedInterruptOutcome)
        [interrupt] = finished.outcome.interrupts
        snapshot = next(e for e in reversed(paused) if isinstance(e, MessagesSnapshotEvent))
        resume = RunAgentInput(
            thread_id="thread-billing",
            run_id="run-2",
            messages=snapshot.messages,
            resume=[
                ResumeEntry(
                    interrupt_id=interrupt.id, status="resolved", payload={"approved": True}
                )
            ],
        )
        replicas = [
            asyncio.create_task(run(AGUIClient(first_url), resume)),
            asyncio.create_task(run(AGUIClient(second_url), resume)),
        ]
        await started.wait()  # one replica is running the tool...
        await both.wait()  # ...and the other has the same resume in hand
        release.set()
        streams = await asyncio.gather(*replicas)

    answered = streams if shared else streams[:1]
    for events in answered:
        assert not any(isinstance(e, RunErrorEvent) for e in events)
        [result] = [e for e in events if isinstance(e, ToolCallResultEvent)]
        assert result.content == "Invoice sent to ACME."  # each replica reports the one run
    if not shared:
        # The other replica's memory holds neither the paused run nor what ran: it runs
        # nothing and says why, where it once ran the call a second time.
        refused = streams[1][-1]
        assert isinstance(refused, RunErrorEvent)
        assert refused.code == ErrorCode.STATE_UNAVAILABLE
    assert executions == ["ACME"]


async def test_the_adapter_takes_a_ledger(tmp_path: pathlib.Path) -> None:
    ledger = SQLiteLedger(tmp_path / "calls.db")
    adapter = OpenAIAgentsAdapter(
        billing_agent([], asyncio.Event(), asyncio.Event()), ledger=ledger
    )
    assert adapter.ledger is ledger
    assert isinstance(OpenAIAgentsAdapter(adapter.agent).ledger, SQLiteLedger)  # the default


async def test_a_replica_that_gives_up_waiting_ends_in_run_error_and_runs_nothing(
    tmp_path: pathlib.Path,
) -> None:
    executions: list[str] = []
    started, release = asyncio.Event(), asyncio.Event()
    agent = billing_agent(executions, started, release)
    db = tmp_path / "calls.db"
    owner = OpenAIAgentsAdapter(agent, ledger=SQLiteLedger(db))
    impatient = OpenAIAgentsAdapter(agent, ledger=SQLiteLedger(db, wait_timeout=0))
    ask = RunAgentInput(
        thread_id="thread-billing",
        run_id="run-1",
        messages=[UserMessage(id="u1", content="Please send_invoice customer=ACME")],
    )
    paused = [e async for e in owner.run(ask)]
    finished = paused[-1]
    assert isinstance(finished, RunFinishedEvent)
    assert isinstance(finished.outcome, RunFinishedInterruptOutcome)
    snapshot = next(e for e in reversed(paused) if isinstance(e, MessagesSnapshotEvent))
    entry = ResumeEntry(
        interrupt_id=finished.outcome.interrupts[0].id,
        status="resolved",
        payload={"approved": True},
    )
    resume = RunAgentInput(
        thread_id="thread-billing", run_id="run-2", messages=snapshot.messages, resume=[entry]
    )

    async def collect(adapter: OpenAIAgentsAdapter) -> list[BaseEvent]:
        return [e async for e in adapter.run(resume)]

    running = asyncio.create_task(collect(owner))
    await started.wait()
    refused = await collect(impatient)
    release.set()
    done = await running
    error = refused[-1]
    assert isinstance(error, RunErrorEvent)
    assert error.code == "call_in_doubt"
    assert "is still running elsewhere" in error.message
    assert "not run again here" in error.message
    assert not any(isinstance(e, ToolCallResultEvent) for e in refused)
    assert [e.content for e in done if isinstance(e, ToolCallResultEvent)] == [
        "Invoice sent to ACME."
    ]
    assert executions == ["ACME"]
