"""Record notebook 10's cassette through the real `openai` client, against the stand-in.

The notebook's agent names `gpt-4o`; here the SDK's own OpenAI model and the `openai`
client talk to the local stand-in (`OPENAI_BASE_URL`), which plays the model's part
with `data_ops_turn`, so the cassette holds exactly what a recording with a key holds,
made with no network. The stand-in's clock is fixed, so recording again gives the same
bytes (the test beside this file checks that the committed cassette is what it records).

Run: .venv/bin/python tests/stand_in/record_notebook_cassette.py   (rewrites the cassette
beside notebooks/10_regression_runs.ipynb)
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import nbformat
from nbclient import NotebookClient

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

from data_ops_turn import data_ops_turn  # noqa: E402  (found through the path above)
from responses_server import KEY, ResponsesStandIn  # noqa: E402

NOTEBOOKS = HERE.parent.parent / "notebooks"
NAME = "10_regression_runs"
CASSETTE = f"{NAME}.cassette.jsonl"
DECISIONS = f"{NAME}.decisions.json"
RECORDED_AT = 1_796_400_000
"""The stand-in's `created_at`: fixed, so every recording is the same bytes."""


@contextmanager
def _environment(**values: str) -> Iterator[None]:
    saved = {k: os.environ.get(k) for k in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


def record(folder: Path) -> Path:
    """Run notebook 10 in `folder` (a copy, with its decision file) and record its cassette
    there, the model's answers coming through the real client; returns the cassette."""
    shutil.copy(NOTEBOOKS / f"{NAME}.ipynb", folder)
    shutil.copy(NOTEBOOKS / DECISIONS, folder)
    (folder / CASSETTE).unlink(missing_ok=True)  # mode `once` records a missing file
    server = ResponsesStandIn(turn=data_ops_turn, clock=lambda: RECORDED_AT)
    notebook = nbformat.read(folder / f"{NAME}.ipynb", as_version=4)  # type: ignore[no-untyped-call]
    with (
        server.running() as url,
        _environment(
            OPENAI_BASE_URL=url,
            OPENAI_API_KEY=KEY,
            OPENAI_AGENTS_DISABLE_TRACING="1",
            INTERRUPT_WIDGET_CASSETTE_MODE="",
            INTERRUPT_WIDGET_MODEL="",
            INTERRUPT_WIDGET_RESPONDER=f"replay:{folder / DECISIONS}",
            INTERRUPT_WIDGET_LEDGER=str(folder / "ledger.db"),
        ),
    ):
        NotebookClient(
            notebook, timeout=120, resources={"metadata": {"path": str(folder)}}
        ).execute()
    if not server.requests:
        raise RuntimeError("the notebook never asked the stand-in: nothing was recorded")
    return folder / CASSETTE


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as scratch:
        made = record(Path(scratch))
        shutil.copy(made, NOTEBOOKS / CASSETTE)
    print(f"recorded {NOTEBOOKS / CASSETTE}")
