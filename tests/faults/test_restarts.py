"""A restarted server remembers what ran: clean restarts, and kill -9 in the middle of a tool.

Each case runs real `serve` processes sharing one fingerprint secret (so open
interrupts survive the restart) and one ledger: an explicit `--ledger FILE`,
or the per-user default (found under `XDG_STATE_HOME`). The tool's real runs
are counted from the file it writes. Its input guardrail refuses a transfer over
the bank's limit, and a refused call stays unrun across kills and restarts.
"""

from __future__ import annotations

import asyncio
import pathlib

import pytest
from ag_ui.core import BaseEvent, RunAgentInput, ToolCallResultEvent
from bank import HOLD_ENV, LIMIT, REFUSED, runs
from served import Served, server_env
from steps import ask, error_of, paused, resume

from interrupt_widget import AGUIClientError
from interrupt_widget.http.client import AGUIClient
from serve_process import until_written

SECRET = "a-fault-test-secret-long-enough"
LEDGERS = ["default", "explicit"]


def start(tmp_path: pathlib.Path, runs_file: pathlib.Path, ledger: str, **extra: str) -> Served:
    secret = tmp_path / "secret"
    secret.write_text(SECRET)
    args = ["--secret-file", str(secret)]
    env = server_env(runs_file, **extra)
    env.pop("INTERRUPT_WIDGET_LEDGER", None)
    if ledger == "explicit":
        args += ["--ledger", str(tmp_path / "explicit-ledger.db")]
    else:
        env["XDG_STATE_HOME"] = str(tmp_path / "state")
    return Served(args, env).wait_ready()


async def events_of(url: str, request: RunAgentInput) -> list[BaseEvent]:
    return [e async for e in AGUIClient(url).run(request)]


async def paused_transfer(url: str) -> RunAgentInput:
    messages, interrupts = paused(await events_of(url, ask()))
    return resume(messages, interrupts)


@pytest.mark.parametrize("ledger", LEDGERS)
async def test_a_clean_restart_replays_the_result_and_runs_nothing_again(
    tmp_path: pathlib.Path, runs_file: pathlib.Path, ledger: str
) -> None:
    first = start(tmp_path, runs_file, ledger)
    try:
        request = await paused_transfer(first.url)
        ran = [e for e in await events_of(first.url, request) if isinstance(e, ToolCallResultEvent)]
    finally:
        first.stop()
    assert len(runs(runs_file)) == 1

    second = start(tmp_path, runs_file, ledger)
    try:
        replayed = await events_of(second.url, request)
    finally:
        second.stop()
    results = [e for e in replayed if isinstance(e, ToolCallResultEvent)]
    assert [r.content for r in results] == [ran[0].content]
    assert "Sent 5.00 to bob." in results[0].content
    assert len(runs(runs_file)) == 1


@pytest.mark.parametrize("ledger", LEDGERS)
async def test_kill_9_mid_tool_then_a_replay_is_in_doubt_and_runs_nothing(
    tmp_path: pathlib.Path, runs_file: pathlib.Path, ledger: str
) -> None:
    hold = tmp_path / "hold"
    hold.write_text("the tool waits while this file exists")
    first = start(tmp_path, runs_file, ledger, **{HOLD_ENV: str(hold)})
    try:
        request = await paused_transfer(first.url)
        going = asyncio.create_task(events_of(first.url, request))
        await until_written(lambda: len(runs(runs_file)) == 1)  # the tool is running
        first.kill()
        with pytest.raises(AGUIClientError):  # the stream broke with the server
            await going
    finally:
        first.stop()

    second = start(tmp_path, runs_file, ledger)
    try:
        replayed = await events_of(second.url, request)
    finally:
        second.stop()
    error = error_of(replayed)
    assert error.code == "call_in_doubt"
    assert str(tmp_path) not in error.message  # no server paths for clients
    assert not [e for e in replayed if isinstance(e, ToolCallResultEvent)]
    assert len(runs(runs_file)) == 1


@pytest.mark.parametrize("ledger", LEDGERS)
async def test_an_approved_call_the_guardrail_blocks_never_runs_across_kill_9_and_restarts(
    tmp_path: pathlib.Path, runs_file: pathlib.Path, ledger: str
) -> None:
    first = start(tmp_path, runs_file, ledger)
    try:
        over = ask(f"transfer_funds amount={LIMIT * 5} to=mallory")
        request = resume(*paused(await events_of(first.url, over)))
        first.kill()  # kill -9 while the call waits for its answer
    finally:
        first.stop()

    second = start(tmp_path, runs_file, ledger)
    try:
        approved = await events_of(second.url, request)
        second.kill()  # kill -9 once the refusal has reached the client
    finally:
        second.stop()
    [refused] = [e for e in approved if isinstance(e, ToolCallResultEvent)]
    assert REFUSED in refused.content
    assert approved[-1].type.value == "RUN_FINISHED"
    assert runs(runs_file) == []

    third = start(tmp_path, runs_file, ledger)
    try:
        replayed = await events_of(third.url, request)
    finally:
        third.stop()
    results = [e for e in replayed if isinstance(e, ToolCallResultEvent)]
    assert [r.content for r in results] == [refused.content]
    assert runs(runs_file) == []
