"""Every question on the Jupyter server in one sidebar, for real: kernels the server started
ask, the sidebar lists them, and a person answers there, in the cell, or from a notification,
each call running once (counted from the journal each transfer writes in its kernel).

One notebook is open in a tab (``sidebar_asks.ipynb``); another notebook's kernel runs with no
tab of this page (a session for ``team/other.ipynb``); a third kernel belongs to no notebook.
The server's signed-in person is the user it runs as (its one shared token); a question whose
rules need someone else is listed as such and refused when answered anyway.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from jupyter_process import JupyterServer
from notebook_page import NotebookPage
from picker_page import PickerOnPage
from playwright.sync_api import Locator, Page, expect
from server_kernel import ServerKernel

from interrupt_widget.identity import login_identity

pytestmark = pytest.mark.e2e

OpenNotebook = Callable[..., NotebookPage]
Screenshot = Callable[[Locator | Page, str], Path]
ME = login_identity().name

ASK = """
import pathlib, tempfile
from interrupt_widget import AgentChat, Policy, require
from interrupt_widget.examples import bank_agent, read_journal
journal = pathlib.Path(tempfile.mkdtemp()) / "transfers.jsonl"
chat = AgentChat(bank_agent(journal=journal))
run = chat.send("transfer_funds amount={amount} to_account={to} memo=rent")
"""
FOUR_EYES = """
four_eyes = AgentChat(
    bank_agent(journal=journal), policy=Policy(require("transfer_funds", approvals=2))
)
big = four_eyes.send("transfer_funds amount=9000 to_account=BIG-1 memo=servers")
"""


@pytest.fixture
def kernels(lab_server: JupyterServer) -> Iterator[list[ServerKernel]]:
    made: list[ServerKernel] = []
    yield made
    for kernel in made:
        kernel.close()


def sidebar(page: Page) -> None:
    page.locator('.jp-SideBar .lm-TabBar-tab[title^="Questions waiting"]').click()


def test_the_sidebar_lists_every_kernels_question_and_each_answer_runs_its_call_once(
    open_in_lab: OpenNotebook,
    lab_server: JupyterServer,
    page: Page,
    kernels: list[ServerKernel],
    screenshot: Screenshot,
) -> None:
    notebook = open_in_lab("sidebar_asks.ipynb")
    notebook.run_all()
    picker = PickerOnPage(notebook.output(0))
    expect(picker.root.locator(".iw-card")).to_have_count(1)
    here = notebook.kernel()
    other = ServerKernel(lab_server, "team/other.ipynb")
    kernels.append(other)
    other.run(ASK.format(amount=200, to="OTHER-2") + FOUR_EYES)

    sidebar(page)
    panel = page.locator(".iw-lab-panel")
    # Earlier tests' kernels killed mid-run may still be listed, as closed: not counted here.
    items = panel.locator(".iw-item:not(.iw-closed)")
    expect(items).to_have_count(3)
    expect(panel.locator(".iw-where", has_text=notebook.path)).to_have_count(1)
    expect(panel.locator(".iw-where", has_text="team/other.ipynb")).to_have_count(2)
    # A row says the arguments as its card does: the offline model's 120.0 is 120 in both.
    mine = items.filter(has_text=notebook.path)
    expect(mine.locator(".iw-args")).to_have_text('amount=120, to_account="ACME-1", memo="rent"')
    expect(picker.root).to_contain_text('amount=120, to_account="ACME-1", memo="rent"?')
    forbidden = items.filter(has_text="amount=9000")
    expect(forbidden).to_contain_text("Not yours to answer")
    expect(page.locator(".jp-SideBar [data-iw-count]")).to_have_attribute("data-iw-count", "2")

    # A third kernel, no notebook at all, asks while the page looks: it is listed at once,
    # and its notification's Approve runs the transfer once.
    loose = ServerKernel(lab_server, None)
    kernels.append(loose)
    loose.run("import interrupt_widget")  # the kit's import is not the sidebar's time
    asked = time.monotonic()
    loose.run(ASK.format(amount=300, to="LOOSE-3"))
    expect(items).to_have_count(4)
    listed_after = time.monotonic() - asked
    expect(panel.locator(".iw-where", has_text=f"kernel {loose.id[:8]}")).to_have_count(1)
    thread = loose.eval("chat.thread.thread_id")
    said = f"Waiting for your answer: transfer_funds ({thread})"
    toast = page.locator(".Toastify__toast", has_text=said)
    toast.get_by_role("button", name="Approve").click()
    expect(items).to_have_count(3)
    expect(page.locator(".Toastify__toast", has_text="approved.")).to_be_visible()
    screenshot(page, "sidebar")
    assert loose.eval("[t['to_account'] for t in read_journal(journal)]") == ["LOOSE-3"]
    assert loose.eval("chat.decisions[-1].by") == f"sidebar:{ME}"

    # The tab's question answered from the sidebar: its cell says who answered, and where.
    row = items.filter(has_text=notebook.path)
    row.get_by_role("button", name="Open").click()
    panel.locator(".iw-card").get_by_role("button", name="Approve").click()
    card = picker.root.locator(".iw-card").first
    expect(card.locator(".iw-decision")).to_contain_text(f"by {ME} in the sidebar")
    here.wait_for("chat.status", lambda status: status == "done")
    assert here.eval("[t['to_account'] for t in read_journal(journal)]") == ["ACME-1"]
    expect(items).to_have_count(2)

    # The other notebook's question answered in its own kernel (its cell): it leaves the list.
    other.run("chat.picker.resolve({'approved': True})")
    expect(items).to_have_count(1)
    assert other.eval("[t['to_account'] for t in read_journal(journal)]") == ["OTHER-2"]

    # The question whose rules need another person: its buttons refuse, and nothing runs.
    forbidden.get_by_role("button", name="Open").click()
    panel.locator(".iw-card").get_by_role("button", name="Approve").click()
    expect(panel.locator(".iw-card")).to_contain_text(f"{ME} started this run")
    assert other.eval("[t['to_account'] for t in read_journal(journal)]") == ["OTHER-2"]
    print(f"a new kernel's question listed {listed_after:.2f} s after its cell ran")
