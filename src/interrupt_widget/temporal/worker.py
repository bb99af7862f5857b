"""Workers: the processes that run the conversations' workflows and their agents' runs.

`run_worker(...)` from Python, or `python -m interrupt_widget worker package.module:agent
--temporal HOST:PORT --task-queue Q` from a shell; any number of them, on any host that
reaches the server (and, for calls approved once, the same ledger). SIGTERM (or SIGINT)
shuts one down cleanly: it stops taking tasks, lets its running activities finish for
`graceful_seconds`, then hands back what is left, which the server retries elsewhere.
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
from collections.abc import Sequence
from datetime import timedelta
from typing import Any, Final

from agents import Agent
from temporalio.client import Client
from temporalio.worker import UnsandboxedWorkflowRunner, Worker
from temporalio.worker.workflow_sandbox import SandboxedWorkflowRunner, SandboxRestrictions

from interrupt_widget.agui.answers import prepare_checks
from interrupt_widget.errors import TargetError
from interrupt_widget.http.target_loading import load_target
from interrupt_widget.ledger.opening import LedgerSpec
from interrupt_widget.sdk.adapter import OpenAIAgentsAdapter
from interrupt_widget.sdk.agent_options import resolve_agent
from interrupt_widget.temporal.agent import connect
from interrupt_widget.temporal.conversation import Conversation
from interrupt_widget.temporal.preflight import prepare
from interrupt_widget.temporal.segments import STOP_REACH, Segments
from interrupt_widget.temporal.tracing import worker_interceptors

logger = logging.getLogger(__name__)


def adapter_for(target: str | Any, *, ledger: LedgerSpec = None) -> OpenAIAgentsAdapter:
    """The adapter a worker runs `target` with (a name, an `Agent`, or an adapter as is),
    made as every entry makes one (`resolve_agent`): an agent that names no model runs on
    `OfflineModel` when no OpenAI key is set, rather than failing every run for want of a key.
    """
    loaded = _load(target) if isinstance(target, str) else target
    adapter = (
        resolve_agent(loaded, ledger=ledger).adapter
        if isinstance(loaded, Agent | OpenAIAgentsAdapter)
        else None
    )
    if adapter is None:
        raise TargetError(
            f"a worker runs an agents.Agent or an OpenAIAgentsAdapter, not {type(loaded).__name__}"
        )
    return adapter


def _load(target: str) -> Any:
    """The object `target` names; `TargetError` naming the module and what its import (or the
    factory) raised, so a worker that cannot serve an agent says so as it starts."""
    try:
        return load_target(target)
    except TargetError:
        raise
    except Exception as exc:  # a module that raises as it is imported, or a factory that fails
        module = target.partition(":")[0]
        raise TargetError(
            f"cannot load {target!r}: importing {module!r} (or calling its factory) raised "
            f"{type(exc).__name__}: {exc}"
        ) from exc


def build_worker(
    client: Client,
    agents: dict[str, OpenAIAgentsAdapter],
    *,
    task_queue: str,
    graceful_seconds: float = 30.0,
    max_concurrent_activities: int = 64,
    sticky_seconds: float = 1.0,
    sandboxed: bool = False,
) -> Worker:
    """A worker for the conversations on `task_queue`, running `agents` (by target name).

    `sticky_seconds`: how long a conversation's next step waits for the worker that ran its
    last one (which holds it in memory) before any worker takes it: short, so the
    conversations of a worker that died move on within about that long. `sandboxed`: run
    the workflow in Temporal's sandbox, which checks that its code touches nothing
    non-deterministic, at the price of importing the kit's modules afresh for every workflow
    run (about twice the time a conversation's step takes: docs/guide/temporal.md).
    """
    # The workflow's update validator checks answers: importing the checks inside a workflow
    # task could take it past Temporal's two seconds to yield, and fail it.
    prepare_checks()
    return Worker(
        client,
        task_queue=task_queue,
        workflows=[Conversation],
        activities=[Segments(agents).run_segment],
        workflow_runner=_sandboxed() if sandboxed else UnsandboxedWorkflowRunner(),
        # With OpenTelemetry, the decision spans join the run's Temporal trace (tracing.py).
        interceptors=worker_interceptors(client),
        max_concurrent_activities=max_concurrent_activities,
        graceful_shutdown_timeout=timedelta(seconds=graceful_seconds),
        sticky_queue_schedule_to_start_timeout=timedelta(seconds=sticky_seconds),
        # A running segment's heartbeat goes out this often, and a Stop (the workflow's cancel
        # of the activity) comes back in the server's answer: within a second, not at 0.8 of
        # the heartbeat timeout.
        max_heartbeat_throttle_interval=timedelta(seconds=STOP_REACH),
    )


PASSED_THROUGH: Final = (
    "ag_ui", "pydantic", "pydantic_core", "agents", "openai", "httpx", "jsonschema",
    "jsonschema_rs", "referencing", "rpds", "anyio", "griffe", "typing_extensions",
    "annotated_types", "opentelemetry",
)  # fmt: skip
"""Libraries the sandbox shares with the worker rather than import again for every run."""


def _sandboxed() -> SandboxedWorkflowRunner:
    restrictions = SandboxRestrictions.default.with_passthrough_modules(*PASSED_THROUGH)
    return SandboxedWorkflowRunner(restrictions=restrictions)


async def run_worker(
    agents: str | Sequence[str],
    *,
    temporal: Client | str,
    task_queue: str,
    namespace: str = "default",
    ledger: LedgerSpec = None,
    graceful_seconds: float = 30.0,
    stop: asyncio.Event | None = None,
    sandboxed: bool = False,
) -> None:
    """Run a worker until `stop` is set, or SIGTERM/SIGINT in the main thread.

    `agents`: the target names (`package.module:attribute`) the `TemporalAgent`s name; each is
    loaded here, so the worker runs the same agent a kernel would. `ledger`: where approved
    calls are claimed and recorded (by default the per-user SQLite file): give every worker
    that may retry another's runs the same one (a run that reaches a worker on another ledger
    ends with `ledger_not_shared`). `sandboxed`: see `build_worker`.
    """
    names = [agents] if isinstance(agents, str) else list(agents)
    adapters = {name: adapter_for(name, ledger=ledger) for name in names}
    client = (
        temporal if isinstance(temporal, Client) else await connect(temporal, namespace=namespace)
    )
    # A namespace that does not exist, or lacks the kit's search attribute (added here where
    # the server allows), is said now rather than as workflow tasks failing for ever.
    await prepare(client, client.service_client.config.target_host)
    worker = build_worker(
        client,
        adapters,
        task_queue=task_queue,
        graceful_seconds=graceful_seconds,
        sandboxed=sandboxed,
    )
    stop = stop or asyncio.Event()
    caught = _on_signals(stop)
    try:
        logger.warning("worker %s on %s serves %s", os.getpid(), task_queue, ", ".join(names))
        await _serve(worker, stop, graceful_seconds)
    finally:
        for sig in caught:
            asyncio.get_running_loop().remove_signal_handler(sig)
    logger.info("worker %s stopped", os.getpid())


SHUTDOWN_MARGIN = 5.0
"""How long past `graceful_seconds` a stopping worker waits for Temporal's own shutdown (its
pollers, the runs it cancelled) before it gives up on it: the server hands anything left to
another worker once its heartbeat lapses, and the process ends on time."""


async def _serve(worker: Worker, stop: asyncio.Event, graceful_seconds: float) -> None:
    """Run `worker` until `stop` is set (or it fails), then shut it down within
    `graceful_seconds` plus `SHUTDOWN_MARGIN`, whatever it waits for."""
    running = asyncio.ensure_future(worker.run())
    stopping = asyncio.ensure_future(stop.wait())
    try:
        await asyncio.wait({running, stopping}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        stopping.cancel()
    if running.done():
        running.result()  # the worker failed on its own: say why
        return
    bound = graceful_seconds + SHUTDOWN_MARGIN
    ending = asyncio.ensure_future(worker.shutdown())
    done, _ = await asyncio.wait({ending, running}, timeout=bound)
    if ending not in done or running not in done:
        logger.warning(
            "worker %s: Temporal's shutdown took over %g s; stopping without it (the server "
            "hands what is left to another worker)",
            os.getpid(),
            bound,
        )
        for task in (ending, running):
            task.cancel()
        await asyncio.wait({ending, running}, timeout=1.0)


def _on_signals(stop: asyncio.Event) -> list[signal.Signals]:
    """SIGTERM and SIGINT set `stop`, where this loop may take signals; the ones it took."""
    loop = asyncio.get_running_loop()
    caught: list[signal.Signals] = []
    for sig in (signal.SIGTERM, signal.SIGINT):
        try:
            loop.add_signal_handler(sig, stop.set)
        except (RuntimeError, ValueError, NotImplementedError):
            break  # not the main thread (a notebook's own loop): `stop` is the way
        caught.append(sig)
    return caught
