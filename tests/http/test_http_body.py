"""Request bodies a server must survive: too deep, not JSON, or never finishing.

Each runs a real uvicorn on 127.0.0.1 and talks to it over a socket.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any

import httpx
import pytest
from ag_ui.core import RunAgentInput, UserMessage
from agents import set_tracing_disabled

from interrupt_widget.examples import ExampleAgent, meeting_agent
from interrupt_widget.http.app import DEFAULT_BODY_TIMEOUT_SECONDS, asgi_app
from interrupt_widget.http.serve import running_server
from interrupt_widget.sdk.offline_model import OfflineModel

set_tracing_disabled(True)

SECRET = "a-test-secret-that-is-long-enough"
TOKEN = "test-token"
AUTH = {"Authorization": f"Bearer {TOKEN}"}


@pytest.fixture
def agent() -> ExampleAgent:
    return meeting_agent(OfflineModel())


def deep(levels: int) -> bytes:
    inner = b"[" * levels + b"]" * levels
    return b'{"threadId": "t", "runId": "r", "messages": [], "state": ' + inner + b"}"


async def post(url: str, body: bytes) -> httpx.Response:
    async with httpx.AsyncClient(timeout=60) as http:
        return await http.post(
            url, content=body, headers={**AUTH, "Content-Type": "application/json"}
        )


def error_of(response: httpx.Response) -> dict[str, Any]:
    error: dict[str, Any] = response.json()["error"]
    return error


@pytest.mark.parametrize(
    ("body", "needle"),
    [
        (deep(10_000), "recursion limit"),
        (b'{"threadId": "t",', "EOF"),
        (b"\xff\xfe{}", "expected value"),
        (b"", "EOF"),
    ],
    ids=["10000-deep", "truncated", "not-utf8", "empty"],
)
async def test_deep_or_unparseable_json_is_a_400_and_the_server_goes_on(
    agent: ExampleAgent, body: bytes, needle: str
) -> None:
    app = asgi_app(agent, token=TOKEN, secret=SECRET)
    async with running_server(app) as url:
        response = await post(url, body)
        assert response.status_code == 400
        error = error_of(response)
        assert error["code"] == "malformed_json"
        assert needle in error["message"]
        assert "Traceback" not in response.text
        async with httpx.AsyncClient() as http:
            assert (await http.get(url + "health")).json()["status"] == "ok"
    assert agent.executions.count() == 0


async def test_json_nested_within_reason_is_parsed(agent: ExampleAgent) -> None:
    app = asgi_app(agent, token=TOKEN, secret=SECRET)
    async with running_server(app) as url:
        response = await post(url, deep(50))
        assert response.status_code == 200
        assert "RUN_FINISHED" in response.text


async def _open(url: str) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    host, port = httpx.URL(url).host, httpx.URL(url).port
    assert port is not None
    return await asyncio.open_connection(host, port)


def _head(length: int) -> bytes:
    return (
        "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        f"Authorization: Bearer {TOKEN}\r\nContent-Length: {length}\r\n\r\n"
    ).encode()


async def _response(reader: asyncio.StreamReader) -> tuple[str, dict[str, Any]]:
    # Until the server closes: a 408 must not leave the connection open. A reset
    # (a byte of ours that crossed the close) ends the read like a close does.
    raw = b""
    async with asyncio.timeout(60):
        while True:
            try:
                chunk = await reader.read(65536)
            except ConnectionResetError:
                break
            if not chunk:
                break
            raw += chunk
    head, _, body = raw.partition(b"\r\n\r\n")
    return head.decode(), json.loads(body)


async def test_a_body_that_stops_arriving_gets_408_and_the_connection_closes(
    agent: ExampleAgent,
) -> None:
    app = asgi_app(agent, token=TOKEN, secret=SECRET, body_timeout=0.5)
    async with running_server(app) as url:
        reader, writer = await _open(url)
        writer.write(_head(1000) + b'{"threadId": ')
        await writer.drain()
        head, body = await _response(reader)
        writer.close()
    assert head.startswith("HTTP/1.1 408")
    assert body["error"]["code"] == "body_timeout"
    assert "0.5 s" in body["error"]["message"]
    assert agent.executions.count() == 0


async def test_a_body_trickling_in_gets_408_too(agent: ExampleAgent) -> None:
    app = asgi_app(agent, token=TOKEN, secret=SECRET, body_timeout=0.5)
    async with running_server(app) as url:
        reader, writer = await _open(url)
        writer.write(_head(100_000))
        answer = asyncio.ensure_future(_response(reader))
        sent = 0
        while not answer.done() and sent < 100_000:  # one byte at a time, until answered
            try:
                writer.write(b" ")
                await writer.drain()
            except ConnectionError:
                break  # the server answered and closed
            sent += 1
            await asyncio.wait({answer}, timeout=0.01)
        head, body = await answer
        writer.close()
    assert head.startswith("HTTP/1.1 408")
    assert body["error"]["code"] == "body_timeout"
    assert sent < 100_000


def test_the_command_documents_the_default_body_timeout() -> None:
    from interrupt_widget.http.cli import _parser

    serve = _parser()._subparsers._group_actions[0].choices["serve"]  # type: ignore[union-attr]
    text = " ".join(serve.format_help().split())
    assert "--body-timeout SECONDS" in text
    assert f"default {DEFAULT_BODY_TIMEOUT_SECONDS:g}" in text


@pytest.mark.parametrize("timeout", [0, -1.0])
def test_a_body_timeout_must_be_positive(agent: ExampleAgent, timeout: float) -> None:
    with pytest.raises(ValueError, match="body_timeout"):
        asgi_app(agent, secret=SECRET, body_timeout=timeout)


async def test_a_kept_client_reuses_one_connection_for_many_runs(agent: ExampleAgent) -> None:
    from starlette.types import Receive, Scope, Send

    from interrupt_widget.http.client import AGUIClient

    app = asgi_app(agent, token=TOKEN, secret=SECRET)
    client_ports: list[int] = []

    async def recording(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope.get("client"):
            client_ports.append(scope["client"][1])
        await app(scope, receive, send)

    async with running_server(recording) as url, AGUIClient(url, token=TOKEN) as client:
        for n in range(3):
            ask = RunAgentInput(
                thread_id=f"thread-{n}",
                run_id="run-1",
                messages=[UserMessage(id="user-1", content="Please schedule a meeting with Ada.")],
            )
            events = [e async for e in client.run(ask)]
            assert events[-1].type == "RUN_FINISHED"
    assert len(client_ports) == 3
    assert len(set(client_ports)) == 1  # the body's end was read: the connection went back
