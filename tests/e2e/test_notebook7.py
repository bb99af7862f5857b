"""Notebook 7: the same picker notebook, answered with clicks; its top bar's count of the
questions waiting, which opens the sidebar."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from jupyter_process import JupyterServer
from notebook_page import NotebookPage
from picker_page import PickerOnPage
from playwright.sync_api import Locator, Page, expect
from server_kernel import ServerKernel

from conftest import NOTEBOOK7_OWN_ERROR, PageGuard

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


ASK = """
import pathlib, tempfile
from interrupt_widget import AgentChat
from interrupt_widget.examples import bank_agent, read_journal
journal = pathlib.Path(tempfile.mkdtemp()) / "transfers.jsonl"
chat = AgentChat(bank_agent(journal=journal))
run = chat.send("transfer_funds amount=70 to_account=NB7-1 memo=rent")
"""


def test_notebook7s_top_bar_counts_the_questions_and_opens_the_sidebar(
    notebook_server: JupyterServer,
    page: Page,
    page_guard: PageGuard,
    screenshot: Callable[[Locator | Page, str], Path],
) -> None:
    """Notebook 7's side panels have no tab bar for the sidebar's badge: its top bar carries the
    count, and a click there opens the sidebar, where the question is answered once."""
    page_guard.tolerated.append(NOTEBOOK7_OWN_ERROR)
    notebook = {"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    notebook["metadata"] = {"kernelspec": {"name": "python3", "display_name": "Python 3"}}
    (notebook_server.root_dir / "count.ipynb").write_text(json.dumps(notebook))
    kernel = ServerKernel(notebook_server, None)
    try:
        page.goto(notebook_server.url("/notebooks/count.ipynb"))
        expect(page.locator(".jp-NotebookPanel")).to_be_visible()
        kernel.run(ASK)
        indicator = page.locator(".iw-lab-indicator")
        expect(indicator).to_have_text(re.compile(r"^\d+ questions? waiting for you$"))
        expect(indicator).to_be_visible()
        screenshot(page, "notebook7-top-bar")
        indicator.click()
        panel = page.locator(".iw-lab-panel")
        row = panel.locator(".iw-item", has_text="NB7-1")
        row.get_by_role("button", name="Open").click()
        panel.locator(".iw-card").get_by_role("button", name="Approve").click()
        expect(row).to_have_count(0)
        assert kernel.eval("[t['to_account'] for t in read_journal(journal)]") == ["NB7-1"]
    finally:
        kernel.close()
        notebook_server.api("DELETE", f"/api/kernels/{kernel.id}")
