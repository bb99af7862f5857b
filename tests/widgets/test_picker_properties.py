"""Whatever the order and mix of answers, the picker submits at most once and never rewrites one."""

from __future__ import annotations

from typing import Any

from ag_ui.core import ResumeEntry
from hypothesis import given, settings
from hypothesis import strategies as st

from interrupt_widget import InterruptPicker
from interrupt_widget.testing import recording_comms
from interrupt_widget.widgets.picker import AnswerRefused

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"approved": {"type": "boolean"}, "n": {"type": "integer", "minimum": 0}},
    "required": ["approved"],
}
IDS = ["a", "b", "c"]

payloads = st.one_of(
    st.builds(lambda ok, n: {"approved": ok, "n": n}, st.booleans(), st.integers(-2, 2)),
    st.just({"n": 1}),  # missing approved
    st.just("not an object"),
)
actions = st.lists(
    st.tuples(
        st.sampled_from(["python", "front end"]),
        st.sampled_from([*IDS, None, "unknown"]),
        st.sampled_from(["resolved", "cancelled"]),
        payloads,
    ),
    max_size=12,
)


@settings(max_examples=150, deadline=None)
@given(actions)
def test_any_sequence_of_answers_submits_at_most_once(steps: list[Any]) -> None:
    submissions: list[list[ResumeEntry]] = []
    with recording_comms() as recorder:
        picker = InterruptPicker(
            [{"id": i, "reason": "tool_call", "responseSchema": SCHEMA} for i in IDS],
            on_submit=submissions.append,
        )
    comm = recorder.of(picker)
    first_answers: dict[str, Any] = {}
    for n, (source, interrupt_id, status, payload) in enumerate(steps):
        if source == "python":
            try:
                if status == "resolved":
                    picker.resolve(payload, interrupt_id)
                else:
                    picker.cancel(interrupt_id)
            except AnswerRefused:
                pass
        elif interrupt_id is not None:
            comm.deliver(
                {
                    "type": "answer",
                    "requestId": f"r{n}",
                    "interruptId": interrupt_id,
                    "status": status,
                    "payload": payload,
                }
            )
        for key, record in picker.answers.items():
            first_answers.setdefault(key, record)
            assert picker.answers[key] == first_answers[key]  # an answer is never rewritten
    assert len(submissions) <= 1
    assert picker.submitted == (len(picker.answers) == len(IDS))
    assert (picker.status == "submitted") == picker.submitted
    if submissions:
        assert submissions[0] == picker.entries
        for entry in submissions[0]:
            record = picker.answers[entry.interrupt_id]
            assert (entry.status, entry.payload) == (record["status"], record["payload"])
            if entry.status == "resolved":
                assert isinstance(entry.payload, dict)
                assert isinstance(entry.payload.get("approved"), bool)
    # Every front-end request got exactly one reply.
    replies = [m["requestId"] for m in comm.custom_messages()]
    sent = [f"r{n}" for n, step in enumerate(steps) if step[0] == "front end" and step[1]]
    assert replies == sent
