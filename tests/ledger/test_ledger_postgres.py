"""`PostgresLedger` on a real PostgreSQL server: an approved call runs once across servers.

The server is Debian's PostgreSQL, started by `postgres_server.running_postgres` on
127.0.0.1 and a free port with its data in a temporary folder. The `serve` tests run
real `python -m interrupt_widget serve` processes on one database with one secret; the
tool appends a line to a file each time its body runs, and the runs are counted there.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from ag_ui.core import (
    RunErrorEvent,
    ToolCallResultEvent,
)

from interrupt_widget import AgentBatch, ErrorCode, OfflineModel, Policy, approve
from interrupt_widget.errors import CallInDoubt
from interrupt_widget.examples import bank_agent, meeting_agent
from interrupt_widget.examples.tool_runs import read_journal
from interrupt_widget.free_port import free_port
from interrupt_widget.http.app import asgi_app
from interrupt_widget.http.cli import main
from interrupt_widget.ledger.opening import open_ledger
from interrupt_widget.ledger.postgres import TABLE, PostgresLedger
from interrupt_widget.ledger.postgres_audit import AUDIT_TABLE
from postgres_server import binaries, fresh_database, running_postgres
from recorded_calls import KEY as RECORDED_KEY
from recorded_calls import check_when_and_who
from serve_process import (
    Served,
    events_of,
    paused_invoice,
    until_written,
    write_agent_module,
)

pytestmark = pytest.mark.skipif(
    binaries() is None, reason="PostgreSQL is not installed (scripts/ensure-postgresql)"
)

KEY = ("thread-1", "call-1")
SECRET = "one-secret-for-every-server-0123456789"
DEADLINE = 60.0


@pytest.fixture(scope="module")
def postgres() -> Iterator[str]:
    with running_postgres() as url:
        yield url


@pytest.fixture
def database(postgres: str) -> str:
    return fresh_database(postgres)


class Calls:
    """An invoke that counts its runs."""

    def __init__(self, output: str = "done") -> None:
        self.output = output
        self.runs = 0

    async def __call__(self) -> str:
        self.runs += 1
        await asyncio.sleep(0.05)  # long enough for the other askers to arrive meanwhile
        return self.output


# -- the ledger on its own -------------------------------------------------------------------


async def test_one_claim_among_ledgers_on_one_database_and_every_asker_gets_its_output(
    database: str,
) -> None:
    ledgers = [PostgresLedger(database) for _ in range(3)]
    calls = Calls("sent once")
    outputs = await asyncio.gather(
        *(ledgers[n % 3].run_once(KEY, calls, answer={"approved": True}) for n in range(12))
    )
    assert calls.runs == 1
    assert outputs == ["sent once"] * 12
    recorded = await PostgresLedger(database).recorded(KEY)
    assert recorded is not None
    assert (recorded.output, recorded.answer) == ("sent once", {"approved": True})


async def test_a_recorded_call_says_when_it_ran_and_who_answered(database: str) -> None:
    ledger = PostgresLedger(database)
    await check_when_and_who(ledger)
    # The notes are best effort; the record decides what runs, and must not need them.
    with psycopg.connect(database, autocommit=True) as db:
        db.execute(f"DROP TABLE {AUDIT_TABLE}")
    found = await ledger.recorded(RECORDED_KEY)
    assert found is not None
    assert (found.output, found.by) == ("sent", None)


async def test_a_call_that_raised_may_run_again_and_prune_goes_by_age(database: str) -> None:
    ledger = PostgresLedger(database)

    async def fails() -> str:
        raise RuntimeError("the mail server said no")

    with pytest.raises(RuntimeError, match="said no"):
        await ledger.run_once(KEY, fails)
    assert await ledger.recorded(KEY) is None
    assert await ledger.run_once(KEY, Calls("sent")) == "sent"
    assert ledger.prune(older_than=3600) == 0  # a second old: kept
    assert ledger.prune(older_than=0) == 1
    assert await ledger.recorded(KEY) is None


async def test_which_keys_nothing_holds_is_read_for_all_at_once(database: str) -> None:
    ledger = PostgresLedger(database)
    await ledger.run_once(KEY, Calls("sent"))
    slow = Calls("later")
    in_flight = asyncio.ensure_future(ledger.run_once(("thread-1", "call-2"), slow))
    await asyncio.sleep(0.01)  # claimed and running (the call sleeps 0.05 s)
    keys = [KEY, ("thread-1", "call-2"), ("thread-1", "call-3")]
    assert await ledger.unclaimed_each(keys) == [False, False, True]
    assert await in_flight == "later"


async def test_a_call_that_does_not_run_is_recorded_in_one_write_and_the_first_stands(
    database: str,
) -> None:
    ledger, other = PostgresLedger(database), PostgresLedger(database)
    assert await ledger.record_not_run(KEY, "denied by ann", answer={"approved": False}) is None
    first = await other.record_not_run(KEY, "cancelled by bob")  # another server, later
    assert first is not None
    assert (first.output, first.answer) == ("denied by ann", {"approved": False})
    with psycopg.connect(database) as db:
        row = db.execute(f"SELECT state, output FROM {TABLE} WHERE call_id = %s", (KEY[1],))
        assert row.fetchall() == [("done", "denied by ann")]  # never claimed, never in doubt
    assert await ledger.run_once(KEY, Calls("sent")) == "denied by ann"  # nothing runs


async def test_a_batch_run_again_on_postgres_finds_its_rows_ended_and_runs_nothing(
    database: str, tmp_path: Path
) -> None:
    journal = tmp_path / "transfers.jsonl"
    rows = [f"transfer_funds amount={n + 1} to_account=ACME-{n} memo=m{n}" for n in range(5)]

    def batch() -> AgentBatch:
        agent = bank_agent(OfflineModel(), journal=journal)
        policy = Policy(approve("transfer_funds"))
        return AgentBatch(agent, rows, name="pg-rows", policy=policy, ledger=database)

    assert {r.status for r in await batch()} == {"done"}
    again = await batch()  # every row's records read in one trip: all ended
    assert {r.status for r in again} == {"done"}
    assert sorted(r["memo"] for r in read_journal(journal)) == [f"m{n}" for n in range(5)]


def test_the_table_is_made_on_first_use(database: str) -> None:
    PostgresLedger(database)
    with psycopg.connect(database) as db:
        found = db.execute("SELECT to_regclass(%s)", (TABLE,)).fetchone()
    assert found == (TABLE,)


def test_an_unreachable_database_is_a_clear_error_at_start_up(
    capsys: pytest.CaptureFixture[str],
) -> None:
    closed = f"postgresql://agent:hunter2@127.0.0.1:{free_port()}/agents"
    with pytest.raises(ValueError, match=r"cannot use the PostgreSQL database 127\.0\.0\.1:\d+"):
        PostgresLedger(closed)
    with pytest.raises(ValueError, match="as a call ledger") as raised:
        asgi_app(meeting_agent(), ledger=closed)
    assert "hunter2" not in str(raised.value)
    target = "interrupt_widget.examples:meeting_agent"
    assert main(["serve", target, "--port", str(free_port()), "--ledger", closed]) == 2
    err = capsys.readouterr().err
    assert "cannot use the PostgreSQL database" in err
    assert "hunter2" not in err
    assert "Traceback" not in err


def test_a_url_selects_it_everywhere_a_ledger_is_taken(database: str) -> None:
    assert isinstance(open_ledger(database), PostgresLedger)
    assert open_ledger(database) is open_ledger(database)  # one per process


async def test_a_process_killed_mid_call_leaves_it_in_doubt_never_run_twice(
    database: str, tmp_path: Path
) -> None:
    started = tmp_path / "started"
    body = textwrap.dedent(
        f"""
        import asyncio, os, pathlib
        from interrupt_widget.ledger.postgres import PostgresLedger
        ledger = PostgresLedger({database!r})
        async def invoke():
            pathlib.Path({str(started)!r}).write_text("claimed")
            os.kill(os.getpid(), 9)
        asyncio.run(ledger.run_once({KEY!r}, invoke))
        """
    )
    died = await asyncio.to_thread(
        subprocess.run, [sys.executable, "-c", body], capture_output=True, timeout=DEADLINE
    )
    assert died.returncode == -9, died.stderr
    assert started.exists()
    ledger = PostgresLedger(database)
    here = Calls("ran twice")
    with pytest.raises(CallInDoubt, match=r"may have run.*release") as raised:
        await _within(ledger.run_once(KEY, here))
    assert "postgresql://" not in str(raised.value)
    assert here.runs == 0
    assert ledger.in_doubt() == [KEY]
    ledger.record(*KEY, "sent (checked by hand)")
    assert await ledger.run_once(KEY, here) == "sent (checked by hand)"
    assert ledger.release(*KEY)
    assert await ledger.run_once(KEY, here) == "ran twice"
    assert here.runs == 1


# -- several serve processes on one database -------------------------------------------------


@pytest.fixture
def servers(database: str, tmp_path: Path) -> Iterator[Any]:
    target = write_agent_module(tmp_path)
    secret = tmp_path / "secret"
    secret.write_text(SECRET + "\n")
    runs = tmp_path / "runs.txt"
    runs.touch()
    started: list[Served] = []

    def start(count: int, *, gate: Path | None = None) -> list[Served]:
        env = {k: v for k, v in os.environ.items() if k != "OPENAI_API_KEY"}
        env.update(
            PYTHONPATH=os.pathsep.join([str(tmp_path), env.get("PYTHONPATH", "")]),
            RUNS_FILE=str(runs),
            OPENAI_AGENTS_DISABLE_TRACING="1",
        )
        if gate is not None:
            env["GATE_FILE"] = str(gate)
        args = [target, "--secret-file", str(secret), "--ledger", database]
        group = [Served(args, env) for _ in range(count)]
        started.extend(group)
        for server in group:
            server.wait_ready()
        return group

    start.runs = runs  # type: ignore[attr-defined]
    try:
        yield start
    finally:
        for server in started:
            server.stop()


def _runs(servers: Any) -> list[str]:
    path: Path = servers.runs
    return path.read_text().splitlines()


async def test_fifty_resumes_of_one_approval_across_three_servers_run_it_once(
    servers: Any,
) -> None:
    group = servers(3)
    resume = await paused_invoice(group[0].url)
    streams = await _within(
        asyncio.gather(*(events_of(group[n % 3].url, resume) for n in range(50)))
    )
    assert len(_runs(servers)) == 1
    errors = [(e.code, e.message) for s in streams for e in s if isinstance(e, RunErrorEvent)]
    assert errors == []
    for events in streams:
        [result] = [e for e in events if isinstance(e, ToolCallResultEvent)]
        assert result.content == "Invoice sent to ACME."


async def test_a_server_killed_mid_tool_and_the_resume_replayed_on_another_is_in_doubt(
    servers: Any, tmp_path: Path
) -> None:
    gate = tmp_path / "gate"  # never opened: the first server is killed mid-tool
    first, second = servers(2, gate=gate)
    resume = await paused_invoice(first.url)
    held = asyncio.create_task(events_of(first.url, resume))
    await _within(until_written(lambda: len(_runs(servers)) == 1))  # the tool body has begun
    first.process.kill()
    first.process.wait(timeout=30)
    with pytest.raises(Exception):  # noqa: B017, PT011 - the connection dies with the server
        await held
    events = await _within(events_of(second.url, resume))
    error = events[-1]
    assert isinstance(error, RunErrorEvent)
    assert error.code == ErrorCode.CALL_IN_DOUBT
    assert "may have run" in error.message
    assert "release" in error.message
    assert str(tmp_path) not in error.message
    assert "postgresql://" not in error.message
    assert not any(isinstance(e, ToolCallResultEvent) for e in events)
    gate.touch()  # even with the gate open, nothing runs the call again
    again = await _within(events_of(second.url, resume))
    assert isinstance(again[-1], RunErrorEvent)
    assert again[-1].code == ErrorCode.CALL_IN_DOUBT
    assert len(_runs(servers)) == 1


async def _within(work: Any) -> Any:
    return await asyncio.wait_for(work, DEADLINE)
