"""The README's first command: `make lab` serves the quickstart with the offline model."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any, cast

import pytest
from jupyter_process import free_port

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]


def test_make_lab_serves_the_quickstart() -> None:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k != "OPENAI_API_KEY"}
    env["BROWSER"] = "true"  # the no-op command: nothing to open on a headless machine
    lab = subprocess.Popen(
        ["make", "--no-print-directory", "lab", f"PORT={port}"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    log: list[str] = []
    try:
        assert lab.stdout is not None
        deadline = time.monotonic() + 120
        url = None
        while url is None and time.monotonic() < deadline:
            line = lab.stdout.readline()
            if not line:
                break
            log.append(line)
            match = re.search(rf"(http://127\.0\.0\.1:{port}/lab\S*token=(\w+))", line)
            if match:
                url = match
        assert url is not None, "".join(log[-40:])
        token = url.group(2)
        # The server's root is the notebook's folder, and it answers once its loop runs.
        contents = f"http://127.0.0.1:{port}/api/contents/01_quickstart.ipynb"
        request = urllib.request.Request(contents, headers={"Authorization": f"token {token}"})
        notebook = _get_json(request, until=time.monotonic() + 30)
        assert notebook["type"] == "notebook"
        assert notebook["content"]["metadata"]["kernelspec"]["name"] == "python3"
        assert "offline" in "".join(log)  # INTERRUPT_WIDGET_MODEL=offline on the command
        assert not [line for line in log if "Fail to get yarn configuration" in line]
    finally:
        os.killpg(lab.pid, signal.SIGTERM)
        lab.wait(timeout=30)


def _get_json(request: urllib.request.Request, *, until: float) -> dict[str, Any]:
    while True:
        try:
            with urllib.request.urlopen(request, timeout=10) as reply:
                return cast(dict[str, Any], json.load(reply))
        except urllib.error.URLError:
            if time.monotonic() > until:
                raise
            time.sleep(0.2)  # polling a port that is about to open; the deadline bounds it
