"""`answer_interruptions`: a plain SDK run's interruptions answered in a picker.

For a data scientist who already drives the Agents SDK directly
(`result = await Runner.run(agent, ...)`): the result's pending approvals are
shown in an `InterruptPicker` (or answered by a responder, on the same path as
a click), and the result's own `RunState` comes back with the answers applied,
for `await Runner.run(agent, state)`. The SDK stays the executor: approvals
and rejections are the SDK's (`approve`, `reject(rejection_message=...)`, and
its "always" choice for the rest of the run); an edit rewrites the pending
call in the state, so the guardrails see the edited call.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from ag_ui.core import Interrupt, ResumeEntry
from agents import Agent, RunResult, RunResultStreaming, RunState, ToolApprovalItem

from interrupt_widget.agui.interrupts import tool_call_interrupt
from interrupt_widget.asking import Responder
from interrupt_widget.asking import responders as _responders
from interrupt_widget.sdk.adapter import answer_fields, declared_edits
from interrupt_widget.sdk.call_results import not_run_sentence
from interrupt_widget.sdk.edits import check_edit
from interrupt_widget.sdk.paused_runs import rewrite_arguments
from interrupt_widget.widgets.picker import InterruptPicker

ALWAYS: Final = "always"
"""The answer field for the SDK's sticky choice: the same answer for this tool for the rest
of the run (`approve(item, always_approve=True)` / `reject(item, always_reject=True)`)."""

_ALWAYS_FIELD: Final = {
    "type": "boolean",
    "title": "The same for the rest of this run",
    "description": "Give this answer to every later call of this tool in this run.",
    "default": False,
}


async def answer_interruptions(
    result: RunResult | RunResultStreaming,
    responder: Responder | None = None,
    *,
    response_schemas: Mapping[str, Mapping[str, Any]] | None = None,
    renderers: Mapping[str, str] | None = None,
) -> RunState[Any, Any]:
    """The result's `RunState`, with its interruptions answered by a person or a responder.

    Shows an `InterruptPicker` for `result.interruptions` in the cell (unless a
    `responder` answers, or `INTERRUPT_WIDGET_RESPONDER` names one) and waits
    for every answer; then `await Runner.run(agent, state)` carries on. A
    streamed result must have been drained first. `response_schemas` adds answer
    fields per tool, as on `AgentChat`; `renderers` draws them.
    """
    items = list(result.interruptions)
    if not items:
        raise ValueError("the result has no interruptions to answer (it ran to the end)")
    state = result.to_state()
    agent: Agent[Any] = result.last_agent
    fields = answer_fields(_starting_agent(state, agent), response_schemas)
    interrupts = [_interrupt(item, fields) for item in items]
    picker = InterruptPicker(interrupts, renderers=renderers)
    chosen = responder if responder is not None else _responders.from_env()
    if chosen is not None:
        chosen.respond(picker)
    else:
        _display(picker)
    entries = await picker.wait()
    return await apply_answers(state, items, interrupts, entries)


@dataclass(frozen=True)
class _Answer:
    call_id: str
    approve: bool
    always: bool
    rejection: str | None


async def apply_answers(
    state: RunState[Any, Any],
    items: Sequence[ToolApprovalItem],
    interrupts: Sequence[Interrupt],
    entries: Sequence[ResumeEntry],
) -> RunState[Any, Any]:
    """`state` with `entries` (one per interrupt, as a picker gives them) applied."""
    by_id = {i.id: (item, i) for item, i in zip(items, interrupts, strict=True)}
    starting = _starting_agent(state, None)
    edits = declared_edits(starting) if starting is not None else {}
    answers: list[_Answer] = []
    rewritten: dict[str, Any] = {}
    for entry in entries:
        item, interrupt = by_id[entry.interrupt_id]
        name = item.tool_name or ""
        payload = entry.payload if entry.status == "resolved" else None
        approve = isinstance(payload, Mapping) and payload.get("approved") is True
        always = isinstance(payload, Mapping) and payload.get(ALWAYS) is True
        if approve:
            edited = check_edit(
                edits.get(name),
                arguments=item.arguments or "",
                payload=payload,
                interrupt_id=interrupt.id,
                tool_name=name,
            )
            if edited is not None:
                rewritten[item.call_id or ""] = edited
        decision = "denied" if entry.status == "resolved" else "cancelled"
        rejection = None if approve else not_run_sentence(decision, name, payload)
        answers.append(_Answer(item.call_id or "", approve, always, rejection))
    if rewritten and starting is not None:
        data = state.to_json()
        for call_id, arguments in rewritten.items():
            rewrite_arguments(data, call_id, json.dumps(arguments, ensure_ascii=False))
        state = await RunState.from_json(starting, data)
    pending = {item.call_id: item for item in state.get_interruptions()}
    for answer in answers:
        item = pending[answer.call_id]
        if answer.approve:
            state.approve(item, always_approve=answer.always)
        else:
            state.reject(item, always_reject=answer.always, rejection_message=answer.rejection)
    return state


def _interrupt(item: ToolApprovalItem, fields: Mapping[str, Mapping[str, Any]]) -> Interrupt:
    name = item.tool_name or ""
    extra = dict(fields.get(name) or {})
    extra["properties"] = {**dict(extra.get("properties", {})), ALWAYS: _ALWAYS_FIELD}
    return tool_call_interrupt(
        tool_call_id=item.call_id or "",
        tool_name=name,
        arguments=item.arguments or "",
        response_schema=extra,
        expires_at=None,
        agent_name=item.agent.name if item.agent is not None else None,
    )


def _display(widget: InterruptPicker) -> None:
    from IPython import display

    show: Callable[[object], object] = display.display
    show(widget)


def _starting_agent(state: RunState[Any, Any], fallback: Agent[Any] | None) -> Any:
    # The SDK keeps the run's first agent on the state; restoring needs that one.
    starting = state._starting_agent
    return starting if starting is not None else fallback
