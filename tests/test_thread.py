"""ConversationThread: the in-kernel loop over the real adapter and the offline model."""

from __future__ import annotations

import asyncio
import json
import sys
import textwrap
from collections.abc import AsyncIterator, Callable

import pytest
from ag_ui.core import (
    BaseEvent,
    MessagesSnapshotEvent,
    ResumeEntry,
    RunAgentInput,
    RunFinishedEvent,
    RunStartedEvent,
    TextMessageContentEvent,
    TextMessageStartEvent,
    ToolCallStartEvent,
    ToolMessage,
)
from agents import set_tracing_disabled

from interrupt_widget.agui.wire import messages_to_wire, to_wire
from interrupt_widget.asking.thread import (
    ConversationThread,
    InterruptsOpen,
    ResumeRefused,
    ThreadBusy,
)
from interrupt_widget.examples import meeting_agent
from interrupt_widget.sdk.adapter import OpenAIAgentsAdapter
from interrupt_widget.sdk.offline_model import OfflineModel
from interrupt_widget.testing.stream_rules import assert_valid_thread

set_tracing_disabled(True)

BOOK = "Book a call with Alice about the Q3 roadmap"
APPROVE = {"approved": True, "chosen_time": "2030-01-08T10:00:00Z", "chosen_label": "Tue 10:00"}


def new_thread(**kwargs: object) -> tuple[ConversationThread, object]:
    agent = meeting_agent(OfflineModel())
    return ConversationThread(OpenAIAgentsAdapter(agent), **kwargs), agent  # type: ignore[arg-type]


async def test_a_run_commits_the_snapshot_and_records_its_events() -> None:
    thread, _agent = new_thread()
    outcome = await thread.start(thread.user_input("reply with 20 words"))
    assert outcome.kind == "success"
    assert [m.role for m in thread.messages] == ["user", "assistant"]
    assert len(thread.messages[1].content.split()) == 20  # type: ignore[union-attr]
    assert thread.interrupts == []
    assert_valid_thread([r.events for r in thread.runs])


async def test_interrupt_then_resume_takes_the_answers_once() -> None:
    thread, agent = new_thread()
    outcome = await thread.start(thread.user_input(BOOK))
    assert outcome.kind == "interrupt"
    [interrupt] = thread.interrupts
    assert interrupt.tool_call_id is not None
    with pytest.raises(InterruptsOpen, match="schedule_meeting"):
        thread.user_input("and another thing")
    entry = ResumeEntry(interrupt_id=interrupt.id, status="resolved", payload=APPROVE)
    resume = thread.resume_input([entry])
    assert resume.resume == [entry]
    with pytest.raises(ResumeRefused, match="already taken"):
        thread.resume_input([entry])  # a second submission from another view
    done = await thread.start(resume)
    assert done.kind == "success"
    assert agent.executions.count("schedule_meeting") == 1  # type: ignore[attr-defined]
    assert_valid_thread([r.events for r in thread.runs])


async def test_resume_entries_must_cover_the_open_interrupts_exactly() -> None:
    thread, _agent = new_thread()
    await thread.start(thread.user_input(BOOK))
    [interrupt] = thread.interrupts
    ok = {"interruptId": interrupt.id, "status": "cancelled"}
    with pytest.raises(ResumeRefused, match=f"no answer for {interrupt.id}; nothing was taken"):
        thread.resume_input([])
    with pytest.raises(ResumeRefused, match="not open: nope"):
        thread.resume_input([ok, {"interruptId": "nope", "status": "cancelled"}])
    with pytest.raises(ResumeRefused, match="more than one answer"):
        thread.resume_input([ok, ok])
    assert thread.interrupts == [interrupt]  # nothing was taken
    thread.resume_input([ok])


async def test_a_refused_resume_reopens_the_interrupt_and_nothing_runs() -> None:
    thread, agent = new_thread()
    await thread.start(thread.user_input(BOOK))
    [interrupt] = thread.interrupts
    bad = ResumeEntry(interrupt_id=interrupt.id, status="resolved", payload={"approved": "yes"})
    outcome = await thread.start(thread.resume_input([bad]))
    assert outcome.kind == "error"
    assert outcome.code is not None
    assert thread.interrupts == [interrupt]  # still answerable
    assert agent.executions.count() == 0  # type: ignore[attr-defined]
    good = ResumeEntry(interrupt_id=interrupt.id, status="resolved", payload=APPROVE)
    assert (await thread.start(thread.resume_input([good]))).kind == "success"
    assert agent.executions.count() == 1  # type: ignore[attr-defined]


def on_first_text(action: Callable[[], object]) -> Callable[[BaseEvent], None]:
    """A sink that calls `action` once, when the first text chunk streams."""
    done: list[object] = []

    def sink(event: BaseEvent) -> None:
        if not done and event.type.value == "TEXT_MESSAGE_CONTENT":
            done.append(action())

    return sink


async def test_only_one_run_at_a_time_and_stop_ends_it_cancelled() -> None:
    thread, _agent = new_thread()
    stopped: list[bool] = []
    sink = on_first_text(lambda: stopped.append(thread.stop()))
    task = thread.start(thread.user_input("reply with 20000 words"), on_event=sink)
    with pytest.raises(ThreadBusy):
        thread.user_input("hi")
    outcome = await task
    assert stopped == [True]
    assert outcome.kind == "cancelled"
    assert not thread.stop()  # nothing left to stop
    assert thread.messages[-1].role == "assistant"
    assert_valid_thread([r.events for r in thread.runs])


class _PlainAgent:
    """An AG-UI agent whose stream has no `stop()` (a remote one): counts the runs it began."""

    def __init__(self) -> None:
        self.began = 0

    async def run(self, input: RunAgentInput) -> AsyncIterator[BaseEvent]:
        self.began += 1
        yield RunStartedEvent(thread_id=input.thread_id, run_id=input.run_id)
        yield MessagesSnapshotEvent(messages=list(input.messages))
        yield RunFinishedEvent(thread_id=input.thread_id, run_id=input.run_id)


@pytest.mark.parametrize("plain", [False, True], ids=["adapter", "stream without stop"])
async def test_stop_before_the_run_begins_ends_it_cancelled(plain: bool) -> None:
    agent = _PlainAgent()
    thread = ConversationThread(agent) if plain else new_thread()[0]
    task = thread.start(thread.user_input(BOOK))
    assert thread.stop()  # the same tick: the task has not run yet
    outcome = await task
    assert outcome.kind == "cancelled"
    assert thread.interrupts == []
    assert thread.runs[-1].outcome == outcome
    assert [m.role for m in thread.messages] == ["user"]
    if plain:
        assert agent.began == 0  # its stream was never read
    assert_valid_thread([r.events for r in thread.runs])


class _HangingAgent:
    """An AG-UI agent with no `stop()` that opens a text and a tool call, then hangs."""

    def __init__(self) -> None:
        self.hanging = asyncio.Event()

    async def run(self, input: RunAgentInput) -> AsyncIterator[BaseEvent]:
        yield RunStartedEvent(thread_id=input.thread_id, run_id=input.run_id)
        yield TextMessageStartEvent(message_id="m1", role="assistant")
        yield TextMessageContentEvent(message_id="m1", delta="Half a reply")
        yield ToolCallStartEvent(tool_call_id="c1", tool_call_name="lookup", parent_message_id="m1")
        self.hanging.set()
        await asyncio.Event().wait()  # never ends: only the thread's stop ends the run


async def test_a_stopped_stream_that_left_a_text_and_a_call_open_has_them_closed() -> None:
    agent = _HangingAgent()
    thread = ConversationThread(agent)
    task = thread.start(thread.user_input("hello"))
    await asyncio.wait_for(agent.hanging.wait(), timeout=10)
    assert thread.stop()
    outcome = await asyncio.wait_for(task, timeout=10)
    assert outcome.kind == "cancelled"
    ends = [type(e).__name__ for e in thread.runs[-1].events[-3:]]
    assert ends == ["ToolCallEndEvent", "TextMessageEndEvent", "RunFinishedEvent"]
    assert [m.role for m in thread.messages] == ["user", "assistant"]
    assert thread.messages[-1].content == "Half a reply"  # what was said is kept
    assert_valid_thread([r.events for r in thread.runs])


async def test_cancelling_the_task_from_outside_still_ends_the_run_cleanly() -> None:
    thread, _agent = new_thread()
    tasks: list[asyncio.Task[object]] = []
    sink = on_first_text(lambda: tasks[0].cancel())
    tasks.append(thread.start(thread.user_input("reply with 20000 words"), on_event=sink))
    with pytest.raises(asyncio.CancelledError):
        await tasks[0]
    assert not thread.running


async def test_a_thread_resumes_from_saved_messages_in_a_fresh_process() -> None:
    thread, _agent = new_thread()
    await thread.start(thread.user_input(BOOK))
    [interrupt] = thread.interrupts
    saved = json.dumps(
        {
            "thread_id": thread.thread_id,
            "messages": messages_to_wire(thread.messages),
            "interrupts": [to_wire(interrupt)],
        }
    )
    script = textwrap.dedent(
        """
        import asyncio, json, sys
        from agents import set_tracing_disabled
        from interrupt_widget.sdk.adapter import OpenAIAgentsAdapter
        from interrupt_widget.examples import meeting_agent
        from interrupt_widget.sdk.offline_model import OfflineModel
        from interrupt_widget.asking.thread import ConversationThread

        async def main() -> None:
            set_tracing_disabled(True)
            saved = json.loads(sys.stdin.read())
            agent = meeting_agent(OfflineModel())
            thread = ConversationThread(
                OpenAIAgentsAdapter(agent), thread_id=saved["thread_id"],
                messages=saved["messages"], interrupts=saved["interrupts"],
            )
            answer = {"approved": True, "chosen_time": "2030-01-08T10:00:00Z",
                      "chosen_label": "Tue 10:00"}
            entry = {"interruptId": thread.interrupts[0].id, "status": "resolved",
                     "payload": answer}
            outcome = await thread.start(thread.resume_input([entry]))
            print(json.dumps({"kind": outcome.kind, "runs": agent.executions.count(),
                              "reply": thread.messages[-1].content}))

        asyncio.run(main())
        """
    )
    child = await asyncio.create_subprocess_exec(
        sys.executable,
        "-c",
        script,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await child.communicate(saved.encode())
    assert child.returncode == 0, err.decode()
    result = json.loads(out.decode().strip().splitlines()[-1])
    assert result == {"kind": "success", "runs": 1, "reply": result["reply"]}
    assert "Tue 10:00" in result["reply"]


async def test_tool_results_from_a_stopped_resume_are_kept() -> None:
    thread, agent = new_thread()
    await thread.start(thread.user_input(BOOK))
    [interrupt] = thread.interrupts
    cancel = ResumeEntry(interrupt_id=interrupt.id, status="cancelled")
    outcome = await thread.start(thread.resume_input([cancel]), stop_once_answered=True)
    assert outcome.kind == "cancelled"
    results = [m for m in thread.messages if isinstance(m, ToolMessage)]
    assert [m.tool_call_id for m in results] == [interrupt.tool_call_id]
    assert thread.messages[-1] is results[0]  # the model did not speak after the answer
    assert thread.interrupts == []
    assert agent.executions.count() == 0  # type: ignore[attr-defined]
    assert_valid_thread([r.events for r in thread.runs])
