"""Who gave an answer is read from its resume entry once (`Resolution.answerer`, `by`,
`identity`): the rules about people, the audit and the decision's span all use that."""

from __future__ import annotations

from typing import Any

import pytest
from ag_ui.core import (
    MessagesSnapshotEvent,
    ResumeEntry,
    RunAgentInput,
    RunFinishedEvent,
    RunFinishedInterruptOutcome,
    UserMessage,
)

from interrupt_widget import Identity, OfflineModel, OpenAIAgentsAdapter
from interrupt_widget.agui.resume import Resolution, plan_resume
from interrupt_widget.clock import now
from interrupt_widget.examples import meeting_agent

ANSWER = {"approved": True, "chosen_time": "2030-01-08T10:00:00Z", "chosen_label": "Tue"}


async def _resolution(collect: Any, status: str, metadata: dict[str, Any]) -> Resolution:
    adapter = OpenAIAgentsAdapter(meeting_agent(OfflineModel()), ledger="memory")
    ask = UserMessage(id="u1", content="Book a call with Alice about the Q3 roadmap")
    events = await collect(adapter, RunAgentInput(thread_id="t", run_id="r1", messages=[ask]))
    finished = events[-1]
    assert isinstance(finished, RunFinishedEvent)
    assert isinstance(finished.outcome, RunFinishedInterruptOutcome)
    snapshot = [e for e in events if isinstance(e, MessagesSnapshotEvent)][-1].messages
    payload = ANSWER if status == "resolved" else None
    entry = ResumeEntry(
        interrupt_id=finished.outcome.interrupts[0].id,
        status=status,
        payload=payload,
        metadata=metadata,
    )
    plan = plan_resume(snapshot, [entry], schema_for=lambda _: None, now=now())
    (resolution,) = plan.resolutions
    return resolution


@pytest.mark.parametrize("status", ["resolved", "cancelled"])
async def test_an_identity_with_roles_is_the_answerer(collect: Any, status: str) -> None:
    metadata = {"identity": {"name": "ann", "roles": ["finance"]}, "by": "ann@desk"}
    resolution = await _resolution(collect, status, metadata)
    assert resolution.answerer == Identity("ann", ("finance",))
    assert resolution.identity == "ann"
    assert resolution.by == "ann@desk"


async def test_by_alone_names_the_answerer_without_roles(collect: Any) -> None:
    resolution = await _resolution(collect, "resolved", {"by": "bob"})
    assert resolution.answerer == Identity("bob")
    assert resolution.identity is None
    assert resolution.by == "bob"


@pytest.mark.parametrize(
    "metadata",
    [{}, {"by": ""}, {"by": "   "}, {"by": 7}, {"identity": {"roles": ["x"]}}, {"identity": 3}],
)
async def test_an_entry_that_names_nobody_has_no_answerer(
    collect: Any, metadata: dict[str, Any]
) -> None:
    resolution = await _resolution(collect, "resolved", metadata)
    assert resolution.answerer is None
    assert resolution.by is None


async def test_a_long_name_is_kept_bounded(collect: Any) -> None:
    resolution = await _resolution(collect, "resolved", {"by": "x" * 5000})
    assert resolution.by == "x" * 200
    assert resolution.answerer == Identity("x" * 200)
