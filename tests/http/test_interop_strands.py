"""`AgentChat.remote` against AWS Strands' AG-UI server (`ag-ui-strands` 1.0.2).

The server runs in its own virtual environment (`scripts/interop-venv strands`)
with a scripted `strands.models.Model` and no network; `schedule_meeting` is
gated by `ToolBehavior(interrupt_on_call=True)` and writes a line per real run.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from interop_servers import InteropServer, interop_python, server_starter
from interrupt_widget import responders
from interrupt_widget.testing import CommRecorder, until
from interrupt_widget.widgets.chat import AgentChat

BOOK = "Book a call about the Q3 roadmap"


@pytest.fixture(scope="session")
def strands_python() -> str:
    return interop_python("strands")


@pytest.fixture
def server(strands_python: str, tmp_path: Path) -> Iterator[InteropServer]:
    starter = server_starter(strands_python, "strands_server.py", tmp_path)
    start: Callable[..., InteropServer] = next(starter)
    yield start()
    next(starter, None)


async def test_approve_runs_the_strands_tool_once(
    recorder: CommRecorder, server: InteropServer
) -> None:
    chat = AgentChat.remote(server.url)
    handle = chat.send(BOOK)
    await until(chat, lambda: chat.status == "waiting")
    [interrupt] = chat.interrupts
    assert interrupt.reason == "tool_call"
    assert chat.status_line == "Waiting for your answer: schedule_meeting"
    assert server.runs() == []
    assert chat.picker is not None
    chat.picker.resolve({"approved": True}, by="user")
    result = await handle
    assert result.outcome == "success"
    assert "Scheduled Q3 roadmap." in result.text
    assert server.runs() == [{"topic": "Q3 roadmap"}]


@pytest.mark.parametrize("answer", ["deny", "cancel"])
async def test_deny_and_cancel_run_nothing(
    recorder: CommRecorder, server: InteropServer, answer: str
) -> None:
    responder = responders.deny_all() if answer == "deny" else responders.cancel_all()
    chat = AgentChat.remote(server.url, responder=responder)
    result = await chat.send(BOOK)
    assert [d.verdict for d in result.decisions] == ["denied" if answer == "deny" else "cancelled"]
    assert server.runs() == []
