"""Workers that do not share a ledger are told apart: a conversation's run that reaches a worker
whose ledger is not the one its earlier runs (or an earlier try of the run) used ends at once
with `ledger_not_shared`, naming both ledgers, and nothing runs; on the right worker the same
answer then runs the call once. Runs are counted from the tool's file."""

from __future__ import annotations

import contextlib
import dataclasses
import pathlib
import socket
import time
import uuid
from collections.abc import AsyncIterator

import pytest

pytest.importorskip("temporalio")

from temporalio.client import Client
from temporalio.exceptions import ApplicationError
from temporalio.testing import ActivityEnvironment

from interrupt_widget import AgentChat, SQLiteLedger
from interrupt_widget.errors import ChatRunError, ErrorCode
from interrupt_widget.ledger.once_only import ledger_place
from interrupt_widget.temporal import TemporalAgent, adapter_for, build_worker
from interrupt_widget.temporal.dev_server import DevServer
from interrupt_widget.temporal.segments import _require_same_ledger
from interrupt_widget.temporal.shapes import SegmentRequest
from interrupt_widget.testing import CommRecorder, until
from payment_agents import SEND, runs_in
from temporal_agents import PAYMENTS

NOTICED_WITHIN = 30.0
"""Seconds a run on the wrong worker may take to end saying so (it takes about one)."""


@contextlib.asynccontextmanager
async def worker(client: Client, queue: str, ledger: pathlib.Path) -> AsyncIterator[None]:
    """An in-process worker on `queue` running the payment agent on the ledger file `ledger`."""
    adapters = {PAYMENTS: adapter_for(PAYMENTS, ledger=str(ledger))}
    async with build_worker(client, adapters, task_queue=queue, graceful_seconds=1):
        yield


def place_of(ledger: pathlib.Path) -> str:
    return f"the SQLite file {ledger.resolve()} on {socket.gethostname()}"


async def test_a_run_on_a_worker_with_another_ledger_fails_at_once_naming_both(
    temporal_server: DevServer, tmp_path: pathlib.Path, runs: pathlib.Path, recorder: CommRecorder
) -> None:
    client = await Client.connect(temporal_server.address)
    queue = f"q-{uuid.uuid4().hex[:8]}"
    first, other = tmp_path / "first.db", tmp_path / "other.db"
    chat = AgentChat(TemporalAgent(client, agent=PAYMENTS, task_queue=queue))
    async with worker(client, queue, first):
        handle = chat.send(SEND)  # the conversation's first run: its ledger is `first`
        await until(chat, lambda: chat.status == "waiting")
    async with worker(client, queue, other):
        began = time.monotonic()
        chat.picker.resolve({"approved": True})
        await until(chat, lambda: chat.status == "error", timeout=NOTICED_WITHIN)
        took = time.monotonic() - began
        with pytest.raises(ChatRunError) as failed:
            await handle
    print(f"noticed in {took:.2f} s")
    assert took < NOTICED_WITHIN
    assert failed.value.code == ErrorCode.LEDGER_NOT_SHARED
    said = str(failed.value)
    for part in (place_of(first), place_of(other), "the same ledger", queue):
        assert part in said, said
    assert runs_in(runs) == []  # nothing ran on the worker that could not know of a claim
    # On a worker with the conversation's ledger, the question answered again runs once.
    async with worker(client, queue, first):
        chat.picker.resolve({"approved": True})
        await until(chat, lambda: chat.status == "done", timeout=NOTICED_WITHIN)
    assert runs_in(runs) == [{"tool": "send_money", "amount": 42.0, "to": "Bob"}]


def test_a_retry_on_another_ledger_is_refused_from_the_last_try_s_heartbeat(
    tmp_path: pathlib.Path,
) -> None:
    """A conversation's first run has no ledger on record yet: the try that died said where
    its ledger is in each heartbeat, and the next try, on a worker whose ledger is elsewhere,
    refuses to run."""
    here = ledger_place(SQLiteLedger(tmp_path / "here.db"))
    there = ledger_place(SQLiteLedger(tmp_path / "there.db"))
    request = SegmentRequest(PAYMENTS, {"threadId": "t", "runId": "r"})
    retried = ActivityEnvironment()
    retried.info = dataclasses.replace(retried.info, attempt=2, heartbeat_details=[there])
    with pytest.raises(ApplicationError) as refused:
        retried.run(_require_same_ledger, request, here)
    assert refused.value.type == ErrorCode.LEDGER_NOT_SHARED
    assert refused.value.non_retryable
    assert f"is {here}, but an earlier try of this run, on another worker, used {there}" in str(
        refused.value
    )
    same = ActivityEnvironment()
    same.info = dataclasses.replace(same.info, attempt=2, heartbeat_details=[here])
    same.run(_require_same_ledger, request, here)  # the same ledger: the run goes on
    ActivityEnvironment().run(_require_same_ledger, request, here)  # a first try: nothing known
    recorded = dataclasses.replace(request, ledger=there)
    with pytest.raises(ApplicationError, match="this conversation's earlier runs used"):
        ActivityEnvironment().run(_require_same_ledger, recorded, here)
