"""Other frameworks' AG-UI servers as real processes, each in its own virtual environment.

`scripts/interop-venv NAME` makes `.venv-interop/NAME` from the exact pins in
`requirements/interop-NAME.txt` (once; their pins conflict with the kit's). The
servers themselves are `tests/interop/*_server.py`; each tool writes one JSON
line per real run to the file a test reads.
"""

from __future__ import annotations

import json
import subprocess
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from interrupt_widget.free_port import free_port

ROOT = Path(__file__).resolve().parents[1]
SERVERS = ROOT / "tests" / "interop"


def interop_python(name: str) -> str:
    """The python of `.venv-interop/NAME`, made first if missing or stale."""
    made = subprocess.run(
        [str(ROOT / "scripts" / "interop-venv"), name],
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert made.returncode == 0, made.stderr
    return made.stdout.strip().splitlines()[-1]


class InteropServer:
    """A running server: its URL and the runs its tool wrote."""

    def __init__(self, url: str, runs_file: Path) -> None:
        self.url = url
        self.runs_file = runs_file

    def runs(self) -> list[dict[str, Any]]:
        if not self.runs_file.exists():
            return []
        return [json.loads(line) for line in self.runs_file.read_text().splitlines()]


def server_starter(
    python: str, script: str, tmp_path: Path
) -> Iterator[Callable[..., InteropServer]]:
    """A fixture body: `start(*args)` runs `script PORT RUNS_FILE *args`; all stop at the end."""
    processes: list[subprocess.Popen[str]] = []

    def start(*args: str) -> InteropServer:
        port = free_port()
        runs_file = tmp_path / f"runs-{len(processes)}.jsonl"
        process = subprocess.Popen(
            [python, str(SERVERS / script), str(port), str(runs_file), *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        processes.append(process)
        assert process.stdout is not None
        log: list[str] = []
        for line in process.stdout:
            log.append(line)
            if "Uvicorn running on" in line:
                break
        else:
            raise AssertionError(f"{script} did not start:\n" + "".join(log))
        out = process.stdout
        threading.Thread(target=lambda: [None for _ in out], daemon=True).start()
        return InteropServer(f"http://127.0.0.1:{port}/", runs_file)

    yield start
    for process in processes:
        process.terminate()
        process.wait(timeout=30)
