"""Each answer to an interrupt as a span: in the Agents SDK's trace, and in OpenTelemetry.

A decision is applied before the SDK resumes its paused run, so its span is
made under the trace the paused state carries (`RunState`'s trace data): the
resumed run continues that trace id, so any SDK `TracingProcessor` sees the
decision beside the tool's own span, and the runs of one conversation share
the thread id as their `group_id`. A trace the caller holds open wins.

The span says which call, the verdict, who answered, how long the question
waited and whether the arguments were edited, with a SHA-256 of the arguments
that ran (or would have run), never the arguments themselves unless the
adapter was built with `trace_arguments=True`: they may hold personal data.

When the OpenTelemetry API is installed (the `[otel]` extra), the same span goes
to the global tracer provider the application set up (its own exporter), from
the time the question was asked to the time it was answered, with the GenAI
semantic-convention attributes where they exist and `interrupt_widget.decision.*`
for the rest (no approval attributes are ratified yet).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Final

from agents import RunConfig, RunState
from agents.tracing import Trace, custom_span, get_current_trace
from agents.tracing.traces import TraceState, reattach_trace

from interrupt_widget.agui.interrupts import parse_arguments
from interrupt_widget.agui.resume import Resolution
from interrupt_widget.clock import parse_instant, utc_text
from interrupt_widget.policy.rules import Ruling

try:  # the `[otel]` extra
    from opentelemetry import trace as otel_trace
except ImportError:  # pragma: no cover - exercised without the extra
    otel_trace = None  # type: ignore[assignment]

SPAN_NAME: Final = "interrupt_widget.decision"
"""The name of a decision's span, in the SDK's trace and in OpenTelemetry."""

ASKED_AT_KEY: Final = "asked_at"
"""Key, in an interrupt's metadata, of when it was raised (ISO 8601, UTC)."""

ANSWERED_BY_CLIENT: Final = "client"
"""`by` of an answer whose resume entry did not say who gave it."""

_ATTRIBUTE: Final = "interrupt_widget.decision."


@dataclass(frozen=True)
class DecisionSpan:
    """What the span of one decision says."""

    thread_id: str
    """The conversation (`gen_ai.conversation.id`)."""
    tool: str
    """The gated tool's name."""
    call_id: str
    """The tool call id."""
    interrupt_id: str
    """The interrupt the answer closed."""
    verdict: str
    """`approved`, `denied`, `cancelled`, or `replayed` (an earlier answer stands)."""
    answer: str
    """What this answer said (`approved`, `denied`, `cancelled`), even when replayed."""
    by: str
    """Who answered: the entry's `metadata.by`, or `policy:<rule>` for the policy."""
    asked_at: datetime | None
    """When the interrupt was raised; None for an interrupt that did not record it."""
    answered_at: datetime
    """When the answer reached the adapter."""
    arguments_edited: bool
    """Whether the person changed the arguments before approving."""
    arguments_sha256: str
    """SHA-256 of the canonical JSON of the arguments that ran (or would have run)."""
    arguments: str | None
    """Those arguments, only when the adapter traces arguments."""
    identity: str | None = None
    """The person who answered, as the answer named them (the token's principal over HTTP)."""

    @property
    def waited_seconds(self) -> float | None:
        """How long the question waited for its answer."""
        if self.asked_at is None:
            return None
        return max(0.0, (self.answered_at - self.asked_at).total_seconds())

    def data(self) -> dict[str, Any]:
        """The SDK span's data (JSON values only)."""
        data: dict[str, Any] = {
            "thread_id": self.thread_id,
            "tool": self.tool,
            "call_id": self.call_id,
            "interrupt_id": self.interrupt_id,
            "verdict": self.verdict,
            "answer": self.answer,
            "by": self.by,
            "identity": self.identity,
            "asked_at": _iso(self.asked_at),
            "answered_at": _iso(self.answered_at),
            "waited_seconds": self.waited_seconds,
            "arguments_edited": self.arguments_edited,
            "arguments_sha256": self.arguments_sha256,
        }
        if self.arguments is not None:
            data["arguments"] = self.arguments
        return data

    def attributes(self) -> dict[str, str | float | bool]:
        """The OpenTelemetry span's attributes."""
        attributes: dict[str, str | float | bool] = {
            "gen_ai.conversation.id": self.thread_id,
            "gen_ai.tool.name": self.tool,
            "gen_ai.tool.call.id": self.call_id,
        }
        # The times are the span's own start and end; the rest is the kit's namespace.
        skipped = ("thread_id", "tool", "call_id", "asked_at", "answered_at")
        for key, value in self.data().items():
            if key not in skipped and value is not None:
                attributes[_ATTRIBUTE + key] = value
        return attributes


def decision_span(
    thread_id: str,
    resolution: Resolution,
    ruling: Ruling | None,
    marker: Mapping[str, Any],
    answered_at: datetime,
    *,
    trace_arguments: bool,
) -> DecisionSpan:
    """The span of the answer `resolution`, applied with the result marker `marker`."""
    call = resolution.gated.call
    edited = resolution.edited_arguments
    ran = edited if edited is not None else parse_arguments(call.function.arguments or "")
    text = json.dumps(ran, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    asked = (resolution.gated.interrupt.metadata or {}).get(ASKED_AT_KEY)
    return DecisionSpan(
        thread_id=thread_id,
        tool=call.function.name,
        call_id=resolution.gated.call_id,
        interrupt_id=resolution.gated.interrupt.id,
        verdict="replayed" if marker.get("replayed") is True else resolution.decision,
        answer=resolution.decision,
        by=ruling.by if ruling is not None else resolution.by or ANSWERED_BY_CLIENT,
        identity=resolution.identity,
        asked_at=_parse(asked),
        answered_at=answered_at,
        arguments_edited=edited is not None and resolution.decision == "approved",
        arguments_sha256=hashlib.sha256(text.encode()).hexdigest(),
        arguments=text if trace_arguments else None,
    )


def listened(state: RunState[Any, Any], config: RunConfig) -> bool:
    """Whether a decision's span would go anywhere: under a trace of the SDK's, or to an
    OpenTelemetry provider the application set up. When not, nobody makes it (the arguments'
    hash, the attributes): a run in a notebook with tracing off pays nothing for spans."""
    return _run_trace(state, config) is not None or _otel_set_up()


def emit(span: DecisionSpan, state: RunState[Any, Any], config: RunConfig) -> None:
    """Report `span` to the SDK's trace processors (under the run's trace) and to OpenTelemetry."""
    parent = _run_trace(state, config)
    if parent is not None:
        sdk_span = custom_span(SPAN_NAME, span.data(), parent=parent)
        sdk_span.start()
        sdk_span.finish()
    if _otel_set_up():
        tracer = otel_trace.get_tracer("interrupt_widget")
        started = _nanoseconds(span.asked_at or span.answered_at)
        otel_span = tracer.start_span(SPAN_NAME, start_time=started, attributes=span.attributes())
        otel_span.end(end_time=max(started, _nanoseconds(span.answered_at)))


def _otel_set_up() -> bool:
    """Whether the OpenTelemetry API is installed and a tracer provider was set (until one
    is, the API's proxy makes spans that record nothing)."""
    if otel_trace is None:
        return False
    provider = otel_trace.get_tracer_provider()
    return not isinstance(provider, otel_trace.ProxyTracerProvider | otel_trace.NoOpTracerProvider)


def _run_trace(state: RunState[Any, Any], config: RunConfig) -> Trace | None:
    """The trace the resumed run continues: the caller's, or the one the paused state carries."""
    if config.tracing_disabled:
        return None
    current = get_current_trace()
    if current is not None:
        return current
    # The SDK resumes the trace recorded in the state (or the config's trace id): the
    # same id, without telling the processors a second time that it started.
    saved: TraceState | None = state._trace_state
    trace_id = config.trace_id or (saved.trace_id if saved is not None else None)
    if trace_id is None:
        return None
    return reattach_trace(
        TraceState(
            trace_id=trace_id,
            workflow_name=saved.workflow_name if saved is not None else config.workflow_name,
            group_id=config.group_id or (saved.group_id if saved is not None else None),
            metadata=saved.metadata if saved is not None else None,
        )
    )


def _iso(moment: datetime | None) -> str | None:
    return None if moment is None else utc_text(moment)


def _parse(text: Any) -> datetime | None:
    if not isinstance(text, str):
        return None
    try:
        return parse_instant(text)
    except ValueError:
        return None


def _nanoseconds(moment: datetime) -> int:
    return int(moment.timestamp() * 1_000_000_000)
