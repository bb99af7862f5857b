"""nbval runs the quickstart against the local Responses stand-in, through `default_model()`."""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys

from responses_server import KEY, ResponsesStandIn

ROOT = pathlib.Path(__file__).parents[2]
NOTEBOOK = ROOT / "notebooks" / "01_quickstart.ipynb"


def test_nbval_runs_the_quickstart_on_the_sdk_responses_model(
    openai_stand_in: ResponsesStandIn, tmp_path: pathlib.Path
) -> None:
    assert openai_stand_in.base_url is not None
    decisions = ROOT / "notebooks" / "01_quickstart.decisions.json"
    env = {k: v for k, v in os.environ.items() if k != "INTERRUPT_WIDGET_MODEL"}
    env.update(
        {
            "OPENAI_API_KEY": KEY,
            "OPENAI_BASE_URL": openai_stand_in.base_url,
            "OPENAI_AGENTS_DISABLE_TRACING": "1",
            "INTERRUPT_WIDGET_RESPONDER": f"replay:{decisions}",
        }
    )
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
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    answered = [r.path for r in openai_stand_in.requests]
    # The pause and the reply came from the stand-in.
    assert answered.count("/v1/responses") >= 2, answered
