"""`INTERRUPT_WIDGET_RECORD` and `INTERRUPT_WIDGET_REPLAY`: one stem names a run's cassette and
its decision file (the notebook end to end: tests/stand_in/test_record_and_replay_notebook.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from interrupt_widget import AgentBatch, Cassette, OfflineModel, responders
from interrupt_widget.decisions import load_decisions, save_decisions
from interrupt_widget.examples.bank import bank_agent
from interrupt_widget.recordings import RECORD_ENV, REPLAY_ENV, decision_recorder, replaying
from interrupt_widget.sdk.cassette import CASSETTE_MODE_ENV, cassette_from


@pytest.fixture(autouse=True)
def _nothing_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in (RECORD_ENV, REPLAY_ENV, CASSETTE_MODE_ENV, responders.ENV_VAR):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.delenv("INTERRUPT_WIDGET_CASSETTE", raising=False)


def test_replay_makes_every_cassette_replay_only_and_answers_from_the_decision_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    save_decisions([], tmp_path / "run.decisions.json")
    monkeypatch.setenv(REPLAY_ENV, str(tmp_path / "run"))
    tape = cassette_from(None)
    assert tape is not None
    assert (tape.path, tape.mode) == (tmp_path / "run.cassette.jsonl", "none")
    assert Cassette(tmp_path / "own.jsonl", mode="once").mode == "none"
    replayer = responders.from_env()
    assert replayer is not None
    assert replayer.name == "replay:run.decisions.json"
    monkeypatch.setenv(responders.ENV_VAR, "approve_all")  # a named responder still wins
    assert getattr(responders.from_env(), "name", None) == "approve_all"
    monkeypatch.setenv(CASSETTE_MODE_ENV, "new_episodes")  # and so does a named mode
    assert Cassette(tmp_path / "own.jsonl").mode == "new_episodes"


def test_record_gives_every_chat_one_cassette_recording_anew_and_a_decision_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(RECORD_ENV, str(tmp_path / "run"))
    first, second = cassette_from(None), cassette_from(None)
    assert first is second
    assert first is not None
    assert (first.path, first.mode) == ((tmp_path / "run.cassette.jsonl").resolve(), "all")
    recorder = decision_recorder()
    assert recorder is not None
    assert recorder is decision_recorder()
    assert (tmp_path / "run.decisions.json").read_text().count('"decisions": []') == 1


def test_record_and_replay_together_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(RECORD_ENV, str(tmp_path / "a"))
    monkeypatch.setenv(REPLAY_ENV, str(tmp_path / "b"))
    with pytest.raises(ValueError, match="not both"):
        replaying()


async def test_a_recorded_batch_writes_its_rows_decisions_and_a_replay_answers_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    rows = ["transfer_funds amount=5 to_account=ACME-1", "transfer_funds amount=6 to_account=B-2"]
    monkeypatch.setenv(RECORD_ENV, str(tmp_path / "pay"))
    recorded = AgentBatch(
        bank_agent(OfflineModel(), journal=tmp_path / "a.jsonl"),
        rows,
        name="pay",
        ledger=tmp_path / "a.db",
        responder=responders.approve_all(),
    )
    await recorded
    saved = load_decisions(tmp_path / "pay.decisions.json")
    assert sorted(d.arguments["amount"] for d in saved) == [5, 6]
    assert {d.verdict for d in saved} == {"approved"}

    monkeypatch.delenv(RECORD_ENV)
    monkeypatch.setenv(REPLAY_ENV, str(tmp_path / "pay"))
    replayed = AgentBatch(
        bank_agent(OfflineModel(), journal=tmp_path / "b.jsonl"),
        rows,
        name="pay",
        ledger=tmp_path / "b.db",
    )
    assert [r.status for r in await replayed] == ["done", "done"]
    assert [d.by for d in replayed.decisions] == ["responder:replay:pay.decisions.json"] * 2


def test_a_decision_is_written_with_every_field_as_asdict_gives_it(tmp_path: Path) -> None:
    import dataclasses
    import json

    from interrupt_widget.decisions import Decision

    decision = Decision(
        at="2030-01-08T10:00:00Z",
        tool="transfer_funds",
        arguments={"amount": 90, "memo": ["a", {"b": None}]},
        status="resolved",
        verdict="approved",
        payload={"approved": True, "editedArgs": {"amount": 80}},
        by="person:ada",
        interrupt_id="approve-c1",
        reason="",
        tool_call_id="c1",
        approvers=["ada", "bo"],
    )
    assert decision.record() == dataclasses.asdict(decision)
    path = save_decisions([decision], tmp_path / "run.decisions.json")
    assert load_decisions(path) == [decision]
    assert json.loads(path.read_text())["decisions"] == [dataclasses.asdict(decision)]
