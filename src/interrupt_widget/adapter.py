"""`OpenAIAgentsAdapter`: an OpenAI Agents SDK agent as an AG-UI 1.0 agent.

A tool that needs approval ends the run with an interrupt; a later run, given
the messages of the last MESSAGES_SNAPSHOT and one resume entry per open
interrupt, runs the approved calls, tells the model about the others, and
carries on. Runs the offline model when no API key is set::

    import asyncio
    from ag_ui.core import ResumeEntry, RunAgentInput, UserMessage
    from interrupt_widget import OpenAIAgentsAdapter
    from interrupt_widget.examples import meeting_agent

    async def main() -> None:
        adapter = OpenAIAgentsAdapter(meeting_agent())
        ask = UserMessage(id="u1", content="Book a call with Alice about the Q3 roadmap")
        first = RunAgentInput(thread_id="t1", run_id="r1", messages=[ask])
        *_, snapshot, paused = [event async for event in adapter.run(first)]
        answer = {"approved": True, "chosen_time": "2030-01-08T10:00:00Z", "chosen_label": "Tue"}
        asked = paused.outcome.interrupts[0].id
        entry = ResumeEntry(interrupt_id=asked, status="resolved", payload=answer)
        history = snapshot.messages
        then = RunAgentInput(thread_id="t1", run_id="r2", messages=history, resume=[entry])
        async for event in adapter.run(then):
            print(event.type.value, getattr(event, "delta", ""))

    asyncio.run(main())

Stopping a run: `run()` returns an `AdapterRun`. Call its `stop()` (from any
thread) and keep iterating: open text messages and tool calls are closed, a
MESSAGES_SNAPSHOT keeps everything said so far, and the run ends with
RUN_FINISHED and the cancelled outcome. Cancelling the task that iterates has
the same effect: the next `__anext__` calls return those closing events, and
the one after them raises `CancelledError`. `aclose()` ends the stream at once,
with no further events.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import logging
import threading
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Mapping
from datetime import UTC, datetime, timedelta
from typing import Any, Final, TypeVar

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
    RunStartedEvent,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallResultEvent,
    ToolCallStartEvent,
    UserMessage,
)
from ag_ui.core.version import PROTOCOL_VERSION
from agents import (
    Agent,
    AgentsException,
    FunctionTool,
    ItemHelpers,
    ModelBehaviorError,
    RunConfig,
    RunContextWrapper,
    Runner,
    RunResultStreaming,
    UserError,
)
from agents.tool import invoke_function_tool
from agents.tool_context import ToolContext
from openai.types.responses import ResponseFunctionToolCall

from interrupt_widget.edits import EditSpec, check_edit, declared_edit, edited_note
from interrupt_widget.errors import AdapterError, ErrorCode
from interrupt_widget.interrupts import (
    DENIAL_REASON,
    INTERRUPT_KEY,
    GatedCall,
    approval_schema,
    attach,
    declared_response_schema,
    expiry,
    gated_calls,
    parse_arguments,
    result_message_id,
    tool_arguments,
    tool_call_interrupt,
    tool_name,
)
from interrupt_widget.ledgers import LedgerSpec, open_ledger
from interrupt_widget.messages import (
    NOT_RUN_PREFIX,
    REASON_LABEL,
    Transcript,
    output_text,
    to_sdk_input,
)
from interrupt_widget.offline_model import with_message_ids
from interrupt_widget.once import CallInDoubt, CallLedger, Recorded
from interrupt_widget.policy import Policy, Ruling
from interrupt_widget.resume import Resolution, plan_resume
from interrupt_widget.sdk_events import EventTranslator, MessageIds
from interrupt_widget.tool_answers import answering

logger = logging.getLogger(__name__)

__all__ = ["AdapterRun", "OpenAIAgentsAdapter"]

_T = TypeVar("_T")

MAX_SETTLED_ROUNDS = 20
"""How many rounds of calls the policy may settle in a row within one run."""


class OpenAIAgentsAdapter:
    """Runs an Agents SDK agent for AG-UI `RunAgentInput`s; stateless between runs.

    Safe to share: many `run()` calls may proceed at once, from different
    threads and event loops. The only thing it remembers is the output of each
    approved call it ran (by thread id and tool call id), so that the same
    resume given twice, even concurrently, runs the call once. Across
    processes the messages carry that guarantee: a call whose result is in
    them never runs again, so resume from the latest MESSAGES_SNAPSHOT.
    """

    def __init__(
        self,
        agent: Agent[Any],
        *,
        response_schemas: Mapping[str, Mapping[str, Any]] | None = None,
        expires_in: float | timedelta | None = None,
        run_config: RunConfig | None = None,
        context: Any = None,
        clock: Callable[[], datetime] | None = None,
        ledger: LedgerSpec = None,
        policy: Policy | None = None,
    ) -> None:
        self.agent = agent
        """The starting agent of every run."""
        self.edits: dict[str, EditSpec] = _declared_edits(agent)
        """What a person may change per editable tool name (`editable`)."""
        self.response_schemas: dict[str, Mapping[str, Any]] = {
            **_declared_schemas(agent),
            **dict(response_schemas or {}),
        }
        """Extra answer fields per tool name (an object schema), added beside `approved`.

        Starts with the schemas declared on the agents' tools (`with_response_schema`);
        `response_schemas` adds to and overrides them. An editable tool's schema also
        holds `arguments`, the parameters a person may change."""
        for name, spec in self.edits.items():
            self.response_schemas[name] = _with_edit(self.response_schemas.get(name), spec)
        self.expires_in = expires_in
        """How long an interrupt stays answerable (seconds or a timedelta); None for ever."""
        self.run_config = run_config
        """Passed to every `Runner.run_streamed` and to approved calls run on resume."""
        self.context = context
        """The SDK run context object handed to tools (`ctx.context`)."""
        self._clock = clock or (lambda: datetime.now(UTC))
        self.ledger: CallLedger = open_ledger(ledger)
        """Where approved calls are claimed and their outputs kept, so each runs once.

        By default the per-user `SQLiteLedger` (or `$INTERRUPT_WIDGET_LEDGER`), shared by
        every kernel and server of this user on this machine; `ledger` may name another
        file, a `postgresql://` URL, `"memory"`, or be a ledger (see `interrupt_widget.ledgers`)."""

        self.policy = policy
        """Rules that settle calls without a person (`Policy`); None: a person answers all.

        A settled call never pauses the run: an approved one runs at once (once,
        through the ledger), a denied one is not run and the model is told why."""

    def run(self, input: RunAgentInput) -> AdapterRun:
        """The AG-UI events of one run, as an async iterator with a thread-safe `stop()`."""
        return AdapterRun(self, input)

    def schema_for(self, tool_name: str) -> dict[str, Any]:
        """The response schema of an interrupt for `tool_name`."""
        return approval_schema(self.response_schemas.get(tool_name))

    async def _events(
        self, input: RunAgentInput, handle: AdapterRun
    ) -> AsyncGenerator[BaseEvent, None]:
        handle._started(asyncio.get_running_loop())
        yield RunStartedEvent(
            thread_id=input.thread_id, run_id=input.run_id, protocol_version=PROTOCOL_VERSION
        )
        try:
            plan = plan_resume(
                input.messages,
                input.resume,
                schema_for=lambda g: self.schema_for(g.call.function.name),
                now=self._clock(),
                check_edit=self._check_edit,
            )
            approved_tools = {
                r.gated.call_id: await self._tool_for(r.gated)
                for r in plan.resolutions
                if r.decision == "approved"
            }
        except AdapterError as error:
            yield _run_error(error.code, error.message)
            return
        except Exception as error:  # e.g. the agent's tools could not be listed
            yield _run_error(ErrorCode.AGENT_ERROR, str(error) or type(error).__name__)
            return

        history = plan.messages
        if plan.replayed and not (history and isinstance(history[-1], UserMessage)):
            # Every entry answered an interrupt that already has its result: nothing to do.
            yield MessagesSnapshotEvent(messages=history)
            yield RunFinishedEvent(
                thread_id=input.thread_id, run_id=input.run_id, outcome=RunFinishedSuccessOutcome()
            )
            return

        transcript = Transcript()
        translator = EventTranslator(MessageIds(input.run_id, len(input.messages)))
        pending: list[BaseEvent] = []
        try:
            if plan.resolutions:
                # Results of calls started in an earlier run follow a snapshot of that run.
                yield MessagesSnapshotEvent(messages=history)
            for resolution in plan.resolutions:
                if handle.stop_requested:
                    break
                tool = approved_tools.get(resolution.gated.call_id)
                result = await self._resolve(input.thread_id, resolution, tool)
                transcript.apply(result)
                yield result

            agent = self._agent_for(plan.resolutions)
            settled_rounds = 0
            while not handle.stop_requested:
                conversation = history + transcript.messages
                # The offline model's ids also depend on the message ids, not on words alone.
                streamed = with_message_ids(
                    (m.id for m in conversation),
                    functools.partial(
                        Runner.run_streamed,
                        agent,
                        to_sdk_input(conversation),
                        context=self.context,
                        run_config=self.run_config,
                    ),
                )
                handle._attach(streamed)
                async for sdk_event in streamed.stream_events():
                    for event in translator.translate(sdk_event):
                        transcript.apply(event)
                        yield event
                if handle.stop_requested:
                    break
                interrupts = self._interrupts(streamed, transcript, pending)
                for event in pending:
                    yield event
                pending.clear()
                asked, settled = self._settle(interrupts, history + transcript.messages)
                for resolution, ruling in settled:
                    tool = await self._tool_for(resolution.gated)
                    result = await self._resolve(input.thread_id, resolution, tool, ruling)
                    transcript.apply(result)
                    yield result
                if settled and not asked:
                    # The policy settled every call: the model carries on in this same run.
                    settled_rounds += 1
                    if settled_rounds > MAX_SETTLED_ROUNDS:
                        raise AdapterError(
                            ErrorCode.AGENT_ERROR,
                            f"The policy settled {MAX_SETTLED_ROUNDS} rounds of tool calls in "
                            "a row; the run stops so that it cannot loop for ever.",
                        )
                    agent = self._agent_for([r for r, _ in settled])
                    continue
                yield MessagesSnapshotEvent(messages=history + transcript.messages)
                outcome: Any = (
                    RunFinishedInterruptOutcome(interrupts=asked)
                    if asked
                    else RunFinishedSuccessOutcome()
                )
                yield RunFinishedEvent(
                    thread_id=input.thread_id, run_id=input.run_id, outcome=outcome
                )
                return
            for event in _cancelled(input, translator, history + transcript.messages):
                yield event
        except asyncio.CancelledError:
            handle._cancel_sdk_run()
            for event in _cancelled(input, translator, history + transcript.messages):
                yield event
            raise
        except Exception as error:  # everything else ends the run with RUN_ERROR
            code, message = _classify(error)
            logger.debug("run %s failed: %s", input.run_id, message, exc_info=True)
            for event in translator.close_open():
                yield event
            if transcript.messages:
                # Keep what this run already did (an approved call's result above all).
                yield MessagesSnapshotEvent(messages=history + transcript.messages)
            yield _run_error(code, message)
        finally:
            handle._cancel_sdk_run()

    def _check_edit(self, gated: GatedCall, payload: Any) -> dict[str, Any] | None:
        name = gated.call.function.name
        return check_edit(
            self.edits.get(name),
            proposal=parse_arguments(gated.call.function.arguments),
            payload=payload,
            interrupt_id=gated.interrupt.id,
            tool_name=name,
        )

    async def _tool_for(self, gated: GatedCall) -> FunctionTool:
        agent = self._owner_of(gated)
        name = gated.call.function.name
        for tool in await agent.get_all_tools(RunContextWrapper(context=self.context)):
            if isinstance(tool, FunctionTool) and tool.name == name:
                return tool
        raise AdapterError(
            ErrorCode.INVALID_INPUT,
            f"Interrupt {gated.interrupt.id!r} approves a call to {name!r}, "
            f"which agent {agent.name!r} does not have.",
            interrupt_id=gated.interrupt.id,
        )

    def _owner_of(self, gated: GatedCall) -> Agent[Any]:
        wanted = (gated.interrupt.metadata or {}).get("agent_name")
        return _find_agent(self.agent, wanted) if isinstance(wanted, str) else self.agent

    def _agent_for(self, resolutions: list[Resolution]) -> Agent[Any]:
        # After a handoff, the agent that asked for approval carries on.
        owners = {self._owner_of(r.gated).name: self._owner_of(r.gated) for r in resolutions}
        return next(iter(owners.values())) if len(owners) == 1 else self.agent

    def _settle(
        self, interrupts: list[Interrupt], messages: list[Message]
    ) -> tuple[list[Interrupt], list[tuple[Resolution, Ruling]]]:
        """Split the interrupts into those a person must answer and those the policy settles."""
        policy = self.policy
        if policy is None or not interrupts:
            return interrupts, []
        asked: list[Interrupt] = []
        rulings: dict[str, Ruling] = {}
        for interrupt in interrupts:
            ruling = policy.decide(tool_name(interrupt), tool_arguments(interrupt))
            if ruling.settled and interrupt.tool_call_id:
                rulings[interrupt.tool_call_id] = ruling
            else:
                asked.append(interrupt)
        if not rulings:
            return asked, []
        settled: list[tuple[Resolution, Ruling]] = []
        for gated in gated_calls(messages):
            found = rulings.get(gated.call_id)
            if found is None:
                continue
            if found.verdict == "approve":
                payload: dict[str, Any] = {"approved": True}
            else:
                payload = {"approved": False}
                if found.rule is not None and found.rule.reason:
                    payload[DENIAL_REASON] = found.rule.reason
            decision: Any = "approved" if found.verdict == "approve" else "denied"
            settled.append((Resolution(gated, decision, payload), found))
        return asked, settled

    async def _resolve(
        self,
        thread_id: str,
        resolution: Resolution,
        tool: FunctionTool | None,
        ruling: Ruling | None = None,
    ) -> ToolCallResultEvent:
        call = resolution.gated.call
        name = call.function.name
        key = (thread_id, call.id)
        interrupt_id = resolution.gated.interrupt.id
        try:
            # A call that ran has one truth: any later answer gets its recorded result.
            prior = await self.ledger.recorded(key)
            if prior is not None:
                return self._result(
                    resolution, prior.output, _replay_marker(resolution, prior), ruling
                )
            if resolution.decision == "approved" and tool is not None:
                ran = False

                async def invoke() -> str:
                    nonlocal ran
                    ran = True
                    return await self._invoke(tool, resolution)

                try:
                    output = await self.ledger.run_once(key, invoke, answer=resolution.payload)
                except CallInDoubt:
                    raise
                except Exception as error:
                    raise AdapterError(
                        ErrorCode.TOOL_ERROR,
                        f"{name} failed after interrupt {interrupt_id!r} was approved: {error}",
                        interrupt_id=interrupt_id,
                    ) from error
                if not ran:  # another run claimed it first: its result stands
                    prior = await self.ledger.recorded(key) or Recorded(output)
                    replay = _replay_marker(resolution, prior)
                    return self._result(resolution, prior.output, replay, ruling)
                marker: dict[str, Any] = {"decision": "approved"}
                if resolution.edited_arguments is not None:
                    marker["arguments"] = resolution.edited_arguments
                return self._result(resolution, output, marker, ruling)
            # A denial or a cancel is settled through the ledger as well, so the call has
            # one truth: whichever answer claims it first stands, a later one replays it.
            output = _not_run_output(resolution, name, ruling)
            settled = False

            async def settle() -> str:
                nonlocal settled
                settled = True
                return output

            kept = await self.ledger.run_once(key, settle, answer=_not_run_answer(resolution))
            if not settled:  # another answer claimed it first: its result stands
                prior = await self.ledger.recorded(key) or Recorded(kept)
                return self._result(
                    resolution, prior.output, _replay_marker(resolution, prior), ruling
                )
            return self._result(resolution, output, {"decision": resolution.decision}, ruling)
        except CallInDoubt as error:
            raise AdapterError(
                ErrorCode.CALL_IN_DOUBT, str(error), interrupt_id=interrupt_id
            ) from error

    def _result(
        self,
        resolution: Resolution,
        output: str,
        marker: dict[str, Any],
        ruling: Ruling | None,
    ) -> ToolCallResultEvent:
        call = resolution.gated.call
        full: dict[str, Any] = {"id": resolution.gated.interrupt.id, **marker}
        if ruling is not None:
            # Recorded like a person's answer, so the decision log and the transcript show it.
            full.update(by=ruling.by, payload=resolution.payload, at=_instant(self._clock()))
        return ToolCallResultEvent(
            message_id=result_message_id(call.id),
            tool_call_id=call.id,
            content=output,
            role="tool",
            metadata={INTERRUPT_KEY: full},
        )

    async def _invoke(self, tool: FunctionTool, resolution: Resolution) -> str:
        call = resolution.gated.call
        edited = resolution.edited_arguments
        # The proposal stays as the model made it; only the run sees the person's edit.
        arguments = call.function.arguments if edited is None else json.dumps(edited)
        raw_call = ResponseFunctionToolCall(
            type="function_call",
            call_id=call.id,
            name=call.function.name,
            arguments=arguments,
        )
        context = ToolContext.from_agent_context(
            RunContextWrapper(context=self.context),
            call.id,
            tool_call=raw_call,
            agent=self._owner_of(resolution.gated),
            run_config=self.run_config,
        )
        with answering(call.id, resolution.payload):
            output = await invoke_function_tool(
                function_tool=tool, context=context, arguments=arguments
            )
        # Convert as the SDK would for the model, so a resumed call reads the same.
        text = output_text(ItemHelpers.tool_call_output_item(raw_call, output)["output"])
        return text if edited is None else edited_note(call.function.name, edited, text)

    def _interrupts(
        self, streamed: RunResultStreaming, transcript: Transcript, pending: list[BaseEvent]
    ) -> list[Interrupt]:
        interrupts: list[Interrupt] = []
        expires_at = expiry(self.expires_in, self._clock())
        for item in streamed.interruptions:
            call_id = item.call_id
            name = item.tool_name or ""
            arguments = item.arguments or ""
            if not call_id:
                continue
            interrupt = tool_call_interrupt(
                tool_call_id=call_id,
                tool_name=name,
                arguments=arguments,
                response_schema=self.response_schemas.get(name),
                expires_at=expires_at,
                agent_name=item.agent.name if item.agent is not None else None,
            )
            call = transcript.call(call_id)
            if call is None:  # a call the stream did not show: show it now
                for event in _call_events(call_id, name, arguments):
                    transcript.apply(event)
                    pending.append(event)
                call = transcript.call(call_id)
            assert call is not None
            transcript.replace_call(attach(call, interrupt))
            interrupts.append(interrupt)
        return interrupts


class AdapterRun:
    """One run's event stream: a `RunHandle` (an async iterator of events with `stop()`)."""

    def __init__(self, adapter: OpenAIAgentsAdapter, input: RunAgentInput) -> None:
        self.input = input
        """The request this run answers."""
        self._events = adapter._events(input, self)
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._streamed: RunResultStreaming | None = None

    def __aiter__(self) -> AsyncIterator[BaseEvent]:
        # `async for` iterates the event generator itself: no wrapper per event.
        return self._events

    async def __anext__(self) -> BaseEvent:
        return await self._events.__anext__()

    async def aclose(self) -> None:
        """End the stream now; no further events (see the module docs)."""
        await self._events.aclose()

    @property
    def stop_requested(self) -> bool:
        """Whether `stop()` was called: the run ends cancelled at its next safe point."""
        return self._stop.is_set()

    @property
    def can_stop(self) -> bool:
        """Always: the run ends itself, cancelled, at its next safe point."""
        return True

    def stop(self) -> None:
        """Ask the run to end with the cancelled outcome. Thread-safe; idempotent.

        Keep iterating afterwards to receive the closing events. An approved
        call already running finishes first (it is never cut off halfway).
        """
        self._stop.set()
        with self._lock:
            loop = self._loop
        if loop is not None and not loop.is_closed():
            # The loop may close meanwhile: then there is nothing left to stop.
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(self._cancel_sdk_run)

    def _started(self, loop: asyncio.AbstractEventLoop) -> None:
        with self._lock:
            self._loop = loop

    def _attach(self, streamed: RunResultStreaming) -> None:
        self._streamed = streamed
        if self.stop_requested:
            streamed.cancel()

    def _cancel_sdk_run(self) -> None:
        streamed = self._streamed
        if streamed is not None and not streamed.is_complete:
            streamed.cancel()


def _agents(root: Agent[Any]) -> list[Agent[Any]]:
    """`root` and every agent reachable through plain `Agent` handoffs."""
    found: list[Agent[Any]] = []
    queue: list[Agent[Any]] = [root]
    while queue:
        agent = queue.pop(0)
        if any(agent is seen for seen in found):
            continue
        found.append(agent)
        queue.extend(h for h in agent.handoffs if isinstance(h, Agent))
    return found


def _find_agent(root: Agent[Any], name: str) -> Agent[Any]:
    return next((a for a in _agents(root) if a.name == name), root)


def _declared(root: Agent[Any], read: Callable[[Any], _T | None]) -> dict[str, _T]:
    """What `read` finds declared on each function tool of `root` and its handoffs, by name."""
    found: dict[str, _T] = {}
    for agent in _agents(root):
        for tool in agent.tools:
            value = read(tool)
            if value is not None and isinstance(tool, FunctionTool):
                found.setdefault(tool.name, value)
    return found


def _declared_schemas(root: Agent[Any]) -> dict[str, Mapping[str, Any]]:
    return _declared(root, declared_response_schema)


def _declared_edits(root: Agent[Any]) -> dict[str, EditSpec]:
    return _declared(root, declared_edit)


def _with_edit(extra: Mapping[str, Any] | None, spec: EditSpec) -> dict[str, Any]:
    """The tool's extra answer fields with `arguments` added."""
    merged = dict(extra or {})
    merged["properties"] = {
        **dict(merged.get("properties", {})),
        **spec.answer_schema()["properties"],
    }
    return merged


def _call_events(call_id: str, name: str, arguments: str) -> list[BaseEvent]:
    events: list[BaseEvent] = [ToolCallStartEvent(tool_call_id=call_id, tool_call_name=name)]
    if arguments:
        events.append(ToolCallArgsEvent(tool_call_id=call_id, delta=arguments))
    events.append(ToolCallEndEvent(tool_call_id=call_id))
    return events


def _instant(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat().replace("+00:00", "Z")


def _run_error(code: ErrorCode, message: str) -> RunErrorEvent:
    return RunErrorEvent(message=message, code=code.value)


def _classify(error: Exception) -> tuple[ErrorCode, str]:
    if isinstance(error, AdapterError):
        return error.code, error.message
    message = str(error) or type(error).__name__
    if isinstance(error, UserError) and message.startswith("Error running tool"):
        return ErrorCode.TOOL_ERROR, message
    if isinstance(error, ModelBehaviorError):
        return ErrorCode.MODEL_ERROR, message
    if isinstance(error, AgentsException):
        return ErrorCode.AGENT_ERROR, message
    return ErrorCode.MODEL_ERROR, message


_NOT_RUN_KEY: Final = "not_run"
"""Key of the ledger's answer record for a call settled without running."""


def _not_run_output(resolution: Resolution, name: str, ruling: Ruling | None) -> str:
    """What the model is told about a denied or cancelled call."""
    if resolution.decision == "denied" and ruling is not None:
        rule = ruling.rule.name if ruling.rule is not None else "policy"
        return f"{NOT_RUN_PREFIX} the approval policy ({rule}) denied {name}.{_reason(resolution)}"
    if resolution.decision == "denied":
        return f"{NOT_RUN_PREFIX} the user did not approve {name}.{_reason(resolution)}"
    return f"{NOT_RUN_PREFIX} the approval request for {name} was cancelled."


def _not_run_answer(resolution: Resolution) -> dict[str, Any]:
    """The ledger's record of an answer that settled a call without running it."""
    return {_NOT_RUN_KEY: resolution.decision, "payload": resolution.payload}


def _replay_marker(resolution: Resolution, prior: Recorded) -> dict[str, Any]:
    """How a later answer's result is marked: the earlier answer that settled the call stands."""
    answer = prior.answer
    earlier = answer.get(_NOT_RUN_KEY) if isinstance(answer, Mapping) else None
    if earlier in ("denied", "cancelled"):
        return {"decision": earlier, "replayed": True, "late_decision": resolution.decision}
    return {
        "decision": "approved",
        "replayed": True,
        "ran_with": prior.answer,
        "late_decision": resolution.decision,
    }


def _reason(resolution: Resolution) -> str:
    """` Reason: ...` when a denial says why, so the model can act on it."""
    payload = resolution.payload
    reason = payload.get(DENIAL_REASON) if isinstance(payload, Mapping) else None
    if not isinstance(reason, str) or not reason.strip():
        return ""
    return f" {REASON_LABEL} {' '.join(reason.split())}"


def _cancelled(
    input: RunAgentInput, translator: EventTranslator, messages: list[Message]
) -> list[BaseEvent]:
    """How a stopped run ends: what is open closed, everything said kept, then the outcome."""
    return [
        *translator.close_open(),
        MessagesSnapshotEvent(messages=messages),
        RunFinishedEvent(
            thread_id=input.thread_id, run_id=input.run_id, outcome=RunFinishedCancelledOutcome()
        ),
    ]
