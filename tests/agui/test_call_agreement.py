"""`call_agreement`: a gated call agrees with its interrupt record, or says what differs."""

from __future__ import annotations

import json
from typing import Any

import pytest
from ag_ui.core import FunctionCall, Interrupt, ToolCall

from interrupt_widget.agui.call_agreement import check_agreement, disagreement
from interrupt_widget.agui.interrupts import tool_call_interrupt
from interrupt_widget.errors import AdapterError, ErrorCode

SHOWN = json.dumps({"amount": 5, "to": "bob"})


def record(
    arguments: str = SHOWN, *, name: str = "transfer_funds", call_id: str = "c1"
) -> Interrupt:
    return tool_call_interrupt(
        tool_call_id=call_id,
        tool_name=name,
        arguments=arguments,
        response_schema=None,
        expires_at=None,
    )


def call(arguments: str = SHOWN, *, name: str = "transfer_funds", call_id: str = "c1") -> ToolCall:
    return ToolCall(id=call_id, function=FunctionCall(name=name, arguments=arguments))


def with_metadata(interrupt: Interrupt, **changes: Any) -> Interrupt:
    metadata = {**(interrupt.metadata or {}), **changes}
    return interrupt.model_copy(update={"metadata": metadata})


@pytest.mark.parametrize(
    "arguments",
    [
        SHOWN,
        '{"to":"bob","amount":5}',
        '{ "amount" : 5 ,\n\t"to" : "bob" }',
        '{"amount": 5.0, "to": "bob"}',
    ],
    ids=["same", "key-order", "whitespace", "integral-float"],
)
def test_the_same_call_spelled_differently_agrees(arguments: str) -> None:
    assert disagreement(call(arguments), record()) is None


def test_empty_arguments_agree_with_no_arguments() -> None:
    assert disagreement(call(""), record("{}")) is None


@pytest.mark.parametrize(
    ("made", "shown", "said"),
    [
        (call('{"amount": 5000, "to": "mallory"}'), record(), "differ from"),
        (call(name="close_account"), record(), "it calls 'close_account'"),
        (call('{"amount": 5, "to": "bob", "memo": "x"}'), record(), "differ from"),
        (call('{"amount": 5, "to": "bob"}'), record('{"amount": 5.5, "to": "bob"}'), "differ"),
        (call('{"flag": true}'), record('{"flag": 1}'), "differ from"),
        (call(call_id="c2"), record(), "is for call 'c1'"),
    ],
    ids=["arguments", "tool-name", "extra-key", "number", "bool-vs-int", "other-call"],
)
def test_a_changed_call_disagrees(made: ToolCall, shown: Interrupt, said: str) -> None:
    why = disagreement(made, shown)
    assert why is not None
    assert said in why


def test_non_json_arguments_must_be_the_very_text_shown() -> None:
    assert disagreement(call("amount five to bob"), record("amount five to bob")) is None
    assert disagreement(call("amount fifty to bob"), record("amount five to bob")) is not None
    # JSON where the record shows text (or the other way round) is a change too.
    assert disagreement(call(SHOWN), record(json.dumps(SHOWN))) is not None
    assert disagreement(call(json.dumps(SHOWN)), record(SHOWN)) is not None


def test_a_record_that_shows_no_arguments_or_no_tool_disagrees() -> None:
    no_input = record().model_copy(update={"metadata": {"tool_name": "transfer_funds"}})
    assert disagreement(call(), no_input) == "its interrupt record shows no arguments"
    no_name = record().model_copy(update={"metadata": {"tool_input": {"amount": 5, "to": "bob"}}})
    assert disagreement(call(), no_name) == "its interrupt record names no tool"


def test_a_message_that_does_not_describe_the_call_disagrees() -> None:
    shown = record().model_copy(update={"message": "Allow transfer_funds to send 5?"})
    assert disagreement(call(), shown) == "its interrupt's message does not describe the call"


def test_an_edited_record_with_the_call_left_alone_disagrees() -> None:
    shown = with_metadata(record(), tool_input={"amount": 1, "to": "bob"})
    assert disagreement(call(), shown) is not None


def test_check_agreement_raises_call_mismatch_naming_the_call() -> None:
    shown = record()
    with pytest.raises(AdapterError) as caught:
        check_agreement(call('{"amount": 5000, "to": "mallory"}'), shown)
    assert caught.value.code == ErrorCode.CALL_MISMATCH
    assert caught.value.interrupt_id == shown.id
    assert "'c1'" in caught.value.message
    assert "transfer_funds" in caught.value.message


def test_a_long_argument_is_cut_in_the_message() -> None:
    huge = json.dumps({"amount": 5, "to": "x" * 10_000})
    why = disagreement(call(huge), record())
    assert why is not None
    assert len(why) < 400
