"""Agents for every way the Agents SDK ends a run: the differential suite, the chat, HTTP.

Each agent is built by name (`ending_agent(name, log)`) around one gated tool,
`transfer_funds`, that writes each run of its body to a log file, so that a child
process (a resume from a saved conversation elsewhere, a server) builds the very
same agent. Their model, `EndingModel`, is stateless like `OfflineModel`: it
calls the tools the request names, and after their results it ends the way the
agent is built for (a text reply, structured output, a refusal, or calling a
tool for ever).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agents import (
    Agent,
    FunctionToolResult,
    GuardrailFunctionOutput,
    Handoff,
    ModelResponse,
    ModelSettings,
    ModelTracing,
    RunContextWrapper,
    StopAtTools,
    Tool,
    ToolGuardrailFunctionOutput,
    ToolInputGuardrail,
    ToolOutputGuardrail,
    ToolsToFinalOutputResult,
    Usage,
    default_tool_error_function,
    function_tool,
    input_guardrail,
    output_guardrail,
    tool_input_guardrail,
    tool_output_guardrail,
)
from agents.agent_output import AgentOutputSchemaBase
from agents.items import TResponseInputItem, TResponseOutputItem, TResponseStreamEvent
from agents.models.interface import Model
from openai.types.responses import (
    ResponseFunctionToolCall,
    ResponseOutputMessage,
    ResponseOutputRefusal,
    ResponseOutputText,
)
from pydantic import BaseModel

from interrupt_widget import OfflineModel
from interrupt_widget.sdk.response_stream import response_stream

REFUSAL = "I can't help with moving that money."
"""What the refusing model says instead of a reply."""


class Receipt(BaseModel):
    """A structured final output (a Pydantic model)."""

    summary: str
    calls: int


@dataclass
class ReceiptRecord:
    """The same as a dataclass."""

    summary: str
    calls: int


def _record(log: Path, tool: str, **arguments: Any) -> None:
    with log.open("a") as file:
        file.write(json.dumps({"tool": tool, "arguments": arguments}) + "\n")


class EndingModel(Model):
    """`OfflineModel` until the tools have answered; then the agent's ending.

    `ending`: "text" (the offline model's reply), "structured" (JSON for the output
    schema), "refuse" (a refusal), or "loop" (call `tick` again, never a final output).
    """

    def __init__(self, ending: str = "text") -> None:
        self.ending = ending
        self._offline = OfflineModel()

    async def get_response(
        self,
        system_instructions: str | None,
        input: str | list[TResponseInputItem],
        model_settings: ModelSettings,
        tools: list[Tool],
        output_schema: AgentOutputSchemaBase | None,
        handoffs: list[Handoff[Any, Any]],
        tracing: ModelTracing,
        **options: Any,
    ) -> ModelResponse:
        offline = await self._offline.get_response(
            system_instructions, input, model_settings, tools, None, handoffs, tracing, **options
        )
        output = self._ending(input, output_schema, offline.output)
        return ModelResponse(output=output, usage=Usage(requests=1), response_id=None)

    async def stream_response(
        self,
        system_instructions: str | None,
        input: str | list[TResponseInputItem],
        model_settings: ModelSettings,
        tools: list[Tool],
        output_schema: AgentOutputSchemaBase | None,
        handoffs: list[Handoff[Any, Any]],
        tracing: ModelTracing,
        **options: Any,
    ) -> AsyncIterator[TResponseStreamEvent]:
        offline = await self._offline.get_response(
            system_instructions, input, model_settings, tools, None, handoffs, tracing, **options
        )
        output = self._ending(input, output_schema, offline.output)
        async for event in response_stream(f"resp_{_digest(input)}", output):
            yield event

    def _ending(
        self,
        input: str | list[TResponseInputItem],
        schema: AgentOutputSchemaBase | None,
        offline: list[TResponseOutputItem],
    ) -> list[TResponseOutputItem]:
        items = [dict(i) for i in input] if isinstance(input, list) else []
        answered = [i for i in items if i.get("type") == "function_call_output"]
        if not answered or any(isinstance(o, ResponseFunctionToolCall) for o in offline):
            return offline  # the request's tool calls, or a plain reply
        digest = _digest(input)
        if self.ending == "loop":
            return [_call(digest, "tick", {})]
        if self.ending == "refuse":
            return [_message(digest, ResponseOutputRefusal(type="refusal", refusal=REFUSAL))]
        text = _said(offline)
        if self.ending == "structured" and schema is not None and not schema.is_plain_text():
            text = json.dumps(_fill(schema.json_schema(), text, len(answered)))
        return [_message(digest, ResponseOutputText(type="output_text", text=text, annotations=[]))]


def _digest(input: Any) -> str:
    return hashlib.sha256(json.dumps(input, sort_keys=True, default=str).encode()).hexdigest()[:12]


def _said(output: list[TResponseOutputItem]) -> str:
    return "".join(
        part.text
        for item in output
        if isinstance(item, ResponseOutputMessage)
        for part in item.content
        if isinstance(part, ResponseOutputText)
    )


def _fill(schema: dict[str, Any], text: str, calls: int) -> Any:
    """A value for `schema`: its strings say `text`, its integers count the calls."""
    defs = schema.get("$defs", {})

    def fill(node: dict[str, Any]) -> Any:
        ref = node.get("$ref")
        if isinstance(ref, str):
            return fill(defs[ref.rsplit("/", 1)[-1]])
        if node.get("type") == "object":
            return {name: fill(prop) for name, prop in node.get("properties", {}).items()}
        return calls if node.get("type") == "integer" else text

    return fill(schema)


def _message(
    digest: str, part: ResponseOutputText | ResponseOutputRefusal
) -> ResponseOutputMessage:
    return ResponseOutputMessage(
        id=f"msg_{digest}", type="message", role="assistant", status="completed", content=[part]
    )


def _call(digest: str, name: str, arguments: dict[str, Any]) -> ResponseFunctionToolCall:
    return ResponseFunctionToolCall(
        id=f"fc_{digest}",
        call_id=f"call_{digest}",
        type="function_call",
        name=name,
        arguments=json.dumps(arguments),
        status="completed",
    )


# -- guardrails that end the run ---------------------------------------------------------------


@input_guardrail
def no_bank_robbery(_ctx: RunContextWrapper[Any], _agent: Agent[Any], text: Any) -> Any:
    tripped = "rob the bank" in json.dumps(text, default=str)
    return GuardrailFunctionOutput(
        output_info="the request is a robbery", tripwire_triggered=tripped
    )


@output_guardrail
def no_carol_in_replies(_ctx: RunContextWrapper[Any], _agent: Agent[Any], output: Any) -> Any:
    tripped = "Carol" in str(output)
    return GuardrailFunctionOutput(output_info="the reply names Carol", tripwire_triggered=tripped)


@tool_input_guardrail
def halt_over_1000(data: Any) -> ToolGuardrailFunctionOutput:
    arguments = json.loads(data.context.tool_arguments or "{}")
    if arguments.get("amount", 0) > 1000:
        return ToolGuardrailFunctionOutput.raise_exception(output_info="over the 1000 limit")
    return ToolGuardrailFunctionOutput.allow()


@tool_output_guardrail
def halt_on_secrets(data: Any) -> ToolGuardrailFunctionOutput:
    if "SECRET" in str(data.output):
        return ToolGuardrailFunctionOutput.raise_exception(output_info="the output held a secret")
    return ToolGuardrailFunctionOutput.allow()


# -- the agents ----------------------------------------------------------------------------------


def _first_result(_ctx: RunContextWrapper[Any], results: list[FunctionToolResult]) -> Any:
    """A custom `ToolsToFinalOutputFunction`: the first result, as a `Receipt`."""
    first = results[0]
    receipt = Receipt(summary=f"{first.tool.name}: {first.output}", calls=len(results))
    return ToolsToFinalOutputResult(is_final_output=True, final_output=receipt)


@dataclass
class Hold:
    """Holds the gated tool mid-run: `started` is set once it runs, it goes on at `go`."""

    started: asyncio.Event = field(default_factory=asyncio.Event)
    go: asyncio.Event = field(default_factory=asyncio.Event)


def bank(
    log: Path,
    *,
    ending: str = "text",
    raises: bool = False,
    told: bool = True,
    tool_input_guardrails: list[ToolInputGuardrail[Any]] | None = None,
    tool_output_guardrails: list[ToolOutputGuardrail[Any]] | None = None,
    hold: Hold | None = None,
    **agent_options: Any,
) -> Agent[Any]:
    """The bank: `transfer_funds` (gated) and `tick` (not), ending as `ending` says.

    `raises`: the transfer raises; `told=False`: the SDK re-raises that instead of
    telling the model (no failure error function).
    """

    @function_tool(
        needs_approval=True,
        failure_error_function=default_tool_error_function if told else None,
        tool_input_guardrails=tool_input_guardrails,
        tool_output_guardrails=tool_output_guardrails,
    )
    async def transfer_funds(amount: float, to: str) -> str:
        """Send money."""
        _record(log, "transfer_funds", amount=amount, to=to)
        if hold is not None:
            hold.started.set()
            await hold.go.wait()
        if raises:
            raise RuntimeError(f"the bank is closed, {to}")
        return f"sent {amount} to {to}" + (" SECRET-42" if to == "Mallory" else "")

    @function_tool
    def tick() -> str:
        """Tick once."""
        _record(log, "tick")
        return "tock"

    model = EndingModel(ending)
    return Agent(name="bank", model=model, tools=[transfer_funds, tick], **agent_options)


OPTIONS: dict[str, dict[str, Any]] = {
    "stop_on_first_tool": {"tool_use_behavior": "stop_on_first_tool"},
    "stop_at_tools": {"tool_use_behavior": StopAtTools(stop_at_tool_names=["transfer_funds"])},
    "custom_tools_to_final_output": {"tool_use_behavior": _first_result, "output_type": Receipt},
    "structured_pydantic": {"ending": "structured", "output_type": Receipt},
    "structured_dataclass": {"ending": "structured", "output_type": ReceiptRecord},
    "max_turns": {"ending": "loop"},
    "refusal": {"ending": "refuse"},
    "input_guardrail": {"input_guardrails": [no_bank_robbery]},
    "output_guardrail": {"output_guardrails": [no_carol_in_replies]},
    "structured_output_guardrail": {
        "ending": "structured",
        "output_type": Receipt,
        "output_guardrails": [no_carol_in_replies],
    },
    "tool_input_guardrail": {"tool_input_guardrails": [halt_over_1000]},
    "tool_output_guardrail": {"tool_output_guardrails": [halt_on_secrets]},
    "tool_raises": {"raises": True, "told": False},
    "tool_raises_told": {"raises": True},
    "plain": {},
}
"""Every agent of the sweep, by name: the options `bank` builds it with."""


def ending_agent(name: str, log: Path, **extra: Any) -> Agent[Any]:
    """The sweep's agent `name`, its gated tool writing to `log` (`extra`: more options)."""
    return bank(log, **OPTIONS[name], **extra)
