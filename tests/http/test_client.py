"""AGUIClient: typed events from SSE, and a clear error for each way a run can fail."""

from __future__ import annotations

import json
import socket
import ssl
from typing import Any

import httpx
import pytest
from ag_ui.core import (
    EventType,
    RunAgentInput,
    RunFinishedEvent,
    RunStartedEvent,
    TextMessageContentEvent,
    UserMessage,
)
from agents import set_tracing_disabled
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route

from interrupt_widget.examples import meeting_agent
from interrupt_widget.http.app import asgi_app
from interrupt_widget.http.client import (
    AGUIClient,
    AGUIConnectionError,
    AGUIHTTPError,
    AGUIStreamError,
)
from interrupt_widget.sdk.offline_model import OfflineModel

set_tracing_disabled(True)

RUN = RunAgentInput(
    thread_id="t1", run_id="r1", messages=[UserMessage(id="u1", content="hello there")]
)
STARTED = {"type": "RUN_STARTED", "threadId": "t1", "runId": "r1"}
FINISHED = {"type": "RUN_FINISHED", "threadId": "t1", "runId": "r1"}


def sse(*frames: Any) -> bytes:
    return b"".join(
        f"data: {f if isinstance(f, str) else json.dumps(f)}\n\n".encode() for f in frames
    )


Requests = list[dict[str, Any]]


def peer_with_log(
    body: bytes, *, media_type: str = "text/event-stream", status: int = 200
) -> tuple[AGUIClient, Requests]:
    """A client for an endpoint that answers every POST with `body`, and its request log."""
    seen: Requests = []

    async def endpoint(request: Request) -> Response:
        seen.append({"headers": dict(request.headers), "body": json.loads(await request.body())})
        return Response(body, status_code=status, media_type=media_type)

    app = Starlette(routes=[Route("/", endpoint, methods=["POST"])])
    client = AGUIClient("http://peer.test/", token="t0k", transport=httpx.ASGITransport(app=app))
    return client, seen


def peer(body: bytes, *, media_type: str = "text/event-stream") -> AGUIClient:
    return peer_with_log(body, media_type=media_type)[0]


async def test_events_arrive_typed_and_the_request_is_camel_case_with_the_token() -> None:
    chunk = {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "hi"}
    client, seen = peer_with_log(sse(STARTED, chunk, FINISHED))
    events = [e async for e in client.run(RUN)]
    assert [type(e) for e in events] == [RunStartedEvent, TextMessageContentEvent, RunFinishedEvent]
    (request,) = seen
    assert request["headers"]["authorization"] == "Bearer t0k"
    assert request["headers"]["accept"] == "text/event-stream"
    assert request["body"]["threadId"] == "t1"
    assert request["body"]["messages"][0]["content"] == "hello there"


async def test_a_camel_case_mapping_is_accepted_as_input() -> None:
    client = peer(sse(STARTED, FINISHED))
    document = {"threadId": "t1", "runId": "r1", "messages": []}
    assert [e.type for e in [e async for e in client.run(document)]] == [
        EventType.RUN_STARTED,
        EventType.RUN_FINISHED,
    ]


async def test_comment_lines_between_events_are_ignored() -> None:
    client = peer(b": keep-alive\n\n" + sse(STARTED) + b": keep-alive\n\n" + sse(FINISHED))
    assert [e.type for e in [e async for e in client.run(RUN)]] == [
        EventType.RUN_STARTED,
        EventType.RUN_FINISHED,
    ]


async def test_reading_stops_at_the_terminal_event() -> None:
    client = peer(sse(STARTED, FINISHED, "not even json"))
    assert len([e async for e in client.run(RUN)]) == 2


async def test_an_unknown_event_type_is_skipped_with_a_warning() -> None:
    client = peer(sse(STARTED, {"type": "FROM_THE_FUTURE", "x": 1}, FINISHED))
    with pytest.warns(UserWarning, match="unknown type 'FROM_THE_FUTURE'"):
        events = [e async for e in client.run(RUN)]
    assert [e.type for e in events] == [EventType.RUN_STARTED, EventType.RUN_FINISHED]


@pytest.mark.parametrize(
    ("body", "media_type", "needle"),
    [
        (b'{"type": "RUN_STARTED"}', "application/json", "not an SSE stream"),
        (sse(STARTED, "{broken"), "text/event-stream", "event #2 is not JSON"),
        (sse(STARTED, [1, 2]), "text/event-stream", "not an object with a string `type`"),
        (sse({"type": "RUN_STARTED", "runId": "r1"}), "text/event-stream", "threadId"),
        (sse(STARTED), "text/event-stream", "ended after 1 events without RUN_FINISHED"),
        (b"", "text/event-stream", "ended after 0 events"),
    ],
)
async def test_a_malformed_stream_is_a_stream_error(
    body: bytes, media_type: str, needle: str
) -> None:
    client = peer(body, media_type=media_type)
    with pytest.raises(AGUIStreamError, match=needle):
        _ = [e async for e in client.run(RUN)]


async def test_the_servers_json_error_becomes_an_http_error() -> None:
    app = asgi_app(meeting_agent(OfflineModel()), token="right", secret="x" * 32)
    client = AGUIClient("http://agent.test/", token="wrong", transport=httpx.ASGITransport(app=app))
    with pytest.raises(AGUIHTTPError) as raised:
        _ = [e async for e in client.run(RUN)]
    assert raised.value.status == 401
    assert raised.value.code == "unauthorized"
    assert "not this server's" in str(raised.value)


async def test_a_plain_text_error_body_is_kept_in_the_message() -> None:
    async def endpoint(request: Request) -> Response:
        return PlainTextResponse("upstream exploded", status_code=502)

    app = Starlette(routes=[Route("/", endpoint, methods=["POST"])])
    client = AGUIClient("http://peer.test/", transport=httpx.ASGITransport(app=app))
    with pytest.raises(AGUIHTTPError, match="HTTP 502: upstream exploded") as raised:
        _ = [e async for e in client.run(RUN)]
    assert raised.value.code is None


async def test_an_unreachable_server_is_a_connection_error() -> None:
    with socket.socket() as sock:  # a port that nothing listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    client = AGUIClient(f"http://127.0.0.1:{port}/")
    with pytest.raises(AGUIConnectionError, match=f"127.0.0.1:{port}"):
        _ = [e async for e in client.run(RUN)]


async def test_a_kept_pool_serves_many_runs() -> None:
    client, seen = peer_with_log(sse(STARTED, FINISHED))
    async with client:
        for _ in range(3):
            assert len([e async for e in client.run(RUN)]) == 2
    assert len(seen) == 3


async def test_runs_outside_async_with_share_one_tls_context(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Each such run makes an httpx client; loading the CA bundle for each took
    # 60-120 ms, so they share one context loaded once per process.
    given: list[object] = []
    made = httpx.AsyncClient

    def recording(**options: Any) -> httpx.AsyncClient:
        given.append(options.get("verify"))
        return made(**options)

    monkeypatch.setattr(httpx, "AsyncClient", recording)
    client, _ = peer_with_log(sse(STARTED, FINISHED))
    for _ in range(2):
        assert [e.type for e in [e async for e in client.run(RUN)]] == [
            EventType.RUN_STARTED,
            EventType.RUN_FINISHED,
        ]
    assert len(given) == 2
    assert given[0] is given[1]
    assert isinstance(given[0], ssl.SSLContext)
    assert given[0].verify_mode == ssl.CERT_REQUIRED  # still checks certificates
