"""The kit's JupyterLab extension in a real JupyterLab and Notebook 7, with chromium.

The server's questions API (`interrupt-widget/questions`, `/answer`) is answered by the page's
own routes here, so these tests see the front end alone: the sidebar listing the questions,
the badge on its tab, `?interrupt-widget=<id>` opening it at that question, a notification's
Approve answering through the same request, and the line shown when the server cannot be
reached. The prebuilt extension must be installed in the venv (`make setup` links it).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

import pytest
from jupyter_process import JupyterServer
from playwright.sync_api import Page, Route, expect

from conftest import NOTEBOOK7_OWN_ERROR, PageGuard

pytestmark = pytest.mark.e2e

APPROVE_ONLY = {
    "type": "object",
    "properties": {"approved": {"type": "boolean"}},
    "required": ["approved"],
}


def item(n: int, **extra: Any) -> dict[str, Any]:
    """A question as the server lists it: the inbox's item, where it waits and who asked."""
    found = {
        "id": f"k:{n}",
        "key": f"INV-{n}",
        "tool": "transfer_funds",
        "args": f"amount={120 * n}",
        "interrupt": {
            "id": f"int-{n}",
            "reason": "tool_call",
            "message": f"Run transfer_funds(amount={120 * n})?",
            "responseSchema": APPROVE_ONLY,
            "metadata": {"tool_name": "transfer_funds", "tool_input": {"amount": 120 * n}},
        },
        "since": 1_700_000_000_000 + n,
        "expiresAt": None,
        "error": "",
        "doubt": "",
        "mayAnswer": True,
        "where": {
            "label": "notebooks/pay.ipynb",
            "path": "notebooks/pay.ipynb",
            "cellId": None,
            "state": "running",
            "source": "kernel",
            "note": "",
        },
        "askedBy": "ada",
    }
    return {**found, **extra}


@dataclass
class FakeQuestions:
    """The server's side of the API, on the page's routes: long polls wait for a change."""

    items: list[dict[str, Any]]
    rev: int = 1
    answers: list[Any] = field(default_factory=list)
    waiting: list[Route] = field(default_factory=list)

    def listing(self) -> str:
        return json.dumps(
            {"rev": self.rev, "me": {"name": "ada", "roles": []}, "items": self.items}
        )

    def questions(self, route: Route) -> None:
        if f"rev={self.rev}&" in route.request.url:
            self.waiting.append(route)  # nothing changed: held open, as the server holds it
            return
        route.fulfill(status=200, content_type="application/json", body=self.listing())

    def answer(self, route: Route) -> None:
        body = json.loads(route.request.post_data or "{}")
        self.answers.append(body)
        self.items = [i for i in self.items if i["id"] not in body["ids"]]
        self.rev += 1
        results = [
            {"id": i, "ok": True, "verdict": "approved", "error": "", "errors": []}
            for i in body["ids"]
        ]
        route.fulfill(
            status=200, content_type="application/json", body=json.dumps({"results": results})
        )
        for held in self.waiting:
            held.fulfill(status=200, content_type="application/json", body=self.listing())
        self.waiting.clear()

    def serve(self, page: Page) -> None:
        page.route("**/interrupt-widget/questions*", self.questions)
        page.route("**/interrupt-widget/answer*", self.answer)  # ServerConnection adds ?<time>


def questions() -> FakeQuestions:
    closed = {
        "label": "notebooks/old.ipynb",
        "path": "notebooks/old.ipynb",
        "cellId": None,
        "state": "closed",
        "source": "kernel",
        "note": "its notebook is closed: answering cannot resume its run",
    }
    elsewhere = {
        "label": "temporal pay-42",
        "path": None,
        "cellId": None,
        "state": "remote",
        "source": "temporal",
        "note": "",
    }
    return FakeQuestions(
        [item(1), item(2, where=closed), item(3, mayAnswer=False, where=elsewhere, askedBy=None)]
    )


def test_the_sidebar_lists_the_questions_and_a_notification_approves_one(
    lab_server: JupyterServer, page: Page
) -> None:
    server = questions()
    server.serve(page)
    page.goto(lab_server.url("/lab?interrupt-widget=k:1"))
    panel = page.locator(".iw-lab-panel")
    expect(panel).to_be_visible()
    expect(panel.locator(".iw-item")).to_have_count(3)
    expect(panel.locator(".iw-current .iw-key")).to_have_text("INV-1")  # the link's question
    expect(panel.locator(".iw-card")).to_be_visible()
    expect(page).not_to_have_url(re.compile("interrupt-widget="))
    expect(page.locator(".jp-SideBar [data-iw-count]")).to_have_attribute("data-iw-count", "2")
    closed = "its notebook is closed: answering cannot resume its run"
    expect(panel.locator('[data-id="k:2"] .iw-where')).to_have_text(
        f"notebooks/old.ipynb · {closed} · asked by ada"
    )
    expect(panel.locator('[data-id="k:3"] .iw-where button')).to_have_count(0)  # nothing to open

    toast = page.locator(".Toastify__toast", has_text="(INV-2)").first
    toast.get_by_role("button", name="Approve").click()
    expect(
        page.locator(".Toastify__toast", has_text="transfer_funds (INV-2): approved.")
    ).to_be_visible()
    assert server.answers == [{"ids": ["k:2"], "status": "resolved", "payload": {"approved": True}}]
    expect(panel.locator(".iw-item")).to_have_count(2)
    expect(page.locator(".jp-SideBar [data-iw-count]")).to_have_attribute("data-iw-count", "1")
    # Nobody may approve INV-3 here: it is listed, never announced.
    expect(page.locator(".Toastify__toast", has_text="(INV-3)")).to_have_count(0)


def test_the_sidebar_says_when_the_server_lists_no_questions(
    lab_server: JupyterServer, page: Page, page_guard: PageGuard
) -> None:
    page_guard.tolerated.append(re.compile(r"404 \(Not Found\).*interrupt-widget/questions"))
    page.route("**/interrupt-widget/questions*", lambda route: route.fulfill(status=404, body="{}"))
    page.goto(lab_server.url("/lab?interrupt-widget="))  # no question: the sidebar alone
    problem = page.locator(".iw-lab-problem")
    expect(problem).to_be_visible()
    expect(problem).to_contain_text("is the interrupt_widget.lab extension enabled?")


def test_notebook7_opens_the_sidebar_at_the_linked_question(
    notebook_server: JupyterServer, page: Page, page_guard: PageGuard
) -> None:
    page_guard.tolerated.append(NOTEBOOK7_OWN_ERROR)
    notebook = {"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    notebook["metadata"] = {"kernelspec": {"name": "python3", "display_name": "Python 3"}}
    (notebook_server.root_dir / "sidebar.ipynb").write_text(json.dumps(notebook))
    questions().serve(page)
    page.goto(notebook_server.url("/notebooks/sidebar.ipynb?interrupt-widget=k:2"))
    panel = page.locator(".iw-lab-panel")
    expect(panel).to_be_visible()
    expect(panel.locator(".iw-current .iw-key")).to_have_text("INV-2")
    expect(panel.locator(".iw-card")).to_be_visible()
