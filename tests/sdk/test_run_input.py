"""What an SDK run starts from: the same input the raw SDK's user gives it."""

from __future__ import annotations

from typing import Any

from ag_ui.core import AssistantMessage, RunAgentInput, UserMessage
from agents import (
    Agent,
    GuardrailFunctionOutput,
    RunContextWrapper,
    Runner,
    TResponseInputItem,
    input_guardrail,
)

from interrupt_widget import OfflineModel, OpenAIAgentsAdapter


def seeing(seen: list[Any]) -> Agent[Any]:
    """An agent whose input guardrail keeps each input it is shown."""

    @input_guardrail
    def keep(
        _ctx: RunContextWrapper[Any], _agent: Agent[Any], given: str | list[TResponseInputItem]
    ) -> GuardrailFunctionOutput:
        seen.append(given)
        return GuardrailFunctionOutput(output_info=None, tripwire_triggered=False)

    return Agent(name="seer", model=OfflineModel(), input_guardrails=[keep])


async def _kit(agent: Agent[Any], messages: list[Any]) -> None:
    adapter = OpenAIAgentsAdapter(agent, ledger="memory")
    run = RunAgentInput(thread_id="t", run_id="r", messages=messages)
    async for _ in adapter.run(run):
        pass


async def test_a_lone_user_message_starts_the_run_as_the_raw_sdk_starts_it_from_text() -> None:
    raw: list[Any] = []
    streamed = Runner.run_streamed(seeing(raw), "hello there")
    async for _ in streamed.stream_events():
        pass
    kit: list[Any] = []
    await _kit(seeing(kit), [UserMessage(id="u1", content="hello there")])
    assert kit == raw == [[{"role": "user", "content": "hello there"}]]


async def test_a_longer_conversation_starts_the_run_from_its_items() -> None:
    kit: list[Any] = []
    messages = [
        UserMessage(id="u1", content="hello"),
        AssistantMessage(id="a1", content="Hi."),
        UserMessage(id="u2", content="again"),
    ]
    await _kit(seeing(kit), messages)
    assert kit == [
        [
            {"role": "user", "content": "hello"},
            {"role": "assistant", "content": "Hi."},
            {"role": "user", "content": "again"},
        ]
    ]
