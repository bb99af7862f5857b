"""The harness itself, proved on the smallest anywidget before any kit widget is involved."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from notebook_page import NotebookPage
from playwright.sync_api import expect

pytestmark = pytest.mark.e2e


def test_clicks_reach_the_kernel_and_the_kernel_reaches_the_page(
    open_in_lab: Callable[..., NotebookPage],
) -> None:
    notebook = open_in_lab("counter.ipynb")
    notebook.run_all()
    button = notebook.output(0).locator("button.e2e-counter")
    expect(button).to_have_text("count is 0")
    kernel = notebook.kernel()
    assert kernel.eval("counter.value") == 0

    button.click()

    expect(button).to_have_text("count is 1")
    assert kernel.wait_for("counter.value", lambda value: value == 1) == 1

    kernel.execute("counter.value = 41")

    expect(button).to_have_text("count is 41")
