"""Awaiting a chat's run: never cancels the run, and a callback for front ends that cannot wait.

(marimo's refusal to await a run that needs a click is tested in a real marimo kernel,
in ``tests/e2e/test_marimo.py``; a wait nobody can answer, in ``test_unattended.py``.)
"""

from __future__ import annotations

import asyncio

import pytest

from interrupt_widget import CannotWaitHere
from interrupt_widget.examples import meeting_agent
from interrupt_widget.sdk.offline_model import OfflineModel
from interrupt_widget.testing import CommRecorder, until
from interrupt_widget.widgets.awaiting import in_marimo, marimo_way
from interrupt_widget.widgets.chat import AgentChat, ChatRun

BOOK = "Book a call with Alice about the Q3 roadmap"
APPROVE = {
    "approved": True,
    "chosen_time": "2030-01-08T10:00:00Z",
    "chosen_label": "Tue 8 Jan 10:00",
}


async def _outcome(run: ChatRun) -> str:
    return (await run).outcome


async def test_a_cancelled_await_leaves_the_run_going(recorder: CommRecorder) -> None:
    agent = meeting_agent(OfflineModel())
    chat = AgentChat(agent)
    run = chat.send(BOOK)
    waiting = asyncio.ensure_future(_outcome(run))  # a cell suspended in `await run`
    await until(chat, lambda: chat.status == "waiting")
    waiting.cancel()  # the person interrupts that cell
    with pytest.raises(asyncio.CancelledError):
        await waiting
    assert not run.done()
    assert chat.status == "waiting"
    assert chat.picker is not None
    chat.picker.resolve(APPROVE, by="user")
    assert await _outcome(run) == "success"
    assert agent.executions.count() == 1


async def test_a_done_callback_hears_the_end_of_the_run(recorder: CommRecorder) -> None:
    chat = AgentChat(meeting_agent(OfflineModel()))
    run = chat.send(BOOK)
    ended: asyncio.Future[str] = asyncio.get_running_loop().create_future()
    run.add_done_callback(lambda r: ended.set_result(r.result().text))
    await until(chat, lambda: chat.status == "waiting")
    assert not ended.done()
    assert chat.picker is not None
    chat.picker.resolve(APPROVE, by="user")
    assert "Tue 8 Jan 10:00" in await asyncio.wait_for(ended, 30)


def test_outside_marimo_nothing_is_refused() -> None:
    assert in_marimo() is False  # pytest is no marimo kernel, even with marimo installed


def test_the_marimo_message_says_why_and_what_to_do_instead() -> None:
    message = str(CannotWaitHere(marimo_way("`await run`", "call `run.add_done_callback(fn)`.")))
    assert message.startswith("`await run` would never finish in marimo")
    assert "one message at a time" in message
    assert "Nothing was cancelled" in message
    assert message.endswith("call `run.add_done_callback(fn)`.")
