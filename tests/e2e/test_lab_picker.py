"""InterruptPicker in JupyterLab, answered with clicks and keys; outcomes checked in the kernel.

The test notebooks stand in for the agent loop with an ``on_submit`` callback that appends
each submission to ``submissions`` and each approved interrupt's id to ``tool_runs``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

import pytest
from notebook_page import NotebookPage
from picker_page import PickerOnPage
from playwright.sync_api import Locator, expect

pytestmark = pytest.mark.e2e

OpenNotebook = Callable[..., NotebookPage]
Screenshot = Callable[[Locator, str], Path]

MEETING_TIME = "2026-12-03T10:30"
"""What a person types into the ``datetime-local`` picker (the page runs in UTC)."""


def test_several_interrupts_submit_together_once_all_are_answered(
    open_in_lab: OpenNotebook, screenshot: Screenshot
) -> None:
    notebook = open_in_lab("picker_several.ipynb")
    notebook.run_all()
    picker = PickerOnPage(notebook.output(1))
    kernel = notebook.kernel()
    expect(picker.status).to_have_text("0 of 3 answered")
    screenshot(picker.root, "picker-open")

    picker.field("meeting-1", "chosen_time").fill(MEETING_TIME)
    picker.button("meeting-1", "Approve").click()
    expect(picker.status).to_have_text("1 of 3 answered")
    assert kernel.wait_for("sorted(picker.answers)", lambda ids: ids == ["meeting-1"])
    assert kernel.eval("len(submissions)") == 0

    picker.button("payment-1", "Deny").click()
    expect(picker.status).to_have_text("2 of 3 answered")
    assert kernel.wait_for("len(picker.answers)", lambda count: count == 2)
    assert kernel.eval("(len(submissions), tool_runs)") == (0, [])

    picker.card("room-1").get_by_label("Borealis").check()
    picker.button("room-1", "Submit").click()

    expect(picker.status).to_have_text("Answers sent.")
    entries = kernel.wait_for(
        "[[e.model_dump(mode='json') for e in s] for s in submissions]", lambda s: len(s) == 1
    )[0]
    assert [(e["interrupt_id"], e["status"]) for e in entries] == [
        ("meeting-1", "resolved"),
        ("payment-1", "resolved"),
        ("room-1", "resolved"),
    ]
    assert entries[1]["payload"] == {"approved": False}
    assert entries[2]["payload"] == {"room": "Borealis"}
    chosen = datetime.fromisoformat(entries[0]["payload"]["chosen_time"])
    assert chosen == datetime(2026, 12, 3, 10, 30, tzinfo=UTC)
    assert kernel.eval("tool_runs") == ["meeting-1"]

    expect(picker.decision("meeting-1")).to_contain_text("Approved")
    expect(picker.decision("meeting-1")).to_contain_text("10:30")
    expect(picker.decision("payment-1")).to_contain_text("Denied")
    expect(picker.decision("room-1")).to_contain_text("Borealis")
    for card in ("meeting-1", "payment-1", "room-1"):
        expect(picker.card(card).get_by_role("button")).to_have_count(0)
    screenshot(picker.root, "picker-answered")


def test_an_answer_out_of_bounds_shows_inline_and_is_not_sent(
    open_in_lab: OpenNotebook, screenshot: Screenshot
) -> None:
    notebook = open_in_lab("picker_several.ipynb")
    notebook.run_all()
    picker = PickerOnPage(notebook.output(1))
    kernel = notebook.kernel()
    amount = picker.field("payment-1", "amount")

    amount.fill("9999")
    picker.button("payment-1", "Approve").click()

    error = picker.field_error("payment-1", "amount")
    expect(error).to_contain_text("500")
    expect(amount).to_have_attribute("aria-invalid", "true")
    expect(amount).to_be_focused()
    expect(picker.card("payment-1")).to_have_attribute("data-phase", "open")
    expect(picker.status).to_have_text("0 of 3 answered")
    screenshot(picker.card("payment-1"), "picker-invalid")
    assert kernel.eval("(dict(picker.answers), len(submissions))") == ({}, 0)

    amount.fill("250")
    picker.button("payment-1", "Approve").click()

    expect(picker.decision("payment-1")).to_contain_text("250")
    expect(error).to_have_text("")
    answer = kernel.wait_for("picker.answers.get('payment-1')", lambda a: a is not None)
    assert answer["payload"] == {"approved": True, "amount": 250}
    assert kernel.eval("len(submissions)") == 0


def test_a_short_deadline_counts_down_and_ends_cancelled(
    open_in_lab: OpenNotebook, screenshot: Screenshot
) -> None:
    notebook = open_in_lab("picker_expiry.ipynb")
    notebook.run_all()
    picker = PickerOnPage(notebook.output(1))
    countdown = picker.card("deploy-1").locator(".iw-countdown")

    expect(countdown).to_have_text(re.compile(r"^Expires in 0:0\d$"))
    first = countdown.inner_text()
    expect(countdown).not_to_have_text(first)  # It ticks.
    screenshot(picker.card("deploy-1"), "picker-countdown")

    expect(picker.decision("deploy-1")).to_contain_text("Expired", timeout=30_000)
    expect(picker.button("deploy-1", "Approve")).to_have_count(0)
    kernel = notebook.kernel()
    entries = kernel.wait_for(
        "[[(e.interrupt_id, e.status) for e in s] for s in submissions]", bool
    )
    assert entries == [[("deploy-1", "cancelled")]]
    assert kernel.eval("tool_runs") == []
    screenshot(picker.card("deploy-1"), "picker-expired")


def test_double_click_on_approve_runs_the_tool_once(open_in_lab: OpenNotebook) -> None:
    notebook = open_in_lab("picker_single.ipynb")
    notebook.run_all()
    first_view, second_view = PickerOnPage(notebook.output(1)), PickerOnPage(notebook.output(2))
    kernel = notebook.kernel()

    first_view.field("meeting-1", "chosen_time").fill(MEETING_TIME)
    first_view.button("meeting-1", "Approve").dblclick()

    for view in (first_view, second_view):
        expect(view.status).to_have_text("Answers sent.")
        expect(view.decision("meeting-1")).to_contain_text("Approved")
    assert kernel.wait_for("len(submissions)", bool) == 1
    assert kernel.eval("tool_runs") == ["meeting-1"]
    # The view that was clicked names itself in the record; the other shows the same answer.
    assert kernel.eval("picker.answers['meeting-1']['by']").startswith("view:view-")
    expect(first_view.decision("meeting-1")).to_contain_text("in this view")
    expect(second_view.decision("meeting-1")).to_contain_text("in another view")


def test_reloading_the_page_shows_the_open_interrupt_still_answerable(
    open_in_lab: OpenNotebook,
) -> None:
    notebook = open_in_lab("picker_single.ipynb")
    notebook.run_all()
    expect(PickerOnPage(notebook.output(1)).card("meeting-1")).to_be_visible()
    notebook.save()

    notebook.reload()

    picker = PickerOnPage(notebook.output(1))
    expect(picker.card("meeting-1")).to_have_attribute("data-phase", "open")
    expect(picker.card("meeting-1").locator(".iw-message")).to_have_text(
        "Book a call about the Q3 roadmap?"
    )
    kernel = notebook.kernel()
    assert kernel.eval("len(submissions)") == 0
    picker.field("meeting-1", "chosen_time").fill(MEETING_TIME)
    picker.button("meeting-1", "Approve").click()

    expect(picker.status).to_have_text("Answers sent.")
    assert kernel.wait_for("len(submissions)", bool) == 1
    assert kernel.eval("tool_runs") == ["meeting-1"]


def test_deny_needs_no_time_and_runs_nothing(open_in_lab: OpenNotebook) -> None:
    notebook = open_in_lab("picker_single.ipynb")
    notebook.run_all()
    picker = PickerOnPage(notebook.output(1))

    picker.button("meeting-1", "Approve").click()
    expect(picker.field_error("meeting-1", "chosen_time")).not_to_have_text("")
    picker.button("meeting-1", "Deny").click()

    expect(picker.decision("meeting-1")).to_contain_text("Denied")
    kernel = notebook.kernel()
    payloads = kernel.wait_for("[[e.payload for e in s] for s in submissions]", bool)
    assert payloads == [[{"approved": False}]]
    assert kernel.eval("tool_runs") == []
