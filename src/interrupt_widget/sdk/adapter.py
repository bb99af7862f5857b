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

Stopping a run: `run()` returns an `AdapterRunHandle`. Call its `stop()` (from any
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
import dataclasses
import logging
import os
import threading
from collections.abc import AsyncGenerator, AsyncIterator, Callable, Iterable, Mapping
from datetime import datetime, timedelta
from typing import Any, Final, TypeVar

from ag_ui.core import (
    BaseEvent,
    Interrupt,
    Message,
    MessagesSnapshotEvent,
    RunAgentInput,
    RunErrorEvent,
    RunFinishedEvent,
    RunFinishedInterruptOutcome,
    RunFinishedSuccessOutcome,
    RunStartedEvent,
    UserMessage,
)
from ag_ui.core.version import PROTOCOL_VERSION
from agents import (
    Agent,
    AgentsException,
    FunctionTool,
    ModelBehaviorError,
    RunConfig,
    RunContextWrapper,
    RunHooks,
    RunResultStreaming,
    ToolApprovalItem,
    UserError,
)

from interrupt_widget.agui.interrupts import (
    DENIAL_REASON,
    GatedCall,
    approval_schema,
    gated_calls,
    tool_arguments,
    tool_call_interrupt,
    tool_name,
)
from interrupt_widget.agui.resume import Resolution, ResumePlan, plan_resume
from interrupt_widget.clock import now as utc_now
from interrupt_widget.clock import utc_text
from interrupt_widget.errors import (
    AdapterError,
    CallInDoubt,
    CassetteMismatch,
    CassetteMissing,
    ErrorCode,
    LedgerUnavailable,
)
from interrupt_widget.identity import Identity, identity_in
from interrupt_widget.ledger.once_only import CallLedger
from interrupt_widget.ledger.opening import LedgerSpec, open_ledger
from interrupt_widget.policy.rules import Policy, Ruling
from interrupt_widget.sdk import paused_runs, vote_counting
from interrupt_widget.sdk.cassette import Cassette, cassette_from, tap_models
from interrupt_widget.sdk.decision_spans import ASKED_AT_KEY
from interrupt_widget.sdk.edits import EditSpec, check_edit, declared_edit
from interrupt_widget.sdk.endings import ending_error
from interrupt_widget.sdk.model_choice import OFFLINE_WAY, is_missing_credentials
from interrupt_widget.sdk.response_schema import declared_response_schema
from interrupt_widget.sdk.run import Decided, HoldsClaims, SDKRun

logger = logging.getLogger(__name__)

__all__ = ["AdapterRunHandle", "OpenAIAgentsAdapter"]

_T = TypeVar("_T")


_GROUPED_THREADS: Final = 256
"""How many threads' run configs an adapter keeps made (then it starts again)."""


class OpenAIAgentsAdapter:
    """Runs an Agents SDK agent for AG-UI `RunAgentInput`s.

    Safe to share: many `run()` calls may proceed at once, from different
    threads and event loops. Between runs it keeps two things in its ledger:
    the SDK's state of each run that paused on approvals (so a resume continues
    the SDK's own run, `paused_runs`), and the output of each gated call (by
    thread id and tool call id), so that the same resume given twice, even
    concurrently or on another replica sharing the ledger, runs the call once.
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
        hooks: RunHooks[Any] | None = None,
        trace_arguments: bool = False,
        cassette: Cassette | str | os.PathLike[str] | None = None,
    ) -> None:
        self.agent = agent
        """The starting agent of every run."""
        self.cassette = cassette_from(cassette)
        """Where the model's answers are recorded and replayed (`Cassette`; a path makes one;
        None: `$INTERRUPT_WIDGET_CASSETTE`'s, if set); None: the model is asked each time."""
        if self.cassette is not None:
            # Models held as instances answer through the cassette of the run that asks them.
            tap_models(agent, bound=None)
        self.edits: dict[str, EditSpec] = declared_edits(agent)
        """What a person may change per editable tool name (`editable`)."""
        self.response_schemas: dict[str, Mapping[str, Any]] = answer_fields(agent, response_schemas)
        """Extra answer fields per tool name (an object schema), added beside `approved`.

        Starts with the schemas declared on the agents' tools (`with_response_schema`);
        `response_schemas` adds to and overrides them. An editable tool's schema also
        holds the field that carries the edited arguments."""
        self.expires_in = expires_in
        """How long an interrupt stays answerable (seconds or a timedelta); None for ever."""
        self.run_config = run_config
        """Passed to every SDK run, resumed ones included (its `group_id` defaults to the
        thread id, so a conversation's runs group in one trace view)."""
        self.context = context
        """The SDK run context object handed to tools (`ctx.context`)."""
        self.hooks = hooks
        """The SDK's `RunHooks`, passed to every run, resumed ones included."""
        self.trace_arguments = trace_arguments
        """Whether a decision's span carries the arguments that ran, not only their SHA-256
        (`decision_spans`); off by default, since arguments may hold personal data."""
        self._clock = clock or utc_now
        self._grouped: dict[str, RunConfig] = {}
        """The run config made for each recent thread when none was given (see
        `run_config_for`)."""
        self.ledger: CallLedger = open_ledger(ledger)
        """Where approved calls are claimed and their outputs kept, so each runs once, and
        where the SDK's paused runs wait for their answers.

        By default the per-user `SQLiteLedger` (or `$INTERRUPT_WIDGET_LEDGER`), shared by
        every kernel and server of this user on this machine; `ledger` may name another
        file, a `postgresql://` URL, `"memory"`, or be a ledger (see `interrupt_widget.ledger`)."""

        self.policy = policy
        """Rules that settle calls without a person (`Policy`); None: a person answers all.

        A settled call never pauses the run: the SDK runs an approved one at once (once,
        through the ledger); a denied one is not run and the model is told why."""

    def run(self, input: RunAgentInput) -> AdapterRunHandle:
        """The AG-UI events of one run, as an async iterator with a thread-safe `stop()`."""
        return AdapterRunHandle(self, input)

    def schema_for(self, tool_name: str) -> dict[str, Any]:
        """The response schema of an interrupt for `tool_name`."""
        return approval_schema(self.response_schemas.get(tool_name))

    def now(self) -> datetime:
        """The adapter's clock."""
        return self._clock()

    def run_config_for(self, thread_id: str) -> RunConfig:
        """The run config of a run in `thread_id`: the given one, grouped by the thread."""
        config = self.run_config
        if config is None:
            # One per thread, shared by its runs (a pause and its resume): a new one makes a
            # new model provider each time.
            config = self._grouped.get(thread_id)
            if config is None:
                if len(self._grouped) >= _GROUPED_THREADS:
                    self._grouped.clear()
                config = self._grouped[thread_id] = RunConfig(group_id=thread_id)
        elif config.group_id is None:
            config = dataclasses.replace(config, group_id=thread_id)
        if self.cassette is not None:
            config = self.cassette.run_config(config)
        return config

    def model_calls(self) -> contextlib.AbstractContextManager[None]:
        """Where this adapter's model calls go in the current context: its cassette, if any."""
        return self.cassette.active() if self.cassette is not None else contextlib.nullcontext()

    async def _events(
        self, input: RunAgentInput, handle: AdapterRunHandle
    ) -> AsyncGenerator[BaseEvent, None]:
        handle._started(asyncio.get_running_loop())
        yield RunStartedEvent(
            thread_id=input.thread_id, run_id=input.run_id, protocol_version=PROTOCOL_VERSION
        )
        try:
            plan = self._plan(input)
            # Who started the run, as its forwarded props say (the server sets it from the
            # token): read with the answers' identities, before any rule counts them.
            started = identity_in(input.forwarded_props)
            counted = await self._count_votes(input, plan, started)
            if counted.waiting and not counted.ready:  # every call waits for people yet
                for event in self._still_waiting(input, plan.messages, counted.waiting):
                    yield event
                return
            state = await self._paused_state(input.thread_id, plan) if plan.resolutions else None
        except AdapterError as error:
            yield self.run_error(error.code, error.message)
            return
        except (LedgerUnavailable, CallInDoubt) as error:
            yield self.run_error(*_classify(error))
            return
        except Exception as error:  # e.g. the agent's paused run could not be restored
            yield self.run_error(ErrorCode.AGENT_ERROR, str(error) or type(error).__name__)
            return
        history = plan.messages
        if plan.replayed and not (history and isinstance(history[-1], UserMessage)):
            # Every entry answered an interrupt that already has its result: nothing to do.
            yield MessagesSnapshotEvent(messages=history)
            yield RunFinishedEvent(
                thread_id=input.thread_id, run_id=input.run_id, outcome=RunFinishedSuccessOutcome()
            )
            return
        run = SDKRun(self, input, handle, history, answered=plan.answered, starter=counted.starter)
        decided: list[Decided] = [(r, None) for r in counted.ready]
        async for event in run.events(state, decided):
            yield event

    async def _count_votes(
        self, input: RunAgentInput, plan: ResumePlan, started: Identity | None
    ) -> vote_counting.Counted:
        """The answers after the rules about people (`sdk/vote_counting.py`): decided, or
        waiting."""
        starter = started.name if started is not None else None
        if self.policy is None or not self.policy.people or not plan.resolutions:
            return vote_counting.Counted(list(plan.resolutions), [], starter)
        counted = await vote_counting.count(
            self.policy,
            self.ledger,
            input.thread_id,
            plan.resolutions,
            self.now(),
        )
        return dataclasses.replace(counted, starter=counted.starter or starter)

    def _still_waiting(
        self, input: RunAgentInput, history: list[Message], waiting: list[Interrupt]
    ) -> list[BaseEvent]:
        """How a run ends when its answers were kept as votes: asking again, nothing run."""
        return [
            MessagesSnapshotEvent(messages=history),
            RunFinishedEvent(
                thread_id=input.thread_id,
                run_id=input.run_id,
                outcome=RunFinishedInterruptOutcome(interrupts=waiting),
            ),
        ]

    def _plan(self, input: RunAgentInput) -> ResumePlan:
        return plan_resume(
            input.messages,
            input.resume,
            schema_for=lambda g: self.schema_for(g.call.function.name),
            now=self._clock(),
            check_edit=self._check_edit,
        )

    async def _paused_state(self, thread_id: str, plan: ResumePlan) -> paused_runs.Paused | None:
        edits = {
            r.gated.call_id: r.edited_arguments
            for r in plan.resolutions
            if r.decision == "approved" and r.edited_arguments is not None
        }
        waiting = [r.gated for r in plan.resolutions]
        try:
            state = await paused_runs.load(
                self.ledger, self.agent, thread_id, waiting, context=self.context, edits=edits
            )
        except (AdapterError, asyncio.CancelledError):
            raise
        except (LedgerUnavailable, CallInDoubt) as error:
            code = _classify(error)[0]
            raise AdapterError(code, str(error), interrupt_id=waiting[0].interrupt.id) from error
        except Exception as error:  # the SDK could not restore it with this agent
            # The SDK redacts why; listing the agent's tools says it (a tool server down).
            await self.agent.get_all_tools(RunContextWrapper(context=self.context))
            asked = ", ".join(f"{g.interrupt.id!r} ({g.call.function.name})" for g in waiting)
            raise AdapterError(
                ErrorCode.INVALID_INPUT,
                f"The run paused on interrupt {asked} cannot be resumed with agent "
                f"{self.agent.name!r}: {error}",
                interrupt_id=waiting[0].interrupt.id,
            ) from error
        if state is not None:
            await self._check_tools(state.pending.values(), waiting)
        return state

    async def _check_tools(
        self, pending: Iterable[ToolApprovalItem], waiting: list[GatedCall]
    ) -> None:
        """Every waiting call names a tool its agent has (the SDK would skip it silently)."""
        by_call = {g.call_id: g for g in waiting}
        for item in pending:
            gated = by_call.get(item.call_id or "")
            owner = item.agent
            if gated is None or owner is None or _surely_has(owner, item.tool_name):
                continue
            tools = await owner.get_all_tools(RunContextWrapper(context=self.context))
            if not any(getattr(tool, "name", None) == item.tool_name for tool in tools):
                raise AdapterError(
                    ErrorCode.INVALID_INPUT,
                    f"Interrupt {gated.interrupt.id!r} approves a call to {item.tool_name!r}, "
                    f"which agent {owner.name!r} does not have.",
                    interrupt_id=gated.interrupt.id,
                )

    def _check_edit(self, gated: GatedCall, payload: Any) -> dict[str, Any] | None:
        name = gated.call.function.name
        return check_edit(
            self.edits.get(name),
            arguments=gated.call.function.arguments,
            payload=payload,
            interrupt_id=gated.interrupt.id,
            tool_name=name,
        )

    def interrupt_for(self, item: ToolApprovalItem, expires_at: str | None) -> Interrupt:
        """The AG-UI interrupt for one of the SDK's pending approvals."""
        name = item.tool_name or ""
        return tool_call_interrupt(
            tool_call_id=item.call_id or "",
            tool_name=name,
            arguments=item.arguments or "",
            response_schema=self.response_schemas.get(name),
            expires_at=expires_at,
            agent_name=item.agent.name if item.agent is not None else None,
            # When it was asked, so a decision's span can say how long it waited.
            extra_metadata={ASKED_AT_KEY: utc_text(self.now())},
        )

    def settle(
        self, interrupts: list[Interrupt], messages: list[Message]
    ) -> tuple[list[Interrupt], list[Decided]]:
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
        settled: list[Decided] = []
        for gated in gated_calls(messages):
            found = rulings.get(gated.call_id)
            if found is not None:
                settled.append((_ruled(gated, found), found))
        return asked, settled

    def classify(self, error: Exception) -> tuple[ErrorCode, str]:
        """The RUN_ERROR code and message for an error that ended a run."""
        logger.debug("a run failed: %s", error, exc_info=True)
        return _classify(error)

    def run_error(self, code: ErrorCode, message: str) -> RunErrorEvent:
        """A RUN_ERROR event."""
        return _run_error(code, message)


def answer_fields(
    agent: Agent[Any], response_schemas: Mapping[str, Mapping[str, Any]] | None = None
) -> dict[str, Mapping[str, Any]]:
    """Extra answer fields per tool name: declared on `agent`'s tools, then given, then edits."""
    fields: dict[str, Mapping[str, Any]] = {
        **_declared_schemas(agent),
        **dict(response_schemas or {}),
    }
    for name, spec in declared_edits(agent).items():
        fields[name] = _with_edit(fields.get(name), spec)
    return fields


def _ruled(gated: GatedCall, ruling: Ruling) -> Resolution:
    if ruling.verdict == "approve":
        return Resolution(gated, "approved", {"approved": True})
    payload: dict[str, Any] = {"approved": False}
    if ruling.rule is not None and ruling.rule.reason:
        payload[DENIAL_REASON] = ruling.rule.reason
    return Resolution(gated, "denied", payload)


class AdapterRunHandle:
    """One run's event stream: a `RunHandle` (an async iterator of events with `stop()`)."""

    def __init__(self, adapter: OpenAIAgentsAdapter, input: RunAgentInput) -> None:
        self.input = input
        """The request this run answers."""
        self._events = adapter._events(input, self)
        self._stop_asked = False  # set from any thread; a bool's store is atomic
        self._lock = threading.Lock()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._streamed: RunResultStreaming | None = None
        self._following: HoldsClaims | None = None

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
        return self._stop_asked

    @property
    def can_stop(self) -> bool:
        """Always: the run ends itself, cancelled, at its next safe point."""
        return True

    def stop(self) -> None:
        """Ask the run to end with the cancelled outcome. Thread-safe; idempotent.

        Keep iterating afterwards to receive the closing events. An approved
        call already running finishes first (it is never cut off halfway).
        """
        self._stop_asked = True
        with self._lock:
            loop = self._loop
        if loop is not None and not loop.is_closed():
            # The loop may close meanwhile: then there is nothing left to stop.
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(self.end_sdk_run)

    def _started(self, loop: asyncio.AbstractEventLoop) -> None:
        with self._lock:
            self._loop = loop

    def follow(self, streamed: RunResultStreaming, run: HoldsClaims) -> None:
        """`streamed` is the SDK run `run` streams now (see `RunControl.follow`)."""
        self._streamed, self._following = streamed, run
        if self.stop_requested:
            self.end_sdk_run()

    def end_sdk_run(self) -> None:
        """End the SDK run followed now, if it is still going (on the run's loop)."""
        streamed = self._streamed
        if streamed is None or streamed.is_complete:
            return
        # An approved call the SDK is running is never cut off halfway: the turn ends first.
        holding = self._following is not None and self._following.holds_claims
        streamed.cancel(mode="after_turn" if holding else "immediate")


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


def _surely_has(agent: Agent[Any], name: str | None) -> bool:
    """Whether `agent.get_all_tools()` would list a tool named `name`, read without calling it.

    For an agent without MCP servers whose class lists tools as the SDK's `Agent` does, a
    tool among `agent.tools` that is always on is in that list; the SDK's own call starts a
    task per tool, most of the check's cost. Anything else (a switch that is a function, a
    server that may be down, a subclass with a listing of its own) is left to that call.
    """
    if agent.mcp_servers or type(agent).get_all_tools is not Agent.get_all_tools:
        return False
    return any(
        getattr(tool, "name", None) == name
        and (not isinstance(tool, FunctionTool) or tool.is_enabled is True)
        for tool in agent.tools
    )


def uses_default_model(root: Agent[Any]) -> bool:
    """True when no agent of `root`'s handoffs names a model: the SDK's default runs them all."""
    return all(agent.model is None for agent in _agents(root))


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


def declared_edits(root: Agent[Any]) -> dict[str, EditSpec]:
    """What a person may change, per editable tool name of `root` and its handoffs."""
    return _declared(root, declared_edit)


def _with_edit(extra: Mapping[str, Any] | None, spec: EditSpec) -> dict[str, Any]:
    """The tool's extra answer fields with `editedArgs` added."""
    merged = dict(extra or {})
    merged["properties"] = {
        **dict(merged.get("properties", {})),
        **spec.answer_schema()["properties"],
    }
    return merged


def _run_error(code: ErrorCode, message: str) -> RunErrorEvent:
    return RunErrorEvent(message=message, code=code.value)


def _classify(error: Exception) -> tuple[ErrorCode, str]:
    if isinstance(error, AdapterError):
        return error.code, error.message
    ended = ending_error(error)  # max turns, a refusal, a guardrail: the SDK's own endings
    if ended is not None:
        return ended
    message = str(error) or type(error).__name__
    if is_missing_credentials(error):
        return ErrorCode.MODEL_ERROR, f"{message} {OFFLINE_WAY}"
    if isinstance(error, LedgerUnavailable):
        return ErrorCode.LEDGER_UNAVAILABLE, message
    if isinstance(error, CallInDoubt):
        return ErrorCode.CALL_IN_DOUBT, message
    if isinstance(error, CassetteMismatch):
        return ErrorCode.CASSETTE_MISMATCH, message
    if isinstance(error, CassetteMissing):
        return ErrorCode.CASSETTE_MISSING, message
    if isinstance(error, UserError) and message.startswith("Error running tool"):
        return ErrorCode.TOOL_ERROR, message
    if isinstance(error, ModelBehaviorError):
        return ErrorCode.MODEL_ERROR, message
    if isinstance(error, AgentsException):
        return ErrorCode.AGENT_ERROR, message
    return ErrorCode.MODEL_ERROR, message
