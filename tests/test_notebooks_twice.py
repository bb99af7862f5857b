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


def test_a_notebook_on_a_real_model_replays_the_same_twice_with_no_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    name = "10_regression_runs"
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    # Were anything sent to a model, it would go nowhere: port 9 on loopback listens to nobody.
    monkeypatch.setenv("OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("INTERRUPT_WIDGET_CASSETTE_MODE", "none")
    monkeypatch.setenv("INTERRUPT_WIDGET_RESPONDER", f"replay:{NOTEBOOKS / name}.decisions.json")
    monkeypatch.setenv("INTERRUPT_WIDGET_LEDGER", str(tmp_path / "shared.db"))
    before = (NOTEBOOKS / f"{name}.cassette.jsonl").read_bytes()
    first = pinned_outputs(NOTEBOOKS / f"{name}.ipynb")
    second = pinned_outputs(NOTEBOOKS / f"{name}.ipynb")
    assert second == first
    assert "Done: deleted 5 rows from staging_orders; 1245 remain." in first[0]
    assert (NOTEBOOKS / f"{name}.cassette.jsonl").read_bytes() == before  # replayed, never written
