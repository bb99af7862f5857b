"""Votes kept and counted: the rules about people applied where a run asks and where a
resume answers.

When a run pauses on a call a `require` or `escalate` rule covers, the ledger
keeps when it was asked and who started the run (`ledger/votes.py`), and the
interrupt's metadata says what the call needs and who has given it
(`APPROVALS_KEY`). When a resume answers such a call, each answer goes through
`admit` against the votes the ledger holds: one that may not count refuses
the whole resume before anything is kept (`not_allowed_to_answer`); the
others are kept as votes. The call is decided once its quorum is met (it
runs, once, through the ledger's claim like any approved call), a denial
vetoes it, or its escalation lapses; until then it stays paused, and the run
ends with the interrupt outcome again, carrying the votes so far. The other
calls the resume decided run (or are told no) meanwhile, once, as usual.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any, NoReturn

from ag_ui.core import Interrupt

from interrupt_widget.agui.interrupts import DENIAL_REASON, tool_arguments, tool_name
from interrupt_widget.agui.resume import Resolution
from interrupt_widget.clock import parse_instant, utc_text
from interrupt_widget.errors import AdapterError, ErrorCode
from interrupt_widget.ledger import votes
from interrupt_widget.ledger.once_only import CallLedger
from interrupt_widget.ledger.pauses import PeopleSoFar
from interrupt_widget.policy.quorum import (
    APPROVALS_KEY,
    Admission,
    Escalation,
    Quorum,
    Requirement,
    admit,
    decisive_tally,
    lapsed_reason,
)
from interrupt_widget.policy.rules import Policy


def _quorum_rules(
    policy: Policy | None, interrupt: Interrupt
) -> tuple[Requirement | None, Escalation | None]:
    if policy is None or not policy.people:
        return None, None
    return policy.people_for(tool_name(interrupt), tool_arguments(interrupt))


def with_quorum(
    interrupt: Interrupt, quorum: Quorum, given: Sequence[votes.Vote], now: datetime
) -> Interrupt:
    """`interrupt` with what it needs and who gave it in its metadata (`APPROVALS_KEY`).

    A question an escalation settles when nobody answered (`then`) expires then
    (`expires_at`), so every client counts down to it, and a picker (or a Temporal workflow's
    timer) cancels it on time by itself: a cancel once it has lapsed is settled as `then`
    says, a denial included."""
    metadata = {**(interrupt.metadata or {}), APPROVALS_KEY: quorum.to_metadata(given, now)}
    update: dict[str, Any] = {"metadata": metadata}
    if quorum.then is not None and quorum.lapses_at is not None:
        current = interrupt.expires_at
        if current is None or parse_instant(quorum.lapses_at) < parse_instant(current):
            update["expires_at"] = quorum.lapses_at
    return interrupt.model_copy(update=update)


@dataclass(frozen=True)
class PeopleAsked:
    """What a run that pauses keeps for the rules about people, and the rules it counts by."""

    records: dict[str, votes.AskedRecord]
    """Call id -> when it was asked and who started the run, for every call asked under
    rules about people, plain ones too: a resume that answers only a plain call still
    knows who started the run (not who resumed it)."""
    rules: dict[str, tuple[Requirement | None, Escalation | None]]
    """Call id -> its (requirement, escalation), for the calls a quorum counts."""


def asking(
    policy: Policy | None, interrupts: Sequence[Interrupt], starter: str | None, now: datetime
) -> PeopleAsked:
    """What the rules about people keep for `interrupts`, asked now in a run `starter` began."""
    asked = PeopleAsked({}, {})
    if policy is None or not policy.people:
        return asked
    record = votes.AskedRecord(utc_text(now), starter)
    for interrupt in interrupts:
        call_id = interrupt.tool_call_id
        if not call_id:
            continue
        asked.records[call_id] = record
        requirement, escalation = _quorum_rules(policy, interrupt)
        if requirement is not None or escalation is not None:
            asked.rules[call_id] = (requirement, escalation)
    return asked


def annotated(
    interrupts: Sequence[Interrupt],
    people: PeopleAsked,
    so_far: Mapping[str, PeopleSoFar],
    now: datetime,
) -> list[Interrupt]:
    """`interrupts`, each a quorum counts annotated with what it needs and who gave it."""
    out: list[Interrupt] = []
    for interrupt in interrupts:
        call_id = interrupt.tool_call_id or ""
        rules, kept = people.rules.get(call_id), so_far.get(call_id)
        if rules is None or kept is None:
            out.append(interrupt)
            continue
        quorum = Quorum.of(*rules, kept.asked)
        out.append(with_quorum(interrupt, quorum, kept.given, now))
    return out


@dataclass(frozen=True)
class Counted:
    """A resume's answers after the rules about people: what is decided, what still waits."""

    ready: list[Resolution]
    """Answers to apply now: every call decided (the others stay paused in the SDK's state)."""
    waiting: list[Interrupt]
    """The interrupts of the calls that still wait for people, annotated with their votes."""
    starter: str | None
    """Who started the run that asked (carried to the calls a resumed run asks next)."""


@dataclass
class _Judged:
    resolution: Resolution
    asked: votes.AskedRecord | None
    """When the call was asked and who started its run, as the ledger keeps it."""
    quorum: Quorum | None = None
    given: list[votes.Vote] = dataclasses.field(default_factory=list)
    admission: Admission | None = None


async def count(
    policy: Policy | None,
    ledger: CallLedger,
    thread_id: str,
    resolutions: Sequence[Resolution],
    now: datetime,
) -> Counted:
    """Judge every answer (raising `AdapterError` before anything is kept), keep the votes,
    and say which calls are decided."""
    judged = [await _judge(policy, ledger, thread_id, r, now) for r in resolutions]
    starter = next((j.asked.started_by for j in judged if j.asked and j.asked.started_by), None)
    for j in judged:
        if j.admission is not None and j.admission.vote is not None:
            call_id = j.resolution.gated.call_id
            j.given = await votes.cast(ledger, thread_id, call_id, j.admission.vote)
    outcomes = [_outcome(j, now) for j in judged]
    ready = [o for o in outcomes if isinstance(o, Resolution)]
    return Counted(ready, [o for o in outcomes if isinstance(o, Interrupt)], starter)


async def _judge(
    policy: Policy | None,
    ledger: CallLedger,
    thread_id: str,
    resolution: Resolution,
    now: datetime,
) -> _Judged:
    interrupt = resolution.gated.interrupt
    requirement, escalation = _quorum_rules(policy, interrupt)
    _refuse_an_edit_into_a_rule(policy, resolution, requirement)
    call_id = resolution.gated.call_id
    # Read once: the quorum's clock starts then, and the run's starter is carried on.
    record = await votes.asked(ledger, thread_id, call_id)
    if requirement is None and escalation is None:
        return _Judged(resolution, record)
    quorum = Quorum.of(requirement, escalation, record)
    given = await votes.votes(ledger, thread_id, call_id)
    admission = judge(resolution, quorum, given, now)
    return _Judged(resolution, record, quorum, given, admission)


def judge(
    resolution: Resolution,
    quorum: Quorum,
    given: Sequence[votes.Vote],
    now: datetime,
) -> Admission | None:
    """What the answer does to a call needing `quorum` with the votes `given` (counted as
    `resolution.answerer`'s), or `AdapterError` (`not_allowed_to_answer`) when it may not
    count; None for a cancel, which anyone may give (abandoning a call never runs it); a
    cancel once the call lapsed (the expiry's, on time) settles it as the escalation's `then`
    says."""
    if resolution.decision == "cancelled":
        lapsed = quorum.lapsed(now) and quorum.then == "deny"
        return Admission("lapsed", lapsed_reason(quorum)) if lapsed else None
    answerer = resolution.answerer
    if answerer is None:
        _refuse(
            resolution,
            f"a call that needs {quorum.needed} approvals takes answers that "
            "say who gives them (metadata.identity)",
        )
    if resolution.edited_arguments is not None and quorum.needed > 1:
        _refuse(
            resolution,
            f"a call that needs {quorum.needed} approvals cannot be edited: "
            "every approver approves the same call",
        )
    payload = resolution.payload if isinstance(resolution.payload, Mapping) else {}
    reason = payload.get(DENIAL_REASON)
    approving = resolution.decision == "approved"
    admission = admit(
        quorum, given, answerer, approving, now, reason=reason if isinstance(reason, str) else None
    )
    if admission.outcome == "refused":
        _refuse(resolution, admission.reason)
    return admission


def refuse_as_shown(
    resolutions: Sequence[Resolution],
    shown: Mapping[str, Any],
    now: datetime,
) -> None:
    """Judge each answer against the quorum and votes its interrupt shows (`shown`: interrupt
    metadata by id, `APPROVALS_KEY`), raising `AdapterError` as the run that counts would, and
    also for a second answer of the same person, which the run would take and change nothing
    with. For a holder of the interrupts as the run asked them (a workflow): the votes it
    shows are all there are, since every answer goes through it."""
    for resolution in resolutions:
        interrupt_id = resolution.gated.interrupt.id
        metadata = shown.get(interrupt_id)
        found = Quorum.from_metadata(
            metadata.get(APPROVALS_KEY) if isinstance(metadata, Mapping) else None
        )
        if found is None:
            continue
        quorum, given = found
        admission = judge(resolution, quorum, given, now)
        if admission is not None and admission.outcome == "duplicate":
            _refuse(resolution, admission.reason)


def _refuse_an_edit_into_a_rule(
    policy: Policy | None, resolution: Resolution, requirement: Any
) -> None:
    """An edit is judged by the rules its arguments fall under, not only the proposal's: an
    edit that brings a call under a rule needing more people is refused, to be asked again."""
    edited = resolution.edited_arguments
    if edited is None or policy is None or not policy.people:
        return
    stricter, _ = policy.people_for(resolution.gated.call.function.name, edited)
    if stricter is not None and stricter != requirement and stricter.approvals > 1:
        _refuse(
            resolution,
            f"the edit brings the call under {stricter.name!r}, which needs "
            f"{stricter.approvals} approvals; ask for the edited call instead",
        )


def _refuse(resolution: Resolution, reason: str) -> NoReturn:
    gated = resolution.gated
    raise AdapterError(
        ErrorCode.NOT_ALLOWED_TO_ANSWER,
        f"The answer to interrupt {gated.interrupt.id!r} ({gated.call.function.name}) is "
        f"refused: {reason}; nothing was recorded.",
        interrupt_id=gated.interrupt.id,
    )


def _outcome(judged: _Judged, now: datetime) -> Resolution | Interrupt:
    """The answer to apply, or the interrupt (annotated) when the call still waits."""
    resolution, quorum, admission = judged.resolution, judged.quorum, judged.admission
    if quorum is None or admission is None:
        return resolution
    counted = decisive_tally(quorum, judged.given)
    gated = resolution.gated
    if len(counted.approvals) >= quorum.needed:
        names = ", ".join(v.name for v in counted.approvals)
        payload = resolution.payload if resolution.decision == "approved" else {"approved": True}
        return dataclasses.replace(
            resolution,
            decision="approved",
            payload=payload,
            by=names,
            approvers=tuple(v.name for v in counted.approvals),
        )
    if len(counted.denials) >= quorum.vetoes:
        names = ", ".join(v.name for v in counted.denials)
        reasons = [v.reason for v in counted.denials if v.reason]
        denial: dict[str, Any] = {"approved": False}
        if reasons:
            denial[DENIAL_REASON] = "; ".join(reasons)
        deniers = tuple(v.name for v in counted.denials)
        return Resolution(gated, "denied", denial, by=names, approvers=deniers)
    if admission.outcome == "lapsed":
        if quorum.then == "cancel":
            return Resolution(gated, "cancelled", None, by="escalation")
        return Resolution(
            gated, "denied", {"approved": False, DENIAL_REASON: admission.reason}, by="escalation"
        )
    return with_quorum(gated.interrupt, quorum, judged.given, now)
