"""The offline model: deterministic, word-sized chunks, tool calls drawn from the request."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from agents import Agent, ModelSettings, ModelTracing, Runner, function_tool
from openai.types.responses import ResponseFunctionToolCall, ResponseOutputMessage

from interrupt_widget import OfflineModel, default_model
from interrupt_widget.examples import expense_agent, meeting_agent
from interrupt_widget.sdk.model_choice import DEFAULT_OPENAI_MODEL
from interrupt_widget.sdk.offline_model import (
    MAX_ECHO_CHARS,
    MAX_READ_CHARS,
    MAX_REPLY_WORDS,
    with_message_ids,
)


async def _respond(model: OfflineModel, input: Any, tools: list[Any] | None = None) -> list[Any]:
    response = await model.get_response(
        None,
        input,
        ModelSettings(),
        tools or [],
        None,
        [],
        ModelTracing.DISABLED,
        previous_response_id=None,
        conversation_id=None,
        prompt=None,
    )
    return list(response.output)


async def _stream(model: OfflineModel, input: Any, tools: list[Any] | None = None) -> list[Any]:
    return [
        event
        async for event in model.stream_response(
            None,
            input,
            ModelSettings(),
            tools or [],
            None,
            [],
            ModelTracing.DISABLED,
            previous_response_id=None,
            conversation_id=None,
            prompt=None,
        )
    ]


def _calls(output: list[Any]) -> list[tuple[str, dict[str, Any]]]:
    return [
        (item.name, json.loads(item.arguments))
        for item in output
        if isinstance(item, ResponseFunctionToolCall)
    ]


def _tools(agent: Agent[Any]) -> list[Any]:
    return list(agent.tools)


async def test_same_input_gives_the_same_output_and_ids() -> None:
    tools = _tools(meeting_agent(OfflineModel()))
    first = await _respond(OfflineModel(), "Book a call with Alice about the Q3 roadmap", tools)
    again = await _respond(OfflineModel(), "Book a call with Alice about the Q3 roadmap", tools)
    other = await _respond(OfflineModel(), "Book a call with Bob about the Q3 roadmap", tools)
    assert [i.model_dump() for i in first] == [i.model_dump() for i in again]
    assert first[0].call_id != other[0].call_id  # ids follow the input, so they differ


@pytest.mark.parametrize(
    ("request_text", "expected"),
    [
        (
            "Book a call with Alice about the Q3 roadmap",
            {"topic": "Q3 roadmap", "attendee": "Alice"},
        ),
        (
            "Please schedule something about hiring with Dana Lee.",
            {"topic": "hiring", "attendee": "Dana Lee"},
        ),
        ("schedule_meeting topic=launch attendee=Sam", {"topic": "launch", "attendee": "Sam"}),
    ],
)
async def test_scheduling_request_calls_the_scheduling_tool(
    request_text: str, expected: dict[str, Any]
) -> None:
    output = await _respond(OfflineModel(), request_text, _tools(meeting_agent(OfflineModel())))
    assert _calls(output) == [("schedule_meeting", expected)]


async def test_named_tools_are_called_in_parallel_in_the_order_named() -> None:
    tools = _tools(expense_agent(OfflineModel()))
    text = "issue refund amount=80 for a bad order, then submit_expense of 120 for a team dinner"
    output = await _respond(OfflineModel(), text, tools)
    assert _calls(output) == [
        ("issue_refund", {"amount": 80.0, "reason": "a bad order"}),
        ("submit_expense", {"amount": 120.0, "description": "a team dinner"}),
    ]
    assert len({item.call_id for item in output}) == 2


async def test_arguments_fall_back_to_the_schema_defaults() -> None:
    output = await _respond(
        OfflineModel(), "check_budget please", _tools(expense_agent(OfflineModel()))
    )
    assert _calls(output) == [("check_budget", {"category": "other"})]


async def test_enum_values_named_in_the_request_are_used() -> None:
    @function_tool
    def paint(color: str = "red") -> str:
        """Paint."""
        return color

    paint.params_json_schema["properties"]["color"]["enum"] = ["red", "green", "blue"]
    output = await _respond(OfflineModel(), "paint it Blue", [paint])
    assert _calls(output) == [("paint", {"color": "blue"})]


async def test_text_streams_in_word_sized_chunks() -> None:
    events = await _stream(OfflineModel(), "reply with 7 words")
    deltas = [e.delta for e in events if e.type == "response.output_text.delta"]
    assert len(deltas) == 7
    assert all(len(d.split()) == 1 for d in deltas)
    done = next(e for e in events if e.type == "response.completed")
    assert done.response.output[0].content[0].text == "".join(deltas)


async def test_long_replies_for_benchmarks() -> None:
    events = await _stream(OfflineModel(reply_words=5_000), "anything")
    assert sum(e.type == "response.output_text.delta" for e in events) == 5_000


async def test_untrusted_text_is_echoed_verbatim() -> None:
    hostile = "<script>alert('x')</script> & <b>bold</b>"
    [message] = await _respond(OfflineModel(), hostile)
    assert isinstance(message, ResponseOutputMessage)
    assert message.content[0].text == f"You said: {hostile}"  # type: ignore[union-attr]


def _after_tool(output: str, name: str = "schedule_meeting") -> list[Any]:
    return [
        {"role": "user", "content": "Book a call with Alice about X"},
        {"type": "function_call", "call_id": "c1", "name": name, "arguments": "{}"},
        {"type": "function_call_output", "call_id": "c1", "output": output},
    ]


async def test_after_a_result_it_reports_only_what_the_tool_said() -> None:
    tools = _tools(meeting_agent(OfflineModel())) + _tools(expense_agent(OfflineModel()))
    booked_text = 'Scheduled "X" with Alice for Tue 10:00.'
    [booked] = await _respond(OfflineModel(), _after_tool(booked_text), tools)
    assert booked.content[0].text == f"schedule_meeting reported: {booked_text}"
    for not_run in (
        "Not run: the user did not approve schedule_meeting.",
        "Tool execution was not approved.",
    ):
        [reply] = await _respond(OfflineModel(), _after_tool(not_run), tools)
        assert reply.content[0].text == "The meeting was not scheduled."
    cancelled = _after_tool("Not run: cancelled.", "submit_expense")
    [other] = await _respond(OfflineModel(), cancelled, tools)
    assert other.content[0].text == "submit_expense did not run."


async def test_a_handoff_result_is_not_reported_the_request_is_acted_on() -> None:
    tools = _tools(meeting_agent(OfflineModel()))
    handed = _after_tool('{"assistant": "Meeting scheduler"}', "transfer_to_meeting_scheduler")
    output = await _respond(OfflineModel(), handed, tools)
    assert _calls(output) == [("schedule_meeting", {"topic": "X", "attendee": "Alice"})]


async def test_runs_in_the_sdk_with_no_key_and_no_network() -> None:
    result = await Runner.run(Agent(name="a", model=OfflineModel()), "hello there")
    assert result.final_output == "You said: hello there"


def test_default_model_is_offline_without_a_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("INTERRUPT_WIDGET_MODEL", raising=False)
    assert isinstance(default_model(), OfflineModel)


def test_default_model_with_a_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-not-used")
    monkeypatch.delenv("INTERRUPT_WIDGET_MODEL", raising=False)
    assert default_model() == DEFAULT_OPENAI_MODEL
    monkeypatch.setenv("INTERRUPT_WIDGET_MODEL", "gpt-5-nano")
    assert default_model() == "gpt-5-nano"
    monkeypatch.setenv("INTERRUPT_WIDGET_MODEL", "offline")
    assert isinstance(default_model(), OfflineModel)


def _reply(output: list[Any]) -> str:
    (message,) = [item for item in output if isinstance(item, ResponseOutputMessage)]
    return "".join(part.text for part in message.content)


async def test_a_huge_request_is_read_and_echoed_only_up_to_the_caps() -> None:
    huge = "x " * 950_000  # 1.9 MB
    output = await _respond(OfflineModel(), huge + "the end")
    reply = _reply(output)
    assert reply.startswith("You said: x x")
    assert reply.endswith("…")
    assert len(reply) == len("You said: ") + MAX_ECHO_CHARS


async def test_a_tool_named_past_the_read_cap_is_not_called() -> None:
    tools = _tools(expense_agent(OfflineModel()))
    far = " " * MAX_READ_CHARS + "submit_expense amount=5"
    assert _calls(await _respond(OfflineModel(), far, tools)) == []
    near = "submit_expense amount=5" + " " * 1_000_000
    assert _calls(await _respond(OfflineModel(), near, tools)) == [
        ("submit_expense", {"amount": 5.0, "description": ""})
    ]


@pytest.mark.parametrize(
    "count", ["100000", "9" * 30, "9" * 5_000], ids=["large", "huge", "more-digits-than-int-reads"]
)
async def test_reply_length_is_capped(count: str) -> None:
    output = await _respond(OfflineModel(), f"reply with {count} words")
    assert len(_reply(output).split()) == MAX_REPLY_WORDS


async def test_a_number_too_large_for_a_float_falls_back_to_the_default_or_is_asked_for() -> None:
    @function_tool
    def pay(amount: float, tip: float = 2.5) -> str:
        return f"{amount} {tip}"

    huge = "9" * 400  # not inf, which is no JSON
    output = await _respond(OfflineModel(), f"pay amount=12 tip={huge}", [pay])
    assert _calls(output) == [("pay", {"amount": 12.0, "tip": 2.5})]
    # A required amount with no default is not guessed (it was 0): it is asked for.
    output = await _respond(
        OfflineModel(), f"submit_expense amount={huge}", _tools(expense_agent())
    )
    assert _calls(output) == []
    assert _reply(output).startswith("To call submit_expense I need: amount.")


async def test_a_tool_output_is_quoted_only_up_to_the_echo_cap() -> None:
    tools = _tools(expense_agent(OfflineModel()))
    history: list[Any] = [
        {"role": "user", "content": "submit_expense 5"},
        {"type": "function_call", "call_id": "c1", "name": "submit_expense", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "c1", "output": "y" * 100_000},
    ]
    reply = _reply(await _respond(OfflineModel(), history, tools))
    assert reply == "submit_expense reported: " + "y" * (MAX_ECHO_CHARS - 1) + "…"


async def test_message_ids_make_a_new_conversation_new_ids() -> None:
    tools = _tools(meeting_agent(OfflineModel()))
    ask = "Book a call with Alice about the Q3 roadmap"

    async def call_id(ids: list[str]) -> str:
        # As in the SDK's run: a task started under `with_message_ids` sees them.
        task = with_message_ids(
            ids, lambda: asyncio.create_task(_respond(OfflineModel(), ask, tools))
        )
        output = await task
        (item,) = [i for i in output if isinstance(i, ResponseFunctionToolCall)]
        return item.call_id

    first = await call_id(["user-1"])
    assert await call_id(["user-1"]) == first  # deterministic
    assert await call_id(["user-2"]) != first  # same words, another conversation
    assert await call_id([]) == (await _respond(OfflineModel(), ask, tools))[0].call_id


async def test_a_request_naming_no_tool_is_echoed_with_the_way_to_call_one() -> None:
    tools = _tools(expense_agent(OfflineModel()))
    reply = _reply(await _respond(OfflineModel(), "please drop the staging_orders table", tools))
    said, hint = reply.split("\n\n")
    assert said == "You said: please drop the staging_orders table"
    assert "only when the request names it" in hint
    assert f"`{tools[0].name} key=value`" in hint
    assert "book a meeting" not in hint  # the expense agent has no scheduling tool
    meeting = _reply(await _respond(OfflineModel(), "hi", _tools(meeting_agent(OfflineModel()))))
    assert "or asks to book a meeting" in meeting


def test_the_tool_rule_opens_the_offline_model_docs() -> None:
    first_lines = (OfflineModel.__doc__ or "").splitlines()[:3]
    assert "only when the request names it" in " ".join(first_lines)


@function_tool(needs_approval=True)
def delete_rows(table: str, where: str, limit: int | None = None) -> str:
    """Delete the rows of `table` that match `where`."""
    return f"deleted from {table} where {where} (limit {limit})"


@pytest.mark.parametrize(
    ("request_text", "reply"),
    [
        (
            "delete_rows",
            "To call delete_rows I need: table, where. Say it as "
            "`delete_rows table=... where=...`; nothing was called.",
        ),
        (
            "please delete rows table=orders",
            "To call delete_rows I need: where. Say it as `delete_rows where=...`; "
            "nothing was called.",
        ),
        (
            "submit_expense for a taxi and delete_rows where=old",
            "To call submit_expense I need: amount. To call delete_rows I need: table. Say it "
            "as `submit_expense amount=...`; nothing was called.",
        ),
    ],
)
async def test_a_required_argument_the_request_does_not_give_is_asked_for_never_blank(
    request_text: str, reply: str
) -> None:
    tools = [delete_rows, *_tools(expense_agent())]
    output = await _respond(OfflineModel(), request_text, tools)
    assert _calls(output) == []  # no call at all, rather than one with "" or 0
    assert _reply(output) == reply


async def test_given_every_required_argument_it_calls_and_a_nullable_one_left_out_is_null() -> None:
    output = await _respond(
        OfflineModel(), 'delete_rows table=orders where="status is archived"', [delete_rows]
    )
    assert _calls(output) == [
        ("delete_rows", {"table": "orders", "where": "status is archived", "limit": None})
    ]


async def test_a_run_asked_without_an_argument_asks_back_and_runs_nothing() -> None:
    agent = Agent(name="db", tools=[delete_rows], model=OfflineModel())
    result = await Runner.run(agent, "delete_rows table=orders")
    assert result.interruptions == []  # nothing to approve: no call was made
    assert result.final_output.startswith("To call delete_rows I need: where.")
