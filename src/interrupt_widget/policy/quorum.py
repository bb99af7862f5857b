"""Rules about people, the quorum a call needs: how many must approve it, who may, and what
happens when nobody does.

    from datetime import timedelta
    from interrupt_widget import Policy, escalate, require

    policy = Policy(
        require("send_money", approvals=2, roles=["finance"], when=lambda a: a["amount"] > 1000),
        escalate("send_money", after=timedelta(hours=1), to="cfo", then="deny"),
    )

`require` asks for N distinct approvers (of the given roles, else anyone) for
the calls `when` covers; the identity that started the run may not approve
its own calls unless `self_approval=True`; one denial vetoes unless `vetoes`
asks for more. `escalate` lets `to` (a role or a name) answer once `after`
has passed since the call was asked, and settles the call with `then`
("deny" or "cancel") if still nobody answered `then_after` later.

`admit` is the one place that decides what an answer does to such a call:
counted (still waiting), the quorum met, vetoed, a duplicate of the same
person's earlier answer, lapsed, or refused with the reason. Every entry (a
resume in the adapter, the picker's card, the inbox, an HTTP resume) goes
through it. The state a card shows travels in the interrupt's metadata
(`APPROVALS_KEY`, `Quorum.to_metadata`).
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, Final, Literal

from interrupt_widget.clock import parse_instant, utc_text
from interrupt_widget.identity import Identity
from interrupt_widget.ledger.votes import AskedRecord, Vote
from interrupt_widget.policy.ruling import Condition, tool_name_of

if TYPE_CHECKING:
    from agents import FunctionTool

logger = logging.getLogger(__name__)

__all__ = [
    "APPROVALS_KEY",
    "Admission",
    "Escalation",
    "Quorum",
    "Requirement",
    "admit",
    "escalate",
    "require",
]

APPROVALS_KEY: Final = "approvals"
"""The interrupt `metadata` key holding what a call needs and who gave it (`to_metadata`)."""

Then = Literal["deny", "cancel"]
Outcome = Literal["refused", "duplicate", "waiting", "approved", "denied", "lapsed"]


@dataclass(frozen=True)
class _PeopleRule:
    """What every rule about people has: the tool it is about, and when it applies."""

    tool: str
    when: Condition | None
    name: str

    def matches(self, tool: str, arguments: Any) -> bool:
        return _matches(tool, arguments, self.tool, self.when, self.name)


@dataclass(frozen=True)
class Requirement(_PeopleRule):
    """`require(...)`: calls to `tool` for which `when` holds need `approvals` people."""

    approvals: int
    """How many distinct people must approve."""
    roles: tuple[str, ...]
    """Who may answer: a person holding one of these roles, or so named; empty: anyone."""
    self_approval: bool = False
    """Whether the identity that started the run may approve its calls."""
    vetoes: int = 1
    """How many denials deny the call (1: one denial vetoes)."""


@dataclass(frozen=True)
class Escalation(_PeopleRule):
    """`escalate(...)`: a question on `tool` nobody answered moves to `to` after `after`."""

    after: timedelta
    """How long after the call was asked the question escalates."""
    to: tuple[str, ...]
    """Roles or names who may answer once it escalated."""
    then: Then | None
    """How the call is settled when still nobody answered `then_after` later (None: never)."""
    then_after: timedelta


def _matches(tool: str, arguments: Any, own: str, when: Condition | None, name: str) -> bool:
    if tool != own:
        return False
    if when is None:
        return True
    if not isinstance(arguments, dict):
        return True  # a rule about people errs towards asking more of them
    try:
        return bool(when(dict(arguments)))
    except Exception:
        logger.warning("people rule %r raised; it applies, so more people are asked", name)
        return True


def _names(value: str | Iterable[str] | None, what: str) -> tuple[str, ...]:
    if value is None:
        return ()
    items = (value,) if isinstance(value, str) else tuple(value)
    if not all(isinstance(i, str) and i.strip() for i in items):
        raise ValueError(f"{what} are non-empty names, got {value!r}")
    return tuple(i.strip() for i in items)


def require(
    tool: str | FunctionTool,
    approvals: int = 2,
    roles: str | Iterable[str] | None = None,
    when: Condition | None = None,
    *,
    self_approval: bool = False,
    vetoes: int = 1,
    name: str | None = None,
) -> Requirement:
    """Calls to `tool` (where `when(arguments)` holds) run once `approvals` distinct people
    approve, each holding one of `roles` (or so named; None: anyone). The run's starter
    may not approve unless `self_approval`; `vetoes` denials deny the call."""
    tool_name = tool_name_of(tool)
    if not isinstance(approvals, int) or isinstance(approvals, bool) or approvals < 1:
        raise ValueError(f"approvals must be a whole number >= 1, got {approvals!r}")
    if not isinstance(vetoes, int) or isinstance(vetoes, bool) or vetoes < 1:
        raise ValueError(f"vetoes must be a whole number >= 1, got {vetoes!r}")
    if when is not None and not callable(when):
        raise TypeError(f"when must be a function of the arguments, got {type(when).__name__}")
    allowed = _names(roles, "roles")
    label = name or f"{approvals} approvals for {tool_name}"
    return Requirement(tool_name, when, label, approvals, allowed, self_approval, vetoes)


def escalate(
    tool: str | FunctionTool,
    after: timedelta | float,
    to: str | Iterable[str],
    then: Then | None = None,
    *,
    then_after: timedelta | float | None = None,
    when: Condition | None = None,
    name: str | None = None,
) -> Escalation:
    """A question on `tool` unanswered `after` (a timedelta or seconds) since it was asked may
    also be answered by `to` (roles or names); `then_after` later still (default `after`),
    the call is settled with `then` ("deny" or "cancel"; None: it keeps waiting)."""
    tool_name = tool_name_of(tool)
    wait = after if isinstance(after, timedelta) else timedelta(seconds=after)
    last = wait if then_after is None else then_after
    last = last if isinstance(last, timedelta) else timedelta(seconds=last)
    if wait <= timedelta(0) or last <= timedelta(0):
        raise ValueError("after and then_after must be positive")
    if then not in (None, "deny", "cancel"):
        raise ValueError(f"then is 'deny', 'cancel' or None, got {then!r}")
    targets = _names(to, "escalation targets")
    if not targets:
        raise ValueError("escalate needs someone to escalate to")
    label = name or f"escalate {tool_name} to {', '.join(targets)}"
    return Escalation(tool_name, when, label, wait, targets, then, last)


@dataclass(frozen=True)
class Quorum:
    """What one asked call needs from people, at the time it was asked."""

    needed: int = 1
    roles: tuple[str, ...] = ()
    vetoes: int = 1
    self_approval: bool = False
    started_by: str | None = None
    asked_at: str | None = None
    escalated_to: tuple[str, ...] = ()
    escalates_at: str | None = None
    lapses_at: str | None = None
    then: Then | None = None
    rule: str = ""

    @classmethod
    def of(
        cls,
        requirement: Requirement | None,
        escalation: Escalation | None,
        asked: AskedRecord | None,
    ) -> Quorum:
        """The quorum the rules give a call asked as `asked` says."""
        quorum = cls()
        if requirement is not None:
            quorum = replace(
                quorum,
                needed=requirement.approvals,
                roles=requirement.roles,
                vetoes=requirement.vetoes,
                self_approval=requirement.self_approval,
                rule=requirement.name,
            )
        if asked is not None:
            quorum = replace(quorum, started_by=asked.started_by, asked_at=asked.at)
        if escalation is not None and asked is not None:
            start = parse_instant(asked.at)
            quorum = replace(
                quorum,
                escalated_to=escalation.to,
                escalates_at=_instant(start + escalation.after),
                lapses_at=_instant(start + escalation.after + escalation.then_after)
                if escalation.then is not None
                else None,
                then=escalation.then,
                rule=quorum.rule or escalation.name,
            )
        return quorum

    def escalated(self, now: datetime) -> bool:
        """Whether the question has moved to `escalated_to` by `now`."""
        return self.escalates_at is not None and now >= parse_instant(self.escalates_at)

    def lapsed(self, now: datetime) -> bool:
        """Whether the call is settled with `then` by `now`."""
        return self.lapses_at is not None and now >= parse_instant(self.lapses_at)

    def may_answer(self, who: Identity, now: datetime) -> bool:
        """Whether `who` holds a role (or the name) the call asks for, at `now`."""
        allowed = self.roles + (self.escalated_to if self.escalated(now) else ())
        if not self.roles:
            return True
        return who.name in allowed or any(role in allowed for role in who.roles)

    def to_metadata(self, votes: Sequence[Vote], now: datetime) -> dict[str, Any]:
        """What a card shows: needed, given, denied, who may answer, escalation.

        `may_answer` lists the roles and names that may still answer; an empty list means
        anyone may (the call's rule names no role), as the card says."""
        counted = tally(votes)
        escalated = self.escalated(now)
        return {
            "needed": self.needed,
            "vetoes": self.vetoes,
            "given": [v.to_json() for v in counted.approvals],
            "denied": [v.to_json() for v in counted.denials],
            "roles": list(self.roles),
            "may_answer": list(self.roles + (self.escalated_to if escalated else ())),
            "started_by": self.started_by,
            "self_approval": self.self_approval,
            "asked_at": self.asked_at,
            "escalated": escalated,
            "escalated_to": list(self.escalated_to),
            "escalates_at": self.escalates_at,
            "lapses_at": self.lapses_at,
            "then": self.then,
            "rule": self.rule,
        }

    @classmethod
    def from_metadata(cls, value: Any) -> tuple[Quorum, list[Vote]] | None:
        """The quorum and votes an interrupt's `metadata[APPROVALS_KEY]` shows; None if none."""
        if not isinstance(value, dict) or not isinstance(value.get("needed"), int):
            return None
        votes = [Vote.from_json(v) for v in [*value.get("given", []), *value.get("denied", [])]]

        def strings(key: str) -> tuple[str, ...]:
            found = value.get(key)
            return tuple(s for s in found if isinstance(s, str)) if isinstance(found, list) else ()

        def text(key: str) -> str | None:
            found = value.get(key)
            return found if isinstance(found, str) else None

        then = value.get("then")
        quorum = cls(
            needed=value["needed"],
            roles=strings("roles"),
            vetoes=vetoes if isinstance(vetoes := value.get("vetoes"), int) else 1,
            self_approval=value.get("self_approval") is True,
            started_by=text("started_by"),
            asked_at=text("asked_at"),
            escalated_to=strings("escalated_to"),
            escalates_at=text("escalates_at"),
            lapses_at=text("lapses_at"),
            then=then if then in ("deny", "cancel") else None,
            rule=text("rule") or "",
        )
        return quorum, [v for v in votes if v is not None]


@dataclass(frozen=True)
class Tally:
    """The votes counted: one per person, the first each gave."""

    approvals: tuple[Vote, ...]
    denials: tuple[Vote, ...]


def tally(votes: Iterable[Vote]) -> Tally:
    """Each person's first vote, split into approvals and denials."""
    seen: set[str] = set()
    approvals: list[Vote] = []
    denials: list[Vote] = []
    for vote in votes:
        if vote.name in seen:
            continue
        seen.add(vote.name)
        (approvals if vote.approved else denials).append(vote)
    return Tally(tuple(approvals), tuple(denials))


def decisive_tally(quorum: Quorum, votes: Sequence[Vote]) -> Tally:
    """The votes counted in the order they were kept, up to the one that decided the call:
    whichever of the quorum and the veto is reached first stands, and no later vote (two
    answers that raced) outvotes it."""
    kept: list[Vote] = []
    for vote in votes:
        kept.append(vote)
        counted = tally(kept)
        if len(counted.approvals) >= quorum.needed or len(counted.denials) >= quorum.vetoes:
            return counted
    return tally(kept)


@dataclass(frozen=True)
class Admission:
    """What one answer does to a call that needs people (`admit`)."""

    outcome: Outcome
    """`refused` (nothing recorded), `duplicate` (the person answered before: counts once),
    `waiting` (counted; the quorum is not met), `approved` (the quorum is met), `denied`
    (vetoed), `lapsed` (nobody answered in time: settled as the escalation's `then`)."""
    reason: str
    """The outcome in words a person reads on the card or in a RUN_ERROR."""
    vote: Vote | None = None
    """The vote to keep (None: nothing to keep)."""


def admit(
    quorum: Quorum,
    votes: Sequence[Vote],
    who: Identity,
    approved: bool,
    now: datetime,
    *,
    reason: str | None = None,
) -> Admission:
    """What `who`'s answer (`approved` or not) does to a call needing `quorum`, given the
    `votes` kept so far, at `now`. Pure: the caller keeps `Admission.vote` if any."""
    counted = decisive_tally(quorum, votes)
    if len(counted.approvals) >= quorum.needed:
        return Admission("approved", _approvers(counted.approvals, quorum.needed))
    if len(counted.denials) >= quorum.vetoes:
        return Admission("denied", _deniers(counted.denials))
    if quorum.lapsed(now):
        return Admission("lapsed", lapsed_reason(quorum))
    if not quorum.may_answer(who, now):
        return Admission("refused", _not_allowed(who, quorum, now))
    if approved and who.name == quorum.started_by and not quorum.self_approval:
        return Admission(
            "refused",
            f"{who.name} started this run and may not approve its own calls; "
            "someone else must approve",
        )
    earlier = next((v for v in votes if v.name == who.name), None)
    if earlier is not None:
        said = "approved" if earlier.approved else "denied"
        return Admission(
            "duplicate",
            f"{who.name} already {said} at {earlier.at}; a person's answers count once. "
            + _still_needed(counted, quorum),
        )
    vote = Vote(who.name, who.roles, approved, _instant(now), reason)
    counted = decisive_tally(quorum, [*votes, vote])
    if len(counted.approvals) >= quorum.needed:
        return Admission("approved", _approvers(counted.approvals, quorum.needed), vote)
    if len(counted.denials) >= quorum.vetoes:
        return Admission("denied", _deniers(counted.denials), vote)
    return Admission("waiting", _still_needed(counted, quorum), vote)


def not_allowed_reason(metadata: Any, who: Identity, approved: bool, now: datetime) -> str | None:
    """Why `who` may not give this answer to an interrupt whose `metadata` shows what it needs
    (`APPROVALS_KEY`); None when the answer may go on. A widget's early word: the run that
    counts the votes (`sdk/vote_counting.py`) decides with the ledger's votes."""
    shown = metadata.get(APPROVALS_KEY) if isinstance(metadata, dict) else None
    found = Quorum.from_metadata(shown)
    if found is None:
        return None
    quorum, votes = found
    admission = admit(quorum, votes, who, approved, now)
    return admission.reason if admission.outcome in ("refused", "duplicate") else None


def not_allowed_to_settle(metadata: Any, who: Identity, now: datetime) -> str | None:
    """Why `who` may not settle a call in doubt (say whether it ran) whose interrupt's
    `metadata` shows its rules; None when they may. Only someone the rules let answer the
    call may: the word is on what happened, not a vote, so no count and no rule about the
    run's starter applies (the call was approved before it could be in doubt)."""
    shown = metadata.get(APPROVALS_KEY) if isinstance(metadata, dict) else None
    found = Quorum.from_metadata(shown)
    if found is None or found[0].may_answer(who, now):
        return None
    return _not_allowed(who, found[0], now)


def escalates_to(metadata: Any, who: Identity) -> bool:
    """Whether the question an interrupt's `metadata` shows escalates (or has) to `who`,
    by name or by one of their roles."""
    found = Quorum.from_metadata(
        metadata.get(APPROVALS_KEY) if isinstance(metadata, dict) else None
    )
    if found is None:
        return False
    targets = found[0].escalated_to
    return who.name in targets or any(role in targets for role in who.roles)


def _instant(at: datetime) -> str:
    return utc_text(at, "seconds")


def _approvers(approvals: Sequence[Vote], needed: int) -> str:
    names = ", ".join(v.name for v in approvals)
    return f"{len(approvals)} of {needed} approvals: {names} approved"


def _deniers(denials: Sequence[Vote]) -> str:
    names = ", ".join(v.name for v in denials)
    return f"denied by {names}"


def _still_needed(counted: Tally, quorum: Quorum) -> str:
    given = len(counted.approvals)
    names = ", ".join(v.name for v in counted.approvals)
    said = f"{given} of {quorum.needed} approvals" + (f" ({names})" if names else "")
    return f"{said}; still waiting for {quorum.needed - given} more"


def lapsed_reason(quorum: Quorum) -> str:
    """Why a call nobody answered in time is settled as its escalation's `then`."""
    then = "denied" if quorum.then == "deny" else "cancelled"
    return f"nobody answered by {quorum.lapses_at}; the call is {then}"


def _not_allowed(who: Identity, quorum: Quorum, now: datetime) -> str:
    allowed = list(quorum.roles + (quorum.escalated_to if quorum.escalated(now) else ()))
    held = f" (roles: {', '.join(who.roles)})" if who.roles else " (no roles)"
    later = ""
    if quorum.escalated_to and not quorum.escalated(now):
        later = f"; it escalates to {', '.join(quorum.escalated_to)} at {quorum.escalates_at}"
    return f"{who.name}{held} may not answer this call: it needs {' or '.join(allowed)}{later}"
