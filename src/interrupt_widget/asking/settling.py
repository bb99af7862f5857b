"""What a chat or a batch row offers for its approved calls left in doubt.

After a run that ended with `call_in_doubt` (or when a saved conversation comes
back), the open interrupts whose calls the adapter's ledger holds in doubt are
shown as "may have run", each with what is known: who approved it, when. A
person's word on one (`ledger.doubt.settle_doubt`) is then the call's answer:
the earlier approval is given again, and the resume either reads the recorded
result or runs the call once.

Only an agent that holds a ledger that can be settled (SQLite, PostgreSQL) offers
this: an in-process `OpenAIAgentsAdapter`, or a `TemporalAgent` given its workers'
ledger; a remote agent's calls are settled where it is served.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Protocol, runtime_checkable

from ag_ui.core import Interrupt

from interrupt_widget.agui.answers import is_expired
from interrupt_widget.agui.interrupts import verdict
from interrupt_widget.clock import utc_text
from interrupt_widget.decisions import Decision, answerer_words, instant_words
from interrupt_widget.errors import AnswerRefused, NotInDoubt
from interrupt_widget.ledger.doubt import DoubtLedger, doubted, settle_doubt
from interrupt_widget.ledger.once_only import CallLedger

__all__ = [
    "SETTLE_ON_ITS_CARD",
    "Approval",
    "Offer",
    "OffersSettling",
    "Settler",
    "doubt_ledger",
    "doubts_of",
    "doubts_to_offer",
    "offer_to_settle",
    "settled_answer",
    "settler",
]

Settler = Callable[[Interrupt, bool, str | None, str], Any]
"""Records a person's word on a call in doubt (`ran`, `output`, `by`) and returns the
answer payload the call resumes with."""


@dataclass(frozen=True)
class Approval:
    """The approval a call in doubt ran on: given again when a person settles it."""

    payload: Any
    """The answer payload (with `editedArgs` when it was edited)."""
    by: str
    """Who approved it."""
    at: str
    """When (ISO 8601)."""


@dataclass(frozen=True)
class Offer:
    """What the card of a call in doubt shows, and the approval settling it gives again."""

    text: str
    approval: Approval


@runtime_checkable
class HoldsLedger(Protocol):
    """An agent that names the ledger its approved calls are claimed in (None: none here)."""

    @property
    def ledger(self) -> CallLedger | None: ...


def doubt_ledger(adapter: object) -> DoubtLedger | None:
    """The ledger of an agent whose calls in doubt can be settled from here, else None."""
    ledger = adapter.ledger if isinstance(adapter, HoldsLedger) else None
    return ledger if isinstance(ledger, DoubtLedger) else None


def doubts_to_offer(
    ledger: DoubtLedger,
    thread_id: str,
    interrupts: Iterable[Interrupt],
    decisions: Sequence[Decision],
) -> dict[str, Offer]:
    """`{interrupt id: offer}` for the open calls the ledger holds in doubt.

    Blocking (a read of the ledger). The approval comes from this conversation's decisions,
    else from the ledger's audit notes (the process that approved it may be gone). A call
    with no approval on record is not offered: settling gives that approval again (an edit
    included), never a new one.
    """
    by_call = {i.tool_call_id: i for i in interrupts if i.tool_call_id}
    found = doubted(ledger, thread_id, by_call)
    noted = _noted_approvals(ledger, thread_id, found) if found else {}
    offered: dict[str, Offer] = {}
    for call_id in sorted(found):
        interrupt = by_call[call_id]
        approval = _decided(decisions, interrupt.id) or noted.get(call_id)
        if approval is not None:
            offered[interrupt.id] = Offer(doubt_text(approval), approval)
    return offered


def doubts_of(
    agent: object,
    thread_id: str,
    interrupts: Iterable[Interrupt],
    decisions: Sequence[Decision],
) -> dict[str, Offer]:
    """`doubts_to_offer` for `agent`'s ledger; none when no ledger of its can be settled
    here. Blocking (a read of the ledger)."""
    ledger = doubt_ledger(agent)
    return {} if ledger is None else doubts_to_offer(ledger, thread_id, interrupts, decisions)


class OffersSettling(Protocol):
    """A view of open questions that can show calls in doubt (a picker, a batch row)."""

    def offer_settling(self, doubts: Mapping[str, str], settler: Settler) -> None: ...


def offer_to_settle(
    view: OffersSettling, agent: object, thread_id: str, offers: Mapping[str, Offer]
) -> bool:
    """Show `offers` on `view` as "may have run", each settled by a person's word recorded
    in `agent`'s ledger; False, showing nothing, with no offer or no such ledger. The one
    way a chat and a batch row offer their calls in doubt."""
    ledger = doubt_ledger(agent)
    if not offers or ledger is None:
        return False
    shown = {interrupt_id: offer.text for interrupt_id, offer in offers.items()}
    view.offer_settling(shown, settler(ledger, thread_id, dict(offers)))
    return True


SETTLE_ON_ITS_CARD: Final = (
    "say on its card whether it did (It ran: record this result, or It did not run: run it now)"
)
"""How a person settles a call in doubt, in the words of its card's two answers."""


def doubt_text(approval: Approval) -> str:
    """What a card in doubt says: who approved the call and when, and what is not known."""
    return (
        f"Approved {answerer_words(approval.by)} at {instant_words(approval.at)}. Its run "
        "ended before its result was recorded, so it may have run. Check whether its effect "
        "happened, then say so: it will not run again unless you say it did not run."
    )


def settler(ledger: DoubtLedger, thread_id: str, offers: dict[str, Offer]) -> Settler:
    """The picker's `Settler` for one conversation: record the word, give the approval again."""

    def settle(interrupt: Interrupt, ran: bool, output: str | None, _by: str) -> Any:
        offer = offers.get(interrupt.id)
        if offer is None or interrupt.tool_call_id is None:  # offered only with both
            raise ValueError("no approval of this call is on record")
        settle_doubt(ledger, (thread_id, interrupt.tool_call_id), ran=ran, output=output)
        return offer.approval.payload

    return settle


def settled_answer(
    settle: Settler, interrupt: Interrupt, label: str, ran: bool, output: str | None, by: str
) -> tuple[Any, dict[str, Any]]:
    """Check a person's word on a call in doubt, then record it through `settle`.

    What a picker and a batch row both do with `settle(interrupt_id, ran=..., output=...)`.
    Returns the payload the call resumes with and what its answer record adds (`settled`,
    and `output` when it ran). Raises `AnswerRefused` when the word says too little (no
    result for a call that ran) or too much (a result for one that did not), when the
    question expired (no resume would be taken), or when the ledger cannot be reached:
    nothing changed then. Raises `NotInDoubt` when the call is
    not in doubt any more (settled elsewhere): the caller drops the doubt.
    """
    if is_expired(interrupt):  # its resume would be refused after the ledger changed
        raise AnswerRefused(
            f"{label} expired at {interrupt.expires_at}, so no answer resumes it; the call "
            "stays in doubt: settle it on the ledger (record or release)"
        )
    if ran and (not isinstance(output, str) or not output.strip()):
        raise AnswerRefused(f"{label}: say what the call returned")
    if not ran and output is not None:
        raise AnswerRefused(f"{label}: a call that did not run has no output")
    try:
        payload = settle(interrupt, ran, output, by)
    except NotInDoubt as exc:
        raise NotInDoubt(f"{label}: {exc}") from None
    except Exception as exc:  # the ledger unreachable: nothing changed
        raise AnswerRefused(f"{label}: {exc}") from None
    return payload, ({"settled": "ran", "output": output} if ran else {"settled": "not_run"})


def _decided(decisions: Sequence[Decision], interrupt_id: str) -> Approval | None:
    """The latest decision on `interrupt_id` in this conversation, when it approved the call."""
    for decision in reversed(decisions):
        if decision.interrupt_id == interrupt_id:
            approved = verdict(decision.status, decision.payload, decision.by) == "approved"
            return Approval(decision.payload, decision.by, decision.at) if approved else None
    return None


def _noted_approvals(ledger: DoubtLedger, thread_id: str, calls: set[str]) -> dict[str, Approval]:
    """The approvals the ledger's audit notes hold for `calls` of `thread_id`."""
    return {
        entry.call_id: Approval(
            entry.answer,
            entry.by or "an unnamed client",
            utc_text(entry.answered_at) if entry.answered_at else "an unknown time",
        )
        for entry in ledger.audit()
        if entry.thread_id == thread_id and entry.call_id in calls and entry.decision == "approved"
    }
