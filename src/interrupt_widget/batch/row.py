"""One row of an `AgentBatch`: its conversation, its open questions, and the answers to them.

A row is one `ConversationThread` with its own thread id. While its run waits
for a person, the row takes answers the way a picker does, through the same
checks: an expired interrupt can only be cancelled, a payload must be plain JSON
and fit the interrupt's `response_schema`, an interrupt is answered once. When
every open interrupt has an answer, the row hands the resume entries to its
batch, which resumes the thread (the thread takes them once; the adapter's
ledger runs each approved call once). Responders answer a row as they answer a
picker (`open_interrupts`, `resolve`, `cancel`).

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
import json
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Literal

from ag_ui.core import Interrupt, ResumeEntry

from interrupt_widget.agui.answers import (
    describe,
    is_expired,
    parse_instant,
    too_late,
    validate_payload,
)
from interrupt_widget.agui.interrupts import (
    ANSWERED_BY_EXPIRY,
    DENIAL_REASON,
    tool_arguments,
    tool_name,
)
from interrupt_widget.decisions import Decision, decisions_for
from interrupt_widget.errors import AnswerError, AnswerRefused, NotAllowedToAnswer, NotInDoubt
from interrupt_widget.identity import IDENTITY_KEY, answering_identity
from interrupt_widget.policy.people import refusal
from interrupt_widget.sdk.settling import Settler, settled_answer
from interrupt_widget.thread import ConversationThread

RowStatus = Literal["pending", "running", "waiting", "done", "failed", "cancelled"]
"""Where a row is: not started, running, waiting for an answer, or how it ended."""

ExpiryAnswer = Literal["cancel", "deny"]
"""What an interrupt nobody answered in time gets."""

EXPIRED_REASON = "Nobody answered in time."
"""What the model is told about a call denied because its time ran out."""


@dataclass(frozen=True)
class Waiting:
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


class BatchRow:
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
        self._asked: list[Interrupt] = []
        self._recorded: dict[str, dict[str, Any]] = {}
        self._refused: dict[str, str] = {}
        self._since = 0.0
        self._deadlines: dict[str, str] = {}
        self._answered: asyncio.Future[list[ResumeEntry]] | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._expiry_answer: ExpiryAnswer = "cancel"
        self._doubts: dict[str, str] = {}
        self._settler: Settler | None = None

    # -- what a picker offers a responder --------------------------------------------------

    @property
    def open_interrupts(self) -> list[Interrupt]:
        """The interrupts still waiting for an answer."""
        return [i for i in self._asked if i.id not in self._recorded]

    def resolve(
        self, payload: Any = None, interrupt_id: str | None = None, *, by: str = "python"
    ) -> None:
        """Answer an interrupt with `payload`, checked as the picker checks a click.

        Raises `AnswerRefused` (naming the fields) when the answer does not fit.
        """
        interrupt = self._target(interrupt_id)
        label = tool_name(interrupt, self.thread.messages)
        self._check_not_in_doubt(interrupt, label)
        if is_expired(interrupt):
            raise self._refuse(
                interrupt, f"{label} expired at {interrupt.expires_at}; it can only be cancelled"
            )
        try:
            json.dumps(payload, allow_nan=False)
        except (TypeError, ValueError) as exc:
            raise self._refuse(
                interrupt, f"{label}: the answer must be plain JSON ({exc})"
            ) from None
        problems = validate_payload(interrupt.response_schema, payload)
        if problems:
            raise self._refuse(interrupt, f"{label}: {describe(problems)}", problems)
        approving = isinstance(payload, Mapping) and payload.get("approved") is True
        who = answering_identity(by)
        reason = refusal(interrupt.metadata, who, approving, datetime.now(UTC))
        if reason is not None:  # the rules about people would not count it: say so here
            raise NotAllowedToAnswer(str(self._refuse(interrupt, f"{label}: {reason}")))
        self._store(interrupt, "resolved", payload, by)

    def cancel(self, interrupt_id: str | None = None, *, by: str = "python") -> None:
        """Abandon an interrupt: its tool does not run (the only answer an expired one takes)."""
        interrupt = self._target(interrupt_id)
        self._check_not_in_doubt(interrupt, tool_name(interrupt, self.thread.messages))
        self._store(interrupt, "cancelled", None, by)

    # -- calls in doubt --------------------------------------------------------------------

    @property
    def doubts(self) -> dict[str, str]:
        """`{interrupt id: what is known}`: the open approved calls that may have run (their
        run ended before recording a result). Each is answered with `settle`."""
        return dict(self._doubts)

    def offer_settling(self, doubts: Mapping[str, str], settler: Settler) -> None:
        """Show the calls in doubt (`{interrupt id: what is known}`) as such, each answered by
        `settle`; `settler` records the word in the batch's ledger. They never expire."""
        unknown = sorted(set(doubts) - {i.id for i in self.open_interrupts})
        if unknown:
            raise ValueError(f"row {self.key}: no such interrupt open: {', '.join(unknown)}")
        self._settler = settler
        self._doubts.update(doubts)
        for interrupt_id in doubts:  # approved before: no deadline settles it for a person
            self._deadlines.pop(interrupt_id, None)
        self._on_change(self)

    def settle(
        self, interrupt_id: str, *, ran: bool, output: str | None = None, by: str = "python"
    ) -> None:
        """Settle a call in doubt, as the two answers on its card in the inbox do.

        `ran=True` with `output`: it ran (its effect was checked) and `output` is its result,
        recorded in the ledger for the model to read; it never runs again. `ran=False`: it did
        not run; the resume runs it now, once, through the ledger. Either is the call's
        answer (a decision with `settled`). Raises `AnswerRefused`, changing nothing, when
        the call is not in doubt, the word says too little or too much, or the ledger cannot
        be reached; a call settled elsewhere meanwhile is answered as usual from then on.
        """
        settler = self._settler
        if interrupt_id not in self._doubts or settler is None:
            raise AnswerRefused(
                f"row {self.key}: {interrupt_id!r} is not a call in doubt; nothing was changed"
            )
        _check_by(by)
        interrupt = self._target(interrupt_id)
        label = tool_name(interrupt, self.thread.messages)
        try:
            payload, settled = settled_answer(settler, interrupt, label, ran, output, by)
        except NotInDoubt as exc:  # settled elsewhere: it is answered as usual again
            del self._doubts[interrupt_id]
            raise self._refuse(interrupt, str(exc)) from None
        except AnswerRefused as exc:
            raise self._refuse(interrupt, str(exc)) from None
        del self._doubts[interrupt_id]
        self._store(interrupt, "resolved", payload, by, **settled)

    # -- what the inbox reads --------------------------------------------------------------

    def waiting(self) -> list[Waiting]:
        """This row's open questions."""
        return [
            Waiting(
                key=self.key,
                interrupt=i,
                tool=tool_name(i, self.thread.messages),
                arguments=tool_arguments(i),
                since=self._since,
                expires_at=self._deadlines.get(i.id),
                error=self._refused.get(i.id, ""),
                doubt=self._doubts.get(i.id, ""),
            )
            for i in self.open_interrupts
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
        self._asked = list(interrupts)
        self._recorded = {}
        self._refused = {}
        self._doubts, self._settler = {}, None
        self._since = time.time()
        self._expiry_answer = on_expiry
        self._deadlines = {}
        for interrupt in interrupts:
            if interrupt.expires_at:
                self._deadlines[interrupt.id] = interrupt.expires_at
            elif expires_in is not None:
                deadline = datetime.fromtimestamp(self._since, UTC) + expires_in
                self._deadlines[interrupt.id] = deadline.isoformat().replace("+00:00", "Z")
        self._answered = loop.create_future()
        if self._deadlines:
            first = min(parse_instant(d) for d in self._deadlines.values())
            delay = max((first - datetime.now(UTC)).total_seconds(), 0.0)
            self._timer = loop.call_later(delay, self._expire)
        self.status = "waiting"
        self._on_change(self)
        return self._answered

    def cancel_open(self, *, by: str) -> None:
        """Cancel every open interrupt (the batch is being stopped)."""
        for interrupt in self.open_interrupts:
            self._store(interrupt, "cancelled", None, by)

    def set_status(self, status: RowStatus) -> None:
        self.status = status
        self._on_change(self)

    # -- internals -------------------------------------------------------------------------

    def _target(self, interrupt_id: str | None) -> Interrupt:
        if interrupt_id is None:
            still_open = self.open_interrupts
            if len(still_open) != 1:
                raise AnswerRefused(
                    f"row {self.key}: {len(still_open)} interrupts are open; pass interrupt_id"
                )
            return still_open[0]
        for interrupt in self._asked:
            if interrupt.id == interrupt_id:
                if interrupt_id in self._recorded:
                    earlier = self._recorded[interrupt_id]
                    if earlier["by"] == ANSWERED_BY_EXPIRY:
                        label = tool_name(interrupt, self.thread.messages)
                        deadline = self._deadlines.get(interrupt_id, interrupt.expires_at)
                        expired = too_late(label, deadline, earlier["status"])
                        raise AnswerRefused(f"row {self.key}: {expired}")
                    raise AnswerRefused(
                        f"row {self.key}: {tool_name(interrupt, self.thread.messages)} was already "
                        f"answered (by {earlier['by']}); nothing was changed"
                    )
                return interrupt
        raise AnswerRefused(f"row {self.key}: no open interrupt {interrupt_id!r}")

    def _check_not_in_doubt(self, interrupt: Interrupt, label: str) -> None:
        if interrupt.id in self._doubts:
            raise AnswerRefused(
                f"row {self.key}: {label} may have run already (its run ended before recording "
                f"a result): say whether it did with settle({interrupt.id!r}, ran=True, "
                f"output=...) or settle({interrupt.id!r}, ran=False); nothing was changed"
            )

    def _refuse(
        self, interrupt: Interrupt, message: str, problems: list[AnswerError] | None = None
    ) -> AnswerRefused:
        self._refused[interrupt.id] = message
        self._on_change(self)
        return AnswerRefused(message, problems)

    def _store(self, interrupt: Interrupt, status: str, payload: Any, by: str, **more: Any) -> None:
        _check_by(by)
        at = datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
        who = answering_identity(by).to_wire()
        record = {"status": status, "payload": payload, "by": by, "at": at, **more}
        record.setdefault(IDENTITY_KEY, who)
        self._recorded[interrupt.id] = record
        self._refused.pop(interrupt.id, None)
        if not self.open_interrupts:
            self._submit()
        self._on_change(self)

    def _submit(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self.decisions.extend(decisions_for(self._asked, self._recorded))
        entries = [
            ResumeEntry(
                interrupt_id=i.id,
                status=self._recorded[i.id]["status"],
                payload=self._recorded[i.id]["payload"],
                # Who answered travels with the answer, so the run's trace can say it.
                metadata={
                    "by": self._recorded[i.id]["by"],
                    IDENTITY_KEY: self._recorded[i.id][IDENTITY_KEY],
                },
            )
            for i in self._asked
        ]
        self.status = "running"
        answered = self._answered
        if answered is not None and not answered.done():
            answered.set_result(entries)

    def _expire(self) -> None:
        self._timer = None
        now = datetime.now(UTC)
        later: list[datetime] = []
        for interrupt in self.open_interrupts:
            if interrupt.id not in self._deadlines:
                continue
            deadline = parse_instant(self._deadlines[interrupt.id])
            if deadline > now:
                later.append(deadline)
            elif self._expiry_answer == "deny" and not is_expired(interrupt, now):
                # The batch's own deadline (the interrupt has none): a denial the model hears.
                denial = {"approved": False, DENIAL_REASON: EXPIRED_REASON}
                self._store(interrupt, "resolved", denial, ANSWERED_BY_EXPIRY)
            else:
                self._store(interrupt, "cancelled", None, ANSWERED_BY_EXPIRY)
        if later and self.open_interrupts:
            delay = (min(later) - now).total_seconds()
            self._timer = asyncio.get_running_loop().call_later(delay, self._expire)


def _check_by(by: object) -> None:
    if not isinstance(by, str) or not by:
        raise ValueError("`by` must name who answered, e.g. 'responder:approve_all'")
