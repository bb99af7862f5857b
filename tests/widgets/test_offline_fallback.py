"""A user's own agent with no key: the chat runs it offline and says so; a run that fails
for want of a key says the offline way."""

from __future__ import annotations

import pathlib
from typing import Any

import pytest
from ag_ui.core import RunAgentInput, RunErrorEvent, UserMessage
from agents import Agent, function_tool

from interrupt_widget import AgentChat, OfflineModel, OpenAIAgentsAdapter, responders
from interrupt_widget.testing import CommRecorder


@function_tool(needs_approval=True)
def drop_table(name: str) -> str:
    """Drop a table."""
    return f"dropped {name}"


def own_agent(**options: Any) -> Agent[Any]:
    return Agent(name="mine", instructions="Help.", tools=[drop_table], **options)


@pytest.fixture
def no_key(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("OPENAI_API_KEY", "OPENAI_ADMIN_KEY"):
        monkeypatch.delenv(name, raising=False)


@pytest.mark.usefixtures("no_key")
async def test_the_chat_runs_an_agent_with_no_model_offline_and_says_so(
    recorder: CommRecorder, caplog: pytest.LogCaptureFixture
) -> None:
    chat = AgentChat(own_agent(), responder=responders.approve_all())
    assert chat.offline_for_want_of_a_key
    assert "on the offline model: no OpenAI key is set" in caplog.text
    lines: list[str] = []
    chat.observe(lambda change: lines.append(change["new"]), names="status_line")
    result = await chat.send("drop_table name=staging_orders")
    assert result.text == "drop_table reported: dropped staging_orders"
    assert any("on the offline model" in line for line in lines)


@pytest.mark.usefixtures("no_key")
async def test_an_agent_that_names_a_model_is_left_alone_and_the_error_says_the_offline_way(
    recorder: CommRecorder, tmp_path: pathlib.Path
) -> None:
    adapter = OpenAIAgentsAdapter(own_agent(model="gpt-5-mini"), ledger=tmp_path / "calls.db")
    first = RunAgentInput(
        thread_id="t",
        run_id="r",
        messages=[UserMessage(id="u", content="hi")],
        state=None,
        tools=[],
        context=[],
        forwarded_props=None,
    )
    events = [event async for event in adapter.run(first)]
    error = events[-1]
    assert isinstance(error, RunErrorEvent)
    assert "Missing credentials" in error.message
    assert "Agent(..., model=OfflineModel())" in error.message
    chat = AgentChat(own_agent(model="gpt-5-mini"))
    assert not chat.offline_for_want_of_a_key


async def test_with_a_key_the_chat_leaves_the_model_to_the_sdk(
    recorder: CommRecorder, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-used")
    assert not AgentChat(own_agent()).offline_for_want_of_a_key
    assert not AgentChat(own_agent(), model=OfflineModel()).offline_for_want_of_a_key
