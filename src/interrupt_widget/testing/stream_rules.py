"""Checking AG-UI event streams: our interrupt rules, ag-ui-validate, and the models.

`stream_violations(events)` checks one run against the rules the kit keeps
(ag-ui-validate checks lifecycle and streaming but not interrupts);
`thread_violations(runs)` checks a chain of runs of one thread (each resuming
the last); `assert_valid_stream(events)` applies all three checks at once.
Events may be `ag_ui.core` models or their wire dicts (camelCase or not).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ag_ui.core import (
    AssistantMessage,
    BaseEvent,
    MessagesSnapshotEvent,
    RunErrorEvent,
    RunFinishedEvent,
    RunFinishedInterruptOutcome,
    RunStartedEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallResultEvent,
    ToolCallStartEvent,
)
from pydantic import ValidationError

from interrupt_widget.agui.wire import event_from_wire, to_wire
from interrupt_widget.clock import parse_instant

_CONTENT_EVENTS = (
    TextMessageStartEvent,
    TextMessageContentEvent,
    TextMessageEndEvent,
    ToolCallStartEvent,
    ToolCallArgsEvent,
    ToolCallEndEvent,
)


@dataclass(frozen=True)
class Violation:
    """One broken rule."""

    rule: str
    """Short rule name, e.g. `open-at-end` or `interrupt-unknown-call`."""
    message: str
    """What is wrong, for a person."""
    index: int
    """Position of the event concerned (-1 for the stream as a whole)."""

    def __str__(self) -> str:
        return f"[{self.rule}] event {self.index}: {self.message}"


def parse_events(events: Iterable[BaseEvent | Mapping[str, Any]]) -> list[BaseEvent]:
    """Every event through the `ag_ui.core` models (wire dicts are parsed; models re-checked)."""
    parsed: list[BaseEvent] = []
    for event in events:
        wire = to_wire(event) if isinstance(event, BaseEvent) else dict(event)
        parsed.append(event_from_wire(wire))
    return parsed


def stream_violations(events: Sequence[BaseEvent | Mapping[str, Any]]) -> list[Violation]:
    """Every way one run's events break the kit's rules; empty when they keep them.

    Rules: RUN_STARTED first and one terminal event (RUN_FINISHED or RUN_ERROR)
    last; text messages and tool calls opened once, used only while open, and
    all closed before the end; a TOOL_CALL_RESULT names a call started in this
    run or present in an earlier MESSAGES_SNAPSHOT of it, at most once; an
    interrupting RUN_FINISHED follows a MESSAGES_SNAPSHOT taken after the last
    content event; interrupt ids are unique; a `tool_call` interrupt names a
    call started in the run (or its snapshot), which has no result, and whose
    snapshot entry carries the interrupt; its `response_schema` requires a
    boolean `approved`; `expires_at` parses as an instant with a zone.
    """
    try:
        parsed = parse_events(events)
    except ValidationError as exc:
        return [Violation("model", str(exc).splitlines()[0], -1)]
    check = _StreamCheck()
    if not parsed or not isinstance(parsed[0], RunStartedEvent):
        check.fail("run-started-first", "the stream does not begin with RUN_STARTED", 0)
    terminal = [i for i, e in enumerate(parsed) if isinstance(e, RunFinishedEvent | RunErrorEvent)]
    if len(terminal) != 1 or terminal[0] != len(parsed) - 1:
        check.fail(
            "one-terminal-last", f"terminal events at {terminal} in {len(parsed)} events", -1
        )
    for index, event in enumerate(parsed):
        check.event(index, event)
    return check.found


class _StreamCheck:
    """What `stream_violations` knows so far of one run's events, one event at a time."""

    def __init__(self) -> None:
        self.found: list[Violation] = []
        self.open_text: set[str] = set()
        self.open_calls: set[str] = set()
        self.started: set[str] = set()
        self.results: set[str] = set()
        self.snapshot_calls: dict[str, Any] = {}
        self.last_content = -1
        self.last_snapshot = -1

    def fail(self, rule: str, message: str, index: int) -> None:
        self.found.append(Violation(rule, message, index))

    def event(self, index: int, event: BaseEvent) -> None:
        if isinstance(event, RunStartedEvent) and index:
            self.fail("run-started-first", "RUN_STARTED again inside the run", index)
        if isinstance(event, _CONTENT_EVENTS):
            self.last_content = index
        if isinstance(event, TextMessageStartEvent | TextMessageContentEvent | TextMessageEndEvent):
            self._text(index, event)
        elif isinstance(event, ToolCallStartEvent | ToolCallArgsEvent | ToolCallEndEvent):
            self._call(index, event)
        elif isinstance(event, ToolCallResultEvent):
            self._result(index, event)
        elif isinstance(event, MessagesSnapshotEvent):
            self.last_snapshot = index
            self.snapshot_calls = _snapshot_calls(event)
        elif isinstance(event, RunFinishedEvent | RunErrorEvent):
            self._end(index, event)

    def _text(
        self,
        index: int,
        event: TextMessageStartEvent | TextMessageContentEvent | TextMessageEndEvent,
    ) -> None:
        if isinstance(event, TextMessageStartEvent):
            if event.message_id in self.open_text:
                self.fail("text-reopened", f"message {event.message_id!r} is already open", index)
            self.open_text.add(event.message_id)
            return
        ends = isinstance(event, TextMessageEndEvent)
        self._inside(index, self.open_text, event.message_id, ends, "text", "message")

    def _call(
        self, index: int, event: ToolCallStartEvent | ToolCallArgsEvent | ToolCallEndEvent
    ) -> None:
        if isinstance(event, ToolCallStartEvent):
            if event.tool_call_id in self.started:
                self.fail(
                    "call-restarted", f"tool call {event.tool_call_id!r} started twice", index
                )
            self.started.add(event.tool_call_id)
            self.open_calls.add(event.tool_call_id)
            return
        ends = isinstance(event, ToolCallEndEvent)
        self._inside(index, self.open_calls, event.tool_call_id, ends, "call", "tool call")

    def _inside(
        self, index: int, open_ids: set[str], item_id: str, ends: bool, rule: str, named: str
    ) -> None:
        """An event after a start must find its message or call open; an end closes it."""
        if item_id not in open_ids:
            self.fail(f"{rule}-not-open", f"{named} {item_id!r} is not open", index)
        if ends:
            open_ids.discard(item_id)

    def _result(self, index: int, event: ToolCallResultEvent) -> None:
        call_id = event.tool_call_id
        if call_id not in self.started and call_id not in self.snapshot_calls:
            self.fail("result-unknown-call", f"result for unknown call {call_id!r}", index)
        if call_id in self.open_calls:
            self.fail("result-before-end", f"result for call {call_id!r} before its end", index)
        if call_id in self.results:
            self.fail("result-twice", f"second result for call {call_id!r}", index)
        self.results.add(call_id)

    def _end(self, index: int, event: RunFinishedEvent | RunErrorEvent) -> None:
        for message_id in sorted(self.open_text):
            self.fail("open-at-end", f"text message {message_id!r} still open", index)
        for call_id in sorted(self.open_calls):
            self.fail("open-at-end", f"tool call {call_id!r} still open", index)
        if isinstance(event, RunFinishedEvent) and isinstance(
            event.outcome, RunFinishedInterruptOutcome
        ):
            if self.last_snapshot < self.last_content or self.last_snapshot < 0:
                self.fail(
                    "snapshot-before-interrupt", "no MESSAGES_SNAPSHOT after the content", index
                )
            _check_interrupts(
                event.outcome, self.started, self.results, self.snapshot_calls, index, self.fail
            )


def _snapshot_calls(event: MessagesSnapshotEvent) -> dict[str, Any]:
    calls: dict[str, Any] = {}
    for message in event.messages:
        if isinstance(message, AssistantMessage):
            for call in message.tool_calls or []:
                calls[call.id] = call
    return calls


def _check_interrupts(
    outcome: RunFinishedInterruptOutcome,
    started: set[str],
    results: set[str],
    snapshot_calls: dict[str, Any],
    index: int,
    fail: Any,
) -> None:
    seen: set[str] = set()
    for interrupt in outcome.interrupts:
        if interrupt.id in seen:
            fail("interrupt-id-unique", f"interrupt id {interrupt.id!r} repeats", index)
        seen.add(interrupt.id)
        if interrupt.expires_at is not None:
            try:
                parse_instant(interrupt.expires_at)
            except ValueError:
                fail(
                    "interrupt-expiry", f"expires_at {interrupt.expires_at!r} is no instant", index
                )
        if interrupt.reason != "tool_call":
            continue
        call_id = interrupt.tool_call_id
        if not call_id or (call_id not in started and call_id not in snapshot_calls):
            fail(
                "interrupt-unknown-call", f"interrupt {interrupt.id!r} names no started call", index
            )
            continue
        if call_id in results:
            fail("interrupt-call-ran", f"call {call_id!r} already has a result", index)
        call = snapshot_calls.get(call_id)
        recorded = ((call.metadata or {}) if call is not None else {}).get("interrupt")
        if not isinstance(recorded, Mapping) or recorded.get("id") != interrupt.id:
            fail("interrupt-not-recorded", f"snapshot call {call_id!r} lacks the interrupt", index)
        schema = interrupt.response_schema or {}
        approved = (schema.get("properties") or {}).get("approved") or {}
        if approved.get("type") != "boolean" or "approved" not in (schema.get("required") or []):
            fail("interrupt-schema", f"interrupt {interrupt.id!r} needs a required approved", index)


def thread_violations(runs: Sequence[Sequence[BaseEvent | Mapping[str, Any]]]) -> list[Violation]:
    """Rules across a chain of runs of one thread, plus each run's own rules.

    Across runs: interrupt ids are never reused, and each tool call gets at
    most one TOOL_CALL_RESULT in the whole chain (an approved call runs once).
    Violations of run `n` have the rule prefixed with `run n:`.
    """
    found: list[Violation] = []
    interrupt_ids: set[str] = set()
    results: set[str] = set()
    for number, events in enumerate(runs):
        found += [
            Violation(f"run {number}: {v.rule}", v.message, v.index)
            for v in stream_violations(events)
        ]
        for index, event in enumerate(parse_events(events)):
            if isinstance(event, ToolCallResultEvent):
                if event.tool_call_id in results:
                    found.append(
                        Violation(
                            f"run {number}: approved-once",
                            f"call {event.tool_call_id!r} already had a result",
                            index,
                        )
                    )
                results.add(event.tool_call_id)
            if isinstance(event, RunFinishedEvent) and isinstance(
                event.outcome, RunFinishedInterruptOutcome
            ):
                for interrupt in event.outcome.interrupts:
                    if interrupt.id in interrupt_ids:
                        found.append(
                            Violation(
                                f"run {number}: interrupt-id-reused",
                                f"interrupt id {interrupt.id!r} was used by an earlier run",
                                index,
                            )
                        )
                    interrupt_ids.add(interrupt.id)
    return found


def ag_ui_validate_findings(events: Sequence[BaseEvent | Mapping[str, Any]]) -> list[str]:
    """Error-severity findings of the `ag-ui-validate` conformance checker, as text."""
    from ag_ui_validate.pytest_plugin import validate_agui

    wire = [to_wire(e) if isinstance(e, BaseEvent) else dict(e) for e in events]
    report = validate_agui(wire)
    return [
        f"{d.rule} at event {d.event_index} ({d.event_type}): {d.message}"
        for d in report.diagnostics
        if d.severity == "error"
    ] + [f"internal: {e}" for e in report.internal_errors]


def assert_valid_stream(events: Sequence[BaseEvent | Mapping[str, Any]]) -> list[BaseEvent]:
    """Check one run three ways (models, ag-ui-validate, our rules); return the parsed events.

    Raises AssertionError listing every problem found.
    """
    parsed = parse_events(events)
    problems = ag_ui_validate_findings(parsed) + [str(v) for v in stream_violations(parsed)]
    if problems:
        raise AssertionError("invalid AG-UI stream:\n  " + "\n  ".join(problems))
    return parsed


def assert_valid_thread(runs: Sequence[Sequence[BaseEvent | Mapping[str, Any]]]) -> None:
    """`assert_valid_stream` for each run, plus the rules across the chain."""
    for events in runs:
        assert_valid_stream(events)
    problems = [str(v) for v in thread_violations(runs)]
    if problems:
        raise AssertionError("invalid AG-UI thread:\n  " + "\n  ".join(problems))


__all__ = [
    "Violation",
    "ag_ui_validate_findings",
    "assert_valid_stream",
    "assert_valid_thread",
    "parse_events",
    "stream_violations",
    "thread_violations",
]
