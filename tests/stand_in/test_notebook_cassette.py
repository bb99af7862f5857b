"""Notebook 10's cassette is what the real `openai` client records, byte for byte.

The recording runs the notebook on a real kernel whose agent names `gpt-4o`: the SDK's
own OpenAI model and the `openai` client talk to the stand-in, which plays the model's
part (`data_ops_turn`). The committed file must equal what this records, so it never
drifts from the notebook, and it must hold no key or header (the stand-in's key is sent
with every request).
"""

from __future__ import annotations

from pathlib import Path

from record_notebook_cassette import CASSETTE, NOTEBOOKS, record
from responses_server import KEY


def test_the_committed_cassette_is_what_the_real_client_records(tmp_path: Path) -> None:
    recorded = record(tmp_path)
    written = recorded.read_bytes()
    assert written == (NOTEBOOKS / CASSETTE).read_bytes(), (
        "notebook 10 no longer asks what its cassette holds: record it again with "
        ".venv/bin/python tests/stand_in/record_notebook_cassette.py"
    )
    for secret in (KEY, "Bearer", "authorization", "Authorization"):
        assert secret.encode() not in written
    assert len(written.splitlines()) == 3  # count, ask to delete, report
