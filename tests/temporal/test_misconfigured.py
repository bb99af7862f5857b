"""No silent waits: each way a Temporal setup can leave a run waiting for ever is either
mended by the kit (the search attribute, added where the server allows) or said within
seconds, with the error's code and words naming what is wrong and how to fix it, and
nothing is sent. Each test ends well within 30 s."""

from __future__ import annotations

import asyncio
import pathlib
import time
import uuid
from collections.abc import Iterator

import pytest

pytest.importorskip("temporalio")

from temporalio.api.operatorservice.v1 import ListSearchAttributesRequest
from temporalio.client import Client
from temporalio.service import RPCError, RPCStatusCode

from interrupt_widget import TemporalMisconfigured
from interrupt_widget.__main__ import main
from interrupt_widget.asking.thread import ConversationThread
from interrupt_widget.errors import ErrorCode
from interrupt_widget.temporal import WAITING_ATTRIBUTE, TemporalAgent, run_worker
from interrupt_widget.temporal.dev_server import DevServer
from payment_agents import SEND, runs_in
from temporal_agents import PAYMENTS, worker_on_fresh_queue

BOUND = 30.0
"""No test here may take longer to be told."""


@pytest.fixture
def bare_server() -> Iterator[DevServer]:
    """A server of one's own as the kit finds it: started without the kit's search attribute."""
    with DevServer(ui=False, in_memory=True, search_attribute=False) as server:
        yield server


def new_thread(agent: TemporalAgent) -> ConversationThread:
    return ConversationThread(agent, thread_id=f"t-{uuid.uuid4().hex[:8]}")


async def test_a_server_without_the_search_attribute_gets_it_from_the_client(
    bare_server: DevServer, runs: pathlib.Path
) -> None:
    began = time.monotonic()
    async with worker_on_fresh_queue(bare_server, (PAYMENTS,)) as (client, queue):
        listed = await client.operator_service.list_search_attributes(
            ListSearchAttributesRequest(namespace="default")
        )
        assert WAITING_ATTRIBUTE not in listed.custom_attributes  # as the server started
        agent = TemporalAgent(client, agent=PAYMENTS, task_queue=queue)
        thread = new_thread(agent)
        paused = await asyncio.wait_for(thread.start(thread.user_input(SEND)), BOUND)
        assert paused.kind == "interrupt", paused  # the workflow could set the attribute
        found = await agent.waiting(at_least=1)
        assert [c.thread_id for c in found] == [thread.thread_id]
    assert time.monotonic() - began < BOUND
    assert runs_in(runs) == []


async def test_a_server_that_refuses_the_attribute_ends_the_run_naming_the_command(
    bare_server: DevServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    client = await Client.connect(bare_server.address)

    async def refused(*args: object, **kwargs: object) -> None:
        raise RPCError("not allowed here", RPCStatusCode.PERMISSION_DENIED, b"")

    # As a managed service or a locked-down server answers a client without operator rights.
    monkeypatch.setattr(client.operator_service, "add_search_attributes", refused)
    agent = TemporalAgent(client, agent=PAYMENTS, task_queue="q-any")
    thread = new_thread(agent)
    began = time.monotonic()
    ended = await asyncio.wait_for(thread.start(thread.user_input(SEND)), BOUND)
    assert time.monotonic() - began < BOUND
    assert (ended.kind, ended.code) == ("error", ErrorCode.TEMPORAL_SEARCH_ATTRIBUTE_MISSING)
    command = (
        f"temporal operator search-attribute create --name {WAITING_ATTRIBUTE} --type Keyword "
        f"--namespace default --address {bare_server.address}"
    )
    assert command in (ended.error or ""), ended.error
    assert "not allowed here" in (ended.error or "")
    # Nothing was sent: no conversation started, to fail its workflow tasks for ever.
    assert [w async for w in client.list_workflows()] == []
    # A worker on such a server refuses to start, saying the same.
    with pytest.raises(TemporalMisconfigured, match="search-attribute create") as told:
        await asyncio.wait_for(run_worker(PAYMENTS, temporal=client, task_queue="q"), BOUND)
    assert told.value.code == ErrorCode.TEMPORAL_SEARCH_ATTRIBUTE_MISSING


async def test_a_task_queue_no_worker_polls_is_said_within_seconds_and_nothing_is_sent(
    temporal_server: DevServer,
) -> None:
    client = await Client.connect(temporal_server.address)
    queue = f"nobody-{uuid.uuid4().hex[:8]}"
    agent = TemporalAgent(client, agent=PAYMENTS, task_queue=queue, worker_wait_seconds=1.0)
    thread = new_thread(agent)
    began = time.monotonic()
    ended = await asyncio.wait_for(thread.start(thread.user_input(SEND)), BOUND)
    assert time.monotonic() - began < 10
    assert (ended.kind, ended.code) == ("error", ErrorCode.NO_WORKER)
    said = ended.error or ""
    assert f"no worker polls the task queue {queue!r}" in said
    assert f"--task-queue {queue}" in said
    assert PAYMENTS in said
    with pytest.raises(RPCError):  # nothing was started, to wait for a worker unseen
        await client.get_workflow_handle(thread.thread_id).describe()
    with pytest.raises(TemporalMisconfigured) as told:
        await agent.wait_for_worker(within=0.5)
    assert told.value.code == ErrorCode.NO_WORKER


async def test_a_namespace_that_does_not_exist_is_said_by_client_worker_and_command(
    temporal_server: DevServer, capsys: pytest.CaptureFixture[str]
) -> None:
    address = temporal_server.address
    agent = TemporalAgent(address, agent=PAYMENTS, task_queue="q", namespace="nowhere")
    thread = new_thread(agent)
    ended = await asyncio.wait_for(thread.start(thread.user_input(SEND)), BOUND)
    assert (ended.kind, ended.code) == ("error", ErrorCode.TEMPORAL_NAMESPACE_MISSING)
    assert "the Temporal namespace 'nowhere' does not exist" in (ended.error or "")
    assert "temporal operator namespace create --namespace nowhere" in (ended.error or "")
    with pytest.raises(TemporalMisconfigured, match="'nowhere' does not exist"):
        await asyncio.wait_for(
            run_worker(PAYMENTS, temporal=address, task_queue="q", namespace="nowhere"), BOUND
        )
    argv = [
        "worker",
        PAYMENTS,
        "--temporal",
        address,
        "--task-queue",
        "q",
        "--namespace",
        "nowhere",
    ]
    assert await asyncio.to_thread(main, argv) == 2
    assert "'nowhere' does not exist" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("source", "says"),
    [
        ("import a_module_that_is_not_installed\n", "No module named"),
        ("raise RuntimeError('the agents file is broken')\n", "RuntimeError: the agents"),
    ],
)
def test_a_worker_whose_agent_module_cannot_be_imported_says_so_at_start(
    temporal_server: DevServer,
    tmp_path: pathlib.Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    source: str,
    says: str,
) -> None:
    name = f"agents_{uuid.uuid4().hex[:8]}"
    (tmp_path / f"{name}.py").write_text(source)
    monkeypatch.syspath_prepend(str(tmp_path))
    began = time.monotonic()
    argv = ["worker", f"{name}:agent", "--temporal", temporal_server.address, "--task-queue", "q"]
    assert main(argv) == 2
    assert time.monotonic() - began < BOUND
    said = capsys.readouterr().err
    assert repr(name) in said, said
    assert says in said, said
