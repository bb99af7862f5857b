"""Each way the Agents SDK ends a run reaches the official `@ag-ui/client` over a real `serve`.

One server serves the sweep's agents (`ending_agents`), each run going to the agent its
thread names; the TypeScript client (`tests/agui_client/run_endings.mjs`) asks, answers
the interrupt, and reports the text it streamed and the last assistant message it holds.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from test_http_cli import CLIENT_DIR, server_env

from serve_process import Served

TOKEN = "endings-test-token"
TRANSFER = "transfer_funds amount=80 to=Carol"
SENT = "sent 80.0 to Carol"

AGENT_MODULE = '''
"""The sweep's agents served at once: a run goes to the agent its thread id names."""

import os
from pathlib import Path

from ending_agents import OPTIONS, ending_agent

from interrupt_widget import OpenAIAgentsAdapter


class ByThread:
    """Hands each run to the real adapter of the agent named by `<agent>-...` thread ids."""

    def __init__(self) -> None:
        runs, ledger = Path(os.environ["RUNS_DIR"]), os.environ["LEDGER_FILE"]
        self.adapters = {
            name: OpenAIAgentsAdapter(ending_agent(name, runs / f"{name}.jsonl"), ledger=ledger)
            for name in OPTIONS
        }

    def run(self, input):
        named = [n for n in self.adapters if input.thread_id.startswith(f"{n}-")]
        return self.adapters[max(named, key=len)].run(input)


agent = ByThread()
'''

SCENARIOS: dict[str, dict[str, str]] = {
    "stop_on_first_tool": {"prompt": TRANSFER, "answer": "approve"},
    "stop_on_first_tool_denied": {"prompt": TRANSFER, "answer": "deny"},
    "stop_at_tools": {"prompt": TRANSFER, "answer": "approve"},
    "custom_tools_to_final_output": {"prompt": TRANSFER, "answer": "approve"},
    "structured_pydantic": {"prompt": TRANSFER, "answer": "approve"},
    "max_turns": {"prompt": TRANSFER, "answer": "approve"},
    "refusal": {"prompt": TRANSFER, "answer": "approve"},
    "tool_input_guardrail": {"prompt": "transfer_funds amount=5000 to=Carol", "answer": "approve"},
    "tool_raises": {"prompt": TRANSFER, "answer": "approve"},
}
"""Scenario -> what the client asks and answers; its thread names the agent."""


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    node = shutil.which("node")
    assert node is not None, "node is needed for the @ag-ui/client check"
    assert (CLIENT_DIR / "node_modules" / "@ag-ui" / "client").is_dir(), (
        "install the pinned client first: npm ci --prefix tests/agui_client"
    )
    folder = tmp_path_factory.mktemp("endings")
    (folder / "endings_served.py").write_text(AGENT_MODULE, encoding="utf-8")
    secret = folder / "secret"
    secret.write_text("a-secret-for-the-endings-test-0123456789\n")
    env = server_env()
    tests = Path(__file__).parents[1]  # ending_agents
    env.update(
        PYTHONPATH=os.pathsep.join([str(folder), str(tests), env.get("PYTHONPATH", "")]),
        RUNS_DIR=str(folder),
        LEDGER_FILE=str(folder / "ledger.sqlite3"),
    )
    args = ["endings_served:agent", "--token", TOKEN, "--secret-file", str(secret)]
    server = Served(args, env).wait_ready()  # the adapters keep their own ledger
    scenarios = {
        name: {**spec, "threadId": f"{name.removesuffix('_denied')}-{name}"}
        for name, spec in SCENARIOS.items()
    }
    try:
        completed = subprocess.run(
            [node, str(CLIENT_DIR / "run_endings.mjs"), server.url],
            env={**os.environ, "AGUI_TOKEN": TOKEN, "SCENARIOS": json.dumps(scenarios)},
            capture_output=True,
            text=True,
            encoding="utf-8",
            timeout=120,
            check=False,
        )
    finally:
        server.stop()
    assert completed.returncode == 0, completed.stderr + "".join(server.log)
    found: dict[str, Any] = json.loads(completed.stdout.strip().splitlines()[-1])
    found["runs"] = {p.stem: len(p.read_text().splitlines()) for p in folder.glob("*.jsonl")}
    return found


def resumed(report: dict[str, Any], name: str) -> dict[str, Any]:
    got = report[name]
    assert got["first"]["outcome"] == "interrupt", got
    assert got["interrupts"] == 1
    result: dict[str, Any] = got["resumed"]
    return result


@pytest.mark.parametrize("name", ["stop_on_first_tool", "stop_at_tools"])
def test_the_tools_output_is_the_reply_the_client_streams(
    report: dict[str, Any], name: str
) -> None:
    run = resumed(report, name)
    assert (run["outcome"], run["error"]) == ("success", None)
    assert run["toolResults"] == [SENT]
    assert run["streamed"] == SENT  # TEXT_MESSAGE_CONTENT, not only the tool's result
    assert report[name]["finalText"] == SENT
    assert report["runs"][name] == 1


def test_a_denied_call_under_stop_on_first_tool_is_the_reply(report: dict[str, Any]) -> None:
    run = resumed(report, "stop_on_first_tool_denied")
    assert run["outcome"] == "success"
    assert run["streamed"] == report["stop_on_first_tool_denied"]["finalText"]
    assert run["streamed"].startswith("Not run: the user did not approve transfer_funds")


@pytest.mark.parametrize(
    ("name", "summary"),
    [
        ("custom_tools_to_final_output", f"transfer_funds: {SENT}"),
        ("structured_pydantic", f"transfer_funds reported: {SENT}"),
    ],
)
def test_structured_output_arrives_as_json_text(
    report: dict[str, Any], name: str, summary: str
) -> None:
    run = resumed(report, name)
    assert run["outcome"] == "success"
    assert json.loads(run["streamed"]) == {"summary": summary, "calls": 1}
    assert report[name]["finalText"] == run["streamed"]


@pytest.mark.parametrize(
    ("name", "code", "said"),
    [
        ("max_turns", "max_turns", "Max turns (10) exceeded"),
        ("refusal", "model_refusal", "Model refused to produce output: I can't help"),
        ("tool_input_guardrail", "guardrail_tripwire", "halt_over_1000: over the 1000 limit"),
        ("tool_raises", "tool_error", "the bank is closed, Carol"),
    ],
)
def test_an_ending_that_raised_reaches_the_client_as_run_error(
    report: dict[str, Any], name: str, code: str, said: str
) -> None:
    run = resumed(report, name)
    assert run["error"]["code"] == code
    assert said in run["error"]["message"]
    assert run["outcome"] is None  # never an empty success
