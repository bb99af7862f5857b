"""LangGraph's durable approval cycle, timed in LangGraph's own virtual environment.

`bench/durable.py` runs this file with `.venv-interop/langgraph/bin/python` (made by
`scripts/interop-venv langgraph`: LangGraph's pins conflict with the kit's), so it imports
nothing from the kit. The cycle is the kit's bench cycle done the LangGraph way:

- a scripted chat model (a LangChain `BaseChatModel`, no network) plays the offline
  model's part: asked to book a call it calls `schedule_meeting(topic, attendee)`; after
  the tool it quotes what the tool said, streamed a word at a time;
- the tool asks for approval with LangGraph's `interrupt()` inside a prebuilt `ToolNode`,
  as LangGraph's docs show for a tool that needs a human;
- the graph is compiled with `AsyncSqliteSaver` (`langgraph-checkpoint-sqlite`) on a file;
  each run streams (`astream`, modes `messages` and `updates`), the first ends in
  `__interrupt__`, the second resumes with `Command(resume=answer)`, which reads the
  thread's checkpoint back from SQLite, runs the tool and streams the reply.

It reads commands on stdin, one a line, so the parent can interleave its own blocks of
cycles with this process's: `cycles N` times N cycles (each after `gc.collect()`, on
`time.process_time()` and `time.perf_counter()`, as the parent's `Timings` does) and
prints one JSON line `{"cpu": [...], "wall": [...]}`; end of input ends the process.

    .venv-interop/langgraph/bin/python bench/peers/langgraph_cycle.py DB_FILE
"""

from __future__ import annotations

import asyncio
import gc
import json
import re
import sys
import time
from collections.abc import AsyncIterator, Iterator
from importlib.metadata import version
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import (
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    HumanMessage,
    ToolMessage,
)
from langchain_core.outputs import ChatGeneration, ChatGenerationChunk, ChatResult
from langchain_core.tools import tool
from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver
from langgraph.graph import START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition
from langgraph.types import Command, interrupt

REQUEST = "Book a call with Alice about the Q3 roadmap"
ANSWER = {"approved": True, "chosen_time": "2030-01-08T10:00:00Z", "chosen_label": "Tue 10:00"}


class ScriptedChat(BaseChatModel):
    """The offline model's two turns of the meeting cycle: a tool call, then a quoted result."""

    def _turn(self, messages: list[BaseMessage]) -> AIMessage:
        last = messages[-1]
        if isinstance(last, ToolMessage):
            return AIMessage(content=f"schedule_meeting reported: {last.content}")
        asks = sum(isinstance(m, HumanMessage) for m in messages)
        call = {
            "name": "schedule_meeting",
            "args": {"topic": "Q3 roadmap", "attendee": "Alice"},
            "id": f"call_{asks}",
        }
        return AIMessage(content="", tool_calls=[call])

    def _generate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kw: Any
    ) -> ChatResult:
        return ChatResult(generations=[ChatGeneration(message=self._turn(messages))])

    def _chunks(self, messages: list[BaseMessage]) -> Iterator[ChatGenerationChunk]:
        turn = self._turn(messages)
        if turn.tool_calls:
            chunk = AIMessageChunk(content="", tool_calls=turn.tool_calls)
            yield ChatGenerationChunk(message=chunk)
            return
        for word in re.findall(r"\S+\s*", str(turn.content)):
            yield ChatGenerationChunk(message=AIMessageChunk(content=word))

    async def _astream(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kw: Any
    ) -> AsyncIterator[ChatGenerationChunk]:
        # LangChain streams through this when a `messages` stream mode listens, and tells
        # LangGraph of each chunk itself (`on_llm_new_token`).
        for chunk in self._chunks(messages):
            yield chunk

    @property
    def _llm_type(self) -> str:
        return "scripted"


@tool
def schedule_meeting(topic: str, attendee: str = "") -> str:
    """Schedule a meeting about `topic` with `attendee` at a time the user picks."""
    answer = interrupt({"tool": "schedule_meeting", "args": {"topic": topic, "attendee": attendee}})
    if not isinstance(answer, dict) or answer.get("approved") is not True:
        return f'Not scheduled: no time was chosen for "{topic}".'
    with_whom = f" with {attendee}" if attendee else ""
    return f'Scheduled "{topic}"{with_whom} for {answer.get("chosen_label")}.'


def build(saver: AsyncSqliteSaver) -> Any:
    model = ScriptedChat()

    async def agent(state: MessagesState) -> dict[str, Any]:
        return {"messages": [await model.ainvoke(state["messages"])]}

    graph = StateGraph(MessagesState)
    graph.add_node("agent", agent)
    graph.add_node("tools", ToolNode([schedule_meeting]))
    graph.add_edge(START, "agent")
    graph.add_conditional_edges("agent", tools_condition)
    graph.add_edge("tools", "agent")
    return graph.compile(checkpointer=saver)


async def cycle(graph: Any, thread: str) -> str:
    """Request -> interrupt (checkpointed) -> resume from the checkpoint -> the reply's text."""
    config = {"configurable": {"thread_id": thread}}
    asked: list[Any] = []
    first = {"messages": [HumanMessage(content=REQUEST)]}
    async for mode, chunk in graph.astream(first, config, stream_mode=["messages", "updates"]):
        if mode == "updates" and "__interrupt__" in chunk:
            asked.extend(chunk["__interrupt__"])
    assert len(asked) == 1, asked
    said: list[str] = []
    resume = Command(resume=ANSWER)
    async for mode, chunk in graph.astream(resume, config, stream_mode=["messages", "updates"]):
        if mode == "messages" and chunk[1].get("langgraph_node") == "agent":
            said.append(str(chunk[0].content))
    return "".join(said)


async def serve(db_file: str) -> None:
    async with AsyncSqliteSaver.from_conn_string(db_file) as saver:
        graph = build(saver)
        reply = await cycle(graph, "warm-0")
        assert reply.startswith('schedule_meeting reported: Scheduled "Q3 roadmap"'), reply
        for warm in range(1, 5):
            await cycle(graph, f"warm-{warm}")
        gc.freeze()  # as the parent does: each gc.collect() then sees only the cycles' garbage
        print(json.dumps({"ready": version("langgraph"), "reply": reply}), flush=True)
        done = 0
        for line in sys.stdin:
            count = int(line.split()[1])
            cpu: list[float] = []
            wall: list[float] = []
            for _ in range(count):
                gc.collect()  # no cycle pays for the garbage of the one before
                started_wall, started_cpu = time.perf_counter(), time.process_time()
                await cycle(graph, f"cycle-{done}")  # a new thread each time, as the kit's
                cpu.append(time.process_time() - started_cpu)
                wall.append(time.perf_counter() - started_wall)
                done += 1
            print(json.dumps({"cpu": cpu, "wall": wall}), flush=True)


if __name__ == "__main__":
    asyncio.run(serve(sys.argv[1]))
