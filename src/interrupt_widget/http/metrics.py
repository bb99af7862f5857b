"""`serve --metrics`: Prometheus metrics at `GET /metrics`, read off the runs the server streams.

`MeteredAgent` wraps the served agent (outside the fingerprint layer, so
refusals count too) and watches each run: the resume entries coming in and
the events going out. Nothing in the agent or the adapter changes, and the
cost is a type check per event. What it counts (every name starts with
`interrupt_widget_`):

- `open_interrupts` (gauge): interrupts this process asked that have no
  result yet; `interrupts_total{tool}`: every interrupt asked;
- `decisions_total{verdict,by}`: answers that settled a call (`approved`,
  `denied`, `cancelled`), by the kind of answerer the resume entry named in
  `metadata.by` (`view`, `user`, `python`, `responder`, `expiry`, `policy`;
  `client` when the entry did not say, `other` for anything else): kinds,
  never ids, so the series stay few. A late answer that only replays an
  earlier result is not counted again;
- `answer_seconds` (histogram): from the interrupt to the resume that
  answered it, for interrupts this process asked;
- `tool_runs_total{tool}`: approved calls that ran (replays excluded);
- `calls_in_doubt_total`: runs refused with `call_in_doubt`;
- `ledger_errors_total{kind}`: runs that ended because the ledger failed
  (`run`), and audit notes that could not be written (`audit_note`);
- `runs_total{outcome}` and `run_errors_total{code}`: every run, by how it
  ended, and the RUN_ERROR codes.

One process, one set of numbers: with `--workers` > 1 a scrape would reach
one worker at random, so `--metrics` is refused there (run one server per
port and scrape each). Needs the `metrics` extra (`prometheus-client`).
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Mapping
from typing import TYPE_CHECKING, Final

from ag_ui.core import (
    BaseEvent,
    RunAgentInput,
    RunErrorEvent,
    RunFinishedCancelledOutcome,
    RunFinishedEvent,
    RunFinishedInterruptOutcome,
    ToolCallResultEvent,
    ToolCallStartEvent,
)

from interrupt_widget.agui.interrupts import INTERRUPT_KEY, gated_calls, tool_name
from interrupt_widget.agui.run_handle import AGUIAgent, RunHandle, as_run_handle
from interrupt_widget.errors import ErrorCode
from interrupt_widget.ledger.noting_ledger import NotingLedger, answerers
from interrupt_widget.ledger.once_only import CallLedger

if TYPE_CHECKING:
    from prometheus_client import CollectorRegistry

__all__ = ["MeteredAgent", "ServeMetrics"]

CONTENT_TYPE: Final = "text/plain; version=0.0.4; charset=utf-8"
"""The Prometheus text exposition format."""

ANSWERER_KINDS: Final = frozenset({"view", "user", "python", "responder", "expiry", "policy"})
"""The kinds of answerer a `by` may name (the part before `:`)."""

LEDGER_CODES: Final = frozenset({"ledger_unavailable"})
"""RUN_ERROR codes that mean the ledger itself failed."""

ANSWER_BUCKETS: Final = (1, 5, 15, 30, 60, 120, 300, 900, 1800, 3600, 4 * 3600, 86400)
"""Seconds: people answer in seconds to hours, not milliseconds."""

_REMEMBERED: Final = 100_000
"""How many open interrupts the gauge follows at most (the oldest are dropped)."""


def answerer_kind(by: str | None) -> str:
    """The label for `by`: its kind, `client` when absent, `other` when unknown."""
    if not by:
        return "client"
    kind = by.split(":", 1)[0]
    return kind if kind in ANSWERER_KINDS else "other"


class ServeMetrics:
    """The counters of one server process, in their own registry."""

    def __init__(self) -> None:
        try:
            from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram
        except ImportError:  # pragma: no cover - the extra is in the dev install
            raise ValueError(
                "metrics need prometheus-client: pip install prometheus-client"
            ) from None
        self.registry: CollectorRegistry = CollectorRegistry()
        """Everything `GET /metrics` shows."""
        prefix = "interrupt_widget_"
        r = self.registry
        self.open_interrupts = Gauge(
            prefix + "open_interrupts",
            "Interrupts asked by this process with no result yet",
            registry=r,
        )
        self.interrupts = Counter(prefix + "interrupts", "Interrupts asked", ["tool"], registry=r)
        self.decisions = Counter(
            prefix + "decisions", "Answers that settled a call", ["verdict", "by"], registry=r
        )
        self.answer_seconds = Histogram(
            prefix + "answer_seconds",
            "Seconds from an interrupt to its answer",
            buckets=ANSWER_BUCKETS,
            registry=r,
        )
        self.tool_runs = Counter(
            prefix + "tool_runs", "Approved calls that ran", ["tool"], registry=r
        )
        self.calls_in_doubt = Counter(
            prefix + "calls_in_doubt", "Runs refused because a call is in doubt", registry=r
        )
        self.ledger_errors = Counter(
            prefix + "ledger_errors", "Ledger failures", ["kind"], registry=r
        )
        self.runs = Counter(prefix + "runs", "Runs, by how they ended", ["outcome"], registry=r)
        self.run_errors = Counter(
            prefix + "run_errors", "Runs that ended in RUN_ERROR", ["code"], registry=r
        )
        # Interrupt id -> (monotonic time asked, tool); oldest first, bounded.
        self._asked: OrderedDict[str, tuple[float, str]] = OrderedDict()

    def exposition(self) -> bytes:
        """The metrics in the Prometheus text format."""
        from prometheus_client import generate_latest

        return generate_latest(self.registry)

    def note_ledger_error(self, error: Exception) -> None:
        """An audit note the ledger could not write (the ledger calls this)."""
        self.ledger_errors.labels(kind="audit_note").inc()

    # -- what a run shows ---------------------------------------------------------------------

    def asked(self, interrupt_id: str, tool: str) -> None:
        if interrupt_id in self._asked:
            return  # asked again by a replayed run: one interrupt
        self._asked[interrupt_id] = (time.monotonic(), tool)
        while len(self._asked) > _REMEMBERED:
            self._asked.popitem(last=False)
        self.interrupts.labels(tool=tool).inc()
        self.open_interrupts.set(len(self._asked))

    def settled(
        self, interrupt_id: str, verdict: str, by: str | None, waited: float | None
    ) -> None:
        self.decisions.labels(verdict=verdict, by=answerer_kind(by)).inc()
        if waited is not None:
            self.answer_seconds.observe(waited)
        self._asked.pop(interrupt_id, None)
        self.open_interrupts.set(len(self._asked))

    def waited(self, interrupt_id: str, at: float) -> float | None:
        found = self._asked.get(interrupt_id)
        return None if found is None else max(0.0, at - found[0])


class MeteredAgent:
    """An `AGUIAgent` whose runs are counted in `metrics` (see the module docs)."""

    def __init__(self, agent: AGUIAgent, metrics: ServeMetrics) -> None:
        self._agent = agent
        self.metrics = metrics
        """Where the runs are counted."""

    def run(self, input: RunAgentInput) -> RunHandle:
        return CountedRunHandle(as_run_handle(self._agent.run(input)), input, self.metrics)


class CountedRunHandle:
    """One run, passed through as it is, counted on the way."""

    def __init__(self, inner: RunHandle, input: RunAgentInput, metrics: ServeMetrics) -> None:
        self._inner = inner
        self._input = input
        self._metrics = metrics
        self._arrived = time.monotonic()
        self._by = answerers(input.resume)
        self._tools: dict[str, str] | None = None
        self._started: dict[str, str] = {}  # calls this run made (a policy may settle them)

    def __aiter__(self) -> CountedRunHandle:
        return self

    async def __anext__(self) -> BaseEvent:
        event = await self._inner.__anext__()
        if isinstance(event, ToolCallStartEvent):
            self._started[event.tool_call_id] = event.tool_call_name
        elif isinstance(event, ToolCallResultEvent | RunFinishedEvent | RunErrorEvent):
            self._observe(event)
        return event

    @property
    def can_stop(self) -> bool:
        return self._inner.can_stop

    def stop(self) -> None:
        self._inner.stop()

    async def aclose(self) -> None:
        await self._inner.aclose()

    def _observe(self, event: BaseEvent) -> None:
        metrics = self._metrics
        if isinstance(event, RunErrorEvent):
            code = event.code or "unknown"
            metrics.runs.labels(outcome="error").inc()
            metrics.run_errors.labels(code=code).inc()
            if code == ErrorCode.CALL_IN_DOUBT.value:
                metrics.calls_in_doubt.inc()
            if code in LEDGER_CODES:
                metrics.ledger_errors.labels(kind="run").inc()
        elif isinstance(event, RunFinishedEvent):
            outcome = event.outcome
            if isinstance(outcome, RunFinishedInterruptOutcome):
                metrics.runs.labels(outcome="interrupt").inc()
                for interrupt in outcome.interrupts:
                    metrics.asked(interrupt.id, tool_name(interrupt))
            elif isinstance(outcome, RunFinishedCancelledOutcome):
                metrics.runs.labels(outcome="cancelled").inc()
            else:
                metrics.runs.labels(outcome="success").inc()
        elif isinstance(event, ToolCallResultEvent):
            self._result(event)

    def _result(self, event: ToolCallResultEvent) -> None:
        marker = (event.metadata or {}).get(INTERRUPT_KEY)
        if not isinstance(marker, Mapping) or marker.get("replayed") is True:
            return  # not a gated call's result, or a late answer replaying an earlier one
        interrupt_id = marker.get("id")
        verdict = marker.get("decision")
        if not isinstance(interrupt_id, str) or not isinstance(verdict, str):
            return
        policy_by = marker.get("by")
        by = policy_by if isinstance(policy_by, str) else self._by.get(interrupt_id)
        # A policy settles within the run: it waited for nobody.
        waited = (
            None
            if isinstance(policy_by, str)
            else self._metrics.waited(interrupt_id, self._arrived)
        )
        self._metrics.settled(interrupt_id, verdict, by, waited)
        if verdict == "approved":
            self._metrics.tool_runs.labels(tool=self._tool_of(event.tool_call_id)).inc()

    def _tool_of(self, call_id: str) -> str:
        if call_id in self._started:
            return self._started[call_id]
        if self._tools is None:
            gated = gated_calls(self._input.messages)
            self._tools = {g.call_id: g.call.function.name for g in gated}
        return self._tools.get(call_id, "unknown")


def metered(agent: AGUIAgent, metrics: ServeMetrics | None) -> AGUIAgent:
    """`agent` counted in `metrics`, or itself when there are none."""
    return agent if metrics is None else MeteredAgent(agent, metrics)


def attach_ledger(metrics: ServeMetrics, ledger: CallLedger | None) -> None:
    """Count the audit notes the served adapter's ledger fails to write."""
    if isinstance(ledger, NotingLedger):
        ledger.note_error_listeners.append(metrics.note_ledger_error)
