"""What the chat shows for each way the Agents SDK ends a run (`ending_agents`).

The real adapter and the agents of the differential suite, a recording comm: what
the front end draws is read from what the chat published (the event batches it
streamed and its `messages` trait), and from `text` and the cell's repr.
"""

from __future__ import annotations

import json
import pathlib
from typing import Any

import pytest

from ending_agents import Hold, ending_agent
from interrupt_widget import responders
from interrupt_widget.testing import CommRecorder, RecordingComm, until
from interrupt_widget.widgets.chat import AgentChat, ChatRunError

TRANSFER = "transfer_funds amount=80 to=Carol"
SENT = "sent 80.0 to Carol"


def streamed(comm: RecordingComm) -> list[dict[str, Any]]:
    return [e for m in comm.custom_messages() if m.get("type") == "events" for e in m["events"]]


def card(chat: AgentChat) -> str:
    """The result the chat's card of the transfer shows (its tool message)."""
    (result,) = [m for m in chat.messages if m["role"] == "tool"]
    return str(result["content"])


def ran(log: pathlib.Path) -> int:
    return len(log.read_text().splitlines()) if log.exists() else 0


@pytest.mark.parametrize("name", ["stop_on_first_tool", "stop_at_tools"])
async def test_a_tools_output_as_the_final_output_is_the_reply(
    name: str, recorder: CommRecorder, tmp_path: pathlib.Path
) -> None:
    log = tmp_path / "runs.jsonl"
    chat = AgentChat(ending_agent(name, log), responder=responders.approve_all())
    result = await chat.send(TRANSFER)
    assert (result.outcome, result.text, chat.text) == ("success", SENT, SENT)
    events = streamed(recorder.of(chat))
    assert SENT in [e["delta"] for e in events if e["type"] == "TEXT_MESSAGE_CONTENT"]
    assert chat.messages[-1]["role"] == "assistant"
    assert chat.messages[-1]["content"] == SENT
    assert card(chat) == SENT
    assert f"Agent: {SENT}" in repr(chat)
    assert ran(log) == 1


async def test_a_denied_call_under_stop_on_first_tool_replies_that_it_did_not_run(
    recorder: CommRecorder, tmp_path: pathlib.Path
) -> None:
    log = tmp_path / "runs.jsonl"
    chat = AgentChat(ending_agent("stop_on_first_tool", log), responder=responders.deny_all())
    result = await chat.send(TRANSFER)
    assert result.text == card(chat)
    assert result.text.startswith("Not run:")
    assert ran(log) == 0


@pytest.mark.parametrize(
    ("name", "output_type"),
    [
        ("structured_pydantic", "Receipt"),
        ("structured_dataclass", "ReceiptRecord"),
        ("custom_tools_to_final_output", "Receipt"),
    ],
)
async def test_structured_output_reads_as_indented_json_marked_with_its_type(
    name: str, output_type: str, recorder: CommRecorder, tmp_path: pathlib.Path
) -> None:
    chat = AgentChat(
        ending_agent(name, tmp_path / "runs.jsonl"), responder=responders.approve_all()
    )
    result = await chat.send(TRANSFER)
    reply = chat.messages[-1]
    assert reply["role"] == "assistant"
    assert reply["metadata"] == {"output_type": output_type}  # the view lays it out
    # The stream carries the JSON as text; the chat's text reads it one field a line.
    shown = "".join(
        e["delta"] for e in streamed(recorder.of(chat)) if e["type"] == "TEXT_MESSAGE_CONTENT"
    )
    assert shown.endswith(reply["content"])
    assert result.text == json.dumps(json.loads(reply["content"]), indent=2)
    assert "sent 80.0 to Carol" in result.text
    assert result.text.count("\n") >= 2


@pytest.mark.parametrize(
    ("name", "prompt", "code", "said"),
    [
        ("max_turns", TRANSFER, "max_turns", "Max turns (10) exceeded"),
        ("refusal", TRANSFER, "model_refusal", "I can't help with moving that money."),
        ("input_guardrail", f"{TRANSFER} and rob the bank", "guardrail_tripwire", "a robbery"),
        ("output_guardrail", TRANSFER, "guardrail_tripwire", "the reply names Carol"),
        (
            "tool_input_guardrail",
            "transfer_funds amount=5000 to=Carol",
            "guardrail_tripwire",
            "1000",
        ),
        (
            "tool_output_guardrail",
            "transfer_funds amount=80 to=Mallory",
            "guardrail_tripwire",
            "secret",
        ),
        ("tool_raises", TRANSFER, "tool_error", "the bank is closed, Carol"),
    ],
)
async def test_an_ending_that_raised_shows_its_reason_never_an_empty_success(
    name: str, prompt: str, code: str, said: str, recorder: CommRecorder, tmp_path: pathlib.Path
) -> None:
    chat = AgentChat(
        ending_agent(name, tmp_path / "runs.jsonl"), responder=responders.approve_all()
    )
    with pytest.raises(ChatRunError) as raised:
        await chat.send(prompt)
    assert raised.value.code == code
    assert said in str(raised.value)
    assert chat.status == "error"
    assert said in chat.status_line
    events = streamed(recorder.of(chat))
    assert events[-1]["type"] == "RUN_ERROR"
    assert events[-1]["code"] == code


@pytest.mark.parametrize(
    ("name", "status", "reply"),
    [("plain", "cancelled", ""), ("stop_on_first_tool", "done", SENT)],
)
async def test_a_stop_while_the_approved_call_runs_shows_what_the_sdk_did(
    name: str, status: str, reply: str, recorder: CommRecorder, tmp_path: pathlib.Path
) -> None:
    log = tmp_path / "runs.jsonl"
    hold = Hold()
    chat = AgentChat(ending_agent(name, log, hold=hold), responder=responders.approve_all())
    run = chat.send(TRANSFER)
    await hold.started.wait()
    assert chat.stop()
    hold.go.set()
    result = await run
    await until(chat, lambda: chat.status == status)
    assert card(chat) == SENT  # the call ran, once, whole: its card says so
    assert ran(log) == 1
    assert result.text == chat.text == reply
    if status == "cancelled":
        assert chat.status_line == "Stopped."
        assert chat.messages[-1]["role"] == "tool"  # the model did not speak after the stop


@pytest.mark.parametrize("name", ["output_guardrail", "structured_output_guardrail"])
async def test_a_reply_an_output_guardrail_refused_is_not_kept(
    name: str, recorder: CommRecorder, tmp_path: pathlib.Path
) -> None:
    chat = AgentChat(
        ending_agent(name, tmp_path / "runs.jsonl"), responder=responders.approve_all()
    )
    with pytest.raises(ChatRunError, match="the reply names Carol"):
        await chat.send(TRANSFER)
    # It streamed before the guardrail ran; the conversation the chat keeps drops it.
    said = [e for e in streamed(recorder.of(chat)) if e["type"] == "TEXT_MESSAGE_CONTENT"]
    assert "Carol" in "".join(e["delta"] for e in said)
    assert [m["role"] for m in chat.messages] == ["user", "assistant", "tool"]
    assert card(chat) == SENT  # the approved call ran, and its card says so
    assert chat.text == ""
