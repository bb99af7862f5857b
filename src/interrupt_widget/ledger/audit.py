"""The audit trail: every gated call, what was asked, who answered, what ran.

`ledger.audit(since=None, until=None)` (on `SQLiteLedger`, `PostgresLedger`
and the in-memory `MemoryLedger`) returns an `AuditTrail`, one
`AuditEntry` per gated call, read from two records the ledger keeps: the
claim of each settled call (claimed before the tool runs, its output stored
after) and the audit notes the adapter adds (the tool, the arguments' hash
and when it was asked; the answer, who gave it and when). Arguments and
results appear only as SHA-256 hashes, so a trail can leave the building
without the personal data a call may carry; the answer payload is kept as
given, since it is the decision itself.

`AuditTrail.write(path)` writes JSON Lines whose lines each carry the hash of
the line before (`interrupt_widget.ledger.audit_chain`), so
`python -m interrupt_widget audit verify FILE` finds the first line that was
changed, removed or reordered.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass, fields
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final, Literal

from interrupt_widget.clock import utc_text
from interrupt_widget.ledger.audit_chain import canonical_json, write_chain

__all__ = [
    "AuditEntry",
    "AuditTrail",
    "Outcome",
    "arguments_sha256",
    "text_sha256",
]

Outcome = Literal[
    "waiting", "answered", "running", "ran", "failed", "in_doubt", "denied", "cancelled"
]
"""What came of a gated call, as far as the ledger knows.

`waiting`: asked, no answer yet. `answered`: answered, but no run holds the
call (a claim released by an operator, or one the ledger never got).
`running`: a live run holds its claim. `ran`: the tool ran and its result is
recorded. `failed`: the tool raised (a later resume may try it again).
`in_doubt`: its run ended between claim and result (it may have run).
`denied`, `cancelled`: settled without running."""

NOT_RUN_KEY: Final = "not_run"
"""Key of the ledger's answer record for a call settled without running (`sdk/call_results.py`)."""

NOT_CALLS: Final = ("sdk-state:", "people:")
"""Call-id prefixes of what the ledger keeps that is not a call: a paused run's SDK state
(`sdk/paused_runs.py`, `STATE_PREFIX`) and the votes on a call that needs several people
(`ledger/votes.py`, `PEOPLE_PREFIX`); the audit leaves them out."""


def arguments_sha256(arguments: Any) -> str:
    """SHA-256 (hex) of a call's arguments: of their canonical JSON when they parse.

    A JSON text is parsed first, so `'{"b": 1, "a": 2}'` and `{"a": 2, "b": 1}`
    hash alike; text that is not JSON is hashed as it is.
    """
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments) if arguments.strip() else {}
        except ValueError:
            return text_sha256(arguments)
    return text_sha256(canonical_json(arguments))


def text_sha256(text: str) -> str:
    """SHA-256 (hex) of `text` in UTF-8."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class AuditEntry:
    """One gated call, from the question to its outcome."""

    thread_id: str
    """The conversation."""
    call_id: str
    """The tool call id (with `thread_id`, the call's key in the ledger)."""
    tool: str | None
    """The gated tool's name (None for a call recorded before the ledger kept notes)."""
    arguments_sha256: str | None
    """SHA-256 of the arguments as proposed (`arguments_sha256`)."""
    asked_at: datetime | None
    """When the run paused to ask (None when a policy settled it without asking)."""
    decision: str | None
    """`approved`, `denied` or `cancelled`; None while nobody answered."""
    answer: Any
    """The answer payload (None for a cancel or while waiting)."""
    by: str | None
    """Who answered, as the answer said (`view:<id>`, `user`, `python`, `responder:<name>`,
    `expiry`, `policy:<rule>`); None when the answer did not say (a client that sends no
    `metadata.by` on its resume entry)."""
    answered_at: datetime | None
    """When the answer reached the adapter that settled the call."""
    executed_arguments_sha256: str | None
    """SHA-256 of the arguments the call ran with (differs from `arguments_sha256` when the
    answer edited them); None when it did not run."""
    started_at: datetime | None
    """When the run that settled the call claimed it (just before the tool started)."""
    finished_at: datetime | None
    """When its result (or the notice that it did not run) was recorded."""
    outcome: Outcome
    """What came of it (see `Outcome`)."""
    result_sha256: str | None
    """SHA-256 of the tool's result as the model saw it; None unless it ran."""
    error: str | None = None
    """For `failed`: the error the tool raised (its first line)."""


_COLUMNS: Final = [f.name for f in fields(AuditEntry)]
_TIMES: Final = ("asked_at", "answered_at", "started_at", "finished_at")


class AuditTrail(Sequence[AuditEntry]):
    """The audit entries of a ledger, oldest first: a sequence with `frame()` and `write()`."""

    def __init__(
        self,
        entries: Sequence[AuditEntry],
        *,
        since: datetime | None = None,
        until: datetime | None = None,
    ) -> None:
        self.entries: tuple[AuditEntry, ...] = tuple(entries)
        """The entries, ordered by when each call was first seen."""
        self.since = since
        """The window's start (inclusive), or None."""
        self.until = until
        """The window's end (exclusive), or None."""

    def __len__(self) -> int:
        return len(self.entries)

    def __getitem__(self, index: Any) -> Any:
        return self.entries[index]

    def __iter__(self) -> Iterator[AuditEntry]:
        return iter(self.entries)

    def __repr__(self) -> str:
        return f"AuditTrail({len(self.entries)} calls)"

    def records(self) -> list[dict[str, Any]]:
        """The entries as plain JSON dicts (times as ISO 8601 UTC strings)."""
        return [entry_record(e) for e in self.entries]

    def frame(self) -> Any:
        """The entries as a pandas DataFrame, one row per call (pandas must be installed)."""
        try:
            import pandas as pd
        except ImportError:  # pragma: no cover - pandas is in the dev extra
            raise ImportError("AuditTrail.frame() needs pandas: pip install pandas") from None
        frame = pd.DataFrame([asdict(e) for e in self.entries], columns=_COLUMNS)
        for column in _TIMES:
            frame[column] = pd.to_datetime(frame[column], utc=True)
        return frame

    def write(self, path: str | os.PathLike[str]) -> str:
        """Write the trail as hash-chained JSON Lines; returns the hash of its last line.

        Keep that hash apart from the file (a ticket, a log, a signed e-mail):
        `audit verify FILE --head HASH` then also catches a file rewritten whole
        with a freshly computed chain.
        """
        window = {"since": _iso(self.since), "until": _iso(self.until)}
        return write_chain(Path(path), window, self.records())


def entry_record(entry: AuditEntry) -> dict[str, Any]:
    """One entry as a plain JSON dict."""
    record = asdict(entry)
    for column in _TIMES:
        record[column] = _iso(record[column])
    return record


def _iso(moment: datetime | None) -> str | None:
    if moment is None:
        return None
    return utc_text(moment, "microseconds")


def utc_from_epoch(seconds: float | None) -> datetime | None:
    """A UNIX time as an aware UTC datetime (None stays None)."""
    return None if seconds is None else datetime.fromtimestamp(seconds, UTC)


def window_seconds(moment: datetime | None) -> float | None:
    """A window bound as a UNIX time (a naive datetime is read as UTC)."""
    if moment is None:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.timestamp()


# -- putting an entry together from the ledger's two records ----------------------------------


@dataclass(frozen=True)
class Note:
    """The adapter's audit note on a call (the ledger's audit table)."""

    tool: str | None = None
    arguments_sha256: str | None = None
    asked_at: datetime | None = None
    decision: str | None = None
    answer: Any = None
    by: str | None = None
    answered_at: datetime | None = None
    executed_arguments_sha256: str | None = None
    error: str | None = None


@dataclass(frozen=True)
class Claimed:
    """The ledger's claim on a settled call (its once-only record)."""

    done: bool
    output: str | None
    answer: Any
    claimed_at: datetime | None
    finished_at: datetime | None


def merged_entries(
    notes: Mapping[tuple[str, str], Note],
    claims: Mapping[tuple[str, str], Claimed],
    in_doubt: set[tuple[str, str]],
    *,
    since: datetime | None,
    until: datetime | None,
) -> AuditTrail:
    """The trail of every key in either record, within [since, until), oldest first."""
    entries = [
        _entry(key, notes.get(key), claims.get(key), key in in_doubt)
        for key in set(notes) | set(claims)
        if not key[1].startswith(NOT_CALLS)
    ]
    low, high = window_seconds(since), window_seconds(until)
    kept = []
    for entry in entries:
        first = _first_seen(entry)
        seconds = first.timestamp() if first is not None else None
        if low is not None and (seconds is None or seconds < low):
            continue
        if high is not None and (seconds is None or seconds >= high):
            continue
        kept.append(entry)
    kept.sort(key=lambda e: (_first_seen(e) or _EARLIEST, e.thread_id, e.call_id))
    return AuditTrail(kept, since=since, until=until)


_EARLIEST: Final = datetime.min.replace(tzinfo=UTC)


def _first_seen(entry: AuditEntry) -> datetime | None:
    return entry.asked_at or entry.answered_at or entry.started_at or entry.finished_at


def _entry(
    key: tuple[str, str], note: Note | None, claim: Claimed | None, doubt: bool
) -> AuditEntry:
    note = note or Note()
    decision = note.decision
    answer = note.answer
    executed = note.executed_arguments_sha256
    if claim is not None and decision is None:
        # A call settled before its notes were kept: the claim's answer says what it was.
        recorded = claim.answer
        if isinstance(recorded, Mapping) and isinstance(recorded.get(NOT_RUN_KEY), str):
            decision, answer = str(recorded[NOT_RUN_KEY]), recorded.get("payload")
        elif recorded is not None:
            decision, answer = "approved", recorded
    outcome: Outcome
    result = None
    if claim is None:
        outcome = "failed" if note.error else ("answered" if decision else "waiting")
    elif not claim.done:
        outcome = "in_doubt" if doubt else "running"
    elif decision in ("denied", "cancelled"):
        outcome = "denied" if decision == "denied" else "cancelled"
        executed = None
    else:
        outcome = "ran"
        result = text_sha256(claim.output or "")
    ran = outcome in ("running", "ran", "in_doubt")
    return AuditEntry(
        thread_id=key[0],
        call_id=key[1],
        tool=note.tool,
        arguments_sha256=note.arguments_sha256,
        asked_at=note.asked_at,
        decision=decision,
        answer=answer,
        by=note.by,
        answered_at=note.answered_at,
        executed_arguments_sha256=executed if ran or outcome == "failed" else None,
        started_at=claim.claimed_at if claim is not None else None,
        finished_at=claim.finished_at if claim is not None and claim.done else None,
        outcome=outcome,
        result_sha256=result,
        error=note.error if outcome == "failed" else None,
    )
