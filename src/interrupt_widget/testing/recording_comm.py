"""A comm that records what a widget sends and plays the front end's part.

Widgets talk to the browser through a comm. Inside `recording_comms()` every
widget created gets a `RecordingComm` instead: it keeps each message the widget
publishes (the opening state, state updates, custom messages), and
`deliver(...)` hands a front-end custom message to the widget's handler on the
calling thread, exactly as the kernel does. No kernel, no browser::

    with recording_comms() as recorder:
        picker = InterruptPicker([interrupt])
    comm = recorder.of(picker)
    comm.deliver({"type": "answer", ...})
    comm.custom_messages()  # -> the replies the browser would have received
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

import comm
from comm.base_comm import BaseComm

from interrupt_widget.shared_list import SharedList


@dataclass(frozen=True)
class RecordedMessage:
    """One message a widget published towards the front end."""

    msg_type: str
    """`comm_open`, `comm_msg` or `comm_close`."""
    data: dict[str, Any]
    """The message body (`{"method": "update" | "custom", ...}` for `comm_msg`)."""
    buffers: list[bytes] = field(default_factory=list)
    """Binary buffers sent along, if any."""


class RecordingComm(BaseComm):
    """A comm with no kernel behind it that keeps every message it publishes."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self._recorded: SharedList[RecordedMessage] = SharedList()
        super().__init__(*args, **kwargs)

    kernel = "recording"
    """ipywidgets only sends while `comm.kernel` is truthy."""

    def publish_msg(
        self,
        msg_type: str,
        data: dict[str, Any] | None = None,
        metadata: dict[str, Any] | None = None,
        buffers: list[bytes] | None = None,
        **keys: Any,
    ) -> None:
        message = RecordedMessage(msg_type, dict(data or {}), list(buffers or []))
        self._recorded.append(message)

    @property
    def messages(self) -> list[RecordedMessage]:
        """Everything published so far, oldest first (a copy)."""
        return self._recorded.copy()

    def custom_messages(self) -> list[Any]:
        """The contents of the custom messages sent to the front end (`widget.send`)."""
        return [
            m.data.get("content")
            for m in self.messages
            if m.msg_type == "comm_msg" and m.data.get("method") == "custom"
        ]

    def state_updates(self) -> list[dict[str, Any]]:
        """The state dicts of the trait updates sent to the front end, oldest first."""
        return [
            dict(m.data.get("state", {}))
            for m in self.messages
            if m.msg_type == "comm_msg" and m.data.get("method") == "update"
        ]

    def clear(self) -> None:
        """Forget what was recorded so far."""
        self._recorded.clear()

    def deliver(self, content: Any, buffers: list[bytes] | None = None) -> None:
        """Hand a front-end custom message (`model.send(content)`) to the widget."""
        self._receive({"method": "custom", "content": content}, buffers)

    def deliver_state(self, state: dict[str, Any]) -> None:
        """Hand a front-end trait update (`model.set` + `save_changes`) to the widget."""
        self._receive({"method": "update", "state": state, "buffer_paths": []}, None)

    def _receive(self, data: dict[str, Any], buffers: list[bytes] | None) -> None:
        self.handle_msg(
            {
                "content": {"comm_id": self.comm_id, "data": data},
                "buffers": list(buffers or []),
                "metadata": {},
            }
        )


class CommRecorder:
    """The recording comms created inside one `recording_comms()` block."""

    def __init__(self) -> None:
        self.comms: list[RecordingComm] = []
        """Every comm created, in creation order."""

    def of(self, widget: Any) -> RecordingComm:
        """The recording comm behind `widget` (created inside the block)."""
        widget_comm = getattr(widget, "comm", None)
        if not isinstance(widget_comm, RecordingComm):
            raise LookupError(f"{type(widget).__name__} has no recording comm")
        return widget_comm


@contextmanager
def recording_comms() -> Iterator[CommRecorder]:
    """Within the block, widgets open `RecordingComm`s instead of kernel comms.

    The comms keep working after the block ends; only new widgets are affected.
    """
    recorder = CommRecorder()
    original = comm.create_comm

    def create(*args: Any, **kwargs: Any) -> RecordingComm:
        created = RecordingComm(*args, **kwargs)
        recorder.comms.append(created)
        return created

    comm.create_comm = create
    try:
        yield recorder
    finally:
        comm.create_comm = original
