"""The SQLite ledger's file fails under the kit: eight processes at once, and a full disk.

Eight real processes open one new ledger file at the same moment and settle the
same calls concurrently (the file busy and locked throughout); a ledger on a
small tmpfs (a few MB, mounted by the test; skipped where the machine does not
allow it) fills up before a claim and, from inside the tool, between a claim
and its result. The tool's real runs are counted from the file it writes,
which lives on another disk.
"""

from __future__ import annotations

import contextlib
import errno
import json
import multiprocessing
import os
import pathlib
import sqlite3
import subprocess
from collections.abc import Callable, Iterator

import pytest
from ag_ui.core import BaseEvent, RunFinishedEvent, ToolCallResultEvent
from bank import bank_agent, runs
from sqlite_worker import batch_then_lose_power, power_batch, run_then_lose_power, work
from steps import ask, error_of, events_of, paused, resume

from interrupt_widget import CallInDoubt, ErrorCode, SQLiteLedger
from interrupt_widget.batch.records import ROW_OUTCOME_CALL
from interrupt_widget.sdk.adapter import OpenAIAgentsAdapter

WORKERS = 8
KEYS = 12
WORKER_DEADLINE = 120.0


def results(events: list[BaseEvent]) -> list[str]:
    return [e.content for e in events if isinstance(e, ToolCallResultEvent)]


def test_eight_processes_on_one_new_file_run_each_call_once(tmp_path: pathlib.Path) -> None:
    ledger, runs_file = tmp_path / "calls.db", tmp_path / "runs.txt"
    forked = multiprocessing.get_context("fork")  # no imports to wait for: they start together
    start = forked.Event()
    reports = [tmp_path / f"report-{n}.json" for n in range(WORKERS)]
    workers = [
        forked.Process(target=work, args=(ledger, runs_file, start, n, KEYS, reports[n]))
        for n in range(WORKERS)
    ]
    for worker in workers:
        worker.start()
    start.set()  # all at once: the file, its WAL and its table are made in a race
    try:
        for worker in workers:
            worker.join(WORKER_DEADLINE)
            assert worker.exitcode == 0, worker.exitcode
    finally:
        for worker in workers:
            if worker.is_alive():
                worker.kill()
                worker.join()

    ran = [line.split() for line in runs_file.read_text().splitlines()]
    assert sorted(key for key, _ in ran) == sorted(f"call-{n}" for n in range(KEYS))  # once each
    runner = dict(ran)
    for report in reports:
        # Every process got the output of the one run, whichever process ran it.
        expected = {key: f"{key} sent by {runner[key]}" for key in runner}
        assert json.loads(report.read_text()) == expected


def lose_power(
    work: Callable[[pathlib.Path, pathlib.Path, pathlib.Path], None], folder: pathlib.Path
) -> tuple[pathlib.Path, pathlib.Path, pathlib.Path]:
    """`work(ledger, runs, disk)` in a forked process, which copies the ledger's file and WAL
    to `disk` at the moment a power cut comes; (ledger, runs, disk)."""
    ledger, runs_file, disk = folder / "calls.db", folder / "runs.txt", folder / "disk"
    disk.mkdir()
    process = multiprocessing.get_context("fork").Process(
        target=work, args=(ledger, runs_file, disk)
    )
    process.start()
    process.join(WORKER_DEADLINE)
    assert process.exitcode == 0, process.exitcode
    return ledger, runs_file, disk


async def test_a_power_cut_after_a_call_ran_leaves_it_in_doubt_never_run_again(
    tmp_path: pathlib.Path,
) -> None:
    # A result is committed without a sync of its own: a power cut before the next synced
    # commit can lose it, never the claim (synced before the tool ran).
    ledger, runs_file, disk = lose_power(run_then_lose_power, tmp_path)

    async def transfer() -> str:
        runs_file.write_text(runs_file.read_text() + "call-0 ran again\n")
        return "call-0 sent again"

    after_the_cut = SQLiteLedger(disk / "calls.db")  # the machine back up: what the disk held
    with pytest.raises(CallInDoubt):
        await after_the_cut.run_once(("thread", "call-0"), transfer)
    with pytest.raises(CallInDoubt):  # the result lost, the claim kept: in doubt, not unrun
        await after_the_cut.recorded(("thread", "call-0"))
    kept = SQLiteLedger(ledger)  # no cut: the result, replayed
    assert await kept.run_once(("thread", "call-0"), transfer) == "call-0 sent"
    assert runs_file.read_text().splitlines() == ["call-0 ran"]  # once, whichever file


async def test_a_power_cut_that_loses_a_batch_rows_outcome_repeats_the_row_not_its_call(
    tmp_path: pathlib.Path,
) -> None:
    # A row's outcome is committed without a sync of its own: a power cut before the next
    # synced commit can lose it. The batch run again then runs the row again, and its call,
    # recorded, is replayed: the tool ran once.
    ledger, runs_file, disk = lose_power(batch_then_lose_power, tmp_path)
    assert runs_file.read_text().splitlines() == ["acct-7 ran"]
    assert _states(disk / "calls.db") == {"call": ["done"], ROW_OUTCOME_CALL: []}  # cut
    assert _states(ledger) == {"call": ["done"], ROW_OUTCOME_CALL: ["done"]}

    [again] = await power_batch(disk / "calls.db", runs_file)  # what the disk held
    assert _states(disk / "calls.db") == {"call": ["done"], ROW_OUTCOME_CALL: ["done"]}
    assert again.status == "done"
    assert again.replayed  # the row ran again; its call did not
    assert [d.outcome for d in again.decisions] == ["replayed"]
    [kept] = await power_batch(ledger, runs_file)  # no cut: the row's outcome stands
    assert kept.status == "done"
    assert runs_file.read_text().splitlines() == ["acct-7 ran"]  # once, whichever file


def _states(path: pathlib.Path) -> dict[str, list[str]]:
    """The states of the row's call and of its outcome in the ledger file at `path`."""
    with contextlib.closing(sqlite3.connect(path)) as db:
        found = db.execute("SELECT call_id, state FROM approved_calls").fetchall()
    outcomes = [state for call_id, state in found if call_id == ROW_OUTCOME_CALL]
    calls = [state for call_id, state in found if call_id.startswith("call")]
    return {"call": calls, ROW_OUTCOME_CALL: outcomes}


async def test_a_file_locked_past_busy_timeout_refuses_the_claim_and_runs_nothing(
    tmp_path: pathlib.Path, runs_file: pathlib.Path
) -> None:
    path = tmp_path / "calls.db"
    ledger = SQLiteLedger(path, busy_timeout=0.5)
    adapter = OpenAIAgentsAdapter(bank_agent(runs_file), ledger=ledger)
    messages, interrupts = paused(await events_of(adapter, ask()))
    request = resume(messages, interrupts)
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # another process's long write transaction
    try:
        error = error_of(await events_of(adapter, request))
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert error.code == ErrorCode.LEDGER_UNAVAILABLE
    assert "database is locked" in error.message
    assert "was not run" in error.message
    assert runs(runs_file) == []

    assert results(await events_of(adapter, request)) == ["Sent 5.00 to bob."]
    assert len(runs(runs_file)) == 1


async def test_a_file_locked_mid_tool_past_busy_timeout_leaves_the_call_in_doubt(
    tmp_path: pathlib.Path, runs_file: pathlib.Path
) -> None:
    path = tmp_path / "calls.db"
    holders: list[sqlite3.Connection] = []

    def lock_the_file() -> None:  # another process starts a long write, mid-tool
        holder = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        holder.execute("BEGIN IMMEDIATE")
        holders.append(holder)

    ledger = SQLiteLedger(path, busy_timeout=0.5)
    adapter = OpenAIAgentsAdapter(bank_agent(runs_file, fault=lock_the_file), ledger=ledger)
    messages, interrupts = paused(await events_of(adapter, ask()))
    request = resume(messages, interrupts)
    try:
        error = error_of(await events_of(adapter, request))
    finally:
        for holder in holders:
            holder.execute("ROLLBACK")
            holder.close()
    assert error.code == ErrorCode.LEDGER_UNAVAILABLE
    assert "ran, but its result could not be recorded" in error.message
    assert len(runs(runs_file)) == 1

    assert error_of(await events_of(adapter, request)).code == ErrorCode.CALL_IN_DOUBT
    assert ledger.in_doubt() == [(request.thread_id, interrupts[0].tool_call_id)]
    assert len(runs(runs_file)) == 1


# -- a full disk ----------------------------------------------------------------------------------


@pytest.fixture
def small_disk(tmp_path: pathlib.Path) -> Iterator[pathlib.Path]:
    """A 2 MB tmpfs, or a skip where this machine cannot mount one."""
    folder = tmp_path / "small-disk"
    folder.mkdir()
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=2m,mode=0700", "tmpfs", str(folder)],
        capture_output=True,
        text=True,
        check=False,
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here: {mounted.stderr.strip()}")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], capture_output=True, check=False)


def fill(folder: pathlib.Path) -> pathlib.Path:
    """Fill the disk under `folder` to the last byte with one file; that file."""
    filler = folder / "filler"
    descriptor = os.open(filler, os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        for size in (1 << 16, 1 << 12, 1 << 9, 1):
            while _wrote(descriptor, size):
                pass
    finally:
        os.close(descriptor)
    return filler


def _wrote(descriptor: int, size: int) -> bool:
    try:
        os.write(descriptor, b"\0" * size)
    except OSError as error:
        if error.errno != errno.ENOSPC:
            raise
        return False
    return True


async def test_a_claim_on_a_full_disk_runs_nothing_and_runs_once_when_space_is_back(
    small_disk: pathlib.Path, runs_file: pathlib.Path
) -> None:
    adapter = OpenAIAgentsAdapter(bank_agent(runs_file), ledger=SQLiteLedger(small_disk / "l.db"))
    messages, interrupts = paused(await events_of(adapter, ask()))
    request = resume(messages, interrupts)
    filler = fill(small_disk)

    error = error_of(await events_of(adapter, request))
    assert error.code == ErrorCode.LEDGER_UNAVAILABLE
    assert "SQLite" in error.message
    assert str(small_disk) not in error.message  # no server paths for clients
    assert runs(runs_file) == []

    filler.unlink()
    ran = await events_of(adapter, request)
    assert isinstance(ran[-1], RunFinishedEvent)
    replayed = await events_of(adapter, request)
    assert results(ran) == results(replayed) == ["Sent 5.00 to bob."]
    assert len(runs(runs_file)) == 1


async def test_a_disk_that_fills_mid_tool_leaves_the_call_in_doubt_never_run_again(
    small_disk: pathlib.Path, runs_file: pathlib.Path
) -> None:
    fillers: list[pathlib.Path] = []
    agent = bank_agent(runs_file, fault=lambda: fillers.append(fill(small_disk)))
    ledger = SQLiteLedger(small_disk / "l.db")
    adapter = OpenAIAgentsAdapter(agent, ledger=ledger)
    messages, interrupts = paused(await events_of(adapter, ask()))
    request = resume(messages, interrupts)

    error = error_of(await events_of(adapter, request))
    assert error.code == ErrorCode.LEDGER_UNAVAILABLE
    assert "ran, but its result could not be recorded" in error.message
    assert len(runs(runs_file)) == 1

    fillers[0].unlink()
    again = error_of(await events_of(adapter, request))
    assert again.code == ErrorCode.CALL_IN_DOUBT
    # Another ledger on the file sees a live owner's claim: it waits, then gives up unrun.
    other = OpenAIAgentsAdapter(
        bank_agent(runs_file), ledger=SQLiteLedger(small_disk / "l.db", wait_timeout=0.3)
    )
    assert error_of(await events_of(other, request)).code == ErrorCode.CALL_IN_DOUBT
    assert len(runs(runs_file)) == 1

    [(thread_id, call_id)] = ledger.in_doubt()  # the operator settles it: it did run
    ledger.record(thread_id, call_id, "Sent 5.00 to bob (checked by hand).")
    settled = await events_of(adapter, request)
    assert results(settled) == ["Sent 5.00 to bob (checked by hand)."]
    assert len(runs(runs_file)) == 1
