"""A batch row's call left in doubt, settled from the inbox in JupyterLab by clicks.

``inbox_doubt.ipynb`` runs a one-row batch whose first process died in the middle of the
approved call (before its effect), so the inbox shows the call as "may have run". The
tool appends to ``runs`` each time it really runs, read back in the kernel.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from jupyter_process import JupyterServer
from notebook_page import NotebookPage
from playwright.sync_api import expect

pytestmark = pytest.mark.e2e

OpenNotebook = Callable[..., NotebookPage]

TESTS = Path(__file__).parents[1]


def test_it_did_not_run_runs_the_call_once_after_the_confirmation(
    lab_server: JupyterServer, open_in_lab: OpenNotebook
) -> None:
    for script in ("crash_agent.py", "crash_batch.py"):  # the kernel imports them by name
        shutil.copy(TESTS / script, lab_server.root_dir / script)
    notebook = open_in_lab("inbox_doubt.ipynb")
    notebook.run_all()
    inbox = notebook.output(0)
    kernel = notebook.kernel()
    expect(inbox.locator(".iw-item")).to_have_count(1, timeout=60_000)
    expect(inbox.locator(".iw-item.iw-in-doubt")).to_contain_text("May have run")
    rows = inbox.locator(".iw-list")
    rows.focus()
    rows.press("j")
    rows.press("e")
    card = inbox.locator(".iw-card")
    expect(card.locator(".iw-doubt")).to_contain_text("May have run")
    expect(card.locator(".iw-doubt")).to_contain_text("Approved by responder approve_all")
    assert kernel.eval("runs_of(runs)") == []

    card.get_by_role("button", name="It did not run: run it now").click()
    assert kernel.eval("runs_of(runs)") == []  # nothing before the confirmation
    card.get_by_role("button", name="Confirm: run it now").click()
    expect(inbox.locator(".iw-item")).to_have_count(0)
    assert kernel.wait_for("batch.done") is True
    assert kernel.eval("(batch.results[0].status, runs_of(runs))") == ("done", ["ACME"])
    assert kernel.eval("batch.decisions[-1].settled") == "not_run"
