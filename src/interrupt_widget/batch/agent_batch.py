"""`AgentBatch`: one agent run per row of a table, many at once, every question in one inbox.

Each row is one `ConversationThread` on one shared `OpenAIAgentsAdapter`, with a
thread id derived from the batch's name and the row's key, so the adapter's
ledger keys each approved call by row: re-running the batch (the same cell, or
a new kernel on the same ledger) runs no approved call twice. A row that
finished also leaves a record of how it ended in the same ledger, under its
thread id and the call id `ROW_OUTCOME_CALL` (the ledger's own once-only
record: the first outcome written is the one every later run reads), so a
re-run skips it and reports that first outcome.

Runs go on in the background, at most `concurrency` at once; a row that waits
for a person gives its place to the next one. Waiting rows are answered from
the inbox (`batch.inbox`), from Python, or by a responder, each through the
checks a picker applies (see `batch/row.py`).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Callable, Generator, Iterable, Mapping, Sequence
from dataclasses import dataclass, fields, replace
from datetime import UTC, datetime, timedelta
from typing import Any, TypeVar, Unpack, get_args

from ag_ui.core import Interrupt, ResumeEntry, RunAgentInput, UserMessage
from agents import Agent

from interrupt_widget.agui.messages import last_reply
from interrupt_widget.agui.run_handle import AGUIAgent
from interrupt_widget.asking import (
    ConversationThread,
    ExpiryAnswer,
    HoldsLedger,
    Offer,
    Responder,
    RunOutcome,
    Step,
    askers,
    converse,
    doubt_ledger,
    doubts_of,
    noted,
    offer_to_settle,
)
from interrupt_widget.asking import (
    responders as _responders,
)
from interrupt_widget.batch import records as row_records
from interrupt_widget.batch.records import ROW_OUTCOME_CALL
from interrupt_widget.batch.row import BatchRow, RowStatus, WaitingQuestion
from interrupt_widget.batch.views import BatchView
from interrupt_widget.batch.views import views as _views
from interrupt_widget.clock import utc_text
from interrupt_widget.decisions import Decision
from interrupt_widget.errors import CallInDoubt, ChatRunError, ErrorCode, LedgerUnavailable
from interrupt_widget.ledger.once_only import CallLedger, Recorded
from interrupt_widget.ledger.opening import open_ledger
from interrupt_widget.recordings import decision_recorder
from interrupt_widget.sdk.adapter import OpenAIAgentsAdapter
from interrupt_widget.sdk.agent_options import AgentOptions, resolve_agent

_T = TypeVar("_T")


__all__ = ["AgentBatch", "RowResult", "WaitingQuestion"]

_log = logging.getLogger(__name__)

STOPPED_BY = "batch"
"""`by` of the cancellations `AgentBatch.cancel()` gives to waiting calls."""

Prompt = str | Callable[[dict[str, Any]], str]
RowKey = str | Callable[[dict[str, Any]], object]


@dataclass(frozen=True)
class RowResult:
    """How one row ended (or where it is)."""

    key: str
    """The row's key."""
    status: RowStatus
    """`pending`, `running`, `waiting`, `done`, `failed` or `cancelled`."""
    text: str
    """The agent's last reply."""
    decisions: tuple[Decision, ...]
    """The row's answered interrupts."""
    error: str | None = None
    """How it failed (status `failed`)."""
    code: str | None = None
    """The run's error code (an `ErrorCode` value), when it gave one."""
    replayed: bool = False
    """True when its gated calls' results came from the ledger rather than a run: the row is
    the outcome an earlier run of the batch recorded, or a call of it had run before (each
    such decision's `replay_note` says when it ran, and who approved it)."""

    @property
    def exception(self) -> ChatRunError | None:
        """How it failed (status `failed`) as the exception a chat raises for it: one of the
        kit's own errors keeps its class (`except CassetteMismatch` catches a row a cassette
        refused). None for a row that did not fail."""
        if self.status != "failed":
            return None
        return ChatRunError.of(self.error or "the run failed", self.code)


class AgentBatch:
    """One run of `agent` per input row, at most `concurrency` at once (see the module docs).

    ::

        batch = AgentBatch(agent, invoices, prompt="Pay invoice {invoice_id}: {amount} EUR "
                           "to {vendor}", key="invoice_id", policy=policy)
        batch                     # starts the runs; shows the inbox of what waits
        await batch               # every row finished
        batch.frame()             # inputs, status, text, decisions, error per row
    """

    def __init__(
        self,
        agent: Any,
        inputs: Any,
        *,
        name: str | None = None,
        prompt: Prompt | None = None,
        key: RowKey | None = None,
        concurrency: int = 8,
        responder: Responder | None = None,
        on_expiry: ExpiryAnswer = "cancel",
        renderers: Mapping[str, Any] | None = None,
        **options: Unpack[AgentOptions],
    ) -> None:
        """`inputs`: a list of strings, a list of dicts, or a pandas DataFrame.

        `prompt`: a format string filled from the row's columns (`"Pay {invoice_id}"`), or
        a function of the row; a row that is a string is its own prompt. `key`: the column
        (or a function of the row) that names a row; the DataFrame's index, or the row's
        position, by default. `name` (the agent's name by default) and the key make each
        row's thread id. `agent` is an `agents.Agent`, or an agent that already speaks AG-UI
        (an `OpenAIAgentsAdapter`, a `RemoteAgent`, a `TemporalAgent`); `options` (`model`,
        `run_config`, `response_schemas`, `policy`, `ledger`, `hooks`, `cassette`: see
        `AgentOptions`) are as for `AgentChat`: they go to the adapter made for an
        `agents.Agent`, and an agent that speaks AG-UI refuses them. The adapter's ledger
        also keeps how each row ended. `responder` (else `INTERRUPT_WIDGET_RESPONDER`)
        answers every row's questions with no person. `expires_in` gives each question a
        deadline, after which it is cancelled (`on_expiry="cancel"`: the interrupt carries
        it, so it is an agent option too) or denied (`"deny"`: the batch's own, for any
        agent): its call never runs.
        """
        if concurrency < 1:
            raise ValueError("concurrency must be at least 1")
        if on_expiry not in get_args(ExpiryAnswer):
            raise ValueError(f"on_expiry must be 'cancel' or 'deny', got {on_expiry!r}")
        # A denial after the deadline is the batch's own: the interrupt itself then
        # carries none, since an expired interrupt can only be cancelled.
        expires_in = options.get("expires_in")
        if on_expiry == "deny":
            options["expires_in"] = None
        resolved = resolve_agent(agent, **options)
        self.adapter: AGUIAgent = resolved.runs_on
        """The AG-UI agent every row runs on."""
        self.ledger: CallLedger = _records_ledger(self.adapter)
        """Where finished rows are recorded: the agent's ledger, else the per-user default."""
        self.name = name if name is not None else _agent_name(resolved.agent)
        """Part of every row's thread id."""
        self.concurrency = concurrency
        """How many rows run at once, at most."""
        self.responder = responder if responder is not None else _responders.from_env()
        """Who answers every row's questions when no person should (None: a person does)."""
        self.renderers = dict(renderers or {})
        """Custom renderers for the inbox's cards, as for `InterruptPicker`."""
        self._expires_in = _as_timedelta(expires_in)
        self._on_expiry: ExpiryAnswer = on_expiry
        self._columns, rows = _rows(inputs, key)
        self.rows: list[BatchRow] = [self._row(k, values, prompt) for k, values in rows]
        """One per input, in input order."""
        self._by_key = {row.key: row for row in self.rows}
        self._listeners: list[Callable[[BatchRow], object]] = []
        self._task: asyncio.Task[tuple[RowResult, ...]] | None = None
        self._stopping = False
        self._inbox: BatchView | None = None
        self._view_wanted = False  # asked for (shown, or read as `inbox`), not only awaited
        self._recorder = decision_recorder()  # INTERRUPT_WIDGET_RECORD: the decisions kept
        self._recorded_as = self._recorder.join() if self._recorder is not None else 0
        askers.announce(self)

    def _row(self, key: str, values: dict[str, Any], prompt: Prompt | None) -> BatchRow:
        text = _prompt_for(prompt, values, key)
        thread = _first_thread(self.adapter, f"{self.name}/{key}", text)
        return BatchRow(key, values, text, thread, on_change=self._changed)

    # -- running ---------------------------------------------------------------------------

    def start(self) -> AgentBatch:
        """Start the runs in the background (once; later calls do nothing). Returns the batch."""
        if self._task is None:
            loop = asyncio.get_running_loop()
            self._task = loop.create_task(
                self._run_all(), name=f"interrupt-widget batch {self.name}"
            )
            self._task.add_done_callback(_retrieve)
        return self

    def __await__(self) -> Generator[Any, None, tuple[RowResult, ...]]:
        """Every row's result, once every row has finished (starts the batch if needed).

        Never cancels the runs. With no front end to show the inbox (nbval, nbconvert) and no
        responder, it raises `UnattendedWait` once a question has waited the inbox's
        `unattended_after` seconds; the rows keep waiting for their answers.
        """
        return self._finished().__await__()

    async def _finished(self) -> tuple[RowResult, ...]:
        self.start()
        assert self._task is not None
        if not _views:
            return await asyncio.shield(self._task)
        # Through the inbox, built now if it was not shown: a front end creates its model and
        # says so; with none (nbval, nbconvert), a question nobody can answer fails the await.
        watching_only = self._inbox is None
        inbox = self._view()
        try:
            return await inbox._attended(self._task)
        finally:
            if watching_only and not self._view_wanted and self._task.done():
                # Built for this await alone, it goes with it: the widgets' registry would
                # keep it, and through it every row of the batch, for the life of the process.
                self._inbox = None
                inbox.close()

    def cancel(self) -> None:
        """Stop the batch: running rows end cancelled at their next safe point, waiting rows'
        questions are cancelled (their calls never run), rows not begun never begin.

        A row stopped this way ended cancelled, for good (its cancelled calls are settled in the
        ledger); a row not begun was not run at all, and running the batch again runs it.
        """
        self._stopping = True
        for row in self.rows:
            if row.status == "running" and row.thread.running:
                row.thread.stop()
            elif row.status == "waiting":
                row.cancel_open(by=STOPPED_BY)

    @property
    def done(self) -> bool:
        """True once every row has finished."""
        return self._task is not None and self._task.done()

    # -- reading ---------------------------------------------------------------------------

    @property
    def results(self) -> tuple[RowResult, ...]:
        """Every row's result so far, in input order."""
        return tuple(_result(row) for row in self.rows)

    @property
    def decisions(self) -> list[Decision]:
        """Every row's decisions, row by row (for `policy.evaluate` and `save_decisions`)."""
        return [d for row in self.rows for d in row.decisions]

    def counts(self) -> dict[str, int]:
        """How many rows are in each status."""
        found = dict.fromkeys(get_args(RowStatus), 0)
        for row in self.rows:
            found[row.status] += 1
        return found

    def waiting(self) -> list[WaitingQuestion]:
        """Every open question, row by row."""
        return [w for row in self.rows if row.status == "waiting" for w in row.waiting()]

    def row(self, key: object) -> BatchRow:
        """The row named `key` (KeyError if none)."""
        return self._by_key[str(key)]

    def frame(self) -> Any:
        """A pandas DataFrame: the inputs, then key, status, replayed, text, decisions, error
        and code (`replayed`: as `RowResult.replayed`). Without pandas, `results` holds the same.
        """
        try:
            import pandas as pd
        except ImportError:
            raise ImportError(PANDAS_MISSING) from None
        records = []
        for row in self.rows:
            result = _result(row)
            record = dict(row.values)
            record.update(
                key=row.key,
                status=result.status,
                replayed=result.replayed,
                text=result.text,
                decisions=[_decision_line(d) for d in result.decisions],
                error=result.error,
                code=result.code,
            )
            records.append(record)
        columns = [*self._columns, *(c for c in _FRAME_COLUMNS if c not in self._columns)]
        return pd.DataFrame(records, columns=columns)

    # -- the inbox -------------------------------------------------------------------------

    @property
    def inbox(self) -> BatchView:
        """The widget listing every open question of this batch (built once): an `Inbox`."""
        self._view_wanted = True
        return self._view()

    def _view(self) -> BatchView:
        if self._inbox is None:
            if not _views:
                raise RuntimeError("no inbox to show: import interrupt_widget first")
            self._inbox = _views[0](self)
        return self._inbox

    def subscribe(self, listener: Callable[[BatchRow], object]) -> Callable[[], None]:
        """Call `listener(row)` whenever a row changes; returns the unsubscribe function."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener)

    def _repr_mimebundle_(self, **kwargs: Any) -> Any:
        """Displayed, the batch starts (in a running loop) and shows its inbox."""
        with contextlib.suppress(RuntimeError):  # no running loop: it starts when awaited
            self.start()
        return self.inbox._repr_mimebundle_(**kwargs)

    def __repr__(self) -> str:
        counts = ", ".join(f"{n} {status}" for status, n in self.counts().items() if n)
        return f"AgentBatch {self.name}: {len(self.rows)} rows ({counts})"

    # -- internals -------------------------------------------------------------------------

    def _changed(self, row: BatchRow) -> None:
        for listener in list(self._listeners):
            listener(row)

    async def _run_all(self) -> tuple[RowResult, ...]:
        slots = asyncio.Semaphore(self.concurrency)
        try:  # every row's first records in one read: a fresh batch then reads nothing more
            fresh = await row_records.not_begun(
                self.ledger, [r.thread.thread_id for r in self.rows]
            )
        except LedgerUnavailable:  # each row reads its own, and fails alone if it cannot
            fresh = set()
        await asyncio.gather(
            *(self._drive(row, slots, row.thread.thread_id in fresh) for row in self.rows)
        )
        return self.results

    async def _drive(self, row: BatchRow, slots: asyncio.Semaphore, fresh: bool) -> None:
        thread_id = row.thread.thread_id
        try:
            # Reading the row's records needs no place among the runs.
            found, saved = (
                (None, None) if fresh else await row_records.begun(self.ledger, thread_id)
            )
            if found is not None:
                _apply_record(row, found)
                await self._when_ran(row)
                return
            async with slots:
                if self._stopping:
                    row.set_status("cancelled")
                    return
                if saved is None:
                    step = 0
                    # Started by whoever started the batch: its task runs in the context
                    # `start` was called in, so the rules about people know them.
                    first = await self._run(row, row.thread.run_input())
                else:  # an earlier run stopped while this row waited: ask the same calls again
                    step, messages, interrupts = saved
                    row.thread = ConversationThread(
                        self.adapter, thread_id=thread_id, messages=messages, interrupts=interrupts
                    )
                    first = RunOutcome("interrupt", "", tuple(interrupts))

            async def keep(outcome: RunOutcome) -> None:
                nonlocal step
                step += 1
                await self._keep(row, step, outcome)

            # Asked again as saved (nothing new to keep), or after a call was left in doubt:
            # either may hold calls in doubt, to be settled by a person.
            outcome = await converse(
                first,
                run=lambda answers: self._resume(row, answers, slots),
                ask=lambda asked, doubts: self._answers(row, asked, doubts),
                open_interrupts=lambda: row.thread.interrupts,
                keep=keep,
                settles=self._may_settle,
                doubts=lambda asked: self._doubts(row, asked),
                asked_again=saved is not None,
            )
        except Exception as exc:  # this row failed; the others go on
            row.error = f"{type(exc).__name__}: {exc}"
            row.code = ErrorCode.CALL_IN_DOUBT if isinstance(exc, CallInDoubt) else None
            row.set_status("failed")
        else:
            _end(row, outcome)
        await self._record_end(row)

    async def _record_end(self, row: BatchRow) -> None:
        """Keep how the row ended, for good, unless a person can still settle its call."""
        if row.code == ErrorCode.CALL_IN_DOUBT and doubt_ledger(self.adapter) is not None:
            return  # left in doubt (the batch stopped): the next run offers settling again
        record = _record_of(row)
        try:
            # Not synced on its own: a power cut before the next synced commit runs the row
            # again, and its calls replay from their records (or stand in doubt).
            first = await row_records.write(
                self.ledger, row.thread.thread_id, ROW_OUTCOME_CALL, record, synced=False
            )
        except Exception:  # the outcome stands; a later run of the batch runs the row again
            _log.exception("could not record how row %s ended", row.key)
            return
        if first is not None and first is not record and first != json.loads(json.dumps(record)):
            _apply_record(row, first)  # another run of this batch finished the row first
            await self._when_ran(row)

    async def _when_ran(self, row: BatchRow) -> None:
        """Mark the calls of a row replayed from its record: when each ran, who approved it."""
        ledger = self.adapter.ledger if isinstance(self.adapter, OpenAIAgentsAdapter) else None
        marked = []
        for decision in row.decisions:
            found = None
            if ledger is not None and decision.outcome == "ran" and decision.tool_call_id:
                key = (row.thread.thread_id, decision.tool_call_id)
                try:
                    found = await ledger.recorded(key)
                except Exception:  # the words only: the row's outcome stands as recorded
                    _log.warning("could not read when row %s's call ran", row.key, exc_info=True)
            marked.append(_replayed(decision, found) if decision.outcome == "ran" else decision)
        row.decisions = marked

    async def _keep(self, row: BatchRow, step: int, outcome: RunOutcome) -> None:
        """Save the row's conversation as it stops to ask (step `step`), for a later run."""
        thread = row.thread
        interrupts = list(outcome.interrupts)
        await row_records.save_step(
            self.ledger, thread.thread_id, step, thread.messages, interrupts
        )

    def _may_settle(self, outcome: RunOutcome) -> bool:
        """Whether a row whose resume ended so asks again, for its calls in doubt."""
        in_doubt = outcome.kind == "error" and outcome.code == ErrorCode.CALL_IN_DOUBT.value
        return in_doubt and not self._stopping and doubt_ledger(self.adapter) is not None

    async def _doubts(self, row: BatchRow, asked: tuple[Interrupt, ...]) -> dict[str, Offer]:
        """The calls of `asked` the ledger holds in doubt, with what is known of each."""
        if doubt_ledger(self.adapter) is None:
            return {}  # no read of a ledger, no thread
        thread_id, known = row.thread.thread_id, list(row.decisions)
        return await asyncio.to_thread(doubts_of, self.adapter, thread_id, asked, known)

    def _answers(
        self, row: BatchRow, asked: tuple[Interrupt, ...], doubts: Mapping[str, Offer]
    ) -> asyncio.Future[list[ResumeEntry]]:
        """Ask `asked` of the row: its calls in doubt wait for a person, the rest for anyone."""
        answered = row.ask(asked, expires_in=self._expires_in, on_expiry=self._on_expiry)
        offered = offer_to_settle(row, self.adapter, row.thread.thread_id, doubts)
        if not offered and self.responder is not None:  # only a person says whether it ran
            self.responder.respond(row)
        return answered

    async def _resume(self, row: BatchRow, step: Step, slots: asyncio.Semaphore) -> RunOutcome:
        """Resume the row with its answers, in a place among the runs."""
        async with slots:
            run_input = step if isinstance(step, RunAgentInput) else row.thread.resume_input(step)
            return await self._run(row, run_input, stop_once_answered=self._stopping)

    async def _run(
        self, row: BatchRow, run_input: Any, *, stop_once_answered: bool = False
    ) -> RunOutcome:
        row.set_status("running")
        outcome = await row.thread.start(run_input, stop_once_answered=stop_once_answered)
        row.decisions[:] = noted(row.decisions, row.thread)
        row.replayed = row.replayed or any(d.outcome == "replayed" for d in row.decisions)
        row.text = last_reply(row.thread.messages)
        if self._recorder is not None:  # while INTERRUPT_WIDGET_RECORD records the run
            self._recorder.keep(self._recorded_as, self.decisions)
        return outcome


_FRAME_COLUMNS = ("key", "status", "replayed", "text", "decisions", "error", "code")

PANDAS_MISSING = (
    "AgentBatch.frame() needs pandas, which is not installed: "
    "pip install pandas; "
    "batch.results holds the same rows without it"
)
"""The ImportError's message when pandas is missing, with the line that installs it."""


def _first_thread(adapter: AGUIAgent, thread_id: str, prompt: str) -> ConversationThread:
    """A row's conversation before its first run: the prompt, under an id made from the
    thread id, so the same row asks the same question in every run of the batch."""
    return ConversationThread(
        adapter, thread_id=thread_id, messages=[UserMessage(id=f"user-{thread_id}", content=prompt)]
    )


def _end(row: BatchRow, outcome: RunOutcome) -> None:
    if outcome.kind == "error":
        row.error, row.code = outcome.error, outcome.code
        row.set_status("failed")
    elif outcome.kind == "cancelled":
        row.set_status("cancelled")
    else:
        row.set_status("done")


def _record_of(row: BatchRow) -> dict[str, Any]:
    return {
        "status": row.status,
        "text": row.text,
        "error": row.error,
        "code": row.code,
        "decisions": [d.record() for d in row.decisions],
    }


def _apply_record(row: BatchRow, record: Mapping[str, Any]) -> None:
    names = {f.name for f in fields(Decision)}
    row.text = str(record.get("text") or "")
    row.error = record.get("error")
    row.code = record.get("code")
    row.decisions = [
        Decision(**{k: v for k, v in d.items() if k in names}) for d in record.get("decisions", ())
    ]
    row.replayed = True
    status = record.get("status")
    row.set_status(status if status in ("done", "failed", "cancelled") else "failed")


def _result(row: BatchRow) -> RowResult:
    return RowResult(
        key=row.key,
        status=row.status,
        text=row.text,
        decisions=tuple(row.decisions),
        error=row.error,
        code=row.code,
        replayed=row.replayed,
    )


def _decision_line(decision: Decision) -> str:
    line = f"{decision.tool}: {decision.verdict} by {decision.by}"
    return f"{line}; {decision.replay_note}" if decision.replay_note else line


def _replayed(decision: Decision, found: Recorded | None) -> Decision:
    """`decision`, whose call ran in an earlier run, as replayed now from the ledger's record."""
    found = found or Recorded("")
    ran_at = None
    if found.at is not None:
        ran_at = utc_text(datetime.fromtimestamp(found.at, UTC))
    ran_with = found.answer if found.answer is not None else decision.payload
    return replace(decision, outcome="replayed", ran_with=ran_with, ran_at=ran_at, ran_by=found.by)


def _records_ledger(agent: AGUIAgent) -> CallLedger:
    """The ledger a batch of `agent` keeps its rows' outcomes in: the one its calls are
    recorded in when it holds one here (an adapter; a `TemporalAgent` given its workers'),
    else the per-user default."""
    held = agent.ledger if isinstance(agent, HoldsLedger) else None
    return held if held is not None else open_ledger(None)


def _agent_name(agent: Any) -> str:
    if isinstance(agent, Agent):
        return str(agent.name)
    raise TypeError("name the batch (name=...): only an agents.Agent has a name to borrow")


def _as_timedelta(value: float | timedelta | None) -> timedelta | None:
    if value is None or isinstance(value, timedelta):
        return value
    return timedelta(seconds=value)


def _rows(inputs: Any, key: RowKey | None) -> tuple[list[str], list[tuple[str, dict[str, Any]]]]:
    """The column names, and each row's key and values, from any of the accepted inputs."""
    columns: list[str]
    if type(inputs).__module__.startswith("pandas"):
        columns = [str(c) for c in inputs.columns]
        values = [{str(k): v for k, v in r.items()} for r in inputs.to_dict("records")]
        default_keys: Sequence[object] = list(inputs.index)
    elif isinstance(inputs, Iterable) and not isinstance(inputs, str | bytes | Mapping):
        listed = list(inputs)
        if all(isinstance(item, str) for item in listed):
            columns = ["input"]
            values = [{"input": item} for item in listed]
        elif all(isinstance(item, Mapping) for item in listed):
            columns = list(dict.fromkeys(str(k) for item in listed for k in item))
            values = [{str(k): v for k, v in item.items()} for item in listed]
        else:
            raise TypeError("inputs must all be strings or all be dicts")
        default_keys = range(len(listed))
    else:
        raise TypeError("inputs must be a list of strings, a list of dicts or a DataFrame")
    if key is None:
        keys = [str(k) for k in default_keys]
    elif callable(key):
        keys = [str(key(v)) for v in values]
    else:
        missing = [n for n, v in enumerate(values) if key not in v]
        if missing:
            raise ValueError(f"key column {key!r} is missing from row {missing[0]}")
        keys = [str(v[key]) for v in values]
    repeated = sorted({k for k in keys if keys.count(k) > 1}) if len(set(keys)) < len(keys) else []
    if repeated:
        raise ValueError(f"row keys must be unique; repeated: {', '.join(repeated[:5])}")
    return columns, list(zip(keys, values, strict=True))


def _prompt_for(prompt: Prompt | None, values: dict[str, Any], key: str) -> str:
    if prompt is None:
        if set(values) == {"input"} and isinstance(values["input"], str):
            return values["input"]
        raise TypeError("give prompt= (a format string or a function) for rows that are dicts")
    if callable(prompt):
        text = prompt(dict(values))
    else:
        try:
            text = prompt.format(**values)
        except (KeyError, IndexError) as exc:
            raise ValueError(f"prompt names {exc} which row {key} does not have") from None
    if not isinstance(text, str) or not text.strip():
        raise ValueError(f"the prompt of row {key} is empty")
    return text


def _retrieve(task: asyncio.Task[Any]) -> None:
    if not task.cancelled():
        task.exception()
