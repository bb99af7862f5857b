"""Four eyes in JupyterLab: two people, one after the other in one kernel, click Approve on
the same card; the card offers no edit (a call several people approve takes none), the first
approval shows "1 of 2", the same person again is refused on the card, and the second person's
click runs the transfer once.

``chat_four_eyes.ipynb`` shows a chat with the bank agent (offline model) under
`require("transfer_funds", approvals=2)` for amounts over 1000, asked as carl; each transfer
that runs is appended to the ``journal`` file, read back in the kernel. Who clicks is the
kernel's identity (`set_identity`), switched between the clicks as a shared screen would.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest
from chat_page import ChatOnPage
from notebook_page import NotebookPage
from playwright.sync_api import Locator, expect

pytestmark = pytest.mark.e2e

OpenNotebook = Callable[..., NotebookPage]
Screenshot = Callable[[Locator, str], Path]


def test_the_first_approval_shows_one_of_two_and_the_second_runs_the_call_once(
    open_in_lab: OpenNotebook, screenshot: Screenshot
) -> None:
    notebook = open_in_lab("chat_four_eyes.ipynb")
    notebook.run_all()
    chat = ChatOnPage(notebook.output(0))
    kernel = notebook.kernel()

    chat.say("transfer_funds amount=5000 to_account=ACME-1 memo=rent")
    expect(chat.open_card()).to_have_count(1)
    interrupt_id = chat.open_card().get_attribute("data-interrupt-id")
    assert interrupt_id
    card = chat.picker.card(interrupt_id)
    progress = card.locator(".iw-approvals-progress")
    expect(progress).to_have_text("0 of 2 approvals")
    expect(card.locator(".iw-approvals")).to_contain_text("(not carl)")
    # transfer_funds is editable, but a call two people approve takes no edits: none offered.
    expect(card.locator("[data-field^='editedArgs']")).to_have_count(0)
    expect(card.locator(".iw-changes")).to_have_count(0)

    kernel.execute("set_identity('ann')")
    chat.picker.button(interrupt_id, "Approve").click()
    expect(progress).to_have_text(re.compile(r"^1 of 2 approvals: ann approved \d\d:\d\d$"))
    expect(card).to_have_attribute("data-phase", "open")
    screenshot(chat.root, "four-eyes-one-of-two")
    assert kernel.eval("read_journal(journal)") == []

    chat.picker.button(interrupt_id, "Approve").click()  # ann again: refused on the card
    expect(card.locator(".iw-form .iw-card-error")).to_contain_text("ann already approved")
    assert kernel.eval("read_journal(journal)") == []

    kernel.execute("set_identity('bob')")
    chat.picker.button(interrupt_id, "Approve").click()
    expect(chat.agent_messages.last).to_contain_text("Sent 5000.00 to ACME-1")
    kernel.wait_for("chat.status", lambda status: status == "done")
    transfers = kernel.eval("read_journal(journal)")
    assert [(t["amount"], t["to_account"]) for t in transfers] == [(5000.0, "ACME-1")]
    assert kernel.eval("chat.decisions[-1].approvers") == ["ann", "bob"]
