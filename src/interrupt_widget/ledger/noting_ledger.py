"""`NotingLedger`: the once-only core with the notes the adapter writes for its audit trail,
and `audit()` reading them back.

The once-only record of a call (its claim, its output) is written by the
shared core (`interrupt_widget.ledger.once_only`); the audit needs a little more, noted
by the adapter beside it:

- **asked**: the tool, the hash of the arguments and when the run paused,
  noted when a run ends with interrupts;
- **answered**: the decision, the payload, who gave it and when, and the
  hash of the arguments it runs with, noted by the run that holds the
  call's claim, before the SDK runs the tool (or the denial is recorded), so
  the answer noted is always the one that settled the call;
- **failed**: the tool raised (its claim is dropped, so a later resume may
  try again and note a new answer).

Notes are best effort: a note that cannot be written is logged, and the
run goes on, since the claim, which decides whether a call runs, stands on
its own; `audit()` then shows what the claim knows. The asked notes go with
the paused run's state and the answered note with the call's claim, in the
same trip to the storage (on SQLite, the same synced commit), so the notes
cost a call little.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Protocol, TypeGuard, runtime_checkable

from ag_ui.core import ResumeEntry

from interrupt_widget.ledger.audit import AuditTrail, Claimed, Note, merged_entries
from interrupt_widget.ledger.once_only import (
    CLAIMED_HERE,
    Claim,
    ClaimNote,
    Key,
    OnceOnlyLedger,
    conforms,
)

logger = logging.getLogger(__name__)

__all__ = [
    "Answered",
    "Asked",
    "AuditedLedger",
    "NotingLedger",
    "answerers",
    "note_answered",
    "with_answerers",
]

BY_KEY = "by"
"""The resume entry's `metadata` key naming who answered (as the picker records it)."""


@dataclass(frozen=True)
class Asked:
    """A call a run paused on."""

    call_id: str
    tool: str
    arguments_sha256: str
    at: datetime


@dataclass(frozen=True)
class Answered:
    """The answer that settles a call, noted by the run holding its claim."""

    tool: str
    arguments_sha256: str
    decision: str
    answer: Any
    by: str | None
    at: datetime
    executed_arguments_sha256: str | None


@runtime_checkable
class AuditedLedger(Protocol):
    """A ledger that keeps audit notes (every built-in ledger does)."""

    async def note_asked(self, thread_id: str, asked: Sequence[Asked]) -> None: ...

    async def note_answered(self, thread_id: str, call_id: str, answered: Answered) -> None: ...

    async def note_failed(self, thread_id: str, call_id: str, error: str) -> None: ...

    def audit(self, since: datetime | None = None, until: datetime | None = None) -> AuditTrail: ...


class NotingLedger(OnceOnlyLedger):
    """The once-only core with audit notes; subclasses supply `_note_*` and `_audit_read`."""

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.note_error_listeners: list[Callable[[Exception], None]] = []
        """Called with each error that kept an audit note from being written (metrics)."""

    async def note_asked(self, thread_id: str, asked: Sequence[Asked]) -> None:
        """Note the calls a run paused on."""
        if asked:
            await self._noted(self._note_asked, thread_id, list(asked))

    async def note_answered(self, thread_id: str, call_id: str, answered: Answered) -> None:
        """Note the answer that settles a call (by the run that holds its claim)."""
        await self._noted(self._note_answered, (thread_id, call_id), answered)

    async def note_failed(self, thread_id: str, call_id: str, error: str) -> None:
        """Note that the approved call raised `error`."""
        await self._noted(self._note_failed, (thread_id, call_id), _first_line(error))

    def audit(self, since: datetime | None = None, until: datetime | None = None) -> AuditTrail:
        """Every gated call first seen in [since, until) (both optional), oldest first.

        See `interrupt_widget.ledger.audit`: `.frame()` for pandas, `.write(path)` for a
        hash-chained JSON Lines file.
        """
        notes, claims, in_doubt = self._audit_read()
        return merged_entries(notes, claims, in_doubt, since=since, until=until)

    # -- hooks -------------------------------------------------------------------------------

    def _claim_noting(self, key: Key, answer: Any, note: ClaimNote | None) -> Claim:
        """The claim, then its answer's note when the claim is `CLAIMED_HERE`: one trip to the
        storage (a ledger may write both in one transaction). The note is best effort."""
        found = self._claim(key, answer)
        if found is CLAIMED_HERE:
            self._note_with(key, note)
        return found

    def _insert_first_noting(
        self, key: Key, output: str, answer: Any, note: ClaimNote | None
    ) -> bool:
        """The record, then its answer's note when the record is this one (see
        `_claim_noting`)."""
        inserted = self._insert_first(key, output, answer)
        if inserted:
            self._note_with(key, note)
        return inserted

    def _note_with(self, key: Key, note: ClaimNote | None) -> None:
        """The answer's note a write of this ledger's carries, best effort."""
        if note is not None and isinstance(note.note, Answered):
            note.written = True
            try:
                self._note_answered(key, note.note)
            except Exception as error:
                self._note_trouble(error)

    def _note_asked(self, thread_id: str, asked: list[Asked]) -> None:
        raise NotImplementedError

    def _note_answered(self, key: Key, answered: Answered) -> None:
        raise NotImplementedError

    def _note_failed(self, key: Key, error: str) -> None:
        raise NotImplementedError

    def _audit_read(self) -> tuple[dict[Key, Note], dict[Key, Claimed], set[Key]]:
        """Every note, every claim, and the keys in doubt."""
        raise NotImplementedError

    # -- internals ---------------------------------------------------------------------------

    async def _noted(self, hook: Callable[..., None], *args: Any) -> None:
        try:
            await self._io(hook, *args)
        except Exception as error:
            self._note_trouble(error)

    def _note_trouble(self, error: Exception) -> None:
        """A note that could not be written: logged and told to the listeners (which may be
        called from the ledger's worker thread, when the note went with a claim)."""
        logger.warning("could not write an audit note to %r: %s", self, error)
        for listener in self.note_error_listeners:
            listener(error)


def keeps_notes(ledger: object) -> TypeGuard[AuditedLedger]:
    """Whether `ledger` keeps audit notes (`AuditedLedger`, checked as `conforms` does)."""
    return conforms(ledger, AuditedLedger)


async def note_answered(ledger: object, key: Key, note: Answered) -> None:
    """Write an answer's note in `ledger`'s audit, when it keeps one (`AuditedLedger`)."""
    if keeps_notes(ledger):
        await ledger.note_answered(*key, note)


def answerers(entries: Sequence[ResumeEntry | Mapping[str, Any]] | None) -> dict[str, str]:
    """Who answered each interrupt, by interrupt id, as the resume entries' metadata says."""
    found: dict[str, str] = {}
    for entry in entries or []:
        if isinstance(entry, ResumeEntry):
            interrupt_id, metadata = entry.interrupt_id, entry.metadata
        else:
            interrupt_id = entry.get("interruptId", entry.get("interrupt_id"))
            metadata = entry.get("metadata")
        by = metadata.get(BY_KEY) if isinstance(metadata, Mapping) else None
        if isinstance(interrupt_id, str) and isinstance(by, str) and by:
            found[interrupt_id] = by[:200]  # a client's word: kept, but bounded
    return found


def with_answerers(entries: Sequence[ResumeEntry], who: Mapping[str, str]) -> list[ResumeEntry]:
    """`entries`, each with who answered it (`metadata.by`) when `who` knows and it does not say."""
    out = []
    for entry in entries:
        by = who.get(entry.interrupt_id)
        metadata = dict(entry.metadata or {})
        if by is not None and BY_KEY not in metadata:
            entry = entry.model_copy(update={"metadata": {**metadata, BY_KEY: by}})
        out.append(entry)
    return out


def _first_line(text: str) -> str:
    stripped = text.strip()
    return (stripped.splitlines()[0] if stripped else "error")[:500]
