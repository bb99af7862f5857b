"""An answer carrying a field the kit's schema does not declare is refused at every entry,
with the same words, before anything runs: Python, a click, a bulk answer in the inbox, a
responder, and an AG-UI resume in process (over HTTP: tests/http/test_http_answer_fields.py
and the official client in test_agui_client_values.py).

The person asked to pay 1.0 to Mallory in the kit's old edit field (`arguments`) of a tool
that takes no edits; ignoring the field would have paid 42.0 to Bob. The tools write each
run to a file, so what ran is read, not inferred.
"""

from __future__ import annotations

import pathlib
import re
from typing import Any

import pytest
from ag_ui.core import (
    BaseEvent,
    Interrupt,
    MessagesSnapshotEvent,
    ResumeEntry,
    RunAgentInput,
    RunErrorEvent,
    RunFinishedEvent,
    RunFinishedInterruptOutcome,
    ToolCallResultEvent,
    UserMessage,
)

from interrupt_widget import AgentBatch, AgentChat, Inbox, OpenAIAgentsAdapter, responders
from interrupt_widget.asking.responders import ResponderError
from interrupt_widget.errors import AnswerRefused
from interrupt_widget.testing import CommRecorder, batch_until, until
from payment_agents import (
    PAY,
    PAY_PROPOSAL,
    REFUSED_PAY,
    REFUSED_SEND,
    SEND,
    Refused,
    payment_agent,
    runs_in,
)

BOB = [{"tool": "send_money", "amount": 42.0, "to": "Bob"}]
"""What approving the proposal runs, once."""
CASES = [(SEND, case) for case in REFUSED_SEND] + [(PAY, case) for case in REFUSED_PAY]


@pytest.fixture
def runs(tmp_path: pathlib.Path) -> pathlib.Path:
    return tmp_path / "runs.jsonl"


def ask(text: str, run_id: str = "r1") -> RunAgentInput:
    return RunAgentInput(
        thread_id="t1", run_id=run_id, messages=[UserMessage(id="u1", content=text)]
    )


def paused(events: list[BaseEvent]) -> tuple[Interrupt, list[Any]]:
    finished = events[-1]
    assert isinstance(finished, RunFinishedEvent)
    assert isinstance(finished.outcome, RunFinishedInterruptOutcome)
    (interrupt,) = finished.outcome.interrupts
    snapshot = [e for e in events if isinstance(e, MessagesSnapshotEvent)][-1]
    return interrupt, snapshot.messages


async def test_an_agui_resume_ends_in_run_error_and_runs_nothing(
    runs: pathlib.Path, collect: Any
) -> None:
    adapter = OpenAIAgentsAdapter(payment_agent(runs))
    asked = {prompt: paused(await collect(adapter, ask(prompt))) for prompt in (SEND, PAY)}
    for n, (prompt, case) in enumerate(CASES):
        interrupt, messages = asked[prompt]
        entry = ResumeEntry(interrupt_id=interrupt.id, status="resolved", payload=case.payload)
        resume = RunAgentInput(thread_id="t1", run_id=f"r{n}", messages=messages, resume=[entry])
        events = await collect(adapter, resume)
        error = events[-1]
        assert isinstance(error, RunErrorEvent), case
        assert (error.code, case.says in error.message) == (case.code, True), error.message
        assert len(error.message) < 2000, case  # a flood or a huge name is never echoed whole
        assert not [e for e in events if isinstance(e, ToolCallResultEvent)], case
        assert runs_in(runs) == [], case
    # Refused answers leave the question as it was: the proposal approved runs once.
    interrupt, messages = asked[SEND]
    entry = ResumeEntry(interrupt_id=interrupt.id, status="resolved", payload={"approved": True})
    resume = RunAgentInput(thread_id="t1", run_id="ok", messages=messages, resume=[entry])
    assert isinstance((await collect(adapter, resume))[-1], RunFinishedEvent)
    assert runs_in(runs) == BOB


async def waiting_chat(runs: pathlib.Path, prompt: str) -> AgentChat:
    chat = AgentChat(payment_agent(runs))
    chat.send(prompt)
    await until(chat, lambda: chat.status == "waiting")
    return chat


async def test_a_python_answer_is_refused_and_a_valid_edit_still_runs(
    runs: pathlib.Path, recorder: CommRecorder
) -> None:
    chats = {prompt: await waiting_chat(runs, prompt) for prompt in (SEND, PAY)}
    for prompt, case in CASES:
        picker = chats[prompt].picker
        assert picker is not None
        with pytest.raises(AnswerRefused) as refused:
            picker.resolve(case.payload)
        assert case.says in str(refused.value), case
        assert picker.answers == {}, case
        assert runs_in(runs) == [], case
    pay = chats[PAY].picker
    assert pay is not None
    pay.resolve({"approved": True, "editedArgs": {**PAY_PROPOSAL, "amount": 99.0}})
    handle = chats[PAY].last_run
    assert handle is not None
    await handle
    assert runs_in(runs) == [{"tool": "pay", **PAY_PROPOSAL, "amount": 99.0}]


def click(picker: Any, recorder: CommRecorder, payload: Any, request_id: str) -> dict[str, Any]:
    """The front end's resolve message for the picker's open question; Python's reply."""
    comm = recorder.of(picker)
    comm.deliver(
        {
            "type": "answer",
            "requestId": request_id,
            "interruptId": picker.interrupts[0]["id"],
            "status": "resolved",
            "payload": payload,
        }
    )
    (reply,) = [m for m in comm.custom_messages() if m.get("requestId") == request_id]
    assert reply["type"] == "answer_result"
    return dict(reply)


async def test_a_click_is_refused_with_the_same_words_and_shown_on_the_card(
    runs: pathlib.Path, recorder: CommRecorder
) -> None:
    chats = {prompt: await waiting_chat(runs, prompt) for prompt in (SEND, PAY)}
    for n, (prompt, case) in enumerate(CASES):
        picker = chats[prompt].picker
        reply = click(picker, recorder, case.payload, f"r{n}")
        assert reply["ok"] is False, case
        assert case.says in reply["error"], case
        assert picker is not None
        assert picker.answers == {}, case
        shown = picker.errors[picker.interrupts[0]["id"]]  # on the card, beside its field
        assert any(case.says in e["message"] for e in shown), case
    assert runs_in(runs) == []
    # What the form sends for an edit is taken, and runs once with it.
    edit = {"approved": True, "editedArgs": {**PAY_PROPOSAL, "memo": "rent, May"}}
    assert click(chats[PAY].picker, recorder, edit, "edit")["ok"] is True
    handle = chats[PAY].last_run
    assert handle is not None
    await handle
    assert runs_in(runs) == [{"tool": "pay", **PAY_PROPOSAL, "memo": "rent, May"}]


async def test_a_bulk_answer_in_the_inbox_is_refused_for_every_row(
    runs: pathlib.Path, recorder: CommRecorder
) -> None:
    rows = [{"key": "a", "to": "Bob"}, {"key": "b", "to": "Eve"}]
    batch = AgentBatch(
        payment_agent(runs), rows, prompt="send_money amount=42 to={to}", key="key"
    ).start()
    await batch_until(batch, lambda: len(batch.waiting()) == 2)
    inbox = Inbox(batch)
    channel = recorder.of(inbox)
    channel.deliver({"type": "hello"})
    (snapshot,) = [m for m in channel.custom_messages() if m["type"] == "snapshot"]
    ids = [item["id"] for item in snapshot["items"]]
    for n, case in enumerate(REFUSED_SEND):
        message = {"type": "answer", "requestId": f"r{n}", "ids": ids, "status": "resolved"}
        channel.deliver({**message, "payload": case.payload})
        (reply,) = [m for m in channel.custom_messages() if m.get("requestId") == f"r{n}"]
        assert [r["ok"] for r in reply["results"]] == [False, False], case
        assert all(case.says in r["error"] for r in reply["results"]), case
        with pytest.raises(AnswerRefused, match=re.escape(case.says)):
            batch.row("a").resolve(case.payload)
    assert len(batch.waiting()) == 2
    assert inbox.cancel() == {"a": "cancelled", "b": "cancelled"}
    await batch
    assert runs_in(runs) == []


@pytest.mark.parametrize(("prompt", "case"), CASES, ids=[f"{p.split()[0]}-{c}" for p, c in CASES])
async def test_a_responder_is_refused_before_anything_runs(
    runs: pathlib.Path, recorder: CommRecorder, prompt: str, case: Refused
) -> None:
    tool = prompt.split()[0]
    chat = AgentChat(payment_agent(runs), responder=responders.answers({tool: case.payload}))
    with pytest.raises(ResponderError) as refused:
        await chat.send(prompt)
    assert case.says in str(refused.value)
    assert chat.picker is not None
    assert chat.picker.answers == {}
    assert runs_in(runs) == []
