"""A local stand-in for the OpenAI API: Responses and Chat Completions, streamed or not.

It answers with the offline model's rules, in the very shapes the real API
sends and the SDK's `OpenAIResponsesModel` and `OpenAIChatCompletionsModel`
parse through the `openai` client:

- `POST /v1/responses` with `"stream": true`: SSE events (response.created,
  output items, text and function-call argument deltas, response.completed);
  without it, one `Response` object.
- `POST /v1/chat/completions` with `"stream": true`: `data: {chunk}` lines,
  then `data: [DONE]`; without it, one `ChatCompletion`.

So the path a user with a key takes (the SDK's model, the `openai` HTTP
client and its parsers) runs end to end with no network. It takes only the
key `stand-in-key`, and `requests` keeps every request it was sent: path,
body and headers. `running()` serves it from a thread on a free
127.0.0.1 port.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import uvicorn
from agents import FunctionTool, ModelResponse
from chat_completions import BadChatRequest, chunks, completion, to_offline
from offline_turn import function_tool, offline_turn, token_counts
from openai.types.responses import (
    Response,
    ResponseCompletedEvent,
    ResponseCreatedEvent,
    ResponseUsage,
)
from openai.types.responses.response_usage import InputTokensDetails, OutputTokensDetails
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, StreamingResponse
from starlette.responses import Response as HTTPResponse
from starlette.routing import Route

from interrupt_widget.sdk.response_stream import response_stream

KEY = "stand-in-key"
"""The one API key the stand-in takes."""
START_DEADLINE = 10.0
"""Seconds `running()` waits for the server to listen."""


@dataclass(frozen=True)
class SeenRequest:
    """One request as the stand-in received it."""

    path: str
    """The URL path, `/v1/responses` or `/v1/chat/completions`."""
    body: dict[str, Any]
    headers: dict[str, str]
    """Lower-cased names, as HTTP/1.1 allows and Starlette gives them."""


def _error(status: int, message: str, code: str | None = None) -> JSONResponse:
    error = {"message": message, "type": "invalid_request_error", "param": None, "code": code}
    return JSONResponse({"error": error}, status_code=status)


def _usage(tokens: tuple[int, int]) -> ResponseUsage:
    read, said = tokens
    return ResponseUsage(
        input_tokens=read,
        output_tokens=said,
        total_tokens=read + said,
        input_tokens_details=InputTokensDetails(cached_tokens=0, cache_write_tokens=0),
        output_tokens_details=OutputTokensDetails(reasoning_tokens=0),
    )


def _response(
    body: Mapping[str, Any],
    response_id: str,
    created_at: int,
    output: list[Any],
    usage: ResponseUsage | None,
) -> Response:
    """The `Response` the real API returns, echoing the request's settings."""
    done = usage is not None
    return Response.model_validate(
        {
            "id": response_id,
            "object": "response",
            "created_at": created_at,
            "completed_at": created_at if done else None,
            "status": "completed" if done else "in_progress",
            "model": body.get("model") or "offline",
            "output": output,
            "instructions": body.get("instructions"),
            "tool_choice": body.get("tool_choice") or "auto",
            "tools": body.get("tools") or [],
            "parallel_tool_calls": body.get("parallel_tool_calls", True),
            "temperature": body.get("temperature", 1.0),
            "top_p": body.get("top_p", 1.0),
            "previous_response_id": body.get("previous_response_id"),
            "metadata": body.get("metadata") or {},
            "text": body.get("text") or {"format": {"type": "text"}},
            "truncation": body.get("truncation") or "disabled",
            "error": None,
            "incomplete_details": None,
            "usage": usage,
        }
    )


def _dump(model: Any, *, only_set: bool = False) -> str:
    # By alias, as the real API spells its fields (`async`, not `async_`). A
    # `Response` lists its empty fields as null; a chat chunk leaves them out.
    text: str = model.model_dump_json(warnings=False, by_alias=True, exclude_unset=only_set)
    return text


Turn = Callable[[str | None, list[Any] | str, list[FunctionTool]], Awaitable[ModelResponse]]
"""Who answers: instructions, input items and tools -> the model's whole reply."""


async def _responses_events(
    body: dict[str, Any], reply: ModelResponse, created_at: int
) -> AsyncIterator[bytes]:
    """`reply` streamed, its first and last `Response` as the real API fills them."""
    instructions, items = body.get("instructions"), body.get("input") or []
    response_id = reply.response_id or "resp_stand_in"
    event: Any
    async for event in response_stream(response_id, reply.output):
        if isinstance(event, ResponseCreatedEvent):
            filled = _response(body, event.response.id, created_at, [], None)
            event = event.model_copy(update={"response": filled})
        elif isinstance(event, ResponseCompletedEvent):
            output = list(event.response.output)
            tokens = token_counts(instructions, items, output, reply.usage)
            filled = _response(body, event.response.id, created_at, output, _usage(tokens))
            event = event.model_copy(update={"response": filled})
        yield f"event: {event.type}\ndata: {_dump(event)}\n\n".encode()


class ResponsesStandIn:
    """The app, and what it saw."""

    def __init__(self, turn: Turn = offline_turn, clock: Callable[[], int] | None = None) -> None:
        self.turn = turn
        """Who answers (the offline model's rules by default)."""
        self.clock = clock or (lambda: int(time.time()))
        """`created_at` of every response (a fixed clock makes the bytes reproducible)."""
        self.requests: list[SeenRequest] = []
        """Every request that carried the key, in order."""
        self.base_url: str | None = None
        """`http://127.0.0.1:PORT/v1` while `running()`."""
        self.app = Starlette(
            routes=[
                Route("/v1/responses", self._responses, methods=["POST"]),
                Route("/v1/chat/completions", self._chat, methods=["POST"]),
            ]
        )

    async def _seen(self, request: Request) -> dict[str, Any] | HTTPResponse:
        """The request's body, recorded; or the error the real API gives."""
        if request.headers.get("authorization", "") != f"Bearer {KEY}":
            return _error(401, "Incorrect API key provided.", "invalid_api_key")
        try:
            body = json.loads(await request.body())
        except json.JSONDecodeError:
            return _error(400, "The request body is not valid JSON.")
        if not isinstance(body, dict):
            return _error(400, "The request body must be a JSON object.")
        self.requests.append(SeenRequest(request.url.path, body, dict(request.headers)))
        return body

    async def _responses(self, request: Request) -> HTTPResponse:
        body = await self._seen(request)
        if isinstance(body, HTTPResponse):
            return body
        instructions, items = body.get("instructions"), body.get("input") or []
        tools = [function_tool(t) for t in body.get("tools") or [] if t.get("type") == "function"]
        reply = await self.turn(instructions, items, tools)
        if body.get("stream"):
            events = _responses_events(body, reply, self.clock())
            return StreamingResponse(events, media_type="text/event-stream")
        tokens = token_counts(instructions, items, reply.output, reply.usage)
        response_id = reply.response_id or "resp_stand_in"
        made = _response(body, response_id, self.clock(), reply.output, _usage(tokens))
        return HTTPResponse(_dump(made), media_type="application/json")

    async def _chat(self, request: Request) -> HTTPResponse:
        body = await self._seen(request)
        if isinstance(body, HTTPResponse):
            return body
        try:
            asked = to_offline(body)
        except (BadChatRequest, KeyError, TypeError, AttributeError) as error:
            return _error(400, f"Invalid chat request: {error}")
        reply = await self.turn(asked.instructions, asked.items, asked.tools)
        tokens = token_counts(asked.instructions, asked.items, reply.output, reply.usage)
        model = str(body.get("model") or "offline")
        if not body.get("stream"):
            made = completion(model, reply, tokens)
            return HTTPResponse(_dump(made, only_set=True), media_type="application/json")
        include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
        sent = chunks(model, reply, tokens, include_usage=include_usage)

        async def lines() -> AsyncIterator[bytes]:
            for chunk in sent:
                yield f"data: {_dump(chunk, only_set=True)}\n\n".encode()
            yield b"data: [DONE]\n\n"

        return StreamingResponse(lines(), media_type="text/event-stream")

    @contextmanager
    def running(self) -> Iterator[str]:
        """Serve from a thread of its own on a free 127.0.0.1 port; yields the base URL."""
        # IPPROTO_TCP spelled out, so asyncio turns Nagle off (else ~40 ms per response).
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        sock.bind(("127.0.0.1", 0))
        sock.listen(128)
        port = sock.getsockname()[1]
        config = uvicorn.Config(self.app, log_level="warning", lifespan="off")
        server = uvicorn.Server(config)
        thread = threading.Thread(
            target=server.run, kwargs={"sockets": [sock]}, name=f"stand-in-{port}", daemon=True
        )
        thread.start()
        deadline = time.monotonic() + START_DEADLINE
        while not server.started:
            if not thread.is_alive() or time.monotonic() > deadline:
                sock.close()
                raise RuntimeError(f"the stand-in did not start on port {port}")
            time.sleep(0.005)
        self.base_url = f"http://127.0.0.1:{port}/v1"
        try:
            yield self.base_url
        finally:
            server.should_exit = True
            thread.join(START_DEADLINE)
            sock.close()
            self.base_url = None


app = ResponsesStandIn().app
"""For `uvicorn responses_server:app` in a process of its own."""
