"""The audit trail on a real PostgreSQL server (started by the test, as for the ledger's own
tests): every gated call from question to outcome, a table made on first use, the chain."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
from test_audit import check_every_outcome

from audit_scenarios import every_outcome
from interrupt_widget.ledger.audit_chain import verify_chain
from interrupt_widget.ledger.postgres import TABLE, PostgresLedger
from interrupt_widget.ledger.postgres_audit import AUDIT_TABLE
from postgres_server import binaries, fresh_database, running_postgres

pytestmark = pytest.mark.skipif(
    binaries() is None, reason="PostgreSQL is not installed (scripts/ensure-postgresql)"
)


@pytest.fixture(scope="module")
def postgres() -> Iterator[str]:
    with running_postgres() as url:
        yield url


@pytest.fixture
def database(postgres: str) -> str:
    return fresh_database(postgres)


async def test_every_gated_call_on_postgres_from_question_to_outcome(
    database: str, tmp_path: Path
) -> None:
    ledger = PostgresLedger(database)
    driven = await every_outcome(ledger)
    trail = ledger.audit()
    check_every_outcome(trail, driven)
    # A second server on the same database reads the same trail.
    other = PostgresLedger(database)
    assert other.audit().records() == trail.records()
    head = trail.write(tmp_path / "audit.jsonl")
    check = verify_chain(tmp_path / "audit.jsonl", head=head)
    assert check.intact
    assert check.records == 5
    ledger.close()
    other.close()


def test_a_database_used_before_the_audit_gains_its_table(database: str) -> None:
    with psycopg.connect(database, autocommit=True) as db:  # the calls' table alone, one call
        db.execute(
            f"CREATE TABLE {TABLE} (thread_id TEXT NOT NULL, call_id TEXT NOT NULL, "
            "state TEXT NOT NULL CHECK (state IN ('claimed', 'done')), output TEXT, "
            "answer JSONB, owner TEXT NOT NULL, claimed_at TIMESTAMPTZ NOT NULL DEFAULT now(), "
            "finished_at TIMESTAMPTZ, PRIMARY KEY (thread_id, call_id))"
        )
        db.execute(
            f"INSERT INTO {TABLE} (thread_id, call_id, state, output, answer, owner, finished_at)"
            " VALUES ('t-old', 'c-old', 'done', 'sent', '{\"approved\": true}', 'h:1:x', now())"
        )
    ledger = PostgresLedger(database)
    [entry] = ledger.audit()
    assert (entry.thread_id, entry.outcome, entry.decision) == ("t-old", "ran", "approved")
    assert entry.answer == {"approved": True}
    with psycopg.connect(database) as db:
        found = db.execute("SELECT to_regclass(%s)", (AUDIT_TABLE,)).fetchone()
    assert found is not None
    assert found[0] == AUDIT_TABLE
    ledger.close()
