"""The inbox of a 50-row batch in JupyterLab, clicked and typed at as a person would.

``inbox_batch.ipynb`` runs 50 bank transfers (offline model, no policy), every one of
which waits for a person; each transfer that runs appends to ``journal``, read back in
the kernel.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from notebook_page import NotebookPage
from playwright.sync_api import Locator, expect

pytestmark = pytest.mark.e2e

OpenNotebook = Callable[..., NotebookPage]
Screenshot = Callable[[Locator, str], Path]

VERDICTS = "sorted(d.verdict for d in batch.decisions)"


def test_filter_select_approve_then_keys_and_a_card(
    open_in_lab: OpenNotebook, screenshot: Screenshot
) -> None:
    notebook = open_in_lab("inbox_batch.ipynb")
    notebook.run_all()
    inbox = notebook.output(0)
    kernel = notebook.kernel()
    items = inbox.locator(".iw-item")
    expect(items).to_have_count(50, timeout=60_000)
    expect(inbox.locator(".iw-counts")).to_contain_text("50 waiting")
    screenshot(inbox, "inbox-50-waiting")

    inbox.get_by_label("Filter").fill("GLOBEX")
    expect(items).to_have_count(25)
    inbox.get_by_label("Select shown").check()
    expect(inbox.locator(".iw-counts")).to_contain_text("25 selected")
    inbox.get_by_role("button", name="Approve selected").click()
    expect(items).to_have_count(0)
    assert kernel.wait_for(VERDICTS, lambda v: v == ["approved"] * 25)

    inbox.get_by_label("Filter").fill("")
    expect(items).to_have_count(25)
    rows = inbox.locator(".iw-list")
    rows.focus()
    rows.press("j")
    expect(inbox.locator(".iw-item.iw-current")).to_have_count(1)
    rows.press("a")
    expect(items).to_have_count(24)
    rows.press("d")
    expect(items).to_have_count(23)
    assert kernel.wait_for(VERDICTS, lambda v: v.count("approved") == 26 and "denied" in v)

    rows.press("e")
    card = inbox.locator(".iw-card")
    expect(card).to_have_count(1)
    expect(card.locator(".iw-title")).to_have_text("transfer_funds")
    screenshot(inbox, "inbox-card-open")
    approve = card.get_by_role("button", name="Approve", exact=True)
    approve.scroll_into_view_if_needed()
    # The rows redraw each second (their waited times): the page stays where the person put it.
    waited = inbox.locator(".iw-waited").first
    expect(waited).not_to_have_text(waited.text_content() or "")
    expect(approve).to_be_in_viewport()
    approve.click()
    expect(items).to_have_count(22)
    assert kernel.wait_for("len(read_journal(journal))", lambda n: n == 27)
    expect(inbox.locator(".iw-counts")).to_contain_text("22 waiting")

    # "Approve, and the same for calls like this": every waiting call to ACME-1 goes.
    rows.press("e")
    inbox.get_by_label("Calls like this").select_option(label="to_account = ACME-1")
    inbox.get_by_role("button", name="Approve, and the same for calls like this").click()
    expect(items).to_have_count(0)
    expect(inbox.locator(".iw-rules")).to_contain_text(
        'Rule: approve transfer_funds when to_account == "ACME-1" (settled 21)'
    )
    assert kernel.wait_for("len(read_journal(journal))", lambda n: n == 49)
    assert kernel.eval("str(batch.inbox.rules).count('approve(')") == 1


def test_the_tab_title_counts_what_waits_while_hidden(open_in_lab: OpenNotebook) -> None:
    notebook = open_in_lab("inbox_batch.ipynb")
    notebook.run_all()
    inbox = notebook.output(0)
    expect(inbox.locator(".iw-item")).to_have_count(50, timeout=60_000)
    page = notebook.page
    title = page.title()
    page.evaluate(
        "() => { Object.defineProperty(document, 'hidden', {configurable: true, get: () => true});"
        " document.dispatchEvent(new Event('visibilitychange')); }"
    )
    expect(page).to_have_title(f"(50 waiting) {title}")
    notebook.kernel().execute("batch.inbox.cancel()")
    expect(page).to_have_title(title)
