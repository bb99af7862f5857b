"""The stream-rule checker catches each broken rule (and passes a good stream)."""

from __future__ import annotations

from typing import Any

import pytest

from interrupt_widget.testing import (
    ag_ui_validate_findings,
    assert_valid_stream,
    stream_violations,
    thread_violations,
)

START = {"type": "RUN_STARTED", "threadId": "t", "runId": "r", "protocolVersion": "1.0"}
END = {"type": "RUN_FINISHED", "threadId": "t", "runId": "r"}
SCHEMA = {
    "type": "object",
    "properties": {"approved": {"type": "boolean"}},
    "required": ["approved"],
}


def _interrupt(**overrides: Any) -> dict[str, Any]:
    return {
        "id": "i1",
        "reason": "tool_call",
        "toolCallId": "c1",
        "responseSchema": SCHEMA,
    } | overrides


def _call() -> list[dict[str, Any]]:
    return [
        {
            "type": "TOOL_CALL_START",
            "toolCallId": "c1",
            "toolCallName": "f",
            "parentMessageId": "m1",
        },
        {"type": "TOOL_CALL_ARGS", "toolCallId": "c1", "delta": "{}"},
        {"type": "TOOL_CALL_END", "toolCallId": "c1"},
    ]


def _snapshot(metadata: dict[str, Any] | None) -> dict[str, Any]:
    call: dict[str, Any] = {
        "id": "c1",
        "type": "function",
        "function": {"name": "f", "arguments": "{}"},
    }
    if metadata is not None:
        call["metadata"] = metadata
    return {
        "type": "MESSAGES_SNAPSHOT",
        "messages": [{"id": "m1", "role": "assistant", "toolCalls": [call]}],
    }


def _paused(*interrupts: dict[str, Any], recorded: bool = True) -> list[dict[str, Any]]:
    metadata = {"interrupt": interrupts[0]} if recorded and interrupts else None
    return [
        START,
        *_call(),
        _snapshot(metadata),
        {
            "type": "RUN_FINISHED",
            "threadId": "t",
            "runId": "r",
            "outcome": {"type": "interrupt", "interrupts": list(interrupts)},
        },
    ]


def _rules(events: list[dict[str, Any]]) -> set[str]:
    return {v.rule for v in stream_violations(events)}


def test_a_good_interrupting_stream_passes_all_three_checks() -> None:
    events = _paused(_interrupt(expiresAt="2030-01-01T00:00:00Z"))
    assert assert_valid_stream(events)
    assert ag_ui_validate_findings(events) == []


@pytest.mark.parametrize(
    ("events", "rule"),
    [
        ([START, {"type": "TEXT_MESSAGE_START", "messageId": "m", "role": "assistant"},
          END], "open-at-end"),
        ([START, {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "x"},
          END], "text-not-open"),
        ([START, {"type": "TOOL_CALL_RESULT", "messageId": "x", "toolCallId": "no", "content": "1"},
          END], "result-unknown-call"),
        ([START, END,
          END], "one-terminal-last"),
        ([END], "run-started-first"),
        (_paused(_interrupt(), _interrupt()), "interrupt-id-unique"),
        (_paused(_interrupt(toolCallId="other")), "interrupt-unknown-call"),
        (_paused(_interrupt(), recorded=False), "interrupt-not-recorded"),
        (_paused(_interrupt(responseSchema={"type": "object"})), "interrupt-schema"),
        (_paused(_interrupt(expiresAt="soon")), "interrupt-expiry"),
        ([START, *_call(), {"type": "RUN_FINISHED", "threadId": "t", "runId": "r",
          "outcome": {"type": "interrupt", "interrupts": [_interrupt()]}}],
         "snapshot-before-interrupt"),
    ],
)  # fmt: skip
def test_each_broken_rule_is_reported(events: list[dict[str, Any]], rule: str) -> None:
    assert rule in _rules(events)
    with pytest.raises(AssertionError):
        assert_valid_stream(events)


def test_a_call_run_twice_across_a_thread_is_reported() -> None:
    result = {"type": "TOOL_CALL_RESULT", "messageId": "x", "toolCallId": "c1", "content": "done"}
    resumed = [
        START,
        _snapshot(None),
        result,
        END,
    ]
    first = _paused(_interrupt())
    assert thread_violations([first, resumed]) == []
    rules = {v.rule for v in thread_violations([first, resumed, resumed])}
    assert "run 2: approved-once" in rules


def test_unparseable_events_are_reported() -> None:
    assert _rules([START, {"type": "NOT_AN_EVENT"}]) == {"model"}
