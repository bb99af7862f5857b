"""`AgentChat`: a conversation with an agent in one notebook cell.

The widget shows the transcript as it streams, the picker inline when a tool
needs a human, a status line, a prompt box and Stop. Each `send` runs in the
background on the kernel's loop; `await chat.send(text)` returns once the
agent has finished, interrupts answered. The conversation lives in a
`ConversationThread` as AG-UI messages, so it can be saved and resumed in a
new kernel.

The front end <-> Python contract (synced traits `kind`, `messages`, `status`,
`status_line`, `picker`, and the custom messages) is typed in `chat_protocol.py`,
mirrored by `js/chat/protocol.ts`.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import pathlib
from collections.abc import Awaitable, Callable, Generator, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Unpack, overload

import anywidget
import traitlets
from ag_ui.core import (
    BaseEvent,
    Interrupt,
    Message,
    MessagesSnapshotEvent,
    ResumeEntry,
    RunAgentInput,
)
from ipywidgets import widget_serialization
from ipywidgets.widgets.widget import Widget

from interrupt_widget.agui.call_agreement import check_saved
from interrupt_widget.agui.interrupts import tool_name
from interrupt_widget.agui.messages import last_reply
from interrupt_widget.agui.notes import waiting_message
from interrupt_widget.agui.run_handle import run_link_of
from interrupt_widget.agui.wire import (
    interrupts_from_wire,
    message_from_wire,
    messages_to_wire,
    to_wire,
)
from interrupt_widget.asking import (
    SETTLE_ON_ITS_CARD,
    ConversationThread,
    Offer,
    OutcomeKind,
    Responder,
    RunOutcome,
    Step,
    askers,
    converse,
    doubts_of,
    last_markers,
    noted,
    offer_to_settle,
)
from interrupt_widget.asking import (
    responders as _responders,
)
from interrupt_widget.decisions import (
    Decision,
    decisions_for,
    decisions_frame,
    save_decisions,
)
from interrupt_widget.errors import (
    AnswerRefused,
    CallMismatch,
    CannotWaitHere,
    ChatRunError,
    ErrorCode,
    InterruptsOpen,
    ResponderError,
    ResumeRefused,
    ThreadBusy,
    UnattendedWait,
)
from interrupt_widget.http.remote import RemoteAgent
from interrupt_widget.ledger.noting_ledger import with_answerers
from interrupt_widget.recordings import decision_recorder
from interrupt_widget.sdk.agent_options import OFFLINE_FALLBACK_NOTE, AgentOptions, resolve_agent
from interrupt_widget.widgets._bundle import CSS, ESM, WantsCode, widget_code, widget_module
from interrupt_widget.widgets.attendance import UNATTENDED_AFTER, WAYS_OUT, Attached, Attendance
from interrupt_widget.widgets.awaiting import in_marimo, marimo_way
from interrupt_widget.widgets.chat_protocol import (
    Hello,
    PromptResult,
    ProtocolError,
    Stop,
    events_to_wire,
    parse_front_end_message,
    prompt_result_to_wire,
)
from interrupt_widget.widgets.closing import close_layout_of
from interrupt_widget.widgets.delta_batching import EventBatcher, coalesce
from interrupt_widget.widgets.loop_handoff import comm_handler, running_loop
from interrupt_widget.widgets.picker import InterruptPicker

__all__ = ["AgentChat", "ChatResult", "ChatRun", "ChatRunError", "UnattendedWait"]

_log = logging.getLogger(__name__)
SAVE_FORMAT = "interrupt-widget/chat@1"
"""`format` of a file written by `AgentChat.save`."""


@dataclass(frozen=True)
class ChatResult:
    """What an awaited `send` returns."""

    outcome: OutcomeKind
    """`success`, or `cancelled` when stopped."""
    text: str
    """The agent's last reply (empty when it said nothing)."""
    run_ids: tuple[str, ...]
    """The runs this send took, the first one and one per resume."""
    decisions: tuple[Decision, ...]
    """The interrupts answered along the way."""

    @property
    def replayed(self) -> tuple[Decision, ...]:
        """The decisions whose call had already been settled by an earlier answer.

        Their run replayed the recorded result (the ledger keeps each call's one truth): the
        tool did not run again for them, whatever `text` repeats. Each says when it ran and
        who approved it (`Decision.replay_note`).
        """
        return tuple(d for d in self.decisions if d.outcome == "replayed")

    def __str__(self) -> str:
        notes = [f"({d.tool} {d.replay_note}; not run again)" for d in self.replayed]
        return "\n".join([self.text, *notes])


class ChatRun:
    """The handle `send` returns at once. Await it for the `ChatResult`.

    Awaiting never cancels the run: a cell interrupted while it awaits leaves the run
    going. With no front end to show the chat (nbval, nbconvert) and no responder, awaiting
    a run that waits for a person raises `UnattendedWait` after the chat's
    `unattended_after` seconds, the run left open. In marimo, where a cell cannot receive a
    click while it awaits, it raises `CannotWaitHere` at once; use `add_done_callback`.
    """

    def __init__(
        self,
        task: asyncio.Task[ChatResult],
        person_needed: asyncio.Event,
        attendance: Attendance | None = None,
        *,
        unattended_after: float | None = UNATTENDED_AFTER,
        waiting: Callable[[], str] = lambda: "the chat's question",
    ) -> None:
        self._task = task
        self._person_needed = person_needed
        self._attendance = attendance or Attendance()
        self._after = unattended_after
        self._waiting = waiting

    def __await__(self) -> Generator[Any, None, ChatResult]:
        return self._outcome().__await__()

    async def _outcome(self) -> ChatResult:
        if self._task.done() or not in_marimo():
            try:
                return await self._attendance.guard(
                    self._task, after=self._after, what=self._waiting
                )
            except (ResponderError, ChatRunError, UnattendedWait) as error:
                # The message holds the reason and the way out; the frames of the run's
                # task and the responder under it would bury that line (in nbconvert's
                # output above all), so it is raised from here with none of them.
                raise error.with_traceback(None) from None
        if not self._person_needed.is_set():
            asked = asyncio.ensure_future(self._person_needed.wait())
            try:  # asyncio.wait cancels neither the run nor the watch when this is cancelled
                await asyncio.wait({self._task, asked}, return_when=asyncio.FIRST_COMPLETED)
            finally:
                asked.cancel()
            if self._task.done():
                return self._task.result()
        raise CannotWaitHere(
            marimo_way(
                "`await run`",
                "call `run.add_done_callback(fn)`, or feed a `mo.state` setter from "
                '`chat.observe(fn, names="status")` and read `chat.text` and `chat.decisions` '
                "in a cell that uses that state.",
            )
        )

    def done(self) -> bool:
        return self._task.done()

    def result(self) -> ChatResult:
        """The result of a finished run (raises what the run raised)."""
        return self._task.result()

    def add_done_callback(self, fn: Callable[[ChatRun], object]) -> None:
        """Call `fn(run)` on the kernel's loop once the run ends (at once if it has)."""
        self._task.add_done_callback(lambda _task: fn(self))

    def __repr__(self) -> str:
        return f"<ChatRun {'finished' if self._task.done() else 'running'}>"


class _NothingAsked:
    """`chat.picker` before the agent asks anything: every use says so, clearly."""

    _WHY = (
        "nothing is asked yet: chat.picker answers once the agent asks "
        "(chat.status == 'waiting'); send a message first, then wait for that, e.g. "
        "`await until(chat, lambda: chat.status == 'waiting')` "
        "(from interrupt_widget.testing)"
    )

    def resolve(self, payload: Any = None, interrupt_id: str | None = None, **_: Any) -> None:
        raise AnswerRefused(self._WHY)

    def cancel(self, interrupt_id: str | None = None, **_: Any) -> None:
        raise AnswerRefused(self._WHY)

    async def wait(self, timeout: float | None = None) -> list[ResumeEntry]:  # noqa: ASYNC109
        raise AnswerRefused(self._WHY)

    @property
    def interrupts(self) -> list[Any]:
        return []

    @property
    def open_interrupts(self) -> list[Interrupt]:
        return []

    submitted = False

    def __getattr__(self, name: str) -> Any:
        raise AttributeError(f"chat.picker.{name}: {self._WHY}")

    def __bool__(self) -> bool:
        return False

    def __repr__(self) -> str:
        return "InterruptPicker: nothing asked yet"


NOTHING_ASKED: Any = _NothingAsked()
"""What `AgentChat.picker` is while no question is open (false in a test)."""


class _PickerSlot(traitlets.Instance[InterruptPicker | None]):
    """The chat's `picker` trait: None on the wire, `NOTHING_ASKED` to Python, when unasked."""

    def __init__(self) -> None:
        super().__init__(InterruptPicker, allow_none=True, read_only=True)

    @overload
    def __get__(self, obj: None, cls: type[Any]) -> _PickerSlot: ...
    @overload
    def __get__(self, obj: traitlets.HasTraits, cls: type[Any]) -> InterruptPicker: ...
    def __get__(self, obj: traitlets.HasTraits | None, cls: type[Any]) -> Any:
        value = super().__get__(obj, cls)
        return NOTHING_ASKED if value is None and obj is not None else value


def _picker_to_json(value: Any, widget: Widget) -> Any:
    return None if value is NOTHING_ASKED else widget_serialization["to_json"](value, widget)


_PICKER_SERIALIZATION = {
    "to_json": _picker_to_json,
    "from_json": widget_serialization["from_json"],
}


UNATTENDED_HINT = (
    f"No front end shows this chat and no responder is set, so nobody can answer. {WAYS_OUT}"
)
"""Said in the status line (and logged) when a question waits with nobody to answer it."""


class AgentChat(anywidget.AnyWidget):
    """A chat with an OpenAI Agents SDK agent whose gated tools ask you first."""

    _esm = traitlets.Unicode().tag(sync=True)  # `_bundle.widget_module`
    _css = traitlets.Unicode().tag(sync=True)

    unattended_after: float | None = UNATTENDED_AFTER
    """Seconds a question may wait for a person with no front end heard from (nbval,
    nbclient, papermill, `nbconvert --execute`) before the cell awaiting the run raises
    `UnattendedWait`, and the status line and a logged warning say how to set a responder.
    A front end that holds the chat, shown or not, announces itself; then it never fires.
    None: wait for ever (an answer from code)."""

    kind = traitlets.Unicode("chat", read_only=True).tag(sync=True)
    """Which view the shared bundle draws for this model."""
    messages = traitlets.List(traitlets.Dict(), read_only=True).tag(sync=True)
    """The committed conversation as AG-UI camelCase JSON (updated between runs)."""
    status = traitlets.Unicode("idle", read_only=True).tag(sync=True)
    """`idle`, `running`, `waiting` (for an answer), `done`, `cancelled` or `error`."""
    status_line = traitlets.Unicode("", read_only=True).tag(sync=True)
    """The sentence under the transcript: progress, the open question, or the error."""
    picker = _PickerSlot().tag(sync=True, **_PICKER_SERIALIZATION)
    """The picker of the last interrupts (answered or not), drawn inline.

    Always the same widget, built with the chat (marimo creates a widget's front end only
    while a cell runs, and a run may pause long after): each new question resets it.
    Before the first question and between runs it is `NOTHING_ASKED`: false, and
    `resolve`/`cancel`/`wait` on it raise `AnswerRefused` saying nothing is asked yet.
    """

    def __init__(
        self,
        agent: Any,
        *,
        responder: Responder | None = None,
        renderers: Mapping[str, str | pathlib.Path] | None = None,
        _state: Mapping[str, Any] | None = None,
        **options: Unpack[AgentOptions],
    ) -> None:
        """`agent`: an `agents.Agent`, or an agent that already speaks AG-UI (an
        `OpenAIAgentsAdapter`, a `RemoteAgent`, a `TemporalAgent`), which runs itself.

        `responder` answers interrupts with no human (see `interrupt_widget.responders`);
        without one, `INTERRUPT_WIDGET_RESPONDER` names it, else a person answers.
        `renderers` go to the picker.
        `options` (`model`, `run_config`, `expires_in`, `response_schemas`, `policy`,
        `ledger`, `hooks`, `cassette`: see `AgentOptions`) go to the adapter made for an
        `agents.Agent`, as for `AgentBatch` and `serve`; an agent that speaks AG-UI refuses
        them (they belong where it runs). The `ledger` is by default the per-user file
        shared by every kernel of this user, so a call approved twice (a stale save, a
        second chat on one conversation) runs once. A `cassette` records the model's
        answers once and replays them, so the chat runs with no key.

        With no OpenAI key set (nor one given to the SDK in code), an agent that names no
        model (nor do its handoffs) runs on `OfflineModel`, and the chat says so in its
        running line and in a logged warning (`offline_for_want_of_a_key`): the SDK's
        default model would only fail with "Missing credentials". An agent that names a
        model is left as it is; a run that fails for want of a key says the offline way.
        """
        super().__init__(**widget_module(ESM, CSS))
        resolved = resolve_agent(agent, **options)
        adapter = resolved.runs_on
        self.offline_for_want_of_a_key = resolved.offline
        """True when the chat runs the agent on `OfflineModel` because no key is set."""
        self.agent = resolved.agent
        """The agent (or AG-UI agent) this chat runs."""
        self.responder: Responder | None = (
            responder if responder is not None else _responders.from_env()
        )
        """Who answers interrupts when no person should (None: a person does)."""
        state = _state or {}
        self._thread = ConversationThread(
            adapter,
            thread_id=state.get("threadId"),
            messages=state.get("messages", ()),
            interrupts=state.get("interrupts", ()),
        )
        if isinstance(adapter, RemoteAgent):  # a loaded save's legacy pauses answer as before
            adapter.adopt(self._thread.interrupts)
        self._picker = InterruptPicker(
            None,
            renderers=dict(renderers or {}),
            on_submit=self._on_picker_submit,
            owner=self,
            signed=True,  # who answered goes with each answer, so the run's trace says it
        )
        self._picker.run_link = run_link_of(adapter, self._thread.thread_id)
        self._decisions: list[Decision] = [Decision(**d) for d in state.get("decisions", ())]
        self._recorder = decision_recorder()  # INTERRUPT_WIDGET_RECORD: the decisions kept
        self._recorded_as = self._recorder.join() if self._recorder is not None else 0
        self._start_bookkeeping()
        self.on_msg(comm_handler(lambda: self._loop, self._handle_front_end_message))
        self._sync_messages()
        if self._thread.interrupts:  # a loaded chat that was waiting: ask again
            self._ask_again()
        askers.announce(self)

    def _start_bookkeeping(self) -> None:
        """What the chat tracks between runs: who may answer, views, stops, the last run."""
        self._asked: frozenset[str] = frozenset()
        """The ids of the interrupts the picker was last reset to."""
        self._batcher = EventBatcher(self._to_front_end)
        self._loop: asyncio.AbstractEventLoop | None = running_loop()
        self._waiter: asyncio.Future[list[ResumeEntry]] | None = None
        self._person_needed = asyncio.Event()
        """Set while the run waits for a person (not a responder) to answer the picker."""
        self._attendance = Attendance()
        """Whether a front end holds this chat, and since when a person has been asked."""
        self._stop_when_answered = False
        self._doing = "running the agent"
        """What the conversation is doing, for the status line of an error."""
        self._stop_before_start = False
        self._last_run: ChatRun | None = None
        self._working = ""
        """The status line of a run at work (another, while it runs, is its waiting note)."""

    def _ask_again(self) -> None:
        self._open_picker(self._thread.interrupts)
        self._set_status("waiting", _waiting_line(self._thread.interrupts, self._thread.messages))
        doubts = self._doubts()
        if doubts:  # a call of the saved chat's was left in doubt
            self._offer_settling(doubts)
            self._set_status("waiting", DOUBT_LINE)
        self._let_responder_answer()

    def _doubts(self) -> dict[str, Offer]:
        """The open calls the ledger holds in doubt, with what is known (blocking: a read)."""
        thread = self._thread
        return doubts_of(thread.adapter, thread.thread_id, thread.interrupts, self._decisions)

    def _offer_settling(self, doubts: dict[str, Offer]) -> None:
        """Show `doubts` as "may have run" on their cards, each settled by a person's word."""
        offer_to_settle(self._picker, self._thread.adapter, self._thread.thread_id, doubts)

    @classmethod
    def remote(cls, url: str, *, token: str | None = None, **chat_options: Any) -> AgentChat:
        """The same chat for an AG-UI agent served at `url` (e.g. by `serve`).

        Its interrupts show in the picker and the answers go back as resume entries
        on the next request; Stop closes the stream. `token` is sent as
        `Authorization: Bearer <token>`; `chat_options` are `AgentChat`'s
        (`responder`, `renderers`). Errors from the server end the run: they show
        in the status line and are raised from the awaited handle. To go on with a
        saved remote chat: `AgentChat.load(path, RemoteAgent(url, token=token))`.
        """
        return cls(RemoteAgent(url, token=token), **chat_options)

    # -- public API --------------------------------------------------------------------------

    def send(self, text: str) -> ChatRun:
        """Send a user message; the run goes on in the background. Await the handle.

        Refused (`InterruptsOpen`) while the agent waits for an answer, and
        (`ThreadBusy`) while it is still answering.
        """
        loop = self._capture_loop()
        last = self._last_run
        if last is not None and not last.done() and not self._thread.interrupts:
            # Started but not yet running on the thread: a second message would be lost.
            raise ThreadBusy("the agent is still answering; wait for the run or stop it first")
        run_input = self._thread.user_input(text)
        self._sync_messages()
        self.set_trait("picker", None)
        return self._start(loop, self._converse(run_input, len(self._decisions)))

    def close(self) -> None:
        """Close the widget and the picker it draws (which would keep the chat alive)."""
        self._picker.close()
        super().close()
        close_layout_of(self)

    def stop(self, *, by: str = "python") -> bool:
        """Stop the agent: the run ends with the cancelled outcome. False if idle.

        While the agent waits for an answer, the open interrupts are cancelled
        (their tools never run), the conversation records that, and the run ends
        cancelled before the model speaks again.
        """
        if self._thread.running:
            return self._thread.stop()
        last = self._last_run
        if last is not None and not last.done() and not self._thread.interrupts:
            self._stop_before_start = True  # sent, but its run has not begun yet
            return True
        picker = self._shown_picker()
        if picker is None or picker.submitted or not self._thread.interrupts:
            return False
        self._stop_when_answered = True
        for interrupt in picker.open_interrupts:
            with contextlib.suppress(ValueError):  # answered meanwhile: keep that answer
                picker.cancel(interrupt.id, by=by)
        return True

    @property
    def last_run(self) -> ChatRun | None:
        """The handle of the latest run (also one started by answering a loaded chat)."""
        return self._last_run

    @property
    def thread(self) -> ConversationThread:
        """The conversation: messages, open interrupts, every run's events."""
        return self._thread

    @property
    def events(self) -> list[list[BaseEvent]]:
        """The AG-UI events of each run, oldest run first."""
        return [list(run.events) for run in self._thread.runs]

    @property
    def interrupts(self) -> list[Interrupt]:
        """The interrupts waiting for an answer."""
        return list(self._thread.interrupts)

    @property
    def decisions(self) -> list[Decision]:
        """One record per answered interrupt: when, tool, arguments, verdict, payload, who."""
        return list(self._decisions)

    def decisions_frame(self) -> Any:
        """`decisions` as a pandas DataFrame."""
        return decisions_frame(self._decisions)

    def save_decisions(self, path: str | pathlib.Path) -> pathlib.Path:
        """Write the decisions for `responders.replay(path)` (and for people)."""
        return save_decisions(self._decisions, path)

    @property
    def text(self) -> str:
        """The agent's last reply."""
        return last_reply(self._thread.messages)

    def save(self, path: str | pathlib.Path) -> pathlib.Path:
        """Write the conversation and its open interrupts as JSON (not while a run is going)."""
        if self._thread.running:
            raise ThreadBusy("a run is going: await it or stop it before saving")
        document = {
            "format": SAVE_FORMAT,
            "threadId": self._thread.thread_id,
            "messages": messages_to_wire(self._thread.messages),
            "interrupts": [to_wire(i) for i in self._thread.interrupts],
            "decisions": [vars(d) for d in self._decisions],
        }
        target = pathlib.Path(path)
        target.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
        return target

    @classmethod
    def load(cls, path: str | pathlib.Path, agent: Any, **options: Any) -> AgentChat:
        """A chat from `save(path)`, for the same agent; open interrupts ask again.

        A save is input like any other: a file whose open calls are not what their
        interrupts show (edited arguments or tool) raises `CallMismatch`, naming the
        call, and nothing is loaded.
        """
        source = pathlib.Path(path)
        document = json.loads(source.read_text(encoding="utf-8"))
        if not isinstance(document, dict) or document.get("format") != SAVE_FORMAT:
            raise ValueError(f"{source} is not a saved chat (expected format {SAVE_FORMAT})")
        try:
            check_saved(
                [message_from_wire(m) for m in document.get("messages", ())],
                interrupts_from_wire(document.get("interrupts", ())),
            )
        except CallMismatch as mismatch:
            raise CallMismatch(
                f"{source}: {mismatch}",
                call_id=mismatch.call_id,
                interrupt_id=mismatch.interrupt_id,
            ) from None
        return cls(agent, _state=document, **options)

    @classmethod
    def for_thread(
        cls,
        agent: Any,
        thread_id: str,
        *,
        messages: Iterable[Mapping[str, Any]] = (),
        interrupts: Iterable[Mapping[str, Any]] = (),
        **options: Any,
    ) -> AgentChat:
        """A chat on a conversation held elsewhere (a Temporal workflow found by a new kernel,
        `TemporalAgent.waiting()`), from its messages and open interrupts, which ask again.

        Checked as a save is (`load`): open calls that are not what their interrupts show
        raise `CallMismatch`, and nothing is made.
        """
        said, asked = list(messages), list(interrupts)
        check_saved([message_from_wire(m) for m in said], interrupts_from_wire(asked))
        state = {"threadId": thread_id, "messages": said, "interrupts": asked}
        return cls(agent, _state=state, **options)

    def __repr__(self) -> str:
        lines = [f"AgentChat ({self.status})"]
        reply = last_reply(self._thread.messages)
        if reply:
            lines.append(f"Agent: {reply}")
        shown = self._shown_picker()
        if shown is not None:
            lines.append(repr(shown))
        if self.status == "error" and self.status_line:
            lines.append(self.status_line)
        return "\n".join(lines)

    # -- the conversation --------------------------------------------------------------------

    def _start(self, loop: asyncio.AbstractEventLoop, work: Awaitable[ChatResult]) -> ChatRun:
        async def main() -> ChatResult:
            return await work

        task = loop.create_task(main(), name="interrupt-widget chat")
        task.add_done_callback(_retrieve)  # the status line shows failures; no stray warning
        self._last_run = ChatRun(
            task,
            self._person_needed,
            self._attendance,
            unattended_after=self.unattended_after,
            waiting=self._waiting_for,
        )
        return self._last_run

    def _waiting_for(self) -> str:
        """What waits, for `UnattendedWait`'s message."""
        names = ", ".join(tool_name(i, self._thread.messages) for i in self._thread.interrupts)
        return f"the chat's question ({names})" if names else "the chat's question"

    async def _converse(self, first: Step, decisions_before: int) -> ChatResult:
        runs_before = len(self._thread.runs)
        self._doing = "running the agent"
        try:
            # No `settles`: a call in doubt ends the awaited run, and is offered below.
            outcome = await converse(
                first,
                run=self._step,
                ask=self._ask,
                open_interrupts=lambda: self._thread.interrupts,
            )
        except asyncio.CancelledError:
            self._thread.stop()
            raise
        except Exception as exc:  # a responder, or interrupts the picker refuses
            self._set_status("error", error_line(exc, self._doing))
            raise
        doing = self._doing
        if outcome.kind == "error":
            self._set_status("error", error_line(outcome.error, doing))
            if self._thread.interrupts:
                # A resume that failed before its calls got results (a server that went
                # away): ask again, so the answer can be given once the cause is fixed;
                # never by itself (an expired question cancelling at once would resume
                # into the same failure, again and again).
                self._open_picker(self._thread.interrupts, expire=False)
                in_doubt = outcome.code == ErrorCode.CALL_IN_DOUBT.value
                doubts = await asyncio.to_thread(self._doubts) if in_doubt else {}
                if doubts:
                    self._offer_settling(doubts)
                    self._set_status("error", f"{DOUBT_LINE}. {error_line(outcome.error, doing)}")
            raise ChatRunError.of(outcome.error or "the run failed", outcome.code)
        if outcome.kind == "cancelled":
            self._set_status("cancelled", "Stopped.")
            if self._thread.interrupts:  # stopped before its answers were taken: asked again
                self._open_picker(self._thread.interrupts, expire=False)
                doubts = await asyncio.to_thread(self._doubts)
                if doubts:  # the call ran, or may have, before the run stopped
                    self._offer_settling(doubts)
                again = "Stopped before the answers were taken: the question is open again."
                self._set_status("cancelled", f"Stopped. {DOUBT_LINE}." if doubts else again)
        else:
            self._set_status("done", "")
        return ChatResult(
            outcome=outcome.kind,
            text=last_reply(self._thread.messages),
            run_ids=tuple(r.run_id for r in self._thread.runs[runs_before:]),
            decisions=tuple(self._decisions[decisions_before:]),
        )

    async def _run(
        self, run_input: RunAgentInput, *, stop_once_answered: bool = False
    ) -> RunOutcome:
        working = "The agent is working…"
        if self.offline_for_want_of_a_key:
            working += f" ({OFFLINE_FALLBACK_NOTE})"
        self._working = working
        self._set_status("running", working)
        task = self._thread.start(
            run_input, on_event=self._stream_event, stop_once_answered=stop_once_answered
        )
        if self._stop_before_start:
            self._stop_before_start = False
            self._thread.stop()
        try:
            outcome = await task
        finally:
            self._batcher.flush()
            self._sync_messages()
            self._note_decisions()
        return outcome

    async def _resume(self, entries: list[ResumeEntry]) -> RunOutcome:
        stop, self._stop_when_answered = self._stop_when_answered, False
        try:
            # Who answered travels with each entry, so the ledger's audit can say.
            who = {d.interrupt_id: d.by for d in self._decisions}
            run_input = self._thread.resume_input(with_answerers(entries, who))
        except ResumeRefused as exc:
            self._set_status("error", error_line(exc, "resuming the run"))
            raise
        return await self._run(run_input, stop_once_answered=stop)

    def _keep_recorded(self) -> None:
        """While `INTERRUPT_WIDGET_RECORD` records the run, write its decision file again."""
        if self._recorder is not None:
            self._recorder.keep(self._recorded_as, self._decisions)

    def _note_decisions(self) -> None:
        """The decisions after a run: those a policy settled inside it, each marked with what
        came of it (ran, not run, or replayed a run)."""
        if not self._thread.runs:
            return
        self._decisions = noted(self._decisions, self._thread)
        self._keep_recorded()
        markers = last_markers(self._thread)
        replayed = [k for k, marker in markers.items() if marker.get("replayed") is True]
        if replayed:
            self._picker.note_replayed(replayed)

    async def _step(self, step: Step) -> RunOutcome:
        if isinstance(step, RunAgentInput):
            return await self._run(step)
        self._doing = "resuming the run"
        return await self._resume(step)

    async def _ask(
        self, interrupts: tuple[Interrupt, ...], _offers: Mapping[str, Offer]
    ) -> list[ResumeEntry]:
        self._doing = "asking for an answer"
        loop = asyncio.get_running_loop()
        waiter: asyncio.Future[list[ResumeEntry]] = loop.create_future()
        self._waiter = waiter
        self._open_picker(interrupts)  # before `waiting`, so a view that sees it finds the picker
        self._set_status("waiting", _waiting_line(interrupts, self._thread.messages))
        alone: asyncio.TimerHandle | None = None
        try:
            if self.responder is not None:
                self.responder.respond(self._require_picker())
            if not waiter.done():
                self._person_needed.set()
                self._attendance.asking()
                after = self.unattended_after
                if after is not None and not self._attendance.attached:
                    alone = loop.call_later(after, self._note_unattended, interrupts)
            return await waiter
        finally:
            if alone is not None:
                alone.cancel()
            self._waiter = None
            self._person_needed.clear()
            self._attendance.answered()

    def _note_unattended(self, interrupts: tuple[Interrupt, ...]) -> None:
        if self._attendance.attached:
            return
        waiting = _waiting_line(interrupts, self._thread.messages)
        self._set_status("waiting", f"{waiting}. {UNATTENDED_HINT}")
        _log.warning("AgentChat: %s %s", waiting, UNATTENDED_HINT)

    def _open_picker(
        self, interrupts: tuple[Interrupt, ...] | list[Interrupt], *, expire: bool = True
    ) -> None:
        # Refuses bad interrupts before changing anything; the conversation names their calls.
        self._picker.reset(interrupts, self._thread.messages, expire=expire)
        self._asked = frozenset(i.id for i in interrupts)
        self.set_trait("picker", self._picker)

    def _shown_picker(self) -> InterruptPicker | None:
        """The picker drawn inline, or None while nothing is asked."""
        shown = self._trait_values.get("picker")
        return shown if isinstance(shown, InterruptPicker) else None

    def _require_picker(self) -> InterruptPicker:
        picker = self._shown_picker()
        if picker is None:  # pragma: no cover - _open_picker always sets one
            raise RuntimeError("no picker is open")
        return picker

    def _let_responder_answer(self) -> None:
        picker = self._shown_picker()
        if self.responder is None or picker is None:
            return
        try:
            self.responder.respond(picker)
        except ResponderError as exc:
            self._set_status("error", error_line(exc, "answering with the responder"))

    def _on_picker_submit(self, entries: list[ResumeEntry]) -> None:
        """From the picker, on whatever thread recorded the last answer."""
        loop = self._loop
        if loop is None:
            raise RuntimeError(
                "AgentChat has no event loop to resume on: build it in a notebook cell"
            )
        if running_loop() is loop:
            self._deliver(entries)
        else:
            loop.call_soon_threadsafe(self._deliver, entries)

    def _deliver(self, entries: list[ResumeEntry]) -> None:
        picker = self._picker
        if frozenset(e.interrupt_id for e in entries) != self._asked:
            return  # answers to an earlier question, delivered after the picker was reset
        before = len(self._decisions)
        interrupts = [i for i in self._thread.interrupts if i.id in picker.answers]
        self._decisions.extend(decisions_for(interrupts, picker.answers))
        self._keep_recorded()
        waiter = self._waiter
        if waiter is not None and not waiter.done():
            waiter.set_result(entries)
        else:  # nobody waits (a loaded chat, or a responder failed earlier): resume now
            self._start(self._capture_loop(), self._converse(entries, before))

    # -- front end ---------------------------------------------------------------------------

    def _stream_event(self, event: BaseEvent) -> None:
        note = waiting_message(event)
        if note is not None:  # the run waits on something outside it: the status line says
            self.set_trait("status_line", note)
            return
        if self.status == "running" and self.status_line != self._working:  # it moved on
            self.set_trait("status_line", self._working)
        # A snapshot repeats the whole conversation; the `messages` trait carries it
        # once the run ends, so the stream to the browser skips it.
        if not isinstance(event, MessagesSnapshotEvent):
            self._batcher.push(event)

    def _to_front_end(self, content: Mapping[str, Any]) -> None:
        self._send({"method": "custom", "content": dict(content)})

    def _handle_front_end_message(self, content: Any) -> None:
        try:
            message = parse_front_end_message(content)
        except ProtocolError as exc:
            if exc.request_id is None:
                _log.warning("ignored a chat message: %s", exc)
            else:
                self._reply(PromptResult(exc.request_id, ok=False, error=str(exc)))
            return
        if isinstance(message, Attached):
            self._attendance.attach()
        elif isinstance(message, WantsCode):
            self._to_front_end(widget_code(ESM, CSS))
        elif isinstance(message, Hello):
            self._attendance.attach()  # a view is a front end too
            self._batcher.flush()
            events = self._thread.runs[-1].events if self._thread.running else []
            live = [e for e in events if not isinstance(e, MessagesSnapshotEvent)]
            self._to_front_end(events_to_wire("catchup", coalesce(live)))
        elif isinstance(message, Stop):
            self.stop(by="user")
        else:
            try:
                self.send(message.text)
            except (InterruptsOpen, ThreadBusy, ValueError, RuntimeError) as exc:
                self._reply(PromptResult(message.request_id, ok=False, error=str(exc)))
            else:
                self._reply(PromptResult(message.request_id, ok=True))

    def _reply(self, result: PromptResult) -> None:
        self._to_front_end(prompt_result_to_wire(result))

    # -- state -------------------------------------------------------------------------------

    def _set_status(self, status: str, line: str) -> None:
        with self.hold_sync():
            self.set_trait("status", status)
            self.set_trait("status_line", line)

    def _sync_messages(self) -> None:
        self.set_trait("messages", messages_to_wire(self._thread.messages))

    def _capture_loop(self) -> asyncio.AbstractEventLoop:
        loop = running_loop()
        if loop is None:
            if self._loop is None or self._loop.is_closed():
                raise RuntimeError(
                    "AgentChat runs on an event loop: call send() from a notebook cell "
                    "or from a coroutine"
                )
            return self._loop
        self._loop = loop
        return loop


DOUBT_LINE = f"A call may have run already: {SETTLE_ON_ITS_CARD}"
"""The status line while a call left in doubt waits for a person's word."""


def _retrieve(task: asyncio.Task[ChatResult]) -> None:
    if not task.cancelled():
        task.exception()


def error_line(problem: BaseException | str | None, doing: str) -> str:
    """The status line of a failure; never a bare `Error: ` (some exceptions have no text)."""
    if isinstance(problem, BaseException):
        text = str(problem).strip()
        return f"Error: {text}" if text else f"Error: {type(problem).__name__} while {doing}"
    text = (problem or "").strip()
    return f"Error: {text}" if text else f"Error: the run failed while {doing} (no message given)"


def _waiting_line(
    interrupts: tuple[Interrupt, ...] | list[Interrupt], messages: list[Message]
) -> str:
    return "Waiting for your answer: " + ", ".join(tool_name(i, messages) for i in interrupts)
