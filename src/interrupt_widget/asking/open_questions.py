"""`OpenQuestions`: the open interrupts of a run and everything about answering them.

One object checks an answer (known interrupt; not answered before; not a call in
doubt; not expired; plain JSON; fits the interrupt's `response_schema`, through
`agui.answers.check_answer`, the check a resume over HTTP and a workflow update
make too; allowed by the call's rules about people), records it once with who
gave it, keeps each interrupt's last refusal for the views, expires what nobody
answered in time, settles calls in doubt through a `Settler`, and submits the
resume entries exactly once. It holds no widget and no timer: the picker and a
batch row are views of it, each with its own waiting, and each with an
`ExpiryTimer` (`asking/expiry.py`) that calls `expire()` when `next_deadline()` comes.

Answers may arrive from the kernel's comm thread and from the event loop at
once, so every change holds one re-entrant lock; the views hear of changes
through `on_change` (under the lock), and the entries go to `on_submit` once
the lock is released.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any, Literal

from ag_ui.core import Interrupt, Message, ResumeEntry

from interrupt_widget import clock
from interrupt_widget.agui.answers import check_answer, is_expired, prepare_checks_soon, too_late
from interrupt_widget.agui.interrupts import (
    ANSWERED_BY_EXPIRY,
    DENIAL_REASON,
    tool_name,
    verdict,
)
from interrupt_widget.asking.settling import SETTLE_ON_ITS_CARD, Settler, settled_answer
from interrupt_widget.clock import parse_instant, utc_text
from interrupt_widget.errors import AnswerError, AnswerRefused, NotAllowedToAnswer, NotInDoubt
from interrupt_widget.identity import IDENTITY_KEY, Identity, answering_identity
from interrupt_widget.policy.quorum import not_allowed_reason, not_allowed_to_settle

AnswerStatus = Literal["resolved", "cancelled"]
"""How an interrupt is answered: with a payload, or abandoned."""

ExpiryAnswer = Literal["cancel", "deny"]
"""What an interrupt nobody answered by its own deadline (`expires_in`) gets."""

QuestionsStatus = Literal["waiting", "submitted", "expired"]
"""Waiting for answers; submitted; or submitted with every answer given by expiry."""

EXPIRED_REASON = "Nobody answered in time."
"""What the model is told about a call denied because its time ran out."""


@dataclass(frozen=True)
class Refusal:
    """The last answer refused for one interrupt, as its views show it."""

    message: str
    """The whole sentence, as the exception said it."""
    problems: tuple[AnswerError, ...] = ()
    """What a form shows beside each field (or on the card, path ""); empty: nothing to."""
    not_allowed: bool = False
    """True when the call's rules about people refuse who answers, not the answer."""
    reason: str = ""
    """Why, without naming the question, as `answer_refusal` found it (a responder's error
    names the question in its own words)."""


def answer_refusal(
    interrupt: Interrupt, label: str, payload: Any, who: Identity, now: datetime
) -> Refusal | None:
    """Why `who`'s resolved `payload` for `interrupt` (named `label`) is refused at `now`:
    the one answer check (`check_answer`), then the call's rules about people; None when
    it may go on. Every view of the questions asks this, here or across the server, and a
    responder before it answers anything."""
    problem = check_answer(interrupt, payload, interrupt.response_schema)
    if problem is not None:
        return Refusal(problem.sentence(label), tuple(problem.errors), reason=problem.reason)
    approved = isinstance(payload, Mapping) and payload.get("approved") is True
    reason = not_allowed_reason(interrupt.metadata, who, approved, now)
    return (
        None if reason is None else Refusal(f"{label}: {reason}", not_allowed=True, reason=reason)
    )


class OpenQuestions:
    """A set of interrupts and the answers to them (see the module docs)."""

    def __init__(
        self,
        interrupts: Sequence[Interrupt],
        *,
        messages: Iterable[Message] = (),
        on_change: Callable[[], object] | None = None,
        on_submit: Callable[[list[ResumeEntry]], object] | None = None,
        expire: bool = True,
        expires_in: timedelta | None = None,
        on_expiry: ExpiryAnswer = "cancel",
        prefix: str = "",
        signed: bool = True,
        lock: threading.RLock | None = None,
    ) -> None:
        """`messages`: the conversation, which names a call its interrupt only points at.
        `expire=False`: nothing expires by itself (an expired question waits for a cancel).
        `expires_in`: a deadline of its own for each interrupt that has none, answered
        `on_expiry`. `prefix` begins a refusal that is not about the answer itself
        (`"row K: "`: which question, answered before, in doubt). `signed`: each resume
        entry carries `metadata.by` and the identity. `lock`: share the view's lock."""
        conversation = tuple(messages)
        self._order = list(interrupts)
        if self._order:
            prepare_checks_soon()  # the answer's check is ready when the person is
        self._by_id = {i.id: i for i in self._order}
        self._names = {i.id: tool_name(i, conversation) for i in self._order}
        self._on_change = on_change
        self._on_submit = on_submit
        self._expiring = expire
        self._on_expiry: ExpiryAnswer = on_expiry
        self._prefix = prefix
        self._signed = signed
        self._lock = lock if lock is not None else threading.RLock()
        self.since = time.time()
        """When the questions were asked (seconds since the epoch)."""
        self._deadlines = _deadlines(self._order, self.since, expires_in)
        self._recorded: dict[str, dict[str, Any]] = {}
        self._refusals: dict[str, Refusal] = {}
        self._error = ""
        self._doubts: dict[str, str] = {}
        self._settler: Settler | None = None
        self._entries: list[ResumeEntry] | None = None
        self._pending: list[ResumeEntry] | None = None
        self._withdrawn = False

    # -- reading ---------------------------------------------------------------------------

    @property
    def interrupts(self) -> list[Interrupt]:
        """Every interrupt asked, in order."""
        return list(self._order)

    @property
    def names(self) -> dict[str, str]:
        """`{interrupt id: the tool (or reason) it asks about}`, as refusals name it."""
        return dict(self._names)

    @property
    def open_interrupts(self) -> list[Interrupt]:
        """The interrupts still waiting for an answer."""
        with self._lock:
            return [i for i in self._order if i.id not in self._recorded]

    @property
    def records(self) -> dict[str, dict[str, Any]]:
        """`{interrupt id: {"status", "payload", "by", "at", "identity", ...}}` per answer."""
        with self._lock:
            return dict(self._recorded)  # a record is replaced, never changed in place

    def record(self, interrupt_id: str) -> dict[str, Any] | None:
        """The answer recorded for `interrupt_id`, or None."""
        with self._lock:
            found = self._recorded.get(interrupt_id)
            return None if found is None else dict(found)

    @property
    def refusals(self) -> dict[str, Refusal]:
        """`{interrupt id: the last refusal}` for the interrupts still open that had one."""
        with self._lock:
            return dict(self._refusals)

    @property
    def error(self) -> str:
        """The last refusal's message, until an answer is recorded."""
        return self._error

    @property
    def doubts(self) -> dict[str, str]:
        """`{interrupt id: what is known}`: approved calls that may have run (each is
        answered with `settle`, and never expires)."""
        with self._lock:
            return dict(self._doubts)

    def deadline(self, interrupt_id: str) -> str | None:
        """When `interrupt_id` gets its default answer (ISO 8601); None when never."""
        with self._lock:
            if interrupt_id in self._doubts:
                return None
            return self._deadline_text(interrupt_id)

    def _deadline_text(self, interrupt_id: str) -> str | None:
        deadline = self._deadlines.get(interrupt_id)
        return None if deadline is None else utc_text(deadline)

    @property
    def entries(self) -> list[ResumeEntry] | None:
        """The submitted resume entries, in interrupt order; None until then."""
        with self._lock:
            return None if self._entries is None else list(self._entries)

    @property
    def delivered(self) -> bool:
        """True once the entries went to `on_submit`."""
        with self._lock:
            return self._entries is not None and self._pending is None

    @property
    def status(self) -> QuestionsStatus:
        with self._lock:
            if self._entries is None:
                return "waiting"
            by_expiry = all(r["by"] == ANSWERED_BY_EXPIRY for r in self._recorded.values())
            return "expired" if by_expiry else "submitted"

    # -- answering -------------------------------------------------------------------------

    def answer(
        self,
        interrupt_id: str | None,
        status: AnswerStatus,
        payload: Any,
        *,
        by: str,
        identity: str | Identity | None = None,
    ) -> None:
        """Record one answer (submitting when it completes the set) or raise `AnswerRefused`.

        `interrupt_id` may be left out while one interrupt is open. `identity`: who answers
        (default: as `answering_identity(by)` says); a call's rules about people may refuse
        them with `NotAllowedToAnswer`."""
        _check_by(by)
        try:
            with self._lock:
                try:
                    self._sweep(clock.now())
                    interrupt = self._answerable(interrupt_id)
                    who = answering_identity(by, identity)
                    if status == "resolved":
                        self._check(interrupt, payload, who)
                    self._store(interrupt, status, payload, by=by, identity=who.to_wire())
                finally:
                    self._changed()
        finally:
            self.deliver()

    def cancel_open(self, *, by: str) -> None:
        """Cancel every open interrupt (whoever asked is stopping)."""
        _check_by(by)
        try:
            with self._lock:
                for interrupt in self.open_interrupts:
                    self._store(interrupt, "cancelled", None, by=by)
                self._changed()
        finally:
            self.deliver()

    def note_replayed(self, interrupt_ids: Iterable[str]) -> None:
        """Mark answers whose call had already been settled by an earlier answer."""
        wanted = set(interrupt_ids)
        with self._lock:
            marked = [
                k
                for k, record in self._recorded.items()
                if k in wanted and record.get("outcome") != "replayed"
            ]
            for key in marked:
                self._recorded[key] = {**self._recorded[key], "outcome": "replayed"}
            if marked:
                self._changed()

    def withdraw(self) -> None:
        """Ask these questions no more (their view asks others): every later answer is
        refused, and nothing more is submitted."""
        with self._lock:
            self._withdrawn = True
            self._pending = None

    # -- calls in doubt --------------------------------------------------------------------

    def offer_settling(self, doubts: Mapping[str, str], settler: Settler) -> None:
        """Hold the calls in doubt (`{interrupt id: what is known}`) for `settle`; `settler`
        records each word in the owner's ledger."""
        with self._lock:
            unknown = sorted(set(doubts) - {i.id for i in self.open_interrupts})
            if unknown:
                raise ValueError(f"{self._prefix}no such interrupt open here: {', '.join(unknown)}")
            self._settler = settler
            self._doubts.update(doubts)
            self._changed()

    def settle(
        self,
        interrupt_id: str,
        *,
        ran: bool,
        output: str | None = None,
        by: str = "python",
        identity: str | Identity | None = None,
    ) -> None:
        """Settle a call in doubt: it ran (`output` its result) or it did not (it runs now).

        `identity`: who says so (default: as `answering_identity(by)` says); only someone
        the call's rules let answer it may (`not_allowed_to_settle`). Raises
        `AnswerRefused`, changing nothing, when the call is not in doubt, the person may not
        answer it, the word says too little or too much, or the ledger cannot be reached; a
        call settled elsewhere meanwhile is answered as usual from then on."""
        _check_by(by)
        try:
            with self._lock:
                try:
                    self._settle(interrupt_id, ran, output, by, answering_identity(by, identity))
                finally:
                    self._changed()
        finally:
            self.deliver()

    def _settle(
        self, interrupt_id: str, ran: bool, output: str | None, by: str, who: Identity
    ) -> None:
        settler = self._settler
        if interrupt_id not in self._doubts or settler is None or self._withdrawn:
            raise self._refuse(f"{interrupt_id!r} is not a call in doubt; nothing was changed")
        interrupt = self._by_id[interrupt_id]
        label = self._names[interrupt_id]
        barred = not_allowed_to_settle(interrupt.metadata, who, clock.now())
        if barred is not None:
            raise self._refuse(f"{label}: {barred}", interrupt, on_card=True)
        try:
            payload, settled = settled_answer(settler, interrupt, label, ran, output, by)
        except NotInDoubt as exc:  # settled elsewhere: it is answered as usual again
            del self._doubts[interrupt_id]
            raise self._refuse(str(exc), interrupt, on_card=True) from None
        except AnswerRefused as exc:
            raise self._refuse(str(exc), interrupt, on_card=True) from None
        del self._doubts[interrupt_id]
        self._store(interrupt, "resolved", payload, by=by, identity=who.to_wire(), **settled)

    # -- time ------------------------------------------------------------------------------

    def next_deadline(self) -> datetime | None:
        """When the next unanswered question expires; None when none will."""
        with self._lock:
            if self._entries is not None or not self._expiring:
                return None
            waiting = [
                when
                for key, when in self._deadlines.items()
                if key not in self._recorded and key not in self._doubts
            ]
            return min(waiting, default=None)

    def expire(self, now: datetime | None = None) -> None:
        """Give every unanswered question whose time ran out its default answer."""
        try:
            with self._lock:
                before = len(self._recorded)
                self._sweep(now or clock.now())
                if len(self._recorded) != before:
                    self._changed()
        finally:
            self.deliver()

    def _sweep(self, now: datetime) -> None:
        if self._entries is not None or not self._expiring:
            return
        for interrupt in self._order:
            # A call in doubt waits for a person's word on it, deadline or not.
            if interrupt.id in self._recorded or interrupt.id in self._doubts:
                continue
            deadline = self._deadlines.get(interrupt.id)
            if deadline is None or deadline > now:
                continue
            if self._on_expiry == "deny" and not is_expired(interrupt, now):
                # Its own deadline (the interrupt has none): a denial the model hears.
                denial = {"approved": False, DENIAL_REASON: EXPIRED_REASON}
                self._store(interrupt, "resolved", denial, by=ANSWERED_BY_EXPIRY)
            else:
                self._store(interrupt, "cancelled", None, by=ANSWERED_BY_EXPIRY)

    # -- submitting ------------------------------------------------------------------------

    def deliver(self) -> None:
        """Hand a submission to `on_submit`, once, outside the lock."""
        with self._lock:
            entries, self._pending = self._pending, None
        if entries is not None and self._on_submit is not None:
            self._on_submit(list(entries))

    def _submit_if_complete(self) -> None:
        if not self._order or self._entries is not None or self._withdrawn:
            return
        if len(self._recorded) < len(self._order):  # only asked ids are ever recorded
            return
        self._entries = [self._entry(i.id) for i in self._order]
        self._pending = list(self._entries)

    def _entry(self, interrupt_id: str) -> ResumeEntry:
        record = self._recorded[interrupt_id]
        # Who answered travels with the answer, so the run's trace can say it.
        signed = {"by": record["by"], IDENTITY_KEY: record[IDENTITY_KEY]}
        return ResumeEntry(
            interrupt_id=interrupt_id,
            status=record["status"],
            payload=record["payload"],
            metadata=signed if self._signed else None,
        )

    # -- internals -------------------------------------------------------------------------

    def _answerable(self, interrupt_id: str | None) -> Interrupt:
        """The interrupt an answer is for, refused when it cannot take one now."""
        if self._withdrawn:
            raise self._refuse(f"unknown interrupt id {interrupt_id!r}: its question was replaced")
        answered_here = interrupt_id is not None and interrupt_id in self._recorded
        if self._entries is not None and not answered_here:
            raise self._refuse(self._late())
        interrupt = self._target(interrupt_id)
        label = self._names[interrupt.id]
        if interrupt.id in self._doubts:
            raise self._refuse(in_doubt_refusal(label, interrupt.id))
        earlier = self._recorded.get(interrupt.id)
        if earlier is not None and earlier["by"] == ANSWERED_BY_EXPIRY:
            deadline = self._deadline_text(interrupt.id)
            raise self._refuse(too_late(label, deadline, earlier["status"]))
        if earlier is not None:
            sent = "; the answers were already submitted" if self._entries is not None else ""
            raise self._refuse(
                f"{label} was already answered elsewhere ({answer_words(earlier)}, by "
                f"{earlier['by']}){sent}; nothing was changed"
            )
        return interrupt

    def _target(self, interrupt_id: str | None) -> Interrupt:
        if interrupt_id is not None:
            found = self._by_id.get(interrupt_id)
            if found is None:
                raise self._refuse(f"unknown interrupt id {interrupt_id!r}")
            return found
        if not self._order:
            raise self._refuse("nothing is asked yet: answers are taken once a question shows")
        still_open = self.open_interrupts
        if len(still_open) != 1:
            names = ", ".join(f"{self._names[i.id]} ({i.id})" for i in still_open)
            raise self._refuse(
                f"{len(still_open)} interrupts are open ({names}): pass interrupt_id to say which"
            )
        return still_open[0]

    def _check(self, interrupt: Interrupt, payload: Any, who: Identity) -> None:
        """The one answer check, then the call's rules about people for `who`."""
        label = self._names[interrupt.id]
        found = answer_refusal(interrupt, label, payload, who, clock.now())
        if found is None:
            return
        if found.not_allowed:
            self._refusals[interrupt.id] = found
            self._error = found.message
            raise NotAllowedToAnswer(found.message)
        raise self._refuse(found.message, interrupt, found.problems)

    def _refuse(
        self,
        message: str,
        interrupt: Interrupt | None = None,
        problems: Sequence[AnswerError] = (),
        *,
        on_card: bool = False,
    ) -> AnswerRefused:
        """`AnswerRefused` for `message`; kept for the views when it is about `interrupt`'s
        answer (`on_card`: shown on its card as a whole). Such a refusal names its question
        and is shown beside it; one about which question is meant begins with the prefix."""
        said = message if interrupt is not None else f"{self._prefix}{message}"
        if interrupt is not None:
            shown = (AnswerError("", said),) if on_card else tuple(problems)
            self._refusals[interrupt.id] = Refusal(said, shown)
            self._error = said
        return AnswerRefused(said, list(problems))

    def _store(
        self, interrupt: Interrupt, status: AnswerStatus, payload: Any, *, by: str, **more: Any
    ) -> None:
        at = utc_text(clock.now(), "milliseconds")
        record = {"status": status, "payload": payload, "by": by, "at": at, **more}
        record.setdefault(IDENTITY_KEY, answering_identity(by).to_wire())
        self._recorded[interrupt.id] = record
        self._refusals.pop(interrupt.id, None)
        self._error = ""
        self._submit_if_complete()

    def _late(self) -> str:
        """Why an answer after the submission changes nothing: the questions whose time
        ran out say so, and when."""
        expired = [i for i in self._order if self._recorded[i.id]["by"] == ANSWERED_BY_EXPIRY]
        if len(expired) == 1 and len(self._order) == 1:
            only = expired[0].id
            status = self._recorded[only]["status"]
            return too_late(self._names[only], self._deadline_text(only), status)
        if not expired:
            return "the answers were already submitted; nothing was changed"
        when = ", ".join(f"{self._names[i.id]} at {self._deadline_text(i.id)}" for i in expired)
        if len(expired) == len(self._order):
            return f"the questions expired ({when}) and were cancelled; nothing was changed"
        return (
            f"the answers were already submitted, and some questions expired ({when}) and "
            "were cancelled; nothing was changed"
        )

    def _changed(self) -> None:
        if self._on_change is not None:
            self._on_change()


def _deadlines(
    interrupts: Sequence[Interrupt], since: float, expires_in: timedelta | None
) -> dict[str, datetime]:
    """Each interrupt's deadline: its own `expires_at` (read once, here), else `expires_in`
    after `since`."""
    deadlines: dict[str, datetime] = {}
    for interrupt in interrupts:
        if interrupt.expires_at:
            deadlines[interrupt.id] = parse_instant(interrupt.expires_at)
        elif expires_in is not None:
            deadlines[interrupt.id] = datetime.fromtimestamp(since, UTC) + expires_in
    return deadlines


def in_doubt_refusal(label: str, interrupt_id: str) -> str:
    """Why an answer to a call in doubt (named `label`) is refused, from every entry (the
    picker, a batch row, the inbox, a responder, the sidebar): only a person's word on
    whether it ran settles it."""
    return (
        f"{label} may have run already (its run ended before recording a result): "
        f"{SETTLE_ON_ITS_CARD}, or from Python with settle({interrupt_id!r}, ran=True, "
        f"output=...) or settle({interrupt_id!r}, ran=False); nothing was answered"
    )


def _check_by(by: object) -> None:
    if not isinstance(by, str) or not by:
        raise ValueError("`by` must name who answered, e.g. 'responder:approve_all'")


def answer_words(record: Mapping[str, Any] | None) -> str:
    """How one answer reads (no ids, no times: stable for nbval), as a picker's text and a
    refusal of a second answer say it."""
    if record is None:
        return "waiting for an answer"
    said = _verdict_text(record)
    if record.get("settled") == "ran":
        said += "; it had run, its result recorded by hand"
    elif record.get("settled") == "not_run":
        said += "; it had not run, so it runs now"
    return f"{said}, replayed (it had already run)" if record.get("outcome") == "replayed" else said


def _verdict_text(record: Mapping[str, Any]) -> str:
    payload = record["payload"]
    said = verdict(record["status"], payload, record["by"])
    if said in ("expired", "cancelled"):
        return said
    if not isinstance(payload, Mapping):
        return said if payload is None else f"{said} ({_short(payload)})"
    if said == "denied":
        reason = payload.get(DENIAL_REASON)
        return f"denied (reason: {_short(reason)})" if isinstance(reason, str) and reason else said
    details = {k: v for k, v in payload.items() if k != "approved"}
    labels = {k: v for k, v in details.items() if k.endswith("label")}
    shown = labels or details
    if not shown:
        return said
    return f"{said} ({', '.join(f'{k}: {_short(v)}' for k, v in shown.items())})"


def _short(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, sort_keys=True)
    return text if len(text) <= 60 else text[:57] + "..."


class QuestionsView:
    """A view of one `OpenQuestions` (a picker, a batch row), and what it offers whoever
    answers through it: a person's code, a click handed over, a responder, the inbox. Each
    call goes straight to the view's questions; `_changed` runs after it, taken or refused."""

    _questions: OpenQuestions

    @property
    def open_interrupts(self) -> list[Interrupt]:
        """The interrupts still waiting for an answer."""
        return self._questions.open_interrupts

    def refused(self, interrupt_id: str) -> str:
        """Why the last answer given to `interrupt_id` was refused; empty when none was
        since it was asked, or once it is answered."""
        found = self._questions.refusals.get(interrupt_id)
        return "" if found is None else found.message

    def resolve(
        self,
        payload: Any = None,
        interrupt_id: str | None = None,
        *,
        by: str = "python",
        identity: str | Identity | None = None,
    ) -> None:
        """Answer an interrupt with `payload`, exactly as a click on its form would.

        `interrupt_id` may be left out while a single interrupt is open. An invalid
        payload raises `AnswerRefused` (a `ValueError`) naming the fields, and the
        same message shows in the view. A field the schema closes out (every
        schema the kit builds does; a typo such as `reson`) is refused naming the
        nearest declared field, as a click, a responder and a resume refuse it.

        `identity` is who answers (a name or an `Identity`; default `current_identity()`);
        a call that needs several people refuses, with `NotAllowedToAnswer`, an answer from
        someone its rules do not let answer, or from someone who already did.
        """
        try:
            self._questions.answer(interrupt_id, "resolved", payload, by=by, identity=identity)
        finally:
            self._changed()

    def cancel(
        self,
        interrupt_id: str | None = None,
        *,
        by: str = "python",
        identity: str | Identity | None = None,
    ) -> None:
        """Abandon an interrupt: its tool does not run (the only answer an expired one takes)."""
        try:
            self._questions.answer(interrupt_id, "cancelled", None, by=by, identity=identity)
        finally:
            self._changed()

    def offer_settling(self, doubts: Mapping[str, str], settler: Settler) -> None:
        """Show the calls in doubt (`{interrupt id: what is known}`) as such, with the two
        answers `settle` takes; `settler` records each in the owner's ledger. They never
        expire."""
        try:
            self._questions.offer_settling(doubts, settler)
        finally:
            self._changed()

    def settle(
        self,
        interrupt_id: str,
        *,
        ran: bool,
        output: str | None = None,
        by: str = "python",
        identity: str | Identity | None = None,
    ) -> None:
        """Settle a call in doubt, as the two answers on its card do.

        `ran=True` with `output`: the call ran (its effect was checked) and `output` is its
        result, recorded in the ledger for the model to read; it never runs again.
        `ran=False`: it did not run; the resume runs it now, once, through the ledger.
        Either is the call's answer (recorded as a decision, with `identity`: who says so).
        Raises `AnswerRefused`, changing nothing, when the call is not in doubt, the person
        may not answer it, the word says too little or too much, or the ledger cannot be
        reached; a call settled elsewhere meanwhile is answered as usual from then on.
        """
        try:
            self._questions.settle(interrupt_id, ran=ran, output=output, by=by, identity=identity)
        finally:
            self._changed()

    def _changed(self) -> None:
        """After an answer, taken or refused: a view that does not hear `on_change` says so."""
