"""Interrupts as other AG-UI servers send them (`fixtures/other_servers.json`, built
from each server's own code): named as a person expects, answered as each schema wants."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from ag_ui.core import (
    BaseEvent,
    Interrupt,
    MessagesSnapshotEvent,
    RunAgentInput,
    RunFinishedEvent,
    RunFinishedInterruptOutcome,
    RunStartedEvent,
)

from interrupt_widget import InterruptPicker, responders
from interrupt_widget.agui.interrupts import tool_arguments, tool_name
from interrupt_widget.agui.wire import interrupt_from_wire, message_from_wire
from interrupt_widget.errors import AnswerRefused
from interrupt_widget.testing import CommRecorder, until
from interrupt_widget.widgets.chat import AgentChat

FIXTURE: dict[str, Any] = json.loads(
    (Path(__file__).parents[1] / "fixtures" / "other_servers.json").read_text(encoding="utf-8")
)
MESSAGES = [message_from_wire(m) for m in FIXTURE["messages"]]
ARGS = {"amount": 250, "recipient": "bob", "urgent": True}


def interrupt(name: str) -> Interrupt:
    return interrupt_from_wire(FIXTURE[name])


@pytest.mark.parametrize(
    ("server", "messages", "name"),
    [
        ("strands", MESSAGES, "transfer_funds"),  # metadata.tool_name
        ("agent_framework", [], "transfer_funds"),  # its own metadata
        ("agent_framework_hosted", [], "web_search"),
        ("bare", MESSAGES, "delete_file"),  # the call toolCallId points at
        ("bare", [], "tool_call"),  # nothing names it: the reason
        ("adk", MESSAGES, "transfer_funds"),  # past adk_request_confirmation, to what it confirms
        ("adk", [], "transfer_funds"),
    ],
)
def test_the_tool_is_named_as_a_person_expects(server: str, messages: list[Any], name: str) -> None:
    assert tool_name(interrupt(server), messages) == name


@pytest.mark.parametrize("server", ["strands", "agent_framework", "adk"])
def test_the_arguments_are_read_from_the_framework_when_not_from_tool_input(server: str) -> None:
    assert tool_arguments(interrupt(server)) == ARGS


def test_the_picker_sends_every_view_the_names_and_arguments_python_reads(
    recorder: CommRecorder,
) -> None:
    servers = ["agent_framework", "agent_framework_hosted", "strands", "adk", "bare"]
    picker = InterruptPicker([interrupt(s) for s in servers])
    rows = [["amount", "250"], ["recipient", "bob"], ["urgent", "true"]]
    transfer = {"name": "transfer_funds", "arguments": ARGS, "shown": rows}
    assert picker.calls == {
        "int_af_1": transfer,
        "int_af_2": {"name": "web_search", "arguments": {}, "shown": []},
        "int_st_1": transfer,
        "adk_conf_1": transfer,
        "int_lg_1": {"name": "tool_call"},  # nothing names it outside its conversation
    }
    comm = recorder.of(picker)
    assert comm.messages[0].data["state"]["calls"] == picker.calls  # in the first drawing
    picker.reset([interrupt("bare")], MESSAGES)  # as a chat does, with its conversation
    assert picker.calls == {"int_lg_1": {"name": "delete_file"}}
    assert comm.state_updates()[-1]["calls"] == picker.calls
    assert "Interrupt delete_file: waiting for an answer" in repr(picker)


def test_agent_framework_takes_approve_and_deny_as_the_picker_sends_them(
    recorder: CommRecorder,
) -> None:
    for payload in ({"approved": True}, {"approved": False}, {"approved": True, "amount": 120}):
        picker = InterruptPicker([interrupt("agent_framework")])
        picker.resolve(payload)
        assert picker.answers["int_af_1"]["payload"] == payload


@pytest.mark.parametrize(
    ("payload", "says"),
    [
        # The schema forbids extra properties: a denial cannot carry a reason.
        ({"approved": False, "reason": "too much"}, "reason"),
        # editedArgs, once sent, must be whole.
        ({"approved": True, "editedArgs": {"amount": 300}}, "recipient"),
    ],
)
def test_agent_framework_refuses_what_its_schema_forbids(
    recorder: CommRecorder, payload: dict[str, Any], says: str
) -> None:
    picker = InterruptPicker([interrupt("agent_framework")])
    with pytest.raises(AnswerRefused, match=says):
        picker.resolve(payload)
    assert picker.answers == {}


def test_approve_all_answers_agent_framework_with_what_its_schema_wants(
    recorder: CommRecorder,
) -> None:
    picker = InterruptPicker([interrupt("agent_framework"), interrupt("strands")])
    responders.approve_all().respond(picker)
    assert {k: v["payload"] for k, v in picker.answers.items()} == {
        "int_af_1": {"approved": True},
        "int_st_1": {"approved": True},
    }


class _ServerNamingNoTool:
    """An AG-UI agent whose interrupt names no tool, only the call it pauses."""

    async def run(self, input: RunAgentInput) -> AsyncIterator[BaseEvent]:
        yield RunStartedEvent(thread_id=input.thread_id, run_id=input.run_id)
        yield MessagesSnapshotEvent(messages=[*input.messages, *MESSAGES[1:]])
        paused = RunFinishedInterruptOutcome(interrupts=[interrupt("bare")])
        outcome = None if input.resume else paused
        yield RunFinishedEvent(thread_id=input.thread_id, run_id=input.run_id, outcome=outcome)


async def test_the_chat_waiting_line_names_the_call_the_interrupt_points_at(
    recorder: CommRecorder,
) -> None:
    chat = AgentChat(_ServerNamingNoTool())
    run = chat.send("delete a.txt")
    await until(chat, lambda: chat.status == "waiting")
    assert chat.status_line == "Waiting for your answer: delete_file"
    assert chat.picker is not None
    assert chat.picker.calls == {"int_lg_1": {"name": "delete_file"}}  # as its card is titled
    chat.picker.cancel()
    await run
    assert chat.status == "done"
