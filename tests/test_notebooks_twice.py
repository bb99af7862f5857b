"""A tutorial runs the same every time: twice in a row on one ledger, the same pinned outputs.

The ledger remembers every call that ran, by thread id, so a notebook that reuses a fixed
thread id on the shared ledger would replay its first run's results the second time.
"""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
PINNED = "# NBVAL_CHECK_OUTPUT"


def pinned_outputs(path: Path) -> list[str]:
    notebook = nbformat.read(path, as_version=4)
    where = {"metadata": {"path": str(NOTEBOOKS)}}
    NotebookClient(notebook, timeout=120, resources=where).execute()
    return [
        # When a question was asked is the one thing a second run may say differently.
        re.sub(
            r'(asked_at\\?": ?\\?")[^"\\]*',
            r"\1<time>",
            "".join(output.get("text", "") for output in cell.outputs),
        )
        for cell in notebook.cells
        if cell.cell_type == "code" and cell.source.startswith(PINNED)
    ]


@pytest.mark.parametrize("name", ["05_agui_events.ipynb"])
def test_a_tutorial_with_a_fixed_thread_id_runs_the_same_twice(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setenv("INTERRUPT_WIDGET_MODEL", "offline")
    monkeypatch.setenv("INTERRUPT_WIDGET_LEDGER", str(tmp_path / "shared.db"))
    first = pinned_outputs(NOTEBOOKS / name)
    second = pinned_outputs(NOTEBOOKS / name)
    assert second == first
    assert any("ran 1 time(s)" in text for text in second)
