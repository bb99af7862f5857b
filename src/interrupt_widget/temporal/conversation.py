"""The conversation workflow: one per AG-UI thread, holding what must outlive any process.

The Agents SDK cannot run inside a workflow (its model calls and tools are I/O), so
each AG-UI run of the agent is one activity (`segments.py`) and the workflow keeps
what the kernel's thread keeps: the messages of the last snapshot, the open
interrupts, and the SDK's paused state. Answers arrive as Temporal Updates whose
validator runs the kit's own resume checks (`plan_resume`: every interrupt answered,
the schema, unknown fields, expiry, the calls as shown; and the rules about people, on the
quorum and votes the interrupts show), so a bad answer is refused
before it enters history; the first answer to be accepted takes the interrupts, and
any other is told they were answered elsewhere. An interrupt's `expiresAt` is a
durable timer: once every open one has passed, the workflow cancels them itself (tried
again with backoff a bounded number of times; then they stay open, saying why).
While interrupts are open the workflow sets the `InterruptWidgetWaiting` search
attribute to "yes", so a new kernel's inbox finds it through visibility.
A running run's events come in batches by signal from its segment and are read by query
(`streaming.py`); they are dropped once the run ends, its result being the authority.
"""

from __future__ import annotations

import asyncio
import dataclasses
from datetime import datetime, timedelta
from functools import partial
from typing import Any

from temporalio import workflow
from temporalio.common import RetryPolicy, SearchAttributeKey
from temporalio.exceptions import ActivityError, ApplicationError, CancelledError
from temporalio.workflow import ActivityCancellationType

from interrupt_widget.agui.interrupts import (
    ANSWERED_BY_EXPIRY,
    GatedCall,
    answered_call_ids,
)
from interrupt_widget.agui.resume import plan_resume
from interrupt_widget.agui.wire import message_from_wire, resume_entry_from_wire
from interrupt_widget.clock import parse_instant, utc_text
from interrupt_widget.errors import AdapterError, ErrorCode
from interrupt_widget.sdk.edits import EditSpec, check_edit
from interrupt_widget.sdk.vote_counting import refuse_as_shown
from interrupt_widget.temporal.dev_server import WAITING_ATTRIBUTE
from interrupt_widget.temporal.shapes import (
    ANSWER_UPDATE,
    OPEN_QUERY,
    RUN_UPDATE,
    SEGMENT_ACTIVITY,
    STOP_SIGNAL,
    STOPPED_QUERY,
    STREAM_QUERY,
    STREAM_SIGNAL,
    WORKFLOW,
    Carried,
    ConversationStart,
    JsonDict,
    OpenConversation,
    PausedState,
    ResumeUpdate,
    SegmentRequest,
    SegmentResult,
    StreamBatch,
    StreamChunk,
    StreamRead,
    stopped_at_once,
)

WAITING = SearchAttributeKey.for_keyword(WAITING_ATTRIBUTE)
"""Set to "yes" while the conversation waits for an answer, "no" otherwise."""

BUSY = "busy"
"""The ApplicationError type of new input sent while a run is going."""

EXPIRY_GRACE = timedelta(seconds=2)
"""How long after the last deadline the workflow cancels the open questions itself. A chat
that watches them gives each its default answer at its deadline, as in the kernel (a denial
where the rules say so); the workflow's own cancel is for questions nobody watches, and were
it to fire at the same moment, the chat's answer would race it and be refused."""

SEGMENT_TIMEOUT = timedelta(hours=1)
"""The longest one run of the agent (its model calls and tools) may take."""

RUN_RETRY = RetryPolicy(
    initial_interval=timedelta(milliseconds=200), maximum_interval=timedelta(seconds=5)
)
"""A run a person waits for is tried again until it ends (a worker that died is replaced);
its own errors end it, reported to that person."""


def refusal(code: ErrorCode | str, message: str) -> ApplicationError:
    """An update's refusal: its type is the kit's error code, for the client to read back."""
    return ApplicationError(message, type=str(code), non_retryable=True)


@workflow.defn(name=WORKFLOW)
class Conversation:
    """One AG-UI thread; its workflow id is the thread id."""

    @workflow.init
    def __init__(self, start: ConversationStart) -> None:
        self._start = start
        self._messages: list[JsonDict] = []
        self._interrupts: list[JsonDict] = []
        self._state: PausedState | None = None
        self._edits: dict[str, JsonDict] = {}
        self._busy = False
        self._answered: set[str] = set()
        """Every interrupt id an accepted answer took (to tell a late answer so)."""
        self._changes = 0
        self._running: workflow.ActivityHandle[SegmentResult] | None = None
        self._running_run: str | None = None
        self._stop_run: str | None = None
        """The run id a person asked to stop (it may come before its activity starts)."""
        self._problem: str | None = None
        """Why the open interrupts outlived their deadline (their expiry failed every try)."""
        self._stream: StreamChunk | None = None
        """The running run's events so far, as its segment sent them (`streaming.py`)."""
        self._ledger: str | None = None
        """Where the ledger of this conversation's runs keeps its records, as its first run's
        worker said (`ledger_place`): a worker whose ledger is elsewhere refuses a run."""
        if start.carried is not None:
            held = start.carried
            self._messages, self._interrupts = held.messages, held.interrupts
            self._state, self._edits, self._answered = held.state, held.edits, set(held.answered)
            self._problem, self._ledger = held.problem, held.ledger

    @workflow.run
    async def run(self, start: ConversationStart) -> None:
        while True:
            if not self._busy and self._history_is_long():
                await self._continue_as_new()
            seen = self._changes
            deadline = self._deadline()
            idle = not self._busy and not self._interrupts
            timeout = start.keep_open_seconds if idle else None
            if deadline is not None and not self._busy:
                timeout = max((deadline - workflow.now()).total_seconds(), 0.0)
            try:
                await workflow.wait_condition(partial(self._changed_since, seen), timeout=timeout)
            except TimeoutError:
                if self._busy or self._changes != seen:
                    continue
                if self._interrupts:
                    await self._expire()
                    continue
                break  # nothing open, nothing new for `keep_open_seconds`: the conversation rests
        await workflow.wait_condition(workflow.all_handlers_finished)

    def _changed_since(self, seen: int) -> bool:
        return self._changes != seen

    def _history_is_long(self) -> bool:
        info = workflow.info()
        limit = self._start.max_history_events
        return info.is_continue_as_new_suggested() or info.get_current_history_length() >= limit

    async def _continue_as_new(self) -> None:
        """Start this conversation's next run with what it holds, between runs of the agent."""
        await workflow.wait_condition(workflow.all_handlers_finished)
        carried = Carried(
            messages=self._messages,
            interrupts=self._interrupts,
            state=self._state,
            edits=self._edits,
            answered=sorted(self._answered),
            problem=self._problem,
            ledger=self._ledger,
        )
        workflow.continue_as_new(
            dataclasses.replace(self._start, carried=carried),
            search_attributes=workflow.info().typed_search_attributes,
        )

    # -- reading -------------------------------------------------------------------------------

    @workflow.query(name=OPEN_QUERY)
    def open(self) -> OpenConversation:
        return OpenConversation(
            thread_id=workflow.info().workflow_id,
            messages=self._messages,
            interrupts=self._interrupts,
            running=self._busy,
            problem=self._problem,
        )

    @workflow.query(name=STREAM_QUERY)
    def stream(self, read: StreamRead) -> StreamChunk:
        """The running run's events from `read`'s offset on (of its attempt, else all)."""
        held = self._stream
        if held is None or read.run_id != self._running_run:
            return StreamChunk()
        offset = read.offset if read.attempt == held.attempt else 0
        return StreamChunk(held.attempt, offset, held.events[offset:])

    @workflow.signal(name=STREAM_SIGNAL)
    def streamed(self, batch: StreamBatch) -> None:
        """Keep a batch of the running run's events: a later attempt's start replaces an
        earlier attempt's; what is held already, or comes late, is dropped."""
        if self._running is None or batch.run_id != self._running_run:
            return
        held = self._stream
        if held is None or batch.attempt > held.attempt:
            if batch.offset != 0:
                return
            held = self._stream = StreamChunk(attempt=batch.attempt)
        elif batch.attempt < held.attempt:
            return
        if batch.offset <= len(held.events):
            held.events.extend(batch.events[len(held.events) - batch.offset :])

    # -- new input -----------------------------------------------------------------------------

    @workflow.update(name=RUN_UPDATE)
    async def run_input(self, input: JsonDict) -> list[JsonDict]:
        self._check_input(input)
        return await self._segment(input, taken=[])

    @run_input.validator
    def _check_input(self, input: JsonDict) -> None:
        if self._busy:
            raise refusal(BUSY, "the agent is still answering; wait for the run or stop it first")
        if self._interrupts:
            raise refusal(
                ErrorCode.PENDING_INTERRUPTS,
                "the agent is waiting for an answer; answer or cancel it before sending a "
                "new message",
            )
        if input.get("threadId") != workflow.info().workflow_id or input.get("resume"):
            raise refusal(ErrorCode.INVALID_INPUT, "this input is for another thread, or resumes")
        # A view that missed a turn (another notebook's) would overwrite it with its own
        # history: told, with the conversation as held, so it catches up instead.
        held = [m.get("id") for m in self._messages]
        sent = [m.get("id") for m in input.get("messages", []) if isinstance(m, dict)]
        if sent[: len(held)] != held:
            raise refusal(
                ErrorCode.ANSWERED_ELSEWHERE,
                "this view is behind the conversation (another notebook added to it); it was "
                "brought up to date, and this message was not sent",
            )

    # -- answers -------------------------------------------------------------------------------

    @workflow.update(name=ANSWER_UPDATE)
    async def answer(self, answer: ResumeUpdate) -> list[JsonDict]:
        if self._busy and self._stopping():
            # An answer that comes while a stopped run winds down waits for it: the Stop puts
            # the run's questions back (`_fold`).
            await workflow.wait_condition(lambda: not self._busy)
        # Checked again now, in full: two answers validated in one step both pass the
        # validator (only the first to get here takes the interrupts), and one that came
        # while a stopped run wound down was not checked there at all.
        self._check_answer(answer)
        taken, self._interrupts = self._interrupts, []
        self._answered.update(i["id"] for i in taken)
        input = {
            "threadId": workflow.info().workflow_id,
            "runId": answer.run_id,
            "messages": self._messages,
            "tools": [],
            "context": [],
            "resume": answer.entries,
        }
        return await self._segment(input, taken=taken)

    @answer.validator
    def _check_answer_now(self, answer: ResumeUpdate) -> None:
        if self._busy and self._stopping():
            return  # the stopped run may put its questions back: the handler checks then
        self._check_answer(answer)

    def _check_answer(self, answer: ResumeUpdate) -> None:
        self._check_open(answer)
        try:
            plan = plan_resume(
                [message_from_wire(m) for m in self._messages],
                [resume_entry_from_wire(e) for e in answer.entries],
                # The workflow's own interrupts carry the schemas the worker's adapter set.
                schema_for=lambda call: call.interrupt.response_schema,
                now=workflow.now(),
                check_edit=self._check_edit,
            )
            # And who may answer: the interrupts as the worker asked them carry each call's
            # quorum and the votes so far, and every vote comes through this workflow.
            shown = {str(i["id"]): i.get("metadata") for i in self._interrupts}
            refuse_as_shown(plan.resolutions, shown, workflow.now())
        except AdapterError as problem:
            raise refusal(problem.code, str(problem)) from None
        except (ValueError, TypeError) as problem:
            raise refusal(ErrorCode.MALFORMED_RESUME_ENTRY, str(problem)) from None

    def _check_edit(self, gated: GatedCall, payload: Any) -> dict[str, Any] | None:
        """The worker's own edit check (`check_edit`), on the rules it sent with the pause."""
        name = gated.call.function.name
        rules = self._edits.get(name)
        spec = None
        if rules is not None:
            fields = rules.get("fields")
            spec = EditSpec(name, None if fields is None else tuple(fields), rules["parameters"])
        return check_edit(
            spec,
            arguments=gated.call.function.arguments,
            payload=payload,
            interrupt_id=gated.interrupt.id,
            tool_name=name,
        )

    def _check_open(self, answer: ResumeUpdate) -> None:
        given = {str(e.get("interruptId")) for e in answer.entries if isinstance(e, dict)}
        open_ids = {i["id"] for i in self._interrupts}
        if given & self._answered or (self._busy and not open_ids):
            raise refusal(
                ErrorCode.ANSWERED_ELSEWHERE,
                "these interrupts were already answered (by another notebook, or an earlier "
                "answer): that answer stands, and this one was not taken",
            )
        if not open_ids:
            raise refusal(ErrorCode.UNKNOWN_INTERRUPT, "no interrupt is open in this thread")

    # -- running -------------------------------------------------------------------------------

    def _stopping(self) -> bool:
        """Whether a person stopped the run that is going."""
        return self._stop_run is not None and self._stop_run == self._running_run

    @workflow.query(name=STOPPED_QUERY)
    def stopped(self, run_id: str) -> bool:
        """Whether a person stopped the run `run_id` (asked by its retry before it runs)."""
        return self._stop_run == run_id

    @workflow.signal(name=STOP_SIGNAL)
    def stop(self, run_id: str) -> None:
        """End the run `run_id` cancelled at its next safe point (nothing if it is over)."""
        self._stop_run = run_id
        running = self._running
        if running is not None and self._running_run == run_id:
            running.cancel()

    async def _segment(
        self, input: JsonDict, *, taken: list[JsonDict], retry: RetryPolicy = RUN_RETRY
    ) -> list[JsonDict]:
        self._busy = True
        self._changes += 1
        try:
            result = await self._perform(input, retry)
        finally:
            self._busy = False
        self._fold(result, taken)
        self._changes += 1
        return result.events

    async def _perform(self, input: JsonDict, retry: RetryPolicy) -> SegmentResult:
        start = self._start
        # Under a bounded policy, a run that ends in error is tried again as a failure is.
        bounded = retry.maximum_attempts > 0
        request = SegmentRequest(
            start.agent,
            input,
            self._state,
            retry_errors=bounded,
            stream=not bounded,
            ledger=self._ledger,
        )
        running = self._running = workflow.start_activity(
            SEGMENT_ACTIVITY,
            request,
            result_type=SegmentResult,
            task_queue=start.task_queue,
            start_to_close_timeout=SEGMENT_TIMEOUT,
            heartbeat_timeout=timedelta(seconds=start.heartbeat_seconds),
            retry_policy=retry,
            # A Stop waits for the run's own closing events rather than abandoning it.
            cancellation_type=ActivityCancellationType.WAIT_CANCELLATION_COMPLETED,
        )
        self._running_run = str(input["runId"])
        if self._stop_run == self._running_run:
            running.cancel()
        try:
            result: SegmentResult = await running
            self._ledger = self._ledger or result.ledger
            return result
        except asyncio.CancelledError:
            # Stopped before the activity was sent (its Stop came with it, or while no worker
            # was there): nothing ran. A cancel of the workflow itself goes on up.
            current = asyncio.current_task()
            if current is not None and current.cancelling():
                raise
            return SegmentResult(events=_stopped(input))
        except ActivityError as failure:
            if isinstance(failure.cause, CancelledError):
                return SegmentResult(events=_stopped(input))
            cause = failure.cause
            detail = cause.message if isinstance(cause, ApplicationError) else str(failure)
            code = cause.type if isinstance(cause, ApplicationError) and cause.type else None
            return SegmentResult(events=_failed(input, code or ErrorCode.AGENT_FAILED, detail))
        finally:
            self._running, self._stream = None, None

    def _fold(self, result: SegmentResult, taken: list[JsonDict]) -> None:
        """Keep what the run ended with, as the kernel's thread would (`thread._commit`)."""
        outcome: dict[str, Any] | None = None
        self._problem = None
        for event in result.events:
            if event.get("type") == "MESSAGES_SNAPSHOT":
                self._messages = list(event.get("messages", []))
            elif event.get("type") == "RUN_FINISHED":
                outcome = event.get("outcome") or {"type": "success"}
        if outcome is not None and outcome.get("type") == "interrupt":
            self._interrupts = list(outcome.get("interrupts", []))
            # A call still short of its approvals is asked again under the same id: open.
            self._answered.difference_update(i["id"] for i in self._interrupts)
            self._state = result.state
            self._edits = result.edits
        else:
            # A resume that failed before a call got its result leaves it open: it can be
            # answered again (or settled, when in doubt), and nothing ran twice.
            done = answered_call_ids(message_from_wire(m) for m in self._messages)
            success = outcome is not None and outcome.get("type") == "success"
            self._interrupts = [i for i in taken if not success and i.get("toolCallId") not in done]
            self._answered.difference_update(i["id"] for i in self._interrupts)
            if not self._interrupts:
                self._state = None
        waiting = "yes" if self._interrupts else "no"
        workflow.upsert_search_attributes([WAITING.value_set(waiting)])

    # -- deadlines -----------------------------------------------------------------------------

    def _deadline(self) -> datetime | None:
        """When to cancel the open interrupts: `EXPIRY_GRACE` after the last one's deadline (None
        if one never expires, or the workflow gave up cancelling them)."""
        times = [i.get("expiresAt") for i in self._interrupts]
        if not times or any(t is None for t in times) or self._problem is not None:
            return None
        return max(parse_instant(str(t)) for t in times) + EXPIRY_GRACE

    async def _expire(self) -> None:
        """Cancel every open interrupt: their deadline passed, so none of them may run."""
        taken, self._interrupts = self._interrupts, []
        self._answered.update(i["id"] for i in taken)
        entries = [
            {"interruptId": i["id"], "status": "cancelled", "metadata": {"by": ANSWERED_BY_EXPIRY}}
            for i in taken
        ]
        run_id = f"expired-{workflow.info().workflow_id}-{utc_text(workflow.now())}"
        input = {
            "threadId": workflow.info().workflow_id,
            "runId": run_id,
            "messages": self._messages,
            "tools": [],
            "context": [],
            "resume": entries,
        }
        start = self._start
        retry = RetryPolicy(
            initial_interval=timedelta(seconds=start.expiry_backoff_seconds),
            backoff_coefficient=2.0,
            maximum_interval=timedelta(minutes=1),
            maximum_attempts=start.expiry_attempts,
        )
        events = await self._segment(input, taken=taken, retry=retry)
        error = events[-1] if events else {}
        if error.get("type") == "RUN_ERROR" and self._interrupts:
            # Every try failed: they are open again (the run asked nothing new), and stay so.
            self._problem = (
                f"their deadline passed, but cancelling them failed {start.expiry_attempts} "
                f"times ({error.get('code')}: {error.get('message')}); they stay open: "
                "cancel them"
            )
            workflow.logger.warning("conversation %s: %s", input["threadId"], self._problem)


def _stopped(input: JsonDict) -> list[JsonDict]:
    return stopped_at_once(str(input["threadId"]), str(input["runId"]))


def _failed(input: JsonDict, code: str, detail: str) -> list[JsonDict]:
    """The events of a run whose activity failed for good: started, then the error."""
    started = {"type": "RUN_STARTED", "threadId": input["threadId"], "runId": input["runId"]}
    message = f"the run could not be performed on a worker: {detail}"
    return [started, {"type": "RUN_ERROR", "message": message, "code": code}]


__all__ = ["Conversation"]
