"""The official `@ag-ui/client` drives a Temporal run through `serve`: `python -m
interrupt_widget serve` serves a `TemporalAgent`, a worker in this process runs the meeting
agent, and the client pauses, is refused a forged resume, and resumes once."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import uuid
from pathlib import Path

import pytest

pytest.importorskip("temporalio")

from temporalio.client import Client
from test_http_cli import CLIENT_DIR, TOKEN, server_env, start

from interrupt_widget.temporal import adapter_for, build_worker
from interrupt_widget.temporal.dev_server import DevServer
from temporal_agents import ADDRESS_ENV, MEETINGS, QUEUE_ENV

TESTS = Path(__file__).parents[1]


async def test_the_official_client_answers_a_temporal_run_through_serve(
    temporal_server: DevServer,
) -> None:
    node = shutil.which("node")
    assert node is not None, "node is needed for the @ag-ui/client check"
    queue = f"agui-{uuid.uuid4().hex[:8]}"
    client = await Client.connect(temporal_server.address)
    meetings = adapter_for(MEETINGS)
    env = {**server_env(), ADDRESS_ENV: temporal_server.address, QUEUE_ENV: queue}
    env["PYTHONPATH"] = os.pathsep.join([str(TESTS), env.get("PYTHONPATH", "")])
    served = await asyncio.to_thread(start, ["temporal_agents:served", "--token", TOKEN], env)
    try:
        async with build_worker(client, {MEETINGS: meetings}, task_queue=queue):
            driven = await asyncio.create_subprocess_exec(
                node, str(CLIENT_DIR / "run_interrupt_cycle.mjs"), served.url,
                env={**os.environ, "AGUI_TOKEN": TOKEN},
                stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
            )  # fmt: skip
            said, complaint = await asyncio.wait_for(driven.communicate(), timeout=120)
            held = await client.get_workflow_handle("ts-client-thread").query(
                "open", result_type=dict
            )
    finally:
        served.process.terminate()
        await asyncio.to_thread(served.process.wait, 30)
    assert driven.returncode == 0, complaint.decode()
    report = json.loads(said.decode().strip().splitlines()[-1])
    assert report["first"] == {"outcome": "interrupt", "error": None}
    (interrupt,) = report["interrupts"]
    assert (interrupt["toolName"], interrupt["hasFingerprint"]) == ("schedule_meeting", True)
    assert report["forged"]["error"]["code"] == "call_mismatch"
    assert report["forged"]["toolResults"] == []
    resumed = report["resumed"]
    assert (resumed["error"], resumed["outcome"]) == (None, "success")
    assert [r["toolCallId"] for r in resumed["toolResults"]] == [interrupt["toolCallId"]]
    assert "Monday 3pm" in resumed["finalText"]
    assert held["interrupts"] == []  # the workflow holds the conversation, nothing left open
