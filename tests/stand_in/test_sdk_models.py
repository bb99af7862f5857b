"""The SDK's own OpenAI models, through the real `openai` client, against the local stand-in.

Each of `OpenAIResponsesModel` and `OpenAIChatCompletionsModel`, streamed and
not, asks for a tool that needs approval; the test approves it on the run's
state and resumes, the tool runs once (counted in the file it writes), and
the model's final text reports it. Only 127.0.0.1 is reached.
"""

from __future__ import annotations

import json
import pathlib
import re
from typing import Any

import pytest
from agents import (
    Agent,
    ModelSettings,
    ModelTracing,
    OpenAIChatCompletionsModel,
    OpenAIResponsesModel,
    RunConfig,
    Runner,
    RunState,
    function_tool,
)
from agents.models.interface import Model
from agents.result import RunResult, RunResultStreaming
from openai import AsyncOpenAI, AuthenticationError
from openai.types.responses import (
    ResponseCompletedEvent,
    ResponseFunctionToolCall,
    ResponseOutputMessage,
    ResponseOutputText,
)
from responses_server import KEY, ResponsesStandIn

from interrupt_widget.sdk.offline_model import OfflineModel

MODEL = "gpt-stand-in"
ASK = "write_note text=hello"
PATH = {"responses": "/v1/responses", "chat": "/v1/chat/completions"}
# What the model reads after the tool ran, and its tokens (a word a token).
FINAL = "write_note reported: wrote hello"
FINAL_TOKENS = 4


def _notes_agent(notes: pathlib.Path, model: Model) -> Agent[Any]:
    @function_tool(needs_approval=True)
    def write_note(text: str) -> str:
        """Append a line to the notes file."""
        with notes.open("a") as file:
            file.write(text + "\n")
        return f"wrote {text}"

    return Agent(name="notes", instructions="Write notes.", tools=[write_note], model=model)


def _model(kind: str, client: AsyncOpenAI) -> Model:
    if kind == "responses":
        return OpenAIResponsesModel(model=MODEL, openai_client=client)
    return OpenAIChatCompletionsModel(model=MODEL, openai_client=client)


async def _run(
    agent: Agent[Any], given: str | RunState[Any], streamed: bool, config: RunConfig
) -> RunResult | RunResultStreaming:
    if not streamed:
        return await Runner.run(agent, given, run_config=config)
    result = Runner.run_streamed(agent, given, run_config=config)
    async for _ in result.stream_events():
        pass
    return result


def _call_ids_sent_back(kind: str, body: dict[str, Any]) -> tuple[list[str], list[str]]:
    """(ids of the calls, ids of their outputs) the client sent the model."""
    if kind == "responses":
        items = body["input"]
        calls = [i["call_id"] for i in items if i.get("type") == "function_call"]
        outputs = [i["call_id"] for i in items if i.get("type") == "function_call_output"]
        return calls, outputs
    messages = body["messages"]
    calls = [c["id"] for m in messages for c in m.get("tool_calls") or []]
    outputs = [m["tool_call_id"] for m in messages if m["role"] == "tool"]
    return calls, outputs


@pytest.mark.parametrize("streamed", [False, True], ids=["whole", "streamed"])
@pytest.mark.parametrize("kind", ["responses", "chat"])
async def test_an_approved_call_runs_once_through_the_sdk_model_and_client(
    openai_stand_in: ResponsesStandIn, tmp_path: pathlib.Path, kind: str, streamed: bool
) -> None:
    notes = tmp_path / "notes.txt"
    client = AsyncOpenAI(base_url=openai_stand_in.base_url, api_key=KEY, max_retries=0)
    agent = _notes_agent(notes, _model(kind, client))
    # The SDK asks a server that is not OpenAI's for usage only when told to.
    config = RunConfig(tracing_disabled=True, model_settings=ModelSettings(include_usage=True))
    try:
        paused = await _run(agent, ASK, streamed, config)
        [item] = paused.interruptions
        assert item.tool_name == "write_note"
        assert re.fullmatch(r"call_[0-9a-f]{16}_0", item.call_id or "")  # the offline model's id
        assert json.loads(item.arguments or "") == {"text": "hello"}
        assert not notes.exists()  # asked, not run
        state = paused.to_state()
        state.approve(item)
        done = await _run(agent, state, streamed, config)
    finally:
        await client.close()

    assert done.final_output == FINAL
    assert notes.read_text().splitlines() == ["hello"]  # ran once
    asked, resumed = openai_stand_in.requests
    assert (asked.path, resumed.path) == (PATH[kind], PATH[kind])
    assert all(bool(r.body.get("stream")) is streamed for r in (asked, resumed))
    assert asked.headers["authorization"] == f"Bearer {KEY}"
    assert asked.headers["user-agent"].startswith("Agents/Python")  # the SDK's model sent it
    assert _call_ids_sent_back(kind, resumed.body) == ([item.call_id], [item.call_id])
    assert done.raw_responses[-1].usage.output_tokens == FINAL_TOKENS


def _said(output: list[Any]) -> list[tuple[str, ...]]:
    """A reply's text and tool calls (call id, name, arguments), in order."""
    said: list[tuple[str, ...]] = []
    for item in output:
        if isinstance(item, ResponseOutputMessage):
            text = "".join(p.text for p in item.content if isinstance(p, ResponseOutputText))
            said.append(("text", text))
        elif isinstance(item, ResponseFunctionToolCall):
            said.append(("call", item.call_id, item.name, item.arguments))
    return said


@pytest.mark.parametrize("streamed", [False, True], ids=["whole", "streamed"])
@pytest.mark.parametrize("kind", ["responses", "chat"])
@pytest.mark.parametrize("ask", [ASK, "hello there"], ids=["call", "text"])
async def test_the_sdk_models_read_the_offline_models_own_reply(
    openai_stand_in: ResponsesStandIn, tmp_path: pathlib.Path, kind: str, streamed: bool, ask: str
) -> None:
    client = AsyncOpenAI(base_url=openai_stand_in.base_url, api_key=KEY, max_retries=0)
    model = _model(kind, client)
    tools = list(_notes_agent(tmp_path / "notes.txt", model).tools)
    args: tuple[Any, ...] = (
        "Write notes.",
        ask,
        ModelSettings(),
        tools,
        None,
        [],
        ModelTracing.DISABLED,
    )
    asked: dict[str, Any] = {"previous_response_id": None, "conversation_id": None, "prompt": None}
    try:
        if streamed:
            events = [e async for e in model.stream_response(*args, **asked)]
            [completed] = [e for e in events if isinstance(e, ResponseCompletedEvent)]
            output = list(completed.response.output)
        else:
            output = list((await model.get_response(*args, **asked)).output)
    finally:
        await client.close()

    offline = await OfflineModel().get_response(*args, **asked)
    assert _said(output) == _said(offline.output)  # the same words and call ids, over HTTP


@pytest.mark.parametrize("kind", ["responses", "chat"])
async def test_a_wrong_key_is_refused_as_the_real_api_refuses_it(
    openai_stand_in: ResponsesStandIn, kind: str
) -> None:
    client = AsyncOpenAI(base_url=openai_stand_in.base_url, api_key="sk-wrong", max_retries=0)
    agent = Agent(name="plain", model=_model(kind, client))
    try:
        with pytest.raises(AuthenticationError, match="Incorrect API key"):
            await Runner.run(agent, "hello", run_config=RunConfig(tracing_disabled=True))
    finally:
        await client.close()
    assert openai_stand_in.requests == []
