"""The audit trail: every gated call from question to outcome, on SQLite and in memory, written
as hash-chained JSON Lines that `python -m interrupt_widget audit verify` checks."""

from __future__ import annotations

import hashlib
import itertools
import json
import os
import sqlite3
import subprocess
import sys
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from audit_scenarios import every_outcome
from interrupt_widget import AgentChat, SQLiteLedger
from interrupt_widget.examples import meeting_agent
from interrupt_widget.http.cli import main
from interrupt_widget.ledger.audit import AuditEntry, AuditTrail, arguments_sha256, text_sha256
from interrupt_widget.ledger.audit_chain import verify_chain
from interrupt_widget.ledger.memory import MemoryLedger
from interrupt_widget.testing import until

INVOICE_ACME = arguments_sha256({"customer": "ACME"})


def _by_thread(trail: AuditTrail) -> dict[str, AuditEntry]:
    return {e.thread_id: e for e in trail}


def check_every_outcome(trail: AuditTrail, driven: dict[str, Any]) -> None:
    """What every ledger's audit must say about `every_outcome`'s calls."""
    entries = _by_thread(trail)
    assert set(entries) == set(driven["calls"])
    for thread_id, call_id in driven["calls"].items():
        assert entries[thread_id].call_id == call_id

    ran = entries["t-ran"]
    assert (ran.tool, ran.outcome, ran.decision) == ("send_invoice", "ran", "approved")
    assert ran.arguments_sha256 == ran.executed_arguments_sha256 == INVOICE_ACME
    assert ran.answer == {"approved": True}
    assert ran.by == "view:inbox-7"
    assert ran.result_sha256 == text_sha256(driven["ran_output"])
    assert ran.asked_at is not None
    assert ran.answered_at is not None
    assert ran.started_at is not None
    assert ran.finished_at is not None
    assert ran.asked_at <= ran.answered_at <= ran.started_at + timedelta(seconds=1)
    assert ran.started_at <= ran.finished_at

    denied = entries["t-denied"]
    assert (denied.outcome, denied.decision, denied.by) == ("denied", "denied", "view:inbox-7")
    assert denied.answer == {"approved": False, "reason": "wrong customer"}
    assert denied.result_sha256 is None
    assert denied.executed_arguments_sha256 is None
    assert denied.arguments_sha256 == arguments_sha256({"customer": "Globex"})

    cancelled = entries["t-cancelled"]
    assert (cancelled.outcome, cancelled.decision, cancelled.answer) == (
        "cancelled",
        "cancelled",
        None,
    )
    assert cancelled.by is None  # the entry did not say who

    failed = entries["t-failed"]
    assert (failed.tool, failed.outcome, failed.decision) == ("wipe_disk", "failed", "approved")
    assert failed.error is not None
    assert "write-protected" in failed.error
    assert failed.result_sha256 is None

    waiting = entries["t-waiting"]
    assert (waiting.outcome, waiting.decision, waiting.answered_at) == ("waiting", None, None)
    assert waiting.asked_at is not None
    assert waiting.arguments_sha256 == arguments_sha256({"customer": "Hooli"})


async def test_every_gated_call_on_sqlite_from_question_to_outcome(tmp_path: Path) -> None:
    ledger = SQLiteLedger(tmp_path / "calls.db")
    driven = await every_outcome(ledger)
    check_every_outcome(ledger.audit(), driven)
    # Another process's ledger on the same file reads the same trail.
    assert ledger.audit().records() == SQLiteLedger(tmp_path / "calls.db").audit().records()


async def test_every_gated_call_in_memory(tmp_path: Path) -> None:
    ledger = MemoryLedger()
    driven = await every_outcome(ledger)
    check_every_outcome(ledger.audit(), driven)


async def test_the_window_takes_calls_first_seen_within_it(tmp_path: Path) -> None:
    ledger = SQLiteLedger(tmp_path / "calls.db")
    await every_outcome(ledger)
    now = datetime.now(UTC)
    assert len(ledger.audit(since=now - timedelta(minutes=5))) == 5
    assert len(ledger.audit(since=now + timedelta(minutes=5))) == 0
    assert len(ledger.audit(until=now - timedelta(minutes=5))) == 0
    naive = (now - timedelta(minutes=5)).replace(tzinfo=None)
    assert len(ledger.audit(since=naive)) == 5  # a naive bound is read as UTC


async def test_a_click_in_the_chat_is_audited_with_who_clicked(tmp_path: Path) -> None:
    ledger = SQLiteLedger(tmp_path / "calls.db")
    chat = AgentChat(meeting_agent(), ledger=ledger)
    chat.send("Book a call with Alice about the Q3 roadmap")
    await until(chat, lambda: chat.status == "waiting")
    assert [e.outcome for e in ledger.audit()] == ["waiting"]
    assert chat.picker is not None
    answer = {"approved": True, "chosen_time": "2030-01-08T10:00:00Z", "chosen_label": "Tue"}
    chat.picker.resolve(answer, by="user")
    assert chat.last_run is not None
    await chat.last_run
    [entry] = ledger.audit()
    assert (entry.tool, entry.outcome, entry.by) == ("schedule_meeting", "ran", "user")
    assert entry.thread_id == chat.thread.thread_id


def test_frame_has_a_row_per_call_with_times_as_datetimes(tmp_path: Path) -> None:
    import asyncio

    ledger = SQLiteLedger(tmp_path / "calls.db")
    asyncio.run(every_outcome(ledger))
    frame = ledger.audit().frame()
    assert len(frame) == 5
    assert sorted(frame["outcome"]) == sorted(["ran", "denied", "cancelled", "failed", "waiting"])
    assert str(frame["asked_at"].dtype).startswith("datetime64")
    assert frame.set_index("thread_id").loc["t-ran", "by"] == "view:inbox-7"


def test_a_ledger_file_made_before_the_audit_gains_it_and_shows_its_calls(tmp_path: Path) -> None:
    path = tmp_path / "old.db"
    with sqlite3.connect(path) as db:  # the first schema: no answer column, no audit table
        db.execute(
            "CREATE TABLE approved_calls (thread_id TEXT NOT NULL, call_id TEXT NOT NULL, "
            "state TEXT NOT NULL CHECK (state IN ('claimed', 'done')), output TEXT, "
            "owner TEXT NOT NULL, owner_host TEXT NOT NULL, owner_pid INTEGER NOT NULL, "
            "claimed_at REAL NOT NULL, finished_at REAL, PRIMARY KEY (thread_id, call_id))"
        )
        now = datetime.now(UTC).timestamp()
        db.execute(
            "INSERT INTO approved_calls VALUES ('t-old', 'c-old', 'done', 'sent', 'h:1:x', 'h', 1, "
            "?, ?)",
            (now - 2, now - 1),
        )
    [entry] = SQLiteLedger(path).audit()
    assert (entry.thread_id, entry.call_id, entry.outcome) == ("t-old", "c-old", "ran")
    assert entry.result_sha256 == text_sha256("sent")
    assert entry.tool is None  # noted only for calls asked from now on
    with sqlite3.connect(path) as db:
        tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master")}
    assert "call_audit" in tables


def test_a_claim_whose_process_died_is_in_doubt_in_the_audit(tmp_path: Path) -> None:
    ledger = SQLiteLedger(tmp_path / "calls.db")
    gone = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        check=True,
        capture_output=True,
        text=True,
    )
    pid = int(gone.stdout)
    with sqlite3.connect(ledger.path) as db:
        db.execute(
            "INSERT INTO approved_calls (thread_id, call_id, state, owner, owner_host, owner_pid, "
            "claimed_at) VALUES ('t', 'c', 'claimed', 'x', ?, ?, ?)",
            (os.uname().nodename, pid, datetime.now(UTC).timestamp()),
        )
    [entry] = ledger.audit()
    assert entry.outcome == "in_doubt"
    assert entry.finished_at is None
    assert entry.result_sha256 is None


# -- the written trail and its verifier ------------------------------------------------------


@pytest.fixture
def trail_file(tmp_path: Path) -> tuple[Path, str]:
    import asyncio

    ledger = SQLiteLedger(tmp_path / "calls.db")
    asyncio.run(every_outcome(ledger))
    path = tmp_path / "audit.jsonl"
    head = ledger.audit().write(path)
    return path, head


def _verify(path: Path, *extra: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(["audit", "verify", str(path), *extra])
    out, err = capsys.readouterr()
    return code, out + err


def test_an_intact_trail_verifies_with_its_count(
    trail_file: tuple[Path, str], capsys: pytest.CaptureFixture[str]
) -> None:
    path, head = trail_file
    lines = path.read_text().splitlines()
    assert len(lines) == 7  # opening line, five calls, closing line
    for before, line in itertools.pairwise(lines):
        assert (
            json.loads(line)["prev"]
            == hashlib.sha256(
                json.dumps(
                    {k: v for k, v in json.loads(before).items() if k != "sha256"},
                    sort_keys=True,
                    separators=(",", ":"),
                    ensure_ascii=False,
                ).encode()
            ).hexdigest()
        )
    code, said = _verify(path, "--head", head, capsys=capsys)
    assert code == 0, said
    assert "intact, 5 records" in said


def _rewrite(path: Path, change: Any) -> None:
    lines = path.read_text().splitlines()
    path.write_text("\n".join(change(lines)) + "\n")


def test_an_edited_line_is_named(
    trail_file: tuple[Path, str], capsys: pytest.CaptureFixture[str]
) -> None:
    path, _ = trail_file
    lines = path.read_text().splitlines()
    record = json.loads(lines[3])
    record["record"]["by"] = "view:forged"  # its sha256 left as it was
    lines[3] = json.dumps(record, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    path.write_text("\n".join(lines) + "\n")
    code, said = _verify(path, capsys=capsys)
    assert code == 1
    assert "line 4: changed" in said


def test_an_edited_line_with_its_own_hash_recomputed_breaks_the_next_link(
    trail_file: tuple[Path, str], capsys: pytest.CaptureFixture[str]
) -> None:
    path, _ = trail_file
    lines = path.read_text().splitlines()
    record = json.loads(lines[2])
    record["record"]["by"] = "view:forged"
    body = {k: v for k, v in record.items() if k != "sha256"}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    record["sha256"] = hashlib.sha256(text.encode()).hexdigest()
    lines[2] = json.dumps(record, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    path.write_text("\n".join(lines) + "\n")
    code, said = _verify(path, capsys=capsys)
    assert code == 1
    assert "line 4: does not follow the line before it" in said


def test_a_deleted_line_is_named(
    trail_file: tuple[Path, str], capsys: pytest.CaptureFixture[str]
) -> None:
    path, _ = trail_file
    _rewrite(path, lambda ls: [*ls[:2], *ls[3:]])
    code, said = _verify(path, capsys=capsys)
    assert code == 1
    assert "line 3: a line was removed before it" in said


def test_swapped_lines_are_named(
    trail_file: tuple[Path, str], capsys: pytest.CaptureFixture[str]
) -> None:
    path, _ = trail_file
    _rewrite(path, lambda ls: [*ls[:2], ls[3], ls[2], *ls[4:]])
    code, said = _verify(path, capsys=capsys)
    assert code == 1
    assert "line 3: out of order" in said


def test_lines_cut_from_the_end_and_a_rewritten_file_are_caught(
    trail_file: tuple[Path, str], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path, head = trail_file
    _rewrite(path, lambda ls: ls[:-2])
    code, said = _verify(path, capsys=capsys)
    assert code == 1
    assert "line 6: missing" in said

    # A whole new chain over other records verifies on its own, but not against the head kept.
    other = tmp_path / "other.jsonl"
    AuditTrail([]).write(other)
    assert verify_chain(other).intact
    code, said = _verify(other, "--head", head, capsys=capsys)
    assert code == 1
    assert "the file was rewritten" in said


def test_audit_write_from_the_command_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import asyncio

    database = tmp_path / "calls.db"
    asyncio.run(every_outcome(SQLiteLedger(database)))
    out_file = tmp_path / "trail.jsonl"
    assert main(["audit", "write", str(out_file), "--ledger", str(database)]) == 0
    assert "5 calls" in capsys.readouterr().out
    # The module's own entry point, as an operator runs it.
    verified = subprocess.run(
        [sys.executable, "-m", "interrupt_widget", "audit", "verify", str(out_file)],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)},
    )
    assert verified.returncode == 0, verified.stderr
    assert "intact, 5 records" in verified.stdout


async def test_an_edited_call_shows_the_arguments_it_ran_with(tmp_path: Path) -> None:
    from agents import Agent, function_tool

    from audit_scenarios import answer, pause
    from interrupt_widget import OfflineModel, OpenAIAgentsAdapter, editable

    @function_tool(needs_approval=True)
    def pay(customer: str) -> str:
        """Pay `customer`."""
        return f"Paid {customer}."

    ledger = SQLiteLedger(tmp_path / "calls.db")
    adapter = OpenAIAgentsAdapter(
        Agent(name="payer", model=OfflineModel(), tools=[editable(pay)]), ledger=ledger
    )
    paused = await pause(adapter, "t-edit", "Please pay customer=ACME")
    edit = {"approved": True, "editedArgs": {"customer": "ACME Ltd"}}
    await answer(adapter, "t-edit", paused, {"status": "resolved", "payload": edit})
    [entry] = ledger.audit()
    assert entry.outcome == "ran"
    assert entry.arguments_sha256 == arguments_sha256({"customer": "ACME"})
    assert entry.executed_arguments_sha256 == arguments_sha256({"customer": "ACME Ltd"})
    assert entry.answer == edit


def test_what_the_ledger_keeps_that_is_not_a_call_stays_out_of_the_audit() -> None:
    from interrupt_widget.ledger.audit import NOT_CALLS
    from interrupt_widget.sdk.paused_runs import STATE_PREFIX

    assert STATE_PREFIX in NOT_CALLS
