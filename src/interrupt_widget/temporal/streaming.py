"""A run's events while it runs: from the worker's segment, through the workflow, to the client.

The segment sends its events to the conversation's workflow by signal as the run says them
(`SegmentStream`), coalesced so that a reply written word by word costs a few signals a
second, not one per word; the workflow keeps the running run's events; the client reads them
by query from the offset it has reached (`StreamFollower`), and the run's result, when the
segment ends, is the authority: what the client said already is not said again, and nothing
it has not said is lost. A segment tried again (its worker died) says its run again from the
start, as a new attempt: the client closes what the lost attempt left open and follows the new
one; the run's final MESSAGES_SNAPSHOT then says what the conversation holds.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from interrupt_widget.temporal.shapes import JsonDict, StreamBatch, StreamChunk, StreamRead

logger = logging.getLogger(__name__)

FIRST_PACE = 0.05
"""Seconds between two batches of a run's first `QUICK_BATCHES`: a reply reads as it is
written (the browser takes 20 to 30 updates a second), the first words within one batch."""
QUICK_BATCHES = 100
LATER_PACE = 0.25
"""Seconds between two batches once a run has sent `QUICK_BATCHES`, up to `SLOW_BATCHES`;
then `SLOWEST_PACE`. Every batch is an event in the workflow's history: a long run streams
on, at a pace that keeps its history in bounds (about 400 batches in its first minute)."""
SLOW_BATCHES = 300
SLOWEST_PACE = 1.0


def pace(sent: int) -> float:
    """The wait after the batch number `sent` (from 0) of a run."""
    if sent < QUICK_BATCHES:
        return FIRST_PACE
    return LATER_PACE if sent < SLOW_BATCHES else SLOWEST_PACE


class SegmentStream:
    """A running segment's events, sent on (`send`) in batches as they come; a batch that
    fails is sent again with the next, so the workflow's copy has no gap (it drops what it
    already holds). Best effort: the segment's result carries every event whatever happens."""

    def __init__(
        self, send: Callable[[StreamBatch], Awaitable[None]], run_id: str, attempt: int
    ) -> None:
        self._send, self._run_id, self._attempt = send, run_id, attempt
        self._events: list[JsonDict] = []
        self._sent = 0
        self._batches = 0
        self._news = asyncio.Event()

    def add(self, event: JsonDict) -> None:
        self._events.append(event)
        self._news.set()

    async def run(self) -> None:
        """Send what is new, then wait the pace; until cancelled (the segment's end)."""
        while True:
            await self._news.wait()
            self._news.clear()
            offset = self._sent
            batch = StreamBatch(self._run_id, self._attempt, offset, self._events[offset:])
            try:
                await self._send(batch)
            except Exception as problem:  # the server busy or gone: the result still says all
                logger.debug("run %s: a batch of events was not sent: %s", self._run_id, problem)
                self._news.set()
            else:
                self._sent = offset + len(batch.events)
            await asyncio.sleep(pace(self._batches))
            self._batches += 1


class StreamFollower:
    """The client's side: which events of a run it has said, so that each is said once."""

    def __init__(self, run_id: str) -> None:
        self.run_id = run_id
        self.attempt = 0
        self._said: list[JsonDict] = []
        """The events said of the attempt followed, in order."""
        self._any = False
        self._open_messages: dict[str, None] = {}
        self._open_calls: dict[str, None] = {}

    def read(self) -> StreamRead:
        return StreamRead(run_id=self.run_id, attempt=self.attempt, offset=len(self._said))

    def take(self, chunk: StreamChunk) -> list[JsonDict]:
        """What `chunk` adds to what was said (it may start a new attempt)."""
        if chunk.attempt == 0:
            return []
        if chunk.attempt != self.attempt:
            closing = self._closing() if self._any else []
            self.attempt, self._said = chunk.attempt, []
            return closing + self._say(chunk.events, again=self._any)
        new = chunk.events[len(self._said) - chunk.offset :]
        return self._say(new, again=False) if chunk.offset <= len(self._said) else []

    def rest(self, final: list[JsonDict]) -> list[JsonDict]:
        """What the run's final events add to what was said: the tail after the same
        prefix, or, from another attempt (or a refusal), what closes the lost one and the
        final events but their RUN_STARTED."""
        if not self._any:
            return final
        said = len(self._said)
        if self.attempt and final[:said] == self._said:
            return self._say(final[said:], again=False)
        return self._closing() + self._say(final, again=True)

    def _say(self, events: list[JsonDict], *, again: bool) -> list[JsonDict]:
        if again and events and events[0].get("type") == "RUN_STARTED":
            self._said.append(events[0])
            events = events[1:]
        for event in events:
            self._said.append(event)
            self._note(event)
        self._any = self._any or bool(self._said)
        return events

    def _note(self, event: JsonDict) -> None:
        kind, message, call = event.get("type"), event.get("messageId"), event.get("toolCallId")
        if kind == "TEXT_MESSAGE_START":
            self._open_messages[str(message)] = None
        elif kind == "TEXT_MESSAGE_END":
            self._open_messages.pop(str(message), None)
        elif kind == "TOOL_CALL_START":
            self._open_calls[str(call)] = None
        elif kind == "TOOL_CALL_END":
            self._open_calls.pop(str(call), None)

    def _closing(self) -> list[JsonDict]:
        """The ends of the text messages and tool calls a lost attempt left open."""
        ends: list[dict[str, Any]] = [
            {"type": "TEXT_MESSAGE_END", "messageId": m} for m in self._open_messages
        ]
        ends += [{"type": "TOOL_CALL_END", "toolCallId": c} for c in self._open_calls]
        self._open_messages.clear()
        self._open_calls.clear()
        return ends
