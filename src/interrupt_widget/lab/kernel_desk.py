"""A kernel's desk at the question board: what this kernel's chats and batches wait on,
posted for the Jupyter server's sidebar, and the answers given there, taken once.

It works only in a kernel started by a Jupyter server that runs the kit's server
extension (which names the board in `INTERRUPT_WIDGET_BOARD`): there, the first chat
or batch made starts it. Every `TICK` seconds it reads the questions of every chat
and batch still alive (through the same sources the inbox reads) and posts what
changed, then takes the answers queued for this kernel and gives each to the view
that asked, through its answer path (`resolve`, `cancel`, `settle`), as the person
who gave it: the checks, the rules about people and the ledger's claim hold as for a
click in the cell, and the verdict goes back to the board.
"""

from __future__ import annotations

import asyncio
import atexit
import logging
import os
import time
from collections.abc import Mapping
from typing import Any, Final

from interrupt_widget.agui.interrupts import verdict
from interrupt_widget.asking import askers
from interrupt_widget.batch.row import WaitingQuestion
from interrupt_widget.errors import AnswerRefused
from interrupt_widget.identity import identity_from_wire
from interrupt_widget.lab.board import BOARD_ENV, SERVER_ENV, SIDEBAR_BY, Board, Owner, Queued
from interrupt_widget.widgets.inbox_protocol import AnswerOutcome, outcome_to_wire
from interrupt_widget.widgets.inbox_sources import QuestionSource, source_of, wire_item

TICK: Final = 0.2
"""Seconds between two looks at the questions and the queued answers."""
HEARTBEAT: Final = 5.0
"""Seconds after which the desk says it is alive even when nothing changed."""

_log = logging.getLogger(__name__)


class KernelDesk:
    """This kernel's questions on the board and the answers to them (see the module docs)."""

    def __init__(self, board: Board, owner: Owner, *, heartbeat: float = HEARTBEAT) -> None:
        self.board = board
        self.owner = owner
        self.heartbeat = heartbeat
        self._askers: list[tuple[QuestionSource, str | None]] = []
        self._posted: dict[str, tuple[dict[str, Any], str | None, str | None]] = {}
        self._where: dict[str, tuple[QuestionSource, WaitingQuestion]] = {}
        self._beat = 0.0
        self._task: asyncio.Task[None] | None = None

    def adopt(self, asker: object, cell_id: str | None) -> None:
        """List `asker`'s questions from now on; `cell_id` is the cell that made it."""
        self._askers.append((source_of(asker), cell_id))

    def start(self, loop: asyncio.AbstractEventLoop) -> None:
        """Look at the questions and the answers every `TICK` seconds, on `loop`."""
        if self._task is None:
            self._task = loop.create_task(self._run(), name="interrupt-widget kernel desk")

    async def _run(self) -> None:
        failing = False
        while True:
            try:
                await self.tick()
            except Exception:  # the board is a view: a failure must never stop a run
                if not failing:  # said once, not five times a second
                    _log.warning("the question board %s cannot be reached", self.board.where,
                                 exc_info=True)  # fmt: skip
                failing = True
            else:
                if failing:
                    _log.warning("the question board %s is reachable again", self.board.where)
                failing = False
            await asyncio.sleep(TICK)

    async def tick(self) -> None:
        """Post what changed, then take the answers queued for this kernel."""
        current = self._collect()
        now = time.monotonic()
        beat = now - self._beat > self.heartbeat
        # A heartbeat posts every question again: a server that took them off while this
        # kernel was silent (a long cell) lists them again.
        upsert = {k: v for k, v in current.items() if beat or self._posted.get(k) != v}
        remove = [k for k in self._posted if k not in current]
        if upsert or remove or beat:
            await asyncio.to_thread(self.board.post, self.owner, upsert, remove)
            self._posted, self._beat = current, now
        for queued in await asyncio.to_thread(self.board.queued_for, self.owner.id):
            if await asyncio.to_thread(self.board.take, queued.seq):
                try:
                    result = self.apply(queued)
                except Exception as error:  # a listener of the view raised: say so, not hang
                    _log.warning("applying an answer from the sidebar failed", exc_info=True)
                    result = _result(False, error=_raised(error))
                await asyncio.to_thread(self.board.settle, queued.seq, not result["ok"], result)

    def _collect(self) -> dict[str, tuple[dict[str, Any], str | None, str | None]]:
        """Every question waiting in this kernel, as the board keeps it."""
        found: dict[str, tuple[dict[str, Any], str | None, str | None]] = {}
        where: dict[str, tuple[QuestionSource, WaitingQuestion]] = {}
        for source, cell_id in self._askers:
            for waiting in source.waiting():
                question = f"{self.owner.id}/{waiting.key}/{waiting.interrupt.id}"
                found[question] = (wire_item(question, waiting), cell_id, _asked_by(waiting))
                where[question] = (source, waiting)
        self._where = where
        return found

    def leave(self) -> None:
        """Take this kernel's questions off the board: it is shutting down, and an answer
        given there could no longer reach its run. (A kernel that dies without exiting
        leaves them listed as closed until the server forgets them.)"""
        try:
            self.board.leave(self.owner.id)
        except Exception:  # leaving is a courtesy: it must never fail the kernel's exit
            _log.warning("could not take this kernel's questions off %s", self.board.where,
                         exc_info=True)  # fmt: skip

    def apply(self, queued: Queued) -> dict[str, Any]:
        """Give one queued answer to the view that asked; its verdict for the board."""
        found = self._where.get(queued.question)
        if found is None:
            return _result(False, error="no longer waiting: answered elsewhere or finished")
        source, waiting = found
        body = queued.body
        who = identity_from_wire(body.get("identity"))
        if who is None:
            return _result(False, error="an answer from the sidebar must say who gave it")
        by = f"{SIDEBAR_BY}{who.name}"
        try:
            answerer = source.answerer(waiting.key)
            if queued.kind == "settle":
                answerer.settle(
                    waiting.interrupt.id,
                    ran=body.get("ran") is True,
                    output=body.get("output"),
                    by=by,
                    identity=who,
                )
                return _result(True, "approved")
            if body.get("status") == "cancelled":
                answerer.cancel(waiting.interrupt.id, by=by, identity=who)
                return _result(True, verdict("cancelled", None, by))
            answerer.resolve(body.get("payload"), waiting.interrupt.id, by=by, identity=who)
        except AnswerRefused as exc:
            return _result(False, error=str(exc), errors=exc.errors)
        return _result(True, verdict("resolved", body.get("payload"), by))


def _raised(error: Exception) -> str:
    return (
        f"the kernel raised while applying the answer ({type(error).__name__}: {error}); it "
        "may have been taken: look at the notebook before answering again"
    )


def _result(ok: bool, verdict: str = "", *, error: str = "", errors: Any = ()) -> dict[str, Any]:
    return outcome_to_wire(AnswerOutcome("", ok, verdict, error, list(errors)))


def _asked_by(waiting: WaitingQuestion) -> str | None:
    metadata = waiting.interrupt.metadata
    approvals = metadata.get("approvals") if isinstance(metadata, Mapping) else None
    started = approvals.get("started_by") if isinstance(approvals, Mapping) else None
    return started if isinstance(started, str) else None


# -- starting in a kernel ---------------------------------------------------------------------

_desk: KernelDesk | None = None


def kernel_owner() -> Owner | None:
    """This kernel as a board owner, or None outside a kernel a Jupyter server started."""
    try:
        from ipykernel.connect import get_connection_file
    except ImportError:
        return None
    try:
        name = os.path.basename(get_connection_file())
    except (RuntimeError, AttributeError):  # not in a kernel
        return None
    kernel_id = name.removeprefix("kernel-").removesuffix(".json")
    path = os.environ.get("JPY_SESSION_NAME") or None
    return Owner(
        id=kernel_id,
        label=f"kernel {kernel_id[:8]}",
        path=path,
        server=os.environ.get(SERVER_ENV, ""),
    )


def current_cell_id() -> str | None:
    """The id of the notebook cell running now (JupyterLab sends it), if any."""
    try:
        from ipykernel.kernelbase import Kernel
    except ImportError:
        return None
    if not Kernel.initialized():
        return None
    parent = Kernel.instance().get_parent()  # type: ignore[no-untyped-call]
    cell = parent.get("metadata", {}).get("cellId") if isinstance(parent, Mapping) else None
    return cell if isinstance(cell, str) else None


def _adopt(asker: object) -> None:
    global _desk
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:  # made outside the kernel's loop: nothing to post from
        return
    if _desk is None:
        owner = kernel_owner()
        if owner is None:
            return
        _desk = KernelDesk(Board(os.environ[BOARD_ENV]), owner)
        atexit.register(_desk.leave)
    _desk.adopt(asker, current_cell_id())
    _desk.start(loop)


def serve_the_board() -> None:
    """In a kernel of a Jupyter server with the kit's extension, post every chat's and
    batch's questions to the server's board (called once, as the package loads)."""
    if os.environ.get(BOARD_ENV):
        askers.listen(_adopt)
