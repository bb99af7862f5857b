"""One row of an `AgentBatch`: its conversation, its open questions, and the answers to them.

A row is one `ConversationThread` with its own thread id. While its run waits
for a person, the row holds its questions in one `OpenQuestions`, the object a
picker holds too, so it takes answers through the same checks: an expired
interrupt can only be cancelled, a payload must be plain JSON and fit the
interrupt's `response_schema`, the call's rules about people must let the
answerer give it, an interrupt is answered once. When every open interrupt has
an answer, the row hands the resume entries to its batch, which resumes the
thread (the thread takes them once; the adapter's ledger runs each approved call
once). Responders answer a row as they answer a picker (`open_interrupts`, `resolve`, `cancel`).

An approved call left in doubt (its run ended before recording a result, so it
may have run) is offered for settling as in a picker (`offer_settling`): it is
answered with `settle` (it ran, with its result; or it did not, so it runs now),
never with `resolve` or `cancel`, and never by a responder.

A row holds no widget: a batch of a thousand rows opens no comm per row. Rows
are read and answered on the kernel's event loop (the inbox hands clicks over
to it).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, Literal

from ag_ui.core import Interrupt, ResumeEntry

from interrupt_widget.agui.interrupts import tool_arguments
from interrupt_widget.agui.run_handle import run_link_of
from interrupt_widget.asking import (
    ConversationThread,
    ExpiryAnswer,
    ExpiryTimer,
    OpenQuestions,
    QuestionsView,
)
from interrupt_widget.decisions import Decision, decisions_for

RowStatus = Literal["pending", "running", "waiting", "done", "failed", "cancelled"]
"""Where a row is: not started, running, waiting for an answer, or how it ended."""


@dataclass(frozen=True)
class WaitingQuestion:
    """One open question of one row, as the inbox lists it."""

    key: str
    """The row's key."""
    interrupt: Interrupt
    """The interrupt waiting for an answer."""
    tool: str
    """The tool it asks about (or its reason when it is not a tool approval)."""
    arguments: Any
    """The call's arguments as the interrupt shows them (None when it carries none)."""
    since: float
    """When the row began to wait (seconds since the epoch)."""
    expires_at: str | None
    """When an unanswered interrupt gets its default answer (ISO 8601), or None."""
    error: str = ""
    """Why the last answer given to it was refused, or empty."""
    doubt: str = ""
    """What is known of its approved call when that call may have run (it is settled, not
    answered: `BatchRow.settle`), or empty."""
    run_link: str = ""
    """Where its conversation's runs can be seen (a `TemporalAgent`'s Web UI), or empty."""


class BatchRow(QuestionsView):
    """One row's conversation and the answers to what it asks (see the module docs)."""

    def __init__(
        self,
        key: str,
        values: Mapping[str, Any],
        prompt: str,
        thread: ConversationThread,
        *,
        on_change: Callable[[BatchRow], object],
    ) -> None:
        self.key = key
        """The row's key (its thread id is derived from it)."""
        self.values = dict(values)
        """The row's input, as a dict of columns."""
        self.prompt = prompt
        """The message the row's conversation starts with."""
        self.thread = thread
        """The row's conversation."""
        self.status: RowStatus = "pending"
        self.error: str | None = None
        """How the row failed (status `failed`)."""
        self.code: str | None = None
        """The run's error code, when it gave one."""
        self.decisions: list[Decision] = []
        """Every answered interrupt of this row, people's, responders' and policies'."""
        self.replayed = False
        """True when the row had already finished (on this ledger) and reports that outcome."""
        self.text = ""
        """The agent's last reply."""
        self._on_change = on_change
        self._questions = OpenQuestions((), prefix=self._prefix)
        self._answered: asyncio.Future[list[ResumeEntry]] | None = None
        self._expiry = ExpiryTimer(self._questions)

    @property
    def _prefix(self) -> str:
        return f"row {self.key}: "

    # -- reading ---------------------------------------------------------------------------

    @property
    def doubts(self) -> dict[str, str]:
        """`{interrupt id: what is known}`: the open approved calls that may have run (their
        run ended before recording a result). Each is answered with `settle`."""
        return self._questions.doubts

    # -- what the inbox reads --------------------------------------------------------------

    def waiting(self) -> list[WaitingQuestion]:
        """This row's open questions."""
        questions = self._questions
        names, doubts = questions.names, questions.doubts
        link = run_link_of(self.thread.adapter, self.thread.thread_id)
        return [
            WaitingQuestion(
                key=self.key,
                interrupt=i,
                tool=names[i.id],
                arguments=tool_arguments(i),
                since=questions.since,
                expires_at=questions.deadline(i.id),
                error=self.refused(i.id),
                doubt=doubts.get(i.id, ""),
                run_link=link,
            )
            for i in questions.open_interrupts
        ]

    # -- driven by the batch ---------------------------------------------------------------

    def ask(
        self,
        interrupts: tuple[Interrupt, ...],
        *,
        expires_in: timedelta | None,
        on_expiry: ExpiryAnswer,
    ) -> asyncio.Future[list[ResumeEntry]]:
        """Start waiting for answers to `interrupts`; the future gets the resume entries."""
        loop = asyncio.get_running_loop()
        self._expiry.stop()
        self._questions.withdraw()
        self._answered = loop.create_future()
        self._questions = OpenQuestions(
            interrupts,
            messages=self.thread.messages,
            on_submit=self._submitted,
            expires_in=expires_in,
            on_expiry=on_expiry,
            prefix=self._prefix,
        )
        self._expiry = ExpiryTimer(self._questions, on_expired=self._expired)
        self.status = "waiting"
        self._expiry.arm(loop)
        self._on_change(self)
        return self._answered

    def cancel_open(self, *, by: str) -> None:
        """Cancel every open interrupt (the batch is being stopped)."""
        try:
            self._questions.cancel_open(by=by)
        finally:
            self._changed()

    def set_status(self, status: RowStatus) -> None:
        self.status = status
        self._on_change(self)

    # -- internals -------------------------------------------------------------------------

    def _changed(self) -> None:
        self._on_change(self)  # the batch, and the inbox that lists the row

    def _submitted(self, entries: list[ResumeEntry]) -> None:
        self._expiry.stop()
        questions = self._questions
        self.decisions.extend(decisions_for(questions.interrupts, questions.records))
        self.status = "running"
        answered = self._answered
        if answered is not None and not answered.done():
            answered.set_result(entries)

    def _expired(self) -> None:
        """After the timer gave answers by expiry: the row's views hear of it, and a row no
        longer waiting (its run ended meanwhile) sets no timer for its next deadline."""
        self._changed()
        if self.status != "waiting":
            self._expiry.stop()
