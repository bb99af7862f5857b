"""Differential: the same agents resumed through the raw Agents SDK and through the kit.

Raw: `Runner.run` (and `Runner.run_streamed`) -> `result.interruptions` ->
`RunState.approve/reject` -> the same on the state. Kit: the adapter's AG-UI
runs, answered with resume entries. Both are compared on what a user observes
(`observers`): the tool bodies that ran (counted from a file each tool writes),
the hooks that fired, the function spans a trace processor saw, and how the run
ended: the SDK's final output against the reply the kit streamed (read as the
agent's output type), or the SDK's exception against the kit's RUN_ERROR.
"""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import importlib.util
import json
import os
import sys
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from ag_ui.core import (
    AssistantMessage,
    BaseEvent,
    Interrupt,
    MessagesSnapshotEvent,
    ResumeEntry,
    RunAgentInput,
    RunErrorEvent,
    RunFinishedCancelledOutcome,
    RunFinishedEvent,
    RunFinishedInterruptOutcome,
    ToolCallResultEvent,
    UserMessage,
)
from agents import (
    Agent,
    AgentsException,
    RunContextWrapper,
    Runner,
    ToolCallOutputItem,
    ToolGuardrailFunctionOutput,
    function_tool,
    set_trace_processors,
    set_tracing_disabled,
    tool_input_guardrail,
    tool_output_guardrail,
)
from agents.mcp import MCPServerStdio
from agents.result import RunResultBase
from agents.testing import ScriptedModel, function_call
from observers import SUCCESS, Spans, code_for, read_as, runs, shown_reply, watch

from ending_agents import Hold, Receipt, ReceiptRecord, ending_agent
from interrupt_widget import AGUIClient, OfflineModel, OpenAIAgentsAdapter, asgi_app, editable
from interrupt_widget.agui.interrupts import tool_arguments, tool_name
from interrupt_widget.agui.messages import NOT_RUN_PREFIX, content_text
from interrupt_widget.agui.wire import messages_to_wire, to_wire
from interrupt_widget.asking.thread import ConversationThread
from interrupt_widget.testing import assert_valid_stream

Answer = tuple[str, Any]
"""("approve", None), ("deny", None) or ("edit", {arguments})."""
Decide = Callable[[str, dict[str, Any]], Answer]


def approve_all(_name: str, _args: dict[str, Any]) -> Answer:
    return ("approve", None)


# -- what a user observes ----------------------------------------------------------------------


Ended = tuple[Any, str, str]
"""(the final output, or the reply shown read as one; the ending; the SDK's reason when it
raised): the ending is `SUCCESS` or the RUN_ERROR code."""


@dataclass
class Observed:
    runs: list[tuple[str, dict[str, Any]]]
    hooks: list[str] = field(default_factory=list)
    spans: list[str] = field(default_factory=list)
    text: Any = ""
    """Raw: `final_output`; through the kit: the reply it streamed, read as the output type."""
    ending: str = SUCCESS
    reason: str = ""
    """The SDK's words for an ending that raised; the kit's RUN_ERROR message holds them."""


def assert_alike(raw: Observed, kit: Observed, way: str) -> None:
    assert raw.reason in kit.reason, (way, raw.reason, kit.reason)
    assert dataclasses.replace(kit, reason=raw.reason) == raw, way


@pytest.fixture
def spans() -> Iterator[Spans]:
    processor = Spans()
    set_trace_processors([processor])
    set_tracing_disabled(False)
    try:
        yield processor
    finally:
        set_tracing_disabled(True)
        set_trace_processors([])


# -- the two ways of resuming ------------------------------------------------------------------


def _not_run(name: str) -> str:
    return f"{NOT_RUN_PREFIX} the user did not approve {name}."


async def raw_sdk(
    agent: Agent[Any],
    prompt: str,
    decide: Decide,
    *,
    hooks: Any = None,
    context: Any = None,
    streamed: bool = False,
) -> Ended:
    try:
        result = await _raw_run(agent, prompt, hooks, context, streamed)
        for _ in range(6):
            if not result.interruptions:
                break
            state = result.to_state()
            for item in result.interruptions:
                kind, _ = decide(item.tool_name or "", json.loads(item.arguments or "{}"))
                if kind == "approve":
                    state.approve(item)
                else:
                    state.reject(item, rejection_message=_not_run(item.tool_name or ""))
            result = await _raw_run(agent, state, hooks, context, streamed)
    except AgentsException as error:
        return None, code_for(error), str(error)
    return result.final_output, SUCCESS, ""


async def raw_sdk_streamed(agent: Agent[Any], prompt: str, decide: Decide, **options: Any) -> Ended:
    """`raw_sdk` with `Runner.run_streamed`, its events drained."""
    return await raw_sdk(agent, prompt, decide, streamed=True, **options)


async def _raw_run(
    agent: Agent[Any], input: Any, hooks: Any, context: Any, streamed: bool
) -> RunResultBase:
    if not streamed:
        return await Runner.run(agent, input, hooks=hooks, context=context)
    result = Runner.run_streamed(agent, input, hooks=hooks, context=context)
    async for _ in result.stream_events():
        pass
    return result


async def through_kit(
    agent: Agent[Any], prompt: str, decide: Decide, *, hooks: Any = None, context: Any = None
) -> Ended:
    adapter = OpenAIAgentsAdapter(agent, ledger="memory", hooks=hooks, context=context)
    return _read(agent, await _conversation(adapter.run, prompt, decide))


async def over_http(
    agent: Agent[Any], prompt: str, decide: Decide, *, hooks: Any = None, context: Any = None
) -> Ended:
    """The kit served by `asgi_app` in this process, driven by the package's HTTP client."""
    assert context is None, "asgi_app takes no run context"
    app = asgi_app(agent, ledger="memory", hooks=hooks, secret="a-fidelity-test-secret-long-enough")
    client = AGUIClient("http://bank.test/", transport=httpx.ASGITransport(app=app))
    return _read(agent, await _conversation(client.run, prompt, decide))


def _read(agent: Agent[Any], ended: Ended) -> Ended:
    text, ending, reason = ended
    return (read_as(agent, text) if ending == SUCCESS else None), ending, reason


TEMPORAL: dict[str, str] = {}
"""The address of the session's Temporal server, when `temporalio` is installed."""


@pytest.fixture(autouse=True)
def _temporal_server_when_installed(request: pytest.FixtureRequest) -> None:
    if importlib.util.find_spec("temporalio") is not None:
        TEMPORAL["address"] = request.getfixturevalue("temporal_server").address


async def through_temporal(
    agent: Agent[Any], prompt: str, decide: Decide, *, hooks: Any = None, context: Any = None
) -> Ended:
    """The kit on Temporal: each run of the adapter in an activity of the conversation's
    workflow on a real server, answers through its update, the worker in this process."""
    from temporalio.client import Client

    from interrupt_widget.temporal import TemporalAgent, build_worker

    client = await Client.connect(TEMPORAL["address"])
    adapter = OpenAIAgentsAdapter(agent, ledger="memory", hooks=hooks, context=context)
    queue = f"fidelity-{uuid.uuid4().hex}"
    async with build_worker(client, {"fidelity": adapter}, task_queue=queue, graceful_seconds=1):
        remote = TemporalAgent(client, agent="fidelity", task_queue=queue, keep_open_seconds=1)
        return _read(agent, await _conversation(remote.run, prompt, decide, thread_id=queue))


KIT_WAYS: tuple[Callable[..., Any], ...] = (
    (through_kit, through_temporal)
    if importlib.util.find_spec("temporalio") is not None
    else (through_kit,)
)
"""The kit in the kernel, and on Temporal when it is installed."""


async def _conversation(
    run: Callable[[RunAgentInput], AsyncIterator[BaseEvent]],
    prompt: str,
    decide: Decide,
    *,
    thread_id: str = "t",
) -> Ended:
    """One AG-UI conversation, each interrupt answered by `decide`; the reply it streamed last.

    The reply is what a client shows: the text of the last assistant message the final
    run streamed, which its snapshot keeps as the conversation's last assistant message.
    """
    messages: list[Any] = [UserMessage(id="u1", content=prompt)]
    resume: list[ResumeEntry] | None = None
    for turn in range(6):
        request = RunAgentInput(
            thread_id=thread_id,
            run_id=f"r{turn}",
            messages=messages,
            resume=resume,
            state=None,
            tools=[],
            context=[],
            forwarded_props=None,
        )
        events: list[BaseEvent] = [event async for event in run(request)]
        assert_valid_stream(events)
        finished = events[-1]
        if isinstance(finished, RunErrorEvent):
            return None, str(finished.code), finished.message
        snapshot = [e for e in events if isinstance(e, MessagesSnapshotEvent)][-1]
        messages = list(snapshot.messages)
        assert isinstance(finished, RunFinishedEvent)
        if not isinstance(finished.outcome, RunFinishedInterruptOutcome):
            break
        resume = [_entry(i, decide) for i in finished.outcome.interrupts]
    shown = shown_reply(events)
    replies = [m for m in messages if isinstance(m, AssistantMessage) and m.content]
    assert content_text(replies[-1].content if replies else "") == shown
    return shown, SUCCESS, ""


def _entry(interrupt: Interrupt, decide: Decide) -> ResumeEntry:
    arguments = tool_arguments(interrupt)
    kind, edit = decide(tool_name(interrupt), arguments if isinstance(arguments, dict) else {})
    payload: dict[str, Any] = {"approved": kind in ("approve", "edit")}
    if kind == "edit":
        payload["editedArgs"] = edit
    return ResumeEntry(interrupt_id=interrupt.id, status="resolved", payload=payload)


Make = Callable[[Path], Agent[Any]]


async def observe(
    way: Callable[..., Any],
    make: Make,
    tmp: Path,
    prompt: str,
    spans: Spans,
    decide: Decide = approve_all,
    **options: Any,
) -> Observed:
    log = tmp / f"{way.__name__}.jsonl"
    fired: list[str] = []
    agent = make(log)
    hooks = watch(agent, fired)
    spans.functions.clear()
    text, ending, reason = await way(agent, prompt, decide, hooks=hooks, **options)
    return Observed(runs(log), fired, list(spans.functions), text, ending, reason)


RAW_WAYS = (raw_sdk, raw_sdk_streamed)
"""The raw SDK, streamed and not."""


async def differential(
    make: Make,
    prompt: str,
    tmp: Path,
    spans: Spans,
    decide: Decide = approve_all,
    *,
    raw_ways: tuple[Callable[..., Any], ...] = RAW_WAYS,
    kit_ways: tuple[Callable[..., Any], ...] = KIT_WAYS,
    **options: Any,
) -> tuple[Observed, Observed]:
    """Each raw way and each kit way on the same agent: all alike; (raw, the last kit way's)."""
    raw = await observe(raw_ways[0], make, tmp, prompt, spans, decide, **options)
    kit = raw
    for way in (*raw_ways[1:], *kit_ways):
        kit = await observe(way, make, tmp, prompt, spans, decide, **options)
        assert_alike(raw, kit, way.__name__)
    return raw, kit


def _record(log: Path, tool: str, **arguments: Any) -> None:
    with log.open("a") as file:
        file.write(json.dumps({"tool": tool, "arguments": arguments}) + "\n")


# -- the agents ----------------------------------------------------------------------------------


@tool_input_guardrail
def at_most_1000(data: Any) -> ToolGuardrailFunctionOutput:
    arguments = json.loads(data.context.tool_arguments or "{}")
    if arguments.get("amount", 0) > 1000:
        return ToolGuardrailFunctionOutput.reject_content("Refused: over the 1000 limit.")
    return ToolGuardrailFunctionOutput.allow()


@tool_output_guardrail
def no_secrets(data: Any) -> ToolGuardrailFunctionOutput:
    if "SECRET" in str(data.output):
        return ToolGuardrailFunctionOutput.reject_content("Output withheld: it held a secret.")
    return ToolGuardrailFunctionOutput.allow()


def bank(log: Path, *, edit: bool = False, **agent_options: Any) -> Agent[Any]:
    @function_tool(needs_approval=True, tool_input_guardrails=[at_most_1000])
    def transfer_funds(amount: float, to: str) -> str:
        """Send money."""
        _record(log, "transfer_funds", amount=amount, to=to)
        return f"sent {amount} to {to}"

    @function_tool(needs_approval=True, tool_output_guardrails=[no_secrets])
    def read_vault(name: str) -> str:
        """Read a vault entry."""
        _record(log, "read_vault", name=name)
        return f"{name}: SECRET-42"

    @function_tool(needs_approval=True)
    def close_account(account: str) -> str:
        """Close an account."""
        _record(log, "close_account", account=account)
        return f"closed {account}"

    tools = [editable(transfer_funds) if edit else transfer_funds, read_vault, close_account]
    return Agent(name="bank", model=OfflineModel(), tools=tools, **agent_options)


# -- the cases -------------------------------------------------------------------------------------


BOTH_KIT_WAYS = (*KIT_WAYS, over_http)
"""The adapter in process, and the same served over HTTP by `asgi_app`."""


async def test_input_guardrail_blocks_an_approved_call(tmp_path: Path, spans: Spans) -> None:
    raw, _ = await differential(
        bank, "transfer_funds amount=5000 to=bob", tmp_path, spans, kit_ways=BOTH_KIT_WAYS
    )
    assert raw.runs == []
    assert "over the 1000 limit" in raw.text
    # The same agent lets a transfer under the limit through, once.
    small, _ = await differential(
        bank, "transfer_funds amount=50 to=bob", tmp_path, spans, kit_ways=BOTH_KIT_WAYS
    )
    assert small.runs == [("transfer_funds", {"amount": 50.0, "to": "bob"})]


async def test_input_guardrail_blocks_an_edited_call(tmp_path: Path, spans: Spans) -> None:
    # Raw: the model proposes 5000. Kit: it proposes 500 and the person edits it to 5000.
    raw = await observe(
        raw_sdk, bank, tmp_path, "transfer_funds amount=5000 to=bob", spans, approve_all
    )

    def to_5000(_name: str, args: dict[str, Any]) -> Answer:
        return ("edit", {**args, "amount": 5000})

    kit = await observe(
        through_kit,
        lambda log: bank(log, edit=True),
        tmp_path,
        "transfer_funds amount=500 to=bob",
        spans,
        to_5000,
    )
    assert raw.runs == kit.runs == []
    assert raw.hooks == kit.hooks == []
    assert "over the 1000 limit" in kit.text


async def test_an_edit_runs_through_the_sdk_with_the_edited_arguments(
    tmp_path: Path, spans: Spans
) -> None:
    def to_carol(_name: str, args: dict[str, Any]) -> Answer:
        return ("edit", {**args, "to": "carol"})

    kit = await observe(
        through_kit,
        lambda log: bank(log, edit=True),
        tmp_path,
        "transfer_funds amount=50 to=bob",
        spans,
        to_carol,
    )
    assert kit.runs == [("transfer_funds", {"amount": 50.0, "to": "carol"})]
    assert kit.hooks == [
        "run:start:transfer_funds",
        "agent:start:transfer_funds",
        "run:end:transfer_funds",
        "agent:end:transfer_funds",
    ]
    assert "transfer_funds" in kit.spans


async def test_output_guardrail_withholds_the_output(tmp_path: Path, spans: Spans) -> None:
    raw, kit = await differential(
        bank, "read_vault name=payroll", tmp_path, spans, kit_ways=BOTH_KIT_WAYS
    )
    assert raw.runs == [("read_vault", {"name": "payroll"})]
    assert "SECRET" not in kit.text
    assert "withheld" in kit.text


async def test_run_hooks_and_agent_hooks_fire_for_the_approved_call(
    tmp_path: Path, spans: Spans
) -> None:
    raw, _ = await differential(bank, "transfer_funds amount=5 to=bob", tmp_path, spans)
    assert raw.runs == [("transfer_funds", {"amount": 5.0, "to": "bob"})]
    assert sorted(raw.hooks) == sorted(
        [
            "run:start:transfer_funds",
            "agent:start:transfer_funds",
            "run:end:transfer_funds",
            "agent:end:transfer_funds",
        ]
    )
    assert "transfer_funds" in raw.spans


async def test_two_parallel_calls_one_approved_one_denied(tmp_path: Path, spans: Spans) -> None:
    def only_transfers(name: str, _args: dict[str, Any]) -> Answer:
        return ("approve", None) if name == "transfer_funds" else ("deny", None)

    raw, _ = await differential(
        bank,
        "transfer_funds amount=5 to=bob close_account account=savings",
        tmp_path,
        spans,
        only_transfers,
    )
    assert raw.runs == [("transfer_funds", {"amount": 5.0, "to": "bob"})]


async def test_stop_on_first_tool(tmp_path: Path, spans: Spans) -> None:
    def make(log: Path) -> Agent[Any]:
        return bank(log, tool_use_behavior="stop_on_first_tool")

    raw, _ = await differential(make, "transfer_funds amount=5 to=bob", tmp_path, spans)
    assert raw.text == "sent 5.0 to bob"


async def test_callable_needs_approval_and_the_run_context(tmp_path: Path, spans: Spans) -> None:
    def make(log: Path) -> Agent[Any]:
        async def above_10(ctx: RunContextWrapper[Any], params: dict[str, Any], _id: str) -> bool:
            return bool(params.get("amount", 0) > 10)

        @function_tool(needs_approval=above_10)
        def pay(ctx: RunContextWrapper[Any], amount: float) -> str:
            """Pay from the user's account."""
            _record(log, "pay", amount=amount, user=ctx.context["user"])
            return f"paid {amount} for {ctx.context['user']}"

        return Agent(name="payer", model=OfflineModel(), tools=[pay])

    raw, _ = await differential(make, "pay amount=50", tmp_path, spans, context={"user": "ada"})
    assert raw.runs == [("pay", {"amount": 50.0, "user": "ada"})]
    small, _ = await differential(make, "pay amount=5", tmp_path, spans, context={"user": "ada"})
    assert small.runs[-1] == ("pay", {"amount": 5.0, "user": "ada"})


async def test_a_handoff_then_an_approval(tmp_path: Path, spans: Spans) -> None:
    def make(log: Path) -> Agent[Any]:
        teller = bank(log)
        return Agent(
            name="triage",
            model=ScriptedModel([[function_call("transfer_to_bank", {}, call_id="handoff-1")]]),
            handoffs=[teller],
        )

    raw, _ = await differential(make, "transfer_funds amount=5 to=bob", tmp_path, spans)
    assert raw.runs == [("transfer_funds", {"amount": 5.0, "to": "bob"})]


def _nested(log: Path) -> Agent[Any]:
    teller = bank(log)
    return Agent(
        name="front desk",
        model=OfflineModel(),
        tools=[teller.as_tool(tool_name="ask_bank", tool_description="Ask the bank.")],
    )


async def test_nested_approval_in_an_agent_used_as_a_tool_approved(
    tmp_path: Path, spans: Spans
) -> None:
    raw, _ = await differential(
        _nested, "ask_bank input='transfer_funds amount=5 to=bob'", tmp_path, spans
    )
    assert raw.runs == [("transfer_funds", {"amount": 5.0, "to": "bob"})]


async def test_nested_approval_in_an_agent_used_as_a_tool_denied(
    tmp_path: Path, spans: Spans
) -> None:
    def deny(_name: str, _args: dict[str, Any]) -> Answer:
        return ("deny", None)

    raw, _ = await differential(
        _nested, "ask_bank input='transfer_funds amount=5 to=bob'", tmp_path, spans, deny
    )
    assert raw.runs == []


MCP_BANK_SERVER = Path(__file__).with_name("mcp_bank_server.py")
"""The local MCP server the MCP case starts: the `mcp` package's own, over stdio."""


@pytest.fixture
async def mcp_banks(tmp_path: Path) -> AsyncIterator[dict[Path, MCPServerStdio]]:
    """One local MCP bank server per way of resuming, each writing its runs to that way's log."""
    async with AsyncExitStack() as stack:
        servers: dict[Path, MCPServerStdio] = {}
        for way in (raw_sdk, *KIT_WAYS):
            log = tmp_path / f"{way.__name__}.jsonl"
            server = MCPServerStdio(
                params={"command": sys.executable, "args": [str(MCP_BANK_SERVER), str(log)]},
                name="bank",
                require_approval="always",
            )
            servers[log] = await stack.enter_async_context(server)
        yield servers


async def test_a_local_mcp_servers_tool_that_always_requires_approval(
    tmp_path: Path, spans: Spans, mcp_banks: dict[Path, MCPServerStdio]
) -> None:
    # The kit resumes the SDK's paused state from its serialized form in the ledger.
    def make(log: Path) -> Agent[Any]:
        return Agent(name="bank", model=OfflineModel(), mcp_servers=[mcp_banks[log]])

    once = (raw_sdk,)  # one server per way: the streamed raw run is left out
    raw, _ = await differential(make, "wire_money amount=5 to=bob", tmp_path, spans, raw_ways=once)
    assert raw.runs == [("wire_money", {"amount": 5.0, "to": "bob"})]
    assert "wired 5.0 to bob" in raw.text
    assert "run:start:wire_money" in raw.hooks
    assert "wire_money" in raw.spans

    def deny(_name: str, _args: dict[str, Any]) -> Answer:
        return ("deny", None)

    denied, _ = await differential(
        make, "wire_money amount=7 to=eve", tmp_path, spans, deny, raw_ways=once
    )
    assert denied.runs == raw.runs  # the denied call never reached the server


# -- every way the SDK ends a run (`ending_agents`) ------------------------------------------------


def deny_all(_name: str, _args: dict[str, Any]) -> Answer:
    return ("deny", None)


DECIDE: dict[str, Decide] = {"approve": approve_all, "deny": deny_all}
TRANSFER = "transfer_funds amount=80 to=Carol"
PROMPTS = {
    "input_guardrail": f"{TRANSFER} and rob the bank",
    "tool_input_guardrail": "transfer_funds amount=5000 to=Carol",
    "tool_output_guardrail": "transfer_funds amount=80 to=Mallory",
}
SENT = "sent 80.0 to Carol"
NOT_RUN = _not_run("transfer_funds")
REPORTED = "transfer_funds reported: sent 80.0 to Carol"
DID_NOT_RUN = "transfer_funds did not run."
MAX_TURNS = ("max_turns", None)
REFUSED = ("model_refusal", None)
TRIPPED = ("guardrail_tripwire", None)

ENDINGS: dict[tuple[str, str], tuple[str, Any]] = {
    ("stop_on_first_tool", "approve"): (SUCCESS, SENT),
    ("stop_on_first_tool", "deny"): (SUCCESS, NOT_RUN),
    ("stop_at_tools", "approve"): (SUCCESS, SENT),
    ("stop_at_tools", "deny"): (SUCCESS, NOT_RUN),
    ("custom_tools_to_final_output", "approve"): (
        SUCCESS,
        Receipt(summary=f"transfer_funds: {SENT}", calls=1),
    ),
    ("custom_tools_to_final_output", "deny"): (
        SUCCESS,
        Receipt(summary=f"transfer_funds: {NOT_RUN}", calls=1),
    ),
    ("structured_pydantic", "approve"): (SUCCESS, Receipt(summary=REPORTED, calls=1)),
    ("structured_pydantic", "deny"): (SUCCESS, Receipt(summary=DID_NOT_RUN, calls=1)),
    ("structured_dataclass", "approve"): (SUCCESS, ReceiptRecord(summary=REPORTED, calls=1)),
    ("structured_dataclass", "deny"): (SUCCESS, ReceiptRecord(summary=DID_NOT_RUN, calls=1)),
    ("max_turns", "approve"): MAX_TURNS,
    ("max_turns", "deny"): MAX_TURNS,
    ("refusal", "approve"): REFUSED,
    ("refusal", "deny"): REFUSED,
    ("input_guardrail", "approve"): TRIPPED,
    ("output_guardrail", "approve"): TRIPPED,
    ("output_guardrail", "deny"): (SUCCESS, DID_NOT_RUN),
    ("structured_output_guardrail", "approve"): TRIPPED,
    ("structured_output_guardrail", "deny"): (SUCCESS, Receipt(summary=DID_NOT_RUN, calls=1)),
    ("tool_input_guardrail", "approve"): TRIPPED,
    ("tool_input_guardrail", "deny"): (SUCCESS, DID_NOT_RUN),
    ("tool_output_guardrail", "approve"): TRIPPED,
    ("tool_output_guardrail", "deny"): (SUCCESS, DID_NOT_RUN),
    ("tool_raises", "approve"): ("tool_error", None),
    ("tool_raises", "deny"): (SUCCESS, DID_NOT_RUN),
    ("tool_raises_told", "approve"): (
        SUCCESS,
        "transfer_funds reported: An error occurred while running the tool. Please try again.",
    ),
    ("tool_raises_told", "deny"): (SUCCESS, DID_NOT_RUN),
}
"""(agent, answer) -> how the raw SDK ends it: (SUCCESS, final output) or (code, None)."""

GUARDRAILS = {
    "input_guardrail": "no_bank_robbery: the request is a robbery",
    "output_guardrail": "no_carol_in_replies: the reply names Carol",
    "structured_output_guardrail": "no_carol_in_replies: the reply names Carol",
    "tool_input_guardrail": "halt_over_1000: over the 1000 limit",
    "tool_output_guardrail": "halt_on_secrets: the output held a secret",
}
"""Which guardrail trips in each guardrail case, and why: the kit's RUN_ERROR says both."""


@pytest.mark.parametrize(("name", "answer"), sorted(ENDINGS))
async def test_every_way_the_sdk_ends_a_run_reaches_the_person(
    name: str, answer: str, tmp_path: Path, spans: Spans
) -> None:
    raw, kit = await differential(
        functools.partial(ending_agent, name),
        PROMPTS.get(name, TRANSFER),
        tmp_path,
        spans,
        DECIDE[answer],
        kit_ways=BOTH_KIT_WAYS,
    )
    assert (raw.ending, raw.text) == ENDINGS[name, answer]
    if name in GUARDRAILS and raw.ending != SUCCESS:
        assert GUARDRAILS[name] in kit.reason


# -- stopped while an approved call runs ----------------------------------------------------------


CANCELLED = "cancelled"
"""The ending of a run stopped before its final output."""


async def raw_stopped(agent: Agent[Any], hold: Hold, hooks: Any) -> tuple[Ended, str]:
    """Approve, resume streamed, and cancel after the turn once the tool runs: (ending, card)."""
    first = await Runner.run(agent, TRANSFER, hooks=hooks)
    state = first.to_state()
    for item in first.interruptions:
        state.approve(item)
    result = Runner.run_streamed(agent, state, hooks=hooks)

    async def stop_once_running() -> None:
        await hold.started.wait()
        result.cancel(mode="after_turn")  # as the kit does while an approved call runs
        hold.go.set()

    stopping = asyncio.create_task(stop_once_running())
    try:
        async for _ in result.stream_events():
            pass
    except AgentsException as error:
        return (None, code_for(error), str(error)), ""
    finally:
        await stopping
    outputs = [i.output for i in result.new_items if isinstance(i, ToolCallOutputItem)]
    output = result.final_output
    ended = (output, SUCCESS, "") if output is not None else (None, CANCELLED, "")
    return ended, str(outputs[-1]) if outputs else ""


async def kit_stopped(agent: Agent[Any], hold: Hold, hooks: Any) -> tuple[Ended, str]:
    """The same through the adapter, its run's `stop()` called once the tool runs."""
    adapter = OpenAIAgentsAdapter(agent, ledger="memory", hooks=hooks)
    first = [
        e
        async for e in adapter.run(
            RunAgentInput(
                thread_id="t", run_id="r1", messages=[UserMessage(id="u1", content=TRANSFER)]
            )
        )
    ]
    snapshot = [e for e in first if isinstance(e, MessagesSnapshotEvent)][-1]
    finished = first[-1]
    assert isinstance(finished, RunFinishedEvent)
    assert isinstance(finished.outcome, RunFinishedInterruptOutcome)
    resume = [_entry(i, approve_all) for i in finished.outcome.interrupts]
    run = adapter.run(
        RunAgentInput(thread_id="t", run_id="r2", messages=snapshot.messages, resume=resume)
    )

    async def stop_once_running() -> None:
        await hold.started.wait()
        run.stop()
        hold.go.set()

    stopping = asyncio.create_task(stop_once_running())
    events = [event async for event in run]
    await stopping
    assert_valid_stream(events)
    card = "".join(content_text(e.content) for e in events if isinstance(e, ToolCallResultEvent))
    last = events[-1]
    if isinstance(last, RunErrorEvent):
        return (None, str(last.code), last.message), card
    assert isinstance(last, RunFinishedEvent)
    if isinstance(last.outcome, RunFinishedCancelledOutcome):
        return (None, CANCELLED, ""), card
    return (read_as(agent, shown_reply(events)), SUCCESS, ""), card


STOPPED = {
    "plain": (CANCELLED, None),
    "stop_on_first_tool": (SUCCESS, SENT),
    "structured_pydantic": (CANCELLED, None),
    "tool_raises": ("tool_error", None),
}
"""Agent -> how the raw SDK's run ends when it is stopped while the approved call runs."""


@pytest.mark.parametrize("name", sorted(STOPPED))
async def test_a_stop_while_the_approved_call_runs_ends_as_the_sdk_ended(
    name: str, tmp_path: Path, spans: Spans
) -> None:
    seen: dict[str, tuple[Observed, str]] = {}
    for way in (raw_stopped, kit_stopped):
        log = tmp_path / f"{way.__name__}.jsonl"
        fired: list[str] = []
        hold = Hold()
        agent = ending_agent(name, log, hold=hold)
        hooks = watch(agent, fired)
        spans.functions.clear()
        (text, ending, reason), card = await way(agent, hold, hooks)
        seen[way.__name__] = (
            Observed(runs(log), fired, list(spans.functions), text, ending, reason),
            card,
        )
    (raw, raw_card), (kit, kit_card) = seen["raw_stopped"], seen["kit_stopped"]
    assert_alike(raw, kit, name)
    assert (raw.ending, raw.text) == STOPPED[name]
    assert raw.runs == [("transfer_funds", {"amount": 80.0, "to": "Carol"})]  # ran once, whole
    # The call's card says what the SDK did: its output, or the failure the run ends with.
    assert kit_card == raw_card == ("" if name == "tool_raises" else SENT)


# -- resumed from a saved conversation in a new process --------------------------------------------


RESUME_ELSEWHERE = Path(__file__).with_name("resume_elsewhere.py")


async def test_every_ending_after_a_resume_in_a_new_process(tmp_path: Path, spans: Spans) -> None:
    # Each sweep case pauses here, on a ledger file, and is saved; one child process resumes
    # them all (the SDK's paused state comes from the ledger); the raw SDK runs it here.
    ledger = str(tmp_path / "ledger.sqlite3")
    cases = [case for case in sorted(ENDINGS) if case[0] != "input_guardrail"]  # no pause
    saved: list[dict[str, Any]] = []
    before: list[tuple[list[str], list[str]]] = []  # the hooks and spans of each pause
    for name, answer in cases:
        log = tmp_path / f"{name}-{answer}-elsewhere.jsonl"
        fired: list[str] = []
        agent = ending_agent(name, log)
        thread = ConversationThread(
            OpenAIAgentsAdapter(agent, ledger=ledger, hooks=watch(agent, fired)),
            thread_id=f"{name}-{answer}",
        )
        spans.functions.clear()
        paused = await thread.start(thread.user_input(PROMPTS.get(name, TRANSFER)))
        assert paused.kind == "interrupt", (name, paused)
        before.append((fired, list(spans.functions)))
        saved.append(
            {
                "name": name,
                "answer": answer,
                "log": str(log),
                "threadId": thread.thread_id,
                "messages": messages_to_wire(thread.messages),
                "interrupts": [to_wire(i) for i in thread.interrupts],
            }
        )
    child = await asyncio.create_subprocess_exec(
        sys.executable,
        str(RESUME_ELSEWHERE),
        env={**os.environ, "PYTHONPATH": str(RESUME_ELSEWHERE.parents[1])},  # ending_agents
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await child.communicate(json.dumps({"ledger": ledger, "cases": saved}).encode())
    assert child.returncode == 0, err.decode()
    resumed = [json.loads(line) for line in out.decode().splitlines()]
    assert [(r["name"], r["answer"]) for r in resumed] == cases

    for case, result, (hooks, functions) in zip(saved, resumed, before, strict=True):
        make = functools.partial(ending_agent, case["name"])
        folder = tmp_path / case["threadId"]  # the raw run's own log
        folder.mkdir()
        raw = await observe(
            raw_sdk,
            make,
            folder,
            PROMPTS.get(case["name"], TRANSFER),
            spans,
            DECIDE[case["answer"]],
        )
        shown = result["reply"]
        kit = Observed(
            runs(Path(case["log"])),
            hooks + result["hooks"],
            functions + result["spans"],
            read_as(make(folder / "unused.jsonl"), shown) if result["ending"] == SUCCESS else None,
            result["ending"],
            result["reason"],
        )
        assert_alike(raw, kit, f"{case['name']} {case['answer']}, resumed in a new process")
