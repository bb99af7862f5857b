"""`AgentChat.remote`: the chat and picker driving an agent served over HTTP on 127.0.0.1.

The server is the kit's own (`asgi_app` on uvicorn, in this loop), the agent
runs the offline model, and every click goes through the widgets' comms.
"""

from __future__ import annotations

import asyncio
import json
import pathlib
from collections.abc import AsyncIterator
from typing import Any

import pytest
from agents import set_tracing_disabled
from starlette.applications import Starlette
from starlette.types import Receive, Scope, Send

from interrupt_widget import CallMismatch, responders
from interrupt_widget.agui.interrupts import approval_message
from interrupt_widget.errors import ErrorCode
from interrupt_widget.examples import ExampleAgent, meeting_agent
from interrupt_widget.http.app import asgi_app
from interrupt_widget.http.fingerprint import FINGERPRINT_KEY
from interrupt_widget.http.remote import RemoteAgent
from interrupt_widget.http.serve import running_server
from interrupt_widget.sdk.offline_model import OfflineModel
from interrupt_widget.testing import CommRecorder, until
from interrupt_widget.widgets.chat import AgentChat, ChatRunError
from interrupt_widget.widgets.picker import AnswerRefused

set_tracing_disabled(True)

TOKEN = "remote-chat-token"
SECRET = "remote-chat-secret-of-enough-length"
BOOK = "Book a call with Alice about the Q3 roadmap"
APPROVE = {
    "approved": True,
    "chosen_time": "2030-01-08T10:00:00Z",
    "chosen_label": "Tue 8 Jan 10:00",
}


class CountingApp:
    """The served app, counting the runs POSTed to it."""

    def __init__(self, app: Starlette) -> None:
        self.app = app
        self.posts = 0

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] == "POST":
            self.posts += 1
        await self.app(scope, receive, send)

    async def runs_finished(self) -> None:
        """Wait for every run the server still has in flight (a stopped one included)."""
        tasks = [run.task for run in self.app.state.runs]
        if tasks:
            await asyncio.wait(tasks)


class Served:
    def __init__(self, agent: ExampleAgent, app: CountingApp, url: str) -> None:
        self.agent = agent
        self.app = app
        self.url = url

    def chat(self, **options: Any) -> AgentChat:
        return AgentChat.remote(self.url, token=TOKEN, **options)


@pytest.fixture
async def served() -> AsyncIterator[Served]:
    agent = meeting_agent(OfflineModel())
    app = CountingApp(asgi_app(agent, token=TOKEN, secret=SECRET))
    async with running_server(app) as url:
        yield Served(agent, app, url)


def gated_calls(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        c for m in messages for c in m.get("toolCalls", []) if "interrupt" in c.get("metadata", {})
    ]


async def test_approving_with_a_time_runs_the_server_tool_once(
    recorder: CommRecorder, served: Served
) -> None:
    chat = served.chat()
    handle = chat.send(BOOK)
    await until(chat, lambda: chat.status == "waiting")
    assert chat.status_line == "Waiting for your answer: schedule_meeting"
    assert chat.picker is not None
    [interrupt] = chat.interrupts
    assert interrupt.response_schema is not None  # the server's schema drives the form
    # The snapshot's messages are kept as received: the server's fingerprint included.
    [call] = gated_calls(chat.messages)
    assert call["metadata"][FINGERPRINT_KEY]
    chat.picker.resolve(APPROVE, by="user")
    result = await handle
    assert result.outcome == "success"
    assert "Tue 8 Jan 10:00" in result.text
    assert served.agent.executions.count("schedule_meeting") == 1
    [ran] = served.agent.executions.calls
    assert ran.payload == APPROVE
    assert served.app.posts == 2  # the first run and one resume
    assert [d.verdict for d in result.decisions] == ["approved"]
    assert chat.status == "done"
    assert [m["role"] for m in chat.messages] == ["user", "assistant", "tool", "assistant"]


async def test_denying_never_runs_the_tool(recorder: CommRecorder, served: Served) -> None:
    chat = served.chat(responder=responders.deny_all())
    result = await chat.send(BOOK)
    assert served.agent.executions.count() == 0
    assert "not scheduled" in result.text.lower()
    assert [d.verdict for d in result.decisions] == ["denied"]


async def test_a_bad_answer_is_refused_in_the_picker_and_nothing_is_sent(
    recorder: CommRecorder, served: Served
) -> None:
    chat = served.chat()
    handle = chat.send(BOOK)
    await until(chat, lambda: chat.status == "waiting")
    picker = chat.picker
    assert picker is not None
    with pytest.raises(AnswerRefused, match="chosen_time"):
        picker.resolve({"approved": True, "chosen_label": "soon"})
    comm = recorder.of(picker)
    interrupt_id = picker.interrupts[0]["id"]
    not_a_time = {**APPROVE, "chosen_time": "next tuesday"}
    comm.deliver(
        {
            "type": "answer",
            "interruptId": interrupt_id,
            "status": "resolved",
            "payload": not_a_time,
            "requestId": "click-1",
        }
    )
    [reply] = [m for m in comm.custom_messages() if m.get("type") == "answer_result"]
    assert reply["ok"] is False
    assert picker.errors[interrupt_id][0]["path"] == "/chosen_time"
    assert served.app.posts == 1  # nothing went to the server
    assert chat.status == "waiting"
    assert not handle.done()
    picker.resolve(APPROVE, by="user")  # the refusals left the question open
    result = await handle
    assert served.agent.executions.count() == 1
    assert "Tue 8 Jan 10:00" in result.text


async def test_a_wrong_token_is_a_clear_error_and_keeps_the_message(
    recorder: CommRecorder, served: Served
) -> None:
    chat = AgentChat.remote(served.url, token="not-the-token")
    with pytest.raises(ChatRunError, match="bearer token is not this server's") as caught:
        await chat.send(BOOK)
    assert caught.value.code == "unauthorized"
    assert chat.status == "error"
    assert "HTTP 401" in chat.status_line
    assert [m["content"] for m in chat.messages] == [BOOK]  # what was typed is not lost
    assert served.agent.executions.count() == 0


async def test_an_unreachable_server_is_a_clear_error(recorder: CommRecorder) -> None:
    async with running_server(Starlette()) as url:
        pass  # the port is closed again once the block ends
    chat = AgentChat.remote(url)
    with pytest.raises(ChatRunError, match="Lost the agent") as caught:
        await chat.send("hello")
    assert caught.value.code == ErrorCode.CONNECTION_FAILED
    assert chat.status == "error"
    assert url in chat.status_line


async def test_a_connection_dropped_mid_run_keeps_what_arrived(recorder: CommRecorder) -> None:
    async def dropping(scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        events = [
            {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
            {"type": "TEXT_MESSAGE_START", "messageId": "m1", "role": "assistant"},
            {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "Half a rep"},
        ]
        body = "".join(f"data: {json.dumps(e)}\n\n" for e in events).encode()
        headers = [(b"content-type", b"text/event-stream")]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": body, "more_body": True})
        raise RuntimeError("the server died mid-stream")

    async with running_server(dropping) as url:
        chat = AgentChat.remote(url)
        with pytest.raises(ChatRunError, match="Lost the agent") as caught:
            await chat.send("hello")
    assert caught.value.code == ErrorCode.CONNECTION_FAILED
    assert chat.status == "error"
    assert [(m["role"], m.get("content")) for m in chat.messages] == [
        ("user", "hello"),
        ("assistant", "Half a rep"),
    ]
    last_run = chat.events[-1]
    assert last_run[-1].type.value == "RUN_ERROR"
    assert last_run[-2].type.value == "TEXT_MESSAGE_CONTENT"


async def test_stop_mid_run_closes_the_stream_and_the_server_stops(
    recorder: CommRecorder, served: Served
) -> None:
    chat = served.chat()
    comm = recorder.of(chat)
    original = comm.publish_msg

    def publish(msg_type: str, data: dict[str, Any] | None = None, **kw: Any) -> None:
        original(msg_type, data, **kw)
        content = (data or {}).get("content") or {}
        if content.get("type") == "events" and any(
            e["type"] == "TEXT_MESSAGE_CONTENT" for e in content["events"]
        ):
            comm.deliver({"type": "stop"})  # Stop, once text shows

    comm.publish_msg = publish  # type: ignore[method-assign]
    result = await chat.send("reply with 5000 words")
    comm.publish_msg = original  # type: ignore[method-assign]
    assert result.outcome == "cancelled"
    assert chat.status_line == "Stopped."
    assert chat.events[-1][-1].type.value == "RUN_FINISHED"
    partial = chat.messages[-1]
    assert partial["role"] == "assistant"
    assert 0 < len(partial["content"].split()) < 5000  # what was said is kept
    await served.app.runs_finished()  # the server ended the run the client left
    assert not served.app.app.state.runs
    follow_up = await chat.send("reply with 3 words")
    assert follow_up.outcome == "success"


async def test_stop_while_waiting_cancels_and_the_tool_never_runs(
    recorder: CommRecorder, served: Served
) -> None:
    chat = served.chat()
    handle = chat.send(BOOK)
    await until(chat, lambda: chat.status == "waiting")
    recorder.of(chat).deliver({"type": "stop"})
    result = await handle
    assert result.outcome == "cancelled"
    assert [d.verdict for d in chat.decisions] == ["cancelled"]
    await served.app.runs_finished()
    assert served.agent.executions.count() == 0
    assert chat.interrupts == []


async def test_save_and_load_a_remote_chat_runs_the_tool_once(
    recorder: CommRecorder, served: Served, tmp_path: pathlib.Path
) -> None:
    chat = served.chat()
    chat.send(BOOK)
    await until(chat, lambda: chat.status == "waiting")
    path = chat.save(tmp_path / "chat.json")
    saved = json.loads(path.read_text(encoding="utf-8"))
    [call] = gated_calls(saved["messages"])
    assert call["metadata"][FINGERPRINT_KEY]  # the fingerprint survives the file

    loaded = AgentChat.load(path, RemoteAgent(served.url, token=TOKEN))
    assert loaded.status == "waiting"
    assert loaded.picker is not None
    loaded.picker.resolve(APPROVE, by="user")
    assert loaded.last_run is not None
    result = await loaded.last_run
    assert "Tue 8 Jan 10:00" in result.text
    assert served.agent.executions.count() == 1
    # Going on from the finished chat, reloaded, never runs the call again.
    again = AgentChat.load(
        loaded.save(tmp_path / "done.json"), RemoteAgent(served.url, token=TOKEN)
    )
    await again.send("reply with 2 words")
    assert served.agent.executions.count() == 1


async def test_an_edited_saved_call_is_refused_on_load(
    recorder: CommRecorder, served: Served, tmp_path: pathlib.Path
) -> None:
    chat = served.chat()
    chat.send(BOOK)
    await until(chat, lambda: chat.status == "waiting")
    path = chat.save(tmp_path / "chat.json")
    saved = json.loads(path.read_text(encoding="utf-8"))
    [call] = gated_calls(saved["messages"])
    call["function"]["arguments"] = json.dumps({"topic": "Q3 roadmap", "attendee": "Mallory"})
    path.write_text(json.dumps(saved), encoding="utf-8")

    with pytest.raises(CallMismatch, match=call["id"]) as caught:
        AgentChat.load(path, RemoteAgent(served.url, token=TOKEN))
    assert caught.value.code == "call_mismatch"
    assert served.agent.executions.count() == 0


async def test_a_saved_call_edited_with_its_record_is_refused_by_the_server(
    recorder: CommRecorder, served: Served, tmp_path: pathlib.Path
) -> None:
    chat = served.chat()
    chat.send(BOOK)
    await until(chat, lambda: chat.status == "waiting")
    path = chat.save(tmp_path / "chat.json")
    saved = json.loads(path.read_text(encoding="utf-8"))
    [call] = gated_calls(saved["messages"])
    edited = {"topic": "Q3 roadmap", "attendee": "Mallory"}
    call["function"]["arguments"] = json.dumps(edited)
    for record in [call["metadata"]["interrupt"], *saved["interrupts"]]:
        record["metadata"]["tool_input"] = edited
        record["message"] = approval_message("schedule_meeting", edited)
    path.write_text(json.dumps(saved), encoding="utf-8")

    loaded = AgentChat.load(path, RemoteAgent(served.url, token=TOKEN))
    assert loaded.picker is not None
    loaded.picker.resolve(APPROVE, by="user")
    assert loaded.last_run is not None
    with pytest.raises(ChatRunError, match="does not match its fingerprint") as caught:
        await loaded.last_run
    assert caught.value.code == "fingerprint_invalid"
    assert loaded.status == "error"
    assert served.agent.executions.count() == 0


async def test_remote_refuses_options_that_belong_to_the_server(recorder: CommRecorder) -> None:
    with pytest.raises(TypeError, match="where it is served"):
        AgentChat.remote("http://127.0.0.1:9/", model=OfflineModel())


async def test_a_server_restarted_between_pause_and_resume_loses_nothing(
    recorder: CommRecorder,
) -> None:
    agent = meeting_agent(OfflineModel())
    async with running_server(asgi_app(agent, token=TOKEN, secret=SECRET)) as url:
        chat = AgentChat.remote(url, token=TOKEN)
        handle = chat.send(BOOK)
        await until(chat, lambda: chat.status == "waiting")
    # The server is down: the answer cannot reach it.
    assert chat.picker is not None
    chat.picker.resolve(APPROVE, by="user")
    with pytest.raises(ChatRunError, match="Lost the agent"):
        await handle
    assert chat.status == "error"
    assert agent.executions.count() == 0
    assert len(chat.interrupts) == 1  # still open, and asked again
    assert chat.picker is not None
    assert not chat.picker.submitted
    # Stateless: the same agent served again (same secret, same address) takes the resume.
    port = int(url.rstrip("/").rsplit(":", 1)[1])
    async with running_server(asgi_app(agent, token=TOKEN, secret=SECRET), port=port):
        chat.picker.resolve(APPROVE, by="user")
        assert chat.last_run is not None
        result = await chat.last_run
    assert "Tue 8 Jan 10:00" in result.text
    assert agent.executions.count() == 1
    assert [d.verdict for d in chat.decisions] == ["approved", "approved"]
