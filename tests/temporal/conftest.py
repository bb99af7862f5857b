"""What the Temporal tests share: a journal of the tool's runs."""

from __future__ import annotations

import pathlib

import pytest

pytest.importorskip("temporalio")

from payment_agents import RUNS_ENV


@pytest.fixture
def runs(tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch) -> pathlib.Path:
    """The file the test tools write each run to (counted by `runs_in`)."""
    path = tmp_path / "runs.jsonl"
    monkeypatch.setenv(RUNS_ENV, str(path))
    return path
