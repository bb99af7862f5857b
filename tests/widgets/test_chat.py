"""AgentChat end to end in one process: the real adapter, the offline model, a recording comm.

Everything a browser would do goes through the widgets' comms (`deliver`), and
everything it would see is read from what the widgets published.
"""

from __future__ import annotations

import asyncio
import os
import pathlib
import threading
import traceback
from collections.abc import AsyncIterator
from typing import Any

import pytest
from ag_ui.core import (
    BaseEvent,
    Interrupt,
    MessagesSnapshotEvent,
    RunAgentInput,
    RunFinishedEvent,
    RunFinishedInterruptOutcome,
    RunStartedEvent,
)
from agents import set_tracing_disabled

from interrupt_widget import responders
from interrupt_widget.asking.responders import ResponderError
from interrupt_widget.asking.thread import InterruptsOpen, ThreadBusy
from interrupt_widget.errors import AnswerRefused
from interrupt_widget.examples import meeting_agent
from interrupt_widget.sdk.offline_model import OfflineModel
from interrupt_widget.testing import CommRecorder, RecordingComm, recording_comms, until
from interrupt_widget.widgets.chat import AgentChat, ChatRunError

set_tracing_disabled(True)

BOOK = "Book a call with Alice about the Q3 roadmap"
APPROVE = {
    "approved": True,
    "chosen_time": "2030-01-08T10:00:00Z",
    "chosen_label": "Tue 8 Jan 10:00",
}


def batches(comm: RecordingComm) -> list[dict[str, Any]]:
    return [m for m in comm.custom_messages() if m.get("type") == "events"]


def streamed_text(comm: RecordingComm) -> str:
    return "".join(
        e["delta"]
        for b in batches(comm)
        for e in b["events"]
        if e["type"] == "TEXT_MESSAGE_CONTENT"
    )


async def test_send_streams_a_reply_in_batches_and_commits_the_conversation(
    recorder: CommRecorder,
) -> None:
    chat = AgentChat(meeting_agent(OfflineModel()))
    handle = chat.send("reply with 300 words")
    assert not handle.done()  # send returns at once; the run goes on in the background
    result = await handle
    assert result.outcome == "success"
    assert len(result.text.split()) == 300
    assert chat.status == "done"
    comm = recorder.of(chat)
    assert streamed_text(comm) == result.text
    sent = batches(comm)
    assert len(sent) < 300 / 5  # deltas were merged, not sent one by one
    assert sent[-1]["events"][-1]["type"] == "RUN_FINISHED"
    # The snapshot would repeat the reply: the `messages` trait carries it once instead.
    assert all(e["type"] != "MESSAGES_SNAPSHOT" for b in sent for e in b["events"])
    assert [m["role"] for m in chat.messages] == ["user", "assistant"]
    assert chat.messages[1]["content"] == result.text
    assert next(e.type.value for e in chat.events[0]) == "RUN_STARTED"
    # The transcript never travels as a growing trait: no state update carries a delta.
    assert all("events" not in update for update in comm.state_updates())


async def test_an_interrupt_waits_for_the_picker_and_the_tool_runs_once(
    recorder: CommRecorder,
) -> None:
    agent = meeting_agent(OfflineModel())
    chat = AgentChat(agent)
    handle = chat.send(BOOK)
    await until(chat, lambda: chat.status == "waiting")
    assert chat.picker is not None
    assert chat.status_line == "Waiting for your answer: schedule_meeting"
    assert not handle.done()
    with pytest.raises(InterruptsOpen, match="waiting for an answer"):
        chat.send("something else")
    chat.picker.resolve(APPROVE)
    result = await handle
    assert "Tue 8 Jan 10:00" in result.text
    assert agent.executions.count("schedule_meeting") == 1
    assert len(result.run_ids) == 2
    [decision] = chat.decisions
    assert (decision.tool, decision.verdict, decision.by) == (
        "schedule_meeting",
        "approved",
        "python",
    )
    assert decision.arguments == {"topic": "Q3 roadmap", "attendee": "Alice"}
    assert decision.payload == APPROVE
    assert result.decisions == (decision,)
    frame = chat.decisions_frame()
    assert list(frame["verdict"]) == ["approved"]
    assert chat.interrupts == []


async def test_clicks_from_several_views_resume_exactly_once(recorder: CommRecorder) -> None:
    agent = meeting_agent(OfflineModel())
    chat = AgentChat(agent)
    handle = chat.send(BOOK)
    await until(chat, lambda: chat.status == "waiting")
    picker = chat.picker
    assert picker is not None
    interrupt_id = picker.interrupts[0]["id"]
    comm = recorder.of(picker)
    answer = {
        "type": "answer",
        "interruptId": interrupt_id,
        "status": "resolved",
        "payload": APPROVE,
    }
    # Two views click at once, from comm threads, plus a late third click.
    clicks = [
        threading.Thread(target=comm.deliver, args=({**answer, "requestId": f"r{n}"},))
        for n in range(2)
    ]
    for click in clicks:
        click.start()
    for click in clicks:
        click.join()
    comm.deliver({**answer, "requestId": "late"})
    result = await handle
    replies = [m for m in comm.custom_messages() if m.get("type") == "answer_result"]
    assert sorted(r["ok"] for r in replies) == [False, False, True]
    assert agent.executions.count("schedule_meeting") == 1
    assert result.decisions[0].by == "user"
    assert len(chat.thread.runs) == 2


async def test_the_front_end_prompt_and_a_refusal_while_waiting(recorder: CommRecorder) -> None:
    chat = AgentChat(meeting_agent(OfflineModel()))
    comm = recorder.of(chat)
    comm.deliver({"type": "prompt", "text": BOOK, "requestId": "p1"})
    await until(chat, lambda: chat.status == "waiting")
    comm.deliver({"type": "prompt", "text": "hello?", "requestId": "p2"})
    replies = {m["requestId"]: m for m in comm.custom_messages() if m["type"] == "prompt_result"}
    assert replies["p1"]["ok"] is True
    assert replies["p2"]["ok"] is False
    assert "answer or cancel it in the picker" in replies["p2"]["error"]
    assert [m["role"] for m in chat.messages][:1] == ["user"]
    assert sum(1 for m in chat.messages if m["role"] == "user") == 1


async def test_a_view_opened_mid_run_catches_up(recorder: CommRecorder) -> None:
    chat = AgentChat(meeting_agent(OfflineModel()))
    comm = recorder.of(chat)
    original = comm.publish_msg

    def publish(msg_type: str, data: dict[str, Any] | None = None, **kw: Any) -> None:
        original(msg_type, data, **kw)
        content = (data or {}).get("content") or {}
        shows_text = content.get("type") == "events" and any(
            e["type"] == "TEXT_MESSAGE_CONTENT" for e in content["events"]
        )
        if shows_text and not comm_has_catchup():
            comm.deliver({"type": "hello"})  # a second view opens once text shows

    def comm_has_catchup() -> bool:
        return any(m["type"] == "catchup" for m in comm.custom_messages())

    comm.publish_msg = publish  # type: ignore[method-assign]
    result = await chat.send("reply with 3000 words")
    catchups = [m for m in comm.custom_messages() if m["type"] == "catchup"]
    assert len(catchups) == 1
    events = catchups[0]["events"]
    assert events[0]["type"] == "RUN_STARTED"
    so_far = "".join(e["delta"] for e in events if e["type"] == "TEXT_MESSAGE_CONTENT")
    assert so_far  # the run so far, merged
    assert result.text.startswith(so_far)
    assert streamed_text(comm) == result.text  # the other views got each chunk once


async def test_stop_button_mid_stream_ends_with_the_cancelled_outcome(
    recorder: CommRecorder,
) -> None:
    chat = AgentChat(meeting_agent(OfflineModel()))
    comm = recorder.of(chat)
    original = comm.publish_msg
    pressed: list[bool] = []

    def publish(msg_type: str, data: dict[str, Any] | None = None, **kw: Any) -> None:
        original(msg_type, data, **kw)
        content = (data or {}).get("content") or {}
        if (
            not pressed
            and content.get("type") == "events"
            and any(e["type"] == "TEXT_MESSAGE_CONTENT" for e in content["events"])
        ):
            pressed.append(True)
            comm.deliver({"type": "stop"})  # the person presses Stop once, when text shows

    comm.publish_msg = publish  # type: ignore[method-assign]
    result = await chat.send("reply with 5000 words")
    assert result.outcome == "cancelled"
    assert chat.status == "cancelled"
    assert chat.status_line == "Stopped."
    last = chat.events[-1][-1]
    assert last.type.value == "RUN_FINISHED"
    assert last.outcome is not None
    assert last.outcome.type == "cancelled"
    partial = chat.messages[-1]
    assert partial["role"] == "assistant"
    assert 0 < len(partial["content"].split()) < 5000  # what was said is kept
    follow_up = await chat.send("reply with 3 words")  # the chat is usable again
    assert follow_up.outcome == "success"


async def test_stop_while_waiting_cancels_the_interrupt_and_the_tool_never_runs(
    recorder: CommRecorder,
) -> None:
    agent = meeting_agent(OfflineModel())
    chat = AgentChat(agent)
    handle = chat.send(BOOK)
    await until(chat, lambda: chat.status == "waiting")
    recorder.of(chat).deliver({"type": "stop"})
    result = await handle
    assert result.outcome == "cancelled"
    assert agent.executions.count() == 0
    assert [d.verdict for d in chat.decisions] == ["cancelled"]
    assert chat.decisions[0].by == "user"
    roles = [m["role"] for m in chat.messages]
    assert roles == ["user", "assistant", "tool"]  # recorded as not run; the model did not speak
    assert chat.interrupts == []
    again = await chat.send("reply with 2 words")
    assert again.outcome == "success"


async def test_stop_right_after_send_ends_cancelled_before_the_model_speaks(
    recorder: CommRecorder,
) -> None:
    agent = meeting_agent(OfflineModel())
    chat = AgentChat(agent)
    handle = chat.send(BOOK)
    assert chat.stop()  # the same tick: the run has not begun
    result = await handle
    assert result.outcome == "cancelled"
    assert chat.status == "cancelled"
    assert chat.interrupts == []
    assert agent.executions.count() == 0
    assert [m["role"] for m in chat.messages] == ["user"]
    again = await chat.send("reply with 2 words")
    assert again.outcome == "success"


async def test_responders_answer_on_the_click_path(recorder: CommRecorder) -> None:
    agent = meeting_agent(OfflineModel())
    chat = AgentChat(agent, responder=responders.deny_all())
    result = await chat.send(BOOK)
    assert agent.executions.count() == 0  # denied: the tool body never ran
    assert "not scheduled" in result.text.lower()
    assert chat.decisions[0].by == "responder:deny_all"
    assert chat.picker is not None
    assert chat.picker.answers[chat.decisions[0].interrupt_id]["by"] == "responder:deny_all"


async def test_the_environment_sets_a_responder_for_chats_without_one(
    recorder: CommRecorder, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(responders.ENV_VAR, "answers_are_not_a_name")
    with pytest.raises(ValueError, match="not a responder"):
        AgentChat(meeting_agent(OfflineModel()))
    monkeypatch.setenv(responders.ENV_VAR, "cancel_all")
    agent = meeting_agent(OfflineModel())
    chat = AgentChat(agent)
    result = await chat.send(BOOK)
    assert [d.by for d in result.decisions] == ["responder:cancel_all"]
    own = AgentChat(meeting_agent(OfflineModel()), responder=responders.approve_all())
    assert own.responder is not None
    assert own.responder.name == "approve_all"


async def test_fail_responder_raises_from_the_awaited_send_and_a_person_can_still_answer(
    recorder: CommRecorder,
) -> None:
    agent = meeting_agent(OfflineModel())
    chat = AgentChat(agent, responder=responders.fail())
    with pytest.raises(ResponderError, match="schedule_meeting"):
        await chat.send(BOOK)
    assert chat.status == "error"
    assert "schedule_meeting" in chat.status_line
    assert chat.picker is not None
    chat.picker.resolve(APPROVE, by="user")
    assert chat.last_run is not None
    result = await chat.last_run
    assert "Tue 8 Jan 10:00" in result.text
    assert agent.executions.count() == 1


async def test_replaying_recorded_decisions(recorder: CommRecorder, tmp_path: pathlib.Path) -> None:
    first = AgentChat(meeting_agent(OfflineModel()))
    handle = first.send(BOOK)
    await until(first, lambda: first.status == "waiting")
    assert first.picker is not None
    first.picker.resolve(APPROVE, by="user")
    await handle
    path = first.save_decisions(tmp_path / "decisions.json")

    agent = meeting_agent(OfflineModel())
    replayed = AgentChat(agent, responder=responders.replay(path))
    result = await replayed.send(BOOK)
    assert replayed.decisions[0].payload == APPROVE
    assert replayed.decisions[0].by == "responder:replay:decisions.json"
    assert "Tue 8 Jan 10:00" in result.text
    changed = AgentChat(meeting_agent(OfflineModel()), responder=responders.replay(path))
    with pytest.raises(ResponderError, match=r"arguments of schedule_meeting .* changed"):
        await changed.send("Book a call with Bob about the budget")


async def test_a_run_error_shows_in_the_status_line_and_the_awaited_handle(
    recorder: CommRecorder,
) -> None:
    class BrokenModel(OfflineModel):
        def stream_response(self, *args: Any, **kwargs: Any) -> Any:
            raise RuntimeError("the model is down")

    chat = AgentChat(meeting_agent(OfflineModel()), model=BrokenModel())
    with pytest.raises(ChatRunError, match="the model is down"):
        await chat.send("hello")
    assert chat.status == "error"
    assert "the model is down" in chat.status_line
    assert chat.events[-1][-1].type.value == "RUN_ERROR"
    assert "the model is down" in repr(chat)


async def test_save_and_load_resume_with_the_tool_run_once(
    recorder: CommRecorder, tmp_path: pathlib.Path
) -> None:
    old_agent = meeting_agent(OfflineModel())
    chat = AgentChat(old_agent)
    chat.send(BOOK)
    await until(chat, lambda: chat.status == "waiting")
    path = chat.save(tmp_path / "chat.json")

    new_agent = meeting_agent(OfflineModel())  # as in a new kernel: new agent, new adapter
    loaded = AgentChat.load(path, new_agent)
    assert loaded.status == "waiting"
    assert loaded.picker is not None
    assert repr(loaded.picker) == "Interrupt schedule_meeting: waiting for an answer"
    loaded.picker.resolve(APPROVE, by="user")
    assert loaded.last_run is not None
    result = await loaded.last_run
    assert "Tue 8 Jan 10:00" in result.text
    assert new_agent.executions.count() == 1
    assert old_agent.executions.count() == 0
    # Loading the finished chat and going on never runs the approved call again.
    done_path = loaded.save(tmp_path / "done.json")
    again = AgentChat.load(done_path, new_agent)
    assert not again.picker
    await again.send("reply with 2 words")
    assert new_agent.executions.count() == 1


async def test_two_copies_of_one_waiting_chat_in_a_kernel_run_the_tool_once(
    recorder: CommRecorder, tmp_path: pathlib.Path
) -> None:
    agent = meeting_agent(OfflineModel())
    original = AgentChat(agent)
    original.send(BOOK)
    await until(original, lambda: original.status == "waiting")
    copy = AgentChat.load(original.save(tmp_path / "chat.json"), agent)
    assert original.picker is not None
    assert copy.picker is not None

    original.picker.resolve(APPROVE, by="user")
    copy.picker.resolve(APPROVE, by="user")
    assert original.last_run is not None
    assert copy.last_run is not None
    first, second = await asyncio.gather(original.last_run, copy.last_run)

    assert agent.executions.count() == 1  # the second copy replayed the first one's output
    assert "Tue 8 Jan 10:00" in first.text
    assert "Tue 8 Jan 10:00" in second.text


async def test_load_refuses_a_file_that_is_not_a_saved_chat(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "x.json"
    path.write_text('{"format": "other"}', encoding="utf-8")
    with pytest.raises(ValueError, match="not a saved chat"):
        AgentChat.load(path, meeting_agent(OfflineModel()))


async def test_text_repr_is_deterministic(recorder: CommRecorder) -> None:
    chat = AgentChat(meeting_agent(OfflineModel()), responder=responders.approve_all())
    assert repr(chat) == "AgentChat (idle)"
    await chat.send("Say hi")
    assert repr(chat).startswith("AgentChat (done)\nAgent: You said: Say hi\n\n(The offline")
    data, _metadata = chat._repr_mimebundle_()
    assert data["text/plain"] == repr(chat)  # what nbval compares: no ids, no addresses


def test_send_outside_an_event_loop_is_refused_clearly() -> None:
    with recording_comms():
        chat = AgentChat(meeting_agent(OfflineModel()))
    with pytest.raises(RuntimeError, match="from a notebook cell or from a coroutine"):
        chat.send("hi")
    assert os.environ.get(responders.ENV_VAR) is None


class _ServerWithUnshowableInterrupts:
    """An AG-UI agent (as a remote server may be) whose interrupts the picker refuses."""

    def __init__(self, interrupts: list[Interrupt]) -> None:
        self.interrupts = interrupts

    async def run(self, input: RunAgentInput) -> AsyncIterator[BaseEvent]:
        yield RunStartedEvent(thread_id=input.thread_id, run_id=input.run_id)
        yield MessagesSnapshotEvent(messages=list(input.messages))
        outcome = RunFinishedInterruptOutcome(interrupts=self.interrupts)
        yield RunFinishedEvent(thread_id=input.thread_id, run_id=input.run_id, outcome=outcome)


@pytest.mark.parametrize(
    ("interrupts", "reason"),
    [
        ([Interrupt(id="q", reason="input_required", expires_at="soon")], "expires_at 'soon'"),
        (
            [Interrupt(id="q", reason="input_required")] * 2,
            "must be unique",
        ),
    ],
)
async def test_interrupts_the_picker_cannot_show_end_in_the_status_line(
    recorder: CommRecorder, interrupts: list[Interrupt], reason: str
) -> None:
    chat = AgentChat(_ServerWithUnshowableInterrupts(interrupts))
    with pytest.raises(ValueError, match=reason):
        await chat.send("hi")
    assert chat.status == "error"
    assert reason in chat.status_line


async def test_a_second_send_before_the_first_run_starts_is_refused_not_lost(
    recorder: CommRecorder,
) -> None:
    chat = AgentChat(meeting_agent(), model=OfflineModel())
    comm = recorder.of(chat)
    first = chat.send("hello there")
    with pytest.raises(ThreadBusy, match="still answering"):
        chat.send("what can you do")
    comm.deliver({"type": "prompt", "text": "and this?", "requestId": "p2"})
    (reply,) = [m for m in comm.custom_messages() if m.get("type") == "prompt_result"]
    assert reply["ok"] is False
    assert "still answering" in reply["error"]
    await first
    assert [m["content"] for m in chat.messages if m["role"] == "user"] == ["hello there"]
    assert chat.status == "done"


async def test_the_picker_before_any_question_says_nothing_is_asked(
    recorder: CommRecorder,
) -> None:
    chat = AgentChat(meeting_agent(OfflineModel()))
    assert not chat.picker
    with pytest.raises(AnswerRefused, match=r"nothing is asked yet.*status == 'waiting'"):
        chat.picker.resolve({"approved": True})
    with pytest.raises(AnswerRefused, match="nothing is asked yet"):
        chat.picker.cancel()
    assert repr(chat.picker) == "InterruptPicker: nothing asked yet"
    with pytest.raises(AttributeError, match=r"chat.picker.answers: nothing is asked yet"):
        _ = chat.picker.answers
    assert chat.get_state()["picker"] is None  # the front end still sees no picker
    handle = chat.send(BOOK)
    await until(chat, lambda: chat.status == "waiting")
    assert chat.get_state()["picker"].startswith("IPY_MODEL_")
    chat.picker.resolve(APPROVE)
    await handle


async def test_a_responder_that_cannot_answer_leads_with_the_reason_and_the_way_out(
    recorder: CommRecorder,
) -> None:
    schema = {
        "type": "object",
        "properties": {"gpu": {"type": "string"}},
        "required": ["gpu"],
    }
    chat = AgentChat(
        meeting_agent(OfflineModel()),
        response_schemas={"schedule_meeting": schema},
        responder=responders.approve_all(),
    )
    with pytest.raises(ResponderError) as caught:
        await chat.send(BOOK)
    message = str(caught.value)
    assert "required field 'gpu' has no default" in message.splitlines()[0]
    assert "responders.answers({'schedule_meeting':" in message
    assert "responders.replay(path)" in message
    # No chained traceback and none of the run's inner frames: the reason is near the top.
    printed = "".join(traceback.format_exception(caught.value))
    assert "During handling" not in printed
    assert "direct cause" not in printed
    assert len(printed.splitlines()) < 12, printed
    assert chat.status == "error"


async def test_a_replayed_result_is_marked_in_the_result_the_decisions_and_the_picker(
    recorder: CommRecorder, tmp_path: pathlib.Path
) -> None:
    agent = meeting_agent(OfflineModel())
    ledger = tmp_path / "calls.db"
    first = AgentChat(agent, ledger=ledger)
    run = first.send(BOOK)
    await until(first, lambda: first.status == "waiting")
    saved = first.save(tmp_path / "waiting.json")
    first.picker.resolve(APPROVE)
    assert not (await run).replayed

    stale = AgentChat.load(saved, agent, ledger=ledger)  # the same question, asked again
    stale.picker.resolve(APPROVE)
    assert stale.last_run is not None
    result = await stale.last_run
    assert agent.executions.count("schedule_meeting") == 1
    assert [d.tool for d in result.replayed] == ["schedule_meeting"]
    assert str(result).endswith(" UTC (from Python); not run again)")
    assert "(schedule_meeting replayed: ran on " in str(result)
    assert stale.decisions[-1].outcome == "replayed"
    [record] = stale.picker.answers.values()
    assert record["outcome"] == "replayed"
    assert repr(stale.picker).endswith(", replayed (it had already run)")
