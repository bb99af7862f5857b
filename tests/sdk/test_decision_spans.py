"""Each answer as a span: in the SDK's trace of the run it resumes, and in OpenTelemetry."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from ag_ui.core import (
    BaseEvent,
    MessagesSnapshotEvent,
    ResumeEntry,
    RunAgentInput,
    RunFinishedEvent,
    RunFinishedInterruptOutcome,
    UserMessage,
)
from agents import set_trace_processors, set_tracing_disabled
from agents.tracing import Span, Trace, TracingProcessor
from agents.tracing.processors import default_processor
from opentelemetry import trace as otel_trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from interrupt_widget import (
    AgentBatch,
    AgentChat,
    OfflineModel,
    OpenAIAgentsAdapter,
    Policy,
    responders,
)
from interrupt_widget.examples import bank_agent, meeting_agent
from interrupt_widget.http.app import asgi_app
from interrupt_widget.http.client import AGUIClient
from interrupt_widget.policy.rules import approve
from interrupt_widget.sdk.decision_spans import SPAN_NAME

MEETING = "Book a call with Alice about the Q3 roadmap"
TRANSFER = "transfer_funds amount=250 to_account=ACME-1 memo=rent"
TUESDAY = {"approved": True, "chosen_time": "2030-01-08T10:00:00Z", "chosen_label": "Tue 10:00"}


class Recorder(TracingProcessor):
    """Every trace started and span ended, as the SDK exports them."""

    def __init__(self) -> None:
        self.traces: list[dict[str, Any]] = []
        self.spans: list[dict[str, Any]] = []

    def on_trace_start(self, trace: Trace) -> None:
        self.traces.append(trace.export() or {})

    def on_trace_end(self, trace: Trace) -> None:
        pass

    def on_span_start(self, span: Span[Any]) -> None:
        pass

    def on_span_end(self, span: Span[Any]) -> None:
        self.spans.append(span.export() or {})

    def shutdown(self) -> None:
        pass

    def force_flush(self) -> None:
        pass

    def decisions(self) -> list[dict[str, Any]]:
        return [
            s
            for s in self.spans
            if s["span_data"]["type"] == "custom" and s["span_data"]["name"] == SPAN_NAME
        ]


@pytest.fixture
def spans() -> Iterator[Recorder]:
    # The suite runs with tracing off (no exporter, no network); on here, and off again after.
    recording = Recorder()
    set_trace_processors([recording])
    set_tracing_disabled(False)
    try:
        yield recording
    finally:
        set_tracing_disabled(True)
        set_trace_processors([default_processor()])


_EXPORTER = InMemorySpanExporter()


@pytest.fixture
def otel_spans() -> Iterator[InMemorySpanExporter]:
    # The global provider can be set once per process: one provider, emptied per test.
    if not isinstance(otel_trace.get_tracer_provider(), TracerProvider):
        provider = TracerProvider()
        provider.add_span_processor(SimpleSpanProcessor(_EXPORTER))
        otel_trace.set_tracer_provider(provider)
    _EXPORTER.clear()
    yield _EXPORTER
    _EXPORTER.clear()


def ask(text: str, thread: str = "t1") -> RunAgentInput:
    return RunAgentInput(
        thread_id=thread, run_id="r1", messages=[UserMessage(id="u1", content=text)]
    )


def answer(
    events: list[BaseEvent], status: str = "resolved", payload: Any = None, by: str | None = None
) -> RunAgentInput:
    finished = events[-1]
    assert isinstance(finished, RunFinishedEvent)
    assert isinstance(finished.outcome, RunFinishedInterruptOutcome)
    (interrupt,) = finished.outcome.interrupts
    entry = ResumeEntry(
        interrupt_id=interrupt.id,
        status=status,  # type: ignore[arg-type]
        payload=payload,
        metadata={"by": by} if by is not None else None,
    )
    messages = [e for e in events if isinstance(e, MessagesSnapshotEvent)][-1].messages
    return RunAgentInput(thread_id="t1", run_id="r2", messages=messages, resume=[entry])


def sha256(arguments: dict[str, Any]) -> str:
    text = json.dumps(arguments, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


async def test_a_decision_is_a_span_in_the_trace_the_resumed_run_continues(
    collect: Any, spans: Recorder
) -> None:
    adapter = OpenAIAgentsAdapter(meeting_agent(OfflineModel()))
    paused = await collect(adapter, ask(MEETING))
    await collect(adapter, answer(paused, payload=TUESDAY, by="person:ada"))

    [started] = spans.traces  # the resume continues the paused run's trace
    assert started["group_id"] == "t1"
    [span] = spans.decisions()
    assert span["trace_id"] == started["id"]
    data = span["span_data"]["data"]
    assert data["tool"] == "schedule_meeting"
    assert data["interrupt_id"] == f"approve-{data['call_id']}"
    assert (data["verdict"], data["answer"], data["by"]) == ("approved", "approved", "person:ada")
    assert data["thread_id"] == "t1"
    assert 0 <= data["waited_seconds"] < 60
    assert data["asked_at"] <= data["answered_at"]
    assert data["arguments_edited"] is False
    assert data["arguments_sha256"] == sha256({"topic": "Q3 roadmap", "attendee": "Alice"})
    assert "arguments" not in data  # they may hold personal data: only when asked for
    # The tool the answer let run is in the same trace.
    ran = [s for s in spans.spans if s["span_data"]["type"] == "function"]
    assert ran
    assert {s["trace_id"] for s in ran} == {started["id"]}


async def test_an_edit_is_marked_and_the_hash_is_of_the_arguments_that_ran(
    collect: Any, spans: Recorder
) -> None:
    adapter = OpenAIAgentsAdapter(bank_agent(OfflineModel()), trace_arguments=True)
    paused = await collect(adapter, ask(TRANSFER))
    ran = {"amount": 90.0, "to_account": "ACME-1", "memo": "rent"}
    await collect(adapter, answer(paused, payload={"approved": True, "editedArgs": ran}))

    [span] = spans.decisions()
    data = span["span_data"]["data"]
    assert data["arguments_edited"] is True
    assert data["by"] == "client"  # the entry did not say who answered
    assert data["arguments_sha256"] == sha256(ran)
    assert json.loads(data["arguments"]) == ran


@pytest.mark.parametrize(
    ("status", "payload", "verdict"),
    [("resolved", {"approved": False, "reason": "no"}, "denied"), ("cancelled", None, "cancelled")],
)
async def test_a_call_not_run_has_its_verdict(
    collect: Any, spans: Recorder, status: str, payload: Any, verdict: str
) -> None:
    adapter = OpenAIAgentsAdapter(meeting_agent(OfflineModel()))
    paused = await collect(adapter, ask(MEETING))
    await collect(adapter, answer(paused, status, payload))

    [span] = spans.decisions()
    assert span["span_data"]["data"]["verdict"] == verdict


async def test_a_second_answer_to_a_settled_call_is_replayed(collect: Any, spans: Recorder) -> None:
    adapter = OpenAIAgentsAdapter(meeting_agent(OfflineModel()))
    paused = await collect(adapter, ask(MEETING))
    await collect(adapter, answer(paused, payload=TUESDAY))
    await collect(adapter, answer(paused, payload={"approved": False}))

    first, second = (s["span_data"]["data"] for s in spans.decisions())
    assert first["verdict"] == "approved"
    assert (second["verdict"], second["answer"]) == ("replayed", "denied")


async def test_a_policy_ruling_is_a_span_by_its_rule(collect: Any, spans: Recorder) -> None:
    policy = Policy(approve("schedule_meeting", name="meetings"))
    adapter = OpenAIAgentsAdapter(meeting_agent(OfflineModel()), policy=policy)
    await collect(adapter, ask(MEETING))

    [started] = spans.traces
    [span] = spans.decisions()
    assert span["trace_id"] == started["id"]
    assert span["span_data"]["data"]["by"] == "policy:meetings"
    assert span["span_data"]["data"]["verdict"] == "approved"


async def test_agent_chat_says_who_answered(recorder: Any, spans: Recorder) -> None:
    chat = AgentChat(meeting_agent(OfflineModel()), responder=responders.deny_all())
    await chat.send(MEETING)

    [span] = spans.decisions()
    assert span["span_data"]["data"]["by"] == "responder:deny_all"
    assert span["span_data"]["data"]["thread_id"] == chat.thread.thread_id


async def test_agent_batch_says_who_answered_each_row(spans: Recorder) -> None:
    rows = [MEETING, "Book a call with Bob about hiring"]
    batch = AgentBatch(meeting_agent(OfflineModel()), rows, responder=responders.deny_all())
    results = await batch
    assert [r.status for r in results] == ["done", "done"]

    decided = [s["span_data"]["data"] for s in spans.decisions()]
    assert [(d["by"], d["verdict"]) for d in decided] == [("responder:deny_all", "denied")] * 2
    assert len({d["thread_id"] for d in decided}) == 2  # a thread per row
    groups = {t["group_id"] for t in spans.traces}
    assert groups == {d["thread_id"] for d in decided}


async def test_serve_reads_who_answered_from_the_entry(spans: Recorder) -> None:
    app = asgi_app(meeting_agent(OfflineModel()), secret="x" * 32, ledger="memory")
    client = AGUIClient("http://agent.test/", transport=httpx.ASGITransport(app=app))
    paused = [e async for e in client.run(ask(MEETING))]
    _ = [e async for e in client.run(answer(paused, payload=TUESDAY, by="person:grace"))]

    [span] = spans.decisions()
    assert span["span_data"]["data"]["by"] == "person:grace"
    assert span["trace_id"] == spans.traces[0]["id"]


async def test_opentelemetry_gets_the_span_with_genai_attributes(
    collect: Any, otel_spans: InMemorySpanExporter
) -> None:
    adapter = OpenAIAgentsAdapter(meeting_agent(OfflineModel()))
    paused = await collect(adapter, ask(MEETING))
    await collect(adapter, answer(paused, payload=TUESDAY, by="person:ada"))

    [span] = otel_spans.get_finished_spans()
    assert span.name == SPAN_NAME
    attributes = dict(span.attributes or {})
    assert attributes["gen_ai.conversation.id"] == "t1"
    assert attributes["gen_ai.tool.name"] == "schedule_meeting"
    assert attributes["gen_ai.tool.call.id"] == attributes[
        "interrupt_widget.decision.interrupt_id"
    ].removeprefix("approve-")
    assert attributes["interrupt_widget.decision.verdict"] == "approved"
    assert attributes["interrupt_widget.decision.by"] == "person:ada"
    assert attributes["interrupt_widget.decision.arguments_edited"] is False
    assert len(str(attributes["interrupt_widget.decision.arguments_sha256"])) == 64
    assert "interrupt_widget.decision.arguments" not in attributes
    # The span runs from the question to the answer.
    assert span.start_time is not None
    assert span.end_time is not None
    waited = attributes["interrupt_widget.decision.waited_seconds"]
    assert isinstance(waited, float)
    assert abs((span.end_time - span.start_time) / 1e9 - waited) < 1e-3


async def test_nobody_listening_makes_no_span_and_a_provider_set_later_gets_them(
    collect: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Tracing off (the suite's default) and no OpenTelemetry provider set (the API's proxy):
    # the answer is applied without making its span (no hash of the arguments, no attributes).
    from interrupt_widget.sdk import decision_spans

    made: list[str] = []
    make = decision_spans.decision_span

    def counted(*args: Any, **kwargs: Any) -> decision_spans.DecisionSpan:
        span = make(*args, **kwargs)
        made.append(span.call_id)
        return span

    monkeypatch.setattr(decision_spans, "decision_span", counted)
    proxy = otel_trace.ProxyTracerProvider()
    monkeypatch.setattr(decision_spans.otel_trace, "get_tracer_provider", lambda: proxy)
    adapter = OpenAIAgentsAdapter(meeting_agent(OfflineModel()))
    paused = await collect(adapter, ask(MEETING))
    done = await collect(adapter, answer(paused, payload=TUESDAY))
    assert isinstance(done[-1], RunFinishedEvent)
    assert made == []

    # Once the application sets a provider up, the next decision is a span again.
    monkeypatch.undo()
    monkeypatch.setattr(decision_spans, "decision_span", counted)
    provider = TracerProvider()
    exported = InMemorySpanExporter()
    provider.add_span_processor(SimpleSpanProcessor(exported))
    monkeypatch.setattr(decision_spans.otel_trace, "get_tracer_provider", lambda: provider)
    monkeypatch.setattr(decision_spans.otel_trace, "get_tracer", provider.get_tracer)
    paused = await collect(adapter, ask(MEETING, thread="t2"))
    resumed = answer(paused, payload=TUESDAY)
    await collect(adapter, resumed.model_copy(update={"thread_id": "t2"}))
    assert len(made) == 1
    assert [s.name for s in exported.get_finished_spans()] == [SPAN_NAME]
