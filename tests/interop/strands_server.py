"""AWS Strands' AG-UI server (`ag-ui-strands`) for the interoperability tests.

Runs in its own virtual environment (`.venv-interop/strands`, made by
`scripts/interop-venv strands`). A scripted `strands.models.Model` (no network)
calls `schedule_meeting`, which `ToolBehavior(interrupt_on_call=True)` gates;
the tool appends one JSON line to the runs file for every real run.

    python strands_server.py PORT RUNS_FILE
"""

from __future__ import annotations

import json
import sys
from collections.abc import AsyncGenerator
from pathlib import Path
from typing import Any

import uvicorn
from ag_ui_strands import StrandsAgent, StrandsAgentConfig, ToolBehavior
from ag_ui_strands.endpoint import add_strands_fastapi_endpoint
from fastapi import FastAPI
from strands import Agent, tool
from strands.models.model import Model


class ScriptedModel(Model):
    """Calls schedule_meeting for a new request; after its result, repeats what it said."""

    def update_config(self, **model_config: Any) -> None:
        pass

    def get_config(self) -> Any:
        return {}

    def structured_output(self, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError

    async def stream(self, messages: Any, *args: Any, **kwargs: Any) -> AsyncGenerator[Any, None]:
        last = messages[-1]["content"]
        results = [block["toolResult"] for block in last if "toolResult" in block]
        yield {"messageStart": {"role": "assistant"}}
        if results:
            said = " ".join(c.get("text", "") for c in results[0].get("content", []))
            yield {"contentBlockStart": {"start": {}}}
            yield {"contentBlockDelta": {"delta": {"text": f"The tool said: {said}"}}}
            yield {"contentBlockStop": {}}
            yield {"messageStop": {"stopReason": "end_turn"}}
            return
        asks = sum(1 for m in messages if m["role"] == "user")
        start = {"toolUse": {"toolUseId": f"call_{asks}", "name": "schedule_meeting"}}
        yield {"contentBlockStart": {"start": start}}
        arguments = json.dumps({"topic": "Q3 roadmap"})
        yield {"contentBlockDelta": {"delta": {"toolUse": {"input": arguments}}}}
        yield {"contentBlockStop": {}}
        yield {"messageStop": {"stopReason": "tool_use"}}


def build(runs_file: Path) -> StrandsAgent:
    @tool
    def schedule_meeting(topic: str) -> str:
        """Schedule a meeting about `topic`."""
        with runs_file.open("a") as runs:
            runs.write(json.dumps({"topic": topic}) + "\n")
        return f"Scheduled {topic}."

    agent = Agent(model=ScriptedModel(), tools=[schedule_meeting], callback_handler=None)
    config = StrandsAgentConfig(
        tool_behaviors={"schedule_meeting": ToolBehavior(interrupt_on_call=True)}
    )
    return StrandsAgent(agent=agent, name="scheduler", config=config)


def main() -> None:
    port, runs_file = int(sys.argv[1]), Path(sys.argv[2])
    app = FastAPI()
    add_strands_fastapi_endpoint(app, build(runs_file), "/")
    uvicorn.run(app, host="127.0.0.1", port=port, log_level="info")


if __name__ == "__main__":
    main()
