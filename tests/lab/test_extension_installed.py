"""The kit's JupyterLab extension is installed and enabled in the environment running the tests.

What the wheel (or `make setup`, for a checkout) installs: the prebuilt front end under
share/jupyter/labextensions/interrupt-widget-lab/, and the config that enables the server
extension `interrupt_widget.lab`. Asked of Jupyter's own commands, as a person would ask.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

BIN = Path(sys.executable).parent
NAME = "interrupt-widget-lab"
SERVER_EXTENSION = "interrupt_widget.lab"
LABEXTENSION = Path(__file__).parents[2] / "labextension"


def jupyter(*args: str) -> str:
    """What `jupyter ARGS` from this environment prints (both streams: `list` writes to stderr)."""
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    command = [str(BIN / "jupyter"), *args]
    done = subprocess.run(command, capture_output=True, text=True, env=env, timeout=90, check=False)
    assert done.returncode == 0, done.stderr
    return re.sub(r"\x1b\[[0-9;]*m", "", done.stdout + done.stderr)  # without the colours


def test_the_labextension_is_installed_and_enabled() -> None:
    listed = jupyter("labextension", "list")
    [line] = [line for line in listed.splitlines() if line.strip().startswith(NAME)]
    version = json.loads((LABEXTENSION / "package.json").read_text("utf-8"))["version"]
    assert f"{NAME} v{version}" in line, line
    assert "enabled" in line, line
    assert "disabled" not in line, line
    assert "OK" in line, line  # compatible with this JupyterLab


def test_the_server_extension_is_listed_as_enabled() -> None:
    listed = jupyter("server", "extension", "list")
    enabled = rf"^\s*{re.escape(SERVER_EXTENSION)}\s+enabled\b"
    assert re.search(enabled, listed, re.MULTILINE), listed
