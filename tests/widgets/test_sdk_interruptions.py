"""`answer_interruptions`: a plain SDK result's interruptions answered, the SDK's state back."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from agents import Agent, Runner, function_tool

from interrupt_widget import OfflineModel, answer_interruptions, editable, responders
from interrupt_widget.testing import CommRecorder


def _bank(log: Path, *, edit: bool = False) -> Agent[Any]:
    @function_tool(needs_approval=True)
    def transfer_funds(amount: float, to: str) -> str:
        """Send money."""
        with log.open("a") as file:
            file.write(json.dumps({"amount": amount, "to": to}) + "\n")
        return f"sent {amount} to {to}"

    tool = editable(transfer_funds) if edit else transfer_funds
    return Agent(name="bank", model=OfflineModel(), tools=[tool])


def _runs(log: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


async def test_approve_all_gives_the_sdk_state_back_approved(
    tmp_path: Path, recorder: CommRecorder
) -> None:
    log = tmp_path / "runs.jsonl"
    agent = _bank(log)
    result = await Runner.run(agent, "transfer_funds amount=5 to=bob")
    assert result.interruptions

    state = await answer_interruptions(result, responders.approve_all())
    done = await Runner.run(agent, state)

    assert _runs(log) == [{"amount": 5.0, "to": "bob"}]
    assert "sent 5.0 to bob" in str(done.final_output)


async def test_a_denial_with_a_reason_reaches_the_model(
    tmp_path: Path, recorder: CommRecorder
) -> None:
    log = tmp_path / "runs.jsonl"
    agent = _bank(log)
    result = await Runner.run(agent, "transfer_funds amount=5 to=bob")
    deny = responders.answers({"transfer_funds": {"approved": False, "reason": "wrong payee"}})

    state = await answer_interruptions(result, deny)
    done = await Runner.run(agent, state)

    assert _runs(log) == []
    assert "wrong payee" in json.dumps(done.to_input_list())


async def test_always_approve_is_the_sdks_sticky_choice(
    tmp_path: Path, recorder: CommRecorder
) -> None:
    log = tmp_path / "runs.jsonl"
    agent = _bank(log)
    result = await Runner.run(agent, "transfer_funds amount=5 to=bob")
    always = responders.answers({"transfer_funds": {"approved": True, "always": True}})

    state = await answer_interruptions(result, always)

    [item] = result.interruptions
    assert state._context.is_tool_approved("transfer_funds", "another-call") is True
    await Runner.run(agent, state)
    assert len(_runs(log)) == 1
    assert item.call_id


async def test_an_edit_runs_the_edited_call(tmp_path: Path, recorder: CommRecorder) -> None:
    log = tmp_path / "runs.jsonl"
    agent = _bank(log, edit=True)
    result = await Runner.run(agent, "transfer_funds amount=5 to=bob")
    edit = responders.answers(
        {"transfer_funds": {"approved": True, "editedArgs": {"amount": 5, "to": "carol"}}}
    )

    state = await answer_interruptions(result, edit)
    await Runner.run(agent, state)

    assert _runs(log) == [{"amount": 5.0, "to": "carol"}]


async def test_a_streamed_result_is_answered_too(tmp_path: Path, recorder: CommRecorder) -> None:
    log = tmp_path / "runs.jsonl"
    agent = _bank(log)
    streamed = Runner.run_streamed(agent, "transfer_funds amount=7 to=ann")
    async for _ in streamed.stream_events():
        pass

    state = await answer_interruptions(streamed, responders.approve_all())
    again = Runner.run_streamed(agent, state)
    async for _ in again.stream_events():
        pass

    assert _runs(log) == [{"amount": 7.0, "to": "ann"}]


async def test_a_result_with_nothing_to_answer_is_refused(recorder: CommRecorder) -> None:
    agent = Agent(name="echo", model=OfflineModel())
    result = await Runner.run(agent, "hello")
    with pytest.raises(ValueError, match="no interruptions"):
        await answer_interruptions(result, responders.approve_all())
