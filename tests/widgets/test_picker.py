"""InterruptPicker driven as the browser drives it: through a recording comm."""

from __future__ import annotations

import asyncio
import re
import threading
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from ag_ui.core import Interrupt, ResumeEntry

from interrupt_widget import InterruptPicker
from interrupt_widget.clock import parse_instant, utc_text
from interrupt_widget.testing import RecordingComm, recording_comms
from interrupt_widget.widgets import picker as picker_module
from interrupt_widget.widgets.picker import AnswerRefused

MEETING_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "approved": {"type": "boolean"},
        "chosen_time": {"type": "string", "format": "date-time"},
        "chosen_label": {"type": "string"},
        "reason": {"type": "string"},
    },
    "required": ["approved"],
    "additionalProperties": False,
}
APPROVED = {
    "approved": True,
    "chosen_time": "2026-12-08T10:30:00+01:00",
    "chosen_label": "Tue 10:30",
}


def meeting(interrupt_id: str = "int-1", **extra: Any) -> dict[str, Any]:
    """A tool approval in its camelCase wire form, as the adapter emits it."""
    return {
        "id": interrupt_id,
        "reason": "tool_call",
        "toolCallId": f"call-{interrupt_id}",
        "message": "Schedule a meeting about the roadmap?",
        "responseSchema": MEETING_SCHEMA,
        "metadata": {"tool_name": "schedule_meeting", "tool_input": {"topic": "roadmap"}},
        **extra,
    }


def question(interrupt_id: str, schema: dict[str, Any]) -> Interrupt:
    return Interrupt(id=interrupt_id, reason="input_required", response_schema=schema)


def make(*interrupts: Any, **options: Any) -> tuple[InterruptPicker, RecordingComm]:
    with recording_comms() as recorder:
        widget = InterruptPicker(list(interrupts) or [meeting()], **options)
    return widget, recorder.of(widget)


def answer(
    comm: RecordingComm,
    payload: Any,
    interrupt_id: str = "int-1",
    *,
    status: str = "resolved",
    request_id: str = "r1",
) -> dict[str, Any]:
    """Send an answer as the front end does and return Python's reply to it."""
    comm.deliver(
        {
            "type": "answer",
            "requestId": request_id,
            "interruptId": interrupt_id,
            "status": status,
            "payload": payload,
        }
    )
    replies = [m for m in comm.custom_messages() if m.get("requestId") == request_id]
    assert len(replies) == 1
    reply: dict[str, Any] = replies[0]
    return reply


def in_seconds(seconds: float) -> str:
    return (datetime.now(UTC) + timedelta(seconds=seconds)).isoformat()


# -- construction and synced state --------------------------------------------------------


def test_opening_message_carries_what_a_view_needs_in_camel_case() -> None:
    widget, comm = make(meeting())
    opening = comm.messages[0]
    assert opening.msg_type == "comm_open"
    state = opening.data["state"]
    assert state["kind"] == "picker"
    assert state["status"] == "waiting"
    assert state["answers"] == {}
    assert state["interrupts"][0]["responseSchema"] == MEETING_SCHEMA
    assert state["interrupts"][0]["toolCallId"] == "call-int-1"
    bundle = Path(picker_module.__file__).parents[1] / "static" / "widget.js"
    assert state["_esm"] == bundle.read_text()  # the bundle travels with the widget
    assert widget.kind == "picker"


def test_the_card_rows_are_spelled_as_the_message_spells_them() -> None:
    proposal = {"amount": 5000.0, "account": 9007199254740993, "to": "Zoë"}
    call = meeting(metadata={"tool_name": "transfer_funds", "tool_input": proposal})
    widget, comm = make(call)
    shown = comm.messages[0].data["state"]["calls"]["int-1"]["shown"]
    assert shown == [["amount", "5000"], ["account", "9007199254740993"], ["to", "Zoë"]]
    assert widget.calls["int-1"]["arguments"] == proposal


def test_accepts_models_snake_and_camel_dicts() -> None:
    snake = {"id": "b", "reason": "input_required", "response_schema": {"type": "string"}}
    widget, _ = make(meeting("a"), snake, question("c", {"type": "integer"}))
    assert [i["id"] for i in widget.interrupts] == ["a", "b", "c"]
    assert widget.interrupts[1]["responseSchema"] == {"type": "string"}


def test_refuses_no_interrupts_and_repeated_ids() -> None:
    with pytest.raises(ValueError, match="at least one"):
        InterruptPicker([])
    with pytest.raises(ValueError, match="unique; repeated: x"):
        InterruptPicker([meeting("x"), meeting("x")])


def test_refuses_an_unreadable_deadline() -> None:
    with pytest.raises(ValueError, match="expires_at 'soon' is not an ISO 8601 instant"):
        InterruptPicker([meeting(expiresAt="soon")])


def test_renderers_from_source_and_path(tmp_path: Path) -> None:
    module = tmp_path / "time_picker.js"
    module.write_text("export function render({ el }) { el.textContent = 'hi'; }\n")
    source = "export function render() {}\n"
    widget, _ = make(meeting(), renderers={"schedule_meeting": module, "input_required": source})
    assert widget.renderers == {
        "schedule_meeting": module.read_text(),
        "input_required": source,
    }
    widget2, _ = make(meeting(), renderers={"schedule_meeting": str(module)})
    assert widget2.renderers["schedule_meeting"] == module.read_text()


# -- answers from the front end -----------------------------------------------------------


def test_a_valid_answer_is_recorded_submitted_and_acknowledged() -> None:
    submitted: list[list[ResumeEntry]] = []
    widget, comm = make(meeting(), on_submit=submitted.append)
    reply = answer(comm, APPROVED)
    assert reply == {
        "type": "answer_result",
        "requestId": "r1",
        "ok": True,
        "error": "",
        "errors": [],
    }
    record = widget.answers["int-1"]
    assert (record["status"], record["payload"], record["by"]) == ("resolved", APPROVED, "user")
    assert parse_time(record["at"]) <= datetime.now(UTC)
    assert widget.status == "submitted"
    assert widget.submitted
    expected = [ResumeEntry(interrupt_id="int-1", status="resolved", payload=APPROVED)]
    assert widget.entries == expected
    assert submitted == [expected]
    # The view learns it through trait updates, the same state a reopened notebook shows.
    updates = {k: v for u in comm.state_updates() for k, v in u.items()}
    assert updates["status"] == "submitted"
    assert updates["answers"]["int-1"]["payload"] == APPROVED


def parse_time(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def test_an_invalid_answer_is_refused_beside_the_field_and_nothing_is_recorded() -> None:
    widget, comm = make(meeting())
    reply = answer(comm, {"approved": True, "chosen_time": "next tuesday"})
    assert reply["ok"] is False
    assert reply["errors"] == [{"path": "/chosen_time", "message": "must be a valid date-time"}]
    assert reply["error"] == "schedule_meeting: /chosen_time: must be a valid date-time"
    assert widget.errors == {"int-1": reply["errors"]}
    assert widget.error == reply["error"]
    assert widget.answers == {}
    assert widget.status == "waiting"
    assert not widget.submitted
    # A corrected answer clears the errors.
    assert answer(comm, APPROVED, request_id="r2")["ok"] is True
    assert widget.errors == {}
    assert widget.error == ""


def test_a_missing_required_field_points_at_the_field() -> None:
    widget, comm = make(meeting())
    reply = answer(comm, {"chosen_label": "x"})
    assert reply["errors"] == [{"path": "/approved", "message": "is required"}]
    assert widget.answers == {}


def test_deny_is_a_resolved_answer_without_the_other_fields() -> None:
    widget, comm = make(meeting())
    assert answer(comm, {"approved": False})["ok"] is True
    assert widget.entries == [
        ResumeEntry(interrupt_id="int-1", status="resolved", payload={"approved": False})
    ]


def test_cancel_from_the_front_end_ignores_any_payload() -> None:
    widget, comm = make(meeting())
    assert answer(comm, {"junk": 1}, status="cancelled")["ok"] is True
    assert widget.entries == [ResumeEntry(interrupt_id="int-1", status="cancelled")]


@pytest.mark.parametrize(
    ("message", "reason"),
    [
        ({"type": "hello", "requestId": "r1"}, "unknown picker message type 'hello'"),
        ({"type": "answer", "requestId": "r1", "status": "resolved"}, "interruptId"),
        (
            {"type": "answer", "requestId": "r1", "interruptId": "int-1", "status": "ok"},
            "'resolved' or 'cancelled'",
        ),
        (
            {"type": "answer", "requestId": "r1", "interruptId": "nope", "status": "cancelled"},
            "unknown interrupt id 'nope'",
        ),
    ],
)
def test_malformed_messages_get_an_error_reply_and_change_nothing(
    message: dict[str, Any], reason: str
) -> None:
    widget, comm = make(meeting())
    comm.deliver(message)
    (reply,) = comm.custom_messages()
    assert reply["ok"] is False
    assert reason in reply["error"]
    assert widget.answers == {}


def test_a_message_without_request_id_is_dropped_without_reply() -> None:
    widget, comm = make(meeting())
    comm.deliver(["not", "an", "object"])
    comm.deliver({"type": "answer", "interruptId": "int-1", "status": "cancelled"})
    assert comm.custom_messages() == []
    assert widget.answers == {}


def test_answers_after_submission_are_refused() -> None:
    widget, comm = make(meeting())
    answer(comm, APPROVED)
    late = answer(comm, {"approved": False}, request_id="r2")
    assert late["ok"] is False
    assert "already submitted" in late["error"]
    with pytest.raises(AnswerRefused, match="already submitted"):
        widget.cancel()
    assert widget.entries is not None
    assert widget.entries[0].payload == APPROVED


# -- answers from Python ------------------------------------------------------------------


def test_resolve_from_python_takes_the_same_path_and_says_who_answered() -> None:
    widget, comm = make(meeting())
    comm.clear()
    widget.resolve(APPROVED, by="responder:approve_all")
    assert widget.answers["int-1"]["by"] == "responder:approve_all"
    assert widget.status == "submitted"
    assert comm.custom_messages() == []  # no reply: nobody asked from the front end


def test_an_invalid_python_answer_raises_naming_the_field_and_shows_the_same_message() -> None:
    widget, _ = make(meeting())
    with pytest.raises(ValueError, match=r"/chosen_time: must be a valid date-time") as caught:
        widget.resolve({"approved": True, "chosen_time": "soon"})
    assert widget.error == str(caught.value)
    assert widget.errors["int-1"] == [
        {"path": "/chosen_time", "message": "must be a valid date-time"}
    ]
    assert widget.answers == {}


def test_a_pattern_mismatch_names_the_pattern_and_examples_in_python_and_in_the_widget() -> None:
    schema = {
        "type": "object",
        "properties": {
            "approved": {"type": "boolean"},
            "table": {"type": "string", "pattern": "^[a-z_]+$", "examples": ["invoices"]},
        },
        "required": ["approved", "table"],
    }
    said = 'must match the pattern ^[a-z_]+$, e.g. "invoices"'
    widget, comm = make(meeting(responseSchema=schema))
    with pytest.raises(AnswerRefused) as caught:
        widget.resolve({"approved": True, "table": "Old Rows"})
    assert str(caught.value) == f"schedule_meeting: /table: {said}"
    # What the card draws beside the field: the same words, from Python's check.
    assert widget.errors == {"int-1": [{"path": "/table", "message": said}]}
    reply = answer(comm, {"approved": True, "table": "x;y"})  # a click sent around the form
    assert (reply["ok"], reply["errors"]) == (False, [{"path": "/table", "message": said}])
    assert widget.answers == {}


def test_a_payload_that_is_not_json_is_refused() -> None:
    widget, _ = make(question("q", {}))
    with pytest.raises(ValueError, match="plain JSON"):
        widget.resolve({"when": datetime.now(UTC)})
    assert widget.answers == {}


def test_several_open_interrupts_need_an_id_and_submit_only_when_all_are_answered() -> None:
    submitted: list[list[ResumeEntry]] = []
    amount = question("amount", {"type": "integer", "minimum": 1, "maximum": 10})
    widget, comm = make(meeting("m"), amount, on_submit=submitted.append)
    with pytest.raises(ValueError, match=r"2 interrupts are open .*pass interrupt_id"):
        widget.resolve({"approved": False})
    assert answer(comm, 11, "amount")["errors"] == [{"path": "", "message": "must be <= 10"}]
    widget.resolve(3, "amount")
    assert widget.status == "waiting"
    assert widget.entries is None
    assert submitted == []
    with pytest.raises(ValueError, match="already answered"):
        widget.resolve(4, "amount")
    widget.cancel()  # one open interrupt left: no id needed
    assert widget.entries == [
        ResumeEntry(interrupt_id="m", status="cancelled"),
        ResumeEntry(interrupt_id="amount", status="resolved", payload=3),
    ]
    assert len(submitted) == 1


def test_a_failing_on_submit_shows_in_the_widget_and_still_submits() -> None:
    def explode(entries: list[ResumeEntry]) -> None:
        raise RuntimeError("disk full")

    widget, _ = make(meeting(), on_submit=explode)
    widget.cancel()
    assert widget.status == "error"
    assert widget.error == "on_submit failed: RuntimeError: disk full"
    assert widget.entries == [ResumeEntry(interrupt_id="int-1", status="cancelled")]


# -- waiting ------------------------------------------------------------------------------


async def test_wait_returns_the_entries_once_answered() -> None:
    widget, comm = make(meeting())
    waiting = asyncio.ensure_future(widget.wait())
    await asyncio.sleep(0)  # let the waiter register
    assert not waiting.done()
    answer(comm, APPROVED)
    entries = await asyncio.wait_for(waiting, 5)
    assert entries == [ResumeEntry(interrupt_id="int-1", status="resolved", payload=APPROVED)]
    assert await widget.wait() == entries  # later waits return at once


async def test_wait_times_out_and_keeps_waiting() -> None:
    widget, _ = make(meeting())
    with pytest.raises(TimeoutError, match="1 interrupt"):
        await widget.wait(timeout=0.01)
    widget.cancel()
    assert await widget.wait(timeout=5) == [ResumeEntry(interrupt_id="int-1", status="cancelled")]


async def test_concurrent_answers_from_threads_submit_exactly_once() -> None:
    interrupts = [meeting(f"i{n}") for n in range(8)]
    calls: list[list[ResumeEntry]] = []
    widget, comm = make(*interrupts, on_submit=calls.append)
    waiters = [asyncio.ensure_future(widget.wait()) for _ in range(3)]
    await asyncio.sleep(0)
    start = threading.Barrier(16)

    def click(n: int, attempt: int) -> None:
        start.wait()
        answer_payload = {"approved": attempt == 0}
        comm.deliver(
            {
                "type": "answer",
                "requestId": f"r{n}-{attempt}",
                "interruptId": f"i{n}",
                "status": "resolved",
                "payload": answer_payload,
            }
        )

    threads = [threading.Thread(target=click, args=(n, a)) for n in range(8) for a in range(2)]
    for t in threads:
        t.start()
    results = await asyncio.wait_for(asyncio.gather(*waiters), 10)
    for t in threads:
        t.join()
    assert len(calls) == 1
    assert all(r == calls[0] for r in results)
    assert [e.interrupt_id for e in calls[0]] == [f"i{n}" for n in range(8)]
    replies = comm.custom_messages()
    assert len(replies) == 16
    assert sum(r["ok"] for r in replies) == 8  # one answer per interrupt; the rest refused
    for entry in calls[0]:
        assert widget.answers[entry.interrupt_id]["payload"] == entry.payload


async def test_a_waiter_on_another_loop_is_woken_on_its_own_loop() -> None:
    widget, comm = make(meeting())
    result: list[list[ResumeEntry]] = []
    registered = threading.Event()

    async def wait_elsewhere() -> None:
        task = asyncio.ensure_future(widget.wait(timeout=10))
        await asyncio.sleep(0)
        registered.set()
        result.append(await task)

    other = threading.Thread(target=asyncio.run, args=(wait_elsewhere(),))
    other.start()
    assert await asyncio.to_thread(registered.wait, 10)
    answer(comm, {"approved": False})
    await asyncio.to_thread(other.join, 10)
    assert result == [
        [ResumeEntry(interrupt_id="int-1", status="resolved", payload={"approved": False})]
    ]


# -- expiry -------------------------------------------------------------------------------


def test_an_interrupt_already_past_its_deadline_is_cancelled_at_once() -> None:
    widget, comm = make(meeting(expiresAt="2020-01-01T00:00:00Z"))
    assert widget.status == "expired"
    assert widget.answers["int-1"]["by"] == "expiry"
    assert widget.entries == [ResumeEntry(interrupt_id="int-1", status="cancelled")]
    assert answer(comm, APPROVED)["ok"] is False


def test_an_expired_interrupt_can_only_be_cancelled() -> None:
    widget, comm = make(meeting("late", expiresAt="2020-01-01T00:00:00Z"), meeting("open"))
    assert widget.status == "waiting"
    reply = answer(comm, APPROVED, "late")
    assert reply["ok"] is False
    assert "expired at 2020-01-01T00:00:00Z" in reply["error"]
    widget.resolve(APPROVED, "open")
    assert widget.status == "submitted"  # a person answered one of them
    assert widget.entries == [
        ResumeEntry(interrupt_id="late", status="cancelled"),
        ResumeEntry(interrupt_id="open", status="resolved", payload=APPROVED),
    ]


async def test_an_answer_after_the_deadline_says_the_question_expired_and_when() -> None:
    deadline = in_seconds(0.2)
    widget, comm = make(meeting(expiresAt=deadline))
    await widget.wait(timeout=10)  # time ran out: cancelled and submitted
    said_deadline = utc_text(parse_instant(deadline))  # "+00:00" read once, said with a Z
    said = (
        f"schedule_meeting expired at {said_deadline} and was cancelled: this answer came too late"
    )
    for late in (lambda: widget.resolve(APPROVED), lambda: widget.resolve(APPROVED, "int-1")):
        with pytest.raises(AnswerRefused) as refused:
            late()
        assert str(refused.value) == f"{said}; nothing was changed"
    reply = answer(comm, APPROVED)  # a click that comes too late, as the card sends it
    assert reply["ok"] is False
    assert reply["error"] == f"{said}; nothing was changed"
    assert "already submitted" not in reply["error"]
    assert widget.entries == [ResumeEntry(interrupt_id="int-1", status="cancelled")]
    assert widget.answers["int-1"]["by"] == "expiry"


def test_a_late_answer_naming_no_question_says_which_expired_among_several() -> None:
    widget, _ = make(
        meeting("late", expiresAt="2020-01-01T00:00:00Z"),
        meeting("later", expiresAt="2021-01-01T00:00:00Z"),
    )
    with pytest.raises(AnswerRefused, match=r"^the questions expired \(schedule_meeting at "
                       r"2020-01-01T00:00:00Z, schedule_meeting at 2021-01-01T00:00:00Z\) "
                       r"and were cancelled; nothing was changed$"):  # fmt: skip
        widget.resolve(APPROVED)
    one_late, _ = make(meeting("late", expiresAt="2020-01-01T00:00:00Z"), meeting("open"))
    one_late.resolve(APPROVED, "open")
    with pytest.raises(AnswerRefused, match=r"already submitted, and some questions expired \("
                       r"schedule_meeting at 2020-01-01T00:00:00Z\)"):  # fmt: skip
        one_late.resolve(APPROVED)


async def test_time_running_out_cancels_on_the_running_loop() -> None:
    widget, _ = make(meeting(expiresAt=in_seconds(0.2)))
    assert widget.status == "waiting"
    entries = await widget.wait(timeout=10)
    assert entries == [ResumeEntry(interrupt_id="int-1", status="cancelled")]
    assert widget.status == "expired"
    assert repr(widget) == "Interrupt schedule_meeting: expired"


async def test_a_timer_firing_after_an_answer_changes_nothing() -> None:
    widget, _ = make(meeting(expiresAt=in_seconds(60)))
    timer = widget._expiry
    widget.resolve(APPROVED)
    assert not timer.armed
    timer._fire()  # as if the timer fired late, racing the answer
    assert widget.status == "submitted"
    assert widget.answers["int-1"]["by"] == "python"


# -- text representation ------------------------------------------------------------------


def test_repr_reads_well_without_ids() -> None:
    widget, _ = make(meeting())
    assert repr(widget) == "Interrupt schedule_meeting: waiting for an answer"
    assert widget._repr_mimebundle_()[0]["text/plain"] == repr(widget)
    widget.resolve(APPROVED)
    assert repr(widget) == "Interrupt schedule_meeting: approved (chosen_label: Tue 10:30)"


@pytest.mark.parametrize(
    ("action", "text"),
    [
        (lambda w: w.resolve({"approved": False}), "Interrupt schedule_meeting: denied"),
        (
            lambda w: w.resolve({"approved": False, "reason": "Alice is away"}),
            "Interrupt schedule_meeting: denied (reason: Alice is away)",
        ),
        (lambda w: w.cancel(), "Interrupt schedule_meeting: cancelled"),
        (lambda w: w.resolve({"approved": True}), "Interrupt schedule_meeting: approved"),
    ],
)
def test_repr_of_each_decision(action: Any, text: str) -> None:
    widget, _ = make(meeting())
    action(widget)
    assert repr(widget) == text


def test_repr_of_several_interrupts_is_one_line_each() -> None:
    widget, _ = make(
        meeting("m"), question("q", {"type": "object", "properties": {"n": {"type": "integer"}}})
    )
    widget.resolve({"n": 2}, "q")
    assert repr(widget).splitlines() == [
        "Interrupt schedule_meeting: waiting for an answer",
        "Interrupt input_required: answered (n: 2)",
    ]


# -- kernels ------------------------------------------------------------------------------


async def test_wait_refuses_to_deadlock_an_old_kernel(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(picker_module, "_kernel_version", lambda: (7, 3))
    monkeypatch.setattr(picker_module, "_in_kernel", lambda: True)
    widget, _ = make(meeting())
    with pytest.raises(RuntimeError, match=r"ipykernel 7.3 .*ipykernel>=7.4"):
        await widget.wait()


def test_importing_in_an_old_kernel_warns(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(picker_module, "_kernel_version", lambda: (6, 29))
    monkeypatch.setattr(picker_module, "_in_kernel", lambda: True)
    with pytest.warns(RuntimeWarning, match=r"ipykernel 6.29 .*would never return"):
        picker_module._warn_if_old_kernel()


def test_by_must_say_who_answered() -> None:
    widget, _ = make(meeting())
    with pytest.raises(ValueError, match="`by` must name"):
        widget.cancel(by="")
    assert widget.answers == {}


async def test_closing_stops_the_expiry_timer() -> None:
    widget, _ = make(meeting(expiresAt=in_seconds(60)))
    assert widget._expiry.armed
    widget.close()
    assert not widget._expiry.armed


def test_the_shipped_meeting_renderer_loads_by_path() -> None:
    from interrupt_widget import MEETING_TIME

    widget, _ = make(meeting(), renderers={"schedule_meeting": MEETING_TIME})
    assert "export function render(" in widget.renderers["schedule_meeting"]


def test_a_schema_whose_ref_points_nowhere_refuses_the_answer_with_a_reply() -> None:
    # An AG-UI server may send a response_schema with a dangling $ref: the answer
    # is refused with a message, in the widget and from Python, never a crash.
    broken = {"type": "object", "properties": {"when": {"$ref": "#/$defs/missing"}}}
    widget, comm = make(question("q-1", broken))
    reply = answer(comm, {"when": "now"}, "q-1")
    assert reply["ok"] is False
    assert "response_schema is invalid" in reply["error"]
    with pytest.raises(AnswerRefused, match="response_schema is invalid"):
        widget.resolve({"when": "now"})
    assert widget.answers == {}
    widget.cancel()
    assert widget.entries is not None
    assert widget.entries[0].status == "cancelled"


def test_the_picker_and_the_chat_open_with_one_stylesheet_for_both() -> None:
    """anywidget's `_css` carries the stylesheet, so a shadow root (marimo) gets it too."""
    from interrupt_widget import AgentChat, OfflineModel
    from interrupt_widget.examples import meeting_agent

    with recording_comms() as recorder:
        picker = InterruptPicker([Interrupt(id="q", reason="input_required")])
        chat = AgentChat(meeting_agent(OfflineModel()))
    for widget in (picker, chat):
        css = recorder.of(widget).messages[0].data["state"]["_css"]
        assert ".iw-picker" in css
        assert ".iw-chat-prompt" in css


def test_an_undeclared_key_names_the_nearest_field_from_python_and_the_wire_alike() -> None:
    widget, comm = make(meeting())
    typo = {"approved": True, "chosen_time": "2026-12-08T10:30:00Z", "chosen_lable": "Tue"}
    said = "schedule_meeting: (answer): unknown field 'chosen_lable': did you mean 'chosen_label'?"
    with pytest.raises(AnswerRefused, match=f"^{re.escape(said)}$"):
        widget.resolve(typo)
    reply = answer(comm, typo)
    assert reply["ok"] is False
    assert "did you mean 'chosen_label'?" in reply["error"]
    assert widget.answers == {}
    # A schema that leaves extra fields open (another server's) keeps its rule everywhere.
    open_schema = {k: v for k, v in MEETING_SCHEMA.items() if k != "additionalProperties"}
    _foreign, comm = make(meeting(responseSchema=open_schema))
    assert answer(comm, {**APPROVED, "client_note": "x"})["ok"] is True


def test_a_picker_that_asks_nothing_yet_refuses_an_answer_saying_so() -> None:
    with recording_comms():
        widget = InterruptPicker(None)
    with pytest.raises(AnswerRefused, match="nothing is asked yet"):
        widget.resolve({"approved": True})
