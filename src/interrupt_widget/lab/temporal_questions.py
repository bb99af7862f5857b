"""Temporal conversations in the server's sidebar, listed and answered with no kernel at all.

For each Temporal agent the server's configuration names, the server looks through
Temporal's visibility every `REFRESH` seconds for the conversations waiting on an
answer, and holds each one's open interrupts in an `OpenQuestions`, the same object a
picker holds in a kernel: an answer is checked, admitted for the signed-in person and
recorded once there, and once every open question of the conversation is answered
its resume goes to the workflow (whose update validator checks it again before
anything runs on a worker).
"""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Final

from ag_ui.core import Message, RunAgentInput, RunErrorEvent

from interrupt_widget.agui.interrupts import tool_arguments, tool_name, verdict
from interrupt_widget.agui.wire import interrupts_from_wire, message_from_wire
from interrupt_widget.asking import OpenQuestions
from interrupt_widget.batch.row import WaitingQuestion
from interrupt_widget.errors import AnswerRefused
from interrupt_widget.identity import IDENTITY_KEY, Identity
from interrupt_widget.lab.board import SIDEBAR_BY
from interrupt_widget.temporal import TemporalAgent
from interrupt_widget.temporal.shapes import OpenConversation
from interrupt_widget.widgets.inbox_protocol import AnswerOutcome, for_viewer
from interrupt_widget.widgets.inbox_sources import wire_item

PREFIX: Final = "temporal/"
"""How the ids of Temporal questions begin on the sidebar."""
REFRESH: Final = 1.0
"""Seconds between two looks through Temporal's visibility."""
ANSWER_WAIT: Final = 30.0
"""Seconds an answer that completed a conversation's set waits for the run it resumed to say
how it went; a run still going then (a long tool) was taken, and the answer says so."""

_log = logging.getLogger(__name__)


@dataclass
class _Held:
    """One waiting conversation and the questions the server holds for it."""

    agent: TemporalAgent
    conversation: OpenConversation
    messages: list[Message]
    questions: OpenQuestions
    since: float
    submitted: asyncio.Future[str] = field(default_factory=lambda: asyncio.Future())
    """The workflow's word on the resume: "" when it took it, else why not."""
    resuming: asyncio.Task[None] | None = None


class TemporalQuestions:
    """The waiting questions of some Temporal agents (see the module docs)."""

    def __init__(self, agents: Iterable[TemporalAgent]) -> None:
        self.agents = list(agents)
        self.generation = 0
        """Grows whenever the list changes (the sidebar's long poll reads it)."""
        self._held: dict[str, _Held] = {}

    async def run(self) -> None:
        """Look through visibility every `REFRESH` seconds, for ever."""
        while True:
            try:
                await self.refresh()
            except Exception:  # Temporal unreachable for a moment: look again later
                _log.warning("Temporal's waiting conversations could not be read", exc_info=True)
            await asyncio.sleep(REFRESH)

    async def refresh(self) -> None:
        """Hold every conversation waiting now; drop those that no longer wait."""
        found: dict[str, tuple[TemporalAgent, OpenConversation]] = {}
        for agent in self.agents:
            for conversation in await agent.waiting(within=0):
                found[conversation.thread_id] = (agent, conversation)
        changed = False
        for thread_id in [t for t in self._held if t not in found]:
            del self._held[thread_id]
            changed = True
        for thread_id, (agent, conversation) in found.items():
            held = self._held.get(thread_id)
            if held is None or held.conversation.interrupts != conversation.interrupts:
                self._held[thread_id] = self._hold(agent, conversation)
                changed = True
        if changed:
            self.generation += 1

    def _hold(self, agent: TemporalAgent, conversation: OpenConversation) -> _Held:
        messages = [message_from_wire(m) for m in conversation.messages]
        loop = asyncio.get_running_loop()
        held: _Held

        def submit(entries: list[Any]) -> None:
            held.resuming = loop.create_task(self._resume(held, entries))

        questions = OpenQuestions(
            interrupts_from_wire(conversation.interrupts), messages=messages, on_submit=submit
        )
        held = _Held(agent, conversation, messages, questions, time.time())
        return held

    async def _resume(self, held: _Held, entries: list[Any]) -> None:
        conversation = held.conversation
        run = RunAgentInput(
            thread_id=conversation.thread_id,
            run_id=f"run-{uuid.uuid4().hex}",
            messages=held.messages,
            tools=[],
            context=[],
            resume=entries,
            forwarded_props={IDENTITY_KEY: _identity_of(entries)},
        )
        problem = ""
        try:
            async for event in held.agent.run(run):
                if isinstance(event, RunErrorEvent):
                    problem = event.message
        except Exception as exc:  # the workflow could not be reached: say so on the card
            problem = f"the answer could not reach Temporal: {exc}"
        if problem and self._held.get(conversation.thread_id) is held:
            # Its questions took the answers and ask no more: the next look holds the
            # conversation afresh, as the workflow has it (still waiting, or answered).
            del self._held[conversation.thread_id]
        if not held.submitted.done():
            held.submitted.set_result(problem)
        self.generation += 1

    def holds(self, question: str) -> bool:
        """Whether `question` is one of these (a Temporal question's id)."""
        return question.startswith(PREFIX)

    def items(self, person: Identity, now: datetime) -> list[dict[str, Any]]:
        """The sidebar's items for `person`."""
        found = []
        for thread_id, held in self._held.items():
            refusals = held.questions.refusals
            for interrupt in held.questions.open_interrupts:
                refused = refusals.get(interrupt.id)
                waiting = WaitingQuestion(
                    key=thread_id,
                    interrupt=interrupt,
                    tool=tool_name(interrupt, held.messages),
                    arguments=tool_arguments(interrupt),
                    since=held.since,
                    expires_at=interrupt.expires_at,
                    error="" if refused is None else refused.message,
                    run_link=held.agent.run_link(thread_id) or "",
                )
                item = wire_item(f"{PREFIX}{thread_id}/{interrupt.id}", waiting)
                item.update(for_viewer(interrupt.metadata, person, now))
                item["where"] = {
                    "label": f"temporal {thread_id}",
                    "path": None,
                    "cellId": None,
                    "state": "remote",
                    "source": "temporal",
                    "note": "",
                }
                item["askedBy"] = None
                found.append(item)
        return found

    async def answer(
        self, person: Identity, question: str, status: str, payload: Any
    ) -> AnswerOutcome:
        """`person`'s answer to one Temporal question, through the conversation's questions."""
        thread_id, _, interrupt_id = question.removeprefix(PREFIX).rpartition("/")
        held = self._held.get(thread_id)
        if held is None:
            return AnswerOutcome(question, False, error=f"unknown question {question!r}: answered "
                           "elsewhere, finished, or never asked; nothing was changed")  # fmt: skip
        by = f"{SIDEBAR_BY}{person.name}"
        try:
            if status == "cancelled":
                held.questions.answer(interrupt_id, "cancelled", None, by=by, identity=person)
            else:
                held.questions.answer(interrupt_id, "resolved", payload, by=by, identity=person)
        except AnswerRefused as exc:
            return AnswerOutcome(question, False, error=str(exc), errors=list(exc.errors))
        if held.questions.entries is not None:  # this answer completed the set: it was sent
            try:
                problem = await asyncio.wait_for(asyncio.shield(held.submitted), ANSWER_WAIT)
            except TimeoutError:  # taken, and the run it resumed goes on (a long tool)
                problem = ""
            if problem:
                return AnswerOutcome(question, False, error=problem)
        return AnswerOutcome(question, True, verdict(status, payload, by))


def _identity_of(entries: list[Any]) -> Any:
    """Who gave the last answer: the resume is started in their name."""
    for entry in reversed(entries):
        metadata = entry.metadata
        if isinstance(metadata, Mapping) and metadata.get(IDENTITY_KEY):
            return metadata[IDENTITY_KEY]
    return None
