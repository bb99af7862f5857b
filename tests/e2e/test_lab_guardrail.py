"""A tool's input guardrail holds after a person's click in JupyterLab, as in the raw SDK.

``chat_guardrail.ipynb`` defines a bank agent whose gated ``transfer_funds`` carries a
``tool_input_guardrail`` refusing any amount over 1000; each real run of the tool's body
is a line in the ``runs`` file, read back in the kernel with ``ran()``. Approving a call
resumes the Agents SDK's own run, so the guardrail decides before the tool runs.
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
REFUSED = "Refused by the bank: over the 1000 limit."
"""The guardrail's message, defined in the notebook."""


def approve_the_open_call(chat: ChatOnPage, amount: str) -> str:
    """Click Approve on the one open card, once it shows `amount`; its interrupt id."""
    expect(chat.open_card()).to_have_count(1)
    interrupt_id = chat.open_card().get_attribute("data-interrupt-id")
    assert interrupt_id
    expect(chat.picker.card(interrupt_id)).to_contain_text(f"amount={amount}")
    chat.picker.button(interrupt_id, "Approve").click()
    expect(chat.picker.decision(interrupt_id)).to_contain_text("Approved")
    return interrupt_id


def test_an_approved_transfer_over_the_limit_is_refused_by_the_guardrail_and_never_runs(
    open_in_lab: OpenNotebook, screenshot: Screenshot
) -> None:
    notebook = open_in_lab("chat_guardrail.ipynb")
    notebook.run_all()
    chat = ChatOnPage(notebook.output(0))
    kernel = notebook.kernel()

    chat.say("transfer_funds amount=5000 to=bob")
    approve_the_open_call(chat, "5000")

    expect(chat.agent_messages.last).to_contain_text(REFUSED)
    expect(chat.agent_messages.last).not_to_contain_text("Sent")
    kernel.wait_for("chat.status", lambda status: status == "done")
    screenshot(chat.root, "chat-guardrail-refused")
    assert kernel.eval("ran()") == []
    assert kernel.eval("[d.verdict for d in chat.decisions]") == ["approved"]

    chat.say("transfer_funds amount=50 to=bob")
    approve_the_open_call(chat, "50")

    expect(chat.agent_messages.last).to_contain_text("Sent 50.00 to bob.")
    kernel.wait_for("chat.status", lambda status: status == "done")
    assert kernel.eval("ran()") == [{"amount": 50.0, "to": "bob"}]
    expect(chat.root).to_contain_text(REFUSED)  # the first answer's outcome stays in view
