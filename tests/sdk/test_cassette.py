"""`Cassette` at the SDK's model seam: each mode, streamed and not, handoffs, agents as tools,
a schema change named in words, the adapter's RUN_ERROR codes, and no network in replay.

The model that "records" here is `OfflineModel` behind a counter (the real clients are
recorded in tests/stand_in/test_cassette_real_clients.py); a replay runs on a model that
fails if it is ever asked, so every answer provably comes from the file.
"""

from __future__ import annotations

import json
import logging
import socket
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from ag_ui.core import RunAgentInput, UserMessage
from agents import (
    Agent,
    Model,
    ModelResponse,
    RunConfig,
    Runner,
    function_tool,
    set_tracing_disabled,
)
from agents.items import TResponseStreamEvent
from agents.tracing import get_trace_provider

from interrupt_widget import OfflineModel, OpenAIAgentsAdapter
from interrupt_widget.errors import CassetteMismatch, CassetteMissing, ErrorCode
from interrupt_widget.sdk.agent_options import resolve_agent
from interrupt_widget.sdk.cassette import CASSETTE_MODE_ENV, Cassette
from one_model import OneModel, _no_cassette_from_the_environment  # noqa: F401

PROMPT = "delete_rows table=staging_orders count=5"


class Counting(OfflineModel):
    """The offline model, counting the calls that reach it."""

    def __init__(self) -> None:
        super().__init__()
        self.calls = 0

    async def get_response(self, *args: Any, **kwargs: Any) -> ModelResponse:
        self.calls += 1
        return await super().get_response(*args, **kwargs)

    async def stream_response(  # type: ignore[override]
        self, *args: Any, **kwargs: Any
    ) -> AsyncIterator[TResponseStreamEvent]:
        self.calls += 1
        async for event in super().stream_response(*args, **kwargs):
            yield event


class Unreachable(Model):
    """A model that must never be asked: a replay answers from the file."""

    async def get_response(self, *args: Any, **kwargs: Any) -> ModelResponse:
        raise AssertionError("the model was asked during a replay")

    def stream_response(self, *args: Any, **kwargs: Any) -> AsyncIterator[TResponseStreamEvent]:
        raise AssertionError("the model was asked during a replay")


def ops_agent(model: Model | str, runs: Path, *, dry_run: bool = False) -> Agent[Any]:
    if dry_run:

        @function_tool(needs_approval=True)
        def delete_rows(table: str, count: int, dry_run: bool = True) -> str:
            """Delete rows from a table."""
            with runs.open("a") as out:
                out.write(f"{table} {count}\n")
            return f"deleted {count} rows from {table}"

    else:

        @function_tool(needs_approval=True)
        def delete_rows(table: str, count: int) -> str:
            """Delete rows from a table."""
            with runs.open("a") as out:
                out.write(f"{table} {count}\n")
            return f"deleted {count} rows from {table}"

    return Agent(name="ops", instructions="Be careful.", tools=[delete_rows], model=model)


async def approve_through(agent: Agent[Any], *, streamed: bool, config: RunConfig) -> Any:
    """Ask, approve the one call, resume: the final output."""
    if streamed:
        first = Runner.run_streamed(agent, PROMPT, run_config=config)
        async for _ in first.stream_events():
            pass
    else:
        first = await Runner.run(agent, PROMPT, run_config=config)  # type: ignore[assignment]
    state = first.to_state()
    state.approve(first.interruptions[0])
    if streamed:
        second = Runner.run_streamed(agent, state, run_config=config)
        async for _ in second.stream_events():
            pass
        return second.final_output, first.interruptions[0].call_id
    done = await Runner.run(agent, state, run_config=config)
    return done.final_output, first.interruptions[0].call_id


@pytest.mark.parametrize("streamed", [True, False], ids=["streamed", "not-streamed"])
async def test_once_records_then_replays_with_the_same_call_ids(
    tmp_path: Path, streamed: bool
) -> None:
    tape, runs = tmp_path / "ops.cassette.jsonl", tmp_path / "runs.txt"
    model = Counting()
    recorded = Cassette(tape, mode="once", provider=OneModel(model))
    assert recorded.records
    said, call_id = await approve_through(
        ops_agent("gpt-4o", runs), streamed=streamed, config=RunConfig(model_provider=recorded)
    )
    assert model.calls == 2
    assert len(tape.read_text().splitlines()) == 2

    replaying = Cassette(tape, mode="once", provider=OneModel(Unreachable()))
    assert not replaying.records
    again, again_id = await approve_through(
        ops_agent("gpt-4o", runs), streamed=streamed, config=RunConfig(model_provider=replaying)
    )
    assert (again, again_id) == (said, call_id)
    assert "deleted 5 rows from staging_orders" in str(again)
    assert runs.read_text().splitlines() == ["staging_orders 5", "staging_orders 5"]


async def test_a_stream_replays_for_a_run_that_does_not_stream_and_back(tmp_path: Path) -> None:
    tape = tmp_path / "c.jsonl"
    config = RunConfig(model_provider=Cassette(tape, provider=OneModel(Counting())))
    said, _ = await approve_through(ops_agent("m", tmp_path / "r"), streamed=True, config=config)
    replay = RunConfig(model_provider=Cassette(tape, mode="none"))
    assert (await approve_through(ops_agent("m", tmp_path / "r"), streamed=False, config=replay))[
        0
    ] == said

    other = tmp_path / "d.jsonl"
    config = RunConfig(model_provider=Cassette(other, provider=OneModel(Counting())))
    said, _ = await approve_through(ops_agent("m", tmp_path / "r"), streamed=False, config=config)
    replay = RunConfig(model_provider=Cassette(other, mode="none"))
    assert (await approve_through(ops_agent("m", tmp_path / "r"), streamed=True, config=replay))[
        0
    ] == said


async def test_none_without_a_file_says_how_to_record(tmp_path: Path) -> None:
    cassette = Cassette(tmp_path / "absent.jsonl", mode="none")
    with pytest.raises(CassetteMissing, match=r"does not exist.*mode is 'none'.*=all"):
        await Runner.run(
            ops_agent("gpt-4o", tmp_path / "r"),
            PROMPT,
            run_config=RunConfig(model_provider=cassette),
        )


@pytest.mark.parametrize("streamed", [True, False], ids=["streamed", "not-streamed"])
async def test_a_changed_tool_schema_is_named_and_all_records_it_again(
    tmp_path: Path, streamed: bool
) -> None:
    tape, runs = tmp_path / "c.jsonl", tmp_path / "runs.txt"
    config = RunConfig(model_provider=Cassette(tape, provider=OneModel(Counting())))
    await approve_through(ops_agent("m", runs), streamed=streamed, config=config)

    changed = ops_agent("m", runs, dry_run=True)
    locked = RunConfig(model_provider=Cassette(tape, mode="none"))
    with pytest.raises(CassetteMismatch) as refused:
        await approve_through(changed, streamed=streamed, config=locked)
    message = str(refused.value)
    assert message.startswith("turn 1: tool delete_rows: parameter dry_run added.")
    assert "INTERRUPT_WIDGET_CASSETTE_MODE=all" in message
    assert refused.value.turn == 1
    assert refused.value.difference == "tool delete_rows: parameter dry_run added"
    assert runs.read_text().splitlines() == ["staging_orders 5"]  # nothing ran on a mismatch

    rerecord = RunConfig(model_provider=Cassette(tape, mode="all", provider=OneModel(Counting())))
    await approve_through(changed, streamed=streamed, config=rerecord)
    assert len(tape.read_text().splitlines()) == 2  # replaced, not appended
    locked = RunConfig(model_provider=Cassette(tape, mode="none"))
    said, _ = await approve_through(changed, streamed=streamed, config=locked)
    assert "deleted 5 rows" in str(said)


async def test_a_changed_prompt_names_the_turn_and_what_was_said(tmp_path: Path) -> None:
    tape = tmp_path / "c.jsonl"
    config = RunConfig(model_provider=Cassette(tape, provider=OneModel(Counting())))
    await approve_through(ops_agent("m", tmp_path / "r"), streamed=False, config=config)
    locked = RunConfig(model_provider=Cassette(tape, mode="none"))
    with pytest.raises(CassetteMismatch, match=r"^turn 1: input item 1 \(user message\) changed"):
        await Runner.run(
            ops_agent("m", tmp_path / "r"), "delete_rows table=prod", run_config=locked
        )


async def test_new_episodes_replays_what_matches_and_records_the_rest(tmp_path: Path) -> None:
    tape = tmp_path / "c.jsonl"
    first = Counting()
    config = RunConfig(model_provider=Cassette(tape, provider=OneModel(first)))
    await Runner.run(ops_agent("m", tmp_path / "r"), "hello", run_config=config)
    assert first.calls == 1

    second = Counting()
    config = RunConfig(model_provider=Cassette(tape, "new_episodes", provider=OneModel(second)))
    agent = ops_agent("m", tmp_path / "r")
    await Runner.run(agent, "hello", run_config=config)
    assert second.calls == 0
    await Runner.run(agent, "goodbye", run_config=config)
    assert second.calls == 1
    turns = [json.loads(line)["turn"] for line in tape.read_text().splitlines()]
    assert turns == [1, 2]


async def test_the_environment_sets_every_cassettes_mode(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(CASSETTE_MODE_ENV, "none")
    assert Cassette(tmp_path / "c.jsonl", mode="all").mode == "none"
    monkeypatch.setenv(CASSETTE_MODE_ENV, "sometimes")
    with pytest.raises(ValueError, match="unknown cassette mode 'sometimes'"):
        Cassette(tmp_path / "c.jsonl")


def triage(specialist_model: Model, triage_model: Model, runs: Path) -> Agent[Any]:
    specialist = ops_agent(specialist_model, runs)
    return Agent(
        name="triage",
        instructions="Hand database work to ops.",
        handoffs=[specialist],
        model=triage_model,
    )


class HandsOff(Counting):
    """Hands off at once (the offline model acts on the request after a handoff)."""

    async def get_response(self, *args: Any, **kwargs: Any) -> ModelResponse:
        self.calls += 1
        handoffs = args[5] if len(args) > 5 else kwargs["handoffs"]
        from openai.types.responses import ResponseFunctionToolCall

        call = ResponseFunctionToolCall(
            id="fc_handoff",
            call_id="call_handoff",
            type="function_call",
            name=handoffs[0].tool_name,
            arguments="{}",
            status="completed",
        )
        from agents import Usage

        return ModelResponse(output=[call], usage=Usage(requests=1), response_id="resp_handoff")


async def test_a_handoff_to_an_agent_that_holds_its_own_model(tmp_path: Path) -> None:
    tape, runs = tmp_path / "c.jsonl", tmp_path / "runs.txt"
    specialist, front = Counting(), HandsOff()
    agent = Cassette(tape).wrap(triage(specialist, front, runs))
    said, _ = await approve_through(agent, streamed=False, config=RunConfig())
    assert (front.calls, specialist.calls) == (1, 2)

    replay = Cassette(tape, mode="none").wrap(triage(Unreachable(), Unreachable(), runs))
    again, _ = await approve_through(replay, streamed=False, config=RunConfig())
    assert again == said
    assert runs.read_text().splitlines() == ["staging_orders 5", "staging_orders 5"]


async def test_an_agent_used_as_a_tool_that_holds_its_own_model(tmp_path: Path) -> None:
    tape = tmp_path / "c.jsonl"

    def outer(inner_model: Model, outer_model: Model) -> Agent[Any]:
        inner = Agent(name="echo", instructions="Echo.", model=inner_model)
        tool = inner.as_tool(tool_name="echo_agent", tool_description="Echoes.")
        return Agent(name="outer", instructions="Use echo.", tools=[tool], model=outer_model)

    inner_model, outer_model = Counting(), Counting()
    agent = Cassette(tape).wrap(outer(inner_model, outer_model))
    said = (await Runner.run(agent, "echo_agent input=hi")).final_output
    assert (outer_model.calls, inner_model.calls) == (2, 1)

    replay = Cassette(tape, mode="none").wrap(outer(Unreachable(), Unreachable()))
    assert (await Runner.run(replay, "echo_agent input=hi")).final_output == said


@pytest.fixture
def no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(*_args: Any, **_kwargs: Any) -> Any:
        raise AssertionError("a socket was opened during a replay")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)


async def test_replay_of_a_named_openai_model_needs_no_key_and_no_socket(
    tmp_path: Path, no_network: None
) -> None:
    tape = tmp_path / "c.jsonl"
    record = RunConfig(model_provider=Cassette(tape, provider=OneModel(Counting())))
    said, _ = await approve_through(
        ops_agent("gpt-4o", tmp_path / "r"), streamed=True, config=record
    )
    # No provider given: the SDK's own, whose OpenAI model would need a key and a socket.
    replay = RunConfig(model_provider=Cassette(tape, mode="none"))
    again, _ = await approve_through(
        ops_agent("gpt-4o", tmp_path / "r"), streamed=True, config=replay
    )
    assert again == said


async def adapter_events(adapter: OpenAIAgentsAdapter, text: str) -> list[Any]:
    ask = UserMessage(id="u1", content=text)
    return [e async for e in adapter.run(RunAgentInput(thread_id="t", run_id="r", messages=[ask]))]


async def test_the_adapter_replays_and_a_mismatch_is_a_run_error(
    tmp_path: Path, no_network: None
) -> None:
    tape = tmp_path / "c.jsonl"
    recording = Cassette(tape, provider=OneModel(Counting()))
    adapter = OpenAIAgentsAdapter(
        ops_agent("gpt-4o", tmp_path / "r"), ledger=tmp_path / "ledger.db", cassette=recording
    )
    recorded = await adapter_events(adapter, PROMPT)
    assert recorded[-1].outcome.type == "interrupt"

    replay = OpenAIAgentsAdapter(
        ops_agent("gpt-4o", tmp_path / "r"), ledger=tmp_path / "ledger.db", cassette=tape
    )
    assert replay.cassette is not None
    assert not replay.cassette.records
    replayed = await adapter_events(replay, PROMPT)
    assert [e.type for e in replayed] == [e.type for e in recorded]
    assert replayed[-1].outcome.interrupts[0].tool_call_id == (
        recorded[-1].outcome.interrupts[0].tool_call_id
    )

    changed = OpenAIAgentsAdapter(
        ops_agent("gpt-4o", tmp_path / "r", dry_run=True),
        ledger=tmp_path / "ledger.db",
        cassette=Cassette(tape, mode="none"),
    )
    failed = (await adapter_events(changed, PROMPT))[-1]
    assert failed.type == "RUN_ERROR"
    assert failed.code == ErrorCode.CASSETTE_MISMATCH
    assert failed.message.startswith("turn 1: tool delete_rows: parameter dry_run added")

    missing = OpenAIAgentsAdapter(
        ops_agent("gpt-4o", tmp_path / "r"),
        ledger=tmp_path / "ledger.db",
        cassette=Cassette(tmp_path / "none.jsonl", mode="none"),
    )
    assert (await adapter_events(missing, PROMPT))[-1].code == ErrorCode.CASSETTE_MISSING


async def test_the_environment_gives_a_cassette_to_an_adapter_made_without_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("INTERRUPT_WIDGET_CASSETTE", str(tmp_path / "env.jsonl"))
    adapter = OpenAIAgentsAdapter(ops_agent("m", tmp_path / "r"), ledger=tmp_path / "ledger.db")
    assert adapter.cassette is not None
    assert adapter.cassette.path == tmp_path / "env.jsonl"


FAKE_KEY = "sk-test-FAKE0123456789abcdefFAKE"


async def test_no_key_header_or_organisation_is_ever_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", FAKE_KEY)
    monkeypatch.setenv("OPENAI_ORG_ID", "org-FAKEORGANISATION")
    tape = tmp_path / "c.jsonl"
    agent = ops_agent("m", tmp_path / "r")
    agent.model_settings = agent.model_settings.resolve(
        agent.model_settings.__class__(
            extra_headers={"Authorization": f"Bearer {FAKE_KEY}", "OpenAI-Organization": "org-X"}
        )
    )
    config = RunConfig(model_provider=Cassette(tape, provider=OneModel(Counting())))
    # The key pasted into a prompt, and echoed back by the model, is still not written.
    await Runner.run(
        agent, f"my key is {FAKE_KEY}, organization org-FAKEORGANISATION", run_config=config
    )
    written = tape.read_bytes()
    for secret in (FAKE_KEY, "org-FAKEORGANISATION", "org-X", "Authorization", "Bearer"):
        assert secret.encode() not in written
    assert b"<redacted>" in written


async def test_a_redact_hook_changes_each_line_before_it_is_written(tmp_path: Path) -> None:
    tape = tmp_path / "c.jsonl"

    def redact(line: dict[str, Any]) -> dict[str, Any]:
        return json.loads(json.dumps(line).replace("Alice", "<person>"))

    cassette = Cassette(tape, provider=OneModel(Counting()), redact=redact)
    await Runner.run(
        ops_agent("m", tmp_path / "r"), "hello Alice", run_config=RunConfig(model_provider=cassette)
    )
    assert b"Alice" not in tape.read_bytes()
    assert b"<person>" in tape.read_bytes()


async def test_lines_are_sorted_json_one_per_call(tmp_path: Path) -> None:
    tape = tmp_path / "c.jsonl"
    config = RunConfig(model_provider=Cassette(tape, provider=OneModel(Counting())))
    await approve_through(ops_agent("m", tmp_path / "r"), streamed=True, config=config)
    for number, text in enumerate(tape.read_text().splitlines(), start=1):
        line = json.loads(text)
        assert list(line) == sorted(line)
        assert line["turn"] == number
        assert line["kind"] == "stream"
        assert line["request"]["tools"][0]["name"] == "delete_rows"
        # Ids in what the model was asked are normalised, so another run's ids match.
        assert all(
            not str(v).startswith("call_")
            for item in line["request"]["input"]
            for k, v in item.items()
            if k == "call_id"
        )


async def test_a_taped_model_outside_a_cassettes_run_passes_straight_through(
    tmp_path: Path,
) -> None:
    model = Counting()
    agent = ops_agent(model, tmp_path / "r")
    adapter = OpenAIAgentsAdapter(agent, ledger=tmp_path / "l.db", cassette=tmp_path / "c.jsonl")
    assert adapter.cassette is not None
    # The adapter tapped the agent's model in place; a plain SDK run of the same agent, with
    # no cassette active, reaches the model and records nothing.
    assert (await Runner.run(agent, "hello")).final_output.startswith("You said: hello")
    assert model.calls == 1
    assert not (tmp_path / "c.jsonl").exists()


async def test_a_replay_with_no_key_leaves_no_trace_export_warning_for_a_later_cell(
    tmp_path: Path,
    no_network: None,
    request: pytest.FixtureRequest,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The SDK's exporter, given a trace and no key, warns from its own thread when it next
    flushes, into whatever notebook cell runs then (a checked output under nbval): a replay
    through the kit makes no trace to export, as the offline model does not."""
    tape = tmp_path / "c.jsonl"
    record = RunConfig(model_provider=Cassette(tape, provider=OneModel(Counting())))
    await approve_through(ops_agent("gpt-4o", tmp_path / "r"), streamed=True, config=record)
    provider = get_trace_provider()
    provider.force_flush()
    set_tracing_disabled(False)  # the tests' default is tracing off (tests/conftest.py)
    request.addfinalizer(lambda: set_tracing_disabled(True))
    skipped = "OPENAI_API_KEY is not set, skipping trace export"

    # The raw SDK's replay: its trace waits for the exporter, which warns.
    replay = RunConfig(model_provider=Cassette(tape, mode="none"))
    await approve_through(ops_agent("gpt-4o", tmp_path / "r"), streamed=True, config=replay)
    with caplog.at_level(logging.WARNING, logger="openai.agents"):
        provider.force_flush()
    assert skipped in caplog.messages

    caplog.clear()
    kit = resolve_agent(ops_agent("gpt-4o", tmp_path / "k"), cassette=Cassette(tape, mode="none"))
    events = await adapter_events(kit.runs_on, PROMPT)
    assert events[-1].outcome.type == "interrupt"  # replayed: the model's call reached no socket
    with caplog.at_level(logging.WARNING, logger="openai.agents"):
        provider.force_flush()
    assert skipped not in caplog.messages
