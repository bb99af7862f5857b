"""The chat builds its picker once, with the chat, and resets it for every question.

marimo creates a widget's front end only while a cell runs, and a run may pause long
after the cell that started it (or from the chat's own prompt box, outside any cell):
so no widget may be created while a run goes on. These tests count the comms opened.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator

import pytest
from ag_ui.core import BaseEvent, RunAgentInput

from interrupt_widget.examples import meeting_agent
from interrupt_widget.sdk.offline_model import OfflineModel
from interrupt_widget.testing import CommRecorder, until
from interrupt_widget.widgets._bundle import CSS, ESM, INBOX_CSS, INBOX_ESM, SERVED_AT_ENV
from interrupt_widget.widgets.chat import AgentChat, error_line
from interrupt_widget.widgets.inbox import Inbox
from interrupt_widget.widgets.picker import AnswerRefused, InterruptPicker

BOOK = "Book a call with Alice about the Q3 roadmap"
APPROVE = {
    "approved": True,
    "chosen_time": "2030-01-08T10:00:00Z",
    "chosen_label": "Tue 8 Jan 10:00",
}


def question(interrupt_id: str) -> dict[str, object]:
    return {
        "id": interrupt_id,
        "reason": "input_required",
        "responseSchema": {"type": "object", "properties": {"ok": {"type": "boolean"}}},
    }


async def test_every_question_reuses_the_picker_built_with_the_chat(
    recorder: CommRecorder,
) -> None:
    agent = meeting_agent(OfflineModel())
    chat = AgentChat(agent)
    opened = len(recorder.comms)  # the chat, its picker (and their layouts), in the "cell"
    assert not chat.picker  # nothing to ask yet: the chat shows no picker

    first = chat.send(BOOK)
    await until(chat, lambda: chat.status == "waiting")
    picker = chat.picker
    assert picker is not None
    first_id = picker.interrupts[0]["id"]
    picker.resolve(APPROVE, by="user")
    await first
    assert picker.status == "submitted"

    second = chat.send("Book a call with Bob about hiring")  # as typed into the prompt box
    assert not chat.picker  # the answered card leaves with the next message
    await until(chat, lambda: chat.status == "waiting")
    assert chat.picker is picker
    second_id = picker.interrupts[0]["id"]
    assert second_id != first_id
    assert picker.answers == {}
    assert picker.status == "waiting"
    assert picker.open_interrupts[0].id == second_id

    # A click still on its way for the first question is refused, not applied.
    comm = recorder.of(picker)
    comm.deliver({"type": "answer", "interruptId": first_id, "status": "resolved",
                  "payload": APPROVE, "requestId": "late"})  # fmt: skip
    (late,) = [m for m in comm.custom_messages() if m.get("requestId") == "late"]
    assert late["ok"] is False
    assert "unknown interrupt id" in late["error"]

    picker.resolve(APPROVE, by="user")
    result = await second
    assert result.outcome == "success"
    assert agent.executions.count("schedule_meeting") == 2
    assert [d.interrupt_id for d in chat.decisions] == [first_id, second_id]
    assert len(recorder.comms) == opened  # no widget was made while the runs went on


async def test_a_prompt_from_the_chat_box_pauses_on_the_same_picker(
    recorder: CommRecorder,
) -> None:
    agent = meeting_agent(OfflineModel())
    chat = AgentChat(agent)
    opened = len(recorder.comms)
    recorder.of(chat).deliver({"type": "prompt", "text": BOOK, "requestId": "p1"})
    await until(chat, lambda: chat.status == "waiting")
    assert chat.picker is not None
    chat.picker.resolve(APPROVE, by="user")
    assert chat.last_run is not None
    await chat.last_run
    assert agent.executions.count() == 1
    assert len(recorder.comms) == opened


def test_reset_asks_afresh_and_refuses_bad_interrupts_whole(recorder: CommRecorder) -> None:
    picker = InterruptPicker(None)
    assert repr(picker) == "InterruptPicker: nothing asked yet"
    assert not picker.submitted  # nothing asked is nothing submitted
    with pytest.raises(AnswerRefused, match="nothing is asked yet"):
        picker.resolve({"ok": True})

    picker.reset([question("a")])
    picker.resolve({"ok": True})
    assert picker.submitted
    with pytest.raises(ValueError, match="at least one"):
        picker.reset([])
    with pytest.raises(ValueError, match="unique; repeated: b"):
        picker.reset([question("b"), question("b")])
    assert [i["id"] for i in picker.interrupts] == ["a"]  # the refusals changed nothing
    assert picker.submitted

    picker.reset([question("b")])
    assert (picker.status, picker.answers, picker.entries) == ("waiting", {}, None)
    with pytest.raises(AnswerRefused, match="unknown interrupt id 'a'"):
        picker.resolve({"ok": True}, "a")
    picker.cancel("b")
    assert picker.entries is not None
    assert [(e.interrupt_id, e.status) for e in picker.entries] == [("b", "cancelled")]


async def test_a_waiting_coroutine_gets_the_next_submission_after_a_reset(
    recorder: CommRecorder,
) -> None:
    picker = InterruptPicker(None)
    waiting = asyncio.ensure_future(picker.wait(timeout=30))
    picker.reset([question("q")])
    picker.resolve({"ok": False}, "q")
    (entry,) = await waiting
    assert (entry.interrupt_id, entry.payload) == ("q", {"ok": False})


class _SilentFailure:
    """An agent whose run raises an exception with no text, as marimo's assertion does."""

    async def run(self, input: RunAgentInput) -> AsyncIterator[BaseEvent]:
        raise AssertionError
        yield  # pragma: no cover - makes this an async generator


class _SilentResponder:
    name = "silent"

    def respond(self, picker: InterruptPicker) -> None:
        raise AssertionError


async def test_a_failure_with_no_text_names_its_type_and_what_failed(
    recorder: CommRecorder,
) -> None:
    chat = AgentChat(_SilentFailure())
    with pytest.raises(Exception, match="AssertionError"):
        await chat.send("hi")
    assert chat.status == "error"
    assert chat.status_line.startswith("Error: AssertionError")
    assert "running the agent" in chat.status_line

    chat = AgentChat(meeting_agent(OfflineModel()), responder=_SilentResponder())
    with pytest.raises(AssertionError):
        await chat.send(BOOK)
    assert chat.status_line == "Error: AssertionError while asking for an answer"


def test_error_lines_are_never_bare() -> None:
    assert error_line(KeyError(), "resuming the run") == "Error: KeyError while resuming the run"
    assert error_line(ValueError("bad time"), "x") == "Error: bad time"
    assert error_line("", "running the agent") == (
        "Error: the run failed while running the agent (no message given)"
    )
    assert error_line(None, "x").strip() != "Error:"


def test_the_chats_picker_carries_a_loader_of_the_chats_module_not_a_copy(
    recorder: CommRecorder,
) -> None:
    # An executed notebook saves `_esm` once per widget model: one copy per chat, not two.
    chat = AgentChat(meeting_agent(OfflineModel()))
    picker_module = chat._picker.get_state()["_esm"]
    assert len(picker_module) < 1_000
    assert json.dumps(chat.model_id) in picker_module
    assert chat.get_state()["_esm"] == ESM.read_text(encoding="utf-8")
    alone = InterruptPicker([question("q1")])
    assert alone.get_state()["_esm"] == ESM.read_text(encoding="utf-8")


def test_on_a_server_that_serves_the_bundle_no_widget_carries_it(
    recorder: CommRecorder, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The kit's server extension serves the bundle and says where: an executed notebook then
    # saves a few lines per widget, not ~60 KB, and the widget still draws where it opens.
    monkeypatch.setenv(SERVED_AT_ENV, "interrupt-widget/static/")
    chat = AgentChat(meeting_agent(OfflineModel()))
    inbox = Inbox(chat)
    alone = InterruptPicker([question("q1")])
    states = [w.get_state() for w in (chat, chat._picker, inbox, alone)]
    saved = sum(len(s["_esm"]) + len(s["_css"]) for s in states)
    assert saved < 10_000, saved  # a loader is ~2.5 KB; the bundle alone ~60 KB a widget
    assert all(s["_css"] == "" for s in states)  # each loader links its stylesheet itself
    for state, files in (
        (states[0], (ESM, CSS)),
        (states[2], (INBOX_ESM, INBOX_CSS)),
        (states[3], (ESM, CSS)),
    ):
        for file in files:
            assert f'"interrupt-widget/static/{file.name}?v=' in state["_esm"]
    assert json.dumps(chat.model_id) in states[1]["_esm"]  # the chat's picker draws with the chat's
    monkeypatch.delenv(SERVED_AT_ENV)
    assert AgentChat(meeting_agent(OfflineModel())).get_state()["_esm"] == ESM.read_text(
        encoding="utf-8"
    )
