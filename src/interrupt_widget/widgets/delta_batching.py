"""Batching a run's events into a few custom messages a second for the front end.

A streamed reply arrives as thousands of tiny deltas. Sending each one, or
re-sending a growing traitlet, swamps the browser; instead consecutive deltas
of one text message (or one tool call's arguments) are merged and the batch is
flushed at most every `interval` seconds, and at once when the run ends.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterable
from typing import Any

from ag_ui.core import (
    BaseEvent,
    EventType,
    TextMessageContentEvent,
    ToolCallArgsEvent,
)

from interrupt_widget.agui.wire import JsonDict, to_wire
from interrupt_widget.widgets.chat_protocol import events_to_wire

DEFAULT_INTERVAL = 0.04
"""Seconds between flushes: 25 a second, inside the 20-30 the browser keeps up with."""

_TERMINAL = frozenset({EventType.RUN_FINISHED, EventType.RUN_ERROR})


def coalesce(events: Iterable[BaseEvent]) -> list[JsonDict]:
    """Events as camelCase wire JSON, consecutive deltas of one message merged into one.

    Deltas are merged before they are serialised, so a long reply costs one
    join, not one pydantic dump per chunk.
    """
    out: list[JsonDict] = []
    parts: list[str] = []
    run_key: tuple[EventType, str] | None = None

    def close_run() -> None:
        if run_key is not None:
            out[-1]["delta"] = "".join(parts)

    for event in events:
        key: tuple[EventType, str] | None = None
        delta = ""
        if isinstance(event, TextMessageContentEvent):
            key, delta = (EventType.TEXT_MESSAGE_CONTENT, event.message_id), event.delta
        elif isinstance(event, ToolCallArgsEvent):
            key, delta = (EventType.TOOL_CALL_ARGS, event.tool_call_id), event.delta
        if key is not None and key == run_key:
            parts.append(delta)
            continue
        close_run()
        parts = [delta]
        run_key = key
        out.append(to_wire(event))  # a run of deltas: its first event, its delta joined later
    close_run()
    return out


class EventBatcher:
    """Collects events and hands them to `send` as merged batches.

    Use from the event loop's thread only. A flush happens when `interval` has
    passed since the last one (checked on every push, so a producer that never
    yields still gets flushed), on a timer for the trailing events, at once on
    RUN_FINISHED / RUN_ERROR, and on `flush()`.
    """

    def __init__(
        self,
        send: Callable[[JsonDict], Any],
        *,
        interval: float = DEFAULT_INTERVAL,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._send = send
        self._interval = interval
        self._clock = clock
        self._pending: list[BaseEvent] = []
        self._last_flush = clock()
        self._timer: asyncio.TimerHandle | None = None
        self.batches_sent = 0
        """How many batch messages went out (the benchmark reports it)."""

    @property
    def pending(self) -> int:
        """Events waiting for the next flush."""
        return len(self._pending)

    def push(self, event: BaseEvent) -> None:
        self._pending.append(event)
        if event.type in _TERMINAL or self._clock() - self._last_flush >= self._interval:
            self.flush()
        elif self._timer is None:
            self._arm_timer()

    def flush(self) -> None:
        """Send whatever is pending now, as one message."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._last_flush = self._clock()
        if not self._pending:
            return
        events, self._pending = self._pending, []
        self._send(events_to_wire("events", coalesce(events)))
        self.batches_sent += 1

    def close(self) -> None:
        """Flush and drop the timer; the batcher stays usable."""
        self.flush()

    def _arm_timer(self) -> None:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no loop: the next push or an explicit flush sends it
            return
        self._timer = loop.call_later(self._interval, self.flush)
