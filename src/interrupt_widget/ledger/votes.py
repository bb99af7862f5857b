"""The votes on a call that needs several people, kept durably in the call ledger.

A call under `require(tool, approvals=2)` collects one vote per answer until
its quorum is met (or a denial vetoes it). The votes live in the same ledger
as the call's once-only record, so they survive a restart and every server
sharing the ledger (one SQLite file, or PostgreSQL across hosts) sees them.

The ledger keeps the first value written under a key for good; that is all
the votes need. Under the call's thread id they are written as

- `people:<call id>:asked`: who started the run that asked, and when it was asked,
  written once when the run pauses on the call;
- `people:<call id>:vote-<n>`: the n-th vote (n = 1, 2, ...). A vote takes the first
  free slot; two servers writing at once both try the same slot, one wins and the
  other moves to the next, so no vote is lost and none is counted twice. The
  same person voting twice fills two slots and counts once (`policy/quorum.py`).
"""

from __future__ import annotations

import json
import secrets
from dataclasses import dataclass
from typing import Any, Final

from interrupt_widget.errors import CallInDoubt
from interrupt_widget.ledger.once_only import CallLedger, Key

PEOPLE_PREFIX: Final = "people:"
"""How the call id of every record kept here begins (the audit leaves them out)."""

MAX_VOTES: Final = 1000
"""Slots read or tried at most per call: a bound, never reached by people."""


@dataclass(frozen=True)
class Vote:
    """One person's answer to a call that needs several."""

    name: str
    """Who answered."""
    roles: tuple[str, ...]
    """The roles they answered with."""
    approved: bool
    """An approval (True) or a denial."""
    at: str
    """When (ISO 8601, UTC)."""
    reason: str | None = None
    """A denial's reason, when given."""

    def to_json(self) -> dict[str, Any]:
        """The vote as JSON (`name`, `roles`, `approved`, `at`, and `reason` if any)."""
        out: dict[str, Any] = {
            "name": self.name,
            "roles": list(self.roles),
            "approved": self.approved,
            "at": self.at,
        }
        if self.reason is not None:
            out["reason"] = self.reason
        return out

    @classmethod
    def from_json(cls, value: Any) -> Vote | None:
        """The vote `value` holds, or None when it is not one."""
        if not isinstance(value, dict):
            return None
        name, roles, approved, at = (value.get(k) for k in ("name", "roles", "approved", "at"))
        if not (isinstance(name, str) and isinstance(approved, bool) and isinstance(at, str)):
            return None
        reason = value.get("reason")
        held = tuple(r for r in roles if isinstance(r, str)) if isinstance(roles, list) else ()
        return cls(name, held, approved, at, reason if isinstance(reason, str) else None)


@dataclass(frozen=True)
class AskedRecord:
    """When a call that needs several people was asked, and who started its run."""

    at: str
    """When it was first asked (ISO 8601, UTC)."""
    started_by: str | None
    """Who started the run that asked (None when the run said nobody)."""


def asked_key(thread_id: str, call_id: str) -> Key:
    return (thread_id, f"{PEOPLE_PREFIX}{call_id}:asked")


def vote_key(thread_id: str, call_id: str, slot: int) -> Key:
    return (thread_id, f"{PEOPLE_PREFIX}{call_id}:vote-{slot}")


_CUT_OFF: Final = object()
"""A slot whose writing was cut off (its process died): it holds no vote."""


async def _read(ledger: CallLedger, key: Key) -> Any:
    try:
        found = await ledger.recorded(key)
    except CallInDoubt:
        return _CUT_OFF
    return None if found is None else json.loads(found.output)


async def _write(ledger: CallLedger, key: Key, value: Any) -> Any:
    mine = json.dumps(value)

    async def write() -> str:
        return mine

    try:
        return json.loads(await ledger.run_once(key, write))
    except CallInDoubt:
        return _CUT_OFF


async def note_asked(
    ledger: CallLedger, thread_id: str, call_id: str, record: AskedRecord
) -> AskedRecord:
    """Keep `record` unless the call was asked before: the record that stands."""
    kept = await _write(
        ledger, asked_key(thread_id, call_id), {"at": record.at, "started_by": record.started_by}
    )
    return _asked(kept) or record


async def asked(ledger: CallLedger, thread_id: str, call_id: str) -> AskedRecord | None:
    """When the call was asked and who started its run; None when no record was kept."""
    return _asked(await _read(ledger, asked_key(thread_id, call_id)))


def _asked(value: Any) -> AskedRecord | None:
    if not isinstance(value, dict) or not isinstance(value.get("at"), str):
        return None
    by = value.get("started_by")
    return AskedRecord(value["at"], by if isinstance(by, str) else None)


async def votes(ledger: CallLedger, thread_id: str, call_id: str) -> list[Vote]:
    """Every vote on the call, in the order they were kept."""
    found: list[Vote] = []
    for slot in range(1, MAX_VOTES + 1):
        value = await _read(ledger, vote_key(thread_id, call_id, slot))
        if value is None:
            break
        if value is _CUT_OFF:
            continue
        vote = Vote.from_json(value.get("vote") if isinstance(value, dict) else None)
        if vote is not None:
            found.append(vote)
    return found


async def cast(ledger: CallLedger, thread_id: str, call_id: str, vote: Vote) -> list[Vote]:
    """Keep `vote` in the first free slot; every vote on the call afterwards."""
    # A nonce tells this vote from the same person's identical one written at once.
    mine = {"vote": vote.to_json(), "nonce": secrets.token_hex(8)}
    for slot in range(1, MAX_VOTES + 1):
        kept = await _write(ledger, vote_key(thread_id, call_id, slot), mine)
        if kept == mine:
            break
    return await votes(ledger, thread_id, call_id)
