"""nbval runs the quickstart against the local Responses stand-in, through `default_model()`."""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys
import threading

ROOT = pathlib.Path(__file__).parents[2]
HERE = pathlib.Path(__file__).parent
NOTEBOOK = ROOT / "notebooks" / "01_quickstart.ipynb"
DEADLINE = 60.0


def _free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def test_nbval_runs_the_quickstart_on_the_sdk_responses_model(tmp_path: pathlib.Path) -> None:
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if k != "INTERRUPT_WIDGET_MODEL"}
    env["PYTHONPATH"] = str(HERE)
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "uvicorn",
            "responses_server:app",
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
        ],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,  # uvicorn's access log, one line per request, is on stdout
        text=True,
    )
    log: list[str] = []
    ready = threading.Event()

    def read() -> None:
        assert server.stdout is not None
        for line in server.stdout:
            log.append(line)
            if "Uvicorn running on" in line:
                ready.set()
        ready.set()

    threading.Thread(target=read, daemon=True).start()
    try:
        assert ready.wait(DEADLINE), "".join(log)
        decisions = ROOT / "notebooks" / "01_quickstart.decisions.json"
        run_env = {
            **env,
            "OPENAI_API_KEY": "stand-in-key",
            "OPENAI_BASE_URL": f"http://127.0.0.1:{port}/v1",
            "OPENAI_AGENTS_DISABLE_TRACING": "1",
            "INTERRUPT_WIDGET_RESPONDER": f"replay:{decisions}",
        }
        run_env.pop("PYTHONPATH")
        done = subprocess.run(
            [
                sys.executable,
                "-m",
                "pytest",
                "-q",
                "-p",
                "no:cacheprovider",
                "--nbval-lax",
                "--nbval-current-env",
                str(NOTEBOOK),
            ],
            env=run_env,
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=300,
        )
    finally:
        server.terminate()
        server.wait(timeout=DEADLINE)
    assert done.returncode == 0, done.stdout + done.stderr
    answered = [line for line in log if "POST /v1/responses" in line and " 200" in line]
    assert len(answered) >= 2, "".join(log)  # the pause and the reply came from the stand-in
