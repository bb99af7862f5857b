"""Transcript: folding events into messages, and reading them changes nothing."""

from __future__ import annotations

from ag_ui.core import AssistantMessage, TextMessageContentEvent, TextMessageStartEvent

from interrupt_widget.agui.messages import OUTPUT_TYPE_KEY, Transcript, last_reply, reply_text


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


def test_structured_output_keeps_its_type_and_reads_as_indented_json() -> None:
    transcript = Transcript()
    start = TextMessageStartEvent(message_id="m1", metadata={OUTPUT_TYPE_KEY: "Receipt"})
    transcript.apply(start)
    transcript.apply(TextMessageContentEvent(message_id="m1", delta='{"to":"Carol","calls":1}'))
    transcript.apply(TextMessageStartEvent(message_id="m2"))
    transcript.apply(TextMessageContentEvent(message_id="m2", delta="[1, 2]"))
    assert transcript.text("m2") == "[1, 2]"
    assert transcript.text("nobody") is None
    first, _ = transcript.messages
    assert isinstance(first, AssistantMessage)
    assert first.metadata == {OUTPUT_TYPE_KEY: "Receipt"}
    assert reply_text(first) == '{\n  "to": "Carol",\n  "calls": 1\n}'
    assert last_reply(transcript.messages) == "[1, 2]"  # a plain reply stays as it was said
    transcript.mark("m2", {OUTPUT_TYPE_KEY: "list"})
    assert last_reply(transcript.messages) == "[\n  1,\n  2\n]"
