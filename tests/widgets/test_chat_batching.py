"""Delta batching: what the chat sends to the front end while a reply streams."""

from __future__ import annotations

import asyncio

from ag_ui.core import (
    RunFinishedEvent,
    RunStartedEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
    ToolCallArgsEvent,
    ToolCallStartEvent,
)

from interrupt_widget.agui.wire import JsonDict
from interrupt_widget.widgets.delta_batching import EventBatcher, coalesce


class ManualClock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def _text(message_id: str, delta: str) -> TextMessageContentEvent:
    return TextMessageContentEvent(message_id=message_id, delta=delta)


def test_coalesce_merges_consecutive_deltas_of_one_message_only() -> None:
    events = [
        TextMessageStartEvent(message_id="m1", role="assistant"),
        _text("m1", "Hel"),
        _text("m1", "lo "),
        _text("m1", ""),
        _text("m2", "other"),
        _text("m1", "again"),
        ToolCallStartEvent(tool_call_id="c1", tool_call_name="pay"),
        ToolCallArgsEvent(tool_call_id="c1", delta='{"a":'),
        ToolCallArgsEvent(tool_call_id="c1", delta="1}"),
        TextMessageEndEvent(message_id="m1"),
    ]
    wire = coalesce(events)
    assert [e["type"] for e in wire] == [
        "TEXT_MESSAGE_START",
        "TEXT_MESSAGE_CONTENT",
        "TEXT_MESSAGE_CONTENT",
        "TEXT_MESSAGE_CONTENT",
        "TOOL_CALL_START",
        "TOOL_CALL_ARGS",
        "TEXT_MESSAGE_END",
    ]
    assert wire[1] == {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "Hello "}
    assert wire[2]["delta"] == "other"
    assert wire[3] == {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m1", "delta": "again"}
    assert wire[5] == {"type": "TOOL_CALL_ARGS", "toolCallId": "c1", "delta": '{"a":1}'}
    assert wire[4]["toolCallName"] == "pay"  # other events keep their camelCase wire form


def test_batches_flush_on_interval_and_at_run_end() -> None:
    clock = ManualClock()
    sent: list[JsonDict] = []
    batcher = EventBatcher(sent.append, interval=0.04, clock=clock)
    batcher.push(RunStartedEvent(thread_id="t", run_id="r"))
    for i in range(100):
        batcher.push(_text("m", f"w{i} "))
    assert sent == []  # no time has passed, no loop to arm a timer on
    clock.now = 0.05
    batcher.push(_text("m", "last "))
    assert len(sent) == 1
    first = sent[0]["events"]
    assert first[0]["type"] == "RUN_STARTED"
    assert first[1]["delta"] == "".join(f"w{i} " for i in range(100)) + "last "
    batcher.push(_text("m", "tail"))
    batcher.push(RunFinishedEvent(thread_id="t", run_id="r"))
    assert len(sent) == 2
    assert [e["type"] for e in sent[1]["events"]] == ["TEXT_MESSAGE_CONTENT", "RUN_FINISHED"]
    assert batcher.pending == 0
    assert batcher.batches_sent == 2


async def test_trailing_events_are_flushed_by_the_timer() -> None:
    sent: list[JsonDict] = []
    arrived = asyncio.Event()

    def send(msg: JsonDict) -> None:
        sent.append(msg)
        arrived.set()

    batcher = EventBatcher(send, interval=0.01)
    batcher.push(_text("m", "a"))
    batcher.push(_text("m", "b"))
    await asyncio.wait_for(arrived.wait(), timeout=5)
    assert sent == [
        {
            "type": "events",
            "events": [{"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "ab"}],
        }
    ]


def test_flush_with_nothing_pending_sends_nothing() -> None:
    sent: list[JsonDict] = []
    batcher = EventBatcher(sent.append)
    batcher.flush()
    batcher.close()
    assert sent == []
