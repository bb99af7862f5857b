"""On a real ipykernel: a cell awaiting `picker.wait()` sees an answer sent as a browser sends it.

The test plays the front end over the kernel's own channels: it opens nothing,
reads the picker's `comm_open` from iopub, and sends a `comm_msg` custom
message on the shell channel while the awaiting cell is still running.
"""

from __future__ import annotations

import queue
from typing import Any

import pytest
from jupyter_client.blocking.client import BlockingKernelClient

DEADLINE = 60.0

"""Upper bound on any single wait, so a broken kernel fails the test instead of hanging it."""

SETUP = """
import os
os.environ["OPENAI_AGENTS_DISABLE_TRACING"] = "1"
from interrupt_widget import InterruptPicker
schema = {"type": "object", "properties": {"approved": {"type": "boolean"},
          "chosen_time": {"type": "string", "format": "date-time"}}, "required": ["approved"]}
picker = InterruptPicker([{"id": "int-1", "reason": "tool_call", "responseSchema": schema,
                           "metadata": {"tool_name": "schedule_meeting"}}])
display(picker)
"""


def iopub_until(client: BlockingKernelClient, wanted: Any) -> dict[str, Any]:
    """Read iopub until a message satisfies `wanted`; fail on a kernel error."""
    while True:
        try:
            msg: dict[str, Any] = client.get_iopub_msg(timeout=DEADLINE)
        except queue.Empty:
            pytest.fail("the kernel went quiet before the expected message")
        if msg["msg_type"] == "error":
            pytest.fail("kernel error: " + "\n".join(msg["content"]["traceback"]))
        if wanted(msg):
            return msg


def test_an_awaiting_cell_receives_a_front_end_answer(kernel: BlockingKernelClient) -> None:
    setup_id = kernel.execute(SETUP)
    opened = iopub_until(
        kernel,
        lambda m: (
            m["msg_type"] == "comm_open"
            and m["parent_header"].get("msg_id") == setup_id
            and m["content"]["data"]["state"].get("kind") == "picker"
        ),  # not its Layout
    )
    comm_id = opened["content"]["comm_id"]
    shown = iopub_until(kernel, lambda m: m["msg_type"] == "display_data")
    assert shown["content"]["data"]["text/plain"] == (
        "Interrupt schedule_meeting: waiting for an answer"
    )
    assert kernel.get_shell_msg(timeout=DEADLINE)["content"]["status"] == "ok"

    waiting_id = kernel.execute("entries = await picker.wait(timeout=50)\nprint(entries)")
    iopub_until(
        kernel,
        lambda m: (
            m["msg_type"] == "status"
            and m["content"]["execution_state"] == "busy"
            and m["parent_header"].get("msg_id") == waiting_id
        ),
    )
    content = {
        "type": "answer",
        "requestId": "r1",
        "interruptId": "int-1",
        "status": "resolved",
        "payload": {"approved": True, "chosen_time": "2026-12-08T10:30:00+01:00"},
    }
    comm_msg = kernel.session.msg(
        "comm_msg", {"comm_id": comm_id, "data": {"method": "custom", "content": content}}
    )
    kernel.shell_channel.send(comm_msg)

    reply = iopub_until(
        kernel,
        lambda m: (
            m["msg_type"] == "comm_msg"
            and m["content"]["data"].get("method") == "custom"
            and m["content"]["data"]["content"].get("type") == "answer_result"
        ),
    )
    assert reply["content"]["data"]["content"]["ok"] is True
    printed = iopub_until(
        kernel,
        lambda m: m["msg_type"] == "stream" and m["parent_header"].get("msg_id") == waiting_id,
    )
    assert "interrupt_id='int-1'" in printed["content"]["text"]
    assert "status='resolved'" in printed["content"]["text"]


def test_the_picker_repr_in_a_kernel_has_no_ids(kernel: BlockingKernelClient) -> None:
    msg_id = kernel.execute(SETUP + "\npicker.cancel()\npicker")
    result = iopub_until(
        kernel,
        lambda m: m["msg_type"] == "execute_result" and m["parent_header"].get("msg_id") == msg_id,
    )
    assert result["content"]["data"]["text/plain"] == "Interrupt schedule_meeting: cancelled"
