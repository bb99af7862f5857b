"""A scripted stand-in for a real model's part in notebook 10 (the data-ops agent).

It plays what a capable model does with "Please delete 5 rows from the staging_orders
table" and the tools `count_rows` and `delete_rows`: count first, then ask to delete,
then report what the tool said (or that nothing was deleted). Served by the stand-in
(`ResponsesStandIn(turn=data_ops_turn)`), it is recorded through the real `openai`
client into the notebook's cassette by `record_notebook_cassette.py`.
"""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

from agents import FunctionTool, ModelResponse, Usage
from openai.types.responses import (
    ResponseFunctionToolCall,
    ResponseOutputMessage,
    ResponseOutputText,
)


def _said(items: list[Any] | str) -> tuple[str, list[dict[str, Any]]]:
    """The last user message's text, and the items after it."""
    listed = [{"role": "user", "content": items}] if isinstance(items, str) else list(items)
    last = max(i for i, item in enumerate(listed) if item.get("role") == "user")
    content = listed[last]["content"]
    text = content if isinstance(content, str) else " ".join(p.get("text", "") for p in content)
    return text, listed[last + 1 :]


def _call(name: str, arguments: dict[str, Any], key: str) -> ResponseFunctionToolCall:
    return ResponseFunctionToolCall(
        id=f"fc_{key}",
        call_id=f"call_{key}",
        type="function_call",
        name=name,
        arguments=json.dumps(arguments),
        status="completed",
    )


def _text(text: str, key: str) -> ResponseOutputMessage:
    return ResponseOutputMessage(
        id=f"msg_{key}",
        type="message",
        role="assistant",
        status="completed",
        content=[ResponseOutputText(type="output_text", text=text, annotations=[])],
    )


async def data_ops_turn(
    instructions: str | None, items: list[Any] | str, tools: list[FunctionTool]
) -> ModelResponse:
    """The next step of the scripted conversation (see the module docs)."""
    request, after = _said(items)
    key = hashlib.sha256(json.dumps([request, after], sort_keys=True).encode()).hexdigest()[:24]
    table = re.search(r"\b([a-z_]+_[a-z_]+)\b table", request) or re.search(r"(\w+)$", request)
    count = re.search(r"\b(\d+)\b", request)
    arguments = {
        "table": table.group(1) if table else "",
        "count": int(count.group(1)) if count else 0,
    }
    outputs = [i for i in after if i.get("type") == "function_call_output"]
    if not outputs:
        output: Any = _call("count_rows", {"table": arguments["table"]}, key)
    elif len(outputs) == 1:
        output = _call("delete_rows", arguments, key)
    else:
        said = str(outputs[-1].get("output"))
        output = _text(
            f"Done: {said}."
            if said.startswith("deleted")
            else f"I did not delete anything: {said}",
            key,
        )
    return ModelResponse(output=[output], usage=Usage(requests=1), response_id=f"resp_{key}")
