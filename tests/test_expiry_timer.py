"""`ExpiryTimer` on its own, with `OpenQuestions` and no widget: each deadline fires in
turn, a firing after the answer changes nothing, and a stopped timer, stopped from any
thread, gives no answer. The picker's and a batch row's own tests cover it in place."""

from __future__ import annotations

import asyncio
import threading
from datetime import UTC, datetime, timedelta

from ag_ui.core import Interrupt

from interrupt_widget.agui.interrupts import ANSWERED_BY_EXPIRY
from interrupt_widget.asking import ExpiryTimer, OpenQuestions
from interrupt_widget.clock import utc_text


def asked(interrupt_id: str, seconds: float) -> Interrupt:
    when = datetime.now(UTC) + timedelta(seconds=seconds)
    return Interrupt(id=interrupt_id, reason="confirm", expires_at=utc_text(when))


async def test_each_deadline_fires_in_turn_and_the_view_hears_of_each() -> None:
    questions = OpenQuestions([asked("a", 0.05), asked("b", 0.15)])
    both = asyncio.Event()
    heard: list[int] = []

    def expired() -> None:
        heard.append(len(questions.records))
        if len(questions.records) == 2:
            both.set()

    timer = ExpiryTimer(questions, on_expired=expired)
    timer.arm(asyncio.get_running_loop())
    assert timer.armed
    await asyncio.wait_for(both.wait(), timeout=10)
    assert heard == [1, 2]
    assert questions.status == "expired"
    assert {r["by"] for r in questions.records.values()} == {ANSWERED_BY_EXPIRY}
    assert not timer.armed  # nothing is left to expire


async def test_a_firing_after_the_answer_changes_nothing_and_sets_no_timer() -> None:
    questions = OpenQuestions([asked("a", 60)])
    heard: list[str] = []
    timer = ExpiryTimer(questions, on_expired=lambda: heard.append("expired"))
    timer.arm(asyncio.get_running_loop())
    questions.answer("a", "resolved", True, by="python")
    timer._fire()  # as if the timer fired late, racing the answer
    assert questions.records["a"]["by"] == "python"
    assert heard == ["expired"]
    assert not timer.armed
    timer.stop()


async def test_a_stopped_timer_gives_no_answer_even_when_its_firing_was_on_its_way() -> None:
    questions = OpenQuestions([asked("a", -1)])  # already due
    timer = ExpiryTimer(questions)
    timer.arm(asyncio.get_running_loop())
    timer.stop()
    timer._fire()
    timer.arm(asyncio.get_running_loop())  # a stopped timer is set no more
    assert not timer.armed
    assert questions.status == "waiting"


async def test_stopping_from_another_thread_cancels_the_timer_on_its_loop() -> None:
    questions = OpenQuestions([asked("a", 60)])
    timer = ExpiryTimer(questions)
    timer.arm(asyncio.get_running_loop())
    assert timer._armed is not None
    handle = timer._armed[1]
    stopper = threading.Thread(target=timer.stop)
    stopper.start()
    stopper.join(timeout=10)
    assert not timer.armed
    await asyncio.sleep(0)  # one turn of the loop runs the cancel it was handed
    assert handle.cancelled()
