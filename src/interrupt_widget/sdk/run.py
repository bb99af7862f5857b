"""One AG-UI run of an Agents SDK agent: the SDK's runs it streams, and the answers it applies.

A run starts the SDK on the conversation, or, when it answers interrupts, on
the SDK's own paused state (`paused_runs`) with the answers applied through
`RunState.approve` and `RunState.reject`. The SDK executes every approved call
itself, so its tool guardrails, hooks, spans, `tool_use_behavior`, failure
policy and nested approvals hold as they would without the kit; the kit adds
its guarantees around that path: each approved call is claimed in the ledger
before the SDK may run it (`held_calls`), a call already settled is told its
recorded result instead of running, and the results carry who decided.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
from collections.abc import AsyncGenerator, Collection, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, Protocol

from ag_ui.core import (
    BaseEvent,
    Interrupt,
    Message,
    MessagesSnapshotEvent,
    RunAgentInput,
    RunErrorEvent,
    RunFinishedCancelledOutcome,
    RunFinishedEvent,
    RunFinishedInterruptOutcome,
    RunFinishedSuccessOutcome,
    ToolCallResultEvent,
)
from agents import (
    Agent,
    RunConfig,
    RunHooks,
    Runner,
    RunResultStreaming,
    RunState,
    ToolApprovalItem,
    ToolOutputGuardrailTripwireTriggered,
    UserError,
)

from interrupt_widget.agui.answer_edit import EDIT_KEY
from interrupt_widget.agui.interrupts import (
    INTERRUPT_KEY,
    attach,
    expiry,
    gated_calls,
    result_message_id,
)
from interrupt_widget.agui.messages import Transcript, call_events
from interrupt_widget.agui.resume import Resolution
from interrupt_widget.errors import AdapterError, CallInDoubt, ErrorCode
from interrupt_widget.ledger.once_only import CallLedger, Recorded
from interrupt_widget.policy.rules import Policy, Ruling
from interrupt_widget.sdk import audit_notes, decision_spans, held_calls, paused_runs, vote_counting
from interrupt_widget.sdk.call_results import (
    edited_note,
    not_run_answer,
    not_run_output,
    replay_marker,
    ruled_marker,
)
from interrupt_widget.sdk.endings import final_reply, refused_reply
from interrupt_widget.sdk.events import EventTranslator, MessageIds
from interrupt_widget.sdk.model_input import run_input
from interrupt_widget.sdk.offline_model import with_message_ids
from interrupt_widget.sdk.tool_answers import answering

Decided = tuple[Resolution, Ruling | None]
"""An answer to apply, and the policy's ruling when the policy gave it."""


class RunSettings(Protocol):
    """What a run reads from the adapter that starts it (`OpenAIAgentsAdapter`)."""

    agent: Agent[Any]
    context: Any
    hooks: RunHooks[Any] | None
    ledger: CallLedger
    expires_in: float | timedelta | None
    trace_arguments: bool
    policy: Policy | None

    def now(self) -> datetime: ...
    def run_config_for(self, thread_id: str) -> RunConfig: ...
    def model_calls(self) -> contextlib.AbstractContextManager[None]: ...
    def interrupt_for(self, item: ToolApprovalItem, expires_at: str | None) -> Interrupt: ...
    def settle(
        self, interrupts: list[Interrupt], messages: list[Message]
    ) -> tuple[list[Interrupt], list[Decided]]: ...
    def classify(self, error: Exception) -> tuple[ErrorCode, str]: ...
    def run_error(self, code: ErrorCode, message: str) -> RunErrorEvent: ...


class HoldsClaims(Protocol):
    """A run that may hold claims on approved calls the SDK is running (`SDKRun`)."""

    @property
    def holds_claims(self) -> bool: ...


class RunControl(Protocol):
    """The handle a run reports its SDK runs to, so `stop()` can end them (`AdapterRunHandle`)."""

    @property
    def stop_requested(self) -> bool: ...

    def follow(self, streamed: RunResultStreaming, run: HoldsClaims) -> None:
        """`streamed` is the SDK run `run` streams now: `stop()` ends this one (after its
        turn while `run` holds a claim, so an approved call is never cut off halfway)."""
        ...

    def end_sdk_run(self) -> None:
        """End the SDK run followed now, if it is still going."""
        ...


MAX_SETTLED_ROUNDS = 20
"""How many rounds of calls the policy may settle in a row within one run."""


class SDKRun:
    """The events of one AG-UI run (see the module docs); iterate `events()` once."""

    def __init__(
        self,
        adapter: RunSettings,
        input: RunAgentInput,
        handle: RunControl,
        history: list[Message],
        *,
        answered: Collection[str],
        starter: str | None = None,
    ) -> None:
        self._adapter = adapter
        self._answered = answered
        """The ids of the calls in `history` that have a result (read with the resume)."""
        self._starter = starter
        """Who started the run (its calls' own approvals are refused by `require`)."""
        self._input = input
        self._handle = handle
        self._history = history
        self._transcript = Transcript()
        self._translator = EventTranslator(MessageIds(input.run_id, len(input.messages)))
        self._markers: dict[str, dict[str, Any]] = {}
        """Call id -> the interrupt marker its result carries (answers applied, not reported)."""
        self._fallback: dict[str, str] = {}
        """Call id -> what its result says if the SDK's stream shows none (a nested call)."""
        self._claims: dict[str, _Approved] = {}
        """Call id -> the approved call this run claimed, until its output is recorded."""
        self._resumed: set[str] = set()
        """Calls started in an earlier run whose results this run may give."""
        self._answers: dict[str, Any] = {}

    @functools.cached_property
    def _run_config(self) -> RunConfig:
        # Made once: every SDK run of this AG-UI run, and its decisions' spans, share it.
        return self._adapter.run_config_for(self._input.thread_id)

    @property
    def holds_claims(self) -> bool:
        """Whether approved calls this run claimed still wait for their output."""
        return bool(self._claims)

    async def events(
        self, paused: paused_runs.Paused | None, decided: Sequence[Decided]
    ) -> AsyncGenerator[BaseEvent, None]:
        """The run: answers in `decided` applied to the `paused` run, or a fresh start."""
        try:
            if decided:
                # Results of calls started in an earlier run follow a snapshot of that run.
                yield MessagesSnapshotEvent(messages=self._history)
            if decided and paused is not None:
                await self._decide(paused, decided)
                self._resumed = self._unanswered_calls()
                self._translator.started_calls.update(self._resumed)
            elif decided:  # every call was settled before: their results, then the model
                for event in await self._replayed(decided):
                    self._transcript.apply(event)
                    yield event
            async for event in self._rounds(None if paused is None else paused.state):
                yield event
        except asyncio.CancelledError:
            self._handle.end_sdk_run()
            for event in self._cancelled():
                yield event
            raise
        except Exception as error:  # everything else ends the run with RUN_ERROR
            for event in self._failed(error):
                yield event
        finally:
            # Cut off (cancelled, closed): a call the SDK may have started stays claimed.
            for approved in self._claims.values():
                approved.claim.cut_off("the run was cut off before the tool's output")
            self._claims.clear()
            self._handle.end_sdk_run()

    async def _rounds(self, state: RunState[Any, Any] | None) -> AsyncGenerator[BaseEvent, None]:
        settled_rounds = 0
        while not self._handle.stop_requested:
            streamed = self._start(state)
            async for event in self._stream(streamed):
                yield event
            if self._handle.stop_requested and not _ended(streamed):
                break  # else the stop came too late: the SDK's run ended, and says how
            interrupts, shown = self._interrupts(streamed)
            for event in shown:
                yield event
            # A turn that asks nothing has nothing to settle (nor messages to read for it).
            asked, settled = (
                self._adapter.settle(interrupts, self._messages()) if interrupts else ([], [])
            )
            if settled:
                settled_rounds += 1
                if settled_rounds > MAX_SETTLED_ROUNDS:
                    raise AdapterError(
                        ErrorCode.AGENT_ERROR,
                        f"The policy settled {MAX_SETTLED_ROUNDS} rounds of tool calls in "
                        "a row; the run stops so that it cannot loop for ever.",
                    )
                # The SDK runs what the policy settled and, if others still wait, pauses again.
                state = streamed.to_state()
                pending = paused_runs.pending_items(streamed.interruptions)  # the state's own
                await self._decide(paused_runs.Paused(state, pending), settled)
                continue
            if asked:
                # One request keeps the pause: the state, the notes, the records of people.
                adapter, now = self._adapter, self._adapter.now()
                people = vote_counting.asking(adapter.policy, asked, self._starter, now)
                so_far = await paused_runs.keep(
                    adapter.ledger,
                    adapter.agent,
                    self._input.thread_id,
                    streamed.to_state(),
                    streamed.interruptions,
                    audit_notes.asked(adapter.ledger, asked, now),
                    people,
                )
                asked = vote_counting.annotated(asked, people, so_far, now)
            else:  # the final output, when no message the model streamed carried it
                for event in final_reply(streamed, self._translator, self._transcript):
                    self._transcript.apply(event)
                    yield event
            yield MessagesSnapshotEvent(messages=self._messages())
            outcome: Any = (
                RunFinishedInterruptOutcome(interrupts=asked)
                if asked
                else RunFinishedSuccessOutcome()
            )
            yield self._finished(outcome)
            return
        for event in self._cancelled():
            yield event

    def _start(self, state: RunState[Any, Any] | None) -> RunResultStreaming:
        adapter = self._adapter
        conversation = self._messages()
        start = functools.partial(
            Runner.run_streamed,
            adapter.agent,
            state if state is not None else run_input(conversation),
            context=None if state is not None else adapter.context,
            run_config=self._run_config,
            hooks=adapter.hooks,
        )
        for approved in self._claims.values():
            approved.claim.started = True  # the SDK may run it from now on
        # The SDK's run task copies this context: the answers reach the tools it runs.
        with answering(self._answers), adapter.model_calls():
            # The offline model's ids also depend on the message ids, not on words alone.
            streamed = with_message_ids((m.id for m in conversation), start)
        self._handle.follow(streamed, self)
        return streamed

    async def _stream(self, streamed: RunResultStreaming) -> AsyncGenerator[BaseEvent, None]:
        try:
            async for sdk_event in streamed.stream_events():
                for translated in self._translator.translate(sdk_event):
                    # Only a result is marked; every other event passes without an await.
                    if isinstance(translated, ToolCallResultEvent):
                        for event in await self._marked(translated):
                            self._transcript.apply(event)
                            yield event
                    else:
                        self._transcript.apply(translated)
                        yield translated
        except ToolOutputGuardrailTripwireTriggered as error:
            # The tool ran and its output was withheld: it must never run again.
            await self._record_claims(f"The call ran; a guardrail withheld its output: {error}")
            raise
        except UserError as error:
            failed = self._failed_call(error)
            await self._note_failed(error)
            await self._drop_claims("the tool failed", wait=True)
            if failed is None:
                raise
            raise failed from error
        except Exception:
            await self._drop_claims("the SDK's run failed before the tool's output", wait=True)
            raise
        for event in await self._unreported(i.call_id for i in streamed.interruptions):
            self._transcript.apply(event)
            yield event

    async def _marked(self, event: ToolCallResultEvent) -> list[BaseEvent]:
        """A result of an answered call, with its marker, recorded as the claim's output.

        The result of a call resumed from an earlier run that no answer names (an agent
        used as a tool) comes after the calls answered inside it: theirs go first.
        """
        call_id = event.tool_call_id
        marker = self._markers.pop(call_id, None)
        if marker is None:
            inner = await self._unreported(()) if call_id in self._resumed else []
            return [*inner, event]
        self._fallback.pop(call_id, None)
        content = event.content
        assert isinstance(content, str)  # the translator gives a tool's output as text
        approved = self._claims.pop(call_id, None)
        if approved is not None:
            if approved.edited is not None:
                content = edited_note(approved.tool, approved.edited, content)
            approved.claim.ran(content)
            await approved.claim.recorded()  # the result is in the ledger before anyone sees it
        return [_result(call_id, content, marker)]

    async def _unreported(self, still_waiting: Iterable[str | None]) -> list[BaseEvent]:
        """Results for answered calls the stream never showed (a call inside an agent tool)."""
        still_waiting = set(still_waiting)
        events: list[BaseEvent] = []
        for call_id in list(self._markers):
            if call_id in still_waiting:
                continue
            marker = self._markers.pop(call_id)
            content = self._fallback.pop(call_id, "")
            approved = self._claims.pop(call_id, None)
            if approved is not None:
                approved.claim.ran(content)
                await approved.claim.recorded()
            events.append(_result(call_id, content, marker))
        return events

    async def _decide(self, paused: paused_runs.Paused, decided: Sequence[Decided]) -> None:
        """Apply each answer to the SDK's state, through the ledger, before the SDK resumes."""
        state = paused.state
        for resolution, ruling in decided:
            item = paused_runs.pending_item(paused.pending, resolution.gated.call_id)
            try:
                marker, rejection = await self._settle(resolution, ruling)
            except CallInDoubt as error:
                raise AdapterError(
                    ErrorCode.CALL_IN_DOUBT, str(error), interrupt_id=resolution.gated.interrupt.id
                ) from error
            if rejection is None:
                state.approve(item)
            else:
                state.reject(item, rejection_message=rejection)
                self._fallback[resolution.gated.call_id] = rejection
            now = self._adapter.now()
            self._markers[resolution.gated.call_id] = ruled_marker(marker, resolution, ruling, now)
            if decision_spans.listened(state, self._run_config):
                span = decision_spans.decision_span(
                    self._input.thread_id,
                    resolution,
                    ruling,
                    marker,
                    now,
                    trace_arguments=self._adapter.trace_arguments,
                )
                decision_spans.emit(span, state, self._run_config)

    async def _replayed(self, decided: Sequence[Decided]) -> list[BaseEvent]:
        """The recorded results of calls a resume answers again, each marked a replay."""
        events: list[BaseEvent] = []
        for resolution, ruling in decided:
            call_id = resolution.gated.call_id
            try:
                prior = await self._adapter.ledger.recorded((self._input.thread_id, call_id))
            except CallInDoubt as error:
                raise AdapterError(
                    ErrorCode.CALL_IN_DOUBT, str(error), interrupt_id=resolution.gated.interrupt.id
                ) from error
            assert prior is not None  # paused_runs.load found every call settled
            marker = ruled_marker(
                replay_marker(resolution, prior), resolution, ruling, self._adapter.now()
            )
            events.append(_result(call_id, prior.output, marker))
        return events

    async def _settle(
        self, resolution: Resolution, ruling: Ruling | None
    ) -> tuple[dict[str, Any], str | None]:
        """(the marker, None to approve or the text a rejection tells the model)."""
        call_id = resolution.gated.call_id
        key = (self._input.thread_id, call_id)
        # A call that was settled has one truth: any later answer gets its recorded result.
        # The claim finds that record itself, so no look at the ledger goes first. A denial
        # or a cancel is recorded at once, in one write where the ledger can; every answer
        # is noted with its claim or record, when it is this run's.
        by, now = self._answerer(resolution, ruling), self._adapter.now()
        note = audit_notes.answered_note(resolution, by, now)
        approved = resolution.decision == "approved"
        told = (
            None
            if approved
            else not_run_output(resolution, resolution.gated.call.function.name, ruling)
        )
        got = await held_calls.claim(
            self._adapter.ledger,
            key,
            answer=resolution.payload if approved else not_run_answer(resolution),
            note=note,
            output=told,
        )
        if isinstance(got, Recorded):  # another run claimed it first: its result stands
            return replay_marker(resolution, got), got.output
        if told is not None:
            await got.recorded()  # settled in the ledger before the model is told
            return {"decision": resolution.decision}, told
        tool = resolution.gated.call.function.name
        edited = resolution.edited_arguments
        self._claims[call_id] = _Approved(got, resolution.gated.interrupt.id, tool, edited)
        self._answers[call_id] = resolution.payload
        self._fallback[call_id] = f"{tool} ran inside another tool's run."
        marker: dict[str, Any] = {"decision": "approved"}
        if edited is not None:
            marker[EDIT_KEY] = edited
        return marker, None

    def _interrupts(self, streamed: RunResultStreaming) -> tuple[list[Interrupt], list[BaseEvent]]:
        """The run's interrupts, recorded on their calls; events for calls the stream hid."""
        interrupts: list[Interrupt] = []
        events: list[BaseEvent] = []
        if not streamed.interruptions:  # the run ended: nothing to ask, nothing to read
            return interrupts, events
        expires_at = expiry(self._adapter.expires_in, self._adapter.now())
        # Calls an earlier run asked that still wait (for more people) keep their question.
        earlier = {g.call_id: g.interrupt for g in gated_calls(self._history)}
        for item in streamed.interruptions:
            call_id = item.call_id  # read once: the SDK's item works it out on every read
            if not call_id:
                continue
            if call_id in earlier and self._transcript.call(call_id) is None:
                interrupts.append(earlier[call_id])
                continue
            interrupt = self._adapter.interrupt_for(item, expires_at)
            call = self._transcript.call(call_id)
            if call is None:  # a call the stream did not show: show it now
                for event in call_events(call_id, item.tool_name or "", item.arguments or ""):
                    self._transcript.apply(event)
                    events.append(event)
                call = self._transcript.call(call_id)
            assert call is not None
            self._transcript.replace_call(attach(call, interrupt))
            interrupts.append(interrupt)
        return interrupts, events

    def _messages(self) -> list[Message]:
        return self._history + self._transcript.messages

    def _unanswered_calls(self) -> set[str]:
        return {
            call.id
            for message in self._history
            for call in (getattr(message, "tool_calls", None) or [])
            if call.id not in self._answered
        }

    async def _record_claims(self, output: str) -> None:
        claims = [approved.claim for approved in self._claims.values()]
        self._claims.clear()
        for claim in claims:
            claim.ran(output)
        await asyncio.gather(*(claim.recorded() for claim in claims))

    def _answerer(self, resolution: Resolution, ruling: Ruling | None) -> str | None:
        if ruling is not None:
            return ruling.by
        # A call decided by several people names them all (`sdk/vote_counting.py` sets `by`).
        return resolution.by

    async def _note_failed(self, error: Exception) -> None:
        """Note the claimed calls whose tool raised `error` as failed, in the audit."""
        message = str(error)
        for approved in self._claims.values():
            if message.startswith(f"Error running tool {approved.tool}"):
                note = message.splitlines()[0]
                await audit_notes.failed(self._adapter.ledger, approved.claim.key, note)

    async def _drop_claims(self, why: str, *, wait: bool = False) -> None:
        claims = [approved.claim for approved in self._claims.values()]
        self._claims.clear()
        for claim in claims:
            claim.drop(why)
        if wait:  # the ledger has released them before the run reports its error
            await asyncio.gather(*(claim.recorded() for claim in claims), return_exceptions=True)

    def _failed_call(self, error: UserError) -> AdapterError | None:
        """The error of an approved call whose tool raised (its failure policy re-raises)."""
        message = str(error)
        for approved in self._claims.values():
            if message.startswith(f"Error running tool {approved.tool}"):
                return AdapterError(
                    ErrorCode.TOOL_ERROR,
                    f"{approved.tool} failed after interrupt {approved.interrupt_id!r} was "
                    f"approved: {message}",
                    interrupt_id=approved.interrupt_id,
                )
        return None

    def _finished(self, outcome: Any) -> RunFinishedEvent:
        return RunFinishedEvent(
            thread_id=self._input.thread_id, run_id=self._input.run_id, outcome=outcome
        )

    def _cancelled(self) -> list[BaseEvent]:
        """How a stopped run ends: what is open closed, everything said kept, then the outcome."""
        return [
            *self._translator.close_open(),
            MessagesSnapshotEvent(messages=self._messages()),
            self._finished(RunFinishedCancelledOutcome()),
        ]

    def _failed(self, error: Exception) -> list[BaseEvent]:
        code, message = self._adapter.classify(error)
        events: list[BaseEvent] = [*self._translator.close_open()]
        if self._transcript.messages:
            # Keep what this run already did (an approved call's result above all), but not
            # a reply an output guardrail refused: the SDK's run has no final output.
            refused = refused_reply(error, self._translator, self._transcript)
            kept = [m for m in self._messages() if m.id != refused]
            events.append(MessagesSnapshotEvent(messages=kept))
        events.append(self._adapter.run_error(code, message))
        return events


@dataclass(frozen=True)
class _Approved:
    """An approved call this run claimed: what its result and its errors say of it."""

    claim: held_calls.Claim
    interrupt_id: str
    """The interrupt the approval answered (a tool error names it)."""
    tool: str
    """The gated call's tool name (a tool error is matched on it)."""
    edited: dict[str, Any] | None
    """The arguments the person changed the call to, if they edited it."""


def _ended(streamed: RunResultStreaming) -> bool:
    """Whether the SDK's run reached its final output (a stop during its last turn)."""
    return streamed.is_complete and streamed.final_output is not None


def _result(call_id: str, content: str, marker: dict[str, Any]) -> ToolCallResultEvent:
    return ToolCallResultEvent(
        message_id=result_message_id(call_id),
        tool_call_id=call_id,
        content=content,
        role="tool",
        metadata={INTERRUPT_KEY: marker},
    )
