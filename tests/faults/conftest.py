"""Fixtures of the fault tier: a bank tool that counts its real runs in a file."""

from __future__ import annotations

import pathlib
import sys

import pytest

HERE = pathlib.Path(__file__).parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))


@pytest.fixture
def runs_file(tmp_path: pathlib.Path) -> pathlib.Path:
    """Where the bank tool writes one line per real run."""
    return tmp_path / "runs.jsonl"
