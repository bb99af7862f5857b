"""Faults at the door: an open bind without a token, and a body nested 10,000 deep."""

from __future__ import annotations

import pathlib

import httpx
from bank import bank_agent, runs
from served import Served, server_env

from interrupt_widget.http.app import asgi_app
from serve_process import DEADLINE


def test_a_public_bind_without_a_token_refuses_to_start(runs_file: pathlib.Path) -> None:
    served = Served(["--host", "0.0.0.0"], server_env(runs_file))
    code = served.process.wait(timeout=DEADLINE)
    served.stop()
    log = "".join(served.log)
    assert code != 0
    assert "token" in log
    assert "Uvicorn running on" not in log
    assert runs(runs_file) == []


async def test_a_body_nested_10000_deep_gets_400(runs_file: pathlib.Path) -> None:
    app = asgi_app(bank_agent(runs_file), secret="a-fault-test-secret-long-enough")
    body = '{"threadId": "t", "runId": "r", "messages": ' + "[" * 10_000 + "]" * 10_000 + "}"
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://bank.test") as client:
        response = await client.post(
            "/", content=body, headers={"content-type": "application/json"}
        )
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "malformed_json"
    assert runs(runs_file) == []
