"""Two people, each signed in to a Jupyter server of their own (as JupyterHub gives them), the
two servers sharing one question board in a real PostgreSQL: a call that needs two approvals
runs once, in the kernel that asked, after both; the same person twice counts once; a
request naming the other person is refused. Runs are counted from the tool's own file."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from board_votes import asks_two_approvals, once_voted
from jupyter_process import JupyterServer
from server_kernel import ServerKernel

from postgres_server import binaries, fresh_database, running_postgres

TESTS = Path(__file__).parent.parent

pytestmark = pytest.mark.skipif(binaries() is None, reason="PostgreSQL is not installed")


@pytest.fixture(scope="module")
def board() -> Iterator[str]:
    with running_postgres() as url:
        yield fresh_database(url)


def start(base: Path, board: str, names: dict[str, str]) -> JupyterServer:
    config = {
        "ServerApp": {
            "jpserver_extensions": {"interrupt_widget.lab": True},
            "identity_provider_class": "named_users.NamedTokens",
        },
        "NamedTokens": {"names": names},
        "InterruptWidget": {"board": board, "answer_timeout": 15},
    }
    return JupyterServer.start(
        kind="lab", base=base, config=config, extra_env={"PYTHONPATH": f"{TESTS / 'e2e'}:{TESTS}"}
    )


@pytest.fixture(scope="module")
def servers(
    board: str, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[JupyterServer, JupyterServer]]:
    ann = start(tmp_path_factory.mktemp("ann"), board, {"tok-ann": "ann"})
    try:
        bob = start(tmp_path_factory.mktemp("bob"), board, {"tok-bob": "bob"})
    except BaseException:
        ann.stop()
        raise
    yield ann, bob
    bob.stop()
    ann.stop()


def call(server: JupyterServer, token: str, path: str, body: Any = None) -> httpx.Response:
    url = f"http://127.0.0.1:{server.port}/interrupt-widget/{path}"
    headers = {"Authorization": f"token {token}"}
    if body is None:
        return httpx.get(url, headers=headers, timeout=30)
    return httpx.post(url, headers=headers, json=body, timeout=30)


def listed(server: JupyterServer, token: str, given: list[str]) -> dict[str, Any]:
    """The one question once its approvals so far are `given` (polling the other server)."""
    return once_voted(lambda: call(server, token, "questions").json()["items"], given)


def approve(server: JupyterServer, token: str, question: str) -> dict[str, Any]:
    body = {"ids": [question], "status": "resolved", "payload": {"approved": True}}
    result: dict[str, Any] = call(server, token, "answer", body).json()["results"][0]
    return result


def test_two_people_on_two_servers_approve_one_call_and_it_runs_once(
    servers: tuple[JupyterServer, JupyterServer], tmp_path: Path
) -> None:
    ann_server, bob_server = servers
    runs = tmp_path / "runs.jsonl"
    kernel = ServerKernel(ann_server, "pay.ipynb")
    try:
        kernel.run(asks_two_approvals(runs))
        first = listed(bob_server, "tok-bob", [])
        assert first["where"]["state"] == "remote"  # bob's server runs no such kernel
        assert first["where"]["path"] is None
        assert first["mayAnswer"] is True

        assert approve(ann_server, "tok-ann", first["id"])["ok"]
        second = listed(bob_server, "tok-bob", ["ann"])
        again = approve(ann_server, "tok-ann", second["id"])
        assert not again["ok"]
        assert "ann already approved" in again["error"]
        assert not runs.exists()

        forged = call(
            bob_server,
            "tok-bob",
            "answer",
            {"ids": [second["id"]], "status": "resolved", "payload": {"approved": True},
             "identity": {"name": "ann"}},
        )  # fmt: skip
        assert forged.status_code == 403
        assert forged.json()["error"]["code"] == "identity_mismatch"

        done = approve(bob_server, "tok-bob", second["id"])
        assert (done["ok"], done["verdict"]) == (True, "approved"), done
        kernel.run("import asyncio\nawait asyncio.wait_for(handle, 30)")
        assert kernel.eval("chat.decisions[-1].approvers") == ["ann", "bob"]
    finally:
        kernel.close()
    assert [json.loads(line)["to"] for line in runs.read_text().splitlines()] == ["Bob"]
