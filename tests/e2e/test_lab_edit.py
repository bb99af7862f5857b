"""Edit before approve in JupyterLab: change an amount, approve, the tool ran once with it.

``chat_bank.ipynb`` shows a chat with the bank agent (offline model), whose
``transfer_funds`` is editable in its amount and memo; each transfer that runs is
appended to the ``journal`` file, read back in the kernel.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from chat_page import ChatOnPage
from notebook_page import NotebookPage
from playwright.sync_api import Locator, expect

pytestmark = pytest.mark.e2e

OpenNotebook = Callable[..., NotebookPage]
Screenshot = Callable[[Locator, str], Path]


def test_an_edited_amount_runs_once_and_the_proposal_stays_on_record(
    open_in_lab: OpenNotebook, screenshot: Screenshot
) -> None:
    notebook = open_in_lab("chat_bank.ipynb")
    notebook.run_all()
    chat = ChatOnPage(notebook.output(0))
    kernel = notebook.kernel()

    chat.say('transfer_funds amount=5000 to_account=ACME-1 memo="rent"')
    expect(chat.open_card()).to_have_count(1)
    interrupt_id = chat.open_card().get_attribute("data-interrupt-id")
    assert interrupt_id
    amount = chat.picker.field(interrupt_id, "editedArgs.amount")
    expect(amount).to_have_value("5000")
    expect(chat.picker.field(interrupt_id, "editedArgs.memo")).to_have_value("rent")
    expect(
        chat.picker.card(interrupt_id).locator("[data-field='editedArgs.to_account']")
    ).to_have_count(0)

    amount.fill("2500")
    changes = chat.picker.card(interrupt_id).locator(".iw-changes")
    expect(changes).to_have_text("Changes: Amount 5000 → 2500")
    approve = chat.picker.button(interrupt_id, "Approve with changes")
    approve.scroll_into_view_if_needed()
    screenshot(chat.root, "picker-edit")
    assert kernel.eval("read_journal(journal)") == []

    approve.click()

    expect(chat.picker.decision(interrupt_id)).to_contain_text("Edited: amount 2500")
    expect(chat.agent_messages.last).to_contain_text("Sent 2500.00 to ACME-1")
    kernel.wait_for("chat.status", lambda status: status == "done")
    transfers = kernel.eval("read_journal(journal)")
    assert [(t["amount"], t["to_account"], t["memo"]) for t in transfers] == [
        (2500.0, "ACME-1", "rent")
    ]
    assert kernel.eval("agent.executions.count('transfer_funds')") == 1
    assert kernel.eval("chat.decisions[0].arguments['amount']") == 5000.0
    assert kernel.eval("chat.decisions[0].executed_arguments['amount']") == 2500
    assert kernel.eval("chat.decisions[0].payload") == {
        "approved": True,
        "editedArgs": {"amount": 2500, "to_account": "ACME-1", "memo": "rent"},
    }


def test_a_call_the_policy_settles_shows_as_a_read_only_card(open_in_lab: OpenNotebook) -> None:
    notebook = open_in_lab("chat_bank.ipynb")
    notebook.run_all()
    chat = ChatOnPage(notebook.output(1))
    kernel = notebook.kernel()

    chat.say('transfer_funds amount=40 to_account=ACME-1 memo="coffee"')

    card = chat.tool_calls.last.locator(".iw-chat-settled")
    expect(card).to_have_text("Approved by policy: small transfers")
    expect(chat.agent_messages.last).to_contain_text("Sent 40.00 to ACME-1")
    expect(chat.open_card()).to_have_count(0)
    expect(chat.tool_calls.last.get_by_role("button")).to_have_count(0)
    kernel.wait_for("ruled.status", lambda status: status == "done")
    assert [t["amount"] for t in kernel.eval("read_journal(journal)")] == [40.0]
    assert kernel.eval("[d.by for d in ruled.decisions]") == ["policy:small transfers"]
