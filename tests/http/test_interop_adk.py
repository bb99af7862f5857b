"""`AgentChat.remote` against Google ADK's AG-UI server (`ag-ui-adk` 0.11).

The server runs in its own virtual environment (`scripts/interop-venv adk`) with a
scripted `BaseLlm` and no network; `schedule_meeting` is a
`FunctionTool(require_confirmation=True)` that writes a line per real run. In its
default mode the server pauses with a client tool call (`adk_request_confirmation`)
and no interrupt: the chat says so in its status line and names the server option;
with `emit_interrupt_outcome=True` it is answered like any AG-UI 1.0 interrupt.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from interop_servers import InteropServer, interop_python, server_starter
from interrupt_widget import responders
from interrupt_widget.errors import ChatRunError, ErrorCode
from interrupt_widget.testing import CommRecorder
from interrupt_widget.widgets.chat import AgentChat

BOOK = "Book a call about the Q3 roadmap"


@pytest.fixture(scope="session")
def adk_python() -> str:
    return interop_python("adk")


@pytest.fixture
def start_server(adk_python: str, tmp_path: Path) -> Iterator[Callable[..., InteropServer]]:
    yield from server_starter(adk_python, "adk_server.py", tmp_path)


async def test_the_default_pause_is_never_silent(
    recorder: CommRecorder, start_server: Callable[..., InteropServer]
) -> None:
    server = start_server("legacy")
    chat = AgentChat.remote(server.url)
    with pytest.raises(ChatRunError) as raised:
        await chat.send(BOOK)
    assert raised.value.code == ErrorCode.UNANSWERABLE_PAUSE
    assert chat.status == "error"
    assert "adk_request_confirmation" in chat.status_line
    assert "emit_interrupt_outcome=True" in chat.status_line
    assert server.runs() == []


async def test_with_the_1_0_outcome_approve_runs_the_tool_once(
    recorder: CommRecorder, start_server: Callable[..., InteropServer]
) -> None:
    server = start_server("outcome")
    chat = AgentChat.remote(server.url, responder=responders.approve_all())
    result = await chat.send(BOOK)
    assert result.outcome == "success"
    assert "Scheduled Q3 roadmap." in result.text
    assert len(result.decisions) == 1
    assert server.runs() == [{"topic": "Q3 roadmap"}]


@pytest.mark.parametrize("answer", ["deny", "cancel"])
async def test_with_the_1_0_outcome_deny_and_cancel_run_nothing(
    recorder: CommRecorder, start_server: Callable[..., InteropServer], answer: str
) -> None:
    server = start_server("outcome")
    responder = responders.deny_all() if answer == "deny" else responders.cancel_all()
    chat = AgentChat.remote(server.url, responder=responder)
    result = await chat.send(BOOK)
    assert "rejected" in result.text
    assert len(result.decisions) == 1
    assert server.runs() == []
