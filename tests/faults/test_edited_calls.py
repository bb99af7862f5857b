"""An edited call under an untouched interrupt record runs nothing: in process, over HTTP, on load.

Each test counts the tool's real runs from the file the tool writes.
"""

from __future__ import annotations

import json
import pathlib
from typing import Any

import httpx
import pytest
from ag_ui.core import Message, RunAgentInput
from bank import bank_agent, runs
from steps import APPROVE, ask, error_of, events_of, paused, resume

from interrupt_widget import AgentChat, CallMismatch, ErrorCode, OpenAIAgentsAdapter
from interrupt_widget.agui.wire import message_from_wire, to_wire
from interrupt_widget.http.app import asgi_app
from interrupt_widget.http.client import AGUIClient
from interrupt_widget.testing import CommRecorder, until

SECRET = "a-fault-test-secret-long-enough"
EDITED = {"amount": 5000, "to": "mallory"}


def edited(messages: list[Message], change: Any) -> list[Message]:
    """The messages with `change(call)` applied to each gated call's wire form."""
    out: list[Message] = []
    for message in messages:
        wire = to_wire(message)
        for call in wire.get("toolCalls", []):
            if "interrupt" in (call.get("metadata") or {}):
                change(call)
        out.append(message_from_wire(wire))
    return out


def set_arguments(arguments: str) -> Any:
    def change(call: dict[str, Any]) -> None:
        call["function"]["arguments"] = arguments

    return change


async def test_edited_arguments_under_an_untouched_record_run_nothing_in_process(
    runs_file: pathlib.Path,
) -> None:
    adapter = OpenAIAgentsAdapter(bank_agent(runs_file))
    messages, interrupts = paused(await events_of(adapter, ask()))
    (interrupt,) = interrupts
    forged = edited(messages, set_arguments(json.dumps(EDITED)))

    refused = await events_of(adapter, resume(forged, interrupts))

    assert [e.type.value for e in refused] == ["RUN_STARTED", "RUN_ERROR"]
    error = error_of(refused)
    assert error.code == ErrorCode.CALL_MISMATCH
    assert interrupt.tool_call_id is not None
    assert interrupt.tool_call_id in error.message
    assert "mallory" in error.message
    assert "Nothing was run" in error.message
    assert runs(runs_file) == []
    # The refusal took nothing: the call as shown still runs, once.
    await events_of(adapter, resume(messages, interrupts, run_id="run-3"))
    assert runs(runs_file) == [{"tool": "transfer_funds", "amount": 5.0, "to": "bob"}]


async def test_a_changed_tool_name_runs_nothing(runs_file: pathlib.Path) -> None:
    adapter = OpenAIAgentsAdapter(bank_agent(runs_file))
    messages, interrupts = paused(await events_of(adapter, ask()))

    def rename(call: dict[str, Any]) -> None:
        call["function"]["name"] = "close_account"

    refused = await events_of(adapter, resume(edited(messages, rename), interrupts))

    error = error_of(refused)
    assert error.code == ErrorCode.CALL_MISMATCH
    assert "'close_account'" in error.message
    assert "'transfer_funds'" in error.message
    assert runs(runs_file) == []


async def test_one_edited_call_of_two_runs_neither(runs_file: pathlib.Path) -> None:
    adapter = OpenAIAgentsAdapter(bank_agent(runs_file))
    two = ask("transfer_funds amount=5 to=bob and transfer_funds amount=7 to=carol")
    messages, interrupts = paused(await events_of(adapter, two))
    assert len(interrupts) == 2
    second = interrupts[1].tool_call_id

    def edit_second(call: dict[str, Any]) -> None:
        if call["id"] == second:
            call["function"]["arguments"] = json.dumps({"amount": 7000, "to": "carol"})

    refused = await events_of(adapter, resume(edited(messages, edit_second), interrupts))

    assert error_of(refused).code == ErrorCode.CALL_MISMATCH
    assert not [e for e in refused if e.type.value == "TOOL_CALL_RESULT"]
    assert runs(runs_file) == []


async def test_key_order_and_spacing_alone_are_not_a_change(runs_file: pathlib.Path) -> None:
    adapter = OpenAIAgentsAdapter(bank_agent(runs_file))
    messages, interrupts = paused(await events_of(adapter, ask()))
    respelled = edited(messages, set_arguments('{ "to" : "bob",\n  "amount" : 5 }'))

    resumed = await events_of(adapter, resume(respelled, interrupts))

    assert resumed[-1].type.value == "RUN_FINISHED"
    assert runs(runs_file) == [{"tool": "transfer_funds", "amount": 5.0, "to": "bob"}]


async def test_edited_arguments_run_nothing_over_http(runs_file: pathlib.Path) -> None:
    app = asgi_app(bank_agent(runs_file), secret=SECRET)
    client = AGUIClient("http://bank.test/", transport=httpx.ASGITransport(app=app))
    first = [e async for e in client.run(ask())]
    messages, interrupts = paused(first)
    forged = to_wire(resume(messages, interrupts))
    for message in forged["messages"]:
        for call in message.get("toolCalls", []):
            call["function"]["arguments"] = json.dumps(EDITED)

    refused = [e async for e in client.run(RunAgentInput.model_validate(forged))]

    assert [e.type.value for e in refused] == ["RUN_STARTED", "RUN_ERROR"]
    error = error_of(refused)
    assert error.code == ErrorCode.CALL_MISMATCH
    assert interrupts[0].tool_call_id is not None
    assert interrupts[0].tool_call_id in error.message
    assert runs(runs_file) == []
    resumed = [e async for e in client.run(resume(messages, interrupts, run_id="run-3"))]
    assert resumed[-1].type.value == "RUN_FINISHED"
    assert len(runs(runs_file)) == 1


async def _waiting_save(
    runs_file: pathlib.Path, path: pathlib.Path, text: str = "transfer_funds amount=5 to=bob"
) -> dict[str, Any]:
    chat = AgentChat(bank_agent(runs_file))
    chat.send(text)
    await until(chat, lambda: chat.status == "waiting")
    return _read(chat.save(path))


def _read(path: pathlib.Path) -> dict[str, Any]:
    document: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return document


def _gated(document: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        call
        for message in document["messages"]
        for call in message.get("toolCalls", [])
        if "interrupt" in (call.get("metadata") or {})
    ]


async def test_a_save_with_edited_arguments_loads_nothing(
    recorder: CommRecorder, runs_file: pathlib.Path, tmp_path: pathlib.Path
) -> None:
    path = tmp_path / "chat.json"
    document = await _waiting_save(runs_file, path)
    (call,) = _gated(document)
    call["function"]["arguments"] = json.dumps(EDITED)
    path.write_text(json.dumps(document), encoding="utf-8")
    widgets_before = len(recorder.comms)

    with pytest.raises(CallMismatch, match="nothing was loaded") as caught:
        AgentChat.load(path, bank_agent(runs_file))

    assert caught.value.call_id == call["id"]
    assert caught.value.code == ErrorCode.CALL_MISMATCH
    assert str(path) in str(caught.value)
    assert call["id"] in str(caught.value)
    assert len(recorder.comms) == widgets_before  # no chat, no picker
    assert runs(runs_file) == []


async def test_a_save_whose_listed_interrupt_was_edited_loads_nothing(
    recorder: CommRecorder, runs_file: pathlib.Path, tmp_path: pathlib.Path
) -> None:
    # The loaded picker shows the listed interrupt: it must be the record on the call.
    path = tmp_path / "chat.json"
    document = await _waiting_save(runs_file, path)
    (listed,) = document["interrupts"]
    listed["message"] = 'Allow transfer_funds to run with amount=0.01, to="bob"?'
    path.write_text(json.dumps(document), encoding="utf-8")

    with pytest.raises(CallMismatch, match="differs from the record"):
        AgentChat.load(path, bank_agent(runs_file))
    assert runs(runs_file) == []


async def test_an_untouched_save_loads_and_its_approved_call_runs_once(
    recorder: CommRecorder, runs_file: pathlib.Path, tmp_path: pathlib.Path
) -> None:
    path = tmp_path / "chat.json"
    await _waiting_save(runs_file, path)

    loaded = AgentChat.load(path, bank_agent(runs_file))
    assert loaded.picker is not None
    loaded.picker.resolve(APPROVE, by="user")
    assert loaded.last_run is not None
    await loaded.last_run

    assert runs(runs_file) == [{"tool": "transfer_funds", "amount": 5.0, "to": "bob"}]


async def test_a_record_without_its_arguments_runs_nothing(runs_file: pathlib.Path) -> None:
    adapter = OpenAIAgentsAdapter(bank_agent(runs_file))
    messages, interrupts = paused(await events_of(adapter, ask()))

    def drop_input(call: dict[str, Any]) -> None:
        del call["metadata"]["interrupt"]["metadata"]["tool_input"]

    refused = await events_of(adapter, resume(edited(messages, drop_input), interrupts))

    error = error_of(refused)
    assert error.code == ErrorCode.CALL_MISMATCH
    assert "shows no arguments" in error.message
    assert runs(runs_file) == []
