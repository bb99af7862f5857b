"""Where a ledger keeps its records (`ledger_place`): the same text for every way of naming one
ledger, a different one for a ledger that shares nothing with it. Temporal workers compare it
to refuse a run on a worker whose ledger could not know of a claim."""

from __future__ import annotations

import os
import pathlib
import socket

import pytest

from interrupt_widget import SQLiteLedger
from interrupt_widget.ledger.memory import MemoryLedger
from interrupt_widget.ledger.once_only import ledger_place


def test_one_sqlite_file_has_one_place_however_it_is_named(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "calls.db"
    (tmp_path / "link").symlink_to(tmp_path)
    (tmp_path / "x").mkdir()
    monkeypatch.chdir(tmp_path)
    names = [path, tmp_path / "link" / "calls.db", "calls.db", tmp_path / "x" / ".." / "calls.db"]
    places = {ledger_place(SQLiteLedger(name)) for name in names}
    assert places == {f"the SQLite file {os.path.realpath(path)} on {socket.gethostname()}"}
    assert ledger_place(SQLiteLedger(tmp_path / "other.db")) not in places


def test_each_memory_ledger_is_a_place_of_its_own() -> None:
    first, second = MemoryLedger(), MemoryLedger()
    assert ledger_place(first) == ledger_place(first)
    assert ledger_place(first) != ledger_place(second)
    assert f"process {os.getpid()}" in ledger_place(first)


def test_a_ledger_that_does_not_say_is_named_by_its_class() -> None:
    class Elsewhere:
        async def run_once(self, key: object, invoke: object, *, answer: object = None) -> str:
            return ""

    assert ledger_place(Elsewhere()) == (
        f"a {__name__}.test_a_ledger_that_does_not_say_is_named_by_its_class.<locals>.Elsewhere"
        " (it does not say where it keeps its records)"
    )
