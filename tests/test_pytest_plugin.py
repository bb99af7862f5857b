"""`pytest --cassette-mode` reaches every cassette of the run, and a wrong mode is refused."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

PROBE = """
import os
from interrupt_widget import Cassette

def test_mode(tmp_path):
    assert os.environ["INTERRUPT_WIDGET_CASSETTE_MODE"] == "none"
    assert Cassette(tmp_path / "c.jsonl", mode="all").mode == "none"
"""


def run_pytest(folder: Path, *options: str) -> subprocess.CompletedProcess[str]:
    (folder / "test_probe.py").write_text(PROBE)
    env = {k: v for k, v in os.environ.items() if not k.startswith("INTERRUPT_WIDGET_CASSETTE")}
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *options, str(folder)],
        capture_output=True,
        text=True,
        env=env,
        cwd=folder,
        check=False,
        timeout=120,
    )


def test_the_option_sets_the_mode_of_every_cassette(tmp_path: Path) -> None:
    done = run_pytest(tmp_path, "--cassette-mode=none")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "1 passed" in done.stdout


def test_an_unknown_mode_is_refused_before_any_test(tmp_path: Path) -> None:
    done = run_pytest(tmp_path, "--cassette-mode=sometimes")
    assert done.returncode != 0
    assert "--cassette-mode=sometimes: use one of once, none, new_episodes, all" in done.stderr
