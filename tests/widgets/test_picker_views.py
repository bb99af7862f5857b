"""Several views of one picker: the first answer wins, the others are told who answered."""

from __future__ import annotations

from typing import Any

from interrupt_widget.examples import meeting_agent
from interrupt_widget.sdk.offline_model import OfflineModel
from interrupt_widget.testing import CommRecorder, until
from interrupt_widget.widgets.chat import AgentChat
from interrupt_widget.widgets.picker import InterruptPicker

QUESTION = {
    "id": "q",
    "reason": "tool_call",
    "metadata": {"tool_name": "send_report", "tool_input": {}},
    "responseSchema": {
        "type": "object",
        "properties": {"approved": {"type": "boolean"}},
        "required": ["approved"],
    },
}


def answer(request_id: str, approved: bool, view_id: Any = None) -> dict[str, Any]:
    message = {
        "type": "answer",
        "requestId": request_id,
        "interruptId": "q",
        "status": "resolved",
        "payload": {"approved": approved},
    }
    return message if view_id is None else {**message, "viewId": view_id}


def replies(picker: InterruptPicker, recorder: CommRecorder) -> dict[str, dict[str, Any]]:
    return {m["requestId"]: m for m in recorder.of(picker).custom_messages()}


def test_the_losing_view_is_told_who_answered_first(recorder: CommRecorder) -> None:
    picker = InterruptPicker([QUESTION])
    comm = recorder.of(picker)
    comm.deliver(answer("a", False, "view-a"))
    comm.deliver(answer("b", True, "view-b"))  # near-simultaneous, from another tab
    got = replies(picker, recorder)
    assert got["a"]["ok"] is True
    assert got["b"]["ok"] is False
    assert "already answered elsewhere (denied, by view:view-a)" in got["b"]["error"]
    assert picker.answers["q"]["by"] == "view:view-a"
    assert picker.entries is not None
    assert picker.entries[0].payload == {"approved": False}


def test_a_view_without_an_id_is_a_user_and_a_bad_id_is_refused(recorder: CommRecorder) -> None:
    picker = InterruptPicker([QUESTION])
    comm = recorder.of(picker)
    comm.deliver(answer("bad", True, "<script>"))
    assert replies(picker, recorder)["bad"]["ok"] is False
    assert "viewId" in replies(picker, recorder)["bad"]["error"]
    assert picker.answers == {}
    comm.deliver(answer("plain", True))
    assert picker.answers["q"]["by"] == "user"


async def test_the_chat_records_which_view_answered(recorder: CommRecorder) -> None:
    agent = meeting_agent(OfflineModel())
    chat = AgentChat(agent)
    run = chat.send("Book a call with Alice about the Q3 roadmap")
    await until(chat, lambda: chat.status == "waiting")
    picker = chat.picker
    assert picker is not None
    interrupt_id = picker.interrupts[0]["id"]
    comm = recorder.of(picker)
    for request_id, view_id in (("a", "tab-1"), ("b", "tab-2")):
        comm.deliver({**answer(request_id, False, view_id), "interruptId": interrupt_id})
    result = await run
    assert [d.by for d in result.decisions] == ["view:tab-1"]
    assert [d.verdict for d in chat.decisions] == ["denied"]
    assert replies(picker, recorder)["b"]["ok"] is False
    assert agent.executions.count() == 0
