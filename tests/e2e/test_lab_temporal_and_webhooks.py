"""A Jupyter server with the kit's extension configured for a Temporal agent and two
webhooks (one receiver up, one down): a conversation on Temporal that no kernel holds is
listed by the server and answered through it, and the call runs once on a worker process
(counted from the file the tool writes); the live receiver gets the waiting question's
message, whose link opens JupyterLab at the question after signing in; the receiver that is
down slows nothing."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import httpx
import pytest

pytest.importorskip("temporalio")

from ag_ui.core import RunAgentInput, UserMessage
from jupyter_process import JupyterServer

from interrupt_widget.temporal import TemporalAgent
from interrupt_widget.temporal.dev_server import DevServer
from payment_agents import RUNS_ENV, runs_in

TESTS = Path(__file__).parent.parent
LAB = TESTS / "lab"
sys.path.insert(0, str(LAB))
from webhook_receiver import Receiver  # noqa: E402 (a helper beside the lab tests)

PAYMENTS = "payment_agents:payment_agent"


@pytest.fixture(scope="module")
def setup(
    temporal_server: DevServer, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[JupyterServer, Receiver, str, Path]]:
    base = tmp_path_factory.mktemp("temporal-lab")
    runs = base / "runs.jsonl"
    queue = f"sidebar-{uuid.uuid4().hex[:8]}"
    env = {**os.environ, "PYTHONPATH": f"{TESTS}", RUNS_ENV: str(runs)}
    worker = subprocess.Popen(
        [sys.executable, "-m", "interrupt_widget", "worker", PAYMENTS,
         "--temporal", temporal_server.address, "--task-queue", queue],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    receiver = Receiver()
    config = {
        "ServerApp": {"jpserver_extensions": {"interrupt_widget.lab": True}},
        "InterruptWidget": {
            "temporal": [
                {"address": temporal_server.address, "agent": PAYMENTS, "task_queue": queue}
            ],
            "webhooks": [receiver.url, "http://127.0.0.1:9/nobody-listens"],
            "sensitive_tools": [],
        },
    }
    server = JupyterServer.start(
        kind="lab", base=base / "server", config=config, extra_env={"PYTHONPATH": str(TESTS)}
    )
    try:
        yield server, receiver, queue, runs
    finally:
        server.stop()
        receiver.close()
        worker.terminate()
        worker.wait(timeout=30)


def call(server: JupyterServer, path: str, body: Any = None) -> httpx.Response:
    url = f"http://127.0.0.1:{server.port}/interrupt-widget/{path}"
    headers = {"Authorization": f"token {server.token}"}
    if body is None:
        return httpx.get(url, headers=headers, timeout=60)
    return httpx.post(url, headers=headers, json=body, timeout=60)


async def ask(address: str, queue: str) -> str:
    """A conversation on Temporal that ends waiting for an answer; its thread id."""
    agent = TemporalAgent(address, agent=PAYMENTS, task_queue=queue)
    await agent.wait_for_worker(within=60)
    thread = f"sidebar-{uuid.uuid4().hex[:8]}"
    run = RunAgentInput(
        thread_id=thread,
        run_id="run-1",
        messages=[UserMessage(id="m1", role="user", content="send_money amount=77 to=Tess")],
        tools=[],
        context=[],
        state=None,
        forwarded_props=None,
    )
    async for _event in agent.run(run):
        pass
    return thread


def test_a_temporal_question_with_no_kernel_is_listed_answered_and_told_to_a_webhook(
    setup: tuple[JupyterServer, Receiver, str, Path], temporal_server: DevServer
) -> None:
    server, receiver, queue, runs = setup
    # The browser suite's playwright holds an event loop in this thread: ask from another one.
    with ThreadPoolExecutor(1) as other:
        thread = other.submit(asyncio.run, ask(temporal_server.address, queue)).result()
    deadline = time.monotonic() + 30
    while True:
        items = call(server, "questions").json()["items"]
        if items:
            break
        assert time.monotonic() < deadline, "the Temporal question was never listed"
        time.sleep(0.2)  # the server looks through Temporal's visibility every second
    [item] = items
    assert item["where"]["source"] == "temporal"
    assert item["where"]["label"] == f"temporal {thread}"
    assert runs_in(runs) == []

    [message] = receiver.wait_for(1)
    told = message["interruptWidget"]
    assert (told["event"], told["question"], told["tool"]) == ("waiting", item["id"], "send_money")
    assert told["arguments"] == {"amount": 77, "to": "Tess"}
    signed_out = httpx.get(told["link"], follow_redirects=False, timeout=10)
    assert signed_out.status_code in (302, 403)  # the link alone grants nothing: sign in first
    assert "/login" in signed_out.headers.get("location", "/login")
    opened = httpx.get(
        told["link"], headers={"Authorization": f"token {server.token}"}, timeout=10,
        follow_redirects=False,
    )  # fmt: skip
    assert opened.status_code == 302
    assert unquote(opened.headers["location"]).endswith(f"/lab?interrupt-widget={item['id']}")

    answered = call(
        server, "answer", {"ids": [item["id"]], "status": "resolved", "payload": {"approved": True}}
    ).json()["results"][0]
    assert (answered["ok"], answered["verdict"]) == (True, "approved"), answered
    assert [r["amount"] for r in runs_in(runs)] == [77.0]
