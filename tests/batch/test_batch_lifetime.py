"""What an awaited batch and a closed widget leave behind: nothing that keeps their rows alive.

A script that awaits batch after batch (or a kernel that makes and closes chats) must not
grow: the inbox a batch builds to watch its await goes with it, and a closed widget of the
kit is not held by anywidget's file watching (its code is a trait of its own).
"""

from __future__ import annotations

import gc
import weakref

from ipywidgets.widgets.widget import _instances as live_widgets

from interrupt_widget import AgentBatch, AgentChat, Inbox, OfflineModel, Policy, approve
from interrupt_widget.examples.bank import bank_agent
from interrupt_widget.testing import until
from interrupt_widget.widgets._bundle import ESM
from interrupt_widget.widgets.picker import InterruptPicker

ROWS = [f"transfer_funds amount={n + 1} to_account=ACME-{n} memo=m{n}" for n in range(6)]


def _inboxes() -> set[str]:
    return {key for key, widget in live_widgets.items() if isinstance(widget, Inbox)}


async def _awaited_batch() -> weakref.ref[AgentBatch]:
    batch = AgentBatch(
        bank_agent(OfflineModel()),
        ROWS,
        concurrency=3,
        policy=Policy(approve("transfer_funds")),
        ledger="memory",
    )
    results = await batch
    assert {r.status for r in results} == {"done"}
    return weakref.ref(batch)


async def test_an_awaited_batch_is_freed_with_the_inbox_that_watched_its_await() -> None:
    before = _inboxes()
    gone = await _awaited_batch()
    gc.collect()
    assert gone() is None  # nothing (the widgets' registry, a file's signal) keeps its rows
    assert _inboxes() == before


async def test_an_inbox_asked_for_stays_the_batchs_view_after_the_await() -> None:
    batch = AgentBatch(
        bank_agent(OfflineModel()), ROWS[:2], policy=Policy(approve("transfer_funds"))
    )
    inbox = batch.inbox  # shown, or read: the person wants it after the run too
    await batch
    assert batch.inbox is inbox
    assert inbox.comm is not None  # not closed
    await until(inbox, lambda: inbox.counts.get("done") == 2, names=["counts"])
    inbox.close()


async def test_an_inbox_read_after_the_await_is_built_again_and_lists_every_row() -> None:
    batch = AgentBatch(
        bank_agent(OfflineModel()), ROWS[:3], policy=Policy(approve("transfer_funds"))
    )
    await batch
    inbox = batch.inbox
    assert isinstance(inbox, Inbox)
    assert inbox.comm is not None
    await until(inbox, lambda: inbox.counts.get("done") == 3, names=["counts"])
    inbox.close()


def test_closed_widgets_of_the_kit_are_freed() -> None:
    chat = AgentChat(bank_agent(OfflineModel()))
    picker = InterruptPicker(None)
    inbox = Inbox(chat)
    assert chat.get_state()["_esm"] == ESM.read_text("utf-8")  # the code still travels
    refs = [weakref.ref(w) for w in (chat, picker, inbox)]
    for widget in (inbox, picker, chat):
        widget.close()
    del chat, picker, inbox, widget
    gc.collect()
    assert [r() for r in refs] == [None, None, None]


def test_a_closed_widget_of_the_kit_closes_its_layout_but_not_a_shared_one() -> None:
    chat = AgentChat(bank_agent(OfflineModel()))
    inbox = Inbox(chat)
    first, second = InterruptPicker(None), InterruptPicker(None)
    second.layout = first.layout  # shared on purpose, as a user may
    own = [w.layout.model_id for w in (chat, inbox)]
    shared = first.layout.model_id
    for widget in (inbox, chat, first):
        widget.close()
    assert not set(own) & set(live_widgets)  # ipywidgets alone would keep them
    assert shared in live_widgets  # the open picker still draws with it
    second.close()
    assert shared not in live_widgets
