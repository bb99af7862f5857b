"""A run that fails with one of the kit's own errors keeps its class in a chat and a batch.

A cassette that refuses a replay raises `CassetteMismatch` (or `CassetteMissing`) around a
plain `Runner.run`; in a chat the same failure arrives as a RUN_ERROR and is raised as a
`ChatRunError`, which must still be caught by `except CassetteMismatch`, with its turn and
difference, and its code.
"""

from __future__ import annotations

import pathlib
from typing import Any

import pytest
from agents import Agent, function_tool, set_tracing_disabled

from interrupt_widget import (
    AgentBatch,
    AgentChat,
    Cassette,
    CassetteMismatch,
    CassetteMissing,
    ChatRunError,
    ErrorCode,
    OfflineModel,
    responders,
)
from interrupt_widget.testing import CommRecorder
from one_model import OneModel, _no_cassette_from_the_environment  # noqa: F401

set_tracing_disabled(True)

PROMPT = "delete_rows table=staging_orders count=5"


def ops_agent(*, dry_run: bool = False) -> Agent[Any]:
    if dry_run:

        @function_tool(needs_approval=True)
        def delete_rows(table: str, count: int, dry_run: bool = True) -> str:
            """Delete rows from a table."""
            return f"deleted {count} rows from {table}"

    else:

        @function_tool(needs_approval=True)
        def delete_rows(table: str, count: int) -> str:
            """Delete rows from a table."""
            return f"deleted {count} rows from {table}"

    return Agent(name="ops", instructions="Be careful.", tools=[delete_rows], model="gpt-4o")


async def test_a_mismatch_in_a_chat_is_caught_as_cassette_mismatch_with_its_turn(
    recorder: CommRecorder, tmp_path: pathlib.Path
) -> None:
    tape = tmp_path / "ops.cassette.jsonl"
    recording = Cassette(tape, provider=OneModel(OfflineModel()))
    approve = responders.approve_all()
    first = AgentChat(ops_agent(), cassette=recording, ledger=tmp_path / "a.db", responder=approve)
    await first.send(PROMPT)

    changed = AgentChat(
        ops_agent(dry_run=True),
        cassette=Cassette(tape, mode="none"),
        ledger=tmp_path / "b.db",
        responder=responders.approve_all(),
    )
    with pytest.raises(CassetteMismatch) as refused:
        await changed.send(PROMPT)
    error = refused.value
    assert isinstance(error, ChatRunError)
    assert error.code == ErrorCode.CASSETTE_MISMATCH
    assert (error.turn, error.difference) == (1, "tool delete_rows: parameter dry_run added")
    assert str(error).startswith("turn 1: tool delete_rows: parameter dry_run added")


async def test_a_missing_cassette_in_a_chat_is_caught_as_cassette_missing(
    recorder: CommRecorder, tmp_path: pathlib.Path
) -> None:
    chat = AgentChat(
        ops_agent(),
        cassette=Cassette(tmp_path / "absent.jsonl", mode="none"),
        ledger=tmp_path / "a.db",
    )
    with pytest.raises(CassetteMissing, match="does not exist") as refused:
        await chat.send(PROMPT)
    assert isinstance(refused.value, ChatRunError)
    assert refused.value.code == ErrorCode.CASSETTE_MISSING


async def test_a_batch_rows_failure_keeps_the_class_of_its_error(tmp_path: pathlib.Path) -> None:
    batch = AgentBatch(
        ops_agent(),
        [PROMPT],
        cassette=Cassette(tmp_path / "absent.jsonl", mode="none"),
        ledger=tmp_path / "a.db",
        responder=responders.approve_all(),
    )
    (row,) = await batch
    assert row.status == "failed"
    assert isinstance(row.exception, CassetteMissing)
    assert isinstance(row.exception, ChatRunError)
    assert row.exception.code == row.code == ErrorCode.CASSETTE_MISSING
    assert str(row.exception) == row.error


def test_a_code_without_an_error_of_its_own_stays_a_plain_chat_run_error() -> None:
    plain = ChatRunError.of("the model failed", ErrorCode.MODEL_ERROR.value)
    assert type(plain) is ChatRunError
    assert type(ChatRunError.of("no code")) is ChatRunError
    unsure = ChatRunError.of("the ledger failed", ErrorCode.LEDGER_UNAVAILABLE.value)
    assert type(unsure) is ChatRunError  # whether the call ran is not in a RUN_ERROR
