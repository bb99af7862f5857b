"""In real JupyterLab a wait for a person never fails as unattended, however long it takes.

With no responder, a cell awaiting an answer raises `UnattendedWait` after 5 s when no front
end holds the widget (nbval, nbconvert). JupyterLab's widget manager creates every widget's
model as its comm opens, displayed or not, and the bundle's `initialize` announces it; so
here a picker may wait three times the limit before its click, and a chat never displayed waits
well past the limit for its answer; both cells end normally.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable

import pytest
from notebook_page import NotebookPage
from picker_page import PickerOnPage
from playwright.sync_api import expect

pytestmark = pytest.mark.e2e

OpenNotebook = Callable[..., NotebookPage]

WAIT = 15.0
"""How long the person takes: three times the 5 s after which nbval's run would fail."""
LIMIT = 5.0
"""`unattended_after`'s default."""
RUNNING = re.compile(r"^\s*\[\*\]:\s*$")
"""A cell's prompt while it runs."""


def _no_unattended_wait(notebook: NotebookPage) -> None:
    expect(notebook.notebook).not_to_contain_text("UnattendedWait")
    expect(notebook.notebook).not_to_contain_text("Nobody can answer")


def test_a_picker_answered_by_a_click_long_past_the_limit_ends_its_cell_normally(
    open_in_lab: OpenNotebook,
) -> None:
    notebook = open_in_lab("unattended_never.ipynb")
    notebook.run_cell(0)
    notebook.start_cell(1)
    picker = PickerOnPage(notebook.output(1))
    expect(picker.card("meeting-1")).to_be_visible()
    kernel = notebook.kernel()
    assert kernel.wait_for("picker._attendance.attached") is True
    began = time.monotonic()

    while time.monotonic() - began < WAIT:
        notebook.page.wait_for_timeout(5_000)  # a person taking their time
        expect(notebook.cell(1).locator(".jp-InputArea-prompt")).to_have_text(RUNNING)
        assert kernel.eval("picker.status") == "waiting"
    _no_unattended_wait(notebook)

    picker.field("meeting-1", "chosen_time").fill("2026-12-03T10:30")
    picker.button("meeting-1", "Approve").click()
    notebook.wait_executed(1)  # fails on any traceback in the notebook
    expect(notebook.output(1)).to_contain_text(re.compile(r"answered after \d+ s: resolved True"))
    said = re.search(r"answered after (\d+) s", notebook.output(1).inner_text())
    assert said is not None
    assert int(said.group(1)) >= WAIT
    _no_unattended_wait(notebook)


def test_a_chat_never_displayed_waits_past_the_limit_for_its_answer(
    open_in_lab: OpenNotebook,
) -> None:
    notebook = open_in_lab("unattended_never.ipynb")
    notebook.run_cell(0)
    notebook.start_cell(2)
    kernel = notebook.kernel()
    kernel.wait_for("'chat' in globals() and chat.status == 'waiting'")
    assert kernel.wait_for("chat._attendance.attached") is True
    notebook.page.wait_for_timeout(LIMIT * 3 * 1000)
    expect(notebook.cell(2).locator(".jp-InputArea-prompt")).to_have_text(RUNNING)
    assert kernel.eval("chat.status") == "waiting"
    assert "no responder is set" not in kernel.eval("chat.status_line")

    kernel.execute("chat.picker.resolve({'approved': False}, by='user')")
    notebook.wait_executed(2)
    expect(notebook.output(2)).to_contain_text("the chat ended: success")
    _no_unattended_wait(notebook)
