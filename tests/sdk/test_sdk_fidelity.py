"""Differential: the same agents resumed through the raw Agents SDK and through the kit.

Raw: `Runner.run` -> `result.interruptions` -> `RunState.approve/reject` ->
`Runner.run(agent, state)`. Kit: the adapter's AG-UI runs, answered with resume
entries. Both are compared on what a user observes: the tool bodies that ran
(counted from a file each tool writes), the hooks that fired, the function
spans a trace processor saw, and the final text.
"""

from __future__ import annotations

import json
import sys
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest
from ag_ui.core import (
    BaseEvent,
    Interrupt,
    MessagesSnapshotEvent,
    ResumeEntry,
    RunAgentInput,
    RunErrorEvent,
    RunFinishedEvent,
    RunFinishedInterruptOutcome,
    UserMessage,
)
from agents import (
    Agent,
    AgentHooks,
    RunContextWrapper,
    RunHooks,
    Runner,
    ToolGuardrailFunctionOutput,
    function_tool,
    set_trace_processors,
    set_tracing_disabled,
    tool_input_guardrail,
    tool_output_guardrail,
)
from agents.mcp import MCPServerStdio
from agents.testing import ScriptedModel, function_call
from agents.tracing import Span, Trace, TracingProcessor

from interrupt_widget import AGUIClient, OfflineModel, OpenAIAgentsAdapter, asgi_app, editable
from interrupt_widget.agui.interrupts import tool_arguments, tool_name
from interrupt_widget.agui.messages import NOT_RUN_PREFIX, content_text

Answer = tuple[str, Any]
"""("approve", None), ("deny", None) or ("edit", {arguments})."""
Decide = Callable[[str, dict[str, Any]], Answer]


def approve_all(_name: str, _args: dict[str, Any]) -> Answer:
    return ("approve", None)


# -- what a user observes ----------------------------------------------------------------------


@dataclass
class Observed:
    runs: list[tuple[str, dict[str, Any]]]
    hooks: list[str] = field(default_factory=list)
    spans: list[str] = field(default_factory=list)
    text: str = ""


class Spans(TracingProcessor):
    """Every function span that ends, by tool name."""

    def __init__(self) -> None:
        self.functions: list[str] = []

    def on_trace_start(self, trace: Trace) -> None: ...
    def on_trace_end(self, trace: Trace) -> None: ...
    def on_span_start(self, span: Span[Any]) -> None: ...

    def on_span_end(self, span: Span[Any]) -> None:
        data = span.span_data
        if data.type == "function":
            self.functions.append(str(getattr(data, "name", "")))

    def shutdown(self) -> None: ...
    def force_flush(self) -> None: ...


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


class ToolHooks(RunHooks[Any]):
    def __init__(self, fired: list[str]) -> None:
        self.fired = fired

    async def on_tool_start(self, context: Any, agent: Any, tool: Any) -> None:
        self.fired.append(f"run:start:{tool.name}")

    async def on_tool_end(self, context: Any, agent: Any, tool: Any, result: Any) -> None:
        self.fired.append(f"run:end:{tool.name}")


class OwnHooks(AgentHooks[Any]):
    def __init__(self, fired: list[str]) -> None:
        self.fired = fired

    async def on_tool_start(self, context: Any, agent: Any, tool: Any) -> None:
        self.fired.append(f"agent:start:{tool.name}")

    async def on_tool_end(self, context: Any, agent: Any, tool: Any, result: Any) -> None:
        self.fired.append(f"agent:end:{tool.name}")


# -- the two ways of resuming ------------------------------------------------------------------


def _not_run(name: str) -> str:
    return f"{NOT_RUN_PREFIX} the user did not approve {name}."


async def raw_sdk(
    agent: Agent[Any], prompt: str, decide: Decide, *, hooks: Any = None, context: Any = None
) -> str:
    result = await Runner.run(agent, prompt, hooks=hooks, context=context)
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
        result = await Runner.run(agent, state, hooks=hooks, context=context)
    return str(result.final_output)


async def through_kit(
    agent: Agent[Any], prompt: str, decide: Decide, *, hooks: Any = None, context: Any = None
) -> str:
    adapter = OpenAIAgentsAdapter(agent, ledger="memory", hooks=hooks, context=context)
    return await _conversation(adapter.run, prompt, decide)


async def over_http(
    agent: Agent[Any], prompt: str, decide: Decide, *, hooks: Any = None, context: Any = None
) -> str:
    """The kit served by `asgi_app` in this process, driven by the package's HTTP client."""
    assert context is None, "asgi_app takes no run context"
    app = asgi_app(agent, ledger="memory", hooks=hooks, secret="a-fidelity-test-secret-long-enough")
    client = AGUIClient("http://bank.test/", transport=httpx.ASGITransport(app=app))
    return await _conversation(client.run, prompt, decide)


async def _conversation(
    run: Callable[[RunAgentInput], AsyncIterator[BaseEvent]], prompt: str, decide: Decide
) -> str:
    """One AG-UI conversation, each interrupt answered by `decide`; the last message's text."""
    messages: list[Any] = [UserMessage(id="u1", content=prompt)]
    resume: list[ResumeEntry] | None = None
    for turn in range(6):
        request = RunAgentInput(
            thread_id="t",
            run_id=f"r{turn}",
            messages=messages,
            resume=resume,
            state=None,
            tools=[],
            context=[],
            forwarded_props=None,
        )
        events: list[BaseEvent] = [event async for event in run(request)]
        assert not isinstance(events[-1], RunErrorEvent), events[-1]
        snapshot = [e for e in events if isinstance(e, MessagesSnapshotEvent)][-1]
        messages = list(snapshot.messages)
        finished = events[-1]
        assert isinstance(finished, RunFinishedEvent)
        if not isinstance(finished.outcome, RunFinishedInterruptOutcome):
            break
        resume = [_entry(i, decide) for i in finished.outcome.interrupts]
    return content_text(messages[-1].content)


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
    for each in _all_agents(agent):
        if each.hooks is None:
            each.hooks = OwnHooks(fired)
    spans.functions.clear()
    text = await way(agent, prompt, decide, hooks=ToolHooks(fired), **options)
    return Observed(runs=_runs(log), hooks=fired, spans=list(spans.functions), text=text)


async def differential(
    make: Make,
    prompt: str,
    tmp: Path,
    spans: Spans,
    decide: Decide = approve_all,
    *,
    kit_ways: tuple[Callable[..., Any], ...] = (through_kit,),
    **options: Any,
) -> tuple[Observed, Observed]:
    """Raw SDK and each kit way on the same agent: all alike; (raw, the last kit way's)."""
    raw = await observe(raw_sdk, make, tmp, prompt, spans, decide, **options)
    kit = raw
    for way in kit_ways:
        kit = await observe(way, make, tmp, prompt, spans, decide, **options)
        assert kit == raw, way.__name__
    return raw, kit


def _all_agents(agent: Agent[Any]) -> list[Agent[Any]]:
    return [agent, *(h for h in agent.handoffs if isinstance(h, Agent))]


def _runs(log: Path) -> list[tuple[str, dict[str, Any]]]:
    if not log.exists():
        return []
    return [
        (row["tool"], row["arguments"]) for row in map(json.loads, log.read_text().splitlines())
    ]


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


BOTH_KIT_WAYS = (through_kit, over_http)
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
        for way in (raw_sdk, through_kit):
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

    raw, _ = await differential(make, "wire_money amount=5 to=bob", tmp_path, spans)
    assert raw.runs == [("wire_money", {"amount": 5.0, "to": "bob"})]
    assert "wired 5.0 to bob" in raw.text
    assert "run:start:wire_money" in raw.hooks
    assert "wire_money" in raw.spans

    def deny(_name: str, _args: dict[str, Any]) -> Answer:
        return ("deny", None)

    denied, _ = await differential(make, "wire_money amount=7 to=eve", tmp_path, spans, deny)
    assert denied.runs == raw.runs  # the denied call never reached the server
