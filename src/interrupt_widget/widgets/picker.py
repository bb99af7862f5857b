"""`InterruptPicker`: the notebook widget that asks a person to answer AG-UI interrupts.

One picker shows one or more interrupts and collects an answer for each, from
a click in any view or from Python (`resolve` / `cancel`, which headless
responders use too). Every answer is checked against the interrupt's
`response_schema` before it is recorded; once every interrupt has one, the
picker submits exactly once: `await picker.wait()` returns the resume entries
and `on_submit` receives them.

Comm handlers may run on a kernel subshell thread, so answer recording holds a
lock and waiting coroutines are woken on the loop they were created on.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import pathlib
import sys
import threading
import warnings
from collections.abc import Callable, Iterable, Mapping
from datetime import UTC, datetime
from importlib import metadata
from typing import Any

import anywidget
import traitlets
from ag_ui.core import Interrupt, Message, ResumeEntry

from interrupt_widget.agui.answers import (
    describe,
    is_expired,
    parse_instant,
    too_late,
    validate_payload,
)
from interrupt_widget.agui.canonical import shown_arguments
from interrupt_widget.agui.interrupts import (
    ANSWERED_BY_EXPIRY,
    DENIAL_REASON,
    tool_arguments,
    tool_name,
    verdict,
)
from interrupt_widget.agui.wire import interrupts_from_wire, to_wire
from interrupt_widget.errors import (
    AnswerRefused,
    CannotWaitHere,
    NotAllowedToAnswer,
    NotInDoubt,
    UnattendedWait,
)
from interrupt_widget.identity import Identity, answering_identity
from interrupt_widget.policy.people import refusal
from interrupt_widget.sdk.settling import Settler, settled_answer
from interrupt_widget.widgets._bundle import CSS, ESM, owned_module
from interrupt_widget.widgets.attendance import UNATTENDED_AFTER, Attached, Attendance
from interrupt_widget.widgets.awaiting import in_marimo, marimo_way
from interrupt_widget.widgets.picker_protocol import (
    AnswerResult,
    AnswerStatus,
    ProtocolError,
    Settle,
    answer_result_to_wire,
    errors_to_wire,
    parse_front_end_message,
)

__all__ = ["AnswerRefused", "InterruptPicker"]

_log = logging.getLogger(__name__)
_MIN_KERNEL = (7, 4)
"""The `by` of an answer the picker recorded itself because time ran out."""

_NOTHING_ASKED = "InterruptPicker: nothing asked yet"
SubmitCallback = Callable[[list[ResumeEntry]], object]
_EntriesFuture = asyncio.Future[list[ResumeEntry]]


class InterruptPicker(anywidget.AnyWidget):
    """Shows AG-UI interrupts in a notebook cell and collects one answer for each.

    ::

        picker = InterruptPicker(outcome.interrupts)
        picker                        # the form, in the cell's output
        entries = await picker.wait() # -> list[ResumeEntry] for RunAgentInput.resume

    A custom renderer replaces the built-in form for one tool name (or reason):
    an ES module, given as a path or as source, exporting
    `render({interrupt, resolve, cancel, el, showForm})`; `resolve(payload)` and
    `cancel()` return a promise of Python's verdict, `showForm()` shows the
    built-in form below the renderer, and `render` may return a cleanup.
    """

    _esm = ESM
    _css = CSS

    unattended_after: float | None = UNATTENDED_AFTER
    """Seconds `wait()` gives a front end to show up while a question is open; with none
    heard from by then (nbval, nbclient, papermill, `nbconvert --execute`), it raises
    `UnattendedWait`, naming the ways out. None: wait for ever (an answer from code)."""

    kind = traitlets.Unicode("picker", read_only=True).tag(sync=True)
    """Which view the shared bundle draws for this model."""
    interrupts = traitlets.List(traitlets.Dict()).tag(sync=True)
    """The interrupts as AG-UI camelCase JSON, in the order given."""
    answers = traitlets.Dict().tag(sync=True)
    """`{interruptId: {"status", "payload", "by", "at"}}` for each recorded answer."""
    status = traitlets.Unicode("waiting").tag(sync=True)
    """`waiting`, `submitted`, `expired` (every interrupt ran out of time) or `error`."""
    error = traitlets.Unicode("").tag(sync=True)
    """The last problem to show above the cards, or empty."""
    errors = traitlets.Dict().tag(sync=True)
    """`{interruptId: [{"path", "message"}]}` from the last refused answer of each interrupt."""
    renderers = traitlets.Dict().tag(sync=True)
    """`{tool name or reason: ES module source}` replacing the built-in form."""
    calls = traitlets.Dict().tag(sync=True)
    """`{interruptId: {"name", "arguments", "shown"}}`: the tool each interrupt asks about
    and its arguments, as `tool_name` (with the conversation, when given) and
    `tool_arguments` read them, so every view names a call as Python does; `shown` holds
    the card's `[name, text]` rows in the canonical spelling the interrupt's message
    uses. Both are left out when the interrupt carries no arguments."""
    doubts = traitlets.Dict().tag(sync=True)
    """`{interruptId: what is known}`: approved calls left in doubt (their run ended before
    recording a result, so they may have run). Each is answered with `settle`, not `resolve`."""

    def __init__(
        self,
        interrupts: Iterable[Interrupt | Mapping[str, Any]] | None,
        *,
        renderers: Mapping[str, str | pathlib.Path] | None = None,
        on_submit: SubmitCallback | None = None,
        messages: Iterable[Message] = (),
        owner: anywidget.AnyWidget | None = None,
    ) -> None:
        """`interrupts`: at least one; None for a picker that asks nothing until `reset`.

        `messages`: the conversation the interrupts come from, which names the tool
        of an interrupt that only points at its call (`tool_call_id`).
        `owner`: a widget whose module draws this picker (the chat that holds it); the
        picker then carries a few lines that load the owner's module, not a copy of it.
        """
        parsed = [] if interrupts is None else _checked(interrupts)
        self._names: dict[str, str] = {}
        module = {} if owner is None else {"_esm": owned_module(owner.model_id)}
        # Passed to the constructor so the opening message already carries them.
        super().__init__(
            **module,
            interrupts=[to_wire(i) for i in parsed],
            renderers={str(k): renderer_source(v) for k, v in (renderers or {}).items()},
            calls=self._read_calls(parsed, messages),
        )
        self._on_submit = on_submit
        self._lock = threading.RLock()
        self._waiters: list[tuple[asyncio.AbstractEventLoop, _EntriesFuture]] = []
        self._timers: list[tuple[asyncio.AbstractEventLoop, asyncio.TimerHandle]] = []
        self._attendance = Attendance()
        self._begin(parsed)
        self.on_msg(self._on_front_end_message)
        self._sweep_expired()
        self._settle()

    def reset(
        self,
        interrupts: Iterable[Interrupt | Mapping[str, Any]],
        messages: Iterable[Message] = (),
        *,
        expire: bool = True,
    ) -> None:
        """Ask about `interrupts` (from the conversation `messages`) instead: answers,
        errors and status start afresh.

        `expire=False` asks again after a failed resume: an interrupt past its deadline
        then waits for a person's Cancel instead of cancelling itself, which would resume
        at once and, while the cause lasts, fail again and again.

        One picker can serve question after question (the chat reuses its own:
        marimo creates a widget's front end only while a cell runs). A view
        redraws in place; an answer still on its way for an earlier interrupt is
        refused as unknown. Coroutines in `wait()` get the next submission.
        """
        parsed = _checked(interrupts)
        with self._lock:
            timers, self._timers = self._timers, []
            for loop, timer in timers:
                _call_soon(loop, timer.cancel)
            with self.hold_sync():
                self.interrupts = [to_wire(i) for i in parsed]
                self.calls = self._read_calls(parsed, messages)
                self.answers = {}
                self.doubts = {}
                self.errors = {}
                self.error = ""
                self.status = "waiting"
            self._begin(parsed, expire=expire)
            self._sweep_expired()
        self._settle()

    def _read_calls(
        self, parsed: list[Interrupt], messages: Iterable[Message]
    ) -> dict[str, dict[str, Any]]:
        """The `calls` trait for `parsed`, keeping each name for the picker's own messages."""
        conversation = tuple(messages)
        self._names = {i.id: tool_name(i, conversation) for i in parsed}
        calls: dict[str, dict[str, Any]] = {}
        for interrupt in parsed:
            call: dict[str, Any] = {"name": self._names[interrupt.id]}
            arguments = tool_arguments(interrupt)
            if arguments is not None:
                call["arguments"] = arguments
                call["shown"] = shown_arguments(arguments)
            calls[interrupt.id] = call
        return calls

    def _begin(self, parsed: list[Interrupt], *, expire: bool = True) -> None:
        """Start asking about `parsed` (under the lock, or before anyone else can call)."""
        self._expiring = expire
        self._order = parsed
        self._by_id = {i.id: i for i in parsed}
        self._recorded: dict[str, dict[str, Any]] = {}
        self._entries: list[ResumeEntry] | None = None
        self._unsettled: list[ResumeEntry] | None = None
        self._armed = False
        self._settler: Settler | None = None
        if parsed:
            self._attendance.asking()
        else:
            self._attendance.answered()
        # With no running loop, expiry is still checked on each answer and in wait().
        with contextlib.suppress(RuntimeError):
            self._arm_expiry(asyncio.get_running_loop())

    # -- answering ---------------------------------------------------------------------------

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
        same message shows in the widget. A field the schema closes out (every
        schema the kit builds does; a typo such as `reson`) is refused naming the
        nearest declared field, as a click, a responder and a resume refuse it.

        `identity` is who answers (a name or an `Identity`; default `current_identity()`);
        a call that needs several people refuses, with `NotAllowedToAnswer`, an answer from
        someone its rules do not let answer, or from someone who already did.
        """
        try:
            self._record(interrupt_id, "resolved", payload, by=by, identity=identity)
        finally:
            self._settle()

    def cancel(
        self,
        interrupt_id: str | None = None,
        *,
        by: str = "python",
        identity: str | Identity | None = None,
    ) -> None:
        """Abandon an interrupt (the only answer an expired one accepts)."""
        try:
            self._record(interrupt_id, "cancelled", None, by=by, identity=identity)
        finally:
            self._settle()

    def offer_settling(self, doubts: Mapping[str, str], settler: Settler) -> None:
        """Show the calls in doubt (`{interrupt id: what is known}`) on their cards, with the
        two answers `settle` takes; `settler` records each in the owner's ledger."""
        with self._lock:
            unknown = sorted(set(doubts) - set(self._by_id))
            if unknown:
                raise ValueError(f"no such interrupt open here: {', '.join(unknown)}")
            self._settler = settler
            self.doubts = {**self.doubts, **doubts}

    def settle(
        self, interrupt_id: str, *, ran: bool, output: str | None = None, by: str = "python"
    ) -> None:
        """Settle a call in doubt, as the two answers on its card do.

        `ran=True` with `output`: the call ran (its effect was checked) and `output` is its
        result, recorded in the ledger for the model to read; it never runs again.
        `ran=False`: it did not run; the resume runs it now, once, through the ledger.
        Either is the call's answer (recorded as a decision); refused with `AnswerRefused`
        when the call is not in doubt, and nothing changes when the ledger cannot be reached.
        """
        try:
            self._settle_doubt(interrupt_id, ran, output, by)
        finally:
            self._settle()

    def note_replayed(self, interrupt_ids: Iterable[str]) -> None:
        """Mark answers whose call had already been settled by an earlier answer.

        Their run replayed the recorded result (the call did not run again); the
        summary under each says so. The chat calls this once the resumed run reports.
        """
        with self._lock:
            marked = {
                k: {**record, "outcome": "replayed"}
                for k, record in self._recorded.items()
                if k in set(interrupt_ids) and record.get("outcome") != "replayed"
            }
            if not marked:
                return
            self._recorded.update(marked)
            self.answers = {**self.answers, **marked}

    async def wait(self, timeout: float | None = None) -> list[ResumeEntry]:  # noqa: ASYNC109
        """The resume entries, once every interrupt has an answer.

        Raises `TimeoutError` when `timeout` seconds pass first, and `UnattendedWait` when
        no front end shows up within `unattended_after` seconds (a notebook run with nobody
        to click); the picker keeps waiting for answers either way. Needs ipykernel >= 7.4
        inside a notebook.
        """
        _require_awaitable_kernel()
        loop = asyncio.get_running_loop()
        if in_marimo() and self._entries is None:
            raise CannotWaitHere(
                marimo_way(
                    "`await picker.wait()`",
                    "pass `on_submit=` to InterruptPicker, or feed a `mo.state` setter from "
                    '`picker.observe(fn, names="answers")` and read `picker.entries` in a cell '
                    "that uses that state.",
                )
            )
        with self._lock:
            self._arm_expiry(loop)
            self._sweep_expired()
            if self._entries is not None and self._unsettled is None:
                return list(self._entries)
            # Submitted but not yet settled: the settling thread wakes this future too.
            future: _EntriesFuture = loop.create_future()
            self._waiters.append((loop, future))
        self._settle()
        guarded = self._attendance.guard(future, after=self.unattended_after, what=self._waiting)
        try:
            return await asyncio.wait_for(guarded, timeout)
        except TimeoutError:
            open_count = len(self.open_interrupts)
            raise TimeoutError(
                f"no complete answer within {timeout} s: {open_count} interrupt(s) still open"
            ) from None
        except UnattendedWait as unattended:  # its message says it all; asyncio's frames bury it
            raise unattended.with_traceback(None) from None
        finally:
            future.cancel()  # when it was not fulfilled, nobody waits for it any more

    def _waiting(self) -> str:
        """What waits, for `UnattendedWait`'s message."""
        names = ", ".join(self._names[i.id] for i in self.open_interrupts)
        return f"the picker's question ({names})"

    def close(self) -> None:
        """Close the widget's views and stop its expiry timers."""
        lock = getattr(self, "_lock", None)  # None when __init__ refused its arguments
        if lock is not None:
            with lock:
                timers, self._timers = self._timers, []
            for loop, timer in timers:
                _call_soon(loop, timer.cancel)
        super().close()

    # -- reading -----------------------------------------------------------------------------

    @property
    def submitted(self) -> bool:
        """True once every interrupt had an answer and the entries went out."""
        return self._entries is not None

    @property
    def entries(self) -> list[ResumeEntry] | None:
        """The submitted resume entries, in interrupt order; None until then."""
        with self._lock:
            return None if self._entries is None else list(self._entries)

    @property
    def open_interrupts(self) -> list[Interrupt]:
        """The interrupts still waiting for an answer."""
        with self._lock:
            return [i for i in self._order if i.id not in self._recorded]

    def __repr__(self) -> str:
        with self._lock:
            lines = [self._describe(i) for i in self._order] or [_NOTHING_ASKED]
            if self.status == "error" and self.error:
                lines.append(f"Error: {self.error}")
        return "\n".join(lines)

    # -- internals ---------------------------------------------------------------------------

    def _record(
        self,
        interrupt_id: str | None,
        status: AnswerStatus,
        payload: Any,
        *,
        by: str,
        identity: str | Identity | None = None,
    ) -> None:
        """Record one answer (submitting when it completes the set) or raise `AnswerRefused`.

        The caller settles a submission with `_settle()` once the lock is released.
        """
        if not isinstance(by, str) or not by:
            raise ValueError("`by` must name who answered, e.g. 'responder:approve_all'")
        with self._lock:
            self._sweep_expired()
            answered_here = interrupt_id is not None and interrupt_id in self._recorded
            if self._entries is not None and not answered_here:
                raise AnswerRefused(self._late())
            interrupt = self._target(interrupt_id)
            label = self._names[interrupt.id]
            if interrupt.id in self.doubts and interrupt.id not in self._recorded:
                raise AnswerRefused(
                    f"{label} may have run already (its run ended before recording a result): "
                    f"say whether it did with settle({interrupt.id!r}, ran=True, output=...) "
                    f"or settle({interrupt.id!r}, ran=False); nothing was changed"
                )
            earlier = self._recorded.get(interrupt.id)
            if earlier is not None and earlier["by"] == ANSWERED_BY_EXPIRY:
                raise AnswerRefused(too_late(label, interrupt.expires_at, earlier["status"]))
            if earlier is not None:
                sent = "; the answers were already submitted" if self._entries is not None else ""
                raise AnswerRefused(
                    f"{label} was already answered elsewhere ({_decision(earlier)}, by "
                    f"{earlier['by']}){sent}; nothing was changed"
                )
            who = answering_identity(by, identity)
            if status == "resolved":
                self._check_resolvable(interrupt, payload)
                self._check_people(interrupt, payload, who)
            self._store(interrupt, status, payload, by=by, identity=who.to_wire())
            self._submit_if_complete()

    def _late(self) -> str:
        """Why an answer naming no interrupt, after the submission, changes nothing: the
        questions whose time ran out say so, and when."""
        expired = [i for i in self._order if self._recorded[i.id]["by"] == ANSWERED_BY_EXPIRY]
        if len(expired) == 1 and len(self._order) == 1:
            only = expired[0]
            status = self._recorded[only.id]["status"]
            return too_late(self._names[only.id], only.expires_at, status)
        if not expired:
            return "the answers were already submitted; nothing was changed"
        when = ", ".join(f"{self._names[i.id]} at {i.expires_at}" for i in expired)
        if len(expired) == len(self._order):
            return f"the questions expired ({when}) and were cancelled; nothing was changed"
        return (
            f"the answers were already submitted, and some questions expired ({when}) and "
            "were cancelled; nothing was changed"
        )

    def _settle_doubt(self, interrupt_id: str, ran: bool, output: str | None, by: str) -> None:
        with self._lock:
            settler = self._settler
            if interrupt_id not in self.doubts or settler is None:
                raise AnswerRefused(f"{interrupt_id!r} is not a call in doubt; nothing was changed")
            interrupt = self._by_id[interrupt_id]
            label = self._names[interrupt_id]
            try:
                payload, settled = settled_answer(settler, interrupt, label, ran, output, by)
            except NotInDoubt as exc:  # settled elsewhere: it is answered as usual again
                self.doubts = {k: v for k, v in self.doubts.items() if k != interrupt_id}
                raise self._refusal(interrupt, str(exc)) from None
            except AnswerRefused as exc:
                raise self._refusal(interrupt, str(exc)) from None
            with self.hold_sync():
                self.doubts = {k: v for k, v in self.doubts.items() if k != interrupt_id}
                self._store(interrupt, "resolved", payload, by=by, **settled)
            self._submit_if_complete()

    def _refusal(self, interrupt: Interrupt, message: str) -> AnswerRefused:
        """`AnswerRefused(message)`, shown on the card of `interrupt`."""
        self.errors = {**self.errors, interrupt.id: [{"path": "", "message": message}]}
        self.error = message
        return AnswerRefused(message)

    def _target(self, interrupt_id: str | None) -> Interrupt:
        if interrupt_id is not None:
            found = self._by_id.get(interrupt_id)
            if found is None:
                raise AnswerRefused(f"unknown interrupt id {interrupt_id!r}")
            return found
        if not self._order:
            raise AnswerRefused(
                "nothing is asked yet: this picker answers once it shows a question"
            )
        still_open = [i for i in self._order if i.id not in self._recorded]
        if len(still_open) != 1:
            names = ", ".join(f"{self._names[i.id]} ({i.id})" for i in still_open)
            raise AnswerRefused(
                f"{len(still_open)} interrupts are open ({names}): pass interrupt_id to say which"
            )
        return still_open[0]

    def _check_people(self, interrupt: Interrupt, payload: Any, who: Identity) -> None:
        """Refuse an answer the call's rules about people would not count, with the reason."""
        approved = isinstance(payload, Mapping) and payload.get("approved") is True
        reason = refusal(interrupt.metadata, who, approved, datetime.now(UTC))
        if reason is not None:
            message = f"{self._names[interrupt.id]}: {reason}"
            self.error = message
            raise NotAllowedToAnswer(message)

    def _check_resolvable(self, interrupt: Interrupt, payload: Any) -> None:
        label = self._names[interrupt.id]
        if is_expired(interrupt):
            raise AnswerRefused(
                f"{label} expired at {interrupt.expires_at}; it can only be cancelled"
            )
        try:
            json.dumps(payload, allow_nan=False)
        except (TypeError, ValueError) as exc:
            raise AnswerRefused(f"{label}: the answer must be plain JSON ({exc})") from None
        problems = validate_payload(interrupt.response_schema, payload)
        if problems:
            message = f"{label}: {describe(problems)}"
            self.errors = {**self.errors, interrupt.id: errors_to_wire(problems)}
            self.error = message
            raise AnswerRefused(message, problems)

    def _store(
        self, interrupt: Interrupt, status: AnswerStatus, payload: Any, *, by: str, **more: Any
    ) -> None:
        at = datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
        record = {"status": status, "payload": payload, "by": by, "at": at, **more}
        self._recorded[interrupt.id] = record
        with self.hold_sync():
            self.answers = {**self.answers, interrupt.id: record}
            if interrupt.id in self.errors:
                self.errors = {k: v for k, v in self.errors.items() if k != interrupt.id}
            self.error = ""

    def _submit_if_complete(self) -> None:
        if not self._order:
            return  # nothing asked yet
        if self._entries is not None or len(self._recorded) < len(self._order):
            return
        self._entries = [
            ResumeEntry(
                interrupt_id=i.id,
                status=self._recorded[i.id]["status"],
                payload=self._recorded[i.id]["payload"],
            )
            for i in self._order
        ]
        self._attendance.answered()
        all_expired = all(r["by"] == ANSWERED_BY_EXPIRY for r in self._recorded.values())
        self.status = "expired" if all_expired else "submitted"
        for loop, timer in self._timers:
            _call_soon(loop, timer.cancel)
        self._timers.clear()
        self._unsettled = list(self._entries)

    def _sweep_expired(self) -> None:
        """Cancel every unanswered interrupt whose time ran out."""
        with self._lock:
            if self._entries is not None or not self._expiring:
                return
            now = datetime.now(UTC)
            for interrupt in self._order:
                # A call in doubt waits for a person's word on it, deadline or not.
                waiting = interrupt.id not in self._recorded and interrupt.id not in self.doubts
                if waiting and is_expired(interrupt, now):
                    self._store(interrupt, "cancelled", None, by=ANSWERED_BY_EXPIRY)
            self._submit_if_complete()

    def _settle(self) -> None:
        """Deliver a submission, once, outside the lock: the callback, then the waiters."""
        with self._lock:
            entries, self._unsettled = self._unsettled, None
        if entries is None:
            return
        if self._on_submit is not None:
            try:
                self._on_submit(list(entries))
            except Exception as exc:  # shown in the widget: a print from here may be lost
                _log.exception("on_submit failed")
                self.error = f"on_submit failed: {type(exc).__name__}: {exc}"
                self.status = "error"
        with self._lock:
            waiters, self._waiters = self._waiters, []
        for loop, future in waiters:
            _call_soon(loop, _fulfil, future, list(entries))

    def _arm_expiry(self, loop: asyncio.AbstractEventLoop) -> None:
        with self._lock:
            if self._armed or self._entries is not None or not self._expiring:
                return
            self._armed = True
            now = datetime.now(UTC)
            for interrupt in self._order:
                if interrupt.expires_at and interrupt.id not in self._recorded:
                    delay = (parse_instant(interrupt.expires_at) - now).total_seconds()
                    timer = loop.call_later(max(delay, 0.0), self._on_expiry_timer)
                    self._timers.append((loop, timer))

    def _on_expiry_timer(self) -> None:
        self._sweep_expired()
        self._settle()

    def _on_front_end_message(self, _widget: object, content: Any, _buffers: object) -> None:
        try:
            request = parse_front_end_message(content)
        except ProtocolError as exc:
            _log.warning("ignored a picker message: %s", exc)
            if exc.request_id is not None:
                self.send(answer_result_to_wire(AnswerResult(exc.request_id, False, str(exc))))
            return
        if isinstance(request, Attached):
            self._attendance.attach()
            return
        try:
            if isinstance(request, Settle):
                self._settle_doubt(request.id, request.ran, request.output, request.by)
            else:
                self._record(request.interrupt_id, request.status, request.payload, by=request.by)
        except AnswerRefused as exc:
            reply = AnswerResult(request.request_id, False, str(exc), exc.errors)
        else:
            reply = AnswerResult(request.request_id, True)
        try:
            self.send(answer_result_to_wire(reply))
        finally:
            self._settle()

    def _describe(self, interrupt: Interrupt) -> str:
        record = self._recorded.get(interrupt.id)
        return f"Interrupt {self._names[interrupt.id]}: {_decision(record)}"


def _decision(record: Mapping[str, Any] | None) -> str:
    """How one answer reads in the text repr (no ids, no times: stable for nbval)."""
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


def _checked(interrupts: Iterable[Interrupt | Mapping[str, Any]]) -> list[Interrupt]:
    """The interrupts as models, refused whole when empty, repeated or badly timed."""
    parsed = interrupts_from_wire(interrupts)
    if not parsed:
        raise ValueError("InterruptPicker needs at least one interrupt")
    ids = [i.id for i in parsed]
    duplicates = sorted({i for i in ids if ids.count(i) > 1})
    if duplicates:
        raise ValueError(f"interrupt ids must be unique; repeated: {', '.join(duplicates)}")
    for interrupt in parsed:
        _check_deadline(interrupt)
    return parsed


def _check_deadline(interrupt: Interrupt) -> None:
    if interrupt.expires_at is None:
        return
    try:
        parse_instant(interrupt.expires_at)
    except ValueError:
        raise ValueError(
            f"interrupt {interrupt.id!r}: expires_at {interrupt.expires_at!r} "
            "is not an ISO 8601 instant"
        ) from None


def renderer_source(value: str | pathlib.Path) -> str:
    """A custom renderer's ES module source, from a path or the source itself."""
    if isinstance(value, pathlib.Path):
        return value.read_text(encoding="utf-8")
    looks_like_path = "\n" not in value and value.strip().endswith((".js", ".mjs"))
    if looks_like_path:
        return pathlib.Path(value.strip()).read_text(encoding="utf-8")
    return value


def _fulfil(future: _EntriesFuture, entries: list[ResumeEntry]) -> None:
    if not future.done():
        future.set_result(entries)


def _call_soon(
    loop: asyncio.AbstractEventLoop, callback: Callable[..., object], *args: Any
) -> None:
    with contextlib.suppress(RuntimeError):  # a closed loop has nobody left to wake
        loop.call_soon_threadsafe(callback, *args)


def _kernel_version() -> tuple[int, int] | None:
    """ipykernel's version when this process is an ipykernel kernel, else None."""
    if "ipykernel" not in sys.modules:
        return None
    try:
        parts = metadata.version("ipykernel").split(".")
        return int(parts[0]), int(parts[1])
    except (metadata.PackageNotFoundError, ValueError, IndexError):
        return None


def _in_kernel() -> bool:
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None else None
    return getattr(shell, "kernel", None) is not None


def _old_kernel_message(version: tuple[int, int]) -> str:
    return (
        f"ipykernel {version[0]}.{version[1]} cannot handle a widget click while a cell awaits, "
        "so `await picker.wait()` would never return; upgrade to ipykernel>=7.4 "
        "(or use on_submit=...)"
    )


def _require_awaitable_kernel() -> None:
    version = _kernel_version()
    if version is not None and version < _MIN_KERNEL and _in_kernel():
        raise RuntimeError(_old_kernel_message(version))


def _warn_if_old_kernel() -> None:
    version = _kernel_version()
    if version is not None and version < _MIN_KERNEL and _in_kernel():
        warnings.warn(_old_kernel_message(version), RuntimeWarning, stacklevel=3)


_warn_if_old_kernel()
