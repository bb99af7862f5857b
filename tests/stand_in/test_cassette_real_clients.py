"""A `Cassette` records the SDK's real OpenAI models through the real `openai` client, and
replays them with the server gone, no key and no socket.

Each of `OpenAIResponsesModel` and `OpenAIChatCompletionsModel`, streamed and not, is
recorded against the local stand-in (the model held as an instance, so `cassette.wrap`
covers it), and through the SDK's `OpenAIProvider` for a model named by string
(`RunConfig(model_provider=cassette)`; the replay uses the SDK's default provider, which
would need a key to make a model, and never makes one). The replay runs with the stand-in stopped,
`OPENAI_API_KEY` unset and `socket.connect` refused: every answer comes from the file,
with the recorded call ids, and the tool still runs once per run.
"""

from __future__ import annotations

import pathlib
import socket
from typing import Any

import pytest
from agents import (
    Agent,
    ModelSettings,
    OpenAIChatCompletionsModel,
    OpenAIProvider,
    OpenAIResponsesModel,
    RunConfig,
    Runner,
    function_tool,
)
from agents.models import openai_provider
from agents.models.interface import Model
from openai import AsyncOpenAI, OpenAIError
from responses_server import KEY, ResponsesStandIn

from interrupt_widget import Cassette
from interrupt_widget.sdk.cassette import CassetteMode

ASK = "write_note text=hello"
FINAL = "write_note reported: wrote hello"
CONFIG = RunConfig(tracing_disabled=True, model_settings=ModelSettings(include_usage=True))


def notes_agent(notes: pathlib.Path, model: Model | str) -> Agent[Any]:
    @function_tool(needs_approval=True)
    def write_note(text: str) -> str:
        """Append a line to the notes file."""
        with notes.open("a") as file:
            file.write(text + "\n")
        return f"wrote {text}"

    return Agent(name="notes", instructions="Write notes.", tools=[write_note], model=model)


def sdk_model(kind: str, client: AsyncOpenAI | None) -> Model:
    # A replay never calls the client; the SDK's models still want one to be built.
    client = client or AsyncOpenAI(base_url="http://127.0.0.1:9/v1", api_key="unused")
    if kind == "responses":
        return OpenAIResponsesModel(model="gpt-4o", openai_client=client)
    return OpenAIChatCompletionsModel(model="gpt-4o", openai_client=client)


async def approve_once(agent: Agent[Any], streamed: bool, config: RunConfig) -> tuple[Any, str]:
    """Ask, approve the one call, resume: (final output, the call's id)."""
    if streamed:
        paused: Any = Runner.run_streamed(agent, ASK, run_config=config)
        async for _ in paused.stream_events():
            pass
    else:
        paused = await Runner.run(agent, ASK, run_config=config)
    [item] = paused.interruptions
    state = paused.to_state()
    state.approve(item)
    if streamed:
        done: Any = Runner.run_streamed(agent, state, run_config=config)
        async for _ in done.stream_events():
            pass
    else:
        done = await Runner.run(agent, state, run_config=config)
    return done.final_output, str(item.call_id)


def _refuse(*_args: Any, **_kwargs: Any) -> Any:
    raise AssertionError("a socket was opened during a replay")


@pytest.mark.parametrize("streamed", [False, True], ids=["whole", "streamed"])
@pytest.mark.parametrize("kind", ["responses", "chat"])
async def test_a_model_instance_recorded_through_the_client_replays_offline(
    tmp_path: pathlib.Path, kind: str, streamed: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    tape, notes = tmp_path / "c.jsonl", tmp_path / "notes.txt"
    server = ResponsesStandIn()
    with server.running() as url:
        client = AsyncOpenAI(base_url=url, api_key=KEY, max_retries=0)
        agent = Cassette(tape).wrap(notes_agent(notes, sdk_model(kind, client)))
        recorded = await approve_once(agent, streamed, CONFIG)
        await client.close()
    assert recorded[0] == FINAL
    assert len(server.requests) == 2
    assert KEY.encode() not in tape.read_bytes()

    monkeypatch.setattr(socket.socket, "connect", _refuse)
    replay = Cassette(tape, mode="none").wrap(notes_agent(notes, sdk_model(kind, None)))
    assert await approve_once(replay, streamed, CONFIG) == recorded
    assert notes.read_text().splitlines() == ["hello", "hello"]  # once per run


@pytest.mark.parametrize("streamed", [False, True], ids=["whole", "streamed"])
async def test_a_model_named_by_string_records_through_the_sdks_provider(
    tmp_path: pathlib.Path, streamed: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    tape, notes = tmp_path / "c.jsonl", tmp_path / "notes.txt"
    # The SDK's provider shares one module-level HTTP client, bound to the first event loop
    # that used it; each test here has a loop of its own (a kernel has one for good).
    monkeypatch.setattr(openai_provider, "_http_client", None)
    with ResponsesStandIn().running() as url:
        # The SDK's provider, with a client of this test's own loop.
        config = Cassette(tape, provider=OpenAIProvider(base_url=url, api_key=KEY)).run_config(
            CONFIG
        )
        recorded = await approve_once(notes_agent(notes, "gpt-4o"), streamed, config)
    assert recorded[0] == FINAL

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)

    monkeypatch.setattr(socket.socket, "connect", _refuse)
    config = Cassette(tape, mode="none").run_config(CONFIG)
    assert await approve_once(notes_agent(notes, "gpt-4o"), streamed, config) == recorded


@pytest.mark.parametrize("streamed", [False, True], ids=["whole", "streamed"])
async def test_a_model_holding_the_cassettes_client_builds_and_replays_with_no_key(
    tmp_path: pathlib.Path, streamed: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The regression guide's recipe for a model instance: `AsyncOpenAI()` raises with no key
    # before any cassette is asked, so a notebook holding one could not even build its agent.
    tape, notes = tmp_path / "orders.cassette.jsonl", tmp_path / "notes.txt"
    with ResponsesStandIn().running() as url:
        monkeypatch.setenv("OPENAI_API_KEY", KEY)
        monkeypatch.setenv("OPENAI_BASE_URL", url)
        cassette = Cassette(tape)
        model = OpenAIResponsesModel(model="gpt-4o", openai_client=cassette.openai_client())
        recorded = await approve_once(cassette.wrap(notes_agent(notes, model)), streamed, CONFIG)
    assert recorded[0] == FINAL

    monkeypatch.delenv("OPENAI_API_KEY")
    monkeypatch.delenv("OPENAI_BASE_URL")
    monkeypatch.setattr(socket.socket, "connect", _refuse)
    with pytest.raises(OpenAIError, match="api_key"):
        AsyncOpenAI()  # the stumble itself
    for cassette in (Cassette(tape, mode="none"), Cassette(tape)):  # `once` with its file
        model = OpenAIResponsesModel(model="gpt-4o", openai_client=cassette.openai_client())
        replayed = await approve_once(cassette.wrap(notes_agent(notes, model)), streamed, CONFIG)
        assert replayed == recorded


def test_a_cassette_that_would_record_asks_for_the_real_key(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    recording: tuple[CassetteMode, ...] = ("once", "new_episodes", "all")  # no file: `once` records
    for mode in recording:
        with pytest.raises(OpenAIError, match="api_key"):
            Cassette(tmp_path / "absent.jsonl", mode=mode).openai_client()
    given = Cassette(tmp_path / "absent.jsonl").openai_client(api_key="sk-given")
    assert given.api_key == "sk-given"
