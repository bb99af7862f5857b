"""`TemporalAgent`: an AG-UI agent whose runs happen on Temporal workers.

It is an `AGUIAgent` like the kernel's adapter, so `AgentChat`, `AgentBatch`, `Inbox`,
`serve`, the responders and policies take it unchanged. A thread id is a workflow id:
new input is an update that starts the conversation's workflow if it is not running
(update-with-start), answers are an update whose id is the run's, so the same answer
sent again (a retry) is the same update and runs nothing twice. While the update waits,
the run's events are read from the workflow as the worker's run says them (`streaming.py`),
so a reply reads as it is written; the update's result is the authority.
"""

from __future__ import annotations

import asyncio
import contextlib
import urllib.parse
from collections.abc import AsyncGenerator, Awaitable, Callable
from typing import Any, TypeVar

from ag_ui.core import (
    BaseEvent,
    RunAgentInput,
    RunErrorEvent,
    RunStartedEvent,
)
from temporalio.client import (
    Client,
    WithStartWorkflowOperation,
    WorkflowQueryFailedError,
    WorkflowQueryRejectedError,
    WorkflowUpdateFailedError,
)
from temporalio.common import WorkflowIDConflictPolicy
from temporalio.exceptions import ApplicationError
from temporalio.service import RPCError

from interrupt_widget.agui.notes import waiting_note
from interrupt_widget.agui.run_handle import RunHandle
from interrupt_widget.agui.wire import event_from_wire, to_wire
from interrupt_widget.errors import ErrorCode, TemporalMisconfigured, TemporalUnavailable
from interrupt_widget.ledger.once_only import CallLedger
from interrupt_widget.ledger.opening import LedgerSpec, open_ledger
from interrupt_widget.temporal.dev_server import WAITING_ATTRIBUTE
from interrupt_widget.temporal.preflight import WORKER_WAIT, prepare, require_worker
from interrupt_widget.temporal.shapes import (
    ANSWER_UPDATE,
    OPEN_QUERY,
    RUN_UPDATE,
    STOP_SIGNAL,
    STREAM_QUERY,
    WORKFLOW,
    ConversationStart,
    JsonDict,
    OpenConversation,
    ResumeUpdate,
    StreamChunk,
    stopped_at_once,
)
from interrupt_widget.temporal.streaming import StreamFollower
from interrupt_widget.temporal.tracing import client_interceptors
from interrupt_widget.temporal.worker_watch import LOOK_EVERY, Verdict, WorkerWatch

UNPROCESSED_UPDATE = "UnprocessedUpdate"
"""The server's failure type for an update whose workflow task a worker completed without
taking it (a worker killed with the workflow in its cache, and the task handed on): the update
was never applied, so it is sent again, with the same id."""
UNPROCESSED_TRIES = 5
CONNECT_TIMEOUT = 5.0
"""How long to try a Temporal address before saying it cannot be reached."""

WORKER_SEEN_FOR = 10.0
"""How long a worker seen polling the task queue spares the next run the look."""

STREAM_POLL = 0.03
"""Seconds between two reads of a running run's events while it says things (each read is a
query: nothing in the workflow's history); the wait grows to `STREAM_POLL_QUIET` while it
says nothing."""
STREAM_POLL_QUIET = 0.15


async def connect(address: str, *, namespace: str = "default") -> Client:
    """A client of the Temporal server at `address`; `TemporalUnavailable` if it is not there."""
    try:
        return await asyncio.wait_for(
            Client.connect(address, namespace=namespace, interceptors=client_interceptors()),
            timeout=CONNECT_TIMEOUT,
        )
    except (RuntimeError, RPCError, TimeoutError, OSError) as exc:
        raise TemporalUnavailable(
            f"the Temporal server at {address} cannot be reached ({exc}): start it (or "
            "interrupt_widget.temporal.dev_server() to try things out) and try again"
        ) from None


class TemporalAgent:
    """The agent named `agent` (`package.module:attribute`), run by workers on `task_queue`.

    `client_or_address`: a `temporalio.client.Client`, or the server's `host:port` (connected
    on first use, in the running event loop). Start workers with `run_worker(...)` or
    `python -m interrupt_widget worker package.module:attribute --temporal HOST:PORT
    --task-queue Q`; a worker imports the agent itself, so the same agent runs in the kernel
    and on workers with no change.

    `heartbeat_seconds`: a run whose worker has not been heard from for this long is retried
    on another worker. `keep_open_seconds`: how long a conversation with nothing open waits
    for input before its workflow ends. `max_history_events`: past this, the workflow
    continues as new between runs. `expiry_attempts`, `expiry_backoff_seconds`: how often,
    and after what first wait (doubling), the workflow tries to cancel questions whose deadline
    passed before it leaves them open, saying why. `ui_url`: Temporal's Web UI, for
    `run_link`. `ledger`: the workers' ledger, so a call a dead worker left in doubt is settled
    from the card. `worker_wait_seconds`: how long a run waits for a worker to poll
    `task_queue` before it ends with `no_worker` (nothing sent).

    On first use the client checks the namespace exists and holds the kit's search attribute
    (adding it where the server allows); a server that cannot carry the runs ends each with a
    RUN_ERROR naming what is missing (`TemporalMisconfigured`'s codes), never a silent wait.
    """

    def __init__(
        self,
        client_or_address: Client | str,
        *,
        agent: str,
        task_queue: str,
        namespace: str = "default",
        heartbeat_seconds: float = 10.0,
        keep_open_seconds: float = 3600.0,
        max_history_events: int = 10_000,
        expiry_attempts: int = 5,
        expiry_backoff_seconds: float = 1.0,
        ui_url: str | None = None,
        ledger: LedgerSpec = None,
        worker_wait_seconds: float = WORKER_WAIT,
    ) -> None:
        self._client = client_or_address if isinstance(client_or_address, Client) else None
        self._prepared = False
        self._worker_seen_at: float | None = None
        self.worker_wait_seconds = worker_wait_seconds
        self.address: str = (
            client_or_address.service_client.config.target_host
            if isinstance(client_or_address, Client)
            else client_or_address
        )
        self.agent = agent
        self.task_queue = task_queue
        self.namespace = namespace
        self.start = ConversationStart(
            agent=agent,
            task_queue=task_queue,
            heartbeat_seconds=heartbeat_seconds,
            keep_open_seconds=keep_open_seconds,
            max_history_events=max_history_events,
            expiry_attempts=expiry_attempts,
            expiry_backoff_seconds=expiry_backoff_seconds,
        )
        self.ui_url = ui_url
        """The Temporal Web UI (e.g. `DevServer.ui_url`), for `run_link`; None: no links."""
        self.ledger: CallLedger | None = None if ledger is None else open_ledger(ledger)
        """The workers' ledger, when given (`ledger=`: the same file or `postgresql://` URL the
        workers use): a call left in doubt by a worker that died is then settled from the card."""

    def __repr__(self) -> str:
        return f"<TemporalAgent {self.agent} on {self.task_queue} at {self.address}>"

    async def client(self) -> Client:
        """The Temporal client (connected now if only an address was given)."""
        if self._client is None:
            self._client = await connect(self.address, namespace=self.namespace)
        if not self._prepared:
            await prepare(self._client, self.address)
            self._prepared = True
        return self._client

    async def wait_for_worker(self, *, within: float = 60.0) -> None:
        """Return once a worker polls this agent's task queue; `TemporalMisconfigured`
        (`no_worker`) after `within` seconds without one. A notebook that starts its worker
        process beside the agent awaits this before the first run."""
        client = await self.client()
        await require_worker(client, self.task_queue, self.agent, within=within)
        self._worker_seen_at = asyncio.get_running_loop().time()

    async def _require_worker(self, client: Client) -> None:
        """Refuse a run no worker would take (`no_worker`), rather than let it wait unseen."""
        now = asyncio.get_running_loop().time()
        if self._worker_seen_at is not None and now - self._worker_seen_at < WORKER_SEEN_FOR:
            return
        await require_worker(client, self.task_queue, self.agent, within=self.worker_wait_seconds)
        self._worker_seen_at = asyncio.get_running_loop().time()

    def run_link(self, thread_id: str) -> str | None:
        """The Web UI's list of the runs of the conversation `thread_id` (its workflow, and the
        runs it continued as new into); None without `ui_url`."""
        if self.ui_url is None:
            return None
        query = urllib.parse.quote(f'WorkflowId="{_quoted(thread_id)}"', safe="")
        namespace = urllib.parse.quote(self.namespace, safe="")
        return f"{self.ui_url}/namespaces/{namespace}/workflows?query={query}"

    def run(self, input: RunAgentInput) -> RunHandle:
        """One AG-UI run on a worker: new input, or the answers in `input.resume`."""
        return TemporalRunHandle(self, input)

    async def stop_run(self, thread_id: str, run_id: str) -> None:
        """Ask the run `run_id` of `thread_id` to end cancelled at its next safe point."""
        await self._stop_sent(thread_id, run_id)

    async def _events(
        self, input: RunAgentInput, stopped: Callable[[], bool]
    ) -> AsyncGenerator[BaseEvent, None]:
        """The run's events: as its segment says them (read from the workflow while the
        update that runs it waits), then what its result adds, each said once. `stopped`
        says whether Stop came (before the run was sent: then nothing is sent).

        While it waits, a `WorkerWatch` looks at whether a worker takes it: one that waits
        `worker_wait_seconds` for none gets a waiting note (`agui.notes`), and a Stop then
        ends it here, at once (the workflow holds the Stop, and cancels the run before any
        worker starts it)."""
        follower = StreamFollower(input.run_id)
        performing = asyncio.ensure_future(self._outcome(input, stopped))
        reading: asyncio.Future[StreamChunk] | None = None
        watch: WorkerWatch | None = None
        wait = STREAM_POLL
        try:
            while not performing.done():
                # A read never holds up the result: whichever comes first is taken. A read
                # that hangs (no worker answers the query) holds up neither the watch.
                if reading is None:
                    reading = asyncio.ensure_future(self._streamed(input, follower))
                either: set[asyncio.Future[Any]] = {performing, reading}
                await asyncio.wait(either, timeout=LOOK_EVERY, return_when=asyncio.FIRST_COMPLETED)
                if performing.done():
                    break
                news: list[JsonDict] = []
                if reading.done():
                    news, reading = follower.take(reading.result()), None
                for event in news:
                    yield event_from_wire(event)
                watch = watch or self._watch(input.thread_id)
                said = bool(news)
                verdict = None if watch is None else await watch.look(stopped=stopped(), moved=said)
                if verdict is Verdict.TELL and watch is not None:
                    yield waiting_note(self._no_worker_note(watch.waited))
                elif verdict is Verdict.END and await self._stop_sent(
                    input.thread_id, input.run_id
                ):
                    performing.cancel()
                    performing.add_done_callback(_unheard)  # its RPC's end says nothing
                    for event in follower.rest(_stopped_wire(input)):
                        yield event_from_wire(event)
                    return
                if reading is None:
                    # Read often while the run says things, less while it is quiet (a tool, a
                    # model thinking): each read is a query the worker answers.
                    wait = STREAM_POLL if news else min(wait * 1.5, STREAM_POLL_QUIET)
                    await asyncio.wait({performing}, timeout=wait)
            found = performing.result()
        finally:
            for task in (performing, reading):
                if task is not None and not task.done():
                    task.cancel()
        for event in follower.rest(found):
            yield event_from_wire(event)

    def _watch(self, thread_id: str) -> WorkerWatch | None:
        """A watch on whether a worker takes the run, once the client is ready (else None)."""
        if self._client is None or not self._prepared:
            return None
        return WorkerWatch(self._client, thread_id, self.worker_wait_seconds)

    def _no_worker_note(self, waited: float) -> str:
        return (
            f"No worker has taken this run for {waited:.0f} s: the worker of task queue "
            f"{self.task_queue!r} may have stopped. Start one (python -m interrupt_widget "
            f"worker {self.agent} --temporal {self.address} --task-queue {self.task_queue}) "
            "and the run goes on, or press Stop."
        )

    async def _stop_sent(self, thread_id: str, run_id: str) -> bool:
        """Whether the workflow of `thread_id` now holds the Stop of run `run_id`."""
        client = await self.client()
        try:
            await client.get_workflow_handle(thread_id).signal(STOP_SIGNAL, run_id)
        except RPCError:
            return False
        return True

    async def _streamed(self, input: RunAgentInput, follower: StreamFollower) -> StreamChunk:
        """What the workflow holds of the run's events past the follower's offset (nothing
        until the client is ready, or the run has not begun)."""
        client = self._client
        if client is None or not self._prepared:
            return StreamChunk()
        handle = client.get_workflow_handle(input.thread_id)
        try:
            chunk: StreamChunk = await handle.query(
                STREAM_QUERY, follower.read(), result_type=StreamChunk
            )
        except (RPCError, WorkflowQueryFailedError, WorkflowQueryRejectedError):
            return StreamChunk()  # no workflow yet, or it is busy: the result says all anyway
        return chunk

    async def _outcome(self, input: RunAgentInput, stopped: Callable[[], bool]) -> list[JsonDict]:
        """The run's events as its result says them, or the refusal the client reports."""
        try:
            found = await self._perform(input, stopped)
        except WorkflowUpdateFailedError as failure:
            cause = failure.cause
            code = cause.type if isinstance(cause, ApplicationError) and cause.type else None
            # The refusal's own words, as the run in process says them (`str` adds the type).
            said = cause.message if isinstance(cause, ApplicationError) else str(failure)
            if code == UNPROCESSED_UPDATE:  # Temporal's words blame the worker's version
                code, said = ErrorCode.NO_WORKER, self._unprocessed_message()
            found = _refused(input, code or ErrorCode.AGENT_FAILED, said)
            if code == ErrorCode.ANSWERED_ELSEWHERE:
                found[1:1] = await self._held_messages(input.thread_id)
        except TemporalUnavailable as down:
            found = _refused(input, ErrorCode.TEMPORAL_UNAVAILABLE, str(down))
        except TemporalMisconfigured as wrong:
            found = _refused(input, wrong.code, str(wrong))
        except RPCError as down:
            message = f"the Temporal server at {self.address} failed the request: {down}"
            found = _refused(input, ErrorCode.TEMPORAL_UNAVAILABLE, message)
        return found

    def _unprocessed_message(self) -> str:
        return (
            f"No worker of task queue {self.task_queue!r} took this run: the Temporal server "
            f"handed it on {UNPROCESSED_TRIES} times and each time the worker left it unapplied "
            "(a worker stopped with this conversation in hand): nothing ran. Check that the "
            f"queue's workers stay up (python -m interrupt_widget worker {self.agent} --temporal "
            f"{self.address} --task-queue {self.task_queue}), then send it again."
        )

    async def _held_messages(self, thread_id: str) -> list[JsonDict]:
        """A snapshot of the conversation as its workflow holds it, for a client whose answer
        came second: its view catches up with the answer that was taken (and the call's
        result, once that run has ended), so it stops asking. Empty if it cannot be read."""
        try:
            held = await self.conversation(thread_id)
        except RPCError:
            return []
        return [{"type": "MESSAGES_SNAPSHOT", "messages": held.messages}]

    async def _perform(self, input: RunAgentInput, stopped: Callable[[], bool]) -> list[JsonDict]:
        return await _sent_until_processed(lambda: self._send(input, stopped))

    async def _send(self, input: RunAgentInput, stopped: Callable[[], bool]) -> list[JsonDict]:
        client = await self.client()
        await self._require_worker(client)
        if stopped():  # Stop came while the worker was looked for: no workflow has the run
            return [to_wire(event) async for event in _stopped_at_once(input)]
        wire = to_wire(input)
        if input.resume:
            entries = [to_wire(e) for e in input.resume]
            handle = client.get_workflow_handle(input.thread_id)
            events: list[JsonDict] = await handle.execute_update(
                ANSWER_UPDATE,
                ResumeUpdate(run_id=input.run_id, entries=entries),
                id=f"answer-{input.run_id}",
                result_type=list,
            )
            return events
        start: WithStartWorkflowOperation[Any, Any] = WithStartWorkflowOperation(
            WORKFLOW,
            self.start,
            id=input.thread_id,
            task_queue=self.task_queue,
            id_conflict_policy=WorkflowIDConflictPolicy.USE_EXISTING,
        )
        run_events: list[JsonDict] = await client.execute_update_with_start_workflow(
            RUN_UPDATE, wire, start_workflow_operation=start, id=f"run-{input.run_id}",
            result_type=list,
        )  # fmt: skip
        return run_events

    # -- what a new kernel finds ---------------------------------------------------------------

    async def waiting(
        self, *, at_least: int = 0, within: float = 5.0, limit: int = 1000
    ) -> list[OpenConversation]:
        """Every conversation of this agent's queue waiting for an answer, found through
        Temporal's visibility (the `InterruptWidgetWaiting` search attribute), read whole.

        Visibility follows a workflow by moments: with `at_least`, ask again for up to
        `within` seconds until that many are found.
        """
        deadline = asyncio.get_running_loop().time() + within
        while True:
            found = await self._waiting_now(limit)
            if len(found) >= at_least or asyncio.get_running_loop().time() > deadline:
                return found
            await asyncio.sleep(0.1)

    async def _waiting_now(self, limit: int) -> list[OpenConversation]:
        client = await self.client()
        query = (
            f'{WAITING_ATTRIBUTE} = "yes" AND ExecutionStatus = "Running" '
            f'AND TaskQueue = "{_quoted(self.task_queue)}"'
        )
        found: list[OpenConversation] = []
        async for listed in client.list_workflows(query, limit=limit):
            handle = client.get_workflow_handle(listed.id)
            with contextlib.suppress(RPCError):
                held = await handle.query(OPEN_QUERY, result_type=OpenConversation)
                if held.interrupts:
                    found.append(held)
        return found

    async def conversation(self, thread_id: str) -> OpenConversation:
        """What the workflow of `thread_id` holds now: its messages and open interrupts."""
        client = await self.client()
        held: OpenConversation = await client.get_workflow_handle(thread_id).query(
            OPEN_QUERY, result_type=OpenConversation
        )
        return held


class TemporalRunHandle:
    """One run on a worker, as a `RunHandle`: its events as the worker's run says them; `stop()`
    asks the workflow to end it at its next safe point, as the kernel's adapter would."""

    def __init__(self, agent: TemporalAgent, input: RunAgentInput) -> None:
        self._agent, self._input = agent, input
        self._stopped = False
        self._events = agent._events(input, lambda: self._stopped)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._signalling: asyncio.Future[None] | None = None

    def __aiter__(self) -> TemporalRunHandle:
        return self

    async def __anext__(self) -> BaseEvent:
        if self._loop is None:
            self._loop = asyncio.get_running_loop()
            if self._stopped:  # stopped before it was sent: nothing was asked of a worker
                self._events = _stopped_at_once(self._input)
        return await self._events.__anext__()

    @property
    def can_stop(self) -> bool:
        return True

    def stop(self) -> None:
        """Ask the run to end cancelled (thread-safe); keep reading for its last events."""
        self._stopped = True
        loop = self._loop
        if loop is not None and not loop.is_closed():
            with contextlib.suppress(RuntimeError):  # the loop closed meanwhile: nothing runs
                loop.call_soon_threadsafe(self._signal)

    def _signal(self) -> None:
        input = self._input
        self._signalling = asyncio.ensure_future(
            self._agent.stop_run(input.thread_id, input.run_id)
        )

    async def aclose(self) -> None:
        await self._events.aclose()


def _unheard(task: asyncio.Future[Any]) -> None:
    if not task.cancelled():
        task.exception()


def _stopped_wire(input: RunAgentInput) -> list[JsonDict]:
    return stopped_at_once(input.thread_id, input.run_id)


async def _stopped_at_once(input: RunAgentInput) -> AsyncGenerator[BaseEvent, None]:
    for event in _stopped_wire(input):
        yield event_from_wire(event)


def _refused(input: RunAgentInput, code: str, message: str) -> list[JsonDict]:
    started = RunStartedEvent(thread_id=input.thread_id, run_id=input.run_id)
    return [to_wire(started), to_wire(RunErrorEvent(message=message, code=code))]


__all__ = ["TemporalAgent", "connect"]


def _quoted(text: str) -> str:
    """`text` inside a visibility query's double quotes."""
    return text.replace("\\", "\\\\").replace('"', '\\"')


_T = TypeVar("_T")


async def _sent_until_processed(send: Callable[[], Awaitable[_T]]) -> _T:
    """`send()`, sent again (up to `UNPROCESSED_TRIES` times in all) while the server rejects
    its update as one no worker processed; any other failure is the caller's."""
    for attempt in range(1, UNPROCESSED_TRIES):
        try:
            return await send()
        except WorkflowUpdateFailedError as failure:
            cause = failure.cause
            if not (isinstance(cause, ApplicationError) and cause.type == UNPROCESSED_UPDATE):
                raise
            await asyncio.sleep(0.2 * attempt)
    return await send()
