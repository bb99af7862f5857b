"""`Inbox`: every question that waits, from a batch's rows or from chats, in one list.

The inbox answers nothing itself: each answer goes to the row (or the chat's
picker) that asked, through the checks a picker applies to a click, and from
there on the row's own path (the thread takes it once, the ledger runs the call
once, the decision is recorded). A bulk answer is one answer per call: a call
whose schema refuses it (a required field) keeps waiting, shows why on its
line, and the others are answered.

A call left in doubt (approved, its run ended before recording a result, so it
may have run) shows as such, and only a person's word settles it (`settle`
from its card: it ran, with its result, or it did not, so it runs now). Its
row or picker refuses any other answer, as it does from every entry, so a bulk
answer passes it by with that refusal on its line; remembered rules skip it.

The list reaches the front end as messages (`inbox_protocol.py`): the whole list
when a view asks, then only what changed, merged into at most one message every
`FLUSH_SECONDS`. Traits hold the small state a redrawn view needs: the counts per
status, the remembered rules, the custom renderers and whether to notify.
"""

from __future__ import annotations

import asyncio
import logging
import pathlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Final, TypeVar

import anywidget
import traitlets
from ag_ui.core import Interrupt

from interrupt_widget import clock
from interrupt_widget.agui.answers import is_expired
from interrupt_widget.agui.interrupts import DENIAL_REASON, verdict
from interrupt_widget.batch.agent_batch import AgentBatch
from interrupt_widget.batch.row import WaitingQuestion
from interrupt_widget.batch.views import show_batches_with
from interrupt_widget.errors import AnswerRefused, UnattendedWait
from interrupt_widget.identity import Identity, as_identity_value, current_identity
from interrupt_widget.policy.quorum import escalates_to, not_allowed_reason
from interrupt_widget.policy.remembered import (
    RULE_BY,
    RememberedPolicy,
    RememberedRule,
    RememberedRules,
    RuleOp,
)
from interrupt_widget.widgets._bundle import (
    INBOX_CSS,
    INBOX_ESM,
    WantsCode,
    widget_code,
    widget_module,
)
from interrupt_widget.widgets.attendance import UNATTENDED_AFTER, Attendance
from interrupt_widget.widgets.chat import AgentChat
from interrupt_widget.widgets.closing import close_layout_of
from interrupt_widget.widgets.inbox_protocol import (
    AnswerItems,
    AnswerOutcome,
    Attached,
    Forget,
    Hello,
    ProtocolError,
    Remember,
    Settle,
    answer_result_to_wire,
    delta_to_wire,
    for_viewer,
    parse_front_end_message,
    snapshot_to_wire,
)
from interrupt_widget.widgets.inbox_sources import QuestionSource, source_of, wire_item
from interrupt_widget.widgets.loop_handoff import comm_handler, running_loop
from interrupt_widget.widgets.picker import renderer_source

__all__ = ["Inbox"]

_log = logging.getLogger(__name__)

FLUSH_SECONDS: Final = 0.1
"""The longest a change waits before it goes to the front end, merged with the others."""

_T = TypeVar("_T")


class Inbox(anywidget.AnyWidget):
    """Every open question of the batches and chats given, in one list (see the module docs).

    ::

        inbox = batch.inbox            # or Inbox(chat1, chat2, batch)
        inbox.waiting                  # [WaitingQuestion(key, interrupt, tool, ...), ...]
        inbox.approve(["INV-7"])       # {"INV-7": "approved"}
        inbox.deny(reason="duplicate") # every open one: {key: "denied", ...}
    """

    _esm = traitlets.Unicode().tag(sync=True)  # `_bundle.widget_module`
    _css = traitlets.Unicode().tag(sync=True)

    unattended_after: float | None = UNATTENDED_AFTER
    """Seconds `await batch` gives a front end to show up while a question of the list
    waits; with none heard from by then (nbval, nbclient, papermill, `nbconvert
    --execute`), it raises `UnattendedWait`, naming the ways out. None: wait for ever."""

    counts = traitlets.Dict().tag(sync=True)
    """Rows per status (`pending`, `running`, `waiting`, `done`, `failed`, `cancelled`) and
    `total`, for the counts line and the progress bar."""
    remembered = traitlets.List(traitlets.Dict()).tag(sync=True)
    """The remembered rules: `{name, tool, field, op, value, settled}` each."""
    renderers = traitlets.Dict().tag(sync=True)
    """`{tool name or reason: ES module source}` for the cards, as the picker's."""
    notify = traitlets.Bool(False).tag(sync=True)
    """Whether a view may ask for a desktop notification when a call starts waiting."""
    viewer = traitlets.Dict().tag(sync=True)
    """Who answers in this inbox (`current_identity()`, `{"name", "roles"}`): its "waiting
    for me" filter and its notice of questions escalated to them read it."""
    remind_after = traitlets.Float(None, allow_none=True).tag(sync=True)
    """Seconds after which a question still unanswered is announced again (the tab's title,
    and a desktop notification when allowed); None: never."""

    # Set in __init__; defaults here so that closing one whose __init__ refused its
    # arguments (before the widget was made) has nothing to undo.
    _unsubscribe: Sequence[Callable[[], None]] = ()
    _flush_at: asyncio.TimerHandle | None = None

    def __init__(
        self,
        *sources: AgentBatch | AgentChat,
        notify: bool = False,
        renderers: Mapping[str, str | pathlib.Path] | None = None,
        remind_after: float | None = None,
    ) -> None:
        """`sources`: the batches and chats whose questions the inbox lists; `remind_after`:
        seconds after which an unanswered question is announced again (None: never)."""
        _check_remind_after(remind_after)
        given: dict[str, str | pathlib.Path] = {}
        wrapped: list[QuestionSource] = []
        for source in sources:
            wrapped.append(source_of(source))
            if isinstance(source, AgentBatch):
                given.update(source.renderers)
        given.update(renderers or {})
        super().__init__(
            **widget_module(INBOX_ESM, INBOX_CSS),
            notify=notify,
            renderers={str(k): renderer_source(v) for k, v in given.items()},
            remind_after=remind_after,
            viewer=current_identity().to_wire(),
        )
        self._sources = wrapped
        self._rules = RememberedRules()
        self._sent: dict[str, dict[str, Any]] = {}
        self._wired: dict[str, tuple[Interrupt, dict[str, Any]]] = {}
        self._loop: asyncio.AbstractEventLoop | None = running_loop()
        self._flush_at: asyncio.TimerHandle | None = None
        self._attendance = Attendance()
        self._unsubscribe = [s.subscribe(self._changed) for s in wrapped]
        self.on_msg(comm_handler(lambda: self._loop, self._handle))
        self._refresh()

    # -- reading ---------------------------------------------------------------------------

    @property
    def waiting(self) -> list[WaitingQuestion]:
        """Every open question, source by source, row by row."""
        return [w for _n, w in self._waiting()]

    def waiting_for(self, who: str | Identity | None = None) -> list[WaitingQuestion]:
        """The open questions `who` (default: `current_identity()`) may answer now: every one
        no rule about people holds back from them (a role they lack, a run they started, an
        approval they gave already)."""
        person = current_identity() if who is None else as_identity_value(who)
        now = clock.now()
        return [
            w
            for w in self.waiting
            if not_allowed_reason(w.interrupt.metadata, person, True, now) is None
        ]

    def escalated(self, who: str | Identity | None = None) -> list[WaitingQuestion]:
        """The open questions that escalate (or have) to `who` (by name or role), whether
        or not their time has come yet; `WaitingQuestion.interrupt.metadata["approvals"]`
        says when."""
        person = current_identity() if who is None else as_identity_value(who)
        return [w for w in self.waiting if escalates_to(w.interrupt.metadata, person)]

    @property
    def rules(self) -> RememberedPolicy:
        """The remembered rules as a `Policy`: print it for the code, `evaluate` it, or give it
        to the next batch (`AgentBatch(..., policy=inbox.rules)`)."""
        return self._rules.policy()

    def __repr__(self) -> str:
        waiting = self.waiting
        tools: dict[str, int] = {}
        for w in waiting:
            tools[w.tool] = tools.get(w.tool, 0) + 1
        named = ", ".join(f"{t} {n}" for t, n in sorted(tools.items()))
        return f"Inbox: {len(waiting)} waiting" + (f" ({named})" if named else "")

    # -- answering -------------------------------------------------------------------------

    def approve(
        self, keys: Iterable[object] | None = None, *, by: str = "python"
    ) -> dict[str, str]:
        """Approve the open calls of the rows named (all when `keys` is None).

        Returns what each row got: `approved`, or `refused: <why>` for a row whose call
        does not take a bare approval (it keeps waiting).
        """
        return self._by_row(self._answer(self._pick(keys), "resolved", {"approved": True}, by))

    def deny(
        self, keys: Iterable[object] | None = None, reason: str | None = None, *, by: str = "python"
    ) -> dict[str, str]:
        """Deny the open calls of the rows named (all when None); the model hears `reason`."""
        payload: dict[str, Any] = {"approved": False}
        if reason:
            payload[DENIAL_REASON] = reason
        return self._by_row(self._answer(self._pick(keys), "resolved", payload, by))

    def cancel(self, keys: Iterable[object] | None = None, *, by: str = "python") -> dict[str, str]:
        """Cancel the open calls of the rows named (all when None): they never run."""
        return self._by_row(self._answer(self._pick(keys), "cancelled", None, by))

    def remember(
        self, key: object, field: str | None = None, op: RuleOp = "eq", *, by: str = "python"
    ) -> RememberedRule:
        """Approve row `key`'s call and make a rule of it (see `policy/remembered.py`): the same
        tool, and `field` equal to (`eq`) or at most (`le`) this call's value. The rule then
        approves the calls already waiting that it matches, and each later one."""
        found = self._pick([key])
        if len(found) != 1:
            raise ValueError(f"row {key} has {len(found)} open calls; remember needs one")
        _n, waiting = found[0]
        rule = self._rule_from(waiting, field, op)
        self._answer(found, "resolved", {"approved": True}, by)
        self._rules.add(rule)
        self._apply_rules()
        self._refresh()
        return rule

    def forget(self, name: str) -> bool:
        """Remove a remembered rule; what it settled stays settled. False if there is none."""
        removed = self._rules.remove(name)
        self._refresh()
        return removed

    async def _attended(self, work: asyncio.Future[_T]) -> _T:
        """`work` (a batch's runs), or `UnattendedWait` when a question of the list waits
        `unattended_after` seconds and no front end holds this inbox (see `attendance.py`)."""
        try:
            return await self._attendance.guard(
                work, after=self.unattended_after, what=self._open_questions
            )
        except UnattendedWait as unattended:  # its message says it all; the frames bury it
            raise unattended.with_traceback(None) from None

    def _open_questions(self) -> str:
        """What waits, for `UnattendedWait`'s message."""
        tools = sorted({w.tool for w in self.waiting})
        return f"the inbox's {len(self._sent)} open question(s) ({', '.join(tools)})"

    def close(self) -> None:
        """Stop following the chats and batches, then close the widget."""
        for unsubscribe in self._unsubscribe:
            unsubscribe()
        self._unsubscribe = []
        if self._flush_at is not None:
            self._flush_at.cancel()
        super().close()
        close_layout_of(self)

    # -- internals -------------------------------------------------------------------------

    def _waiting(self) -> list[tuple[int, WaitingQuestion]]:
        return [(n, w) for n, source in enumerate(self._sources) for w in source.waiting()]

    def _pick(self, keys: Iterable[object] | None) -> list[tuple[int, WaitingQuestion]]:
        found = self._waiting()
        if keys is None:
            return found
        wanted = {str(k) for k in ([keys] if isinstance(keys, str) else keys)}
        return [(n, w) for n, w in found if w.key in wanted]

    def _answer(
        self, targets: list[tuple[int, WaitingQuestion]], status: str, payload: Any, by: str
    ) -> list[tuple[WaitingQuestion, AnswerOutcome]]:
        outcomes = []
        for n, waiting in targets:
            item = _item_id(n, waiting)
            answerer = self._sources[n].answerer(waiting.key)
            try:
                if status == "cancelled":
                    answerer.cancel(waiting.interrupt.id, by=by)
                else:
                    answerer.resolve(payload, waiting.interrupt.id, by=by)
            except AnswerRefused as exc:
                outcomes.append((waiting, AnswerOutcome(item, False, "", str(exc), exc.errors)))
            else:
                said = verdict(status, payload, by)
                outcomes.append((waiting, AnswerOutcome(item, True, said)))
        self._refresh()
        return outcomes

    @staticmethod
    def _by_row(outcomes: list[tuple[WaitingQuestion, AnswerOutcome]]) -> dict[str, str]:
        rows: dict[str, str] = {}
        for waiting, outcome in outcomes:
            said = outcome.verdict if outcome.ok else f"refused: {outcome.error}"
            earlier = rows.get(waiting.key)
            rows[waiting.key] = said if earlier in (None, said) else f"{earlier}; {said}"
        return rows

    def _rule_from(self, waiting: WaitingQuestion, field: str | None, op: RuleOp) -> RememberedRule:
        arguments = waiting.arguments
        if field is None:
            return RememberedRule(waiting.tool, None, "eq", None)
        if not isinstance(arguments, Mapping) or field not in arguments:
            raise ValueError(f"{waiting.tool} has no argument {field!r} to remember")
        return RememberedRule(waiting.tool, field, op, arguments[field])

    def _apply_rules(self) -> None:
        if not len(self._rules):
            return
        for n, waiting in self._waiting():
            rule = self._rules.match(waiting.tool, waiting.arguments)
            if rule is None or is_expired(waiting.interrupt) or waiting.doubt:
                continue
            answered = self._answer(
                [(n, waiting)], "resolved", {"approved": True}, f"{RULE_BY}{rule.name}"
            )
            if answered and answered[0][1].ok:
                self._rules.count(rule)

    def _changed(self) -> None:
        """A source changed: send what changed soon, merged with whatever else changes."""
        loop = self._loop
        if loop is None or loop.is_closed():
            self._refresh()
        elif self._flush_at is None:
            self._flush_at = loop.call_later(FLUSH_SECONDS, self._flush)

    def _flush(self) -> None:
        self._flush_at = None
        self._apply_rules()
        self._refresh()

    def _refresh(self) -> None:
        """Send the items that changed since the last message, and the counts."""
        person, now = current_identity(), clock.now()  # once per refresh, not per item
        current = {
            _item_id(n, w): self._item(n, w, for_viewer(w.interrupt.metadata, person, now))
            for n, w in self._waiting()
        }
        self._wired = {k: v for k, v in self._wired.items() if k in current}
        upsert = [
            item
            for item_id, item in current.items()
            if (sent := self._sent.get(item_id)) is not item and sent != item
        ]
        remove = [item_id for item_id in self._sent if item_id not in current]
        self._sent = current
        if current:
            self._attendance.asking()
        else:
            self._attendance.answered()
        if upsert or remove:
            self.send(delta_to_wire(upsert, remove))
        totals: dict[str, int] = {}
        for source in self._sources:
            for status, n in source.counts().items():
                totals[status] = totals.get(status, 0) + n
        totals["total"] = sum(totals.values())
        viewer = person.to_wire()
        with self.hold_sync():
            if viewer != self.viewer:
                self.viewer = viewer
            if totals != self.counts:
                self.counts = totals
            rules = self._rules.to_wire()
            if rules != self.remembered:
                self.remembered = rules

    def _item(self, n: int, waiting: WaitingQuestion, people: Mapping[str, bool]) -> dict[str, Any]:
        """The wire item of a waiting call, built once per interrupt (the list is redrawn often)
        and copied only when what changes between refreshes changed."""
        item_id = _item_id(n, waiting)
        cached = self._wired.get(item_id)
        changing = {"error": waiting.error, "doubt": waiting.doubt, **people}
        if cached is None or cached[0] is not waiting.interrupt:
            cached = (waiting.interrupt, {**wire_item(item_id, waiting), **changing})
        elif any(cached[1].get(k) != v for k, v in changing.items()):
            cached = (waiting.interrupt, {**cached[1], **changing})
        self._wired[item_id] = cached
        return cached[1]

    def _handle(self, content: Any) -> None:
        try:
            message = parse_front_end_message(content)
        except ProtocolError as exc:
            _log.warning("ignored an inbox message: %s", exc)
            if exc.request_id is not None:
                self.send(
                    answer_result_to_wire(exc.request_id, [AnswerOutcome("", False, "", str(exc))])
                )
            return
        if isinstance(message, Attached):
            self._attendance.attach()
        elif isinstance(message, WantsCode):
            self.send(widget_code(INBOX_ESM, INBOX_CSS))
        elif isinstance(message, Hello):
            self._attendance.attach()  # a view is a front end too
            self._refresh()
            self.send(snapshot_to_wire(list(self._sent.values())))
        elif isinstance(message, AnswerItems):
            targets = self._items(message.ids)
            outcomes = [
                o for _w, o in self._answer(targets, message.status, message.payload, message.by)
            ]
            outcomes += _gone(message.ids, targets)
            self.send(answer_result_to_wire(message.request_id, outcomes))
        elif isinstance(message, Remember):
            targets = self._items([message.id])
            try:
                if not targets:
                    raise ValueError("that call is no longer waiting")
                self.remember(targets[0][1].key, message.field, message.op, by=message.by)
                outcomes = [AnswerOutcome(message.id, True, "approved")]
            except (ValueError, AnswerRefused) as exc:
                outcomes = [AnswerOutcome(message.id, False, "", str(exc))]
            self.send(answer_result_to_wire(message.request_id, outcomes))
        elif isinstance(message, Forget):
            self.forget(message.name)
        elif isinstance(message, Settle):
            self.send(answer_result_to_wire(message.request_id, self._settle(message)))

    def _settle(self, message: Settle) -> list[AnswerOutcome]:
        """A view's word on a call in doubt, given to the row (or picker) that asked."""
        targets = self._items([message.id])
        if not targets:
            return _gone([message.id], targets)
        n, waiting = targets[0]
        try:
            self._sources[n].answerer(waiting.key).settle(
                waiting.interrupt.id, ran=message.ran, output=message.output, by=message.by
            )
        except AnswerRefused as exc:
            outcome = AnswerOutcome(message.id, False, "", str(exc), exc.errors)
        else:
            outcome = AnswerOutcome(message.id, True, "approved")
        self._refresh()
        return [outcome]

    def _items(self, ids: Iterable[str]) -> list[tuple[int, WaitingQuestion]]:
        wanted = set(ids)
        return [(n, w) for n, w in self._waiting() if _item_id(n, w) in wanted]


def _gone(ids: Iterable[str], found: list[tuple[int, WaitingQuestion]]) -> list[AnswerOutcome]:
    present = {_item_id(n, w) for n, w in found}
    return [
        AnswerOutcome(i, False, "", "no longer waiting: answered elsewhere or finished")
        for i in ids
        if i not in present
    ]


def _item_id(n: int, waiting: WaitingQuestion) -> str:
    return f"{n}:{waiting.key}:{waiting.interrupt.id}"


def _check_remind_after(seconds: float | None) -> None:
    if seconds is not None and not seconds > 0:
        raise ValueError("remind_after is a positive number of seconds, or None")


show_batches_with(Inbox)
