"""What a user observes of a run, raw or through the kit, in this process or in a child one.

The differential suite (`test_sdk_fidelity.py`) and the child process that resumes
saved conversations (`resume_elsewhere.py`) record the same things: the tool
bodies that ran (counted from a file each tool writes), the hooks that fired,
the function spans a trace processor saw, and how the run ended.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ag_ui.core import BaseEvent, TextMessageContentEvent, TextMessageStartEvent
from agents import (
    Agent,
    AgentHooks,
    AgentOutputSchema,
    AgentsException,
    InputGuardrailTripwireTriggered,
    MaxTurnsExceeded,
    ModelBehaviorError,
    ModelRefusalError,
    OutputGuardrailTripwireTriggered,
    RunHooks,
    ToolInputGuardrailTripwireTriggered,
    ToolOutputGuardrailTripwireTriggered,
    UserError,
)
from agents.tracing import Span, Trace, TracingProcessor
from pydantic import TypeAdapter

from interrupt_widget.errors import ErrorCode

SUCCESS = "success"
"""The ending of a run that reached its final output."""

RAISED: tuple[tuple[type[AgentsException], ErrorCode], ...] = (
    (MaxTurnsExceeded, ErrorCode.MAX_TURNS),
    (ModelRefusalError, ErrorCode.MODEL_REFUSAL),
    (InputGuardrailTripwireTriggered, ErrorCode.GUARDRAIL_TRIPWIRE),
    (OutputGuardrailTripwireTriggered, ErrorCode.GUARDRAIL_TRIPWIRE),
    (ToolInputGuardrailTripwireTriggered, ErrorCode.GUARDRAIL_TRIPWIRE),
    (ToolOutputGuardrailTripwireTriggered, ErrorCode.GUARDRAIL_TRIPWIRE),
    (UserError, ErrorCode.TOOL_ERROR),
)
"""The RUN_ERROR code the kit must give each way the raw SDK raises."""


def code_for(error: AgentsException) -> str:
    for kind, code in RAISED:
        if isinstance(error, kind):
            return code.value
    raise error


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


def all_agents(agent: Agent[Any]) -> list[Agent[Any]]:
    return [agent, *(h for h in agent.handoffs if isinstance(h, Agent))]


def watch(agent: Agent[Any], fired: list[str]) -> ToolHooks:
    """Agent hooks on `agent` and its handoffs; the run hooks to pass. Both write to `fired`."""
    for each in all_agents(agent):
        if each.hooks is None:
            each.hooks = OwnHooks(fired)
    return ToolHooks(fired)


def runs(log: Path) -> list[tuple[str, dict[str, Any]]]:
    if not log.exists():
        return []
    return [
        (row["tool"], row["arguments"]) for row in map(json.loads, log.read_text().splitlines())
    ]


def shown_reply(events: Sequence[BaseEvent]) -> str:
    """The text of the last assistant message a run streamed ("" if it streamed none)."""
    texts: dict[str, list[str]] = {}
    last: str | None = None
    for event in events:
        if isinstance(event, TextMessageStartEvent):
            texts[event.message_id] = []
            last = event.message_id
        elif isinstance(event, TextMessageContentEvent):
            texts.setdefault(event.message_id, []).append(event.delta)
    return "".join(texts[last]) if last is not None else ""


def read_as(agent: Agent[Any], text: str) -> Any:
    """A reply read as `agent`'s final output: its text, or its structured output."""
    kind = agent.output_type
    if kind is None or kind is str or not isinstance(kind, type):
        return text
    try:  # the SDK's own reading, which unwraps what it wrapped (a dataclass)
        return AgentOutputSchema(kind).validate_json(text)
    except ModelBehaviorError:
        return TypeAdapter(kind).validate_json(text)
