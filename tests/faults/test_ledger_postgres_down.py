"""The PostgreSQL ledger's database fails under the kit: nothing runs twice, nothing unrecorded.

A real PostgreSQL server (Debian's, `postgres_server.PostgresServer`) is stopped
and started by the tests, with a fast shutdown (clients cut, clean checkpoint) and
an immediate one (no checkpoint, crash recovery at the next start), in the middle
of concurrent resumes sent to a real `serve` process; a claim's connection is cut
between the claim and the result (`pg_terminate_backend` from a second
connection, called by the tool itself at that moment). The tool's real runs are
counted from the file it writes, the ledger's record read from its table.
"""

from __future__ import annotations

import asyncio
import pathlib
from collections.abc import Iterator
from typing import Any

import httpx
import psycopg
import pytest
from ag_ui.core import BaseEvent, RunAgentInput, RunFinishedEvent, ToolCallResultEvent
from bank import HOLD_ENV, bank_agent, runs
from served import Served, server_env
from steps import ask, error_of, events_of, paused, resume

from interrupt_widget import CallInDoubt, ErrorCode, LedgerUnavailable, PostgresLedger
from interrupt_widget.http.client import AGUIClient
from interrupt_widget.ledger.postgres import TABLE
from interrupt_widget.sdk.adapter import OpenAIAgentsAdapter
from postgres_server import PostgresServer, binaries, fresh_database
from serve_process import until_written

pytestmark = pytest.mark.skipif(
    binaries() is None, reason="PostgreSQL is not installed (scripts/ensure-postgresql)"
)

SECRET = "a-fault-test-secret-long-enough"
KEY = ("thread-1", "call-1")
WAVE = 6
"""Concurrent resumes per wave (each its own thread and payee)."""


@pytest.fixture(scope="module")
def server() -> Iterator[PostgresServer]:
    found = PostgresServer()
    found.start()
    try:
        yield found
    finally:
        found.remove()


@pytest.fixture
def database(server: PostgresServer) -> Iterator[str]:
    url = fresh_database(server.url)
    try:
        yield url
    finally:
        server.start_if_stopped()  # a test that failed midway leaves it up for the next


def cut_claims(url: str) -> int:
    """Terminate, from a second connection, every backend holding an advisory lock in the
    database at `url`: the ledger's claim connections. How many were cut."""
    with psycopg.connect(url, autocommit=True) as db:
        rows = db.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' "
            "AND granted AND pid <> pg_backend_pid() "
            "AND database = (SELECT oid FROM pg_database WHERE datname = current_database())"
        ).fetchall()
    return len(rows)


def states(url: str) -> dict[str, str]:
    """The ledger's row state per thread id."""
    with psycopg.connect(url) as db:
        rows = db.execute(f"SELECT thread_id, state FROM {TABLE}").fetchall()
    return {thread_id: state for thread_id, state in rows}


def results(events: list[BaseEvent]) -> list[str]:
    return [e.content for e in events if isinstance(e, ToolCallResultEvent)]


# -- a connection cut between claim and result, in process --------------------------------------


async def test_a_claim_connection_cut_mid_tool_still_records_the_result_once(
    database: str, runs_file: pathlib.Path
) -> None:
    cuts: list[int] = []
    agent = bank_agent(runs_file, fault=lambda: cuts.append(cut_claims(database)))
    adapter = OpenAIAgentsAdapter(agent, ledger=PostgresLedger(database))
    messages, interrupts = paused(await events_of(adapter, ask()))
    request = resume(messages, interrupts)

    events = await events_of(adapter, request)

    assert cuts == [1]  # the claim's connection, cut while the tool ran
    assert isinstance(events[-1], RunFinishedEvent)
    assert results(events) == ["Sent 5.00 to bob."]
    assert states(database) == {"thread-1": "done"}  # written again on a new connection
    # Another server on the same database replays it.
    other = OpenAIAgentsAdapter(bank_agent(runs_file), ledger=PostgresLedger(database))
    assert results(await events_of(other, request)) == ["Sent 5.00 to bob."]
    assert len(runs(runs_file)) == 1


async def test_a_database_that_stops_mid_tool_leaves_the_call_in_doubt_never_run_again(
    server: PostgresServer, database: str, runs_file: pathlib.Path
) -> None:
    agent = bank_agent(runs_file, fault=lambda: server.stop("immediate"))
    ledger = PostgresLedger(database, reconnect_timeout=1.0)
    adapter = OpenAIAgentsAdapter(agent, ledger=ledger)
    messages, interrupts = paused(await events_of(adapter, ask()))
    request = resume(messages, interrupts)

    error = error_of(await events_of(adapter, request))
    assert error.code == ErrorCode.LEDGER_UNAVAILABLE
    assert "ran, but its result could not be recorded" in error.message
    assert "in doubt" in error.message
    assert "127.0.0.1" not in error.message  # no host for clients
    assert len(runs(runs_file)) == 1

    server.start()
    assert states(database) == {"thread-1": "claimed"}  # the claim survived the crash
    # The same server, and another one, both refuse to run it again.
    again = error_of(await events_of(adapter, request))
    assert again.code == ErrorCode.CALL_IN_DOUBT
    other = OpenAIAgentsAdapter(bank_agent(runs_file), ledger=PostgresLedger(database))
    assert error_of(await events_of(other, request)).code == ErrorCode.CALL_IN_DOUBT
    assert len(runs(runs_file)) == 1

    # The operator checked: it ran. The next resume gets the output recorded by hand.
    [(thread_id, call_id)] = ledger.in_doubt()
    ledger.record(thread_id, call_id, "Sent 5.00 to bob (checked by hand).")
    assert results(await events_of(other, request)) == ["Sent 5.00 to bob (checked by hand)."]
    assert len(runs(runs_file)) == 1


async def test_a_call_that_raises_after_a_cut_drops_its_claim_on_a_new_connection(
    database: str,
) -> None:
    ledger = PostgresLedger(database)
    ran: list[str] = []

    async def failing() -> str:
        ran.append("failing")
        await asyncio.to_thread(cut_claims, database)
        raise RuntimeError("the bank said no")

    async def working() -> str:
        ran.append("working")
        return "sent"

    with pytest.raises(RuntimeError, match="the bank said no"):
        await ledger.run_once(KEY, failing)
    assert states(database) == {}  # the claim was dropped: a raised call may be tried again
    assert await ledger.run_once(KEY, working) == "sent"
    assert ran == ["failing", "working"]


async def test_a_call_that_raises_while_the_database_is_down_stays_in_doubt(
    server: PostgresServer, database: str
) -> None:
    ledger = PostgresLedger(database, reconnect_timeout=0.5)
    ran: list[str] = []

    async def failing() -> str:
        ran.append("failing")
        await asyncio.to_thread(server.stop, "fast")
        raise RuntimeError("the bank said no")

    async def working() -> str:
        ran.append("working")
        return "sent"

    with pytest.raises(LedgerUnavailable) as raised:
        await ledger.run_once(KEY, failing)
    assert raised.value.in_doubt
    assert raised.value.key == KEY
    assert "the bank said no" in str(raised.value)
    server.start()
    with pytest.raises(CallInDoubt):  # it may have done something before it raised
        await ledger.run_once(KEY, working)
    with pytest.raises(CallInDoubt):
        await PostgresLedger(database).run_once(KEY, working)
    assert ran == ["failing"]


async def test_a_claim_while_the_database_is_down_runs_nothing(
    server: PostgresServer, database: str
) -> None:
    ledger = PostgresLedger(database, reconnect_timeout=0.3)
    ran: list[str] = []

    async def working() -> str:
        ran.append("working")
        return "sent"

    server.stop("fast")
    with pytest.raises(LedgerUnavailable) as raised:
        await ledger.run_once(KEY, working)
    assert not raised.value.in_doubt
    assert "was not run" in str(raised.value)
    with pytest.raises(LedgerUnavailable):
        await ledger.check()
    server.start()
    await ledger.check()
    assert await ledger.run_once(KEY, working) == "sent"  # the same ledger, reconnected
    assert ran == ["working"]


async def test_a_claim_whose_answer_was_lost_is_taken_back_by_its_own_ledger_only(
    database: str,
) -> None:
    ledger = PostgresLedger(database)
    ran: list[str] = []

    async def working() -> str:
        ran.append("working")
        return "sent"

    # What a claim's insert leaves when it commits and the connection breaks before the
    # answer arrives: this ledger's row, no lock on it, and no run started.
    with psycopg.connect(database, autocommit=True) as db:
        db.execute(
            f"INSERT INTO {TABLE} (thread_id, call_id, state, owner) "
            "VALUES (%s, %s, 'claimed', %s)",
            (*KEY, ledger._owner),
        )
    with pytest.raises(CallInDoubt):  # another server cannot know that nothing ran
        await PostgresLedger(database).run_once(KEY, working)
    assert await ledger.run_once(KEY, working) == "sent"  # its own ledger knows
    assert ran == ["working"]
    assert states(database) == {"thread-1": "done"}


# -- a served agent while its database restarts ---------------------------------------------------


def start_serve(tmp_path: pathlib.Path, runs_file: pathlib.Path, url: str, **extra: str) -> Served:
    secret = tmp_path / "secret"
    secret.write_text(SECRET)
    env = server_env(runs_file, **extra)
    env.pop("INTERRUPT_WIDGET_LEDGER", None)
    return Served(["--secret-file", str(secret), "--ledger", url], env).wait_ready()


async def served_events(url: str, request: RunAgentInput) -> list[BaseEvent]:
    return [e async for e in AGUIClient(url).run(request)]


async def paused_transfers(url: str, first: int, count: int) -> list[RunAgentInput]:
    """`count` paused transfers on their own threads (payee-N, thread-N); their resumes."""

    async def one(n: int) -> RunAgentInput:
        thread = f"thread-{n}"
        asked = ask(f"transfer_funds amount=5 to=payee{n}", thread_id=thread)
        messages, interrupts = paused(await served_events(url, asked))
        return resume(messages, interrupts, thread_id=thread)

    return list(await asyncio.gather(*(one(n) for n in range(first, first + count))))


async def health(url: str) -> tuple[int, dict[str, Any]]:
    async with httpx.AsyncClient() as http:
        response = await http.get(url + "health")
    return response.status_code, response.json()


def payees(runs_file: pathlib.Path) -> list[str]:
    return sorted(str(run["to"]) for run in runs(runs_file))


@pytest.mark.parametrize("mode", ["fast", "immediate"])
async def test_serve_rides_out_a_database_restart_under_concurrent_resumes(
    server: PostgresServer,
    database: str,
    tmp_path: pathlib.Path,
    runs_file: pathlib.Path,
    mode: str,
) -> None:
    hold = tmp_path / "hold"
    hold.write_text("the tools wait while this file exists")
    served = start_serve(tmp_path, runs_file, database, **{HOLD_ENV: str(hold)})
    try:
        requests = await paused_transfers(served.url, 0, 2 * WAVE)
        # Wave one claims its calls and holds in the tool; the database goes down under it.
        first = [asyncio.create_task(served_events(served.url, r)) for r in requests[:WAVE]]
        await until_written(lambda: len(runs(runs_file)) == WAVE)
        server.stop(mode)
        assert (await health(served.url))[0] == 503
        # Wave two arrives while it is down, and waits for it to come back.
        second = [asyncio.create_task(served_events(served.url, r)) for r in requests[WAVE:]]
        server.start()
        hold.unlink()  # wave one's tools return; their results are written on new connections
        outcomes = await asyncio.gather(*first, *second)
        assert (await health(served.url)) == (200, {"status": "ok", "ledger": "reachable"})

        for events in outcomes:
            assert isinstance(events[-1], RunFinishedEvent), events[-1]
            assert len(results(events)) == 1
        assert payees(runs_file) == sorted(f"payee{n}" for n in range(2 * WAVE))
        assert set(states(database).values()) == {"done"}  # every run recorded
        # The same resumes again replay every result and run nothing.
        replays = await asyncio.gather(*(served_events(served.url, r) for r in requests))
        assert [results(r) for r in replays] == [results(o) for o in outcomes]
        assert len(runs(runs_file)) == 2 * WAVE
    finally:
        served.stop()


async def test_serve_refuses_runs_while_its_database_is_down_and_resumes_them_after(
    server: PostgresServer, database: str, tmp_path: pathlib.Path, runs_file: pathlib.Path
) -> None:
    served = start_serve(tmp_path, runs_file, database)
    try:
        requests = await paused_transfers(served.url, 0, WAVE)
        server.stop("immediate")
        status, body = await health(served.url)
        assert status == 503
        assert body["ledger"] == "unreachable"
        refused = await asyncio.gather(*(served_events(served.url, r) for r in requests))
        for events in refused:  # after the ledger's retries ran out (10 s by default)
            error = error_of(events)
            assert error.code == ErrorCode.LEDGER_UNAVAILABLE
            assert "nothing was run" in error.message or "was not run" in error.message
            assert not results(events)
        assert runs(runs_file) == []

        server.start()  # the same serve process, never restarted
        assert (await health(served.url))[0] == 200
        ran = await asyncio.gather(*(served_events(served.url, r) for r in requests))
        assert all(len(results(events)) == 1 for events in ran)
        again = await asyncio.gather(*(served_events(served.url, r) for r in requests))
        assert [results(e) for e in again] == [results(e) for e in ran]
        assert payees(runs_file) == sorted(f"payee{n}" for n in range(WAVE))
        assert set(states(database).values()) == {"done"}
    finally:
        served.stop()
