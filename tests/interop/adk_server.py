"""Google ADK's AG-UI server (`ag-ui-adk`) for the interoperability tests.

Runs in its own virtual environment (`.venv-interop/adk`, made by
`scripts/interop-venv adk`). A scripted `BaseLlm` (no network) calls
`schedule_meeting`, a `FunctionTool(require_confirmation=True)`; the tool appends
one JSON line to the runs file for every real run.

    python adk_server.py PORT RUNS_FILE MODE

MODE: `legacy` (the server's defaults: a client tool call `adk_request_confirmation`
and no outcome) or `outcome` (`emit_interrupt_outcome=True`).
"""

from __future__ import annotations

import json
import sys
from collections.abc import AsyncGenerator
from pathlib import Path

import uvicorn
from ag_ui_adk import ADKAgent, add_adk_fastapi_endpoint
from fastapi import FastAPI
from google.adk.agents import LlmAgent
from google.adk.models.base_llm import BaseLlm
from google.adk.models.llm_request import LlmRequest
from google.adk.models.llm_response import LlmResponse
from google.adk.tools import FunctionTool
from google.genai import types


class ScriptedLlm(BaseLlm):
    """Calls schedule_meeting for a new request; after its result, repeats what it said."""

    async def generate_content_async(
        self, llm_request: LlmRequest, stream: bool = False
    ) -> AsyncGenerator[LlmResponse, None]:
        last = llm_request.contents[-1]
        answers = [p.function_response for p in last.parts or [] if p.function_response]
        if answers and answers[-1].name == "schedule_meeting":
            said = json.dumps(answers[-1].response)
            part = types.Part(text=f"The tool said: {said}")
        else:
            call = types.FunctionCall(name="schedule_meeting", args={"topic": "Q3 roadmap"})
            part = types.Part(function_call=call)
        yield LlmResponse(content=types.Content(role="model", parts=[part]))


def build(runs_file: Path, mode: str) -> ADKAgent:
    def schedule_meeting(topic: str) -> str:
        """Schedule a meeting about `topic`."""
        with runs_file.open("a") as runs:
            runs.write(json.dumps({"topic": topic}) + "\n")
        return f"Scheduled {topic}."

    agent = LlmAgent(
        name="scheduler",
        model=ScriptedLlm(model="scripted"),
        tools=[FunctionTool(schedule_meeting, require_confirmation=True)],
    )
    return ADKAgent(
        adk_agent=agent,
        app_name="scheduler",
        user_id="tester",
        emit_interrupt_outcome=mode == "outcome",
    )


def main() -> None:
    port, runs_file, mode = int(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
    app = FastAPI()
    add_adk_fastapi_endpoint(app, build(runs_file, mode), "/")
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="info")


if __name__ == "__main__":
    main()
