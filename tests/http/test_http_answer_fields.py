"""Over HTTP, an answer with a field the kit's schema does not declare ends in RUN_ERROR and
nothing runs: a real `serve` process and `asgi_app` on uvicorn, spoken to with plain httpx
(the raw wire, no kit client in between). The tools write each run to a file.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from test_http_cli import server_env

from interrupt_widget.http.app import asgi_app
from interrupt_widget.http.serve import running_server
from payment_agents import (
    PAY,
    PAY_PROPOSAL,
    REFUSED_PAY,
    REFUSED_SEND,
    RUNS_ENV,
    SEND,
    payment_agent,
    runs_in,
)
from serve_process import Served

TOKEN = "answer-fields-token"
SECRET = "a-secret-for-the-answer-fields-test-0123456789"
HEADERS = {"Authorization": f"Bearer {TOKEN}", "Accept": "text/event-stream"}
CASES = [(SEND, case) for case in REFUSED_SEND] + [(PAY, case) for case in REFUSED_PAY]


async def post(client: httpx.AsyncClient, url: str, body: dict[str, Any]) -> list[dict[str, Any]]:
    """The events of one run, as the SSE stream carries them (camelCase JSON)."""
    async with client.stream("POST", url, json=body, headers=HEADERS) as response:
        assert response.status_code == 200, await response.aread()
        return [
            json.loads(line.removeprefix("data: "))
            async for line in response.aiter_lines()
            if line.startswith("data: ")
        ]


async def ask(client: httpx.AsyncClient, url: str, prompt: str) -> tuple[str, list[Any]]:
    """Start a thread with `prompt`: the interrupt's id and the messages to resume with."""
    thread = f"thread-{prompt.split()[0]}"
    user = {"id": "u1", "role": "user", "content": prompt}
    body = {"threadId": thread, "runId": "r1", "messages": [user], "tools": [], "context": []}
    events = await post(client, url, {**body, "state": None, "forwardedProps": None})
    finished = events[-1]
    assert finished["type"] == "RUN_FINISHED", finished
    (interrupt,) = finished["outcome"]["interrupts"]
    snapshot = [e for e in events if e["type"] == "MESSAGES_SNAPSHOT"][-1]
    return interrupt["id"], snapshot["messages"]


def resume(prompt: str, asked: tuple[str, list[Any]], payload: Any, run: str) -> dict[str, Any]:
    interrupt_id, messages = asked
    entry = {"interruptId": interrupt_id, "status": "resolved", "payload": payload}
    return {
        "threadId": f"thread-{prompt.split()[0]}",
        "runId": run,
        "messages": messages,
        "resume": [entry],
        "tools": [],
        "context": [],
        "state": None,
        "forwardedProps": None,
    }


async def every_case_refused(url: str, runs: Path) -> None:
    async with httpx.AsyncClient(timeout=60) as client:
        asked = {prompt: await ask(client, url, prompt) for prompt in (SEND, PAY)}
        for n, (prompt, case) in enumerate(CASES):
            events = await post(client, url, resume(prompt, asked[prompt], case.payload, f"r{n}"))
            error = events[-1]
            assert error["type"] == "RUN_ERROR", (case, error)
            assert error["code"] == case.code, (case, error)
            assert case.says in error["message"], (case, error)
            assert not [e for e in events if e["type"] == "TOOL_CALL_RESULT"], case
            assert runs_in(runs) == [], case
        # The question is still answerable: a valid edit runs once, with the edit.
        edit = {"approved": True, "editedArgs": {**PAY_PROPOSAL, "amount": 7.5}}
        events = await post(client, url, resume(PAY, asked[PAY], edit, "ok"))
    assert events[-1]["type"] == "RUN_FINISHED", events[-1]
    assert runs_in(runs) == [{"tool": "pay", **PAY_PROPOSAL, "amount": 7.5}]


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[Served, Path]]:
    """`python -m interrupt_widget serve payment_agents:agent`, writing runs to a file."""
    runs = tmp_path / "runs.jsonl"
    secret = tmp_path / "secret"
    secret.write_text(SECRET + "\n")
    env = server_env()
    tests = str(Path(__file__).parents[1])
    env.update(PYTHONPATH=os.pathsep.join([tests, env.get("PYTHONPATH", "")]))
    env[RUNS_ENV] = str(runs)
    args = ["payment_agents:agent", "--token", TOKEN, "--secret-file", str(secret)]
    server = Served([*args, "--ledger", str(tmp_path / "ledger.sqlite3")], env).wait_ready()
    try:
        yield server, runs
    finally:
        server.stop()


async def test_serve_refuses_every_unknown_field_and_runs_nothing(
    served: tuple[Served, Path],
) -> None:
    server, runs = served
    await every_case_refused(server.url, runs)


async def test_asgi_app_on_uvicorn_refuses_every_unknown_field_and_runs_nothing(
    tmp_path: Path,
) -> None:
    runs = tmp_path / "runs.jsonl"
    app = asgi_app(payment_agent(runs), token=TOKEN, secret=SECRET)
    async with running_server(app) as url:
        await every_case_refused(url, runs)
