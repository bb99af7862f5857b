"""What a list of questions reads from the chats and batches that ask them.

The inbox widget lists the questions of the chats and batches it is given; the
kernel's desk (`lab/kernel_desk.py`) lists every chat and batch of the kernel for
the Jupyter server's sidebar. Both read them through one `QuestionSource` each
and build the same wire item of a waiting call (`wire/inbox.schema.json`), so a
question reads the same in the widget and in the sidebar.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, Protocol

from interrupt_widget.agui.interrupts import arguments_line, tool_arguments, tool_name
from interrupt_widget.agui.wire import to_wire
from interrupt_widget.asking import QuestionsView
from interrupt_widget.batch.agent_batch import AgentBatch
from interrupt_widget.batch.row import WaitingQuestion
from interrupt_widget.errors import AnswerRefused
from interrupt_widget.widgets.chat import AgentChat


class QuestionSource(Protocol):
    """What a list reads from a batch or a chat."""

    def waiting(self) -> list[WaitingQuestion]: ...

    def answerer(self, key: str) -> QuestionsView: ...

    def subscribe(self, listener: Callable[[], object]) -> Callable[[], None]: ...

    def counts(self) -> dict[str, int]: ...


class BatchSource:
    """A batch: one row per input, each its own key."""

    def __init__(self, batch: AgentBatch) -> None:
        self.batch = batch

    def waiting(self) -> list[WaitingQuestion]:
        return self.batch.waiting()

    def answerer(self, key: str) -> QuestionsView:
        return self.batch.row(key)

    def subscribe(self, listener: Callable[[], object]) -> Callable[[], None]:
        return self.batch.subscribe(lambda _row: listener())

    def counts(self) -> dict[str, int]:
        return self.batch.counts()


class ChatSource:
    """A chat as one row, keyed by its thread id; its picker takes the answers."""

    def __init__(self, chat: AgentChat) -> None:
        self.chat = chat
        self.key = chat.thread.thread_id
        self._since: dict[str, float] = {}

    def waiting(self) -> list[WaitingQuestion]:
        picker = self.chat.picker
        # A chat whose resume found a call in doubt ended in error, and waits all the same.
        # Before it first asks, its picker is a false stand-in with no doubts to read.
        if not picker or (self.chat.status != "waiting" and not picker.doubts):
            return []
        now = time.time()
        found = []
        for interrupt in picker.open_interrupts:
            since = self._since.setdefault(interrupt.id, now)
            found.append(
                WaitingQuestion(
                    key=self.key,
                    interrupt=interrupt,
                    tool=tool_name(interrupt, self.chat.thread.messages),
                    arguments=tool_arguments(interrupt),
                    since=since,
                    expires_at=interrupt.expires_at,
                    error=picker.refused(interrupt.id),
                    doubt=str(picker.doubts.get(interrupt.id) or ""),
                    run_link=picker.run_link,
                )
            )
        return found

    def answerer(self, key: str) -> QuestionsView:
        picker = self.chat.picker
        if picker is None:
            raise AnswerRefused(f"chat {key} asks nothing now")
        return picker

    def subscribe(self, listener: Callable[[], object]) -> Callable[[], None]:
        def changed(_change: Any) -> None:
            listener()

        # An answer given in the chat's own picker moves the chat out of `waiting`.
        self.chat.observe(changed, names=["status", "picker"])
        return lambda: self.chat.unobserve(changed, names=["status", "picker"])

    def counts(self) -> dict[str, int]:
        picker = self.chat.picker
        status = "waiting" if picker and picker.doubts else self.chat.status
        mapped = {"idle": "pending", "error": "failed"}.get(status, status)
        return {mapped: 1}


def source_of(asker: object) -> QuestionSource:
    """The source that reads `asker` (an `AgentBatch` or an `AgentChat`)."""
    if isinstance(asker, AgentBatch):
        return BatchSource(asker)
    if isinstance(asker, AgentChat):
        return ChatSource(asker)
    raise TypeError(f"an Inbox lists AgentBatch and AgentChat, got {type(asker).__name__}")


def wire_item(item_id: str, waiting: WaitingQuestion) -> dict[str, Any]:
    """The wire item of a waiting call, as every list shows it (no viewer's fields)."""
    return {
        "id": item_id,
        "key": waiting.key,
        "tool": waiting.tool,
        "args": arguments_line(waiting.arguments),
        "interrupt": to_wire(waiting.interrupt),
        "since": int(waiting.since * 1000),
        "expiresAt": waiting.expires_at,
        "error": waiting.error,
        "doubt": waiting.doubt,
        "runLink": waiting.run_link,
    }
