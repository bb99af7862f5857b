"""One turn of the offline model on a request's Responses-format input, and its token counts.

Both of the stand-in's APIs run the same rules: the Responses route hands
its `input` over as it came, the Chat Completions route converts its
messages first (`chat_completions.py`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from agents import FunctionTool, ModelResponse, ModelSettings, ModelTracing, Usage
from openai.types.responses import (
    ResponseFunctionToolCall,
    ResponseOutputMessage,
    ResponseOutputText,
)

from interrupt_widget.sdk.offline_model import OfflineModel

# The keys whose strings are a conversation's words (not its roles and types).
_TEXT_KEYS = frozenset({"content", "text", "output", "arguments"})


async def _never_called(_ctx: Any, _arguments: str) -> str:
    raise RuntimeError("the stand-in only names tools; the client runs them")


def function_tool(spec: Mapping[str, Any]) -> FunctionTool:
    """A tool the offline model can call, from its JSON spec (name, description, parameters)."""
    return FunctionTool(
        name=str(spec["name"]),
        description=str(spec.get("description") or ""),
        params_json_schema=dict(spec.get("parameters") or {}),
        on_invoke_tool=_never_called,
        strict_json_schema=bool(spec.get("strict", False)),
    )


async def offline_turn(
    instructions: str | None, items: list[Any] | str, tools: list[FunctionTool]
) -> ModelResponse:
    """The offline model's whole reply to `items`, as `OfflineModel().get_response` gives it."""
    return await OfflineModel().get_response(
        instructions,
        items,
        ModelSettings(),
        list(tools),
        None,
        [],
        ModelTracing.DISABLED,
        previous_response_id=None,
        conversation_id=None,
        prompt=None,
    )


def words(value: Any) -> int:
    """The words in a request's text (a string, or the text fields of its items)."""
    if isinstance(value, str):
        return len(re.findall(r"\S+", value))
    if isinstance(value, Mapping):
        return sum(
            words(v) if k in _TEXT_KEYS or not isinstance(v, str) else 0 for k, v in value.items()
        )
    if isinstance(value, list):
        return sum(words(v) for v in value)
    return 0


def token_counts(
    instructions: str | None, items: list[Any] | str, output: list[Any], reported: Usage
) -> tuple[int, int]:
    """(input, output) tokens: the offline model's when it counts them, else a word a token.

    The offline model reports none; a count that grows with the conversation
    lets a test see usage travel from the server to the SDK.
    """
    said = 0
    for item in output:
        if isinstance(item, ResponseOutputMessage):
            said += sum(words(p.text) for p in item.content if isinstance(p, ResponseOutputText))
        elif isinstance(item, ResponseFunctionToolCall):
            said += words(item.arguments) + 1  # the tool's name
    read = words(instructions or "") + words(items)
    return reported.input_tokens or read, reported.output_tokens or said
