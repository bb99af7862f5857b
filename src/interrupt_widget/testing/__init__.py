"""Test helpers for users of the kit and for its own suite.

Stream-rule checkers for AG-UI event streams, a recording comm for widgets
and `until` (`batch_until`, `conversation_until`) to await a widget's, a batch's or a
Temporal conversation's state, so a notebook author can test an
approval flow with no kernel, no browser and no network.
"""

from __future__ import annotations

from .recording_comm import CommRecorder, RecordedMessage, RecordingComm, recording_comms
from .stream_rules import (
    Violation,
    ag_ui_validate_findings,
    assert_valid_stream,
    assert_valid_thread,
    parse_events,
    stream_violations,
    thread_violations,
)
from .waiting import batch_until, conversation_until, until

__all__: list[str] = [
    "CommRecorder",
    "RecordedMessage",
    "RecordingComm",
    "Violation",
    "ag_ui_validate_findings",
    "assert_valid_stream",
    "assert_valid_thread",
    "batch_until",
    "conversation_until",
    "parse_events",
    "recording_comms",
    "stream_violations",
    "thread_violations",
    "until",
]
