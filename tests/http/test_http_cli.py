"""`python -m interrupt_widget serve` as a real process, driven by the official TS client."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from interrupt_widget.free_port import free_port
from interrupt_widget.http.cli import main
from interrupt_widget.http.target_loading import load_target

CLIENT_DIR = Path(__file__).parents[1] / "agui_client"
TOKEN = "cli-test-token"


def server_env() -> dict[str, str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in {"OPENAI_API_KEY", "INTERRUPT_WIDGET_SECRET"}
    }
    env.update(INTERRUPT_WIDGET_MODEL="offline", OPENAI_AGENTS_DISABLE_TRACING="1")
    return env


class Server:
    def __init__(self, process: subprocess.Popen[str], url: str, log: list[str]) -> None:
        self.process = process
        self.url = url
        self.log = log


def start(args: list[str], env: dict[str, str]) -> Server:
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "interrupt_widget", "serve", *args, "--port", str(port)],
        env=env,
        stderr=subprocess.PIPE,
        stdout=subprocess.DEVNULL,
        text=True,
    )
    assert process.stderr is not None
    log: list[str] = []
    for line in process.stderr:  # ready once uvicorn says so
        log.append(line)
        if "Uvicorn running on" in line:
            return Server(process, f"http://127.0.0.1:{port}/", log)
    process.wait()
    raise AssertionError("the server exited before listening:\n" + "".join(log))


@pytest.fixture
def secret_file(tmp_path: Path) -> Path:
    path = tmp_path / "secret"
    path.write_text("a-secret-read-from-a-file-0123456789\n")
    return path


@pytest.fixture
def served(secret_file: Path) -> Iterator[Server]:
    server = start(
        [
            "interrupt_widget.examples:meeting_agent",
            "--token",
            TOKEN,
            "--secret-file",
            str(secret_file),
        ],
        server_env(),
    )
    try:
        yield server
    finally:
        server.process.terminate()
        server.process.wait(timeout=30)


def test_the_official_typescript_client_pauses_resumes_and_is_refused_a_forgery(
    served: Server,
) -> None:
    node = shutil.which("node")
    assert node is not None, "node is needed for the @ag-ui/client check"
    assert (CLIENT_DIR / "node_modules" / "@ag-ui" / "client").is_dir(), (
        "install the pinned client first: npm ci --prefix tests/agui_client"
    )
    completed = subprocess.run(
        [node, str(CLIENT_DIR / "run_interrupt_cycle.mjs"), served.url],
        env={**os.environ, "AGUI_TOKEN": TOKEN},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr
    report = json.loads(completed.stdout.strip().splitlines()[-1])

    assert report["first"] == {"outcome": "interrupt", "error": None}
    (interrupt,) = report["interrupts"]
    assert interrupt["reason"] == "tool_call"
    assert interrupt["toolName"] == "schedule_meeting"
    assert interrupt["hasFingerprint"] is True

    # The arguments were edited under an untouched record: refused as a mismatch
    # with what the person was shown, before the fingerprint is even consulted.
    assert report["forged"]["error"]["code"] == "call_mismatch"
    assert report["forged"]["toolResults"] == []

    resumed = report["resumed"]
    assert resumed["error"] is None
    assert resumed["outcome"] == "success"
    assert [r["toolCallId"] for r in resumed["toolResults"]] == [interrupt["toolCallId"]]
    assert "Monday 3pm" in resumed["toolResults"][0]["content"]
    assert "Monday 3pm" in resumed["finalText"]


@pytest.mark.parametrize(
    ("target", "message"),
    [
        ("no_colon_here", "expected package.module:agent"),
        ("interrupt_widget.nowhere:agent", "cannot import"),
        ("interrupt_widget.examples:missing", "has no attribute"),
        ("interrupt_widget.examples:EXPENSE_CATEGORIES", "not an agents.Agent"),
    ],
)
def test_a_bad_target_is_a_clear_error(
    target: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["serve", target, "--port", "1"]) == 2
    err = capsys.readouterr().err
    assert message in err
    assert "Traceback" not in err


def test_an_empty_or_missing_secret_file_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    empty = tmp_path / "empty"
    empty.write_text("\n")
    short = tmp_path / "short"
    short.write_text("tiny")
    cases = (
        (empty, "is empty"),
        (tmp_path / "absent", "cannot read"),
        (short, "at least 16 bytes"),
    )
    for path, message in cases:
        args = ["serve", "interrupt_widget.examples:meeting_agent", "--secret-file", str(path)]
        assert main(args) == 2
        assert message in capsys.readouterr().err


def test_a_factory_target_is_called_and_an_agent_is_returned_as_is(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from agents import Agent

    monkeypatch.setenv("INTERRUPT_WIDGET_MODEL", "offline")
    agent = load_target("interrupt_widget.examples:meeting_agent")
    assert isinstance(agent, Agent)
    assert agent.name == "Meeting scheduler"
