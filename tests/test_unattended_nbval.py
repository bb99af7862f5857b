"""Under nbval, with no responder, a cell that awaits a person fails in seconds and says why.

nbval has no widget manager, so no front end ever announces itself: the chat's run, the
picker of `answer_interruptions` and an awaited batch each raise `UnattendedWait` in their
cell after the default 5 s, and pytest's report shows the message with the ways out. Before,
each hung until nbval's cell timeout (2000 s) with only "Timeout of N seconds exceeded".
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

SETUP = """\
from agents import Runner
from interrupt_widget import AgentBatch, AgentChat, answer_interruptions
from interrupt_widget.examples import bank_agent, meeting_agent
chat = AgentChat(meeting_agent())
chat"""
CELLS = {
    "chat": 'result = await chat.send("Book a call with Alice about the Q3 roadmap")',
    "picker": (
        'paused = await Runner.run(bank_agent(), "transfer_funds amount=5 to_account=ACME-1")\n'
        "state = await answer_interruptions(paused)"
    ),
    "batch": (
        'batch = AgentBatch(bank_agent(), ["transfer_funds amount=7 to_account=ACME-1"])\n'
        "results = await batch"
    ),
}
WAYS_OUT = (
    "INTERRUPT_WIDGET_RESPONDER=approve_all",
    "replay:<decision file>",
    "responder=",
    "INTERRUPT_WIDGET_CASSETTE=<file>",
    "cassette=",
)
NBVAL = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--nbval-lax"]
NBVAL += ["--nbval-current-env"]
FAST = 5.0 + 5.0
"""The default limit, and room for the offline run to reach its question on a busy machine
(about 0.6-1.8 s on 2 shared cores)."""


def _notebook(path: Path) -> Path:
    cells = [SETUP, *CELLS.values()]
    path.write_text(
        json.dumps(
            {
                "nbformat": 4,
                "nbformat_minor": 5,
                "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3"}},
                "cells": [
                    {
                        "cell_type": "code",
                        "id": f"cell-{n}",
                        "metadata": {},
                        "execution_count": None,
                        "outputs": [],
                        "source": source,
                    }
                    for n, source in enumerate(cells)
                ],
            }
        ),
        encoding="utf-8",
    )
    return path


def test_each_wait_nobody_can_answer_fails_its_cell_fast_with_the_ways_out(
    tmp_path: Path,
) -> None:
    notebook = _notebook(tmp_path / "unattended.ipynb")
    env = {k: v for k, v in os.environ.items() if not k.startswith("INTERRUPT_WIDGET_")}
    env.pop("OPENAI_API_KEY", None)
    env.update(
        INTERRUPT_WIDGET_MODEL="offline",
        INTERRUPT_WIDGET_LEDGER=str(tmp_path / "calls.db"),
        OPENAI_AGENTS_DISABLE_TRACING="1",
    )
    began = time.monotonic()
    done = subprocess.run(
        [*NBVAL, "--durations=0", "-rN", str(notebook)],
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    took = time.monotonic() - began
    report = done.stdout + done.stderr
    assert done.returncode == 1, report
    assert "3 failed, 1 passed" in report, report
    assert "seconds exceeded" not in report  # nbval's own cell timeout, which said nothing
    failures = report.split("____ ")[1:]  # one section per failed cell
    assert len(failures) == 3, report
    for failure in failures:
        assert "UnattendedWait" in failure, failure
        assert "Nobody can answer" in failure, failure
        for way in WAYS_OUT:
            assert way in failure, failure
    durations = {
        int(cell): float(seconds)
        for seconds, cell in re.findall(r"([\d.]+)s call\s+\S+::Cell (\d)", report)
    }
    assert set(durations) == {0, 1, 2, 3}, report
    for cell in (1, 2, 3):
        assert 5.0 <= durations[cell] < FAST, (cell, durations)
    print(f"cells {durations}, whole nbval run {took:.1f} s")
