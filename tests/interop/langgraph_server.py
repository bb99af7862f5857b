"""LangGraph's own AG-UI server (`ag-ui-langgraph`) for the interoperability tests.

Runs in its own virtual environment (`.venv-interop/langgraph`, made by
`scripts/interop-venv`): its pins conflict with the kit's. A scripted LangChain
chat model (no network) calls `schedule_meeting`; the tool node pauses with
LangGraph's `interrupt()` and, when approved, appends one JSON line to the runs
file, so a test counts real runs.

    python langgraph_server.py PORT RUNS_FILE MODE SHAPE

MODE: `legacy` (the server's defaults: CUSTOM on_interrupt, no outcome) or
`outcome` (`emit_interrupt_outcome=True`). SHAPE: what the graph passes to
`interrupt()`: `agui` (a dict with reason, message, toolCallId, responseSchema),
`human` (Agent Inbox's HumanInterrupt, in a list) or `text` (a plain question).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import uvicorn
from ag_ui_langgraph import LangGraphAgent, add_langgraph_fastapi_endpoint
from fastapi import FastAPI
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langgraph.checkpoint.memory import MemorySaver
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.types import interrupt

APPROVAL_SCHEMA = {
    "type": "object",
    "properties": {"approved": {"type": "boolean"}, "chosen_time": {"type": "string"}},
    "required": ["approved"],
}


class ScriptedChat(BaseChatModel):
    """Calls schedule_meeting for a new request; after the tool, repeats what it said."""

    def _generate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kw: Any
    ) -> ChatResult:
        last = messages[-1]
        if isinstance(last, ToolMessage):
            reply = AIMessage(content=f"The tool said: {last.content}")
        else:
            asks = sum(isinstance(m, HumanMessage) for m in messages)
            call = {
                "name": "schedule_meeting",
                "args": {"topic": "Q3 roadmap"},
                "id": f"call_{asks}",
            }
            reply = AIMessage(content="", tool_calls=[call])
        return ChatResult(generations=[ChatGeneration(message=reply)])

    @property
    def _llm_type(self) -> str:
        return "scripted"


def build(runs_file: Path, shape: str) -> Any:
    model = ScriptedChat()

    def agent(state: MessagesState) -> dict[str, Any]:
        return {"messages": [model.invoke(state["messages"])]}

    def route(state: MessagesState) -> str:
        last = state["messages"][-1]
        return "tools" if isinstance(last, AIMessage) and last.tool_calls else END

    def tools(state: MessagesState) -> dict[str, Any]:
        call = state["messages"][-1].tool_calls[0]
        if shape == "agui":
            value: Any = {
                "reason": "tool_call",
                "message": f"Schedule {call['args']['topic']}?",
                "toolCallId": call["id"],
                "responseSchema": APPROVAL_SCHEMA,
            }
        elif shape == "human":
            value = [
                {
                    "action_request": {"action": call["name"], "args": call["args"]},
                    "config": {
                        "allow_accept": True,
                        "allow_edit": True,
                        "allow_respond": True,
                        "allow_ignore": True,
                    },
                    "description": f"Schedule {call['args']['topic']}?",
                }
            ]
        else:
            value = f"When should the {call['args']['topic']} meeting be?"
        answer = interrupt(value)
        args, approved, said = dict(call["args"]), False, None
        if shape == "agui":
            approved = isinstance(answer, dict) and answer.get("approved") is True
            said = answer.get("chosen_time") if approved else None
        elif shape == "human":
            response = answer[0] if isinstance(answer, list) and answer else answer
            kind = response.get("type") if isinstance(response, dict) else None
            approved = kind in ("accept", "edit")
            if kind == "edit":
                args = response["args"]["args"]
            said = response.get("args") if kind == "response" else None
        else:
            approved = isinstance(answer, str) and bool(answer)
            said = answer if approved else None
        if approved:
            with runs_file.open("a") as runs:
                runs.write(json.dumps({"call_id": call["id"], "args": args, "said": said}) + "\n")
            content = f"Scheduled {args['topic']}" + (f" at {said}" if said else "") + "."
        else:
            content = "Not scheduled" + (f": {said}" if said else "") + "."
        return {"messages": [ToolMessage(content=content, tool_call_id=call["id"])]}

    graph = StateGraph(MessagesState)
    graph.add_node("agent", agent)
    graph.add_node("tools", tools)
    graph.add_edge(START, "agent")
    graph.add_conditional_edges("agent", route, ["tools", END])
    graph.add_edge("tools", "agent")
    return graph.compile(checkpointer=MemorySaver())


def main() -> None:
    port, runs_file, mode, shape = int(sys.argv[1]), Path(sys.argv[2]), sys.argv[3], sys.argv[4]
    app = FastAPI()
    served = LangGraphAgent(
        name="scheduler", graph=build(runs_file, shape), emit_interrupt_outcome=mode == "outcome"
    )
    add_langgraph_fastapi_endpoint(app, served, "/")
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="info")


if __name__ == "__main__":
    main()
