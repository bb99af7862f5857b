"""A call left in doubt is settled by clicks on its card in JupyterLab.

``chat_doubt.ipynb`` defines a billing agent whose gated ``send_invoice`` writes each
real run to a file (``ran()`` in the kernel), and ``approved_elsewhere_and_died(when)``:
another kernel approves the open call from a save and is killed (SIGKILL) inside the
tool, before or after its effect. The person then clicks Approve here; the ledger finds
the call in doubt and the card asks what happened, each answer confirmed before it goes.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from chat_page import ChatOnPage
from kernel_probe import KernelProbe
from notebook_page import NotebookPage
from playwright.sync_api import Locator, expect

pytestmark = pytest.mark.e2e

OpenNotebook = Callable[..., NotebookPage]
Screenshot = Callable[[Locator, str], Path]


def ask_and_lose_the_call(chat: ChatOnPage, kernel: KernelProbe, customer: str, when: str) -> str:
    """Ask for an invoice, let another kernel die in the tool, then click Approve here: the
    card turns to "May have run". Its interrupt id."""
    chat.say(f"Please send_invoice customer={customer}")
    expect(chat.open_card()).to_have_count(1)
    interrupt_id = chat.open_card().get_attribute("data-interrupt-id")
    assert interrupt_id
    assert kernel.eval(f"approved_elsewhere_and_died({when!r})") == -9
    chat.picker.button(interrupt_id, "Approve").click()
    card = chat.picker.card(interrupt_id)
    expect(card.locator(".iw-doubt")).to_be_visible()
    expect(card).to_contain_text("May have run")
    expect(card).to_contain_text("its result was recorded, so it may have run")
    expect(chat.status).to_contain_text("A call may have run already")
    return interrupt_id


def test_it_ran_and_it_did_not_run_each_settle_the_call_once_confirmed(
    open_in_lab: OpenNotebook, screenshot: Screenshot
) -> None:
    notebook = open_in_lab("chat_doubt.ipynb")
    notebook.run_all()
    chat = ChatOnPage(notebook.output(0))
    kernel = notebook.kernel()

    # It ran (the invoice went out before the other kernel died): record what it returned.
    first = ask_and_lose_the_call(chat, kernel, "ACME", "after")
    assert kernel.eval("ran()") == ["ACME"]
    card = chat.picker.card(first)
    card.get_by_role("button", name="It ran: record this result").click()
    confirm = card.get_by_role("button", name="Confirm: record this result")
    confirm.click()  # nothing said yet: refused in the card, nothing sent
    expect(card).to_contain_text("Say what the call returned.")
    card.get_by_label("What the call returned").fill("Invoice <b>INV-7</b> sent to ACME.")
    screenshot(card, "chat-doubt-confirm")
    confirm.click()
    expect(chat.agent_messages.last).to_contain_text("Invoice <b>INV-7</b> sent to ACME.")
    expect(chat.picker.decision(first)).to_contain_text("It had run: result recorded")
    kernel.wait_for("chat.status", lambda status: status == "done")
    assert kernel.eval("ran()") == ["ACME"]
    assert kernel.eval("[[d.settled, d.outcome] for d in chat.decisions][-1]") == [
        "ran",
        "replayed",
    ]

    # It did not run (the other kernel died before the effect): Back, then run it now.
    second = ask_and_lose_the_call(chat, kernel, "Hooli", "before")
    card = chat.picker.card(second)
    card.get_by_role("button", name="It did not run: run it now").click()
    card.get_by_role("button", name="Back").click()
    assert kernel.eval("ran()") == ["ACME"]  # going back sent nothing
    card.get_by_role("button", name="It did not run: run it now").click()
    card.get_by_role("button", name="Confirm: run it now").click()
    expect(chat.agent_messages.last).to_contain_text("Invoice sent to Hooli.")
    kernel.wait_for("chat.status", lambda status: status == "done")
    assert kernel.eval("ran()") == ["ACME", "Hooli"]
    assert kernel.eval("[[d.settled, d.outcome] for d in chat.decisions][-1]") == ["not_run", "ran"]
