"""Agents served to browser tests, whose tools append each real run to a file.

The browser test and the `serve` process share nothing but that file
(`$RECORDED_RUNS_FILE`, one JSON line per run of the tool's body), so the
count and the time a test reads are what the server really did.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from agents import FunctionTool
from agents.tool_context import ToolContext

from interrupt_widget.examples import ExampleAgent, ExecutedCall, meeting_agent

RUNS_FILE_ENV = "RECORDED_RUNS_FILE"


def read_runs(path: Path) -> list[dict[str, Any]]:
    """The runs written so far, oldest first."""
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines() if line]


def write_runs(path: Path, calls: list[ExecutedCall]) -> None:
    """Append `calls` to the file, one JSON line each."""
    with path.open("a") as runs:
        for call in calls:
            line = {"call_id": call.call_id, "arguments": call.arguments, "answer": call.payload}
            runs.write(json.dumps(line) + "\n")


def meeting_agent_writing_runs() -> ExampleAgent:
    """The quickstart's meeting agent; every run of `schedule_meeting` is appended to the file."""
    path = Path(os.environ[RUNS_FILE_ENV])
    agent = meeting_agent()
    (tool,) = agent.tools
    assert isinstance(tool, FunctionTool)
    invoke = tool.on_invoke_tool

    async def invoke_and_write(ctx: ToolContext[Any], arguments: str) -> Any:
        seen = len(agent.executions.calls)
        output = await invoke(ctx, arguments)
        write_runs(path, agent.executions.calls[seen:])
        return output

    tool.on_invoke_tool = invoke_and_write
    return agent
