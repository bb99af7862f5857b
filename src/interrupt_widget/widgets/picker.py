"""`InterruptPicker`: the notebook widget that asks a person to answer AG-UI interrupts.

One picker shows one or more interrupts and collects an answer for each, from
a click in any view or from Python (`resolve` / `cancel`, which headless
responders use too). The picker is a view: its `OpenQuestions` checks each
answer (the interrupt's `response_schema`, its deadline, the rules about
people), records it once and submits exactly once; the picker turns that state
into traits, and `await picker.wait()` returns the resume entries and
`on_submit` receives them.

Comm handlers may run on a kernel subshell thread, so the picker and its
questions share one lock, and waiting coroutines are woken on the loop they
were created on.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import pathlib
import sys
import threading
import warnings
from collections.abc import Callable, Iterable, Mapping
from importlib import metadata
from typing import Any

import anywidget
import traitlets
from ag_ui.core import Interrupt, Message, ResumeEntry

from interrupt_widget.agui.canonical import shown_arguments
from interrupt_widget.agui.interrupts import tool_arguments
from interrupt_widget.agui.wire import interrupts_from_wire, to_wire
from interrupt_widget.asking import ExpiryTimer, OpenQuestions, QuestionsView, answer_words
from interrupt_widget.clock import parse_instant
from interrupt_widget.errors import AnswerRefused, CannotWaitHere, UnattendedWait
from interrupt_widget.widgets._bundle import (
    CSS,
    ESM,
    WantsCode,
    owned_module,
    widget_code,
    widget_module,
)
from interrupt_widget.widgets.attendance import UNATTENDED_AFTER, Attached, Attendance
from interrupt_widget.widgets.awaiting import in_marimo, marimo_way
from interrupt_widget.widgets.closing import close_layout_of
from interrupt_widget.widgets.picker_protocol import (
    AnswerResult,
    ProtocolError,
    Settle,
    answer_result_to_wire,
    errors_to_wire,
    parse_front_end_message,
)

__all__ = ["AnswerRefused", "InterruptPicker"]

_log = logging.getLogger(__name__)
_MIN_KERNEL = (7, 4)

_NOTHING_ASKED = "InterruptPicker: nothing asked yet"
SubmitCallback = Callable[[list[ResumeEntry]], object]
_EntriesFuture = asyncio.Future[list[ResumeEntry]]


class InterruptPicker(QuestionsView, anywidget.AnyWidget):
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

    _esm = traitlets.Unicode().tag(sync=True)  # `_bundle.widget_module`
    _css = traitlets.Unicode().tag(sync=True)

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
    run_link = traitlets.Unicode("").tag(sync=True)
    """Where the conversation's runs can be seen (a `TemporalAgent`'s Web UI), or empty. It
    is the conversation's, not a question's: no interrupt carries it, so the checks of a
    saved question never see it. A card draws it as a link only when it is http(s)."""

    def __init__(
        self,
        interrupts: Iterable[Interrupt | Mapping[str, Any]] | None,
        *,
        renderers: Mapping[str, str | pathlib.Path] | None = None,
        on_submit: SubmitCallback | None = None,
        messages: Iterable[Message] = (),
        owner: anywidget.AnyWidget | None = None,
        signed: bool = False,
    ) -> None:
        """`interrupts`: at least one; None for a picker that asks nothing until `reset`.

        `messages`: the conversation the interrupts come from, which names the tool
        of an interrupt that only points at its call (`tool_call_id`).
        `owner`: a widget whose module draws this picker (the chat that holds it); the
        picker then carries a few lines that load the owner's module, not a copy of it.
        `signed`: each resume entry carries who answered (`metadata.by` and
        `metadata.identity`), for a run that records it.
        """
        parsed = [] if interrupts is None else _checked(interrupts)
        self._lock = threading.RLock()
        self._signed = signed
        self._failure = ""
        self._questions = self._ask(parsed, messages, expire=True)
        module = widget_module(ESM, CSS)
        if owner is not None:
            module["_esm"] = owned_module(owner.model_id)
        # Passed to the constructor so the opening message already carries them.
        super().__init__(
            **module,
            interrupts=[to_wire(i) for i in parsed],
            renderers={str(k): renderer_source(v) for k, v in (renderers or {}).items()},
            calls=_calls(self._questions),
        )
        self._on_submit = on_submit
        self._waiters: list[tuple[asyncio.AbstractEventLoop, _EntriesFuture]] = []
        self._attendance = Attendance()
        self._begin()
        self.on_msg(self._on_front_end_message)
        self._questions.expire()

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
            self._expiry.stop()
            self._questions.withdraw()
            self._questions = self._ask(parsed, messages, expire=expire)
            self._failure = ""
            with self.hold_sync():
                self.interrupts = [to_wire(i) for i in parsed]
                self.calls = _calls(self._questions)
                self._sync()
            self._begin()
        self._questions.expire()

    def _ask(
        self, parsed: list[Interrupt], messages: Iterable[Message], *, expire: bool
    ) -> OpenQuestions:
        """The open questions this picker shows, answered under its lock."""

        def submitted(entries: list[ResumeEntry]) -> None:
            if questions is self._questions:  # not a set `reset` replaced meanwhile
                self._submitted(entries)

        questions = OpenQuestions(
            parsed,
            messages=messages,
            on_change=self._sync,
            on_submit=submitted,
            expire=expire,
            signed=self._signed,
            lock=self._lock,
        )
        return questions

    def _begin(self) -> None:
        """Start asking (under the lock, or before anyone else can call), with one expiry
        timer for these questions."""
        self._expiry = ExpiryTimer(self._questions)
        if self._questions.interrupts:
            self._attendance.asking()
        else:
            self._attendance.answered()
        # With no running loop, expiry is still checked on each answer and in wait().
        with contextlib.suppress(RuntimeError):
            self._expiry.arm(asyncio.get_running_loop())

    # -- answering ---------------------------------------------------------------------------

    def note_replayed(self, interrupt_ids: Iterable[str]) -> None:
        """Mark answers whose call had already been settled by an earlier answer.

        Their run replayed the recorded result (the call did not run again); the
        summary under each says so. The chat calls this once the resumed run reports.
        """
        self._questions.note_replayed(interrupt_ids)

    async def wait(self, timeout: float | None = None) -> list[ResumeEntry]:  # noqa: ASYNC109
        """The resume entries, once every interrupt has an answer.

        Raises `TimeoutError` when `timeout` seconds pass first, and `UnattendedWait` when
        no front end shows up within `unattended_after` seconds (a notebook run with nobody
        to click); the picker keeps waiting for answers either way. Needs ipykernel >= 7.4
        inside a notebook.
        """
        _require_awaitable_kernel()
        loop = asyncio.get_running_loop()
        if in_marimo() and self._questions.entries is None:
            raise CannotWaitHere(
                marimo_way(
                    "`await picker.wait()`",
                    "pass `on_submit=` to InterruptPicker, or feed a `mo.state` setter from "
                    '`picker.observe(fn, names="answers")` and read `picker.entries` in a cell '
                    "that uses that state.",
                )
            )
        with self._lock:
            self._expiry.arm(loop)
        self._questions.expire()
        with self._lock:
            entries = self._questions.entries
            if entries is not None and self._questions.delivered:
                return entries
            # Submitted but not yet delivered: the delivering thread wakes this future too.
            future: _EntriesFuture = loop.create_future()
            self._waiters.append((loop, future))
        self._questions.deliver()
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
        names = self._questions.names
        shown = ", ".join(names[i.id] for i in self.open_interrupts)
        return f"the picker's question ({shown})"

    def close(self) -> None:
        """Close the widget's views and stop its expiry timers."""
        if getattr(self, "_expiry", None) is not None:  # None when __init__ refused its arguments
            with self._lock:
                self._expiry.stop()
        super().close()
        close_layout_of(self)

    # -- reading -----------------------------------------------------------------------------

    @property
    def submitted(self) -> bool:
        """True once every interrupt had an answer and the entries went out."""
        return self._questions.entries is not None

    @property
    def entries(self) -> list[ResumeEntry] | None:
        """The submitted resume entries, in interrupt order; None until then."""
        return self._questions.entries

    def __repr__(self) -> str:
        with self._lock:
            questions = self._questions
            names = questions.names
            lines = [
                f"Interrupt {names[i.id]}: {answer_words(questions.record(i.id))}"
                for i in questions.interrupts
            ] or [_NOTHING_ASKED]
            if self.status == "error" and self.error:
                lines.append(f"Error: {self.error}")
        return "\n".join(lines)

    # -- internals ---------------------------------------------------------------------------

    def _sync(self) -> None:
        """Turn the open questions' state into traits (under the lock)."""
        questions = self._questions
        refusals = questions.refusals
        with self.hold_sync():
            self.answers = questions.records
            self.errors = {
                k: errors_to_wire(list(r.problems)) for k, r in refusals.items() if r.problems
            }
            self.doubts = questions.doubts
            self.error = self._failure or questions.error
            self.status = "error" if self._failure else questions.status

    def _submitted(self, entries: list[ResumeEntry]) -> None:
        """Deliver a submission, outside the lock: the callback, then the waiters."""
        with self._lock:
            self._attendance.answered()
            self._expiry.stop()
        if self._on_submit is not None:
            try:
                self._on_submit(list(entries))
            except Exception as exc:  # shown in the widget: a print from here may be lost
                _log.exception("on_submit failed")
                with self._lock:
                    self._failure = f"on_submit failed: {type(exc).__name__}: {exc}"
                    self._sync()
        with self._lock:
            waiters, self._waiters = self._waiters, []
        for loop, future in waiters:
            _call_soon(loop, _fulfil, future, list(entries))

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
        if isinstance(request, WantsCode):
            self.send(widget_code(ESM, CSS))
            return
        questions = self._questions
        try:
            if isinstance(request, Settle):
                questions.settle(request.id, ran=request.ran, output=request.output, by=request.by)
            else:
                questions.answer(
                    request.interrupt_id, request.status, request.payload, by=request.by
                )
        except AnswerRefused as exc:
            reply = AnswerResult(request.request_id, False, str(exc), exc.errors)
        else:
            reply = AnswerResult(request.request_id, True)
        self.send(answer_result_to_wire(reply))


def _calls(questions: OpenQuestions) -> dict[str, dict[str, Any]]:
    """The `calls` trait: each interrupt's tool as the questions name it, and its arguments."""
    names = questions.names
    calls: dict[str, dict[str, Any]] = {}
    for interrupt in questions.interrupts:
        call: dict[str, Any] = {"name": names[interrupt.id]}
        arguments = tool_arguments(interrupt)
        if arguments is not None:
            call["arguments"] = arguments
            call["shown"] = shown_arguments(arguments)
        calls[interrupt.id] = call
    return calls


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
