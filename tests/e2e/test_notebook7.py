"""Smoke test in Notebook 7: the same picker notebook, answered with clicks."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from notebook_page import NotebookPage
from picker_page import PickerOnPage
from playwright.sync_api import Locator, Page, expect

pytestmark = pytest.mark.e2e


def test_the_picker_answers_in_notebook7(
    open_in_notebook7: Callable[..., NotebookPage],
    screenshot: Callable[[Locator | Page, str], Path],
) -> None:
    notebook = open_in_notebook7("picker_single.ipynb")
    notebook.run_all()
    picker = PickerOnPage(notebook.output(1))
    kernel = notebook.kernel()

    picker.field("meeting-1", "chosen_time").fill("2026-12-03T16:00")
    picker.button("meeting-1", "Approve").click()

    expect(picker.decision("meeting-1")).to_contain_text("Approved")
    expect(PickerOnPage(notebook.output(2)).decision("meeting-1")).to_contain_text("Approved")
    assert kernel.wait_for("len(submissions)", bool) == 1
    assert kernel.eval("tool_runs") == ["meeting-1"]
    screenshot(notebook.page, "notebook7-answered")
