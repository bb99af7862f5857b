"""`ExpiryTimer`: the one timer that gives open questions their default answers on time.

`OpenQuestions` holds no timer: it says when its next question expires
(`next_deadline()`) and expires what is due (`expire()`). A view of the questions
(the picker, a batch row) keeps one `ExpiryTimer` for them: `arm(loop)` sets a
timer on `loop` for the next deadline; when it fires, the questions expire what is
due, the view hears of it (`on_expired`), and the timer is set again for the next
deadline, if any. `stop()` cancels it for good: a view asking other questions makes
a new timer for them.

The picker arms and stops from the kernel's comm thread and from the event loop, so
the timer's own state holds a lock; it is never held while the questions are asked
or the view is called, so it cannot wait on the view's lock while the view waits on it.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable

from interrupt_widget import clock
from interrupt_widget.asking.open_questions import OpenQuestions


class ExpiryTimer:
    """One timer for the next deadline of `questions` (see the module docs)."""

    def __init__(
        self, questions: OpenQuestions, on_expired: Callable[[], object] | None = None
    ) -> None:
        """`on_expired`: called after each firing's `expire()`, whether it expired anything
        or raised; it may `stop()` the timer, which then is not set again."""
        self._questions = questions
        self._on_expired = on_expired
        self._lock = threading.Lock()
        self._armed: tuple[asyncio.AbstractEventLoop, asyncio.TimerHandle] | None = None
        self._stopped = False

    @property
    def armed(self) -> bool:
        """True while a timer is set."""
        with self._lock:
            return self._armed is not None

    def arm(self, loop: asyncio.AbstractEventLoop) -> None:
        """Set the timer on `loop` (from its own thread) for the next deadline; nothing
        when one is set already (on the first loop seen), none is due, or it was stopped."""
        when = self._questions.next_deadline()
        if when is None:
            return
        with self._lock:
            if self._armed is not None or self._stopped:
                return
            delay = max((when - clock.now()).total_seconds(), 0.0)
            self._armed = (loop, loop.call_later(delay, self._fire))

    def stop(self) -> None:
        """Cancel the timer, from any thread; it is set no more."""
        with self._lock:
            armed, self._armed = self._armed, None
            self._stopped = True
        if armed is not None:
            _cancel(*armed)

    def _fire(self) -> None:
        with self._lock:
            if self._stopped:  # stopped from another thread while this was on its way
                return
            self._armed = None
        try:
            self._questions.expire()
        finally:
            if self._on_expired is not None:
                self._on_expired()
        self.arm(asyncio.get_running_loop())  # the next question's deadline, if any


def _cancel(loop: asyncio.AbstractEventLoop, timer: asyncio.TimerHandle) -> None:
    """Cancel `timer` at once on its loop's thread, else through the loop."""
    try:
        here: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
    except RuntimeError:
        here = None
    if here is loop:
        timer.cancel()
        return
    with contextlib.suppress(RuntimeError):  # a closed loop runs nothing more
        loop.call_soon_threadsafe(timer.cancel)
