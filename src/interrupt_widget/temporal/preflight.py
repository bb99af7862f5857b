"""What a Temporal server must have before the kit sends it anything, checked at once so
that nothing waits silently.

A run sent to a server that cannot carry it does not fail on Temporal: it waits. A
namespace that does not exist fails each request; a server without the kit's search
attribute fails the workflow's every task (`BadSearchAttributes`, retried for ever); a task
queue no worker polls holds the run until one does. So the client and every worker check,
when they first connect: the namespace exists, and the search attribute is there (the kit
registers it itself where the server lets it: the operator service's add-search-attributes);
and before a run is sent, that some worker polls its task queue. Each problem is a
`TemporalMisconfigured` whose code and words name what is missing and how to fix it.
"""

from __future__ import annotations

import asyncio
from typing import Final

from temporalio.api.enums.v1 import IndexedValueType, TaskQueueType
from temporalio.api.operatorservice.v1 import (
    AddSearchAttributesRequest,
    ListSearchAttributesRequest,
)
from temporalio.api.taskqueue.v1 import TaskQueue
from temporalio.api.workflowservice.v1 import DescribeNamespaceRequest, DescribeTaskQueueRequest
from temporalio.client import Client
from temporalio.service import RPCError, RPCStatusCode

from interrupt_widget.errors import ErrorCode, TemporalMisconfigured
from interrupt_widget.temporal.dev_server import WAITING_ATTRIBUTE

WORKER_WAIT: Final = 10.0
"""How long a run waits for a worker to poll its task queue before it is refused
(`no_worker`): long enough for a worker process started beside it to come up."""

_KEYWORD = IndexedValueType.INDEXED_VALUE_TYPE_KEYWORD


def attribute_command(address: str, namespace: str) -> str:
    """The command that registers the kit's search attribute on a server of one's own."""
    return (
        f"temporal operator search-attribute create --name {WAITING_ATTRIBUTE} --type Keyword "
        f"--namespace {namespace} --address {address}"
    )


async def prepare(client: Client, address: str) -> None:
    """Check the client's namespace exists and holds the kit's search attribute, registering
    the attribute when it is missing and the server allows it; `TemporalMisconfigured` when
    not (the message names the attribute and the command that creates it)."""
    namespace = client.namespace
    try:
        await client.workflow_service.describe_namespace(
            DescribeNamespaceRequest(namespace=namespace)
        )
    except RPCError as exc:
        if exc.status != RPCStatusCode.NOT_FOUND:
            raise
        raise TemporalMisconfigured(
            ErrorCode.TEMPORAL_NAMESPACE_MISSING,
            f"the Temporal namespace {namespace!r} does not exist on {address}: create it "
            f"(temporal operator namespace create --namespace {namespace} --address "
            f"{address}) or name one that does",
        ) from None
    if await _has_attribute(client):
        return
    try:
        await client.operator_service.add_search_attributes(
            AddSearchAttributesRequest(
                namespace=namespace, search_attributes={WAITING_ATTRIBUTE: _KEYWORD}
            )
        )
    except RPCError as exc:
        raise TemporalMisconfigured(
            ErrorCode.TEMPORAL_SEARCH_ATTRIBUTE_MISSING,
            f"the Temporal namespace {namespace!r} lacks the kit's search attribute "
            f"{WAITING_ATTRIBUTE} (Keyword), and this client may not add it ({exc.message}); "
            f"without it every run would wait for ever. Create it once: "
            f"{attribute_command(address, namespace)}",
        ) from None
    if not await _has_attribute(client):  # pragma: no cover - a server that says yes and not
        raise TemporalMisconfigured(
            ErrorCode.TEMPORAL_SEARCH_ATTRIBUTE_MISSING,
            f"the Temporal namespace {namespace!r} still lacks {WAITING_ATTRIBUTE} after "
            f"adding it; create it: {attribute_command(address, namespace)}",
        )


async def _has_attribute(client: Client) -> bool:
    found = await client.operator_service.list_search_attributes(
        ListSearchAttributesRequest(namespace=client.namespace)
    )
    kind = found.custom_attributes.get(WAITING_ATTRIBUTE)
    if kind is None:
        return False
    if kind != _KEYWORD:
        raise TemporalMisconfigured(
            ErrorCode.TEMPORAL_SEARCH_ATTRIBUTE_MISSING,
            f"the search attribute {WAITING_ATTRIBUTE} in namespace {client.namespace!r} is "
            f"not a Keyword ({IndexedValueType.Name(kind)}): the kit needs it as a Keyword",
        )
    return True


async def has_worker(client: Client, task_queue: str) -> bool:
    """Whether some worker has polled `task_queue` for workflow tasks lately."""
    described = await client.workflow_service.describe_task_queue(
        DescribeTaskQueueRequest(
            namespace=client.namespace,
            task_queue=TaskQueue(name=task_queue),
            task_queue_type=TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
        )
    )
    return len(described.pollers) > 0


async def require_worker(
    client: Client, task_queue: str, agent: str, *, within: float = WORKER_WAIT
) -> None:
    """Return once a worker polls `task_queue` (asking again for up to `within` seconds);
    `TemporalMisconfigured` (`no_worker`) when none does, naming the queue and the command
    that starts a worker for `agent`."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + within
    while not await has_worker(client, task_queue):
        if loop.time() >= deadline:
            raise TemporalMisconfigured(
                ErrorCode.NO_WORKER,
                f"no worker polls the task queue {task_queue!r} in namespace "
                f"{client.namespace!r} (waited {within:g} s): nothing was sent. Start one "
                f"(python -m interrupt_widget worker {agent} --temporal HOST:PORT --task-queue "
                f"{task_queue}), or check the queue's name",
            )
        await asyncio.sleep(0.2)


__all__ = ["WORKER_WAIT", "attribute_command", "has_worker", "prepare", "require_worker"]
