"""The client's side of a streamed run (`StreamFollower`): each event said once, whatever the
reads overlap, and a run begun again (its worker died) followed without a second RUN_STARTED,
what the lost attempt left open closed, the final result the authority."""

from __future__ import annotations

import pytest

pytest.importorskip("temporalio")

from interrupt_widget.temporal.shapes import JsonDict, StreamChunk
from interrupt_widget.temporal.streaming import StreamFollower, pace


def _run(words: list[str], message: str = "m1") -> list[JsonDict]:
    return [
        {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
        {"type": "TEXT_MESSAGE_START", "messageId": message, "role": "assistant"},
        *({"type": "TEXT_MESSAGE_CONTENT", "messageId": message, "delta": w} for w in words),
        {"type": "TEXT_MESSAGE_END", "messageId": message},
        {"type": "MESSAGES_SNAPSHOT", "messages": []},
        {"type": "RUN_FINISHED", "threadId": "t", "runId": "r", "outcome": {"type": "success"}},
    ]


def test_reads_then_the_result_say_each_event_once() -> None:
    events = _run(["a ", "b ", "c"])
    follower = StreamFollower("r")
    said = follower.take(StreamChunk(1, 0, events[:3]))
    assert follower.read().offset == 3
    said += follower.take(StreamChunk(1, 3, []))  # nothing new
    said += follower.take(StreamChunk(1, 3, events[3:4]))
    said += follower.rest(events)
    assert said == events


def test_no_read_before_the_end_gives_the_result_whole() -> None:
    events = _run(["a"])
    follower = StreamFollower("r")
    assert follower.take(StreamChunk()) == []
    assert follower.rest(events) == events


def test_a_run_begun_again_is_followed_from_its_start_without_a_second_run_started() -> None:
    lost, again = _run(["a ", "b"], "m1"), _run(["x ", "y"], "m2")
    follower = StreamFollower("r")
    said = follower.take(StreamChunk(1, 0, lost[:3]))  # started, m1 open, one word
    said += follower.take(StreamChunk(2, 0, again[:3]))
    said += follower.rest(again)
    types = [e["type"] for e in said]
    assert types.count("RUN_STARTED") == 1
    assert {"type": "TEXT_MESSAGE_END", "messageId": "m1"} in said  # the lost one, closed
    assert said[-len(again) + 1 :] == again[1:]


def test_a_result_from_another_attempt_than_the_one_read_closes_it_and_says_the_result() -> None:
    lost, final = _run(["a ", "b"], "m1"), _run(["x"], "m2")
    follower = StreamFollower("r")
    said = follower.take(StreamChunk(1, 0, lost[:3]))
    rest = follower.rest(final)
    assert rest[0] == {"type": "TEXT_MESSAGE_END", "messageId": "m1"}
    assert rest[1:] == final[1:]
    assert [e["type"] for e in said + rest].count("RUN_STARTED") == 1


def test_a_refusal_after_events_were_read_says_its_error_not_a_second_start() -> None:
    follower = StreamFollower("r")
    follower.take(StreamChunk(1, 0, _run(["a"])[:2]))
    refused = [
        {"type": "RUN_STARTED", "threadId": "t", "runId": "r"},
        {"type": "RUN_ERROR", "message": "down", "code": "temporal_unavailable"},
    ]
    rest = follower.rest(refused)
    assert [e["type"] for e in rest] == ["TEXT_MESSAGE_END", "RUN_ERROR"]


def _batches_within(seconds: float) -> int:
    sent, spent = 0, 0.0
    while spent + pace(sent) <= seconds:
        spent += pace(sent)
        sent += 1
    return sent


def test_the_pace_slows_as_a_long_run_goes_on_so_its_history_stays_in_bounds() -> None:
    assert pace(0) < pace(150) < pace(1000)
    assert _batches_within(5) >= 99  # a reply of a few seconds: 20 batches a second
    assert _batches_within(60) <= 400
    # A segment's longest run (an hour): every batch a signal, about four history events,
    # well under Temporal's limit of 51,200 events.
    assert _batches_within(3600) * 4 < 20_000
