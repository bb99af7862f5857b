"""The chat's wire contract: front-end messages parsed into types, replies built in one place."""

from __future__ import annotations

from typing import Any

import pytest

from interrupt_widget.widgets.chat_protocol import (
    Hello,
    Prompt,
    PromptResult,
    ProtocolError,
    Stop,
    events_to_wire,
    parse_front_end_message,
    prompt_result_to_wire,
)


def test_each_front_end_message_parses_to_its_type() -> None:
    prompt = parse_front_end_message({"type": "prompt", "text": "hi", "requestId": "r1"})
    assert prompt == Prompt(request_id="r1", text="hi")
    assert parse_front_end_message({"type": "stop"}) == Stop()
    assert parse_front_end_message({"type": "hello"}) == Hello()


@pytest.mark.parametrize(
    ("content", "needle", "request_id"),
    [
        ("prompt", "JSON object", None),
        ({"type": "shout"}, "unknown chat message type 'shout'", None),
        ({"type": "prompt", "text": "hi"}, "string requestId", None),
        ({"type": "prompt", "text": 3, "requestId": "r2"}, "the message is empty", "r2"),
    ],
)
def test_a_bad_message_is_refused_with_the_request_to_answer(
    content: Any, needle: str, request_id: str | None
) -> None:
    with pytest.raises(ProtocolError, match=needle) as refused:
        parse_front_end_message(content)
    assert refused.value.request_id == request_id


def test_replies_are_camel_case_and_name_an_error_only_on_refusal() -> None:
    assert prompt_result_to_wire(PromptResult("r1", ok=True)) == {
        "type": "prompt_result",
        "requestId": "r1",
        "ok": True,
    }
    assert prompt_result_to_wire(PromptResult("r2", ok=False, error="busy")) == {
        "type": "prompt_result",
        "requestId": "r2",
        "ok": False,
        "error": "busy",
    }
    assert events_to_wire("catchup", []) == {"type": "catchup", "events": []}
