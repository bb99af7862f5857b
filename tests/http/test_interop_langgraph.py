"""`AgentChat.remote` against LangGraph's own AG-UI server (`ag-ui-langgraph` 0.0.47).

The server runs in its own virtual environment (`scripts/interop-venv langgraph`,
made on first use) with a scripted LangChain chat model and no network; its tool
appends a line to a file for every real run. Both of the server's modes are
answered: its default (legacy `CUSTOM` `on_interrupt`, RUN_FINISHED without an
outcome) and `emit_interrupt_outcome=True` (AG-UI 1.0).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from interop_servers import InteropServer, interop_python, server_starter
from interrupt_widget import responders
from interrupt_widget.http.remote import RemoteAgent
from interrupt_widget.testing import CommRecorder, until
from interrupt_widget.widgets.chat import AgentChat

BOOK = "Book a call about the Q3 roadmap"


@pytest.fixture(scope="session")
def langgraph_python() -> str:
    return interop_python("langgraph")


@pytest.fixture
def start_server(langgraph_python: str, tmp_path: Path) -> Iterator[Callable[..., InteropServer]]:
    yield from server_starter(langgraph_python, "langgraph_server.py", tmp_path)


@pytest.mark.parametrize("mode", ["legacy", "outcome"])
async def test_approve_runs_the_graph_tool_once(
    recorder: CommRecorder, start_server: Callable[..., InteropServer], mode: str
) -> None:
    server = start_server(mode, "agui")
    chat = AgentChat.remote(server.url)
    handle = chat.send(BOOK)
    # Paused, and said so: never "done" with an empty reply.
    await until(chat, lambda: chat.status == "waiting")
    [interrupt] = chat.interrupts
    assert interrupt.reason == "tool_call"
    assert interrupt.message == "Schedule Q3 roadmap?"
    assert server.runs() == []
    assert chat.picker is not None
    chat.picker.resolve({"approved": True, "chosen_time": "2030-01-08T10:00:00Z"}, by="user")
    result = await handle
    assert result.outcome == "success"
    assert "Scheduled Q3 roadmap at 2030-01-08T10:00:00Z." in result.text
    assert [r["said"] for r in server.runs()] == ["2030-01-08T10:00:00Z"]


@pytest.mark.parametrize("mode", ["legacy", "outcome"])
@pytest.mark.parametrize("answer", ["deny", "cancel"])
async def test_deny_and_cancel_run_nothing(
    recorder: CommRecorder,
    start_server: Callable[..., InteropServer],
    mode: str,
    answer: str,
) -> None:
    server = start_server(mode, "agui")
    responder = responders.deny_all() if answer == "deny" else responders.cancel_all()
    chat = AgentChat.remote(server.url, responder=responder)
    result = await chat.send(BOOK)
    assert result.outcome == "success"
    assert "Not scheduled" in result.text
    assert server.runs() == []


@pytest.mark.parametrize("mode", ["legacy", "outcome"])
async def test_an_agent_inbox_human_interrupt_is_an_approval_answered_as_accept(
    recorder: CommRecorder, start_server: Callable[..., InteropServer], mode: str
) -> None:
    server = start_server(mode, "human")
    chat = AgentChat.remote(server.url)
    handle = chat.send(BOOK)
    await until(chat, lambda: chat.status == "waiting")
    [interrupt] = chat.interrupts
    assert interrupt.reason == "tool_call"
    assert interrupt.metadata is not None
    assert interrupt.metadata["tool_name"] == "schedule_meeting"
    assert interrupt.metadata["tool_input"] == {"topic": "Q3 roadmap"}
    assert chat.picker is not None
    chat.picker.resolve({"approved": True}, by="user")
    result = await handle
    assert "Scheduled Q3 roadmap." in result.text
    assert [r["args"] for r in server.runs()] == [{"topic": "Q3 roadmap"}]


async def test_a_human_interrupt_denied_with_a_reason_is_a_response_and_runs_nothing(
    recorder: CommRecorder, start_server: Callable[..., InteropServer]
) -> None:
    server = start_server("legacy", "human")
    chat = AgentChat.remote(server.url)
    handle = chat.send(BOOK)
    await until(chat, lambda: chat.status == "waiting")
    assert chat.picker is not None
    chat.picker.resolve({"approved": False, "reason": "Not this week"}, by="user")
    result = await handle
    assert "Not scheduled: Not this week." in result.text
    assert server.runs() == []


async def test_a_plain_string_interrupt_is_a_question_answered_in_words(
    recorder: CommRecorder, start_server: Callable[..., InteropServer]
) -> None:
    server = start_server("legacy", "text")
    chat = AgentChat.remote(server.url)
    handle = chat.send(BOOK)
    await until(chat, lambda: chat.status == "waiting")
    [interrupt] = chat.interrupts
    assert interrupt.reason == "input_required"
    assert interrupt.message == "When should the Q3 roadmap meeting be?"
    assert chat.picker is not None
    chat.picker.resolve({"response": "Tuesday at ten"}, by="user")
    result = await handle
    assert "Scheduled Q3 roadmap at Tuesday at ten." in result.text
    assert [r["said"] for r in server.runs()] == ["Tuesday at ten"]


@pytest.mark.parametrize(("graph", "answer"), [("human", {"approved": True}), ("text", None)])
async def test_a_chat_saved_while_waiting_answers_the_same_after_load(
    recorder: CommRecorder,
    start_server: Callable[..., InteropServer],
    tmp_path: Path,
    graph: str,
    answer: dict[str, bool] | None,
) -> None:
    server = start_server("legacy", graph)
    chat = AgentChat.remote(server.url)
    chat.send(BOOK)
    await until(chat, lambda: chat.status == "waiting")
    saved = chat.save(tmp_path / "waiting.json")
    # Another kernel: a new RemoteAgent that never saw the legacy pause.
    loaded = AgentChat.load(saved, RemoteAgent(server.url))
    assert loaded.status == "waiting"
    assert loaded.picker is not None
    loaded.picker.resolve(answer or {"response": "Tuesday at ten"}, by="user")
    await until(loaded, lambda: loaded.status in ("done", "error"))
    if graph == "human":
        assert "Scheduled Q3 roadmap." in loaded.text
        assert [r["args"] for r in server.runs()] == [{"topic": "Q3 roadmap"}]
    else:
        assert "Scheduled Q3 roadmap at Tuesday at ten." in loaded.text
        assert [r["said"] for r in server.runs()] == ["Tuesday at ten"]
