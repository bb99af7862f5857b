"""With OpenTelemetry, a decision made on Temporal joins the run's Temporal trace: the
notebook's update, the workflow, the activity and the decision span share one trace, the
decision inside the activity that made it."""

from __future__ import annotations

import pathlib
import uuid
from collections.abc import Iterator

import pytest

pytest.importorskip("temporalio")
pytest.importorskip("opentelemetry.sdk")

from ag_ui.core import ResumeEntry
from opentelemetry import trace as otel_trace
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from interrupt_widget.asking.thread import ConversationThread
from interrupt_widget.sdk.decision_spans import SPAN_NAME
from interrupt_widget.temporal import TemporalAgent
from interrupt_widget.temporal.dev_server import DevServer
from payment_agents import SEND, runs_in
from temporal_agents import PAYMENTS, worker_on_fresh_queue

_EXPORTER = InMemorySpanExporter()
_WATCHING: list[bool] = []


@pytest.fixture
def spans() -> Iterator[InMemorySpanExporter]:
    # The global provider is set once per process (another test may have set it): ours
    # watches it through a processor of its own, added once.
    provider = otel_trace.get_tracer_provider()
    if not isinstance(provider, TracerProvider):
        provider = TracerProvider()
        otel_trace.set_tracer_provider(provider)
    if not _WATCHING:
        provider.add_span_processor(SimpleSpanProcessor(_EXPORTER))
        _WATCHING.append(True)
    _EXPORTER.clear()
    yield _EXPORTER
    _EXPORTER.clear()


def named(found: tuple[ReadableSpan, ...], prefix: str) -> list[ReadableSpan]:
    return [s for s in found if s.name.startswith(prefix)]


async def test_a_decision_on_temporal_joins_the_runs_trace_inside_its_activity(
    temporal_server: DevServer, runs: pathlib.Path, spans: InMemorySpanExporter
) -> None:
    async with worker_on_fresh_queue(temporal_server, (PAYMENTS,)) as (_client, queue):
        # Connected by the kit from an address: the client carries the tracing too.
        agent = TemporalAgent(temporal_server.address, agent=PAYMENTS, task_queue=queue)
        thread = ConversationThread(agent, thread_id=f"t-{uuid.uuid4().hex[:8]}")
        assert (await thread.start(thread.user_input(SEND))).kind == "interrupt"
        entries = [
            ResumeEntry(interrupt_id=i.id, status="resolved", payload={"approved": True})
            for i in thread.interrupts
        ]
        assert (await thread.start(thread.resume_input(entries))).kind == "success"
    assert len(runs_in(runs)) == 1
    found = spans.get_finished_spans()
    [decision] = named(found, SPAN_NAME)
    activities = {s.context.span_id: s for s in named(found, "RunActivity:")}
    assert decision.parent is not None
    parent = activities[decision.parent.span_id]  # made inside the activity's run
    assert decision.context.trace_id == parent.context.trace_id
    updates = [s for s in found if "Update" in s.name and s.parent is None]
    assert updates, [s.name for s in found]  # the notebook's update opened the trace
    assert decision.context.trace_id in {u.context.trace_id for u in updates}
