"""The questions of a Jupyter server as its sidebar shows them, and the answers given there.

`ServerQuestions` reads the board (every kernel's questions, and those of other
servers sharing it), tells each person which they may answer (the call's rules about
people, for the server's signed-in user), and hands their answers to the kernel that
asked: checked first with the one answer check (`answer_refusal`, as the cell checks
a click), queued on the board, taken and applied by that kernel, and the kernel's
verdict returned. An answer its kernel does not take within `answer_timeout` is
withdrawn, never left to apply later: the person is told, and nothing changed. A kernel
that took an answer and gives no verdict within `verdict_timeout` (it stopped meanwhile)
is reported as such: the answer may have applied, and the person is told to look.
"""

from __future__ import annotations

import asyncio
import logging
import os
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from datetime import datetime
from typing import Any, Final, Literal, Protocol

from interrupt_widget import clock
from interrupt_widget.agui.wire import interrupt_from_wire
from interrupt_widget.asking import answer_refusal
from interrupt_widget.identity import Identity
from interrupt_widget.lab.board import Board, Posted
from interrupt_widget.policy.quorum import not_allowed_to_settle
from interrupt_widget.widgets.inbox_protocol import AnswerOutcome, for_viewer, outcome_from_wire

_log = logging.getLogger(__name__)

OwnerState = Literal["running", "closed", "remote"]

GONE_AFTER: Final = 30.0
"""Seconds without a word from another server's kernel after which it counts as gone."""
CLOSED_KEPT: Final = 600.0
"""Seconds a stopped kernel's questions stay listed as closed (from its last word) before
the server takes them off the board. A kernel that shuts down takes its own off at once."""
POLL: Final = 0.05
"""Seconds between two looks at the board while an answer or a change is awaited."""
VERDICT_TIMEOUT: Final = 15.0
"""Seconds a kernel that took an answer has to give its verdict before the person is told
it may have applied (the kernel stopped while applying it)."""
CLOSED_NOTE: Final = (
    "its notebook is closed: the kernel that asked stopped, so an answer here cannot resume "
    "its run; open the notebook and run it again to ask again"
)


class QuestionsElsewhere(Protocol):
    """Questions no kernel posts (Temporal conversations), held by the server itself."""

    generation: int
    """Grows whenever the list changes."""

    def holds(self, question: str) -> bool: ...

    def items(self, person: Identity, now: datetime) -> list[dict[str, Any]]: ...

    async def answer(
        self, person: Identity, question: str, status: str, payload: Any
    ) -> AnswerOutcome: ...


class ServerQuestions:
    """One Jupyter server's view of the board (see the module docs)."""

    def __init__(
        self,
        board: Board,
        server: str,
        running_kernels: Callable[[], Iterable[str]],
        *,
        answer_timeout: float = 5.0,
        verdict_timeout: float = VERDICT_TIMEOUT,
        closed_kept: float = CLOSED_KEPT,
        elsewhere: QuestionsElsewhere | None = None,
        root_dir: str | None = None,
    ) -> None:
        """`server`: this server's name on the board; `running_kernels`: the ids of the
        kernels this server runs now (a kernel of its own that is not among them stopped);
        `elsewhere`: questions no kernel holds (Temporal conversations), listed beside;
        `root_dir`: the server's contents root, which a kernel's notebook path is read against;
        `closed_kept`: seconds a kernel that died keeps its questions listed as closed."""
        self.board = board
        self.server = server
        self._running = running_kernels
        self.answer_timeout = answer_timeout
        self.verdict_timeout = verdict_timeout
        self.closed_kept = closed_kept
        self.elsewhere = elsewhere
        self._root = None if root_dir is None else os.path.realpath(root_dir)

    # -- listing ---------------------------------------------------------------------------

    async def changed_since(self, rev: int, wait: float) -> int:
        """The revision once it differs from `rev`, or after `wait` seconds."""
        deadline = time.monotonic() + wait
        while True:
            now_rev = await self._rev()
            if now_rev != rev or time.monotonic() >= deadline:
                return now_rev
            await asyncio.sleep(POLL * 2)

    async def _rev(self) -> int:
        """The board's revision and the other questions' generation: both only grow, so
        their sum changes whenever either list does."""
        extra = 0 if self.elsewhere is None else self.elsewhere.generation
        return await asyncio.to_thread(self.board.rev) + extra

    async def listing_for(self, person: Identity) -> dict[str, Any]:
        """The sidebar's list for `person`: `{"rev", "me", "items"}`."""
        rev, posted = await asyncio.to_thread(self.board.listing)
        running = set(self._running())
        if await self._forget_long_closed(posted, running):
            rev, posted = await asyncio.to_thread(self.board.listing)
        now = clock.now()
        items = [self._item(p, self._state(p, running), person, now) for p in posted]
        if self.elsewhere is not None:
            items += self.elsewhere.items(person, now)
            rev += self.elsewhere.generation
        return {"rev": rev, "me": person.to_wire(), "items": items}

    async def _forget_long_closed(self, posted: list[Posted], running: set[str]) -> bool:
        """Take off the board the questions of kernels closed for longer than `closed_kept`
        (a kernel that died cannot take them off itself); whether there were any."""
        stale = {
            p.owner.id
            for p in posted
            if self._state(p, running) == "closed" and time.time() - p.seen > self.closed_kept
        }
        for owner in stale:
            await asyncio.to_thread(self.board.leave, owner)
        return bool(stale)

    def _state(self, posted: Posted, running: set[str]) -> OwnerState:
        if posted.owner.server == self.server:
            return "running" if posted.owner.id in running else "closed"
        return "remote" if time.time() - posted.seen < GONE_AFTER else "closed"

    def _item(
        self, posted: Posted, state: OwnerState, person: Identity, now: datetime
    ) -> dict[str, Any]:
        item = dict(posted.item)
        people = for_viewer(item.get("interrupt", {}).get("metadata"), person, now)
        if state == "closed":
            people["mayAnswer"] = False
        owner = posted.owner
        item.update(people)
        path = self._notebook(owner.path)
        item["where"] = {
            "label": path or owner.label,
            "path": path if owner.server == self.server else None,
            "cellId": posted.cell_id,
            "state": state,
            "source": "kernel",
            "note": CLOSED_NOTE if state == "closed" else "",
        }
        item["askedBy"] = posted.asked_by
        return item

    def _notebook(self, path: str | None) -> str | None:
        """A kernel's notebook as the server's contents name it: relative to its root (a
        kernel may be told the whole path), as it was given when it is not under the root."""
        if path is None or self._root is None or not os.path.isabs(path):
            return path
        inside = os.path.relpath(os.path.realpath(path), self._root)
        return path if inside.startswith("..") else inside

    # -- answering -------------------------------------------------------------------------

    async def answer(
        self, person: Identity, ids: Sequence[str], status: str, payload: Any
    ) -> list[AnswerOutcome]:
        """`person`'s answer to each of `ids` (one bulk answer is one answer per question)."""
        try:
            posted = await self._posted()
        except Exception as error:  # the board unreadable: no answer was queued
            return [_failed(i, error, "nothing was changed: answer again") for i in ids]
        verdicts = await asyncio.gather(
            *(self._answer_one(person, posted.get(i), i, status, payload) for i in ids),
            return_exceptions=True,
        )
        # One question's failure is its own: the others' verdicts stand and are told.
        outcomes: list[AnswerOutcome] = []
        for question, verdict in zip(ids, verdicts, strict=True):
            if isinstance(verdict, Exception):
                verdict = _failed(question, verdict, "nothing was changed: answer again")
            elif isinstance(verdict, BaseException):  # cancelled: the request is going away
                raise verdict
            outcomes.append(verdict)
        return outcomes

    async def settle(
        self, person: Identity, question: str, ran: bool, output: str | None
    ) -> AnswerOutcome:
        """`person`'s word on a call in doubt: it ran (`output` its result) or it did not."""
        try:
            return await self._settle_one(person, question, ran, output)
        except Exception as error:  # raised before the word was queued (after, `_deliver` says)
            return _failed(question, error, "nothing was changed: settle it again")

    async def _settle_one(
        self, person: Identity, question: str, ran: bool, output: str | None
    ) -> AnswerOutcome:
        found = (await self._posted()).get(question)
        refused = self._unanswerable(found, question)
        if refused is not None:
            return refused
        assert found is not None
        interrupt = interrupt_from_wire(found.item["interrupt"])
        barred = not_allowed_to_settle(interrupt.metadata, person, clock.now())
        if barred is not None:  # told here at once; the kernel's check says the same
            return AnswerOutcome(question, False, error=f"{found.item.get('tool')}: {barred}")
        body = {"ran": ran, "output": output, "identity": person.to_wire()}
        return await self._deliver(found, "settle", body)

    async def _answer_one(
        self, person: Identity, found: Posted | None, question: str, status: str, payload: Any
    ) -> AnswerOutcome:
        if self.elsewhere is not None and self.elsewhere.holds(question):
            try:
                return await self.elsewhere.answer(person, question, status, payload)
            except Exception as error:  # after the answer was handed over, or before
                return _failed(question, error, "it may have been taken: look at the question")
        refused = self._unanswerable(found, question)
        if refused is not None:
            return refused
        assert found is not None
        if status == "resolved":
            interrupt = interrupt_from_wire(found.item["interrupt"])
            label = str(found.item.get("tool") or interrupt.reason)
            early = answer_refusal(interrupt, label, payload, person, clock.now())
            if early is not None:
                return AnswerOutcome(
                    question, False, error=early.message, errors=list(early.problems)
                )
        body = {"status": status, "payload": payload, "identity": person.to_wire()}
        return await self._deliver(found, "answer", body)

    def _unanswerable(self, found: Posted | None, question: str) -> AnswerOutcome | None:
        if found is None:
            return AnswerOutcome(
                question,
                False,
                error=f"unknown question {question!r}: answered elsewhere, finished, or never "
                "asked; nothing was changed",
            )
        if self._state(found, set(self._running())) == "closed":
            return AnswerOutcome(question, False, error=f"{found.item.get('tool')}: {CLOSED_NOTE}")
        return None

    async def _deliver(self, found: Posted, kind: str, body: dict[str, Any]) -> AnswerOutcome:
        """Queue an answer for the kernel that asked and wait for its verdict."""
        seq = await asyncio.to_thread(self.board.queue, found.id, found.owner.id, kind, body)
        try:
            return await self._verdict(found, seq)
        except Exception:  # the board failed after the answer was queued: the kernel may act
            _log.warning("the verdict on question %s could not be read", found.id, exc_info=True)
            return AnswerOutcome(found.id, False, error=self._unread(found))

    async def _verdict(self, found: Posted, seq: int) -> AnswerOutcome:
        """The kernel's verdict on queued answer `seq`, or why there is none."""
        deadline = time.monotonic() + self.answer_timeout
        taken_at: float | None = None
        while True:
            state, result = await asyncio.to_thread(self.board.outcome, seq)
            if result is not None:
                return replace(outcome_from_wire(result), id=found.id)
            now = time.monotonic()
            late = state == "queued" and now >= deadline
            if late and await asyncio.to_thread(self.board.withdraw, seq):
                return AnswerOutcome(found.id, False, error=self._busy(found))
            if state == "taken":
                taken_at = now if taken_at is None else taken_at
                if now - taken_at >= self.verdict_timeout:
                    return AnswerOutcome(found.id, False, error=self._untold(found))
            await asyncio.sleep(POLL)

    def _busy(self, found: Posted) -> str:
        return self._its_kernel(
            found,
            f"did not take the answer within {self.answer_timeout:g} s (a cell may be running "
            "there); nothing was changed: answer again once it is free",
        )

    def _untold(self, found: Posted) -> str:
        return self._its_kernel(
            found,
            f"took the answer but gave no verdict within {self.verdict_timeout:g} s (it may "
            "have stopped); the answer may have been applied: look at the notebook before "
            "answering again",
        )

    def _unread(self, found: Posted) -> str:
        return self._its_kernel(
            found,
            "was sent the answer, and its verdict could not be read (the questions' board "
            "failed); the answer may have been applied: look at the notebook before answering "
            "again",
        )

    def _its_kernel(self, found: Posted, what: str) -> str:
        """`what` the kernel that asked `found` did, said of its question."""
        where = self._notebook(found.owner.path) or found.owner.label
        return f"{found.item.get('tool')}: the kernel of {where} {what}"

    async def _posted(self) -> dict[str, Posted]:
        _rev, posted = await asyncio.to_thread(self.board.listing)
        return {p.id: p for p in posted}


def _failed(question: str, error: BaseException, so: str) -> AnswerOutcome:
    """The answer to `question` raised `error`; `so` says what that left and what to do."""
    _log.warning("the answer to question %s failed", question, exc_info=error)
    return AnswerOutcome(
        question,
        False,
        error=f"the answer could not be delivered ({type(error).__name__}: {error}); {so}",
    )
