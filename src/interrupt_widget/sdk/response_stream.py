"""A finished reply as the Responses API streams it, for models that hold the whole reply.

The offline model and a replayed cassette both hold a finished reply; the SDK reads a
stream, so this turns the reply into the events a real response would send.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator, Sequence
from typing import Any, TypedDict

from agents.items import TResponseOutputItem, TResponseStreamEvent
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
from openai.types.responses.response_usage import InputTokensDetails, OutputTokensDetails


class _Counter:
    def __init__(self) -> None:
        self._next = 0

    def __call__(self) -> int:
        self._next += 1
        return self._next - 1


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


class _PartAt(TypedDict):
    """Where an event about a message's one text part points (every such event says it)."""

    item_id: str
    output_index: int
    content_index: int


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
    at = _PartAt(item_id=item.id, output_index=index, content_index=0)
    yield ResponseContentPartAddedEvent(
        type="response.content_part.added",
        part=ResponseOutputText(type="output_text", text="", annotations=[]),
        sequence_number=seq(),
        **at,
    )
    for chunk in re.findall(r"\S+\s*|\s+", part.text):
        # Yield to the loop per chunk, as a network stream would: a reader can
        # act (stop the run) between chunks.
        await asyncio.sleep(0)
        yield ResponseTextDeltaEvent.model_construct(
            type="response.output_text.delta",
            delta=chunk,
            logprobs=[],
            sequence_number=seq(),
            **at,
        )
    yield ResponseTextDoneEvent(
        type="response.output_text.done", text=part.text, logprobs=[], sequence_number=seq(), **at
    )
    yield ResponseContentPartDoneEvent(
        type="response.content_part.done", part=part, sequence_number=seq(), **at
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
