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

`default_model()` chooses between it and a real OpenAI model: with
`OPENAI_API_KEY` set, the model named by `INTERRUPT_WIDGET_MODEL` (default
`DEFAULT_OPENAI_MODEL`); with no key, or `INTERRUPT_WIDGET_MODEL=offline`, an
`OfflineModel`, with the SDK's tracing turned off (its exporter needs the
network and a key).
"""

from __future__ import annotations

import asyncio
import contextvars
import hashlib
import json
import math
import os
import re
from collections.abc import AsyncIterator, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, TypeVar, cast

from agents import (
    FunctionTool,
    Handoff,
    ModelResponse,
    ModelSettings,
    ModelTracing,
    Tool,
    Usage,
    set_tracing_disabled,
)
from agents.agent_output import AgentOutputSchemaBase
from agents.items import TResponseInputItem, TResponseOutputItem, TResponseStreamEvent
from agents.models._openai_shared import get_default_openai_client, get_default_openai_key
from agents.models.interface import Model
from openai import OpenAIError
from openai.types.responses import (
    Response,
    ResponseCompletedEvent,
    ResponseContentPartAddedEvent,
    ResponseContentPartDoneEvent,
    ResponseCreatedEvent,
    ResponseFunctionCallArgumentsDeltaEvent,
    ResponseFunctionCallArgumentsDoneEvent,
    ResponseFunctionToolCall,
    ResponseOutputItemAddedEvent,
    ResponseOutputItemDoneEvent,
    ResponseOutputMessage,
    ResponseOutputText,
    ResponseTextDeltaEvent,
    ResponseTextDoneEvent,
    ResponseUsage,
)
from openai.types.responses.response_prompt_param import ResponsePromptParam
from openai.types.responses.response_usage import InputTokensDetails, OutputTokensDetails

from interrupt_widget.agui.messages import NOT_RUN_PREFIX, REASON_LABEL

MAX_REPLY_WORDS: Final = 20_000
"""The longest reply "reply with N words" gets; a larger N gives this many."""
MAX_READ_CHARS: Final = 8_000
"""How much of the request the rules read (tool names, arguments, "reply with")."""
MAX_ECHO_CHARS: Final = 1_000
"""The most of a request or a tool's output a reply repeats."""

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


SDK_REJECTION = "Tool execution was not approved."
"""What the SDK tells the model about a call rejected through `RunState.reject`."""

_FILLER = (
    "the",
    "quick",
    "brown",
    "fox",
    "jumps",
    "over",
    "a",
    "lazy",
    "dog",
    "while",
    "seven",
    "owls",
)


@dataclass(frozen=True)
class _Plan:
    text: str | None = None
    calls: list[tuple[str, str]] = field(default_factory=list)
    """(tool name, JSON arguments) per call."""


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
    ) -> tuple[str, _Plan]:
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
        last_user = max((i for i, it in enumerate(items) if it.get("role") == "user"), default=-1)
        said = _text(items[last_user].get("content")) if last_user >= 0 else ""
        request = said[:MAX_READ_CHARS]
        after = items[last_user + 1 :]
        own = {t.name for t in function_tools}
        if after and after[-1].get("type") == "function_call_output":
            report = _report(after, own)
            if report:  # else only a handoff answered: act on the request itself
                return digest, _Plan(text=report)
        words = self.reply_words
        asked = re.search(r"\breply with (\d+) words\b", request, re.IGNORECASE)
        if asked:
            digits = asked.group(1).lstrip("0") or "0"
            words = MAX_REPLY_WORDS if len(digits) > 6 else min(int(digits), MAX_REPLY_WORDS)
        if words is not None:
            return digest, _Plan(text=" ".join(_FILLER[i % len(_FILLER)] for i in range(words)))
        calls, missing = _tool_calls(request, function_tools)
        if missing:
            return digest, _Plan(text=_asking_for(missing))
        if calls:
            return digest, _Plan(calls=calls)
        return digest, _Plan(text=f"You said: {_echo(said)}{_no_tool_hint(function_tools)}")


class _Counter:
    def __init__(self) -> None:
        self._next = 0

    def __call__(self) -> int:
        self._next += 1
        return self._next - 1


def _echo(text: str) -> str:
    return text if len(text) <= MAX_ECHO_CHARS else text[: MAX_ECHO_CHARS - 1] + "…"


def _as_dict(item: Any) -> dict[str, Any]:
    if isinstance(item, Mapping):
        return dict(item)
    dump = getattr(item, "model_dump", None)
    return (
        cast(dict[str, Any], dump(exclude_unset=True)) if callable(dump) else {"value": str(item)}
    )


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            str(part.get("text", ""))
            for part in content
            if isinstance(part, Mapping) and "text" in part
        )
    return ""


NO_TOOL_HINT: Final = (
    "(The offline model calls a tool only when the request names it, as in "
    "`{example} key=value`{booking}. This request named none, so no tool ran.)"
)
"""The paragraph added to an echo when the agent has tools the request did not name."""


def _no_tool_hint(tools: Sequence[FunctionTool]) -> str:
    if not tools:
        return ""
    booking = ", or asks to book a meeting" if any(_is_scheduler(t.name) for t in tools) else ""
    return "\n\n" + NO_TOOL_HINT.format(example=tools[0].name, booking=booking)


def _is_scheduler(name: str) -> bool:
    return "schedule" in name or "book" in name


def _report(after: list[dict[str, Any]], own: set[str]) -> str:
    """One sentence per result of this agent's own tools since the request."""
    names = {
        it.get("call_id"): str(it.get("name", ""))
        for it in after
        if it.get("type") == "function_call"
    }
    sentences: list[str] = []
    for item in after:
        if item.get("type") != "function_call_output":
            continue
        name = names.get(item.get("call_id"), "")
        if name not in own:
            continue
        output = _text(item.get("output"))
        ran = not (output.startswith(NOT_RUN_PREFIX) or output == SDK_REJECTION)
        if ran:
            sentences.append(f"{name} reported: {_echo(output)}")
        elif _is_scheduler(name):
            sentences.append(f"The meeting was not scheduled.{_because(output)}")
        else:
            sentences.append(f"{name} did not run.{_because(output)}")
    return " ".join(sentences)


def _because(output: str) -> str:
    """The human's reason for a denial, repeated back, when the output carries one."""
    _, found, reason = output.partition(REASON_LABEL)
    return f" You said: {_echo(reason.strip())}" if found and reason.strip() else ""


def _tool_calls(
    request: str, tools: list[FunctionTool]
) -> tuple[list[tuple[str, str]], list[tuple[str, list[str]]]]:
    """The calls the request names, with their arguments, and the calls whose required
    arguments it does not give: (tool name, their names)."""
    mentions: list[tuple[int, int, FunctionTool]] = []
    for tool in tools:
        spoken = re.escape(tool.name).replace("_", "[ _]")
        for match in re.finditer(rf"\b{spoken}\b", request, re.IGNORECASE):
            mentions.append((match.start(), match.end(), tool))
    mentions.sort(key=lambda m: m[0])
    if not mentions:
        scheduler = next((t for t in tools if _is_scheduler(t.name)), None)
        if scheduler is None or not re.search(r"\b(book|schedule)\b", request, re.IGNORECASE):
            return [], []
        mentions = [(0, 0, scheduler)]
    calls: list[tuple[str, str]] = []
    missing: list[tuple[str, list[str]]] = []
    for index, (_, end, tool) in enumerate(mentions):
        stop = mentions[index + 1][0] if index + 1 < len(mentions) else len(request)
        segment = _without_joiner(request[end:stop] if end else request)
        arguments, unsaid = _arguments(tool.params_json_schema, segment)
        calls.append((tool.name, json.dumps(arguments)))
        if unsaid:
            missing.append((tool.name, unsaid))
    return calls, missing


def _asking_for(missing: list[tuple[str, list[str]]]) -> str:
    """The reply that calls nothing: what each named tool still needs, and how to say it."""
    asks = [f"To call {tool} I need: {', '.join(names)}." for tool, names in missing]
    tool, names = missing[0]
    example = " ".join(f"{name}=..." for name in names)
    return " ".join(asks) + f" Say it as `{tool} {example}`; nothing was called."


# Words that join one named tool to the next ("... and issue_refund").
_JOINER = re.compile(r"\b(?:and|then|also|plus)$", re.IGNORECASE)
_SEPARATORS = " \t\n\r\f\v,;"


def _without_joiner(segment: str) -> str:
    # Stripped step by step: one pattern anchored at the end backtracks in
    # quadratic time over long runs of spaces.
    trimmed = segment.rstrip(_SEPARATORS)
    tail = trimmed[-8:]  # longer than any joiner, so `\b` sees the character before it
    joiner = _JOINER.search(tail)
    if joiner is None:
        return trimmed
    return trimmed[: len(trimmed) - len(tail) + joiner.start()].rstrip(_SEPARATORS)


_PHRASES: dict[str, str] = {
    "topic": r"\babout\s+(.+?)(?=\s+with\s|$)",
    "subject": r"\babout\s+(.+?)(?=\s+with\s|$)",
    "attendee": r"\bwith\s+(.+?)(?=\s+about\s|[.,;!?]|$)",
    "description": r"\bfor\s+(.+?)(?=[,;]|$)",
    "reason": r"\b(?:for|because)\s+(.+?)(?=[,;]|$)",
}


class _Unsaid:
    """What `_value` finds for an argument the text does not give and the schema fills not."""


_UNSAID: Final = _Unsaid()


def _arguments(schema: Mapping[str, Any], segment: str) -> tuple[dict[str, Any], list[str]]:
    """The arguments `segment` gives (or the schema's defaults), and the required ones it
    leaves unsaid: those are asked for, never guessed."""
    required = schema.get("required")
    needed = {str(n) for n in required} if isinstance(required, list) else set()
    arguments: dict[str, Any] = {}
    unsaid: list[str] = []
    for name, prop in dict(schema.get("properties", {})).items():
        value = _value(name, prop if isinstance(prop, Mapping) else {}, segment)
        if isinstance(value, _Unsaid):
            if name in needed:
                unsaid.append(name)
                continue
            value = _EMPTY.get(_kind(prop if isinstance(prop, Mapping) else {}), "")
        arguments[name] = value
    return arguments, unsaid


_EMPTY: Final[dict[str, Any]] = {
    "number": 0, "integer": 0, "boolean": False, "array": [], "object": {},
}  # fmt: skip
"""What an optional argument the text does not give gets when its schema has no default."""


def _nullable(prop: Mapping[str, Any]) -> bool:
    kind = prop.get("type")
    options = prop.get("anyOf", [])
    return (isinstance(kind, list) and "null" in kind) or any(
        isinstance(o, Mapping) and o.get("type") == "null" for o in options
    )


def _kind(prop: Mapping[str, Any]) -> str:
    kind = prop.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "string")
    if kind is None:
        for option in prop.get("anyOf", []):
            if isinstance(option, Mapping) and option.get("type") not in (None, "null"):
                return str(option["type"])
    return str(kind or "string")


def _value(name: str, prop: Mapping[str, Any], segment: str) -> Any:
    kind = _kind(prop)
    explicit = re.search(
        rf"\b{re.escape(name)}\s*[=:]\s*(\"[^\"]*\"|'[^']*'|[^\s,;]+)", segment, re.IGNORECASE
    )
    if explicit:
        return _coerce(explicit.group(1).strip("\"'"), kind, prop)
    enum = prop.get("enum")
    if isinstance(enum, list) and enum:
        named = [v for v in enum if re.search(rf"\b{re.escape(str(v))}\b", segment, re.IGNORECASE)]
        if named:
            return named[0]
    if kind in ("number", "integer"):
        number = re.search(r"-?\d+(?:\.\d+)?", segment)
        if number:
            return _coerce(number.group(0), kind, prop)
    phrase = _PHRASES.get(name)
    if kind == "string" and phrase:
        found = re.search(phrase, segment.strip(), re.IGNORECASE)
        if found:
            value = found.group(1).strip().rstrip(".!?;,").strip()
            return value[4:] if value.lower().startswith("the ") and len(value) > 4 else value
    if "default" in prop:
        return prop["default"]
    return None if _nullable(prop) else _UNSAID


def _coerce(raw: str, kind: str, prop: Mapping[str, Any]) -> Any:
    try:
        if kind == "integer":  # digits as they are: a float would round beyond 2**53
            return int(raw) if re.fullmatch(r"-?\d+", raw) else int(float(raw))
        if kind == "number":
            # A float, as the schema says: an int would be "changed" by validation,
            # and the SDK then skips a callable `needs_approval`.
            number = float(raw)
            return number if math.isfinite(number) else prop.get("default", _UNSAID)
    except (ValueError, OverflowError):  # not a number, or too large to be one
        return prop.get("default", _UNSAID)
    if kind == "boolean":
        return raw.lower() in ("true", "yes", "1")
    return raw


def _output_items(digest: str, plan: _Plan) -> list[TResponseOutputItem]:
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


async def response_stream(
    response_id: str, outputs: Sequence[TResponseOutputItem]
) -> AsyncIterator[TResponseStreamEvent]:
    """`outputs` as the Responses API streams them: text word by word, then `response.completed`.

    Messages and function calls stream their parts; any other item is added and done whole.
    """
    seq = _Counter()
    yield ResponseCreatedEvent(
        type="response.created",
        response=_response(response_id, [], "in_progress"),
        sequence_number=seq(),
    )
    for index, item in enumerate(outputs):
        if (
            isinstance(item, ResponseOutputMessage)
            and len(item.content) == 1
            and isinstance(item.content[0], ResponseOutputText)
        ):
            async for event in _stream_message(item, index, seq):
                yield event
        elif isinstance(item, ResponseFunctionToolCall):
            for event in _stream_call(item, index, seq):
                yield event
        else:
            for kind in (ResponseOutputItemAddedEvent, ResponseOutputItemDoneEvent):
                yield kind.model_validate(
                    {
                        "type": "response.output_item.added"
                        if kind is ResponseOutputItemAddedEvent
                        else "response.output_item.done",
                        "item": item,
                        "output_index": index,
                        "sequence_number": seq(),
                    }
                )
    yield ResponseCompletedEvent(
        type="response.completed",
        response=_response(response_id, list(outputs), "completed"),
        sequence_number=seq(),
    )


def _response(response_id: str, output: list[TResponseOutputItem], status: Any) -> Response:
    return Response(
        id=response_id,
        created_at=0,
        model="offline",
        object="response",
        output=output,
        tool_choice="auto",
        tools=[],
        top_p=None,
        parallel_tool_calls=True,
        status=status,
        usage=ResponseUsage(
            input_tokens=0,
            output_tokens=0,
            total_tokens=0,
            input_tokens_details=InputTokensDetails(cached_tokens=0, cache_write_tokens=0),
            output_tokens_details=OutputTokensDetails(reasoning_tokens=0),
        ),
    )


async def _stream_message(
    item: ResponseOutputMessage, index: int, seq: _Counter
) -> AsyncIterator[TResponseStreamEvent]:
    part = item.content[0]
    assert isinstance(part, ResponseOutputText)
    empty = ResponseOutputMessage(
        id=item.id, type="message", role="assistant", status="in_progress", content=[]
    )
    yield ResponseOutputItemAddedEvent(
        type="response.output_item.added", item=empty, output_index=index, sequence_number=seq()
    )
    yield ResponseContentPartAddedEvent(
        type="response.content_part.added",
        item_id=item.id,
        output_index=index,
        content_index=0,
        part=ResponseOutputText(type="output_text", text="", annotations=[]),
        sequence_number=seq(),
    )
    for chunk in re.findall(r"\S+\s*|\s+", part.text):
        # Yield to the loop per chunk, as a network stream would: a reader can
        # act (stop the run) between chunks.
        await asyncio.sleep(0)
        yield ResponseTextDeltaEvent.model_construct(
            type="response.output_text.delta",
            item_id=item.id,
            output_index=index,
            content_index=0,
            delta=chunk,
            logprobs=[],
            sequence_number=seq(),
        )
    yield ResponseTextDoneEvent(
        type="response.output_text.done",
        item_id=item.id,
        output_index=index,
        content_index=0,
        text=part.text,
        logprobs=[],
        sequence_number=seq(),
    )
    yield ResponseContentPartDoneEvent(
        type="response.content_part.done",
        item_id=item.id,
        output_index=index,
        content_index=0,
        part=part,
        sequence_number=seq(),
    )
    yield ResponseOutputItemDoneEvent(
        type="response.output_item.done", item=item, output_index=index, sequence_number=seq()
    )


def _stream_call(
    item: ResponseFunctionToolCall, index: int, seq: _Counter
) -> list[TResponseStreamEvent]:
    item_id = item.id or item.call_id
    started = item.model_copy(update={"arguments": "", "status": "in_progress"})
    return [
        ResponseOutputItemAddedEvent(
            type="response.output_item.added",
            item=started,
            output_index=index,
            sequence_number=seq(),
        ),
        ResponseFunctionCallArgumentsDeltaEvent(
            type="response.function_call_arguments.delta",
            item_id=item_id,
            output_index=index,
            delta=item.arguments,
            sequence_number=seq(),
        ),
        ResponseFunctionCallArgumentsDoneEvent.model_validate(
            {
                "type": "response.function_call_arguments.done",
                "item_id": item_id,
                "output_index": index,
                "arguments": item.arguments,
                "name": item.name,
                "sequence_number": seq(),
            }
        ),
        ResponseOutputItemDoneEvent(
            type="response.output_item.done", item=item, output_index=index, sequence_number=seq()
        ),
    ]


DEFAULT_OPENAI_MODEL = "gpt-5-mini"
"""The real model used when a key is set and `INTERRUPT_WIDGET_MODEL` names none."""

MODEL_ENV = "INTERRUPT_WIDGET_MODEL"
OFFLINE = "offline"

KEY_ENV_VARS: Final = ("OPENAI_API_KEY", "OPENAI_ADMIN_KEY")
"""The environment variables the OpenAI client reads a key from."""

OFFLINE_WAY: Final = (
    "To run without a key, give the agent the offline model: "
    "Agent(..., model=OfflineModel()) or AgentChat(agent, model=OfflineModel()) "
    "(from interrupt_widget import OfflineModel), or set INTERRUPT_WIDGET_MODEL=offline "
    "for agents built with default_model(). Its rule: it calls a tool only when the "
    "request names it (tool_name key=value) or asks to book a meeting."
)
"""Said wherever a run fails for want of an OpenAI key."""


def has_openai_credentials() -> bool:
    """True when the SDK's default OpenAI client can find a key (environment or code)."""
    return (
        any(os.environ.get(name, "").strip() for name in KEY_ENV_VARS)
        or get_default_openai_key() is not None
        or get_default_openai_client() is not None
    )


def is_missing_credentials(error: BaseException) -> bool:
    """True for the OpenAI client's refusal to start without a key."""
    text = str(error)
    return isinstance(error, OpenAIError) and (
        "Missing credentials" in text or "api_key client option must be set" in text
    )


def default_model() -> Model | str:
    """The model for the example agents and notebooks (see the module docs).

    Returns a model name (the SDK resolves it with the default provider) or
    an `OfflineModel`.
    """
    choice = os.environ.get(MODEL_ENV, "").strip()
    if choice.lower() == OFFLINE or not os.environ.get("OPENAI_API_KEY"):
        set_tracing_disabled(True)
        return OfflineModel()
    return choice or DEFAULT_OPENAI_MODEL
