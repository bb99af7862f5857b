"""Three people on a real JupyterHub (its dummy authenticator, its local process spawner,
configurable-http-proxy), each with their own server, the servers sharing one question board in
a real PostgreSQL. Who answers is who the hub signed in, never a name the client sends: Ann's
run asks for two approvals and she may not give one; Carol approves through her server's API
with her own hub token, Bob signs in on the hub's login page and approves in his sidebar; the
call runs once, in Ann's kernel, after both. Runs are counted from the tool's own file."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from board_votes import asks_two_approvals, once_voted
from hub_process import PASSWORD, HubUser, JupyterHub
from playwright.sync_api import Locator, Page, expect
from server_kernel import ServerKernel

from postgres_server import binaries, fresh_database, running_postgres

pytestmark = pytest.mark.skipif(binaries() is None, reason="PostgreSQL is not installed")


@pytest.fixture(scope="module")
def hub(tmp_path_factory: pytest.TempPathFactory) -> Iterator[JupyterHub]:
    with running_postgres() as url:
        board = fresh_database(url)
        kit = {"board": board, "answer_timeout": 15}
        started = JupyterHub.start(tmp_path_factory.mktemp("hub"), ["ann", "bob", "carol"], kit)
        yield started
        started.stop()


def listed(person: HubUser, given: list[str]) -> dict[str, Any]:
    """The one question once its approvals so far are `given` (read from `person`'s server)."""
    return once_voted(lambda: person.kit("questions").json()["items"], given)


def approve(person: HubUser, question: str, **extra: Any) -> Any:
    body = {"ids": [question], "status": "resolved", "payload": {"approved": True}, **extra}
    return person.kit("answer", body)


def sign_in(page: Page, hub: JupyterHub, name: str) -> None:
    """As a person does: the hub's login page, then their own JupyterLab."""
    page.goto(f"{hub.url}hub/login")
    page.locator("#username_input").fill(name)
    page.locator("#password_input").fill(PASSWORD)
    page.locator("#login_submit").click()
    page.wait_for_url(f"**/user/{name}/lab**", timeout=60_000)
    expect(page.locator(".jp-LabShell")).to_be_visible(timeout=60_000)


def test_on_a_hub_the_starter_may_not_approve_and_two_others_run_the_call_once(
    hub: JupyterHub, page: Page, tmp_path: Path, screenshot: Callable[[Locator | Page, str], Path]
) -> None:
    ann, bob, carol = hub.users["ann"], hub.users["bob"], hub.users["carol"]
    runs = tmp_path / "runs.jsonl"
    kernel = ServerKernel(ann, "pay.ipynb")
    try:
        kernel.run(asks_two_approvals(runs))
        first = listed(bob, [])
        assert first["where"]["state"] == "remote"  # Bob's server runs no such kernel
        assert first["mayAnswer"] is True

        # The hub signed Ann in where the run started: she may not approve her own call.
        own = approve(ann, first["id"]).json()["results"][0]
        assert not own["ok"]
        assert "ann started this run and may not approve its own calls" in own["error"]

        # Carol approves with her hub token; the same person again counts once.
        said = approve(carol, first["id"]).json()["results"][0]
        assert said["ok"], said
        second = listed(bob, ["carol"])
        again = approve(carol, second["id"]).json()["results"][0]
        assert not again["ok"]
        assert "carol already approved" in again["error"]

        # Bob's token naming Carol is refused: the name is the hub's, not the client's.
        forged = approve(bob, second["id"], identity={"name": "carol"})
        assert forged.status_code == 403
        assert forged.json()["error"]["code"] == "identity_mismatch"
        assert not runs.exists()

        # Bob signs in on the hub's login page and approves in his sidebar.
        sign_in(page, hub, "bob")
        page.locator('.jp-SideBar .lm-TabBar-tab[title^="Questions waiting"]').click()
        panel = page.locator(".iw-lab-panel")
        row = panel.locator(".iw-item", has_text="send_money")
        expect(row).to_contain_text("1 of 2 approvals")
        row.get_by_role("button", name="Open").click()
        expect(panel.locator(".iw-card")).to_contain_text("1 of 2 approvals: carol approved")
        screenshot(page, "hub-sidebar")
        panel.locator(".iw-card").get_by_role("button", name="Approve").click()
        expect(panel.locator(".iw-item", has_text="send_money")).to_have_count(0, timeout=30_000)

        kernel.run("import asyncio\nawait asyncio.wait_for(handle, 30)")
        assert kernel.eval("chat.decisions[-1].approvers") == ["carol", "bob"]
    finally:
        kernel.close()
    assert [json.loads(line)["to"] for line in runs.read_text().splitlines()] == ["Bob"]
