"""A wait nobody can answer fails fast; one a front end holds never does.

No front end (nbval, nbclient, papermill, nbconvert): the recording comm hears nothing from
the widget's model, and the cell awaiting an answer raises `UnattendedWait` once the
question has waited `unattended_after` seconds, the question left open. A front end
(JupyterLab, Notebook 7) announces itself from the bundle's `initialize` with
`{"type": "attached"}`, delivered here as the kernel delivers it, and then the wait goes on
for as long as the person takes.
"""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from agents import Agent, Runner, function_tool

from interrupt_widget import (
    AgentBatch,
    AgentChat,
    Inbox,
    InterruptPicker,
    OfflineModel,
    UnattendedWait,
    answer_interruptions,
)
from interrupt_widget.examples import meeting_agent
from interrupt_widget.examples.bank import bank_agent
from interrupt_widget.examples.tool_runs import read_journal
from interrupt_widget.testing import CommRecorder, batch_until, until
from interrupt_widget.widgets import chat_protocol, inbox_protocol, picker_protocol
from interrupt_widget.widgets.attendance import UNATTENDED_AFTER, Attached, attached_to_wire

BOOK = "Book a call with Alice about the Q3 roadmap"
APPROVE = {
    "approved": True,
    "chosen_time": "2030-01-08T10:00:00Z",
    "chosen_label": "Tue 8 Jan 10:00",
}
QUESTION = {
    "id": "int-1",
    "reason": "tool_call",
    "responseSchema": {
        "type": "object",
        "properties": {"approved": {"type": "boolean"}},
        "required": ["approved"],
    },
    "metadata": {"tool_name": "schedule_meeting", "tool_input": {"topic": "Q3"}},
}
AFTER = 0.3
"""A small `unattended_after`, so the tests take a fraction of a second."""
LIMIT = 5.0
"""The await must have failed by then (the issue's bound for the default)."""


def _ways_out(message: str) -> None:
    """The message names both ways out: a responder, or a recorded run replayed."""
    for needed in (
        "INTERRUPT_WIDGET_RESPONDER=approve_all",
        "replay:<decision file>",
        "responder=",
        "INTERRUPT_WIDGET_CASSETTE=<file>",
        "cassette=",
        "Nothing was cancelled",
    ):
        assert needed in message


def test_the_default_limit_is_five_seconds_and_the_wire_message_is_one_for_every_widget() -> None:
    assert UNATTENDED_AFTER == 5.0
    for widget in (AgentChat, InterruptPicker, Inbox):
        assert widget.unattended_after == UNATTENDED_AFTER
    assert attached_to_wire() == {"type": "attached"}
    for protocol in (chat_protocol, picker_protocol, inbox_protocol):
        assert protocol.parse_front_end_message({"type": "attached"}) == Attached()
    assert issubclass(UnattendedWait, RuntimeError)


async def _fails_fast(awaited: Any) -> tuple[str, float]:
    """`UnattendedWait`'s message from awaiting `awaited`, and the seconds it took."""
    began = time.monotonic()
    with pytest.raises(UnattendedWait) as failed:
        await asyncio.wait_for(awaited, LIMIT)
    return str(failed.value), time.monotonic() - began


# -- the chat ------------------------------------------------------------------------------


async def test_a_chat_nobody_can_answer_fails_the_awaiting_cell_and_stays_open(
    recorder: CommRecorder,
) -> None:
    agent = meeting_agent(OfflineModel())
    chat = AgentChat(agent)
    chat.unattended_after = AFTER
    run = chat.send(BOOK)

    async def awaited() -> Any:
        return await run

    message, took = await _fails_fast(awaited())
    assert AFTER <= took < LIMIT
    assert message.startswith("Nobody can answer the chat's question (schedule_meeting): ")
    _ways_out(message)
    # Left open, not cancelled: the status line says why, and an answer still resumes it.
    assert not run.done()
    assert chat.status == "waiting"
    await until(chat, lambda: "no responder is set" in chat.status_line, names=["status_line"])
    chat.picker.resolve(APPROVE, by="user")
    assert "Tue 8 Jan" in (await run).text
    assert agent.executions.count() == 1


async def test_a_chat_whose_front_end_announced_itself_waits_for_as_long_as_it_takes(
    recorder: CommRecorder,
) -> None:
    chat = AgentChat(meeting_agent(OfflineModel()))
    chat.unattended_after = AFTER
    run = chat.send(BOOK)
    await until(chat, lambda: chat.status == "waiting")
    loop = asyncio.get_running_loop()
    # The front end creates the model after the question is asked (same cell), and answers
    # well after the limit.
    loop.call_later(AFTER / 3, recorder.of(chat).deliver, attached_to_wire())
    loop.call_later(AFTER * 4, chat.picker.resolve, APPROVE)
    began = time.monotonic()
    result = await asyncio.wait_for(_awaited(run), LIMIT * 2)
    assert time.monotonic() - began >= AFTER * 4
    assert "Tue 8 Jan" in result.text
    assert chat.status_line == ""


async def _awaited(run: Any) -> Any:
    return await run


async def test_a_view_opening_counts_as_a_front_end(recorder: CommRecorder) -> None:
    chat = AgentChat(meeting_agent(OfflineModel()))
    chat.unattended_after = 0  # were it due, the await would fail at once
    recorder.of(chat).deliver({"type": "hello"})  # a view opened: a person may answer
    run = chat.send(BOOK)
    await until(chat, lambda: chat.status == "waiting")
    waiting = asyncio.ensure_future(_awaited(run))
    for _ in range(5):
        await asyncio.sleep(0)  # let a few loop turns pass
    assert not waiting.done()
    assert chat.status_line == "Waiting for your answer: schedule_meeting"
    chat.picker.resolve(APPROVE)
    assert "Tue 8 Jan" in (await waiting).text


# -- the standalone picker -----------------------------------------------------------------


async def test_a_picker_nobody_can_answer_fails_its_wait_and_keeps_the_question(
    recorder: CommRecorder,
) -> None:
    picker = InterruptPicker([QUESTION])
    picker.unattended_after = AFTER
    message, took = await _fails_fast(picker.wait())
    assert AFTER <= took < LIMIT
    assert message.startswith("Nobody can answer the picker's question (schedule_meeting): ")
    _ways_out(message)
    assert picker.status == "waiting"
    picker.resolve({"approved": True})
    [entry] = await picker.wait()
    assert entry.payload == {"approved": True}


async def test_a_picker_announced_from_another_thread_waits_for_the_late_answer(
    recorder: CommRecorder,
) -> None:
    picker = InterruptPicker([QUESTION])
    picker.unattended_after = AFTER
    comm = recorder.of(picker)
    # ipykernel may run comm handlers on a subshell thread.
    announce = threading.Timer(AFTER / 3, comm.deliver, [attached_to_wire()])
    announce.start()
    asyncio.get_running_loop().call_later(AFTER * 4, picker.resolve, {"approved": False})
    try:
        [entry] = await asyncio.wait_for(picker.wait(), LIMIT * 2)
    finally:
        announce.join()
    assert entry.payload == {"approved": False}


async def test_answer_interruptions_with_no_responder_fails_fast(
    tmp_path: Path, recorder: CommRecorder, monkeypatch: pytest.MonkeyPatch
) -> None:
    @function_tool(needs_approval=True)
    def transfer_funds(amount: float, to: str) -> str:
        """Send money."""
        return f"sent {amount} to {to}"

    agent = Agent(name="bank", model=OfflineModel(), tools=[transfer_funds])
    result = await Runner.run(agent, "transfer_funds amount=5 to=bob")
    monkeypatch.setattr(InterruptPicker, "unattended_after", AFTER)
    message, took = await _fails_fast(answer_interruptions(result))
    assert took < LIMIT
    assert "the picker's question (transfer_funds)" in message
    _ways_out(message)


# -- the batch and its inbox ---------------------------------------------------------------

PROMPT = "transfer_funds amount={amount} to_account={account} memo={invoice}"
ROWS = [{"invoice": f"INV-{n}", "amount": 500, "account": "ACME-1"} for n in range(3)]


def _batch(journal: Path) -> tuple[AgentBatch, Inbox]:
    """A batch of three rows that each ask, and the inbox an awaited batch goes through."""
    batch = AgentBatch(
        bank_agent(OfflineModel(), journal=journal), ROWS, prompt=PROMPT, key="invoice"
    )
    inbox = batch.inbox
    assert isinstance(inbox, Inbox)
    inbox.unattended_after = AFTER
    return batch, inbox


async def test_an_awaited_batch_nobody_can_answer_fails_and_its_rows_keep_waiting(
    tmp_path: Path, recorder: CommRecorder
) -> None:
    batch, inbox = _batch(tmp_path / "journal.jsonl")

    async def awaited() -> Any:
        return await batch

    message, took = await _fails_fast(awaited())
    assert AFTER <= took < LIMIT
    assert message.startswith("Nobody can answer the inbox's 3 open question(s) (transfer_funds)")
    _ways_out(message)
    assert not batch.done
    assert len(batch.waiting()) == 3
    inbox.approve()
    results = await batch
    assert [r.status for r in results] == ["done"] * 3


async def test_a_batch_whose_inbox_a_front_end_holds_waits_for_its_answers(
    tmp_path: Path, recorder: CommRecorder
) -> None:
    batch, inbox = _batch(tmp_path / "journal.jsonl")
    batch.start()
    recorder.of(inbox).deliver(attached_to_wire())  # created, never shown
    await batch_until(batch, lambda: len(batch.waiting()) == 3)
    asyncio.get_running_loop().call_later(AFTER * 4, inbox.approve)
    began = time.monotonic()
    results = await asyncio.wait_for(_awaited(batch), LIMIT * 2)
    assert time.monotonic() - began >= AFTER * 3
    assert [r.status for r in results] == ["done"] * 3
    assert sorted(t["memo"] for t in read_journal(tmp_path / "journal.jsonl")) == [
        "INV-0",
        "INV-1",
        "INV-2",
    ]
