"""The adapter end to end with the offline model: interrupts, resume, outcomes, stop."""

from __future__ import annotations

import asyncio
import json
import re
import subprocess
import sys
import threading
from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from ag_ui.core import (
    AssistantMessage,
    BaseEvent,
    Interrupt,
    Message,
    MessagesSnapshotEvent,
    ResumeEntry,
    RunAgentInput,
    RunErrorEvent,
    RunFinishedCancelledOutcome,
    RunFinishedEvent,
    RunFinishedInterruptOutcome,
    RunFinishedSuccessOutcome,
    RunStartedEvent,
    TextMessageContentEvent,
    ToolCallResultEvent,
    ToolMessage,
    UserMessage,
)
from agents import Agent, FunctionTool, function_tool
from agents.mcp import MCPServer
from agents.testing import ScriptedModel, function_call
from agents.tool_context import ToolContext

import interrupt_widget
from interrupt_widget import ErrorCode, OfflineModel, OpenAIAgentsAdapter, resume_payload
from interrupt_widget.agui.wire import messages_to_wire, to_wire
from interrupt_widget.examples import MEETING_RESPONSE_SCHEMA, expense_agent, meeting_agent
from interrupt_widget.examples.tool_runs import ExampleAgent
from interrupt_widget.testing.stream_rules import assert_valid_stream

MEETING = "Book a call with Alice about the Q3 roadmap"
TUESDAY = {"approved": True, "chosen_time": "2030-01-08T10:00:00Z", "chosen_label": "Tue 10:00"}


def ask(text: str, *messages: Message, run: str = "r1", thread: str = "t1") -> RunAgentInput:
    user = UserMessage(id=f"u{len(messages) + 1}", content=text)
    return RunAgentInput(thread_id=thread, run_id=run, messages=[*messages, user])


def resume(
    events: list[BaseEvent], *entries: ResumeEntry, run: str = "r2", thread: str = "t1"
) -> RunAgentInput:
    return RunAgentInput(
        thread_id=thread, run_id=run, messages=snapshot(events), resume=list(entries)
    )


def snapshot(events: list[BaseEvent]) -> list[Message]:
    return [e for e in events if isinstance(e, MessagesSnapshotEvent)][-1].messages


def interrupts(events: list[BaseEvent]) -> list[Interrupt]:
    finished = events[-1]
    assert isinstance(finished, RunFinishedEvent)
    assert isinstance(finished.outcome, RunFinishedInterruptOutcome)
    return finished.outcome.interrupts


def resolved(interrupt: Interrupt, payload: dict[str, Any]) -> ResumeEntry:
    return ResumeEntry(interrupt_id=interrupt.id, status="resolved", payload=payload)


def cancelled(interrupt: Interrupt) -> ResumeEntry:
    return ResumeEntry(interrupt_id=interrupt.id, status="cancelled")


def text_of(events: list[BaseEvent]) -> str:
    return "".join(e.delta for e in events if isinstance(e, TextMessageContentEvent))


def results(events: list[BaseEvent]) -> list[ToolCallResultEvent]:
    return [e for e in events if isinstance(e, ToolCallResultEvent)]


def outcome(events: list[BaseEvent]) -> Any:
    finished = events[-1]
    assert isinstance(finished, RunFinishedEvent), finished
    return finished.outcome


async def test_gated_call_ends_the_run_with_a_tool_call_interrupt(collect: Any) -> None:
    agent = meeting_agent(OfflineModel())
    events = await collect(OpenAIAgentsAdapter(agent, expires_in=600), ask(MEETING))

    assert isinstance(events[0], RunStartedEvent)
    assert events[0].protocol_version == "1.0"
    [interrupt] = interrupts(events)
    assert interrupt.reason == "tool_call"
    metadata = dict(interrupt.metadata or {})
    assert metadata.pop("asked_at").endswith("Z")  # when it was asked: how long it waits
    assert metadata == {
        "tool_name": "schedule_meeting",
        "tool_input": {"topic": "Q3 roadmap", "attendee": "Alice"},
        "agent_name": "Meeting scheduler",
    }
    schema = interrupt.response_schema or {}
    assert schema["required"] == ["approved"]
    assert (
        schema["properties"]["chosen_time"] == MEETING_RESPONSE_SCHEMA["properties"]["chosen_time"]
    )
    assert interrupt.expires_at is not None
    assert interrupt.expires_at.endswith("Z")
    assert interrupt.message
    assert "schedule_meeting" in interrupt.message
    # What a later run needs travels with the call in the snapshot, not in the adapter.
    call = next(
        c
        for m in snapshot(events)
        if isinstance(m, AssistantMessage)
        for c in m.tool_calls or []
        if c.id == interrupt.tool_call_id
    )
    assert (call.metadata or {})["interrupt"] == to_wire(interrupt)
    assert agent.executions.count() == 0


async def test_approved_call_runs_once_with_the_answer_and_the_model_confirms(collect: Any) -> None:
    agent = meeting_agent(OfflineModel())
    adapter = OpenAIAgentsAdapter(agent)
    first = await collect(adapter, ask(MEETING))
    [interrupt] = interrupts(first)

    second = await collect(adapter, resume(first, resolved(interrupt, TUESDAY)))

    assert second[1].type.value == "MESSAGES_SNAPSHOT"  # anchors the earlier call's result
    [result] = results(second)
    assert result.tool_call_id == interrupt.tool_call_id
    assert result.content == 'Scheduled "Q3 roadmap" with Alice for Tue 10:00.'
    assert "Tue 10:00" in text_of(second)
    assert isinstance(outcome(second), RunFinishedSuccessOutcome)
    [executed] = agent.executions.calls
    assert executed.payload == TUESDAY
    assert executed.arguments == {"topic": "Q3 roadmap", "attendee": "Alice"}


@pytest.mark.parametrize(
    ("entry", "decision"),
    [
        ({"status": "resolved", "payload": {"approved": False}}, "denied"),
        ({"status": "cancelled"}, "cancelled"),
    ],
)
async def test_denied_or_cancelled_call_never_runs_and_the_model_is_told(
    collect: Any, entry: dict[str, Any], decision: str
) -> None:
    agent = meeting_agent(OfflineModel())
    adapter = OpenAIAgentsAdapter(agent)
    first = await collect(adapter, ask(MEETING))
    [interrupt] = interrupts(first)

    answer = ResumeEntry(interrupt_id=interrupt.id, **entry)
    second = await collect(adapter, resume(first, answer))

    [result] = results(second)
    assert str(result.content).startswith("Not run:")
    assert (result.metadata or {})["interrupt"]["decision"] == decision
    assert text_of(second) == "The meeting was not scheduled."
    assert "Scheduled" not in text_of(second)
    assert agent.executions.count() == 0
    tool_messages = [m for m in snapshot(second) if isinstance(m, ToolMessage)]
    assert [m.tool_call_id for m in tool_messages] == [interrupt.tool_call_id]


async def test_a_denial_s_reason_reaches_the_model_as_text(collect: Any) -> None:
    agent = meeting_agent(OfflineModel())
    adapter = OpenAIAgentsAdapter(agent)
    first = await collect(adapter, ask(MEETING))
    [interrupt] = interrupts(first)
    reason = "Alice is\n on <b>leave</b>; try Bob"
    answer = ResumeEntry(
        interrupt_id=interrupt.id, status="resolved", payload={"approved": False, "reason": reason}
    )
    second = await collect(adapter, resume(first, answer))

    [result] = results(second)
    expected = "Not run: the user did not approve schedule_meeting. Reason: "
    assert result.content == expected + "Alice is on <b>leave</b>; try Bob"
    assert (
        text_of(second)
        == "The meeting was not scheduled. You said: Alice is on <b>leave</b>; try Bob"
    )
    assert agent.executions.count() == 0


async def test_a_reason_longer_than_the_schema_allows_is_refused(collect: Any) -> None:
    agent = meeting_agent(OfflineModel())
    adapter = OpenAIAgentsAdapter(agent)
    first = await collect(adapter, ask(MEETING))
    [interrupt] = interrupts(first)
    payload = {"approved": False, "reason": "x" * 1001}
    answer = ResumeEntry(interrupt_id=interrupt.id, status="resolved", payload=payload)
    second = await collect(adapter, resume(first, answer))

    [error] = [e for e in second if isinstance(e, RunErrorEvent)]
    assert error.code == "invalid_payload"
    assert "/reason" in error.message
    assert results(second) == []


async def test_parallel_interrupts_one_approved_one_cancelled(collect: Any) -> None:
    agent = expense_agent(OfflineModel())
    adapter = OpenAIAgentsAdapter(agent)
    request = (
        "submit_expense amount=120 for a team dinner and issue_refund amount=80 for a bad order"
    )
    first = await collect(adapter, ask(request))
    expense, refund = interrupts(first)
    assert {expense.metadata["tool_name"], refund.metadata["tool_name"]} == {  # type: ignore[index]
        "submit_expense",
        "issue_refund",
    }

    answer = {"approved": True, "category": "meals", "approved_amount": 100}
    second = await collect(adapter, resume(first, resolved(expense, answer), cancelled(refund)))

    by_call = {r.tool_call_id: str(r.content) for r in results(second)}
    assert by_call[expense.tool_call_id or ""] == "Filed 100.00 for a team dinner under meals."
    assert by_call[refund.tool_call_id or ""].startswith("Not run:")
    assert agent.executions.count("submit_expense") == 1
    assert agent.executions.count("issue_refund") == 0
    assert "issue_refund did not run." in text_of(second)


async def test_callable_needs_approval_lets_small_refunds_through(collect: Any) -> None:
    agent = expense_agent(OfflineModel())
    events = await collect(OpenAIAgentsAdapter(agent), ask("issue_refund amount=20 for a typo"))
    assert isinstance(outcome(events), RunFinishedSuccessOutcome)
    assert [r.content for r in results(events)] == ["Refunded 20.00 (a typo)."]
    assert agent.executions.count("issue_refund") == 1


async def test_replaying_a_resume_runs_the_call_once(collect: Any) -> None:
    agent = meeting_agent(OfflineModel())
    adapter = OpenAIAgentsAdapter(agent)
    first = await collect(adapter, ask(MEETING))
    [interrupt] = interrupts(first)
    again = resume(first, resolved(interrupt, TUESDAY))

    runs = [await collect(adapter, again) for _ in range(3)]

    assert agent.executions.count() == 1
    assert {str(results(run)[0].content) for run in runs} == {
        'Scheduled "Q3 roadmap" with Alice for Tue 10:00.'
    }
    # Replayed on top of the finished conversation, the entry is ignored and nothing runs.
    later = RunAgentInput(
        thread_id="t1", run_id="r9", messages=snapshot(runs[0]), resume=again.resume
    )
    fresh = OpenAIAgentsAdapter(agent)
    done = await collect(fresh, later)
    assert results(done) == []
    assert isinstance(outcome(done), RunFinishedSuccessOutcome)
    assert agent.executions.count() == 1


async def test_concurrent_identical_resumes_run_the_call_once(collect: Any) -> None:
    release = asyncio.Event()
    seen_snapshot = 0
    runs = 5
    executed: list[str] = []

    @function_tool(needs_approval=True)
    async def schedule_meeting(ctx: ToolContext[Any], topic: str, attendee: str = "") -> str:
        """Schedule."""
        await release.wait()  # held until every run has reached the same call
        executed.append(ctx.tool_call_id)
        return f"booked {resume_payload(ctx)['chosen_label']}"

    adapter = OpenAIAgentsAdapter(
        Agent(name="a", model=OfflineModel(), tools=[schedule_meeting]),
        response_schemas={"schedule_meeting": MEETING_RESPONSE_SCHEMA},  # the fields it reads
    )
    first = await collect(adapter, ask(MEETING))
    [interrupt] = interrupts(first)
    again = resume(first, resolved(interrupt, TUESDAY))

    async def consume() -> list[BaseEvent]:
        nonlocal seen_snapshot
        events: list[BaseEvent] = []
        async for event in adapter.run(again):
            events.append(event)
            if isinstance(event, MessagesSnapshotEvent) and len(events) == 2:
                seen_snapshot += 1
                if seen_snapshot == runs:
                    release.set()
        return events

    streams = await asyncio.gather(*(consume() for _ in range(runs)))

    assert executed == [interrupt.tool_call_id]
    for events in streams:
        assert_valid_stream(events)
        assert [r.content for r in results(events)] == ["booked Tue 10:00"]


def test_concurrent_resumes_from_threads_run_the_call_once() -> None:
    agent = meeting_agent(OfflineModel())
    adapter = OpenAIAgentsAdapter(agent)
    first = asyncio.run(_collect(adapter, ask(MEETING)))
    [interrupt] = interrupts(first)
    again = resume(first, resolved(interrupt, TUESDAY))
    start = threading.Barrier(4)
    streams: list[list[BaseEvent]] = []
    lock = threading.Lock()

    def worker() -> None:
        start.wait()
        events = asyncio.run(_collect(adapter, again))
        with lock:
            streams.append(events)

    threads = [threading.Thread(target=worker) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert len(streams) == 4
    assert agent.executions.count() == 1
    for events in streams:
        assert_valid_stream(events)
        assert isinstance(outcome(events), RunFinishedSuccessOutcome)


async def _collect(adapter: OpenAIAgentsAdapter, request: RunAgentInput) -> list[BaseEvent]:
    return [event async for event in adapter.run(request)]


async def test_resume_reusing_the_interrupted_run_id_works(collect: Any) -> None:
    agent = meeting_agent(OfflineModel())
    adapter = OpenAIAgentsAdapter(agent)
    first = await collect(adapter, ask(MEETING, run="same"))
    [interrupt] = interrupts(first)
    second = await collect(adapter, resume(first, resolved(interrupt, TUESDAY), run="same"))
    assert isinstance(outcome(second), RunFinishedSuccessOutcome)
    ids = [m.id for m in snapshot(second)]
    assert len(ids) == len(set(ids))
    assert agent.executions.count() == 1


async def test_duplicate_tool_message_from_the_client_is_dropped(collect: Any) -> None:
    agent = meeting_agent(OfflineModel())
    adapter = OpenAIAgentsAdapter(agent)
    first = await collect(adapter, ask(MEETING))
    [interrupt] = interrupts(first)
    duplicate = ToolMessage(
        id="client-tool-1", tool_call_id=interrupt.tool_call_id or "", content=json.dumps(TUESDAY)
    )
    request = RunAgentInput(
        thread_id="t1",
        run_id="r2",
        messages=[*snapshot(first), duplicate],
        resume=[resolved(interrupt, TUESDAY)],
    )

    second = await collect(adapter, request)

    assert agent.executions.count() == 1
    assert "client-tool-1" not in [m.id for m in snapshot(second)]
    assert [r.content for r in results(second)] == [
        'Scheduled "Q3 roadmap" with Alice for Tue 10:00.'
    ]


async def test_an_unknown_interrupt_id_beside_valid_entries_ends_in_run_error(
    collect: Any,
) -> None:
    agent = meeting_agent(OfflineModel())
    adapter = OpenAIAgentsAdapter(agent)
    first = await collect(adapter, ask(MEETING))
    [interrupt] = interrupts(first)
    stray = ResumeEntry(interrupt_id="nobody", status="cancelled")

    refused = await collect(adapter, resume(first, stray, resolved(interrupt, TUESDAY)))

    assert isinstance(refused[-1], RunErrorEvent)
    assert refused[-1].code == ErrorCode.UNKNOWN_INTERRUPT
    assert "'nobody'" in refused[-1].message
    assert agent.executions.count() == 0
    # The same answer without the stray entry still runs the call, once.
    second = await collect(adapter, resume(first, resolved(interrupt, TUESDAY)))
    assert isinstance(outcome(second), RunFinishedSuccessOutcome)
    assert agent.executions.count() == 1


async def test_untrusted_text_from_the_request_is_echoed_verbatim(collect: Any) -> None:
    topic = "<img src=x onerror=alert(1)> & <script>alert('hi')</script>"
    agent = meeting_agent(OfflineModel())
    adapter = OpenAIAgentsAdapter(agent)
    first = await collect(adapter, ask(f"Book a call with Bob about {topic}"))
    [interrupt] = interrupts(first)
    assert interrupt.metadata["tool_input"] == {"topic": topic, "attendee": "Bob"}  # type: ignore[index]

    second = await collect(adapter, resume(first, resolved(interrupt, TUESDAY)))
    assert topic in text_of(second)


async def test_expired_interrupt_can_still_be_cancelled(collect: Any) -> None:
    now = datetime(2030, 1, 1, tzinfo=UTC)
    clock = [now]
    agent = meeting_agent(OfflineModel())
    adapter = OpenAIAgentsAdapter(agent, expires_in=timedelta(minutes=5), clock=lambda: clock[0])
    first = await collect(adapter, ask(MEETING))
    [interrupt] = interrupts(first)
    assert interrupt.expires_at == "2030-01-01T00:05:00Z"
    clock[0] = now + timedelta(minutes=6)

    refused = await collect(adapter, resume(first, resolved(interrupt, TUESDAY)))
    assert isinstance(refused[-1], RunErrorEvent)
    assert refused[-1].code == ErrorCode.INTERRUPT_EXPIRED

    second = await collect(adapter, resume(first, cancelled(interrupt)))
    assert isinstance(outcome(second), RunFinishedSuccessOutcome)
    assert agent.executions.count() == 0


async def test_model_that_raises_ends_in_run_error_with_its_message(collect: Any) -> None:
    agent = Agent(name="a", model=ScriptedModel([RuntimeError("the model fell over")]))
    events = await collect(OpenAIAgentsAdapter(agent), ask("hello"))
    error = events[-1]
    assert isinstance(error, RunErrorEvent)
    assert error.code == ErrorCode.MODEL_ERROR
    assert error.message == "the model fell over"


class _FailsAfterTools(OfflineModel):
    """The offline model, except that it raises once a tool result is in the input."""

    def stream_response(
        self, system_instructions: Any, input: Any, *args: Any, **kwargs: Any
    ) -> AsyncIterator[Any]:
        if isinstance(input, list) and any(
            isinstance(i, dict) and i.get("type") == "function_call_output" for i in input
        ):
            raise RuntimeError("model down after the tool")
        return super().stream_response(system_instructions, input, *args, **kwargs)


async def test_model_error_after_an_approved_call_keeps_its_result(collect: Any) -> None:
    agent = meeting_agent(_FailsAfterTools())
    adapter = OpenAIAgentsAdapter(agent)
    first = await collect(adapter, ask(MEETING))
    [interrupt] = interrupts(first)

    second = await collect(adapter, resume(first, resolved(interrupt, TUESDAY)))

    assert isinstance(second[-1], RunErrorEvent)
    assert second[-1].message == "model down after the tool"
    kept = snapshot(second)
    assert any(
        isinstance(m, ToolMessage) and m.tool_call_id == interrupt.tool_call_id for m in kept
    )
    # Continuing from what was kept never runs the call again.
    agent.model = OfflineModel()
    third = await collect(
        OpenAIAgentsAdapter(agent), RunAgentInput(thread_id="t1", run_id="r3", messages=kept)
    )
    assert isinstance(outcome(third), RunFinishedSuccessOutcome)
    assert agent.executions.count() == 1


def _raising_agent(*, policy_reraises: bool) -> Agent[Any]:
    options: dict[str, Any] = {"failure_error_function": None} if policy_reraises else {}

    @function_tool(needs_approval=True, **options)
    def transfer(amount: int) -> str:
        """Move money."""
        raise ValueError(f"bank refused {amount}")

    return Agent(name="bank", model=OfflineModel(), tools=[transfer])


async def test_approved_tool_that_raises_tells_the_model_by_default(collect: Any) -> None:
    adapter = OpenAIAgentsAdapter(_raising_agent(policy_reraises=False))
    first = await collect(adapter, ask("transfer amount=5"))
    [interrupt] = interrupts(first)
    second = await collect(adapter, resume(first, resolved(interrupt, {"approved": True})))
    [result] = results(second)
    assert "error occurred" in str(result.content)
    assert isinstance(outcome(second), RunFinishedSuccessOutcome)


async def test_approved_tool_whose_policy_reraises_ends_in_tool_error(collect: Any) -> None:
    adapter = OpenAIAgentsAdapter(_raising_agent(policy_reraises=True))
    first = await collect(adapter, ask("transfer amount=5"))
    [interrupt] = interrupts(first)
    second = await collect(adapter, resume(first, resolved(interrupt, {"approved": True})))
    error = second[-1]
    assert isinstance(error, RunErrorEvent)
    assert error.code == ErrorCode.TOOL_ERROR
    assert interrupt.id in error.message
    assert "bank refused 5" in error.message


async def test_tool_that_raises_inside_the_sdk_run_follows_its_policy(collect: Any) -> None:
    @function_tool
    def lookup(term: str) -> str:
        """Look something up."""
        raise KeyError(term)

    @function_tool(failure_error_function=None)
    def strict_lookup(term: str) -> str:
        """Look something up, loudly."""
        raise KeyError(term)

    agent = Agent(name="a", model=OfflineModel(), tools=[lookup, strict_lookup])
    told = await collect(OpenAIAgentsAdapter(agent), ask("lookup term=x"))
    assert "error occurred" in str(results(told)[0].content)
    failed = await collect(OpenAIAgentsAdapter(agent), ask("strict_lookup term=x"))
    assert isinstance(failed[-1], RunErrorEvent)
    assert failed[-1].code == ErrorCode.TOOL_ERROR


async def test_stop_ends_with_the_cancelled_outcome_and_keeps_the_text() -> None:
    agent = Agent(name="a", model=OfflineModel(reply_words=400))
    stream = OpenAIAgentsAdapter(agent).run(ask("talk to me"))
    events: list[BaseEvent] = []
    async for event in stream:
        events.append(event)
        if isinstance(event, TextMessageContentEvent) and len(events) == 4:
            stream.stop()

    assert_valid_stream(events)
    assert isinstance(outcome(events), RunFinishedCancelledOutcome)
    said = text_of(events)
    assert 0 < len(said.split()) < 400
    kept = snapshot(events)[-1]
    assert isinstance(kept, AssistantMessage)
    assert kept.content == said


async def test_cancelling_the_consumer_task_yields_the_cancelled_outcome_then_raises() -> None:
    agent = Agent(name="a", model=OfflineModel(reply_words=400))
    events: list[BaseEvent] = []
    streaming = asyncio.Event()

    async def consume() -> None:
        async for event in OpenAIAgentsAdapter(agent).run(ask("talk to me")):
            events.append(event)
            if isinstance(event, TextMessageContentEvent):
                streaming.set()

    task = asyncio.ensure_future(consume())
    await streaming.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task

    assert_valid_stream(events)
    assert isinstance(outcome(events), RunFinishedCancelledOutcome)


async def test_stop_during_an_approved_call_lets_it_finish_once() -> None:
    started = asyncio.Event()
    release = asyncio.Event()
    executed: list[str] = []

    @function_tool(needs_approval=True)
    async def deploy(ctx: ToolContext[Any], service: str) -> str:
        """Deploy."""
        started.set()
        await release.wait()
        executed.append(ctx.tool_call_id)
        return f"deployed {service}"

    adapter = OpenAIAgentsAdapter(Agent(name="ops", model=OfflineModel(), tools=[deploy]))
    first = await _collect(adapter, ask("deploy service=web"))
    [interrupt] = interrupts(first)
    stream = adapter.run(resume(first, resolved(interrupt, {"approved": True})))
    events: list[BaseEvent] = []

    async def consume() -> None:
        async for event in stream:
            events.append(event)

    task = asyncio.ensure_future(consume())
    await started.wait()
    stream.stop()
    release.set()
    await task

    assert_valid_stream(events)
    assert isinstance(outcome(events), RunFinishedCancelledOutcome)
    assert [r.content for r in results(events)] == ["deployed web"]
    assert executed == [interrupt.tool_call_id]


async def test_aclose_ends_the_stream_without_more_events() -> None:
    stream = OpenAIAgentsAdapter(Agent(name="a", model=OfflineModel(reply_words=50))).run(ask("x"))
    first = await stream.__anext__()
    assert isinstance(first, RunStartedEvent)
    await stream.aclose()
    with pytest.raises(StopAsyncIteration):
        await stream.__anext__()


RESUME_IN_A_NEW_PROCESS = """
import asyncio, json, sys
from ag_ui.core import RunAgentInput
from agents import set_tracing_disabled
from interrupt_widget import OfflineModel, OpenAIAgentsAdapter
from interrupt_widget.examples import meeting_agent
from interrupt_widget.agui.wire import to_wire

set_tracing_disabled(True)
agent = meeting_agent(OfflineModel())
request = RunAgentInput.model_validate(json.load(sys.stdin))

async def main():
    async for event in OpenAIAgentsAdapter(agent).run(request):
        print(json.dumps(to_wire(event)))
    print(json.dumps({"executions": [c.payload for c in agent.executions.calls]}))

asyncio.run(main())
"""


def test_resume_from_serialised_messages_in_a_fresh_process() -> None:
    first = asyncio.run(_collect(OpenAIAgentsAdapter(meeting_agent(OfflineModel())), ask(MEETING)))
    assert_valid_stream(first)
    [interrupt] = interrupts(first)
    wire = {
        "threadId": "t1",
        "runId": "r2",
        "messages": messages_to_wire(snapshot(first)),
        "resume": [to_wire(resolved(interrupt, TUESDAY))],
    }
    text = json.dumps(wire)  # the saved conversation, as a file or a request body holds it

    done = subprocess.run(
        [sys.executable, "-c", RESUME_IN_A_NEW_PROCESS],
        input=text,
        capture_output=True,
        text=True,
        check=True,
    )

    *lines, tail = done.stdout.strip().splitlines()
    events = assert_valid_stream([json.loads(line) for line in lines])
    assert json.loads(tail) == {"executions": [TUESDAY]}
    assert [r.content for r in results(events)] == [
        'Scheduled "Q3 roadmap" with Alice for Tue 10:00.'
    ]
    assert isinstance(outcome(events), RunFinishedSuccessOutcome)


async def test_module_docstring_example_runs_as_written(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("INTERRUPT_WIDGET_MODEL", "offline")
    doc = interrupt_widget.sdk.adapter.__doc__ or ""
    block = re.search(r"::\n\n((?:    .*\n|\n)+)", doc)
    assert block is not None
    source = "\n".join(line[4:] for line in block.group(1).splitlines())
    assert len(source.strip().splitlines()) <= 22
    source = source.replace("asyncio.run(main())", "")
    namespace: dict[str, Any] = {}
    exec(compile(source, "adapter-example", "exec"), namespace)
    await namespace["main"]()

    printed = capsys.readouterr().out
    assert "TOOL_CALL_RESULT" in printed
    assert "RUN_FINISHED" in printed
    assert "Tue" in printed


async def test_stop_from_another_thread() -> None:
    agent = Agent(name="a", model=OfflineModel(reply_words=400))
    stream = OpenAIAgentsAdapter(agent).run(ask("talk to me"))
    events: list[BaseEvent] = []
    stopper: threading.Thread | None = None
    async for event in stream:
        events.append(event)
        if isinstance(event, TextMessageContentEvent) and stopper is None:
            stopper = threading.Thread(target=stream.stop)
            stopper.start()
    assert stopper is not None
    stopper.join()

    assert_valid_stream(events)
    assert isinstance(outcome(events), RunFinishedCancelledOutcome)


async def test_response_schemas_add_to_and_override_the_declared_ones(collect: Any) -> None:
    override = {"type": "object", "properties": {"note": {"type": "string"}}}
    adapter = OpenAIAgentsAdapter(
        meeting_agent(OfflineModel()), response_schemas={"schedule_meeting": override}
    )
    [interrupt] = interrupts(await collect(adapter, ask(MEETING)))
    properties = (interrupt.response_schema or {})["properties"]
    assert set(properties) == {"approved", "reason", "note"}


def test_public_names() -> None:
    for name in (
        "OpenAIAgentsAdapter",
        "AdapterRunHandle",
        "AdapterError",
        "ErrorCode",
        "OfflineModel",
        "default_model",
        "resume_payload",
        "with_response_schema",
    ):
        assert name in interrupt_widget.__all__
        assert getattr(interrupt_widget, name) is not None
    assert resume_payload(object()) is None  # outside an approved call there is no answer


async def test_interrupt_raised_after_a_handoff_resumes_with_that_agent(collect: Any) -> None:
    scheduler = meeting_agent(OfflineModel())
    triage = Agent(
        name="Triage",
        model=ScriptedModel(
            [[function_call("transfer_to_meeting_scheduler", {}, call_id="handoff-1")]]
        ),
        handoffs=[scheduler],
    )
    adapter = OpenAIAgentsAdapter(triage)
    first = await collect(adapter, ask(MEETING))
    [interrupt] = interrupts(first)
    assert (interrupt.metadata or {})["agent_name"] == "Meeting scheduler"

    second = await collect(adapter, resume(first, resolved(interrupt, TUESDAY)))

    assert scheduler.executions.count() == 1
    assert "Tue 10:00" in text_of(second)  # the scheduler, not triage, carried on


class _ToolServer(MCPServer):
    """An MCP server with no tools of its own, which can go down."""

    def __init__(self) -> None:
        super().__init__()
        self.down = False

    @property
    def name(self) -> str:
        return "tools"

    async def connect(self) -> None:
        pass

    async def cleanup(self) -> None:
        pass

    async def list_tools(self, *_: Any) -> list[Any]:
        if self.down:
            raise ConnectionError("tool server unreachable")
        return []

    async def call_tool(self, *_: Any, **__: Any) -> Any:
        raise AssertionError("no tool of this server is called")

    async def list_prompts(self) -> Any:
        raise AssertionError("no prompt is listed")

    async def get_prompt(self, *_: Any, **__: Any) -> Any:
        raise AssertionError("no prompt is read")


class _ListingAgent(ExampleAgent):
    """An agent whose own `get_all_tools` may hide its tools (say, by the user's role)."""

    hides: bool = False

    async def get_all_tools(self, run_context: Any) -> list[Any]:
        return [] if self.hides else await super().get_all_tools(run_context)


async def _approved_after(collect: Any, agent: Agent[Any], change: Callable[[], Any]) -> None:
    """Pause `agent` on its meeting call, `change` it, approve the call: refused, tool gone."""
    adapter = OpenAIAgentsAdapter(agent)
    first = await collect(adapter, ask(MEETING))
    [interrupt] = interrupts(first)
    change()
    error = (await collect(adapter, resume(first, resolved(interrupt, TUESDAY))))[-1]
    assert isinstance(error, RunErrorEvent)
    assert error.code == ErrorCode.INVALID_INPUT
    assert "'schedule_meeting', which agent" in error.message


async def test_a_resume_is_refused_when_the_tool_left_the_agent(collect: Any) -> None:
    agent = meeting_agent(OfflineModel())
    await _approved_after(collect, agent, lambda: setattr(agent, "tools", []))
    assert agent.executions.count() == 0


async def test_a_resume_is_refused_when_the_tool_is_switched_off(collect: Any) -> None:
    agent = meeting_agent(OfflineModel())
    [tool] = agent.tools
    assert isinstance(tool, FunctionTool)
    await _approved_after(collect, agent, lambda: setattr(tool, "is_enabled", lambda *_: False))
    assert agent.executions.count() == 0


async def test_a_resume_is_refused_when_the_agent_s_own_listing_hides_the_tool(
    collect: Any,
) -> None:
    base = meeting_agent(OfflineModel())
    agent = _ListingAgent(
        name=base.name, instructions=base.instructions, tools=base.tools, model=base.model
    )
    await _approved_after(collect, agent, lambda: setattr(agent, "hides", True))
    assert base.executions.count() == 0


async def test_agent_whose_tools_cannot_be_listed_ends_in_run_error(collect: Any) -> None:
    agent = meeting_agent(OfflineModel())
    server = _ToolServer()
    agent.mcp_servers = [server]
    adapter = OpenAIAgentsAdapter(agent)
    first = await collect(adapter, ask(MEETING))
    [interrupt] = interrupts(first)

    server.down = True
    second = await collect(adapter, resume(first, resolved(interrupt, TUESDAY)))

    assert isinstance(second[-1], RunErrorEvent)
    assert second[-1].message == "tool server unreachable"
    assert second[-1].code == ErrorCode.AGENT_ERROR
    assert agent.executions.count() == 0


def test_a_threads_runs_share_one_run_config_grouped_by_it_and_a_given_one_is_kept() -> None:
    from agents import RunConfig

    from interrupt_widget import OfflineModel, OpenAIAgentsAdapter
    from interrupt_widget.examples import meeting_agent

    adapter = OpenAIAgentsAdapter(meeting_agent(OfflineModel()), ledger="memory")
    first = adapter.run_config_for("t1")
    assert first.group_id == "t1"
    assert adapter.run_config_for("t1") is first  # the pause and its resume: one provider
    other = adapter.run_config_for("t2")
    assert other.group_id == "t2"
    assert other is not first
    for n in range(600):  # many threads: it keeps a few hundred, then starts again
        assert adapter.run_config_for(f"n{n}").group_id == f"n{n}"
    assert adapter.run_config_for("t1").group_id == "t1"

    given = RunConfig(workflow_name="mine")
    adapter.run_config = given
    grouped = adapter.run_config_for("t3")
    assert (grouped.group_id, grouped.workflow_name) == ("t3", "mine")
    assert given.group_id is None  # the caller's own is not changed
    adapter.run_config = RunConfig(group_id="all")
    assert adapter.run_config_for("t4") is adapter.run_config
