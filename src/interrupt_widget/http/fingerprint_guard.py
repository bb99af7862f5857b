"""The fingerprint layer around an AG-UI agent.

Outgoing, it signs every gated tool call: on the call inside MESSAGES_SNAPSHOT
(`metadata.fingerprint`) and on the interrupt that asks about it
(`Interrupt.metadata.fingerprint`). Incoming, before the agent sees a request,
it checks every gated call the request could make the agent run (a call named
by a resume entry, or a gated call with no result yet); a call with no
fingerprint or a wrong one ends the run in RUN_ERROR, and nothing runs.

Only calls this run interrupted, or that arrived with a valid fingerprint, are
signed: a gating mark a client wrote is never trusted, because `check` refuses
any unanswered gated call without a valid fingerprint before the agent runs.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncGenerator, Iterable
from dataclasses import dataclass
from typing import Any

from ag_ui.core import (
    PROTOCOL_VERSION,
    AssistantMessage,
    BaseEvent,
    Interrupt,
    Message,
    MessagesSnapshotEvent,
    RunAgentInput,
    RunErrorEvent,
    RunFinishedEvent,
    RunFinishedInterruptOutcome,
    RunStartedEvent,
    ToolCall,
)

from interrupt_widget.agui.call_agreement import disagreement, mismatch_error
from interrupt_widget.agui.interrupts import answered_call_ids, interrupt_id_of, interrupt_record
from interrupt_widget.agui.run_handle import AGUIAgent, RunHandle, as_run_handle
from interrupt_widget.agui.wire import interrupt_from_wire
from interrupt_widget.errors import ErrorCode
from interrupt_widget.http.fingerprint import FINGERPRINT_KEY, Fingerprinter

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class FingerprintProblem:
    """Why a request was refused before the agent saw it."""

    code: ErrorCode
    """`FINGERPRINT_MISSING`, `FINGERPRINT_INVALID`, or `CALL_MISMATCH` (unlike its record)."""
    message: str
    """A sentence naming the call (and interrupt) at fault."""


@dataclass(frozen=True)
class _Signed:
    """A fingerprint and exactly what it was computed over."""

    fingerprint: str
    tool_name: str
    arguments: str
    record: Any

    def covers(self, call: ToolCall) -> bool:
        # Plain equality where a new HMAC would say the same thing: the fingerprint
        # covers the name, the argument text and the record (dict equality ignores
        # key order and 5 == 5.0, as the canonical form does).
        return (
            call.function.name == self.tool_name
            and call.function.arguments == self.arguments
            and interrupt_record(call) == self.record
        )


def _tool_calls(messages: Iterable[Message]) -> Iterable[ToolCall]:
    for message in messages:
        if isinstance(message, AssistantMessage) and message.tool_calls:
            yield from message.tool_calls


def _fingerprint_of(call: ToolCall) -> object:
    return (call.metadata or {}).get(FINGERPRINT_KEY)


def _mismatch(call: ToolCall) -> FingerprintProblem | None:
    # Said before the fingerprint, which any change breaks: this names what changed.
    record = interrupt_record(call)
    try:
        interrupt = interrupt_from_wire(record or {})
    except ValueError:
        return None  # not an interrupt at all: the fingerprint check refuses it
    why = disagreement(call, interrupt)
    if why is None:
        return None
    error = mismatch_error(call, interrupt, why)
    return FingerprintProblem(error.code, error.message)


class FingerprintGuard:
    """Wraps an AG-UI agent so a stateless server can trust the conversations it gets back."""

    def __init__(self, agent: AGUIAgent, fingerprinter: Fingerprinter) -> None:
        self._agent = agent
        self._fingerprinter = fingerprinter

    def _sign(self, thread_id: str, call: ToolCall) -> str:
        return self._fingerprinter.sign(
            thread_id=thread_id,
            call_id=call.id,
            tool_name=call.function.name,
            arguments=call.function.arguments,
            interrupt=interrupt_record(call),
        )

    def _is_genuine(self, thread_id: str, call: ToolCall) -> bool:
        return self._fingerprinter.verify(
            _fingerprint_of(call),
            thread_id=thread_id,
            call_id=call.id,
            tool_name=call.function.name,
            arguments=call.function.arguments,
            interrupt=interrupt_record(call),
        )

    def _genuine(self, input: RunAgentInput) -> dict[str, _Signed]:
        # One HMAC per call that carries a fingerprint, shared by `check` and the signing.
        found: dict[str, _Signed] = {}
        for call in _tool_calls(input.messages):
            given = _fingerprint_of(call)
            if isinstance(given, str) and self._is_genuine(input.thread_id, call):
                found[call.id] = _Signed(
                    given, call.function.name, call.function.arguments, interrupt_record(call)
                )
        return found

    def check(
        self, input: RunAgentInput, genuine: dict[str, _Signed] | None = None
    ) -> FingerprintProblem | None:
        """The first gated call in `input` the agent could run without proof, or None."""
        if genuine is None:
            genuine = self._genuine(input)
        answered = answered_call_ids(input.messages)
        targeted = {entry.interrupt_id for entry in input.resume or ()}
        for call in _tool_calls(input.messages):
            interrupt_id = interrupt_id_of(call)
            if interrupt_id is None:
                continue
            if interrupt_id not in targeted and call.id in answered:
                continue  # settled history: no resume can make it run
            mismatch = _mismatch(call)
            if mismatch is not None:
                return mismatch
            if call.id in genuine:
                continue
            missing = _fingerprint_of(call) is None
            what = (
                f"tool call {call.id!r} ({call.function.name}) for interrupt {interrupt_id!r} "
                f"in thread {input.thread_id!r}"
            )
            if missing:
                return FingerprintProblem(
                    ErrorCode.FINGERPRINT_MISSING,
                    f"{what} has no fingerprint: only calls this server interrupted can be "
                    "resumed; send the messages exactly as the last MESSAGES_SNAPSHOT gave them",
                )
            if self._fingerprinter.other_secret(_fingerprint_of(call)):
                return FingerprintProblem(
                    ErrorCode.FINGERPRINT_OTHER_SECRET,
                    f"{what} was signed with another server secret than this server's (key "
                    f"{self._fingerprinter.key_id_of(_fingerprint_of(call))}, this server's is "
                    f"{self._fingerprinter.key_id}): the server restarted with a new secret, or "
                    "replicas were given different ones. The call itself was not found changed; "
                    "nothing was run. Ask again, and keep the secret across restarts "
                    "(--secret-file, INTERRUPT_WIDGET_SECRET, or serve's kept secret)",
                )
            return FingerprintProblem(
                ErrorCode.FINGERPRINT_INVALID,
                f"{what} does not match its fingerprint: the call or its interrupt was changed "
                "or moved to another thread; nothing was run",
            )
        return None

    def run(self, input: RunAgentInput) -> FingerprintCheckedRunHandle:
        """The agent's events, signed; or RUN_STARTED + RUN_ERROR when `check` refuses."""
        return FingerprintCheckedRunHandle(self, input)

    async def _events(
        self, input: RunAgentInput, handle: FingerprintCheckedRunHandle
    ) -> AsyncGenerator[BaseEvent, None]:
        # Calls that arrived genuine keep their fingerprints in later snapshots.
        known = self._genuine(input)
        problem = self.check(input, known)
        if problem is not None:
            logger.warning("refused run %s: %s", input.run_id, problem.message)
            yield RunStartedEvent(
                thread_id=input.thread_id,
                run_id=input.run_id,
                protocol_version=PROTOCOL_VERSION,
            )
            yield RunErrorEvent(message=problem.message, code=problem.code)
            return

        async for event in handle.attach(as_run_handle(self._agent.run(input))):
            if isinstance(event, MessagesSnapshotEvent):
                yield self._signed_snapshot(input.thread_id, event, known)
            elif isinstance(event, RunFinishedEvent) and isinstance(
                event.outcome, RunFinishedInterruptOutcome
            ):
                yield self._signed_finish(event, event.outcome.interrupts, known)
            else:
                yield event

    def _signed_snapshot(
        self, thread_id: str, event: MessagesSnapshotEvent, known: dict[str, _Signed]
    ) -> MessagesSnapshotEvent:
        # A gated call still waiting for its result is one this run interrupted, or
        # one `check` verified on the way in: the adapter refuses any other.
        answered = answered_call_ids(event.messages)
        gated_now = {
            call.id
            for call in _tool_calls(event.messages)
            if interrupt_record(call) is not None and call.id not in answered
        }
        messages: list[Message] = []
        for message in event.messages:
            if isinstance(message, AssistantMessage) and message.tool_calls:
                calls = [
                    self._signed_call(thread_id, c, gated_now, known) for c in message.tool_calls
                ]
                message = message.model_copy(update={"tool_calls": calls})
            messages.append(message)
        return event.model_copy(update={"messages": messages})

    def _signed_call(
        self, thread_id: str, call: ToolCall, gated_now: set[str], known: dict[str, _Signed]
    ) -> ToolCall:
        metadata = {k: v for k, v in (call.metadata or {}).items() if k != FINGERPRINT_KEY}
        signed = known.get(call.id)
        # Spelled differently since it was signed: kept only if it still signs the same.
        if (
            signed is not None
            and not signed.covers(call)
            and self._sign(thread_id, call) != signed.fingerprint
        ):
            signed = None
        if signed is None and call.id in gated_now:
            signed = _Signed(
                self._sign(thread_id, call),
                call.function.name,
                call.function.arguments,
                interrupt_record(call),
            )
        if signed is not None:
            metadata[FINGERPRINT_KEY] = signed.fingerprint
            known[call.id] = signed
        return call.model_copy(update={"metadata": metadata or None})

    def _signed_finish(
        self, event: RunFinishedEvent, interrupts: list[Interrupt], known: dict[str, _Signed]
    ) -> RunFinishedEvent:
        signed: list[Interrupt] = []
        for interrupt in interrupts:
            metadata: dict[str, Any] = dict(interrupt.metadata or {})
            metadata.pop(FINGERPRINT_KEY, None)
            if interrupt.tool_call_id and interrupt.tool_call_id in known:
                metadata[FINGERPRINT_KEY] = known[interrupt.tool_call_id].fingerprint
            signed.append(interrupt.model_copy(update={"metadata": metadata or None}))
        outcome = RunFinishedInterruptOutcome(interrupts=signed)
        return event.model_copy(update={"outcome": outcome})


class FingerprintCheckedRunHandle:
    """One guarded run: a `RunHandle` whose `stop()` reaches the agent's run."""

    def __init__(self, guard: FingerprintGuard, input: RunAgentInput) -> None:
        self._inner: RunHandle | None = None
        self._stop_requested = False
        self._events = guard._events(input, self)

    def attach(self, inner: RunHandle) -> RunHandle:
        self._inner = inner
        if self._stop_requested:
            self.stop()
        return inner

    def __aiter__(self) -> FingerprintCheckedRunHandle:
        return self

    async def __anext__(self) -> BaseEvent:
        return await self._events.__anext__()

    async def aclose(self) -> None:
        """End the stream now, closing the agent's run too."""
        await self._events.aclose()
        if self._inner is not None:
            await self._inner.aclose()

    @property
    def can_stop(self) -> bool:
        """Whether the agent's run can be asked to stop at a safe point (True until it starts)."""
        return self._inner is None or self._inner.can_stop

    def stop(self) -> None:
        """Ask the agent's run to end early; it finishes any tool already running."""
        self._stop_requested = True
        if self._inner is not None:
            self._inner.stop()
