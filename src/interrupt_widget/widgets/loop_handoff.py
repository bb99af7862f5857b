"""Handing a widget's work to its event loop, from whichever thread the comm calls on.

A front end's message arrives on the kernel's comm thread, which may not be the
thread whose event loop runs the widget's tasks; the widgets handle every
message on that loop, so their state changes in one place.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any


def running_loop() -> asyncio.AbstractEventLoop | None:
    """The event loop running in this thread, or None."""
    try:
        return asyncio.get_running_loop()
    except RuntimeError:
        return None


def on_loop(
    loop: asyncio.AbstractEventLoop | None, callback: Callable[..., object], *args: Any
) -> None:
    """`callback(*args)` on `loop`: at once when this thread runs it, or when there is no
    open loop to hand it to; else handed over, to run there soon."""
    if loop is not None and running_loop() is not loop and not loop.is_closed():
        loop.call_soon_threadsafe(callback, *args)
    else:
        callback(*args)


def comm_handler(
    loop_of: Callable[[], asyncio.AbstractEventLoop | None], handle: Callable[[Any], object]
) -> Callable[[object, Any, object], None]:
    """A widget's `on_msg` callback: each message's content goes to `handle` on the loop
    `loop_of()` names when it arrives (see `on_loop`)."""

    def on_message(_widget: object, content: Any, _buffers: object) -> None:
        on_loop(loop_of(), handle, content)

    return on_message
