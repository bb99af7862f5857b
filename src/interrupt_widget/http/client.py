"""`AGUIClient`: run any AG-UI agent over HTTP and get typed `ag_ui.core` events back.

    async with AGUIClient("http://127.0.0.1:8000", token=token) as client:
        async for event in client.run(run_input):
            ...

Each `run` POSTs one camelCase RunAgentInput and parses the SSE answer event by
event. Failures are raised where they happen and say what went wrong: an HTTP
error status (with the server's JSON error when it sends one), a connection
failure, or a stream that is not AG-UI (not SSE, not JSON, not a known event
shape, or ended before RUN_FINISHED / RUN_ERROR).
"""

from __future__ import annotations

import functools
import json
import ssl
import warnings
from collections.abc import AsyncIterator, Mapping
from types import TracebackType
from typing import Any, Final

import anyio
import httpx
from ag_ui.core import BaseEvent, RunAgentInput, RunErrorEvent, RunFinishedEvent
from httpx_sse import EventSource, SSEError
from pydantic import ValidationError

from interrupt_widget.agui.wire import event_from_json, event_from_wire
from interrupt_widget.errors import (
    AGUIClientError,
    AGUIConnectionError,
    AGUIHTTPError,
    AGUIStreamError,
)

__all__ = [
    "AGUIClient",
    "AGUIClientError",
    "AGUIConnectionError",
    "AGUIHTTPError",
    "AGUIStreamError",
]

_ERROR_BODY_LIMIT: Final = 64 * 1024
_DRAIN_SECONDS: Final = 1.0
DEFAULT_TIMEOUT: Final = httpx.Timeout(10.0, read=300.0, pool=300.0)
"""Ten seconds to connect and send; five minutes of silence between two events, or of
waiting for a free connection when more runs are under way than the pool holds."""


def _error_from_body(status: int, body: bytes, reason: str) -> AGUIHTTPError:
    text = body.decode("utf-8", "replace").strip()
    try:
        document: Any = json.loads(text)
    except ValueError:
        document = None
    if isinstance(document, dict) and isinstance(document.get("error"), dict):
        error = document["error"]
        code = error.get("code") if isinstance(error.get("code"), str) else None
        message = str(error.get("message") or reason)
        return AGUIHTTPError(status, code, message)
    return AGUIHTTPError(status, None, text[:500] or reason or "no body")


def parse_event(data: str, *, position: int) -> BaseEvent | None:
    """One SSE `data` field as a typed event; None (with a warning) for an unknown type.

    Raises `AGUIStreamError` when the data is not JSON or not a valid event.
    """
    try:  # one pass through pydantic's JSON parser; the slow path below says what is wrong
        return event_from_json(data)
    except ValidationError:
        pass
    try:
        document: Any = json.loads(data)
    except ValueError as exc:
        raise AGUIStreamError(f"event #{position} is not JSON: {exc}") from None
    if not isinstance(document, dict) or not isinstance(document.get("type"), str):
        raise AGUIStreamError(f"event #{position} is not an object with a string `type`")
    try:
        event = event_from_wire(document)
    except ValidationError as exc:
        if any(e["type"] == "union_tag_invalid" for e in exc.errors()):
            warnings.warn(
                f"skipped event #{position} of unknown type {document['type']!r}",
                stacklevel=2,
            )
            return None
        first = exc.errors(include_url=False, include_input=False)[0]
        where = "/".join(str(p) for p in first["loc"])
        raise AGUIStreamError(
            f"event #{position} ({document['type']}) is not valid at {where}: {first['msg']}"
        ) from None
    return event


class AGUIClient:
    """A client for one AG-UI endpoint (`POST url` with a RunAgentInput, SSE back).

    Use it as an async context manager to keep one connection pool for many
    runs; used bare, each run opens and closes its own connection.
    """

    def __init__(
        self,
        url: str,
        *,
        token: str | None = None,
        headers: Mapping[str, str] | None = None,
        timeout: float | httpx.Timeout | None = DEFAULT_TIMEOUT,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.url = url
        """The endpoint runs are POSTed to."""
        self._headers = dict(headers or {})
        if token is not None:
            self._headers["Authorization"] = f"Bearer {token}"
        self._timeout = timeout
        self._transport = transport
        self._client: httpx.AsyncClient | None = None

    def _new_client(self) -> httpx.AsyncClient:
        return httpx.AsyncClient(
            timeout=self._timeout, transport=self._transport, verify=_tls_context()
        )

    async def __aenter__(self) -> AGUIClient:
        if self._client is None:
            self._client = self._new_client()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        """Close the connection pool kept by `async with`."""
        if self._client is not None:
            client, self._client = self._client, None
            await client.aclose()

    async def run(self, input: RunAgentInput | Mapping[str, Any]) -> AsyncIterator[BaseEvent]:
        """POST `input` and yield the run's events until RUN_FINISHED or RUN_ERROR."""
        run_input = (
            input if isinstance(input, RunAgentInput) else RunAgentInput.model_validate(input)
        )
        body = run_input.model_dump_json(by_alias=True, exclude_none=True).encode()
        headers = {
            **self._headers,
            "Content-Type": "application/json",
            "Accept": "text/event-stream",
        }
        owned = self._client is None
        client = self._new_client() if owned else self._client
        assert client is not None
        try:
            async with client.stream("POST", self.url, content=body, headers=headers) as response:
                if response.status_code >= 400:
                    raw = await _read_limited(response)
                    raise _error_from_body(response.status_code, raw, response.reason_phrase)
                async for event in self._events(response):
                    yield event
        except httpx.TransportError as exc:
            raise AGUIConnectionError(
                f"{type(exc).__name__} talking to {self.url}: {str(exc) or 'no detail'}"
            ) from exc
        finally:
            if owned:
                await client.aclose()

    async def _events(self, response: httpx.Response) -> AsyncIterator[BaseEvent]:
        position = 0
        try:
            stream = EventSource(response).aiter_sse()
            async for sse in stream:
                if not sse.data:
                    continue  # keep-alive comments and empty events
                position += 1
                event = parse_event(sse.data, position=position)
                if event is None:
                    continue
                yield event
                if isinstance(event, RunFinishedEvent | RunErrorEvent):
                    await _drain(stream)
                    return
        except SSEError as exc:
            raise AGUIStreamError(f"not an SSE stream: {exc}") from None
        raise AGUIStreamError(
            f"the stream ended after {position} events without RUN_FINISHED or RUN_ERROR"
        )


@functools.cache
def _tls_context() -> ssl.SSLContext:
    # httpx loads the CA bundle for every client it makes (60-120 ms here), and a
    # run outside `async with` makes a client of its own: load it once per process.
    return httpx.create_ssl_context()


async def _drain(stream: AsyncIterator[object]) -> None:
    # Read the body's end, which follows the terminal event at once, so the
    # connection goes back to the pool instead of being closed and opened anew.
    # A server that sends more, or nothing for a while, just loses the connection.
    with anyio.move_on_after(_DRAIN_SECONDS):
        async for _ in stream:
            return


async def _read_limited(response: httpx.Response) -> bytes:
    chunks: list[bytes] = []
    size = 0
    async for chunk in response.aiter_bytes():
        chunks.append(chunk)
        size += len(chunk)
        if size >= _ERROR_BODY_LIMIT:
            break
    return b"".join(chunks)[:_ERROR_BODY_LIMIT]
