"""Transcript: folding events into messages, and reading them changes nothing."""

from __future__ import annotations

from ag_ui.core import AssistantMessage, TextMessageContentEvent, TextMessageStartEvent

from interrupt_widget.agui.messages import Transcript


def test_reading_the_messages_twice_gives_the_same_text_and_changes_nothing() -> None:
    transcript = Transcript()
    transcript.apply(TextMessageStartEvent(message_id="m1"))
    for delta in ("Hel", "lo"):
        transcript.apply(TextMessageContentEvent(message_id="m1", delta=delta))
    first = transcript.messages
    second = transcript.messages
    assert isinstance(first[0], AssistantMessage)
    assert first[0].content == "Hello"
    assert first == second
    transcript.apply(TextMessageContentEvent(message_id="m1", delta="!"))
    (message,) = transcript.messages
    assert isinstance(message, AssistantMessage)
    assert message.content == "Hello!"
    assert first[0].content == "Hello"  # what was read before is not rewritten
