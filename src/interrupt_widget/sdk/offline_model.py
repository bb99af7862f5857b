"""`OfflineModel`: a deterministic stand-in for an LLM, for notebooks, tests and CI.

It calls a tool only when the request names it (`issue_refund amount=80`) or
asks to book or schedule something; any other request is echoed back, with a
line saying how to make it call a tool. Run your own agent offline with
`Agent(..., model=OfflineModel())`, `AgentChat(agent, model=OfflineModel())` or
`model=default_model()` (offline unless `OPENAI_API_KEY` is set).

No network, no key. It reads the conversation and plays the agent's part by
fixed rules, so the same input always gives the same output and the same ids:

- Asked to book or schedule something, it calls the agent's scheduling tool
  (a tool whose name has "schedule" or "book" in it) once.
- Each tool named in the request (`submit_expense` or `submit expense`) is
  called, in the order named; several names give parallel calls in one turn.
  Arguments come from the text after the tool's name: `name=value` pairs
  first, then `topic`/`subject` from "about ...", `attendee` from "with ...",
  `description`/`reason` from "for ...", numbers from the first number, enums
  from a value the text names; otherwise the schema's default (None for an
  argument that may be null). Text taken from the request is copied verbatim.
  A required argument the text does not give, with no default, is never
  guessed (no `""`, no `0`): no tool is called, and the reply says what it
  needs (`To call delete_rows I need: table, where.`) and how to say it.
- "reply with N words" streams a reply of exactly N word-sized chunks, at
  most `MAX_REPLY_WORDS` (or pass `reply_words=N`, not capped), for
  streaming benchmarks.
- After results of its own tools it replies from them: it quotes what each
  tool returned, and for a call that did not run says so ("The meeting was
  not scheduled."). It never claims what a tool did not report. (After a
  handoff, whose result is not its tool's, it acts on the request.)
- Otherwise it answers `You said: <the request>`, and, when the agent has
  tools, a second paragraph saying how to call one (`NO_TOOL_HINT`).

Its work is bounded whatever a client sends: the rules read only the first
`MAX_READ_CHARS` characters of the request, and text it repeats (the request,
a tool's output) is cut to `MAX_ECHO_CHARS` characters, ending in "…".

Ids: the response, message and tool call ids are `resp_<h>`, `msg_<h>` and
`call_<h>_<n>`, where `<h>` is a hash of the input and of the AG-UI ids of
the conversation's messages (which `OpenAIAgentsAdapter` hands it through
`with_message_ids`), so they are stable across runs and processes, unique
within a conversation (the input grows every turn), and new for a new
conversation that repeats an old one's words in the same thread.

`default_model()` (in `model_choice`) chooses between it and a real OpenAI
model. The rules live in `offline_planner`, the streaming in `response_stream`.
"""

from __future__ import annotations

import contextvars
import hashlib
import json
from collections.abc import AsyncIterator, Callable, Iterable, Mapping, Sequence
from typing import Any, TypeVar, cast

from agents import FunctionTool, Handoff, ModelResponse, ModelSettings, ModelTracing, Tool, Usage
from agents.agent_output import AgentOutputSchemaBase
from agents.items import TResponseInputItem, TResponseOutputItem, TResponseStreamEvent
from agents.models.interface import Model
from openai.types.responses import (
    ResponseFunctionToolCall,
    ResponseOutputMessage,
    ResponseOutputText,
)
from openai.types.responses.response_prompt_param import ResponsePromptParam

from interrupt_widget.sdk.offline_planner import (
    MAX_ECHO_CHARS,
    MAX_READ_CHARS,
    MAX_REPLY_WORDS,
    NO_TOOL_HINT,
    SDK_REJECTION,
    Plan,
    plan_reply,
)
from interrupt_widget.sdk.response_stream import response_stream

__all__ = [
    "MAX_ECHO_CHARS",
    "MAX_READ_CHARS",
    "MAX_REPLY_WORDS",
    "NO_TOOL_HINT",
    "SDK_REJECTION",
    "OfflineModel",
    "with_message_ids",
]

_MESSAGE_IDS: contextvars.ContextVar[tuple[str, ...]] = contextvars.ContextVar(
    "interrupt_widget_offline_message_ids", default=()
)
_T = TypeVar("_T")


def with_message_ids(message_ids: Iterable[str], start: Callable[[], _T]) -> _T:
    """Call `start()` where an `OfflineModel` folds `message_ids` into the ids it makes.

    The SDK's input carries no AG-UI message ids; the adapter hands them over
    this way so that a new conversation repeating an old one's words gets new
    call ids. Tasks `start` creates (the SDK's run) see them; the caller's
    context is left as it was.
    """
    context = contextvars.copy_context()
    context.run(_MESSAGE_IDS.set, tuple(message_ids))
    return context.run(start)


class OfflineModel(Model):
    """A deterministic `Model`: calls a tool only when the request names it.

    `issue_refund amount=80 for a damaged monitor` calls `issue_refund`; "book a
    call with Alice" calls the agent's scheduling tool; anything else ("please
    drop the staging_orders table") is echoed back with a hint, and no tool is
    called. The module docs give every rule. Use it for any agent:
    `Agent(name=..., tools=[...], model=OfflineModel())`.
    """

    def __init__(self, *, reply_words: int | None = None) -> None:
        self.reply_words = reply_words
        """If set, every plain reply is this many filler words (a streaming load)."""

    async def get_response(
        self,
        system_instructions: str | None,
        input: str | list[TResponseInputItem],
        model_settings: ModelSettings,
        tools: list[Tool],
        output_schema: AgentOutputSchemaBase | None,
        handoffs: list[Handoff[Any, Any]],
        tracing: ModelTracing,
        *,
        previous_response_id: str | None,
        conversation_id: str | None,
        prompt: ResponsePromptParam | None,
    ) -> ModelResponse:
        """The whole reply at once: the same text and tool calls `stream_response` streams."""
        digest, plan = self._plan(input, tools)
        return ModelResponse(
            output=_output_items(digest, plan),
            usage=Usage(requests=1),
            response_id=f"resp_{digest}",
        )

    async def stream_response(
        self,
        system_instructions: str | None,
        input: str | list[TResponseInputItem],
        model_settings: ModelSettings,
        tools: list[Tool],
        output_schema: AgentOutputSchemaBase | None,
        handoffs: list[Handoff[Any, Any]],
        tracing: ModelTracing,
        *,
        previous_response_id: str | None,
        conversation_id: str | None,
        prompt: ResponsePromptParam | None,
    ) -> AsyncIterator[TResponseStreamEvent]:
        """The reply as the Responses API streams it: word by word, then `response.completed`."""
        digest, plan = self._plan(input, tools)
        async for event in response_stream(f"resp_{digest}", _output_items(digest, plan)):
            yield event

    def _plan(
        self, input: str | list[TResponseInputItem], tools: Sequence[Tool]
    ) -> tuple[str, Plan]:
        items = [
            _as_dict(i)
            for i in ([{"role": "user", "content": input}] if isinstance(input, str) else input)
        ]
        ids = _MESSAGE_IDS.get()
        hashed: Any = {"ids": list(ids), "items": items} if ids else items
        digest = hashlib.sha256(
            json.dumps(hashed, sort_keys=True, default=str).encode()
        ).hexdigest()[:16]
        function_tools = [t for t in tools if isinstance(t, FunctionTool)]
        return digest, plan_reply(items, function_tools, self.reply_words)


def _as_dict(item: Any) -> dict[str, Any]:
    if isinstance(item, Mapping):
        return dict(item)
    dump = getattr(item, "model_dump", None)
    return (
        cast(dict[str, Any], dump(exclude_unset=True)) if callable(dump) else {"value": str(item)}
    )


def _output_items(digest: str, plan: Plan) -> list[TResponseOutputItem]:
    items: list[TResponseOutputItem] = []
    if plan.text is not None:
        items.append(
            ResponseOutputMessage(
                id=f"msg_{digest}",
                type="message",
                role="assistant",
                status="completed",
                content=[ResponseOutputText(type="output_text", text=plan.text, annotations=[])],
            )
        )
    for index, (name, arguments) in enumerate(plan.calls):
        call_id = f"call_{digest}_{index}"
        items.append(
            ResponseFunctionToolCall(
                id=f"fc_{digest}_{index}",
                call_id=call_id,
                type="function_call",
                name=name,
                arguments=arguments,
                status="completed",
            )
        )
    return items
