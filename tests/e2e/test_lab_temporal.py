"""A Temporal run's picker answered in JupyterLab: the chat's runs happen on a worker process,
the question waits in the conversation's workflow, a click answers it, and the transfer runs
once on the worker (counted from the journal file it writes).

``chat_temporal.ipynb`` starts a Temporal dev server and a worker for the bank agent, and
shows an `AgentChat` on a `TemporalAgent`.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from chat_page import ChatOnPage
from notebook_page import NotebookPage
from playwright.sync_api import expect

pytest.importorskip("temporalio")

pytestmark = pytest.mark.e2e

OpenNotebook = Callable[..., NotebookPage]


def test_a_temporal_runs_picker_is_answered_with_a_click_and_the_call_runs_once(
    open_in_lab: OpenNotebook,
) -> None:
    notebook = open_in_lab("chat_temporal.ipynb")
    notebook.run_all()
    chat = ChatOnPage(notebook.output(0))
    kernel = notebook.kernel()
    try:
        chat.say('transfer_funds amount=120 to_account=ACME-1 memo="rent"')
        expect(chat.open_card()).to_have_count(1)
        interrupt_id = chat.open_card().get_attribute("data-interrupt-id")
        assert interrupt_id
        assert kernel.wait_for("chat.status", lambda status: status == "waiting") == "waiting"
        assert kernel.eval("read_journal(journal)") == []

        chat.picker.button(interrupt_id, "Approve").click()

        expect(chat.picker.decision(interrupt_id)).to_contain_text("Approved")
        expect(chat.agent_messages.last).to_contain_text("Sent 120.00 to ACME-1")
        kernel.wait_for("chat.status", lambda status: status == "done")
        transfers = kernel.eval("read_journal(journal)")
        assert [(t["amount"], t["to_account"]) for t in transfers] == [(120.0, "ACME-1")]
    finally:
        kernel.execute("worker.kill()\nworker.wait()\nserver.stop()")
