"""One conversation loop: run, ask, resume until the run ends, and the decisions it made.

`AgentChat` and `AgentBatch` differ in how they run a segment (a status line in a cell, a
place among a batch's concurrent rows), how they ask (a picker in the cell, a row in the
inbox) and what they keep between segments (a batch saves each question for a later run);
the order of the steps and the bookkeeping of the decisions each run made are the same for
every driver, and live here once.

A call left in doubt is where the two part. A batch row asks again inside the loop
(`settles`, `doubts`), so the row's run goes on once a person settles the call. A chat
passes neither: its awaited run ends with the error (`ChatRunError`, code
`call_in_doubt`), as the code awaiting it is told; after the loop the chat asks again for
whatever a failed resume left open (those in doubt offered to settle, nothing expiring by
itself), and a person's word starts its next run. Both offer a call in doubt through
`settling.offer_to_settle`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

from ag_ui.core import Interrupt, ResumeEntry, RunAgentInput

from interrupt_widget.asking.settling import Offer
from interrupt_widget.asking.thread import ConversationThread, RunOutcome
from interrupt_widget.decisions import Decision, result_markers, settled_decisions, with_outcomes

Step = RunAgentInput | list[ResumeEntry]
"""What a driver runs: a new run's input, or the answers that resume the paused one."""

Asked = tuple[Interrupt, ...]


async def _no_doubts(_asked: Asked) -> dict[str, Offer]:
    return {}


async def converse(
    first: RunOutcome | Step,
    *,
    run: Callable[[Step], Awaitable[RunOutcome]],
    ask: Callable[[Asked, Mapping[str, Offer]], Awaitable[list[ResumeEntry]]],
    open_interrupts: Callable[[], Sequence[Interrupt]],
    keep: Callable[[RunOutcome], Awaitable[None]] | None = None,
    settles: Callable[[RunOutcome], bool] = lambda _outcome: False,
    doubts: Callable[[Asked], Awaitable[dict[str, Offer]]] = _no_doubts,
    asked_again: bool = False,
) -> RunOutcome:
    """Drive a conversation from `first` until a run ends without a question; its outcome.

    `first` is a step to run, or the outcome a run already ended with (a question saved by
    an earlier run, asked again: `asked_again`). Each question a run ends with is kept
    (`keep`, unless it was asked again) and asked (`ask`), and the answers resume the run
    (`run`). A run that ended in an error the driver `settles` (a call left in doubt) asks
    its `open_interrupts` again (read only then), with the calls in doubt offered to settle
    (`doubts`); with no such call, the error stands.
    """
    outcome = first if isinstance(first, RunOutcome) else await run(first)
    again = asked_again
    while True:
        if outcome.kind == "interrupt":
            if not again and keep is not None:
                await keep(outcome)
            asked = outcome.interrupts
        elif settles(outcome):
            asked, again = tuple(open_interrupts()), True
        else:
            return outcome
        offers = await doubts(asked) if again else {}
        if outcome.kind != "interrupt" and not offers:
            return outcome  # in doubt, with nothing a person can settle here: it failed
        again = False
        outcome = await run(await ask(asked, offers))


def noted(decisions: Sequence[Decision], thread: ConversationThread) -> list[Decision]:
    """`decisions` after the thread's last run: the calls a policy settled inside the run
    added (decisions too, recorded as they ran), and each marked with what came of it (ran,
    not run, or replayed a run)."""
    known = {d.interrupt_id for d in decisions}
    found = [d for d in settled_decisions(thread.messages) if d.interrupt_id not in known]
    return with_outcomes([*decisions, *found], last_markers(thread))


def last_markers(thread: ConversationThread) -> dict[str, Mapping[str, Any]]:
    """The result markers of the thread's last run, by tool call id (none before a run)."""
    return result_markers(thread.runs[-1].events) if thread.runs else {}
