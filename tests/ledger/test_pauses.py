"""A paused run kept in one request (`ledger/pauses.py`): its state, its asked notes and the
records of the calls rules about people cover, on SQLite and in memory."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from interrupt_widget import SQLiteLedger
from interrupt_widget.ledger import votes
from interrupt_widget.ledger.memory import MemoryLedger
from interrupt_widget.ledger.noting_ledger import Asked
from interrupt_widget.ledger.pauses import Pause, keep

ASKED_AT = datetime(2026, 12, 6, 9, 0, tzinfo=UTC)
KEY = ("thread-1", "sdk-state:abc")


def _pause(texts: list[str], *, at: str, starter: str | None) -> Pause:
    def state_text() -> str:
        texts.append('{"state": 1}')
        return texts[-1]

    return Pause(
        state_text,
        [
            Asked("call-a", "transfer", "a" * 64, ASKED_AT),
            Asked("call-b", "lookup", "b" * 64, ASKED_AT),
        ],
        {"call-a": votes.AskedRecord(at, starter), "call-b": votes.AskedRecord(at, starter)},
        counted={"call-a"},
    )


async def test_a_pause_keeps_its_state_notes_and_people_records_on_sqlite(tmp_path: Path) -> None:
    ledger = SQLiteLedger(tmp_path / "calls.db")
    texts: list[str] = []
    so_far = await keep(ledger, KEY, _pause(texts, at="2026-12-06T09:00:00Z", starter="ada"))

    assert set(so_far) == {"call-a", "call-b"}
    assert so_far["call-a"].asked == votes.AskedRecord("2026-12-06T09:00:00Z", "ada")
    assert so_far["call-a"].given == []
    assert so_far["call-b"].given == []
    found = await ledger.recorded(KEY)
    assert found is not None
    assert found.output == '{"state": 1}'
    assert texts == ['{"state": 1}']  # made once, for the one write
    asked = {e.call_id: e for e in ledger.audit()}
    assert {"call-a", "call-b"} <= set(asked)
    assert asked["call-a"].tool == "transfer"
    assert asked["call-a"].asked_at is not None

    # A vote comes, and the run pauses on the call again (a resume still short of its
    # quorum): the first record stands, and the vote is read back with it.
    vote = votes.Vote("grace", ("treasurer",), True, "2026-12-06T09:05:00Z")
    await votes.cast(ledger, "thread-1", "call-a", vote)
    again = await keep(ledger, KEY, _pause(texts, at="2026-12-06T10:00:00Z", starter="bob"))
    assert again["call-a"].asked == votes.AskedRecord("2026-12-06T09:00:00Z", "ada")
    assert again["call-a"].given == [vote]
    assert again["call-b"].given == []  # no quorum counts it: its votes are not read


async def test_a_pause_in_memory_keeps_no_state_text() -> None:
    ledger = MemoryLedger()
    texts: list[str] = []
    so_far = await keep(ledger, KEY, _pause(texts, at="2026-12-06T09:00:00Z", starter=None))
    assert texts == []  # the run keeps the object; no JSON is made for nobody
    assert await ledger.recorded(KEY) is None
    assert so_far["call-a"].asked == votes.AskedRecord("2026-12-06T09:00:00Z", None)
    assert {e.call_id for e in ledger.audit()} >= {"call-a", "call-b"}


async def test_a_pause_without_people_keeps_the_state_alone(tmp_path: Path) -> None:
    ledger = SQLiteLedger(tmp_path / "calls.db")
    so_far = await keep(ledger, KEY, Pause(lambda: "{}"))
    assert so_far == {}
    found = await ledger.recorded(KEY)
    assert found is not None
    assert found.output == "{}"
    assert await votes.asked(ledger, "thread-1", "call-a") is None


def test_a_ledger_kind_is_told_once_per_class_and_an_object_of_its_own_still_counts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from interrupt_widget.ledger import once_only
    from interrupt_widget.ledger.noting_ledger import keeps_notes
    from interrupt_widget.ledger.pauses import records_in_one_write

    asked: list[type] = []
    subclass = issubclass

    def counted(kind: type, protocol: type) -> bool:
        asked.append(kind)
        return subclass(kind, protocol)

    monkeypatch.setattr(once_only, "_conforming", {})
    monkeypatch.setattr(once_only, "issubclass", counted, raising=False)
    memory = MemoryLedger()
    assert [keeps_notes(memory) for _ in range(3)] == [True] * 3
    assert not records_in_one_write(memory)
    assert asked == [MemoryLedger, MemoryLedger]  # once for each question

    class Bare:
        pass

    bare = Bare()
    assert not keeps_notes(bare)
    bare.note_asked = bare.note_answered = bare.note_failed = bare.audit = print  # type: ignore[attr-defined]
    assert keeps_notes(bare)  # its own attributes make it one, as `isinstance` says
