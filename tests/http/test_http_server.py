"""The AG-UI HTTP app with the real adapter and the offline model.

Most tests talk to the app in process (httpx's ASGI transport); the ones about
SSE framing, disconnects and replicas run uvicorn on 127.0.0.1.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections.abc import AsyncIterator
from typing import Any

import httpx
import pytest
from ag_ui.core import (
    BaseEvent,
    MessagesSnapshotEvent,
    ResumeEntry,
    RunAgentInput,
    RunErrorEvent,
    RunFinishedEvent,
    RunFinishedInterruptOutcome,
    TextMessageContentEvent,
    ToolCallResultEvent,
    UserMessage,
)
from ag_ui_validate.transport import TransportOptions, validate_endpoint
from agents import function_tool, set_tracing_disabled
from starlette.applications import Starlette

from interrupt_widget import OpenAIAgentsAdapter, serve
from interrupt_widget.agui.interrupts import approval_message
from interrupt_widget.agui.wire import to_wire
from interrupt_widget.examples import ExampleAgent, meeting_agent
from interrupt_widget.http.app import asgi_app
from interrupt_widget.http.client import AGUIClient
from interrupt_widget.http.serve import running_server
from interrupt_widget.sdk.offline_model import OfflineModel
from interrupt_widget.testing import assert_valid_stream, assert_valid_thread

set_tracing_disabled(True)

SECRET = "a-test-secret-that-is-long-enough"
TOKEN = "test-token"
ASK = "Please schedule a meeting about the quarterly budget with Ada."
APPROVE = {"approved": True, "chosen_time": "2030-03-04T15:00:00Z", "chosen_label": "Monday 3pm"}


@pytest.fixture
def agent() -> ExampleAgent:
    return meeting_agent(OfflineModel())


@pytest.fixture
def app(agent: ExampleAgent) -> Starlette:
    return asgi_app(agent, token=TOKEN, secret=SECRET)


def in_process(app: Starlette, *, token: str | None = TOKEN) -> AGUIClient:
    return AGUIClient("http://agent.test/", token=token, transport=httpx.ASGITransport(app=app))


def first_input(thread_id: str = "thread-1") -> RunAgentInput:
    return RunAgentInput(
        thread_id=thread_id, run_id="run-1", messages=[UserMessage(id="user-1", content=ASK)]
    )


async def collect(client: AGUIClient, run_input: RunAgentInput) -> list[BaseEvent]:
    return [event async for event in client.run(run_input)]


def paused(events: list[BaseEvent]) -> tuple[MessagesSnapshotEvent, RunFinishedEvent]:
    snapshot = [e for e in events if isinstance(e, MessagesSnapshotEvent)][-1]
    finished = events[-1]
    assert isinstance(finished, RunFinishedEvent)
    assert isinstance(finished.outcome, RunFinishedInterruptOutcome)
    return snapshot, finished


def resume_input(
    events: list[BaseEvent], payload: Any = APPROVE, *, thread_id: str = "thread-1"
) -> RunAgentInput:
    snapshot, finished = paused(events)
    assert isinstance(finished.outcome, RunFinishedInterruptOutcome)
    entries = [
        ResumeEntry(interrupt_id=i.id, status="resolved", payload=payload)
        for i in finished.outcome.interrupts
    ]
    return RunAgentInput(
        thread_id=thread_id, run_id="run-2", messages=snapshot.messages, resume=entries
    )


def wire(run_input: RunAgentInput) -> dict[str, Any]:
    return to_wire(run_input)


def error_of(events: list[BaseEvent]) -> RunErrorEvent:
    assert isinstance(events[-1], RunErrorEvent), [e.type for e in events]
    return events[-1]


async def test_a_paused_run_resumes_over_http_and_the_tool_runs_once(
    app: Starlette, agent: ExampleAgent
) -> None:
    async with in_process(app) as client:
        events = await collect(client, first_input())
        snapshot, finished = paused(events)
        assert isinstance(finished.outcome, RunFinishedInterruptOutcome)
        (interrupt,) = finished.outcome.interrupts
        assert interrupt.reason == "tool_call"
        (call,) = [c for m in snapshot.messages for c in getattr(m, "tool_calls", None) or []]
        assert call.metadata is not None
        # The same fingerprint on the call the client stores and on the interrupt it answers.
        assert call.metadata["fingerprint"].startswith("v2.")
        assert interrupt.metadata is not None
        assert interrupt.metadata["fingerprint"] == call.metadata["fingerprint"]
        assert agent.executions.count() == 0

        resumed = await collect(client, resume_input(events))
    assert_valid_thread([events, resumed])
    results = [e for e in resumed if isinstance(e, ToolCallResultEvent)]
    assert [r.tool_call_id for r in results] == [call.id]
    assert "Monday 3pm" in results[0].content
    text = "".join(e.delta for e in resumed if isinstance(e, TextMessageContentEvent))
    assert "Monday 3pm" in text
    assert isinstance(resumed[-1], RunFinishedEvent)
    assert agent.executions.count("schedule_meeting", call_id=call.id) == 1


@pytest.mark.parametrize(
    ("tamper", "code"),
    [
        ("arguments", "call_mismatch"),
        ("tool_name", "call_mismatch"),
        ("call_and_record", "fingerprint_invalid"),
        ("expiry", "fingerprint_invalid"),
        ("strip", "fingerprint_missing"),
        ("thread", "fingerprint_invalid"),
    ],
)
async def test_a_forged_resume_runs_nothing(
    app: Starlette, agent: ExampleAgent, tamper: str, code: str
) -> None:
    async with in_process(app) as client:
        events = await collect(client, first_input())
        thread_id = "thread-other" if tamper == "thread" else "thread-1"
        forged = wire(resume_input(events, thread_id=thread_id))
        for message in forged["messages"]:
            for call in message.get("toolCalls", []):
                if tamper == "arguments":
                    call["function"]["arguments"] = json.dumps({"topic": "wire all the money"})
                elif tamper == "tool_name":
                    call["function"]["name"] = "delete_everything"
                elif tamper == "call_and_record":  # both edited alike: only the HMAC tells
                    record = call["metadata"]["interrupt"]
                    call["function"]["arguments"] = json.dumps({"topic": "wire all the money"})
                    record["metadata"]["tool_input"] = {"topic": "wire all the money"}
                    record["message"] = approval_message(
                        record["metadata"]["tool_name"], record["metadata"]["tool_input"]
                    )
                elif tamper == "expiry":
                    call["metadata"]["interrupt"]["expiresAt"] = "2999-01-01T00:00:00Z"
                elif tamper == "strip":
                    del call["metadata"]["fingerprint"]
        refused = await collect(client, RunAgentInput.model_validate(forged))
    assert_valid_stream(refused)
    error = error_of(refused)
    assert error.code == code
    assert "nothing was run" in error.message.lower() or "no fingerprint" in error.message
    assert [e.type.value for e in refused] == ["RUN_STARTED", "RUN_ERROR"]
    assert agent.executions.count() == 0


async def test_a_server_with_another_secret_refuses_open_interrupts(agent: ExampleAgent) -> None:
    async with in_process(asgi_app(agent, token=TOKEN, secret=SECRET)) as client:
        events = await collect(client, first_input())
    restarted = asgi_app(agent, token=TOKEN, secret="a-different-secret-after-restart")
    async with in_process(restarted) as client:
        refused = await collect(client, resume_input(events))
    error = error_of(refused)
    # Said as it is: another secret, not a changed call.
    assert error.code == "fingerprint_other_secret"
    assert "another server secret" in error.message
    assert "restarted with a new secret" in error.message
    assert "changed" not in error.message.replace("not found changed", "")
    assert agent.executions.count() == 0


async def test_a_replica_with_the_same_secret_resumes_what_another_paused(
    agent: ExampleAgent,
) -> None:
    async with in_process(asgi_app(agent, secret=SECRET), token=None) as client:
        events = await collect(client, first_input())
    # A second app with its own adapter: nothing is shared but the secret.
    async with in_process(asgi_app(agent, secret=SECRET), token=None) as client:
        resumed = await collect(client, resume_input(events))
    assert isinstance(resumed[-1], RunFinishedEvent)
    assert agent.executions.count() == 1


async def test_the_same_resume_sent_twice_runs_the_tool_once(
    app: Starlette, agent: ExampleAgent
) -> None:
    async with in_process(app) as client:
        events = await collect(client, first_input())
        again = resume_input(events)
        first, second = await asyncio.gather(collect(client, again), collect(client, again))
    for resumed in (first, second):
        assert isinstance(resumed[-1], RunFinishedEvent)
    assert agent.executions.count() == 1


async def test_a_denial_runs_nothing_and_is_still_signed_history(
    app: Starlette, agent: ExampleAgent
) -> None:
    async with in_process(app) as client:
        events = await collect(client, first_input())
        denied = await collect(client, resume_input(events, {"approved": False}))
    assert isinstance(denied[-1], RunFinishedEvent)
    assert agent.executions.count() == 0 or all(
        c.payload == {"approved": False} for c in agent.executions.calls
    )
    snapshot = [e for e in denied if isinstance(e, MessagesSnapshotEvent)][-1]
    calls = [c for m in snapshot.messages for c in getattr(m, "tool_calls", None) or []]
    assert all(c.metadata and c.metadata["fingerprint"].startswith("v2.") for c in calls)


# --- Bad requests: a 4xx JSON error, never a traceback, nothing run -----------------------


async def raw_post(
    app: Starlette,
    body: bytes | None,
    *,
    headers: dict[str, str] | None = None,
    path: str = "/",
    method: str = "POST",
) -> httpx.Response:
    sent = {"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"}
    sent.update(headers or {})
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://agent.test"
    ) as http:
        return await http.request(method, path, content=body, headers=sent)


def assert_json_error(response: httpx.Response, status: int, code: str) -> dict[str, Any]:
    assert response.status_code == status, response.text
    assert response.headers["content-type"].startswith("application/json")
    assert "Traceback" not in response.text
    error = response.json()["error"]
    assert error["code"] == code
    assert error["message"]
    return dict(error)


async def test_health_answers_without_a_token(app: Starlette) -> None:
    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=app), base_url="http://agent.test"
    ) as http:
        response = await http.get("/health")
    assert response.status_code == 200
    assert response.json() == {"status": "ok", "ledger": "reachable"}


@pytest.mark.parametrize(
    ("authorization", "needle"),
    [(None, "needs"), ("Bearer wrong-token", "not this server's"), ("Basic dGVzdA==", "needs")],
)
async def test_a_wrong_or_missing_token_is_refused(
    app: Starlette, agent: ExampleAgent, authorization: str | None, needle: str
) -> None:
    body = json.dumps(wire(first_input())).encode()
    headers = {"Authorization": authorization or ""}
    response = await raw_post(app, body, headers=headers)
    error = assert_json_error(response, 401, "unauthorized")
    assert needle in error["message"]
    assert response.headers["www-authenticate"].startswith("Bearer")
    assert agent.executions.count() == 0


async def test_malformed_json_is_a_400(app: Starlette) -> None:
    error = assert_json_error(await raw_post(app, b'{"threadId": "t",'), 400, "malformed_json")
    assert "line 1" in error["message"]


async def test_a_body_over_the_limit_is_a_413(agent: ExampleAgent) -> None:
    small = asgi_app(agent, token=TOKEN, secret=SECRET, max_body_bytes=1000)
    run_input = first_input().model_copy(
        update={"messages": [UserMessage(id="user-1", content="x" * 5000)]}
    )
    body = json.dumps(wire(run_input)).encode()
    assert_json_error(await raw_post(small, body), 413, "body_too_large")

    async def chunked() -> AsyncIterator[bytes]:  # no Content-Length: counted as it arrives
        for start in range(0, len(body), 512):
            yield body[start : start + 512]

    async with httpx.AsyncClient(
        transport=httpx.ASGITransport(app=small), base_url="http://agent.test"
    ) as http:
        response = await http.post(
            "/", content=chunked(), headers={"Authorization": f"Bearer {TOKEN}"}
        )
    assert_json_error(response, 413, "body_too_large")


async def test_missing_fields_name_their_json_pointer(app: Starlette) -> None:
    body = json.dumps({"runId": "r", "messages": [{"id": "m", "role": "user"}]}).encode()
    error = assert_json_error(await raw_post(app, body), 422, "invalid_input")
    paths = {d["path"] for d in error["details"]}
    assert "/threadId" in paths
    assert any(p.startswith("/messages/0") for p in paths)
    assert "/threadId" in error["message"]


@pytest.mark.parametrize("document", [[1, 2], "text", 3, None])
async def test_a_body_that_is_not_an_object_is_a_422(app: Starlette, document: Any) -> None:
    assert_json_error(await raw_post(app, json.dumps(document).encode()), 422, "invalid_input")


async def test_other_media_types_methods_and_paths_get_json_errors(app: Starlette) -> None:
    body = json.dumps(wire(first_input())).encode()
    assert_json_error(
        await raw_post(app, body, headers={"Content-Type": "text/plain"}),
        415,
        "unsupported_media_type",
    )
    assert_json_error(await raw_post(app, None, method="GET"), 405, "method_not_allowed")
    assert_json_error(await raw_post(app, body, path="/nope"), 404, "not_found")


# --- Over a real socket ------------------------------------------------------------------


async def test_the_sse_stream_passes_the_conformance_checker(agent: ExampleAgent) -> None:
    app = asgi_app(agent, token=TOKEN, secret=SECRET)
    async with running_server(app) as url:
        options = TransportOptions(
            headers={"Authorization": f"Bearer {TOKEN}"}, input=wire(first_input())
        )
        result = await validate_endpoint(url, options)
        errors = [d for d in result.report.diagnostics if d.severity == "error"]
        assert errors == []
        assert result.content_type is not None
        assert result.content_type.startswith("text/event-stream")
        assert result.event_count >= 4

        async with AGUIClient(url, token=TOKEN) as client:
            events = await collect(client, first_input())
        options = TransportOptions(
            headers={"Authorization": f"Bearer {TOKEN}"}, input=wire(resume_input(events))
        )
        resumed = await validate_endpoint(url, options)
        assert [d for d in resumed.report.diagnostics if d.severity == "error"] == []
    assert agent.executions.count() == 1


async def test_a_client_that_leaves_mid_run_leaves_no_tool_half_run() -> None:
    """The client drops the connection while the approved tool is running.

    The tool finishes (it is never cut off), the run then stops instead of
    calling the model, and the same resume sent again gets the recorded
    result without running the tool a second time.
    """
    started = asyncio.Event()
    release = asyncio.Event()
    finished: list[str] = []

    @function_tool(needs_approval=True)
    async def transfer_funds(amount: int) -> str:
        """Move money: slow, and must never stop halfway."""
        started.set()
        await release.wait()
        finished.append(f"moved {amount}")
        return f"moved {amount}"

    agent = ExampleAgent(name="bank", model=OfflineModel(), tools=[transfer_funds])
    app = asgi_app(agent, token=TOKEN, secret=SECRET)
    ask = RunAgentInput(
        thread_id="thread-bank",
        run_id="run-1",
        messages=[UserMessage(id="u1", content="Please transfer_funds amount=40")],
    )
    async with running_server(app) as url, AGUIClient(url, token=TOKEN) as client:
        events = await collect(client, ask)
        resume = resume_input(events, {"approved": True}, thread_id="thread-bank")

        stream = client.run(resume)
        await anext(stream)  # RUN_STARTED: the run is under way
        await started.wait()  # the tool is now running
        await stream.aclose()  # the client goes away mid-tool
        (run,) = app.state.runs
        await run.until_abandoned()
        release.set()
        await run.task
        assert finished == ["moved 40"]  # ran to the end, once

        again = await collect(client, resume)
    results = [e for e in again if isinstance(e, ToolCallResultEvent)]
    assert [r.content for r in results] == ["moved 40"]
    assert finished == ["moved 40"]


async def test_an_agent_without_stop_is_closed_only_once_its_tool_has_a_result() -> None:
    """The same departure, served from an AG-UI agent that has no `stop()`."""
    started = asyncio.Event()
    release = asyncio.Event()
    finished: list[str] = []

    @function_tool(needs_approval=True)
    async def transfer_funds(amount: int) -> str:
        """Move money: slow, and must never stop halfway."""
        started.set()
        await release.wait()
        finished.append(f"moved {amount}")
        return f"moved {amount}"

    adapter = OpenAIAgentsAdapter(
        ExampleAgent(name="bank", model=OfflineModel(), tools=[transfer_funds])
    )

    class PlainAgent:
        """An AG-UI agent as a bare async generator: nothing to call `stop()` on."""

        async def run(self, input: RunAgentInput) -> AsyncIterator[BaseEvent]:
            async for event in adapter.run(input):
                yield event

    app = asgi_app(PlainAgent(), token=TOKEN, secret=SECRET)
    ask = RunAgentInput(
        thread_id="thread-bank",
        run_id="run-1",
        messages=[UserMessage(id="u1", content="Please transfer_funds amount=7")],
    )
    async with running_server(app) as url, AGUIClient(url, token=TOKEN) as client:
        events = await collect(client, ask)
        stream = client.run(resume_input(events, {"approved": True}, thread_id="thread-bank"))
        await anext(stream)
        await started.wait()
        await stream.aclose()
        (run,) = app.state.runs
        await run.until_abandoned()
        assert not run.task.done()  # the tool has no result yet: the run goes on
        release.set()
        await run.task
    assert finished == ["moved 7"]


def test_adapter_options_are_refused_for_an_agent_that_already_speaks_ag_ui(
    agent: ExampleAgent,
) -> None:
    adapter = OpenAIAgentsAdapter(agent)
    with pytest.raises(TypeError, match="expires_in"):
        asgi_app(adapter, secret=SECRET, expires_in=30)
    with pytest.raises(ValueError, match="blank"):
        asgi_app(adapter, secret=SECRET, token="  ")


async def test_serve_refuses_to_block_a_running_event_loop(agent: ExampleAgent) -> None:
    with pytest.raises(RuntimeError, match="cannot run inside a running event loop"):
        serve(agent, port=0)


def test_the_kit_imports_without_the_serve_extra() -> None:
    """With httpx-sse missing, `import interrupt_widget` works; AGUIClient says what to install."""
    code = (
        "import sys; sys.modules['httpx_sse'] = None\n"
        "import interrupt_widget\n"
        "try:\n"
        "    interrupt_widget.AGUIClient('http://127.0.0.1:1/')\n"
        "except ImportError as exc:\n"
        "    print(exc)\n"
    )
    completed = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True
    )
    assert "needs the `serve` extra" in completed.stdout


async def test_a_quiet_stream_is_kept_alive_with_sse_comments() -> None:
    started = asyncio.Event()
    release = asyncio.Event()

    @function_tool(needs_approval=True)
    async def transfer_funds(amount: int) -> str:
        """Move money, slowly."""
        started.set()
        await release.wait()
        return f"moved {amount}"

    agent = ExampleAgent(name="bank", model=OfflineModel(), tools=[transfer_funds])
    app = asgi_app(agent, token=TOKEN, secret=SECRET, keepalive=0.01)
    ask = RunAgentInput(
        thread_id="thread-bank",
        run_id="run-1",
        messages=[UserMessage(id="u1", content="Please transfer_funds amount=3")],
    )
    async with running_server(app) as url:
        async with AGUIClient(url, token=TOKEN) as client:
            events = await collect(client, ask)
        body = json.dumps(wire(resume_input(events, {"approved": True}, thread_id="thread-bank")))
        headers = {"Authorization": f"Bearer {TOKEN}", "Content-Type": "application/json"}
        data: list[str] = []
        comments = 0
        async with (
            httpx.AsyncClient() as http,
            http.stream("POST", url, content=body, headers=headers) as response,
        ):
            async for line in response.aiter_lines():
                if line.startswith(":"):
                    comments += 1
                    release.set()  # the tool was silent long enough to need one
                elif line.startswith("data: "):
                    data.append(line.removeprefix("data: "))
    assert started.is_set()
    assert comments >= 1
    kinds = [json.loads(d)["type"] for d in data]
    assert "TOOL_CALL_RESULT" in kinds
    assert kinds[-1] == "RUN_FINISHED"
