"""The in-kernel conversation: AG-UI messages, open interrupts, one task per run.

A `ConversationThread` holds everything a later run needs, as plain AG-UI data:
the messages (replaced by each run's MESSAGES_SNAPSHOT) and the interrupts the
last run ended with. Each run is one asyncio task iterating the adapter's
event stream; the adapter is stateless, so the kernel keeps no SDK state and a
thread saved to JSON resumes in another process.

Answers are taken exactly once: `resume_input` accepts entries only when they
cover the open interrupts exactly, and closes those interrupts as it builds the
input, so a second submission (another view, a re-run cell, a replay) is
refused instead of running a tool twice.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from ag_ui.core import (
    BaseEvent,
    Interrupt,
    Message,
    MessagesSnapshotEvent,
    ResumeEntry,
    RunAgentInput,
    RunErrorEvent,
    RunFinishedCancelledOutcome,
    RunFinishedEvent,
    RunFinishedInterruptOutcome,
    RunStartedEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
    ToolCallEndEvent,
    ToolCallResultEvent,
    ToolCallStartEvent,
    UserMessage,
)

from interrupt_widget.agui.interrupts import answered_call_ids, tool_name
from interrupt_widget.agui.messages import Transcript
from interrupt_widget.agui.run_handle import (
    AGUIAgent,
    RunHandle,
    as_run_handle,
    close_quietly,
    no_run,
)
from interrupt_widget.agui.wire import (
    interrupts_from_wire,
    message_from_wire,
    resume_entry_from_wire,
)
from interrupt_widget.errors import ErrorCode, InterruptsOpen, ResumeRefused, ThreadBusy
from interrupt_widget.identity import IDENTITY_KEY, current_identity

OutcomeKind = Literal["success", "interrupt", "cancelled", "error"]
EventSink = Callable[[BaseEvent], object]


@dataclass(frozen=True)
class RunOutcome:
    """How one run ended."""

    kind: OutcomeKind
    """`success`, `interrupt` (waiting for answers), `cancelled` (stopped) or `error`."""
    run_id: str
    interrupts: tuple[Interrupt, ...] = ()
    """The interrupts the run ended with (kind `interrupt`)."""
    error: str | None = None
    """The RUN_ERROR message (kind `error`)."""
    code: str | None = None
    """The RUN_ERROR code, when the adapter gave one."""


@dataclass
class RunRecord:
    """One run: what went in, every event that came out, how it ended."""

    run_id: str
    input: RunAgentInput
    events: list[BaseEvent] = field(default_factory=list)
    outcome: RunOutcome | None = None


def new_id(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:12]}"


class ConversationThread:
    """A conversation with one agent, run by a stateless AG-UI adapter."""

    def __init__(
        self,
        adapter: AGUIAgent,
        *,
        thread_id: str | None = None,
        messages: Iterable[Message | Mapping[str, Any]] = (),
        interrupts: Iterable[Interrupt | Mapping[str, Any]] = (),
    ) -> None:
        self.adapter = adapter
        self.thread_id = thread_id or new_id("thread")
        """Stable across runs and across save/load."""
        self.messages: list[Message] = [message_from_wire(m) for m in messages]
        """The conversation, as of the last finished run (plus a just-sent user message)."""
        self.interrupts: list[Interrupt] = interrupts_from_wire(interrupts)
        """Interrupts waiting for answers; empty when the thread can take new input."""
        self.runs: list[RunRecord] = []
        """Every run started on this thread, oldest first."""
        self._task: asyncio.Task[RunOutcome] | None = None
        self._stream: RunHandle | None = None
        self._stopping = False
        self._taken: list[Interrupt] = []

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    # -- building inputs ---------------------------------------------------------------------

    def user_input(self, text: str) -> RunAgentInput:
        """Append a user message and return the input that runs it."""
        self._check_idle()
        if self.interrupts:
            names = ", ".join(tool_name(i) for i in self.interrupts)
            raise InterruptsOpen(
                f"the agent is waiting for an answer ({names}); answer or cancel it in the picker "
                "before sending a new message"
            )
        if not isinstance(text, str) or not text.strip():
            raise ValueError("the message is empty")
        self.messages.append(UserMessage(id=new_id("user"), content=text))
        return self.run_input()

    def resume_input(self, entries: Iterable[ResumeEntry | Mapping[str, Any]]) -> RunAgentInput:
        """Take the answers to the open interrupts, once, and return the input that resumes."""
        self._check_idle()
        parsed = [resume_entry_from_wire(e) for e in entries]
        if not self.interrupts:
            raise ResumeRefused("no interrupt is open: these answers were already taken")
        open_ids = [i.id for i in self.interrupts]
        given = [e.interrupt_id for e in parsed]
        missing = [i for i in open_ids if i not in given]
        unknown = [i for i in given if i not in open_ids]
        repeated = sorted({i for i in given if given.count(i) > 1})
        problems = []
        if missing:
            problems.append(f"no answer for {', '.join(missing)}")
        if unknown:
            problems.append(f"answers for interrupts that are not open: {', '.join(unknown)}")
        if repeated:
            problems.append(f"more than one answer for {', '.join(repeated)}")
        if problems:
            raise ResumeRefused("; ".join(problems) + "; nothing was taken")
        self._taken, self.interrupts = self.interrupts, []
        return self.run_input(resume=parsed)

    def run_input(self, *, resume: list[ResumeEntry] | None = None) -> RunAgentInput:
        """The input of a run on the conversation as it stands (a first run: no `resume`)."""
        return RunAgentInput(
            thread_id=self.thread_id,
            run_id=new_id("run"),
            messages=list(self.messages),
            tools=[],
            context=[],
            resume=resume,
            # Who starts the run (a server with principals puts its token's there instead).
            forwarded_props={IDENTITY_KEY: current_identity().to_wire()},
        )

    def _check_idle(self) -> None:
        if self.running:
            raise ThreadBusy("the agent is still answering; wait for the run or stop it first")

    # -- running -----------------------------------------------------------------------------

    def start(
        self,
        input: RunAgentInput,
        *,
        on_event: EventSink | None = None,
        stop_once_answered: bool = False,
    ) -> asyncio.Task[RunOutcome]:
        """Run `input` as a task on the running loop; events go to `on_event` as they come.

        With `stop_once_answered`, a resume run is stopped as soon as every answered
        tool call has its result: the answers land in the conversation (a cancelled
        call is recorded as not run) and the run ends cancelled, before the model
        speaks again. That is what Stop means while the agent waits for an answer.
        """
        self._check_idle()
        record = RunRecord(run_id=input.run_id, input=input)
        self.runs.append(record)
        self._stopping = False
        awaited = (
            {i.tool_call_id for i in self._taken if i.tool_call_id} if stop_once_answered else None
        )
        self._task = asyncio.get_running_loop().create_task(
            self._run(record, on_event, awaited), name=f"interrupt-widget run {input.run_id}"
        )
        return self._task

    def stop(self) -> bool:
        """End the active run with the cancelled outcome; False when nothing runs.

        A run that can stop itself is asked to (the adapter then closes what is
        open and keeps what was said); otherwise the run's task is cancelled.
        """
        if not self.running or self._task is None:
            return False
        self._stopping = True
        if self._stream is None:
            return True  # not begun yet: `_run` stops the stream as soon as it exists
        if not _ask_to_stop(self._stream):
            self._task.cancel()
        return True

    async def _run(
        self, record: RunRecord, on_event: EventSink | None, awaited: set[str] | None
    ) -> RunOutcome:
        fold = _MessageFold(self.messages)

        def emit(event: BaseEvent) -> None:
            record.events.append(event)
            fold.apply(event)
            if on_event is not None:
                on_event(event)

        stream = self._stream = as_run_handle(self.adapter.run(record.input))
        if self._stopping and not _ask_to_stop(stream):
            # Stopped before it began, and the stream cannot end itself cancelled:
            # read nothing from it, and the run ends cancelled below.
            await close_quietly(stream)
            stream = no_run()
        outcome: RunOutcome | None = None
        try:
            async for event in stream:
                if outcome is not None:
                    continue  # nothing counts after the end of a run
                emit(event)
                outcome = _outcome_of(event, record.run_id)
                if awaited is not None and outcome is None:
                    if isinstance(event, ToolCallResultEvent):
                        awaited.discard(event.tool_call_id)
                    if not awaited:
                        awaited = None
                        self.stop()
        except asyncio.CancelledError:
            if not self._stopping:
                raise
        except Exception as exc:  # the adapter itself broke: end the run as an error
            if outcome is None:
                detail = str(exc).strip() or "raised with no message while running the agent"
                message = f"{type(exc).__name__}: {detail}"
                code = ErrorCode.ADAPTER_FAILED
                emit(RunErrorEvent(message=message, code=code))
                outcome = RunOutcome("error", record.run_id, error=message, code=code)
        finally:
            task = asyncio.current_task()
            if self._stopping and task is not None and task.cancelling():
                task.uncancel()  # the stop was ours: finish the run normally
            self._stream = None
            await close_quietly(stream)
        if outcome is None:  # stopped, or the stream just ended
            outcome = self._end_cancelled(record, emit)
        self._commit(fold.messages(), outcome)
        record.outcome = outcome
        return outcome

    def _end_cancelled(self, record: RunRecord, emit: Callable[[BaseEvent], None]) -> RunOutcome:
        """End a run that stopped without a terminal event: close what is open, then cancel."""
        if not record.events:  # ended before it began: the record is still a whole run
            emit(RunStartedEvent(thread_id=self.thread_id, run_id=record.run_id))
        for event in _left_open(record.events):
            emit(event)
        cancelled = RunFinishedEvent(
            thread_id=self.thread_id,
            run_id=record.run_id,
            outcome=RunFinishedCancelledOutcome(),
        )
        emit(cancelled)
        return RunOutcome("cancelled", record.run_id)

    def _commit(self, messages: list[Message], outcome: RunOutcome) -> None:
        self.messages = messages
        if outcome.kind == "interrupt":
            self.interrupts = list(outcome.interrupts)
        else:
            # A resume that failed or was stopped before a call got its result leaves
            # that interrupt open: it can still be answered, and nothing ran twice.
            answered = answered_call_ids(messages)
            self.interrupts = [
                i
                for i in self._taken
                if outcome.kind != "success" and i.tool_call_id not in answered
            ]
        self._taken = []


def _outcome_of(event: BaseEvent, run_id: str) -> RunOutcome | None:
    if isinstance(event, RunFinishedEvent):
        if isinstance(event.outcome, RunFinishedInterruptOutcome):
            return RunOutcome("interrupt", run_id, tuple(event.outcome.interrupts))
        if isinstance(event.outcome, RunFinishedCancelledOutcome):
            return RunOutcome("cancelled", run_id)
        return RunOutcome("success", run_id)
    if isinstance(event, RunErrorEvent):
        return RunOutcome("error", run_id, error=event.message, code=event.code)
    return None


def _ask_to_stop(stream: RunHandle) -> bool:
    """Ask the run to end itself cancelled; False when it cannot (then it is closed)."""
    if not stream.can_stop:
        return False
    stream.stop()
    return True


class _MessageFold:
    """The conversation after a run: the last MESSAGES_SNAPSHOT, else the events folded in.

    Folding is the adapter's own `Transcript`; this adds the snapshot, which
    replaces everything before it. Events are folded when the messages are read, from
    the last snapshot on: the kit's adapter ends every run with one, so what came
    before it is never folded twice. (What a stopped stream left open is read from the
    run's record: `_left_open`.)
    """

    def __init__(self, messages: Iterable[Message]) -> None:
        self._base: list[Message] = list(messages)
        self._since: list[BaseEvent] = []
        """The events after the last snapshot (all of them, before one comes)."""

    def apply(self, event: BaseEvent) -> None:
        if isinstance(event, MessagesSnapshotEvent):
            self._base = list(event.messages)
            self._since = []
            return
        self._since.append(event)

    def messages(self) -> list[Message]:
        run = Transcript()
        for event in self._since:
            run.apply(event)
        return [*self._base, *run.messages]


def _left_open(events: Iterable[BaseEvent]) -> list[BaseEvent]:
    """END events for what a stopped stream left open in `events`, so the record stays
    well-formed."""
    open_text: list[str] = []
    open_calls: list[str] = []
    for event in events:
        if isinstance(event, TextMessageStartEvent):
            open_text.append(event.message_id)
        elif isinstance(event, TextMessageEndEvent):
            _discard(open_text, event.message_id)
        elif isinstance(event, ToolCallStartEvent):
            open_calls.append(event.tool_call_id)
        elif isinstance(event, ToolCallEndEvent):
            _discard(open_calls, event.tool_call_id)
    ends: list[BaseEvent] = [ToolCallEndEvent(tool_call_id=c) for c in open_calls]
    ends += [TextMessageEndEvent(message_id=m) for m in open_text]
    return ends


def _discard(items: list[str], value: str) -> None:
    if value in items:
        items.remove(value)
