"""A Temporal run's picker answered in JupyterLab: the chat's runs happen on a worker process,
the question waits in the conversation's workflow, a click answers it, and the transfer runs
once on the worker (counted from the journal file it writes).

``chat_temporal.ipynb`` starts a Temporal dev server and a worker for the bank agent, and
shows an `AgentChat` on a `TemporalAgent`.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest
from chat_page import ChatOnPage
from kernel_probe import KernelProbe
from notebook_page import NotebookPage
from playwright.sync_api import expect

pytest.importorskip("temporalio")

pytestmark = pytest.mark.e2e

OpenNotebook = Callable[..., NotebookPage]


def _asked(chat: ChatOnPage, kernel: KernelProbe, request: str) -> str:
    """Say `request` in the chat; the id of the card it opens, once the chat waits on it."""
    chat.say(request)
    expect(chat.open_card()).to_have_count(1)
    interrupt_id = chat.open_card().get_attribute("data-interrupt-id")
    assert interrupt_id
    assert kernel.wait_for("chat.status", lambda status: status == "waiting") == "waiting"
    return interrupt_id


def test_a_temporal_runs_picker_is_answered_with_a_click_and_the_call_runs_once(
    open_in_lab: OpenNotebook,
) -> None:
    notebook = open_in_lab("chat_temporal.ipynb")
    notebook.run_all()
    chat = ChatOnPage(notebook.output(0))
    kernel = notebook.kernel()
    try:
        interrupt_id = _asked(
            chat, kernel, 'transfer_funds amount=120 to_account=ACME-1 memo="rent"'
        )
        assert kernel.eval("read_journal(journal)") == []

        chat.picker.button(interrupt_id, "Approve").click()

        expect(chat.picker.decision(interrupt_id)).to_contain_text("Approved")
        expect(chat.agent_messages.last).to_contain_text("Sent 120.00 to ACME-1")
        kernel.wait_for("chat.status", lambda status: status == "done")
        transfers = kernel.eval("read_journal(journal)")
        assert [(t["amount"], t["to_account"]) for t in transfers] == [(120.0, "ACME-1")]
    finally:
        kernel.execute("worker.kill()\nworker.wait()\nserver.stop()")


def test_a_run_no_worker_takes_says_so_on_the_page_and_stop_ends_it_with_nothing_run(
    open_in_lab: OpenNotebook,
) -> None:
    """The worker is killed while the question waits (Temporal still lists its pollers): the
    approval's run waits for a worker. The chat's status line says so, naming the command
    that starts one; the Stop button ends the run, and the transfer does not run. The question
    is open again: once a worker is back, Approve on the same card runs the transfer once."""
    notebook = open_in_lab("chat_temporal.ipynb")
    notebook.run_all()
    chat = ChatOnPage(notebook.output(0))
    kernel = notebook.kernel()
    try:
        interrupt_id = _asked(
            chat, kernel, 'transfer_funds amount=75 to_account=ACME-2 memo="late"'
        )
        kernel.execute("agent.worker_wait_seconds = 3\nworker.kill()\nworker.wait()")

        chat.picker.button(interrupt_id, "Approve").click()

        expect(chat.status).to_contain_text("No worker has taken this run", timeout=30_000)
        expect(chat.status).to_contain_text("python -m interrupt_widget worker")
        expect(chat.in_status("running")).to_have_count(1)
        clicked = time.monotonic()
        chat.stop_button.click()
        chat.in_status("cancelled").wait_for(timeout=30_000)
        took = time.monotonic() - clicked
        print(f"\nno worker: Stop to the cancelled status on the page {took:.2f} s")
        assert kernel.eval("chat.status") == "cancelled"
        assert kernel.eval("read_journal(journal)") == []
        # The question is open again: with a worker back, the same card approves it.
        expect(chat.status).to_contain_text("the question is open again")
        expect(chat.open_card()).to_have_count(1)
        kernel.execute(
            "worker = subprocess.Popen(worker.args, env={**os.environ, JOURNAL_ENV: "
            "str(journal)}, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)"
        )
        chat.picker.button(interrupt_id, "Approve").click()
        expect(chat.agent_messages.last).to_contain_text("Sent 75.00 to ACME-2", timeout=60_000)
        transfers = kernel.eval("read_journal(journal)")
        assert [(t["amount"], t["to_account"]) for t in transfers] == [(75.0, "ACME-2")]
    finally:
        kernel.execute("worker.kill()\nworker.wait()\nserver.stop()")


WORD = 0.1
"""Seconds the slow talker (`temporal_agents:slow_talker`) takes per word."""


def _reply_while(chat: ChatOnPage, index: int, words: int) -> tuple[str, str]:
    """The chat's status and its `index`-th agent message, read together from the DOM, once
    that message has at least `words` words (within 60 s: the first run also waits for the
    worker to poll)."""
    read = """(chat, index) => [
        chat.dataset.status,
        chat.querySelectorAll(".iw-chat-msg[data-kind='assistant'] .iw-chat-text")[index]
            ?.textContent ?? "",
    ]"""
    deadline = time.monotonic() + 60
    while True:
        status, text = chat.root.evaluate(read, index)
        if len(text.split()) >= words or time.monotonic() > deadline:
            return status, text
        time.sleep(0.02)


def test_a_temporal_reply_streams_into_the_page_and_stop_ends_it_where_it_is(
    open_in_lab: OpenNotebook,
) -> None:
    """Tokens reach the page while the worker still writes, and Stop ends a long reply on the
    worker within about a second (asserted under 10 s, for a loaded machine: the rest of the
    reply would take forty)."""
    notebook = open_in_lab("chat_temporal_slow.ipynb")
    notebook.run_all()
    chat = ChatOnPage(notebook.output(0))
    kernel = notebook.kernel()
    try:
        words = 60  # six seconds of writing
        sent = time.monotonic()
        chat.send(f"reply with {words} words")
        status, partial = _reply_while(chat, 0, 3)
        seen = time.monotonic() - sent
        assert status == "running", (status, partial)
        assert 3 <= len(partial.split()) < words, partial
        kernel.wait_for("chat.status", lambda s: s == "done", timeout=60)
        reply = kernel.eval("chat.text")
        assert len(reply.split()) == words
        expect(chat.agent_messages.first).to_contain_text(reply)
        expect(chat.in_status("done")).to_have_count(1)
        print(
            f"\n{len(partial.split())} of {words} words on the page {seen:.2f} s after Send, "
            f"the reply whole {time.monotonic() - sent:.2f} s after"
        )

        chat.send("reply with 400 words")  # forty seconds of writing
        status, partial = _reply_while(chat, 1, 3)
        assert status == "running", (status, partial)
        clicked = time.monotonic()
        chat.stop_button.click()
        chat.in_status("cancelled").wait_for(timeout=30_000)
        took = time.monotonic() - clicked
        assert kernel.eval("chat.status") == "cancelled"
        print(f"Stop to the cancelled status on the page: {took:.2f} s")
        assert took < 10.0, took  # the Stop, not the reply: its rest would take forty seconds
        # The worker's run ended there: nothing more arrives, and the next message is
        # answered at once, not after the rest of the forty seconds.
        _, stopped = _reply_while(chat, 1, 0)
        assert 3 <= len(stopped.split()) < 400
        time.sleep(10 * WORD)
        assert _reply_while(chat, 1, 0)[1] == stopped
        again = time.monotonic()
        chat.send("reply with 3 words")
        kernel.wait_for("chat.status", lambda s: s == "done", timeout=30)
        expect(chat.agent_messages.nth(2)).to_contain_text(kernel.eval("chat.text"))
        print(f"the next reply whole {time.monotonic() - again:.2f} s after Send")
    finally:
        kernel.execute("worker.kill()\nworker.wait()\nserver.stop()")
