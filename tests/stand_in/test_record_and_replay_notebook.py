"""A notebook recorded for CI with one setting and replayed with one setting.

`INTERRUPT_WIDGET_RECORD=STEM` runs the notebook once with a key (here the stand-in plays
the model, and `approve_all` the person) and leaves `STEM.cassette.jsonl` and
`STEM.decisions.json` beside it, with no cell of the notebook saving anything;
`INTERRUPT_WIDGET_REPLAY=STEM` then runs it under nbval with no key, no model server and no
responder named: the cassette answers for the model, the decision file for the person, and
the checked output is the recorded one.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient
from responses_server import KEY, ResponsesStandIn

SETUP = '''\
from agents import Agent, function_tool
from interrupt_widget import AgentChat

@function_tool(needs_approval=True)
def write_note(text: str) -> str:
    """Append a line to the notes file."""
    with open("notes.txt", "a") as file:
        file.write(text + "\\n")
    return f"wrote {text}"

agent = Agent(name="notes", instructions="Write notes.", tools=[write_note], model="gpt-4o")
chat = AgentChat(agent)
chat'''
ASK = """\
# NBVAL_CHECK_OUTPUT
result = await chat.send("write_note text=hello")
print(result.text, [d.verdict for d in chat.decisions])"""
SAID = "write_note reported: wrote hello ['approved']\n"


def _notebook() -> nbformat.NotebookNode:
    notebook = nbformat.v4.new_notebook()  # type: ignore[no-untyped-call]
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3"}
    notebook.cells = [nbformat.v4.new_code_cell(s) for s in (SETUP, ASK)]  # type: ignore[no-untyped-call]
    return notebook


def _clean_environment() -> dict[str, str]:
    return {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("INTERRUPT_WIDGET_", "OPENAI_")) and k != "PYTEST_CURRENT_TEST"
    }


def test_one_setting_records_model_and_decisions_and_one_replays_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    stem = tmp_path / "notes"
    notebook = _notebook()
    server = ResponsesStandIn()
    for name in [k for k in os.environ if k.startswith("INTERRUPT_WIDGET_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    monkeypatch.setenv("OPENAI_AGENTS_DISABLE_TRACING", "1")
    monkeypatch.setenv("INTERRUPT_WIDGET_RECORD", str(stem))
    monkeypatch.setenv("INTERRUPT_WIDGET_RESPONDER", "approve_all")  # the person, recording
    monkeypatch.setenv("INTERRUPT_WIDGET_LEDGER", str(tmp_path / "recording.db"))
    with server.running() as url:
        monkeypatch.setenv("OPENAI_BASE_URL", url)
        where = {"metadata": {"path": str(tmp_path)}}
        NotebookClient(notebook, timeout=120, resources=where).execute()
    assert len(server.requests) == 2  # ask, then the reply after the approved call
    said = "".join(o.get("text", "") for o in notebook.cells[1].outputs)
    assert said == SAID
    cassette, decisions = tmp_path / "notes.cassette.jsonl", tmp_path / "notes.decisions.json"
    assert len(cassette.read_text().splitlines()) == 2
    assert [d["verdict"] for d in json.loads(decisions.read_text())["decisions"]] == ["approved"]
    nbformat.write(notebook, tmp_path / "notes.ipynb")  # type: ignore[no-untyped-call]

    env = _clean_environment()
    env.update(
        INTERRUPT_WIDGET_REPLAY=str(stem),
        INTERRUPT_WIDGET_LEDGER=str(tmp_path / "replay.db"),
        OPENAI_AGENTS_DISABLE_TRACING="1",
    )
    nbval = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--nbval-lax"]
    done = subprocess.run(
        [*nbval, "--nbval-current-env", "notes.ipynb"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert (tmp_path / "notes.txt").read_text().splitlines() == ["hello", "hello"]
