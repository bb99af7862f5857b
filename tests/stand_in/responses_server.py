"""A local stand-in for the OpenAI Responses API: `POST /v1/responses`, streamed as SSE.

It answers with the offline model's rules, serialised as the very event
shapes the SDK's `OpenAIResponsesModel` parses (response.created, output
items, text and function-call argument deltas, response.completed), so the
path a user with a key takes (the SDK's model, the `openai` HTTP client and
its stream parser) runs end to end with no network. `requests` counts the
calls it answered.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from typing import Any

from agents import FunctionTool, ModelSettings, ModelTracing
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from interrupt_widget.sdk.offline_model import OfflineModel


async def _never_called(_ctx: Any, _arguments: str) -> str:
    raise RuntimeError("the stand-in only names tools; the client runs them")


def _tools(body: dict[str, Any]) -> list[FunctionTool]:
    return [
        FunctionTool(
            name=str(t["name"]),
            description=str(t.get("description") or ""),
            params_json_schema=dict(t.get("parameters") or {}),
            on_invoke_tool=_never_called,
            strict_json_schema=bool(t.get("strict", False)),
        )
        for t in body.get("tools") or []
        if t.get("type") == "function"
    ]


class ResponsesStandIn:
    """The app, and what it saw."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        """Every request body, in order."""
        self.app = Starlette(routes=[Route("/v1/responses", self._respond, methods=["POST"])])

    async def _respond(self, request: Request) -> Response:
        if request.headers.get("authorization", "") != "Bearer stand-in-key":
            return JSONResponse({"error": {"message": "bad key"}}, status_code=401)
        body = json.loads(await request.body())
        self.requests.append(body)
        if not body.get("stream"):
            return JSONResponse({"error": {"message": "only streaming"}}, status_code=400)

        async def events() -> AsyncIterator[bytes]:
            stream = OfflineModel().stream_response(
                body.get("instructions"),
                body.get("input") or [],
                ModelSettings(),
                list(_tools(body)),
                None,
                [],
                ModelTracing.DISABLED,
                previous_response_id=None,
                conversation_id=None,
                prompt=None,
            )
            async for event in stream:
                # By alias, as the real API spells its fields (`async`, not `async_`).
                data = event.model_dump_json(warnings=False, by_alias=True)
                yield f"event: {event.type}\ndata: {data}\n\n".encode()

        return StreamingResponse(events(), media_type="text/event-stream")


app = ResponsesStandIn().app
"""For `uvicorn responses_server:app` in a process of its own."""
