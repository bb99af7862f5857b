"""AgentChat on a real ipykernel, driven over the kernel's channels as a browser drives it.

The test reads the widgets' `comm_open` and state updates from iopub and sends
`comm_msg` custom messages on the shell channel: a prompt to the chat, answers
to the picker, Stop, hello. Both notebook patterns are covered: the run in the
background after a finished cell, and a cell suspended in `await chat.send(...)`
while the answer arrives.
"""

from __future__ import annotations

import json
import queue
from collections.abc import Callable
from typing import Any

import pytest
from jupyter_client.blocking.client import BlockingKernelClient

DEADLINE = 60.0

"""Upper bound on any single wait, so a broken kernel fails the test instead of hanging it."""

BOOK = "Book a call with Alice about the Q3 roadmap"
APPROVE = {"approved": True, "chosen_time": "2030-01-08T10:00:00Z", "chosen_label": "Tue 10:00"}

SETUP = """
import os
os.environ["OPENAI_AGENTS_DISABLE_TRACING"] = "1"
os.environ.pop("INTERRUPT_WIDGET_RESPONDER", None)
from interrupt_widget import AgentChat, OfflineModel
from interrupt_widget.examples import meeting_agent
agent = meeting_agent(OfflineModel())
chat = AgentChat(agent)
display(chat)
"""

Msg = dict[str, Any]


class FrontEnd:
    """What a browser's widget manager sees and sends, over a blocking client."""

    def __init__(self, client: BlockingKernelClient) -> None:
        self.client = client
        self.kinds: dict[str, str] = {}
        self.states: dict[str, dict[str, Any]] = {}
        self.custom: list[tuple[str, Any]] = []
        self.stdout: list[str] = []

    def read_until(self, wanted: Callable[[Msg], bool]) -> Msg:
        while True:
            try:
                msg: Msg = self.client.get_iopub_msg(timeout=DEADLINE)
            except queue.Empty:
                pytest.fail("the kernel went quiet before the expected message")
            self._track(msg)
            if wanted(msg):
                return msg

    def _track(self, msg: Msg) -> None:
        kind, content = msg["msg_type"], msg["content"]
        if kind == "error":
            pytest.fail("kernel error: " + "\n".join(content["traceback"]))
        if kind == "comm_open":
            state = content["data"].get("state", {})
            self.states[content["comm_id"]] = dict(state)
            self.kinds[content["comm_id"]] = str(state.get("kind", ""))
        elif kind == "comm_msg":
            data = content["data"]
            if data.get("method") == "update":
                self.states.setdefault(content["comm_id"], {}).update(data["state"])
            elif data.get("method") == "custom":
                self.custom.append((content["comm_id"], data["content"]))
        elif kind == "stream":
            self.stdout.append(content["text"])

    def status_is(self, comm_id: str, status: str) -> Callable[[Msg], bool]:
        return lambda _m: self.states.get(comm_id, {}).get("status") == status

    def opened(self, kind: str) -> Callable[[Msg], bool]:
        return lambda m: (
            m["msg_type"] == "comm_open" and self.kinds[m["content"]["comm_id"]] == kind
        )

    def send(self, comm_id: str, content: dict[str, Any]) -> None:
        data = {"method": "custom", "content": content}
        msg = self.client.session.msg("comm_msg", {"comm_id": comm_id, "data": data})
        self.client.shell_channel.send(msg)

    def answer(self, picker_id: str, request_id: str) -> None:
        interrupt_id = self.states[picker_id]["interrupts"][0]["id"]
        self.send(
            picker_id,
            {
                "type": "answer",
                "requestId": request_id,
                "interruptId": interrupt_id,
                "status": "resolved",
                "payload": APPROVE,
            },
        )

    def execute(self, code: str) -> str:
        """Run a cell to completion; its stdout."""
        msg_id = self.client.execute(code)
        self.stdout.clear()
        self.read_until(
            lambda m: (
                m["msg_type"] == "status"
                and m["parent_header"].get("msg_id") == msg_id
                and m["content"]["execution_state"] == "idle"
            )
        )
        return "".join(self.stdout)


def test_prompt_picker_answer_and_resume_over_real_comms(kernel: BlockingKernelClient) -> None:
    front = FrontEnd(kernel)
    setup_id = kernel.execute(SETUP)
    opened = front.read_until(front.opened("chat"))
    chat_id = opened["content"]["comm_id"]
    # The chat's one picker opens with the chat, in the cell, never later from a run.
    picker_id = front.read_until(front.opened("picker"))["content"]["comm_id"]
    shown = front.read_until(
        lambda m: m["msg_type"] == "display_data" and m["parent_header"]["msg_id"] == setup_id
    )
    assert shown["content"]["data"]["text/plain"] == "AgentChat (idle)"

    front.send(chat_id, {"type": "prompt", "text": BOOK, "requestId": "p1"})
    front.read_until(front.status_is(chat_id, "waiting"))
    assert front.states[chat_id]["picker"] == f"IPY_MODEL_{picker_id}"
    streamed = [c for cid, c in front.custom if cid == chat_id and c["type"] == "events"]
    assert any(e["type"] == "TOOL_CALL_START" for b in streamed for e in b["events"])

    front.send(chat_id, {"type": "hello"})  # a second view opens: nothing is running
    front.read_until(lambda _m: any(c.get("type") == "catchup" for _cid, c in front.custom))

    front.answer(picker_id, "a1")
    front.read_until(front.status_is(chat_id, "done"))
    front.answer(picker_id, "a2")  # a late click from another view
    front.read_until(
        lambda _m: any(c.get("requestId") == "a2" for cid, c in front.custom if cid == picker_id)
    )
    replies = {c["requestId"]: c["ok"] for cid, c in front.custom if cid == picker_id}
    assert replies == {"a1": True, "a2": False}

    out = front.execute(
        "import json\n"
        "print(json.dumps({'runs': agent.executions.count(), 'reply': chat.text,"
        " 'by': [d.by for d in chat.decisions]}))"
    )
    result = json.loads(out.strip().splitlines()[-1])
    assert result["runs"] == 1
    assert "Tue 10:00" in result["reply"]
    assert result["by"] == ["user"]
    committed = front.states[chat_id]["messages"]
    assert committed[-1]["content"] == result["reply"]


def test_a_cell_awaiting_send_resumes_on_a_click(kernel: BlockingKernelClient) -> None:
    front = FrontEnd(kernel)
    front.execute(SETUP)
    (picker_id,) = [cid for cid, kind in front.kinds.items() if kind == "picker"]
    awaiting = kernel.execute(f"result = await chat.send({BOOK!r})\nprint(result.text)")
    front.read_until(lambda _m: bool(front.states[picker_id].get("interrupts")))
    front.answer(picker_id, "a1")  # sent while the cell is suspended in await
    front.read_until(
        lambda m: (
            m["msg_type"] == "status"
            and m["parent_header"].get("msg_id") == awaiting
            and m["content"]["execution_state"] == "idle"
        )
    )
    assert "Tue 10:00" in "".join(front.stdout)
    assert front.execute("print(agent.executions.count())").strip() == "1"
