"""The activity that runs one AG-UI run of the agent on a worker: the kit's adapter, unchanged.

An activity is at least once: a worker killed halfway has its activity retried on
another. The adapter's ledger is what makes that safe: an approved call is claimed
there before the SDK runs it, so a retry replays a recorded result, and a claim
whose worker died is a call in doubt, never a second run. Workers that may retry
each other's activities therefore share one ledger (a file on one host, a
`postgresql://` URL across hosts); a run that reaches a worker whose ledger is not the
one the conversation's earlier runs, or the run's earlier try, used ends at once with
`ledger_not_shared`, and nothing runs. The SDK's paused state travels back to the
workflow too, so a resume whose ledger no longer holds it (pruned) still runs.
While it runs, the run's events go to the workflow in batches (`streaming.py`), so a
client reads a reply as it is written; the activity's result stays the authority.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Mapping, Sequence
from datetime import timedelta
from typing import Any

from ag_ui.core import RunAgentInput
from pydantic import ValidationError
from temporalio import activity
from temporalio.client import WorkflowHandle, WorkflowQueryFailedError, WorkflowQueryRejectedError
from temporalio.exceptions import ApplicationError
from temporalio.service import RPCError

from interrupt_widget.agui.wire import to_wire
from interrupt_widget.errors import ErrorCode
from interrupt_widget.ledger.once_only import ledger_place
from interrupt_widget.ledger.pauses import Recording
from interrupt_widget.sdk.adapter import AdapterRunHandle, OpenAIAgentsAdapter
from interrupt_widget.sdk.paused_runs import state_key
from interrupt_widget.temporal.shapes import (
    SEGMENT_ACTIVITY,
    STOPPED_QUERY,
    STREAM_SIGNAL,
    JsonDict,
    PausedState,
    SegmentRequest,
    SegmentResult,
    StreamBatch,
    stopped_at_once,
)
from interrupt_widget.temporal.streaming import SegmentStream


class Segments:
    """The segment activity of one worker, for the agents it serves (by target name)."""

    def __init__(self, adapters: Mapping[str, OpenAIAgentsAdapter]) -> None:
        self.adapters = dict(adapters)

    @activity.defn(name=SEGMENT_ACTIVITY)
    async def run_segment(self, request: SegmentRequest) -> SegmentResult:
        adapter = self.adapters.get(request.agent)
        if adapter is None:
            served = ", ".join(sorted(self.adapters)) or "nothing"
            raise ApplicationError(
                f"this worker serves {served}, not {request.agent}: start a worker for it on "
                "this task queue",
                type=str(ErrorCode.INVALID_INPUT),
                non_retryable=True,
            )
        place = ledger_place(adapter.ledger)
        _require_same_ledger(request, place)
        input = _run_input(request.input)
        await _restore(adapter, input, request.state)
        helpers = [asyncio.ensure_future(_heartbeat(place))]
        try:
            if await _stopped_before(input):
                # Nothing runs: the question goes back to the person, as the Stop said.
                events = stopped_at_once(input.thread_id, input.run_id)
            else:
                stream = _stream(input) if request.stream else None
                if stream is not None:
                    helpers.append(asyncio.ensure_future(stream.run()))
                events = await _events(adapter.run(input), stream)
        except BaseException:
            await _ended(helpers)
            raise
        # The run is over: a Stop that lands now comes too late to change it, as in the
        # kernel, and must not lose it (a pause whose question would go, a call that ran).
        return await _despite_stop(_result(adapter, request, input, events, helpers, place))


async def _ended(helpers: Sequence[asyncio.Future[Any]]) -> None:
    for helper in helpers:
        helper.cancel()
    await asyncio.gather(*helpers, return_exceptions=True)


async def _result(
    adapter: OpenAIAgentsAdapter,
    request: SegmentRequest,
    input: RunAgentInput,
    events: list[JsonDict],
    helpers: Sequence[asyncio.Future[Any]],
    place: str,
) -> SegmentResult:
    """What the activity hands back once its run has ended."""
    await _ended(helpers)
    _raise_to_retry(request, events)
    state = await _paused_state(adapter, input, events)
    edits = _edits(adapter, events)
    return SegmentResult(events=events, state=state, edits=edits, ledger=place)


async def _despite_stop(ending: Awaitable[SegmentResult]) -> SegmentResult:
    """`ending`'s result even if a person's Stop cancels the activity meanwhile; a cancel for
    any other reason (the worker shutting down) still cuts it off."""
    task = asyncio.ensure_future(ending)
    try:
        return await asyncio.shield(task)
    except asyncio.CancelledError:
        why = activity.cancellation_details()
        if why is None or not why.cancel_requested:
            task.cancel()
            raise
        return await task


def _require_same_ledger(request: SegmentRequest, place: str) -> None:
    """Refuse a run whose conversation's earlier runs, or whose own earlier try (its last
    heartbeat says where), used a ledger other than this worker's: a call claimed there is
    unknown here and could run twice. Nothing runs; the run ends saying so, at once."""
    tried = activity.info().heartbeat_details
    if request.ledger is not None:
        earlier, whose = request.ledger, "this conversation's earlier runs used"
    elif tried:
        earlier, whose = str(tried[0]), "an earlier try of this run, on another worker, used"
    else:
        return
    if earlier == place:
        return
    raise ApplicationError(
        f"this worker's call ledger is {place}, but {whose} {earlier}: a call approved there "
        "could run twice here, so nothing ran. Give every worker on task queue "
        f"{activity.info().task_queue!r} the same ledger (one SQLite file on one host, or one "
        "postgresql:// URL across hosts)",
        type=str(ErrorCode.LEDGER_NOT_SHARED),
        non_retryable=True,
    )


def _run_input(wire: JsonDict) -> RunAgentInput:
    """The run's input, or a failure no retry can mend: the run ends with `invalid_input`."""
    try:
        return RunAgentInput.model_validate(wire)
    except ValidationError as problem:
        raise ApplicationError(
            f"the run's input is not an AG-UI RunAgentInput: {problem}",
            type=str(ErrorCode.INVALID_INPUT),
            non_retryable=True,
        ) from None


def _raise_to_retry(request: SegmentRequest, events: list[JsonDict]) -> None:
    """A run that ended in RUN_ERROR, as a retryable failure when the request asks for it."""
    last = events[-1] if events else {}
    if request.retry_errors and last.get("type") == "RUN_ERROR":
        code = str(last.get("code") or ErrorCode.AGENT_FAILED)
        raise ApplicationError(str(last.get("message", "")), type=code)


def _workflow(input: RunAgentInput) -> WorkflowHandle[Any, Any]:
    """The workflow that started this segment."""
    info = activity.info()
    return activity.client().get_workflow_handle(
        info.workflow_id or input.thread_id, run_id=info.workflow_run_id
    )


def _stream(input: RunAgentInput) -> SegmentStream:
    """The run's events on their way to the workflow that started this segment, as they come."""
    workflow = _workflow(input)

    async def send(batch: StreamBatch) -> None:
        await workflow.signal(STREAM_SIGNAL, batch, rpc_timeout=SEND_TIMEOUT)

    return SegmentStream(send, input.run_id, activity.info().attempt)


SEND_TIMEOUT = timedelta(seconds=5)
"""How long one batch of a run's events may take to reach the server before the next try."""


async def _stopped_before(input: RunAgentInput) -> bool:
    """Whether a person's Stop ended this run before this try of it: its worker died, and the
    Stop was pressed while no worker was there to carry it to the run, so the server hands the
    retry out as if nothing had been asked. The first try never asks (the Stop reaches it as
    a cancel), and a workflow that cannot answer within `STOPPED_ASK_TIMEOUT` (its last worker
    is the dead one) is taken as not stopped: the retry runs, as it did before it asked."""
    if activity.info().attempt == 1:
        return False
    try:
        stopped: bool = await _workflow(input).query(
            STOPPED_QUERY, input.run_id, result_type=bool, rpc_timeout=STOPPED_ASK_TIMEOUT
        )
    except (RPCError, WorkflowQueryFailedError, WorkflowQueryRejectedError):
        return False
    return stopped


STOPPED_ASK_TIMEOUT = timedelta(seconds=2)
"""How long a retry waits for its workflow to say whether a Stop ended its run."""


async def _events(run: AdapterRunHandle, stream: SegmentStream | None) -> list[JsonDict]:
    """The run's events. Cancelled by the workflow (a person's Stop), the run is asked to end
    itself at its next safe point, as in the kernel (an approved call already running finishes
    first) and its closing events are kept; cancelled for any other reason (a heartbeat timed
    out, the worker shutting down), the run is cut off and the activity handed back: an
    approved call the SDK may have started keeps its claim, so the retry finds it in doubt
    rather than running it again (`held_calls`)."""
    reading = asyncio.ensure_future(_read(run, stream))
    try:
        return await asyncio.shield(reading)
    except asyncio.CancelledError:
        why = activity.cancellation_details()
        if why is None or not why.cancel_requested:
            reading.cancel()
            raise
        run.stop()
        return await reading


async def _read(run: AdapterRunHandle, stream: SegmentStream | None) -> list[JsonDict]:
    events: list[JsonDict] = []
    async for event in run:
        events.append(to_wire(event))
        if stream is not None:
            stream.add(events[-1])
    return events


STOP_REACH = 0.3
"""The longest a person's Stop waits to reach a running segment, in seconds: a worker sends
a running activity's heartbeat this often (`build_worker`), and the server's answer to it
carries the workflow's cancel."""


async def _heartbeat(place: str) -> None:
    """Tell the server this worker lives, often enough that each heartbeat the worker may send
    (one per `STOP_REACH`, or per 0.8 of the heartbeat timeout) has news to carry. Each says
    where this worker's ledger is: a try of the run on another worker reads it."""
    timeout = activity.info().heartbeat_timeout
    every = min(timeout.total_seconds() / 3 if timeout else 5.0, STOP_REACH / 3)
    while True:
        activity.heartbeat(place)
        await asyncio.sleep(every)


async def _restore(
    adapter: OpenAIAgentsAdapter, input: RunAgentInput, state: PausedState | None
) -> None:
    """Put the workflow's copy of the paused state in this worker's ledger when it lacks it."""
    if state is None or not input.resume or not isinstance(adapter.ledger, Recording):
        return
    key = (input.thread_id, state.call_id)
    if await adapter.ledger.recorded(key) is None:
        await asyncio.to_thread(adapter.ledger.record, key[0], key[1], state.text)


def _edits(adapter: OpenAIAgentsAdapter, events: list[JsonDict]) -> dict[str, JsonDict]:
    """The edit rules of the tools the run paused on (none for a tool that takes no edit)."""
    outcome: Any = events[-1].get("outcome") if events else None
    if not isinstance(outcome, dict) or outcome.get("type") != "interrupt":
        return {}
    names = {str((i.get("metadata") or {}).get("tool_name")) for i in outcome["interrupts"]}
    found: dict[str, JsonDict] = {}
    for name in sorted(names):
        spec = adapter.edits.get(name)
        if spec is not None:
            fields = None if spec.fields is None else list(spec.fields)
            found[name] = {"fields": fields, "parameters": dict(spec.parameters)}
    return found


async def _paused_state(
    adapter: OpenAIAgentsAdapter, input: RunAgentInput, events: list[JsonDict]
) -> PausedState | None:
    """The SDK state the run paused in, read back from the ledger the adapter wrote it to."""
    outcome: Any = events[-1].get("outcome") if events else None
    if not isinstance(outcome, dict) or outcome.get("type") != "interrupt":
        return None
    call_ids = [str(i.get("toolCallId")) for i in outcome.get("interrupts", [])]
    key = state_key(input.thread_id, call_ids)
    found = await adapter.ledger.recorded(key)
    return None if found is None else PausedState(call_id=key[1], text=found.output)
