"""AgentChat in JupyterLab: a person types a request, answers the picker, reads the reply.

``chat_meeting.ipynb`` shows a chat with the quickstart's scheduler (offline model);
``agent.executions`` in the kernel logs every run of the gated tool's body.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import pytest
from chat_page import ChatOnPage
from chromium import VIEWPORT
from notebook_page import NotebookPage
from picker_page import PickerOnPage
from playwright.sync_api import Browser, Locator, WebSocketRoute, expect

from conftest import PageGuard

pytestmark = pytest.mark.e2e

QUICKSTART = Path(__file__).resolve().parents[2] / "notebooks" / "01_quickstart.ipynb"

OpenNotebook = Callable[..., NotebookPage]
Screenshot = Callable[[Locator, str], Path]


def open_interrupt(chat: ChatOnPage) -> str:
    """The id of the interrupt the chat's picker shows, once it shows one."""
    expect(chat.open_card()).to_have_count(1)
    interrupt_id = chat.open_card().get_attribute("data-interrupt-id")
    assert interrupt_id
    return interrupt_id


def run_quickstart(open_in_lab: OpenNotebook) -> tuple[NotebookPage, ChatOnPage, str]:
    """Open the quickstart, Run All, and return once its picker asks about the meeting."""
    notebook = open_in_lab(QUICKSTART)
    notebook.run_all(wait=False)
    chat = ChatOnPage(notebook.notebook.locator(".jp-OutputArea:has(.iw-chat)"))
    interrupt_id = open_interrupt(chat)
    # `await run` holds the kernel's main shell until the answer: the cell is still running.
    expect(notebook.code_cell("await run").locator(".jp-InputArea-prompt")).to_have_text(
        re.compile(r"\[\*\]")
    )
    return notebook, chat, interrupt_id


def test_quickstart_approve_with_a_time_schedules_the_meeting_once(
    open_in_lab: OpenNotebook, screenshot: Screenshot
) -> None:
    notebook, chat, interrupt_id = run_quickstart(open_in_lab)
    kernel = notebook.kernel()
    expect(chat.status).to_contain_text("schedule_meeting")
    chat.picker.button(interrupt_id, "Another time…").click()  # past the suggested slots
    label_field = chat.picker.field(interrupt_id, "chosen_label")
    expect(label_field).not_to_have_attribute("aria-required", "true")
    chat.picker.field(interrupt_id, "chosen_time").fill("2026-12-03T14:30")
    chat.picker.button(interrupt_id, "Approve").scroll_into_view_if_needed()
    screenshot(chat.root, "chat-waiting")
    assert kernel.eval("agent.executions.count()") == 0

    chat.picker.button(interrupt_id, "Approve").click()

    reply = chat.agent_messages.last
    expect(reply).to_contain_text("Scheduled")
    expect(reply).to_contain_text("Thu, Dec 3, 02:30 PM")
    expect(chat.picker.decision(interrupt_id)).to_contain_text("Approved")
    screenshot(chat.root, "chat-scheduled")
    notebook.wait_executed_containing("agent.executions.count")
    result = notebook.code_cell("await run").locator(".jp-OutputArea")
    expect(result).to_contain_text("success")
    expect(result).to_contain_text("Thu, Dec 3, 02:30 PM")
    expect(notebook.code_cell("agent.executions.count").locator(".jp-OutputArea")).to_contain_text(
        "schedule_meeting ran 1 time(s)"
    )
    assert kernel.eval("agent.executions.count('schedule_meeting')") == 1
    call = kernel.eval(
        "(lambda c: (c.arguments, c.payload['approved'], c.payload['chosen_time']))"
        "(agent.executions.calls[0])"
    )
    assert call[:2] == ({"topic": "Q3 roadmap", "attendee": "Alice"}, True)
    assert datetime.fromisoformat(call[2]) == datetime(2026, 12, 3, 14, 30, tzinfo=UTC)


def test_quickstart_one_click_on_a_suggested_slot_schedules_the_meeting_then_once(
    open_in_lab: OpenNotebook, screenshot: Screenshot
) -> None:
    notebook, chat, interrupt_id = run_quickstart(open_in_lab)
    kernel = notebook.kernel()
    slots = chat.picker.card(interrupt_id).get_by_role("group", name="Suggested meeting times")
    expect(slots.get_by_role("button")).to_have_count(6)
    expect(chat.picker.field(interrupt_id, "chosen_time")).to_be_hidden()
    screenshot(chat.root, "chat-slots")
    slot = slots.get_by_role("button").first
    label = slot.inner_text()

    slot.click()

    expect(chat.agent_messages.last).to_contain_text("Scheduled")
    expect(chat.picker.decision(interrupt_id)).to_contain_text("Approved")
    notebook.wait_executed_containing("agent.executions.count")
    assert kernel.eval("agent.executions.count('schedule_meeting')") == 1
    payload = kernel.eval("agent.executions.calls[0].payload")
    assert payload["approved"] is True
    assert payload["chosen_label"] == label
    chosen = datetime.fromisoformat(payload["chosen_time"])
    # The first slot: the next weekday at 10:00 in the browser's zone (the kernel's here).
    assert (chosen.hour, chosen.minute, chosen.weekday() < 5) == (10, 0, True)
    assert chosen > datetime.now(UTC)


def test_quickstart_cancel_schedules_nothing(open_in_lab: OpenNotebook) -> None:
    notebook, chat, interrupt_id = run_quickstart(open_in_lab)

    chat.picker.button(interrupt_id, "Cancel").click()

    expect(chat.agent_messages.last).to_contain_text("not scheduled")
    notebook.wait_executed_containing("agent.executions.count")
    expect(notebook.code_cell("await run").locator(".jp-OutputArea")).to_contain_text(
        "not scheduled"
    )
    expect(notebook.code_cell("agent.executions.count").locator(".jp-OutputArea")).to_contain_text(
        "schedule_meeting ran 0 time(s)"
    )
    assert notebook.kernel().eval("agent.executions.count()") == 0


def test_a_typed_request_denied_with_a_reason_is_not_scheduled(open_in_lab: OpenNotebook) -> None:
    notebook = open_in_lab("chat_meeting.ipynb")
    notebook.run_all()
    chat = ChatOnPage(notebook.output(0))

    chat.say("Book a call about hiring with Linus")
    interrupt_id = open_interrupt(chat)
    reason = "Linus is away <b>all week</b>"
    chat.picker.field(interrupt_id, "reason").fill(reason)
    chat.picker.button(interrupt_id, "Deny").click()

    expect(chat.agent_messages.last).to_contain_text("not scheduled")
    expect(chat.agent_messages.last).to_contain_text(f"You said: {reason}")
    expect(chat.agent_messages.last).not_to_contain_text(re.compile(r"\bScheduled\b"))
    expect(chat.picker.decision(interrupt_id)).to_contain_text(f"Reason: {reason}")
    kernel = notebook.kernel()
    kernel.wait_for("chat.status", lambda status: status == "done")
    assert kernel.eval("agent.executions.count()") == 0
    assert kernel.eval("[d.verdict for d in chat.decisions]") == ["denied"]
    assert kernel.eval("chat.decisions[0].payload") == {"approved": False, "reason": reason}


# No full stops: the offline agent ends a topic or an attendee at the first one.
SCRIPT = "<script>window['__pwned'] = 'script'</script>"
IMG = "<img src=x onerror=\"window['__pwned'] = 'img'\">"


def test_hostile_agent_text_shows_as_text(
    open_in_lab: OpenNotebook, screenshot: Screenshot
) -> None:
    notebook = open_in_lab("chat_meeting.ipynb")
    notebook.run_all()
    chat = ChatOnPage(notebook.output(0))
    kernel = notebook.kernel()

    # The offline agent copies the topic and the attendee into the tool call verbatim, the
    # interrupt message names them, and its reply quotes the tool's result.
    chat.say(f"Book a call about {IMG} with {SCRIPT}")
    interrupt_id = open_interrupt(chat)
    expect(chat.tool_calls.last.locator(".iw-chat-args")).to_contain_text(IMG.replace('"', '\\"'))
    expect(chat.picker.card(interrupt_id).locator(".iw-message")).to_contain_text(SCRIPT)
    chat.picker.field(interrupt_id, "chosen_time").fill("2026-12-04T09:00")
    chat.picker.button(interrupt_id, "Approve").click()

    reply = chat.agent_messages.last
    expect(reply).to_contain_text(IMG)
    expect(reply).to_contain_text(SCRIPT)
    expect(chat.root.locator("script, img, svg, a, iframe, object")).to_have_count(0)
    screenshot(chat.root, "chat-hostile")
    assert kernel.wait_for("agent.executions.count()", bool) == 1
    assert kernel.eval("agent.executions.calls[0].arguments") == {
        "topic": IMG,
        "attendee": SCRIPT,
    }
    assert notebook.page.evaluate("() => window.__pwned") is None


class DelayedDelivery:
    """Forwards a page's kernel websockets, holding what the server sends while asked to."""

    def __init__(self) -> None:
        self._holding = False
        self._held: list[tuple[WebSocketRoute, str | bytes]] = []

    def route(self, ws: WebSocketRoute) -> None:
        server = ws.connect_to_server()
        server.on_message(lambda message: self._deliver(ws, message))

    def _deliver(self, ws: WebSocketRoute, message: str | bytes) -> None:
        if self._holding:
            self._held.append((ws, message))
        else:
            ws.send(message)

    def hold(self) -> None:
        self._holding = True

    def release(self) -> None:
        """Deliver what was held, in order, and stop holding."""
        self._holding = False
        held, self._held = self._held, []
        for ws, message in held:
            ws.send(message)


def test_two_pages_answer_one_waiting_chat_at_once_one_wins_and_the_other_is_told(
    open_in_lab: OpenNotebook, browser: Browser, page_guard: PageGuard
) -> None:
    notebook = open_in_lab("chat_meeting.ipynb")
    notebook.run_all()
    first = ChatOnPage(notebook.output(0))
    first.say("Book a call with Alice about the Q3 roadmap")
    interrupt_id = open_interrupt(first)
    notebook.save()  # the second page finds the chat's output, and the kernel its models

    context = browser.new_context(viewport=VIEWPORT)
    try:
        other_page = context.new_page()
        other_page.on("console", page_guard.on_console)
        other_page.on("pageerror", page_guard.on_page_error)
        # The second page's kernel traffic passes through here, so the test can make it
        # answer before it hears of the first page's answer: a race decided on purpose.
        deaf = DelayedDelivery()
        other_page.route_web_socket(re.compile(r"/api/kernels/"), deaf.route)
        other = NotebookPage(other_page, notebook.server, notebook.path).open()
        second = ChatOnPage(other.output(0))
        expect(second.open_card()).to_have_count(1)
        first.picker.field(interrupt_id, "chosen_time").fill("2026-12-03T14:30")

        deaf.hold()
        first.picker.button(interrupt_id, "Approve").click()
        expect(first.picker.decision(interrupt_id)).to_contain_text("Approved")
        second.picker.button(interrupt_id, "Deny").click()  # it has not heard yet
        expect(second.picker.card(interrupt_id)).to_have_attribute("data-phase", "pending")
        deaf.release()

        kernel = notebook.kernel()
        kernel.wait_for("chat.status", lambda status: status == "done")
        decided = [first.picker.decision(interrupt_id), second.picker.decision(interrupt_id)]
        assert kernel.eval("[d.verdict for d in chat.decisions]") == ["approved"]
        shown = "Approved"
        for decision in decided:
            expect(decision).to_contain_text(shown)
        expect(decided[1]).to_contain_text(f"Answered elsewhere: {shown}")
        expect(decided[1]).to_contain_text("in another view")
        expect(decided[0]).not_to_contain_text("Answered elsewhere")
        expect(decided[0]).to_contain_text("in this view")
        (by,) = kernel.eval("[d.by for d in chat.decisions]")
        assert by.startswith("view:view-")
        assert kernel.eval("agent.executions.count()") == 1
    finally:
        context.close()


def test_the_chats_picker_shown_on_its_own_loads_the_chats_module_and_answers(
    open_in_lab: OpenNotebook,
) -> None:
    # The chat's picker carries a few lines in place of the bundle (the chat draws it with
    # its own copy); shown apart from the chat, those lines import the chat's module.
    notebook = open_in_lab("chat_picker_alone.ipynb")
    notebook.run_all()
    chat = ChatOnPage(notebook.output(0))
    interrupt_id = open_interrupt(chat)
    alone = PickerOnPage(notebook.output(2))
    expect(alone.card(interrupt_id)).to_have_count(1)
    alone.button(interrupt_id, "Deny").click()
    expect(chat.picker.decision(interrupt_id)).to_contain_text("Denied")
    expect(chat.agent_messages.last).to_contain_text("not scheduled")
    kernel = notebook.kernel()
    kernel.wait_for("chat.status", lambda status: status == "done")
    assert kernel.eval("len(chat.picker._esm) < 1000") is True
    assert kernel.eval("agent.executions.count()") == 0
