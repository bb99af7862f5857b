"""Chat Completions for the stand-in: a request into the offline model's input, its reply back.

A request's messages become Responses-format items (system and developer
text -> instructions; user and assistant text -> messages; an assistant's
`tool_calls` -> `function_call` items; a `tool` message ->
`function_call_output`), and the offline model's output becomes a
`ChatCompletion` or the `ChatCompletionChunk`s the real API streams, built
from the `openai` package's own types with the same call ids.
"""

from __future__ import annotations

import re
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from agents import FunctionTool, ModelResponse
from offline_turn import function_tool
from openai.types.chat import (
    ChatCompletion,
    ChatCompletionChunk,
    ChatCompletionMessage,
    ChatCompletionMessageFunctionToolCall,
    ChatCompletionMessageToolCallUnion,
)
from openai.types.chat import chat_completion as completion_types
from openai.types.chat import chat_completion_chunk as chunk_types
from openai.types.chat.chat_completion_message_function_tool_call import Function
from openai.types.completion_usage import (
    CompletionTokensDetails,
    CompletionUsage,
    PromptTokensDetails,
)
from openai.types.responses import (
    ResponseFunctionToolCall,
    ResponseOutputMessage,
    ResponseOutputText,
)

ARGUMENT_PIECE = 16
"""Characters per streamed argument delta: several per call, as the real API sends."""


_Finish = Literal["tool_calls", "stop"]


class BadChatRequest(ValueError):
    """A chat request the stand-in cannot read (answered with HTTP 400)."""


@dataclass(frozen=True)
class OfflineRequest:
    """A chat request as the offline model reads it."""

    instructions: str | None
    items: list[dict[str, Any]]
    tools: list[FunctionTool]


def _content_text(content: Any) -> str:
    if content is None or isinstance(content, str):
        return content or ""
    if isinstance(content, list):
        return "".join(str(part.get("text", "")) for part in content if isinstance(part, Mapping))
    raise BadChatRequest(f"unreadable message content: {content!r}")


def _assistant_items(message: Mapping[str, Any]) -> list[dict[str, Any]]:
    items: list[dict[str, Any]] = []
    text = _content_text(message.get("content"))
    if text:
        items.append({"role": "assistant", "content": text})
    for call in message.get("tool_calls") or []:
        function = call.get("function") or {}
        items.append(
            {
                "type": "function_call",
                "call_id": str(call["id"]),
                "name": str(function.get("name", "")),
                "arguments": str(function.get("arguments", "")),
            }
        )
    return items


def to_offline(body: Mapping[str, Any]) -> OfflineRequest:
    """The offline model's instructions, input items and tools for a chat request body."""
    messages = body.get("messages")
    if not isinstance(messages, list):
        raise BadChatRequest("'messages' must be a list")
    instructions: list[str] = []
    items: list[dict[str, Any]] = []
    for message in messages:
        role = message.get("role") if isinstance(message, Mapping) else None
        if role in ("system", "developer"):
            instructions.append(_content_text(message.get("content")))
        elif role == "user":
            items.append({"role": "user", "content": _content_text(message.get("content"))})
        elif role == "assistant":
            items.extend(_assistant_items(message))
        elif role == "tool":
            items.append(
                {
                    "type": "function_call_output",
                    "call_id": str(message.get("tool_call_id", "")),
                    "output": _content_text(message.get("content")),
                }
            )
        else:
            raise BadChatRequest(f"unknown message role: {role!r}")
    tools = [
        function_tool(t["function"])
        for t in body.get("tools") or []
        if t.get("type") == "function" and "function" in t
    ]
    return OfflineRequest("\n\n".join(instructions) or None, items, tools)


@dataclass(frozen=True)
class _Reply:
    text: str | None
    calls: list[ResponseFunctionToolCall]

    @property
    def finish_reason(self) -> _Finish:
        return "tool_calls" if self.calls else "stop"


def _reply(response: ModelResponse) -> _Reply:
    texts = [
        part.text
        for item in response.output
        if isinstance(item, ResponseOutputMessage)
        for part in item.content
        if isinstance(part, ResponseOutputText)
    ]
    calls = [item for item in response.output if isinstance(item, ResponseFunctionToolCall)]
    return _Reply("".join(texts) if texts else None, calls)


def _completion_id(response: ModelResponse) -> str:
    return "chatcmpl-" + (response.response_id or "offline").removeprefix("resp_")


def _usage(tokens: tuple[int, int]) -> CompletionUsage:
    prompt, completion = tokens
    return CompletionUsage(
        prompt_tokens=prompt,
        completion_tokens=completion,
        total_tokens=prompt + completion,
        prompt_tokens_details=PromptTokensDetails(cached_tokens=0, audio_tokens=0),
        completion_tokens_details=CompletionTokensDetails(reasoning_tokens=0, audio_tokens=0),
    )


def completion(model: str, response: ModelResponse, tokens: tuple[int, int]) -> ChatCompletion:
    """The non-streamed answer: one choice whose message holds the text and the tool calls."""
    reply = _reply(response)
    tool_calls: list[ChatCompletionMessageToolCallUnion] = [
        ChatCompletionMessageFunctionToolCall(
            id=call.call_id,
            type="function",
            function=Function(name=call.name, arguments=call.arguments),
        )
        for call in reply.calls
    ]
    message = ChatCompletionMessage(
        role="assistant", content=reply.text, refusal=None, annotations=[]
    )
    if tool_calls:  # set only when there are some: the real API leaves the key out
        message.tool_calls = tool_calls
    choice = completion_types.Choice(
        index=0, message=message, logprobs=None, finish_reason=reply.finish_reason
    )
    return ChatCompletion(
        id=_completion_id(response),
        object="chat.completion",
        created=int(time.time()),
        model=model,
        choices=[choice],
        usage=_usage(tokens),
        system_fingerprint=None,
    )


def _deltas(reply: _Reply) -> list[tuple[chunk_types.ChoiceDelta, _Finish | None]]:
    """Each streamed choice's delta and finish reason, in the order the real API sends them."""
    first = chunk_types.ChoiceDelta(
        role="assistant", content="" if reply.text is not None else None, refusal=None
    )
    deltas: list[tuple[chunk_types.ChoiceDelta, _Finish | None]] = [(first, None)]
    for piece in re.findall(r"\S+\s*|\s+", reply.text or ""):
        deltas.append((chunk_types.ChoiceDelta(content=piece), None))
    for index, call in enumerate(reply.calls):
        opened = chunk_types.ChoiceDeltaToolCall(
            index=index,
            id=call.call_id,
            type="function",
            function=chunk_types.ChoiceDeltaToolCallFunction(name=call.name, arguments=""),
        )
        deltas.append((chunk_types.ChoiceDelta(tool_calls=[opened]), None))
        arguments = call.arguments
        for start in range(0, len(arguments), ARGUMENT_PIECE):
            piece = chunk_types.ChoiceDeltaToolCall(
                index=index,
                function=chunk_types.ChoiceDeltaToolCallFunction(
                    arguments=arguments[start : start + ARGUMENT_PIECE]
                ),
            )
            deltas.append((chunk_types.ChoiceDelta(tool_calls=[piece]), None))
    deltas.append((chunk_types.ChoiceDelta(), reply.finish_reason))
    return deltas


def chunks(
    model: str, response: ModelResponse, tokens: tuple[int, int], *, include_usage: bool
) -> list[ChatCompletionChunk]:
    """The streamed answer: a role chunk, content and tool-call deltas, the finish, then usage.

    With `include_usage` every chunk carries `usage: null` and a last chunk
    with no choices carries the counts, as `stream_options` asks of the real API.
    """
    common: dict[str, Any] = {
        "id": _completion_id(response),
        "object": "chat.completion.chunk",
        "created": int(time.time()),
        "model": model,
        "system_fingerprint": None,
    }
    if include_usage:
        common["usage"] = None
    out = [
        ChatCompletionChunk(
            **common,
            choices=[chunk_types.Choice(index=0, delta=delta, logprobs=None, finish_reason=finish)],
        )
        for delta, finish in _deltas(_reply(response))
    ]
    if include_usage:
        out.append(ChatCompletionChunk(**{**common, "usage": _usage(tokens)}, choices=[]))
    return out
