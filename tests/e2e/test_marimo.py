"""The widgets in marimo: ``notebooks/quickstart_marimo.py`` clicked through in headless marimo.

Each test serves a notebook with ``marimo run`` (its own kernel per page) and passes
``--journal FILE``: the meeting tool appends a line there each time its body really runs,
so the count is read in this process, from the file.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from chat_page import ChatOnPage
from marimo_process import MarimoApp
from picker_page import PickerOnPage
from playwright.sync_api import Page, expect

from interrupt_widget.examples import read_journal

pytestmark = pytest.mark.e2e

HERE = Path(__file__).parent
QUICKSTART = HERE.parents[1] / "notebooks" / "quickstart_marimo.py"
AWAITING = HERE / "notebooks" / "marimo_await.py"
INBOX = HERE / "notebooks" / "marimo_inbox.py"

Serve = Callable[[Path], tuple[MarimoApp, Path]]


@pytest.fixture
def serve(tmp_path: Path, request: pytest.FixtureRequest) -> Iterator[Serve]:
    """``serve(notebook)`` starts ``marimo run`` on it; returns the app and its journal.

    Ask for it before ``page``, so the page closes before the app stops.
    """
    apps: list[MarimoApp] = []

    def start(notebook: Path) -> tuple[MarimoApp, Path]:
        journal = tmp_path / f"{notebook.stem}.runs.jsonl"
        app = MarimoApp.start(notebook, tmp_path, ["--journal", str(journal)])
        apps.append(app)
        return app, journal

    yield start
    for app in apps:
        if getattr(request.node, "failed_call", False):
            print(app.log())
        app.stop()


def open_chat(page: Page, app: MarimoApp) -> tuple[ChatOnPage, str]:
    """Open the app and return once the chat's picker asks about the meeting."""
    page.goto(app.url)
    chat = ChatOnPage(page.locator("body"))
    # marimo run starts a kernel for the page and runs every cell: a cold start.
    expect(chat.open_card()).to_have_count(1, timeout=90_000)
    interrupt_id = chat.open_card().get_attribute("data-interrupt-id")
    assert interrupt_id
    return chat, interrupt_id


def test_quickstart_in_marimo_pauses_and_resumes_with_the_chosen_time(
    serve: Serve, page: Page
) -> None:
    app, journal = serve(QUICKSTART)
    chat, interrupt_id = open_chat(page, app)

    # The picker on its own answers Python, which reacts through mo.state.
    report = PickerOnPage(page.locator("body"))
    report.button("send-report", "Approve").click()
    expect(page.get_by_text("Answered: send-report resolved {'approved': True}")).to_be_visible()

    # Styled inside marimo's shadow root: the prompt row is laid out, Send and Stop apart.
    prompt_row = chat.root.locator(".iw-chat-prompt")
    assert prompt_row.evaluate("e => getComputedStyle(e).display") == "flex"
    assert prompt_row.evaluate("e => getComputedStyle(e).columnGap") == "6px"
    send = chat.root.locator(".iw-chat-send").bounding_box()
    stop = chat.root.locator(".iw-chat-stop").bounding_box()
    assert send is not None
    assert stop is not None
    assert stop["x"] >= send["x"] + send["width"] + 6

    # The chat paused on the gated call: nothing ran yet.
    expect(chat.status).to_contain_text("Waiting for your answer: schedule_meeting")
    assert read_journal(journal) == []
    chat.picker.field(interrupt_id, "chosen_time").fill("2026-12-03T14:30")
    chat.picker.button(interrupt_id, "Approve").click()

    reply = chat.agent_messages.last
    expect(reply).to_contain_text("Scheduled")
    expect(reply).to_contain_text("Thu, Dec 3, 02:30 PM")
    expect(chat.picker.decision(interrupt_id)).to_contain_text("Approved")
    (ran,) = read_journal(journal)  # the reply quotes the tool's result: it has run
    assert (ran["topic"], ran["attendee"]) == ("Q3 roadmap", "Alice")
    assert ran["answer"]["approved"] is True

    page.get_by_role("button", name="Show what ran").click()
    expect(page.get_by_text("schedule_meeting ran 1 time(s)")).to_be_visible()
    expect(page.get_by_text("approved by view:view-", exact=False)).to_be_visible()
    assert len(read_journal(journal)) == 1


def test_awaiting_a_run_in_a_marimo_cell_says_why_at_once_and_the_run_goes_on(
    serve: Serve, page: Page
) -> None:
    app, journal = serve(AWAITING)
    chat, interrupt_id = open_chat(page, app)
    expect(page.get_by_text("would never finish in marimo").first).to_be_visible()
    expect(page.get_by_text("CannotWaitHere").first).to_be_visible()

    # The refusal cancelled nothing: the picker still answers and the run resumes.
    chat.picker.field(interrupt_id, "chosen_time").fill("2026-12-04T09:00")
    chat.picker.button(interrupt_id, "Approve").click()
    expect(chat.agent_messages.last).to_contain_text("Scheduled")
    assert len(read_journal(journal)) == 1


def test_a_batch_inbox_in_marimo_approves_the_selected_calls(serve: Serve, page: Page) -> None:
    app, journal = serve(INBOX)
    page.goto(app.url)
    inbox = page.locator(".iw-inbox")
    items = inbox.locator(".iw-item")
    expect(items).to_have_count(10, timeout=90_000)
    inbox.get_by_label("Select shown").check()
    inbox.get_by_role("button", name="Approve selected").click()
    expect(items).to_have_count(0)
    expect(inbox.locator(".iw-counts")).to_contain_text("10 done", timeout=30_000)
    assert len(read_journal(journal)) == 10
