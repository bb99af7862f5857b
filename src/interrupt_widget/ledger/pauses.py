"""A paused run kept in the call ledger, in one request from the run that pauses.

When an SDK run pauses on approvals, the resume that answers them needs three
things from the ledger: the SDK's state (under the key `sdk/paused_runs.py`
derives from the waiting calls), the audit's notes of the calls asked, and,
for each call a rule about people covers, when it was first asked and who
started the run (`ledger/votes.py`). `keep` writes them all, each where this
ledger keeps it, and reads back what the rules about people count: the record
that stands (a call asked before keeps its first) and the votes given so far.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol, TypeGuard, runtime_checkable

from interrupt_widget.ledger import votes
from interrupt_widget.ledger.memory import MemoryLedger
from interrupt_widget.ledger.noting_ledger import Asked, keeps_notes
from interrupt_widget.ledger.once_only import CallLedger, Key, conforms
from interrupt_widget.ledger.table_ledger import TableLedger


@runtime_checkable
class Recording(Protocol):
    """A ledger that can set a key's record in one write (the SQLite and PostgreSQL ones)."""

    def record(self, thread_id: str, call_id: str, output: str) -> None:
        """Set the record of (thread id, call id) to `output`."""
        ...


def records_in_one_write(ledger: object) -> TypeGuard[Recording]:
    """Whether `ledger` is a `Recording` (the check of `conforms`)."""
    return conforms(ledger, Recording)


@dataclass(frozen=True)
class Pause:
    """What a run that pauses keeps."""

    state_text: Callable[[], str]
    """The state as the ledger keeps it; made only for a ledger that stores it (a ledger
    in memory is read by its own process alone, which keeps the state as an object)."""
    asked: Sequence[Asked] = ()
    """The audit's notes of the calls asked."""
    people: Mapping[str, votes.AskedRecord] = field(default_factory=dict)
    """Call id -> when it was asked and who started the run, for each call a rule about
    people covers."""
    counted: Collection[str] = ()
    """The calls among `people` a quorum counts: their votes are read back."""


@dataclass(frozen=True)
class PeopleSoFar:
    """What the ledger holds for a call a rule about people covers, once the pause is kept."""

    asked: votes.AskedRecord
    """The record that stands: this pause's, or the first pause's that asked the call."""
    given: list[votes.Vote]
    """The votes given so far (empty for a call no quorum counts)."""


async def keep(ledger: CallLedger, key: Key, pause: Pause) -> dict[str, PeopleSoFar]:
    """Keep `pause` in `ledger`, its state under `key` (thread id, state key); by call id,
    what the rules about people count now."""
    thread_id = key[0]
    people: dict[str, PeopleSoFar] = {}
    for call_id, record in pause.people.items():
        asked = await votes.note_asked(ledger, thread_id, call_id, record)
        counted = call_id in pause.counted
        given = await votes.votes(ledger, thread_id, call_id) if counted else []
        people[call_id] = PeopleSoFar(asked, given)
    await _keep_state(ledger, key, pause)
    return people


async def _keep_state(ledger: CallLedger, key: Key, pause: Pause) -> None:
    """The state in the ledger under `key`, the asked notes in its audit."""
    if isinstance(ledger, TableLedger):
        # One upsert, not a claim and a result: a process killed while writing a state
        # leaves nothing in doubt, and the next pause on the same calls writes it again.
        # The notes go in the same trip to the database (in SQLite, the same commit).
        await ledger.record_asked(key, pause.state_text(), pause.asked)
        return
    notes: object = ledger
    if pause.asked and keeps_notes(notes):
        await notes.note_asked(key[0], pause.asked)
    if isinstance(ledger, MemoryLedger):
        return  # read by this process alone: the object its run keeps is all it needs
    if records_in_one_write(ledger):
        await asyncio.to_thread(ledger.record, *key, pause.state_text())
        return
    text = pause.state_text()

    async def write() -> str:
        return text

    await ledger.run_once(key, write)
