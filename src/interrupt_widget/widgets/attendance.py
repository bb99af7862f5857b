"""Whether anyone could answer a widget's question, and failing fast when nobody could.

A front end with a widget manager (JupyterLab, Notebook 7, VS Code) creates a widget's
model as soon as its comm opens, shown or not; anywidget then runs the bundle's
`initialize`, which sends `{"type": "attached"}` (a view's `hello` counts too). nbval,
nbclient, papermill and `jupyter nbconvert --execute` have no widget manager: no model is
created and nothing is ever sent. A cell awaiting an answer there used to wait until the
runner's own timeout, which says nothing of why; instead it raises `UnattendedWait` once
a question has waited `unattended_after` seconds, counted from the later of the question
and the await (so a front end creating the widget in that same cell has the time to say
so), with no front end ever heard from. What waits is left open: an answer still resumes it.

The front end's part is `js/attached.ts`; each widget's protocol module parses the message.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final, TypeVar

from interrupt_widget.errors import UnattendedWait

__all__ = [
    "ATTACHED",
    "UNATTENDED_AFTER",
    "WAYS_OUT",
    "Attached",
    "Attendance",
    "UnattendedWait",
    "attached_to_wire",
    "unattended_message",
]

UNATTENDED_AFTER: Final = 5.0
"""Seconds a question may wait for a person, with no front end heard from, before the cell
that awaits it raises `UnattendedWait` (each widget's `unattended_after`; None: never)."""

ATTACHED: Final = "attached"
"""`type` of the message a front end sends when it creates a widget's model."""

WAYS_OUT: Final = (
    "For a run with nobody watching, set a responder: INTERRUPT_WIDGET_RESPONDER=approve_all "
    "(or replay:<decision file>), or responder=responders.approve_all() where the run is "
    "made; or replay a recorded run: the model from a cassette "
    "(INTERRUPT_WIDGET_CASSETTE=<file>, or cassette=Cassette(<file>)) and the answers from "
    "its decision file (INTERRUPT_WIDGET_RESPONDER=replay:<decision file>)."
)
"""The two ways to run a notebook that asks questions with no person: said wherever it stalls."""

_T = TypeVar("_T")


@dataclass(frozen=True)
class Attached:
    """A front end created this widget's model (its `initialize` ran): a person could answer."""


def attached_to_wire() -> dict[str, str]:
    """The message as the front end sends it (`js/attached.ts`)."""
    return {"type": ATTACHED}


def unattended_message(what: str, after: float) -> str:
    """`UnattendedWait`'s message: what waits, why nobody can answer, and the ways out."""
    return (
        f"Nobody can answer {what}: no responder is set and no front end has shown up in "
        f"{after:g} s (a notebook run by nbval, nbclient, papermill or `jupyter nbconvert "
        f"--execute` has none). {WAYS_OUT} Nothing was cancelled: the question stays open, "
        "and an answer still resumes the run."
    )


class Attendance:
    """One widget's "could a person answer here?": whether a front end announced itself, and
    since when a question has waited for a person.

    Thread-safe: comm handlers may run on a kernel subshell thread. Awaiting coroutines are
    woken on the loops they run on.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._attached = False
        self._asked_at: float | None = None
        self._wakers: list[tuple[asyncio.AbstractEventLoop, asyncio.Event]] = []

    @property
    def attached(self) -> bool:
        """True once a front end said it holds the widget (for good: it never fails after)."""
        return self._attached

    def attach(self) -> None:
        """A front end announced itself (`attached`, or a view's `hello`)."""
        with self._lock:
            self._attached = True
        self._wake()

    def asking(self) -> None:
        """A question now waits for a person (no change while one already does)."""
        with self._lock:
            if self._asked_at is not None:
                return
            self._asked_at = time.monotonic()
        self._wake()

    def answered(self) -> None:
        """Nothing waits for a person any more."""
        with self._lock:
            self._asked_at = None

    async def guard(
        self, work: asyncio.Future[_T], *, after: float | None, what: Callable[[], str]
    ) -> _T:
        """`work`'s result; or `UnattendedWait` once a question has waited `after` seconds
        (from the later of its asking and this call) with no front end heard from.

        Never cancels `work`, whether this raises or is cancelled.
        """
        loop = asyncio.get_running_loop()
        began = time.monotonic()
        changed = asyncio.Event()
        waker = (loop, changed)
        with self._lock:
            self._wakers.append(waker)
        try:
            while after is not None and not work.done() and not self._attached:
                changed.clear()  # before reading the state, so a change after it wakes us
                left = self._left(after, began)
                if left is not None and left <= 0:
                    raise UnattendedWait(unattended_message(what(), after))
                woken = asyncio.ensure_future(changed.wait())
                watched: set[asyncio.Future[Any]] = {work, woken}
                try:  # asyncio.wait cancels neither `work` nor the watch
                    await asyncio.wait(watched, timeout=left, return_when=asyncio.FIRST_COMPLETED)
                finally:
                    woken.cancel()
        finally:
            with self._lock:
                self._wakers.remove(waker)
        return await asyncio.shield(work)

    def _left(self, after: float, began: float) -> float | None:
        """Seconds until the open question, asked before or after `began`, has waited
        `after` seconds of this wait; None while nothing is asked."""
        asked_at = self._asked_at
        if asked_at is None:
            return None
        return max(asked_at, began) + after - time.monotonic()

    def _wake(self) -> None:
        with self._lock:
            wakers = list(self._wakers)
        for loop, event in wakers:
            with contextlib.suppress(RuntimeError):  # a closed loop has nobody left to wake
                loop.call_soon_threadsafe(event.set)
