"""Over HTTP with `principals`: the bearer token decides who starts a run and who answers.

Plain httpx speaks the raw wire to `asgi_app` on uvicorn; the tool writes each run to a
file. Two approvals from two principals run the call once; one approval asks again with
the vote in the interrupt's metadata; an answer naming someone else than its token's
principal is refused (403) and runs nothing; so is a principal without the role. Two
servers on one PostgreSQL receiving the two approvals at once run the call once.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from interrupt_widget import Policy, require
from interrupt_widget.http.app import SHARED_TOKEN_WARNING, asgi_app
from interrupt_widget.http.principals import Principals, add_principal, token_digest
from interrupt_widget.http.serve import running_server
from interrupt_widget.policy.quorum import APPROVALS_KEY
from payment_agents import RUNS_ENV, payment_agent, runs_in
from postgres_server import binaries, fresh_database, running_postgres
from serve_process import Served

TESTS = Path(__file__).resolve().parents[1]
SECRET = "a-secret-for-the-people-test-0123456789"
BIG = "send_money amount=5000 to=Bob"
ROUNDS = 3
"""Races on one PostgreSQL, each its own thread."""
POLICY = Policy(require("send_money", approvals=2, roles=["finance"]))


def headers(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}", "Accept": "text/event-stream"}


async def post(
    client: httpx.AsyncClient, url: str, token: str, body: dict[str, Any]
) -> list[dict[str, Any]] | httpx.Response:
    """The events of one run, or the error response."""
    async with client.stream("POST", url, json=body, headers=headers(token)) as response:
        if response.status_code != 200:
            await response.aread()
            return response
        return [
            json.loads(line.removeprefix("data: "))
            async for line in response.aiter_lines()
            if line.startswith("data: ")
        ]


def body(
    messages: list[Any], run: str, resume: list[Any] | None = None, thread: str = "thread-people"
) -> dict[str, Any]:
    return {
        "threadId": thread,
        "runId": run,
        "messages": messages,
        "resume": resume,
        "tools": [],
        "context": [],
        "state": None,
        "forwardedProps": None,
    }


def events_of(found: list[dict[str, Any]] | httpx.Response) -> list[dict[str, Any]]:
    assert isinstance(found, list), (found.status_code, found.text)
    return found


def asked(events: list[dict[str, Any]]) -> tuple[dict[str, Any], list[Any]]:
    finished = events[-1]
    assert finished["type"] == "RUN_FINISHED", finished
    (interrupt,) = finished["outcome"]["interrupts"]
    snapshot = [e for e in events if e["type"] == "MESSAGES_SNAPSHOT"][-1]
    return interrupt, snapshot["messages"]


def approval(interrupt: dict[str, Any], identity: str | None = None) -> list[Any]:
    metadata = {"identity": {"name": identity, "roles": []}} if identity else None
    return [
        {
            "interruptId": interrupt["id"],
            "status": "resolved",
            "payload": {"approved": True},
            "metadata": metadata,
        }
    ]


@pytest.fixture
def tokens(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    path = tmp_path / "principals.json"
    made = {
        "carl": add_principal(path, "carl", ["clerk"]),
        "ann": add_principal(path, "ann", ["finance"]),
        "bob": add_principal(path, "bob", ["finance"]),
    }
    return path, made


def test_the_principals_file_keeps_digests_never_tokens(
    tokens: tuple[Path, dict[str, str]],
) -> None:
    path, made = tokens
    text = path.read_text()
    for token in made.values():
        assert token not in text
        assert token_digest(token) in text
    principals = Principals.load(path)
    found = principals.identify(made["ann"])
    assert found is not None
    assert found.name == "ann"
    assert found.roles == ("finance",)
    assert principals.identify("not-a-token") is None


async def test_two_principals_approve_and_the_call_runs_once_a_forger_is_refused(
    tmp_path: Path, tokens: tuple[Path, dict[str, str]]
) -> None:
    path, made = tokens
    runs = tmp_path / "runs.jsonl"
    app = asgi_app(
        payment_agent(runs),
        principals=path,
        secret=SECRET,
        ledger=str(tmp_path / "l.db"),
        policy=POLICY,
    )
    async with running_server(app) as url, httpx.AsyncClient(timeout=60) as client:
        user = {"id": "u1", "role": "user", "content": BIG}
        nobody = await post(client, url, "wrong", body([user], "r1"))
        assert isinstance(nobody, httpx.Response)
        assert nobody.status_code == 401
        interrupt, messages = asked(
            events_of(await post(client, url, made["carl"], body([user], "r1")))
        )
        assert interrupt["metadata"][APPROVALS_KEY]["started_by"] == "carl"

        # bob's token, ann's name: refused before the agent sees it.
        forged = await post(
            client, url, made["bob"], body(messages, "r2", approval(interrupt, "ann"))
        )
        assert isinstance(forged, httpx.Response)
        assert forged.status_code == 403
        assert forged.json()["error"]["code"] == "identity_mismatch"

        # The clerk who started the run may not approve it (and holds no finance role).
        own = events_of(
            await post(client, url, made["carl"], body(messages, "r3", approval(interrupt)))
        )
        assert own[-1]["type"] == "RUN_ERROR"
        assert own[-1]["code"] == "not_allowed_to_answer"

        first = events_of(
            await post(client, url, made["ann"], body(messages, "r4", approval(interrupt)))
        )
        again, messages = asked(first)
        given = again["metadata"][APPROVALS_KEY]["given"]
        assert [(v["name"], v["roles"]) for v in given] == [("ann", ["finance"])]
        assert runs_in(runs) == []

        done = events_of(
            await post(client, url, made["bob"], body(messages, "r5", approval(again, "bob")))
        )
        assert done[-1]["type"] == "RUN_FINISHED"
        assert done[-1]["outcome"]["type"] == "success"
    assert len(runs_in(runs)) == 1


@pytest.fixture(scope="module")
def postgres() -> Iterator[str]:
    if binaries() is None:
        pytest.skip("PostgreSQL is not installed (scripts/ensure-postgresql)")
    with running_postgres() as url:
        yield url


async def test_two_servers_on_one_postgres_given_the_two_approvals_at_once_run_it_once(
    tmp_path: Path, tokens: tuple[Path, dict[str, str]], postgres: str
) -> None:
    path, made = tokens
    database = fresh_database(postgres)
    runs = tmp_path / "runs.jsonl"

    def server() -> Any:
        return asgi_app(
            payment_agent(runs), principals=path, secret=SECRET, ledger=database, policy=POLICY
        )

    async with (
        running_server(server()) as one,
        running_server(server()) as two,
        httpx.AsyncClient(timeout=60) as client,
    ):
        for n in range(ROUNDS):
            thread = f"thread-race-{n}"
            user = {"id": "u1", "role": "user", "content": BIG}
            start = body([user], "r1", thread=thread)
            interrupt, messages = asked(events_of(await post(client, one, made["carl"], start)))
            ann, bob = await asyncio.gather(
                post(client, one, made["ann"], body(messages, "r2", approval(interrupt), thread)),
                post(client, two, made["bob"], body(messages, "r3", approval(interrupt), thread)),
            )
            endings = [events_of(ann)[-1], events_of(bob)[-1]]
            assert all(e["type"] == "RUN_FINISHED" for e in endings), endings
            assert "success" in [e["outcome"]["type"] for e in endings]
            assert len(runs_in(runs)) == n + 1
    assert len(runs_in(runs)) == ROUNDS


def test_principals_add_prints_the_token_once_and_keeps_its_digest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from interrupt_widget.http.cli import main

    path = tmp_path / "principals.json"
    assert main(["principals", "add", str(path), "ann", "--role", "finance"]) == 0
    printed = capsys.readouterr().out
    token = printed.split("token for ann: ", 1)[1].split()[0]
    found = Principals.load(path).identify(token)
    assert found is not None
    assert found.roles == ("finance",)
    assert token not in path.read_text()


def serve_env(runs: Path) -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in {"OPENAI_API_KEY", "INTERRUPT_WIDGET_SECRET"}
    }
    env.update(INTERRUPT_WIDGET_MODEL="offline", OPENAI_AGENTS_DISABLE_TRACING="1")
    env.update(PYTHONPATH=os.pathsep.join([str(TESTS), env.get("PYTHONPATH", "")]))
    env[RUNS_ENV] = str(runs)
    return env


def test_serve_with_one_shared_token_and_rules_about_people_warns_at_start(
    tmp_path: Path,
) -> None:
    secret = tmp_path / "secret"
    secret.write_text(SECRET + "\n")
    args = ["payment_agents:agent", "--token", "one-for-everyone"]
    args += ["--policy", "payment_agents:four_eyes", "--secret-file", str(secret)]
    args += ["--ledger", str(tmp_path / "ledger.sqlite3")]
    server = Served(args, serve_env(tmp_path / "runs.jsonl")).wait_ready()
    server.stop()
    said = "".join(server.log)
    assert f"WARNING: {SHARED_TOKEN_WARNING}" in said, said
    assert "--principals FILE" in SHARED_TOKEN_WARNING


async def test_serve_with_principals_on_the_command_line_takes_each_token_as_its_person(
    tmp_path: Path, tokens: tuple[Path, dict[str, str]]
) -> None:
    path, made = tokens
    runs = tmp_path / "runs.jsonl"
    secret = tmp_path / "secret"
    secret.write_text(SECRET + "\n")
    env = serve_env(runs)
    args = [
        "payment_agents:agent",
        "--principals",
        str(path),
        "--policy",
        "payment_agents:four_eyes",
    ]
    args += ["--secret-file", str(secret), "--ledger", str(tmp_path / "ledger.sqlite3")]
    server = Served(args, env).wait_ready()
    assert not any("every client shares one token" in line for line in server.log)
    try:
        async with httpx.AsyncClient(timeout=60) as client:
            user = {"id": "u1", "role": "user", "content": BIG}
            start = await post(client, server.url, made["carl"], body([user], "r1"))
            interrupt, messages = asked(events_of(start))
            first = await post(
                client, server.url, made["ann"], body(messages, "r2", approval(interrupt))
            )
            again, messages = asked(events_of(first))
            assert [v["name"] for v in again["metadata"][APPROVALS_KEY]["given"]] == ["ann"]
            forged = await post(
                client, server.url, made["carl"], body(messages, "r3", approval(again, "bob"))
            )
            assert isinstance(forged, httpx.Response)
            assert forged.status_code == 403
            done = await post(
                client, server.url, made["bob"], body(messages, "r4", approval(again))
            )
            assert events_of(done)[-1]["outcome"]["type"] == "success"
    finally:
        server.stop()
    assert runs_in(runs) == [{"tool": "send_money", "amount": 5000.0, "to": "Bob"}]
