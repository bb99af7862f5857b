"""A batch whose kernel is killed (-9) mid-tool, then run again in a new one: no call runs twice,
and a call the kill cut off waits in doubt until an operator says whether it ran."""

from __future__ import annotations

import json
import os
import pathlib
import signal
import subprocess
import sys

from serve_process import until_written

HERE = pathlib.Path(__file__).parent
ROWS = 24
STUCK = "acct-9"


def runs(path: pathlib.Path) -> list[str]:
    if not path.exists():
        return []
    return [json.loads(line)["to"] for line in path.read_text().splitlines() if line.strip()]


def batch_process(runs_file: pathlib.Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, str(HERE / "batch_kernel.py"), str(runs_file), STUCK, str(ROWS)],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )


async def test_kill_9_mid_batch_then_a_new_kernel_runs_no_call_twice(
    tmp_path: pathlib.Path, runs_file: pathlib.Path
) -> None:
    first = batch_process(runs_file)
    try:
        # The stuck call is running, and a good part of the rest have run beside it.
        await until_written(lambda: STUCK in runs(runs_file) and len(runs(runs_file)) >= 12)
    finally:
        first.send_signal(signal.SIGKILL)
        first.wait()
    before = runs(runs_file)
    assert len(before) == len(set(before))

    second = batch_process(runs_file)
    out, _ = second.communicate(timeout=600)
    results = {row[0]: tuple(row[1:]) for row in json.loads(out)}
    after = runs(runs_file)
    assert sorted(after) == sorted(f"acct-{n}" for n in range(ROWS))  # each call ran once
    stuck_row = str(int(STUCK.split("-")[1]))
    # Cut off mid-tool: in doubt, never run again, until the operator said whether it ran.
    assert results[stuck_row][3] is True
    for key, (status, code, _replayed, _doubted) in results.items():
        assert status == "done", (key, status, code)
    assert any(replayed for _s, _c, replayed, _d in results.values())
