"""The sidebar's routes on a real Jupyter server with the kit's extension, over HTTP: a
kernel's question is listed within a second, a forged name, a malformed body, an unknown
question and a bad answer are refused with nothing run, and a good answer runs the call
once, as the signed-in person (the tool's own file counts the runs).

Two people sign in with tokens of their own (`named_users.NamedTokens`), as JupyterHub's
users do; the kernel is a real one the server started for a notebook path.
"""

from __future__ import annotations

import json
import os
import re
import signal
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from jupyter_process import JupyterServer
from server_kernel import ServerKernel

from interrupt_widget.widgets._bundle import STATIC
from payment_agents import runs_in

TESTS = Path(__file__).parent.parent
TOKENS = {"tok-ann": "ann", "tok-bob": "bob"}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[JupyterServer]:
    config = {
        "ServerApp": {
            "jpserver_extensions": {"interrupt_widget.lab": True},
            "identity_provider_class": "named_users.NamedTokens",
        },
        "NamedTokens": {"names": TOKENS},
        "InterruptWidget": {"answer_timeout": 10, "roles": {"bob": ["cfo"]}},
    }
    started = JupyterServer.start(
        kind="lab",
        base=tmp_path_factory.mktemp("questions"),
        config=config,
        extra_env={"PYTHONPATH": f"{TESTS / 'e2e'}:{TESTS}"},
    )
    yield started
    started.stop()


def call(server: JupyterServer, token: str, method: str, path: str, **kw: Any) -> httpx.Response:
    url = f"http://127.0.0.1:{server.port}/interrupt-widget/{path}"
    headers = {"Authorization": f"token {token}", **kw.pop("headers", {})}
    return httpx.request(method, url, headers=headers, timeout=30, **kw)


def waiting_items(server: JupyterServer, token: str, count: int, timeout: float = 20) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        listing = call(server, token, "GET", "questions").json()
        if len(listing["items"]) == count or time.monotonic() > deadline:
            return listing
        time.sleep(0.05)  # polling another process's board: there is no event to await here


def test_a_kernels_question_is_listed_and_answered_once_by_the_signed_in_person(
    server: JupyterServer, tmp_path: Path
) -> None:
    runs = tmp_path / "runs.jsonl"
    empty = call(server, "tok-ann", "GET", "questions").json()
    assert (empty["me"], empty["items"]) == ({"name": "ann", "roles": []}, [])
    assert call(server, "tok-bob", "GET", "questions").json()["me"] == {
        "name": "bob",
        "roles": ["cfo"],
    }
    kernel = ServerKernel(server, "pay.ipynb")
    kernel.run(
        "import pathlib\nfrom interrupt_widget import AgentChat\n"
        "from payment_agents import payment_agent\n"
        f"chat = AgentChat(payment_agent(pathlib.Path({str(runs)!r})))\n"
        "handle = chat.send('send_money amount=5000 to=Bob')"
    )
    asked = time.monotonic()
    listing = waiting_items(server, "tok-ann", 1)
    listed_after = time.monotonic() - asked
    [item] = listing["items"]
    assert listed_after < 5, listed_after  # the bench measures it; this only guards a hang
    assert (item["tool"], item["where"]["path"], item["where"]["state"]) == (
        "send_money",
        "pay.ipynb",
        "running",
    )
    question = item["id"]

    approve = {"ids": [question], "status": "resolved", "payload": {"approved": True}}
    forged = call(server, "tok-ann", "POST", "answer", json={**approve, "identity": "bob"})
    assert forged.status_code == 403
    assert forged.json()["error"]["code"] == "identity_mismatch"
    as_bob = call(
        server, "tok-ann", "POST", "answer",
        json={"ids": [question], "status": "resolved", "payload": {"approved": True}, "by": "bob"},
    )  # fmt: skip
    assert as_bob.status_code == 403

    bad = call(
        server, "tok-ann", "POST", "answer",
        json={"ids": [question], "status": "resolved", "payload": {"approved": "yes"}},
    ).json()["results"][0]  # fmt: skip
    assert not bad["ok"]
    assert bad["errors"][0]["path"] == "/approved"
    assert not runs.exists()

    good = call(
        server, "tok-ann", "POST", "answer",
        json={"ids": [question], "status": "resolved", "payload": {"approved": True}},
    ).json()["results"][0]  # fmt: skip
    assert (good["ok"], good["verdict"]) == (True, "approved"), good
    kernel.run("import asyncio\nresult = await asyncio.wait_for(handle, 30)")
    kernel.run(
        "d = chat.decisions[-1]\n"
        "assert (d.verdict, d.identity, d.by) == ('approved', 'ann', 'sidebar:ann'), d"
    )
    assert [json.loads(line)["amount"] for line in runs.read_text().splitlines()] == [5000.0]
    assert waiting_items(server, "tok-ann", 0)["items"] == []
    late = call(
        server, "tok-bob", "POST", "answer",
        json={"ids": [question], "status": "resolved", "payload": {"approved": True}},
    ).json()["results"][0]  # fmt: skip
    assert not late["ok"]
    assert "unknown question" in late["error"]
    assert len(runs.read_text().splitlines()) == 1


@pytest.mark.parametrize(
    ("body", "code"),
    [
        (b"{not json", "malformed_json"),
        (b"[]", "invalid_input"),
        (b'{"ids": [], "status": "resolved"}', "invalid_input"),
        (b'{"ids": ["a"], "status": "approve"}', "invalid_input"),
        (b'{"ids": ["a", "a"], "status": "cancelled"}', "invalid_input"),
        (b'{"ids": [7], "status": "cancelled"}', "invalid_input"),
        (b'{"ids": ["a"], "status": "cancelled", "sneaky": 1}', "invalid_input"),
        (
            b'{"ids": ["a"], "status": "cancelled", "identity": {"name": "bob"}}',
            "identity_mismatch",
        ),
    ],
)
def test_a_malformed_answer_is_refused_with_a_code(
    server: JupyterServer, body: bytes, code: str
) -> None:
    response = call(
        server,
        "tok-ann",
        "POST",
        "answer",
        content=body,
        headers={"Content-Type": "application/json"},
    )
    assert response.status_code in (400, 403)
    assert response.json()["error"]["code"] == code


def test_an_unknown_question_and_a_bad_settle_are_refused(server: JupyterServer) -> None:
    unknown = call(
        server, "tok-ann", "POST", "answer", json={"ids": ["k/x/y"], "status": "cancelled"}
    ).json()["results"][0]
    assert not unknown["ok"]
    assert "unknown question 'k/x/y'" in unknown["error"]
    settle = call(server, "tok-ann", "POST", "settle", json={"id": "k/x/y", "ran": "yes"})
    assert settle.status_code == 400
    bad_rev = call(server, "tok-ann", "GET", "questions", params={"rev": "x", "wait": "1"})
    assert bad_rev.status_code == 400


def test_no_route_answers_anyone_who_is_not_signed_in(server: JupyterServer) -> None:
    anonymous = httpx.get(f"http://127.0.0.1:{server.port}/interrupt-widget/questions", timeout=10)
    assert anonymous.status_code in (401, 403)
    answer = httpx.post(
        f"http://127.0.0.1:{server.port}/interrupt-widget/answer",
        json={"ids": ["a"], "status": "cancelled"},
        timeout=10,
    )
    assert answer.status_code in (401, 403)


def test_a_long_poll_answers_when_the_board_changes_or_says_unchanged(
    server: JupyterServer,
) -> None:
    rev = call(server, "tok-ann", "GET", "questions").json()["rev"]
    started = time.monotonic()
    same = call(server, "tok-ann", "GET", "questions", params={"rev": rev, "wait": "0.5"}).json()
    assert same == {"rev": rev, "unchanged": True}
    assert time.monotonic() - started >= 0.5


def test_a_kernel_shut_down_or_killed_takes_its_question_off_the_list(
    server: JupyterServer, tmp_path: Path
) -> None:
    ask = (
        "import pathlib\nfrom interrupt_widget import AgentChat\n"
        "from payment_agents import payment_agent\n"
        f"chat = AgentChat(payment_agent(pathlib.Path({str(tmp_path / 'runs.jsonl')!r})))\n"
        "handle = chat.send('send_money amount=5000 to=Bob')"
    )
    leaving = ServerKernel(server, "leaving.ipynb")
    leaving.run(ask)
    assert len(waiting_items(server, "tok-ann", 1)["items"]) == 1
    leaving.close()
    server.api("DELETE", f"/api/kernels/{leaving.id}")  # a clean shutdown, as the menu does
    assert waiting_items(server, "tok-ann", 0)["items"] == []

    # Killed: it cannot take its question off, and the server restarts it under the same id
    # with none of its runs; the server takes the question off, or an answer would be lost.
    killed = ServerKernel(server, "killed.ipynb")
    killed.run(ask)
    assert len(waiting_items(server, "tok-ann", 1)["items"]) == 1
    pid = killed.eval("__import__('os').getpid()")
    killed.close()
    os.kill(pid, signal.SIGKILL)
    assert waiting_items(server, "tok-ann", 0, timeout=30)["items"] == []
    assert killed.id in [k["id"] for k in server.api("GET", "/api/kernels")]  # restarted
    assert not runs_in(tmp_path / "runs.jsonl")
    server.api("DELETE", f"/api/kernels/{killed.id}")


def test_the_server_serves_the_widgets_code_which_its_kernels_widgets_load_from_it(
    server: JupyterServer,
) -> None:
    kernel = ServerKernel(server, "served.ipynb")
    try:
        kernel.run("from interrupt_widget import Inbox\nesm = Inbox()._esm")
        module = kernel.eval("esm")
    finally:
        kernel.close()
    [path] = re.findall(r'"(interrupt-widget/static/inbox\.js\?v=[0-9a-f]+)"', module)
    bundle = httpx.get(f"http://127.0.0.1:{server.port}/{path}", timeout=30)  # no token: public
    assert bundle.status_code == 200
    assert bundle.text == (STATIC / "inbox.js").read_text(encoding="utf-8")
    assert "max-age" in bundle.headers["Cache-Control"]  # the digest in the URL names it
    for outside in ("../__init__.py", "..%2F__init__.py", "%2E%2E/lab/board.py", "nope.js"):
        url = f"http://127.0.0.1:{server.port}/interrupt-widget/static/{outside}"
        assert httpx.get(url, timeout=30).status_code in (403, 404), outside


def test_a_server_told_not_to_serve_the_widgets_code_lets_its_kernels_carry_it(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    # For front ends that open this server's kernels from elsewhere (VS Code), which could not
    # reach the served code: the widgets carry the bundle as they do outside a server.
    config = {"InterruptWidget": {"serve_widget_code": False}}
    started = JupyterServer.start(kind="lab", base=tmp_path_factory.mktemp("code"), config=config)
    try:
        kernel = ServerKernel(started, "carried.ipynb")
        try:
            kernel.run(
                "from interrupt_widget import Inbox\n"
                "from interrupt_widget.widgets._bundle import INBOX_ESM\n"
                "carried = Inbox()._esm == INBOX_ESM.read_text(encoding='utf-8')"
            )
            carried = kernel.eval("carried")
        finally:
            kernel.close()
    finally:
        started.stop()
    assert carried is True
