"""CORS on the AG-UI app: listed origins get the preflight and the stream, others nothing.

The browser's side of it (a real page on another port) is `tests/e2e/test_cors_browser.py`.
"""

from __future__ import annotations

import httpx
import pytest
from agents import set_tracing_disabled
from starlette.applications import Starlette

from interrupt_widget.examples import ExampleAgent, meeting_agent
from interrupt_widget.http.app import asgi_app
from interrupt_widget.http.cli import main
from interrupt_widget.sdk.offline_model import OfflineModel

set_tracing_disabled(True)

SECRET = "a-test-secret-that-is-long-enough"
TOKEN = "cors-token"
PAGE = "http://127.0.0.1:5173"
OTHER = "http://127.0.0.1:6666"
BODY = {
    "threadId": "t1",
    "runId": "r1",
    "state": None,
    "messages": [{"id": "u1", "role": "user", "content": "Book a call with Ada about the budget"}],
    "tools": [],
    "context": [],
    "forwardedProps": None,
}


@pytest.fixture
def agent() -> ExampleAgent:
    return meeting_agent(OfflineModel())


def client_for(app: Starlette) -> httpx.AsyncClient:
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://agent.test")


def preflight(origin: str) -> dict[str, str]:
    return {
        "Origin": origin,
        "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "authorization, content-type",
    }


async def test_a_listed_origin_gets_its_preflight_answered(agent: ExampleAgent) -> None:
    app = asgi_app(agent, token=TOKEN, secret=SECRET, cors_origins=[PAGE])
    async with client_for(app) as client:
        response = await client.options("/", headers=preflight(PAGE))
    assert response.status_code == 200
    assert response.headers["access-control-allow-origin"] == PAGE
    allowed_headers = response.headers["access-control-allow-headers"].lower()
    assert "authorization" in allowed_headers
    assert "content-type" in allowed_headers
    assert "POST" in response.headers["access-control-allow-methods"]
    # No cookies: the token travels in a header.
    assert "access-control-allow-credentials" not in response.headers


async def test_a_listed_origin_reads_the_event_stream(agent: ExampleAgent) -> None:
    app = asgi_app(agent, token=TOKEN, secret=SECRET, cors_origins=[PAGE])
    headers = {"Origin": PAGE, "Authorization": f"Bearer {TOKEN}", "Accept": "text/event-stream"}
    async with client_for(app) as client:
        response = await client.post("/", json=BODY, headers=headers)
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/event-stream")
    assert response.headers["access-control-allow-origin"] == PAGE
    assert '"type":"RUN_FINISHED"' in response.text
    assert '"interrupts"' in response.text


async def test_an_origin_not_listed_is_allowed_nothing(agent: ExampleAgent) -> None:
    app = asgi_app(agent, token=TOKEN, secret=SECRET, cors_origins=[PAGE])
    async with client_for(app) as client:
        refused = await client.options("/", headers=preflight(OTHER))
        posted = await client.post(
            "/", json=BODY, headers={"Origin": OTHER, "Authorization": f"Bearer {TOKEN}"}
        )
    assert refused.status_code == 400
    assert "access-control-allow-origin" not in refused.headers
    # The server answers (a browser would hide it); no header lets the page read it.
    assert "access-control-allow-origin" not in posted.headers
    assert agent.executions.count() == 0


async def test_an_error_reply_is_readable_by_a_listed_origin(agent: ExampleAgent) -> None:
    app = asgi_app(agent, token=TOKEN, secret=SECRET, cors_origins=[PAGE])
    async with client_for(app) as client:
        response = await client.post("/", json=BODY, headers={"Origin": PAGE})
    assert response.status_code == 401
    assert response.headers["access-control-allow-origin"] == PAGE
    assert response.json()["error"]["code"] == "unauthorized"


async def test_without_origins_there_is_no_cors_at_all(agent: ExampleAgent) -> None:
    app = asgi_app(agent, token=TOKEN, secret=SECRET)
    async with client_for(app) as client:
        response = await client.options("/", headers=preflight(PAGE))
        posted = await client.post(
            "/",
            json=BODY,
            headers={"Origin": PAGE, "Authorization": f"Bearer {TOKEN}"},
        )
    assert response.status_code == 405
    assert "access-control-allow-origin" not in response.headers
    assert "access-control-allow-origin" not in posted.headers


@pytest.mark.parametrize(
    "origin", ["http://127.0.0.1:5173/", "127.0.0.1:5173", "http://host/path", "", "null"]
)
def test_a_malformed_origin_is_refused_at_startup(agent: ExampleAgent, origin: str) -> None:
    with pytest.raises(ValueError, match="not an origin"):
        asgi_app(agent, secret=SECRET, cors_origins=[origin])


def test_one_string_is_not_a_list_of_origins(agent: ExampleAgent) -> None:
    with pytest.raises(ValueError, match="not one string"):
        asgi_app(agent, secret=SECRET, cors_origins=PAGE)


def test_serve_refuses_a_malformed_cors_origin(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        ["serve", "interrupt_widget.examples:meeting_agent", "--cors-origin", "localhost:5173"]
    )
    assert code == 2
    err = capsys.readouterr().err
    assert "not an origin" in err
    assert "Traceback" not in err
