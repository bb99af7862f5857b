"""Approved calls claimed in the ledger while the Agents SDK runs them.

The SDK executes an approved call inside its resumed run; the kit's
exactly-once goes around that path, never beside it. Before the resumed run
starts, each approved call is claimed through the ledger's own `run_once`,
whose `invoke` waits until the call's output comes out of the SDK's stream,
then records it. A call another run already claimed is not approved to the SDK
again: the caller tells the SDK the recorded output instead. A claim whose run
failed before an output came is dropped, so a later resume may try again, as
when a tool raises; once the SDK has produced an output it is recorded. A
claim whose run is cut off (cancelled: a worker shutting down, a task
cancelled) is given up only if the SDK had not started the run that executes
the call; once it had, the call may have run, so the claim is kept, in doubt
(`cut_off`), for a person to settle, and never run again.
"""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass
from typing import Any, TypeGuard

from interrupt_widget.ledger.noting_ledger import Answered, note_answered
from interrupt_widget.ledger.once_only import (
    CallLedger,
    ClaimNote,
    Key,
    MayHaveRun,
    OnceOnlyLedger,
    Recorded,
    noting_claim,
    records_not_run,
)


class NotRun(RuntimeError):
    """The run ended before the SDK produced the claimed call's output."""


@dataclass
class Claim:
    """A call this run holds in the ledger until the SDK gives its output."""

    key: Key
    """(thread id, tool call id)."""
    _output: asyncio.Future[str]
    _settled: asyncio.Future[str]
    started: bool = False
    """Whether the SDK's run that executes the call has begun: from then on it may have run."""

    def ran(self, output: str) -> None:
        """Record `output` as the call's result (once; later calls are ignored)."""
        if not self._output.done():
            self._output.set_result(output)

    def drop(self, why: str) -> None:
        """Give the claim up: the call did not run, a later resume may run it."""
        if not self._output.done():
            self._output.set_exception(NotRun(why))

    def cut_off(self, why: str) -> None:
        """The run ended without the call's output: give the claim up if the call cannot have
        started yet, else keep it held, in doubt (never run again until a person settles it)."""
        if not self.started:
            self.drop(why)
        elif not self._output.done():
            self._output.set_exception(MayHaveRun(why))

    async def recorded(self) -> None:
        """Wait until the ledger has stored (or dropped) the claim.

        Raises what the ledger raised storing it (`LedgerUnavailable`, the call then left
        in doubt): a result the ledger could not keep is never shown as if it were.
        """
        with contextlib.suppress(NotRun):
            await asyncio.shield(self._settled)


async def claim(
    ledger: CallLedger,
    key: Key,
    *,
    answer: Any,
    note: Answered | None = None,
    output: str | None = None,
) -> Claim | Recorded:
    """Hold `key` for this run (`Claim`), or the record of the run that holds or held it.

    `note`, the answer's audit note, is written with a claim that is this run's: in the
    claim's own trip to a ledger that can (`noting_claim`; in SQLite, its commit), else
    after it. `output`, for a call that does not run (a denial, a cancel): its record,
    known at once, written in one trip where the ledger can (`RecordsNotRun`: no claim
    goes first, so a crash cannot leave it in doubt); the `Claim` returned is settled.
    """
    output_of: asyncio.Future[str] = asyncio.get_running_loop().create_future()
    noting = None if note is None else ClaimNote(key, note)
    if output is not None:
        output_of.set_result(output)
    with contextlib.nullcontext() if noting is None else noting_claim(noting):
        if output is not None and records_not_run(ledger):
            first = await ledger.record_not_run(key, output, answer=answer)
            held: Claim | Recorded = Claim(key, output_of, output_of) if first is None else first
        else:
            held = await _take(ledger, key, output_of, answer)
    if isinstance(held, Claim) and noting is not None and not noting.written:
        try:  # a ledger that could not note it with the claim: after it
            await note_answered(ledger, key, noting.note)
        except BaseException:
            held.drop("the answer could not be noted")
            raise
    return held


async def _take(
    ledger: CallLedger, key: Key, output: asyncio.Future[str], answer: Any
) -> Claim | Recorded:
    """A claim on `key` through `run_once`, held until `output` is set."""
    # True once `invoke` runs (the claim is this run's), False if `run_once` ended without it.
    claimed: asyncio.Future[bool] = asyncio.get_running_loop().create_future()

    async def invoke() -> str:
        _unless_done(claimed, True)
        return await output

    # The kit's ledgers begin the settlement at once; a ledger with a `run_once` of its own
    # (another `CallLedger`, or a subclass that adds to it) is asked through it, in a task.
    settled = (
        ledger.settlement(key, invoke, answer=answer)
        if _settles_at_once(ledger)
        else asyncio.ensure_future(ledger.run_once(key, invoke, answer=answer))
    )
    settled.add_done_callback(_retrieve)
    settled.add_done_callback(lambda _: _unless_done(claimed, False))
    try:
        mine = await claimed
    except BaseException:
        # Cancelled while claiming (a run stopped, a worker's activity cancelled): nobody will
        # hold this claim, so give it up now rather than leave it held by a live process.
        if not output.done():
            output.set_exception(NotRun("the run was stopped before the call started"))
        raise
    if mine:
        return Claim(key, output, settled)
    kept = settled.result()  # raises CallInDoubt when the holder left it in doubt
    return await ledger.recorded(key) or Recorded(kept)


def _settles_at_once(ledger: CallLedger) -> TypeGuard[OnceOnlyLedger]:
    run_once = getattr(type(ledger), "run_once", None)
    return isinstance(ledger, OnceOnlyLedger) and run_once is OnceOnlyLedger.run_once


def _unless_done(future: asyncio.Future[bool], value: bool) -> None:
    if not future.done():  # cancelled with its asker, or set by the other side first
        future.set_result(value)


def _retrieve(task: asyncio.Future[str]) -> None:
    # A dropped claim ends in NotRun; it is reported through the run, not the loop's log.
    if not task.cancelled():
        task.exception()
