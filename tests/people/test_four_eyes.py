"""Four eyes in the adapter: a call under `require(approvals=2)` runs once, when two distinct
people have approved it, never before; what ran is read back from the file the tool writes.

Each answer carries who gave it (`metadata.identity`); the run's starter travels in
`forwarded_props`. Votes are kept in the ledger, so a new adapter on the same file goes on
where the last one stopped.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from ag_ui.core import (
    BaseEvent,
    Interrupt,
    Message,
    MessagesSnapshotEvent,
    ResumeEntry,
    RunAgentInput,
    RunErrorEvent,
    RunFinishedEvent,
    RunFinishedInterruptOutcome,
    RunFinishedSuccessOutcome,
    ToolMessage,
    UserMessage,
)
from agents import set_trace_processors, set_tracing_disabled
from agents.tracing import Span, Trace, TracingProcessor
from agents.tracing.processors import default_processor

from interrupt_widget import (
    SPAN_NAME,
    ErrorCode,
    OpenAIAgentsAdapter,
    Policy,
    escalate,
    require,
)
from interrupt_widget.agui.interrupts import ANSWERED_BY_EXPIRY
from interrupt_widget.identity import Identity
from interrupt_widget.policy.quorum import APPROVALS_KEY
from interrupt_widget.testing.stream_rules import assert_valid_stream
from payment_agents import PAY, payment_agent, runs_in

BIG = "send_money amount=5000 to=Bob"
SMALL = "send_money amount=42 to=Bob"
FOUR_EYES = Policy(require("send_money", approvals=2, when=lambda a: a["amount"] > 1000))
CARL = Identity("carl", ("clerk",))


class Clock:
    """A clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = datetime(2030, 1, 7, 9, 0, tzinfo=UTC)

    def __call__(self) -> datetime:
        return self.now


def adapter_for(
    runs: Path, policy: Policy, ledger: Path, clock: Clock | None = None
) -> OpenAIAgentsAdapter:
    return OpenAIAgentsAdapter(
        payment_agent(runs), policy=policy, ledger=str(ledger), clock=clock or Clock()
    )


async def run(adapter: OpenAIAgentsAdapter, request: RunAgentInput) -> list[BaseEvent]:
    events = [event async for event in adapter.run(request)]
    assert_valid_stream(events)  # a partial approval asks again as a well-formed run
    return events


def ask(text: str, starter: Identity = CARL) -> RunAgentInput:
    return RunAgentInput(
        thread_id="t1",
        run_id="r1",
        messages=[UserMessage(id="u1", content=text)],
        forwarded_props={"identity": starter.to_wire()},
        tools=[],
        context=[],
        state=None,
    )


def history(events: list[BaseEvent]) -> list[Message]:
    return [e for e in events if isinstance(e, MessagesSnapshotEvent)][-1].messages


def waiting(events: list[BaseEvent]) -> Interrupt:
    finished = events[-1]
    assert isinstance(finished, RunFinishedEvent), finished
    assert isinstance(finished.outcome, RunFinishedInterruptOutcome), finished.outcome
    [interrupt] = finished.outcome.interrupts
    return interrupt


def answer(
    events: list[BaseEvent], who: Identity, approved: bool = True, run_id: str = "r2"
) -> RunAgentInput:
    interrupt = waiting(events)
    payload: dict[str, Any] = {"approved": approved}
    entry = ResumeEntry(
        interrupt_id=interrupt.id,
        status="resolved",
        payload=payload,
        metadata={"by": "python", "identity": who.to_wire()},
    )
    return RunAgentInput(
        thread_id="t1",
        run_id=run_id,
        messages=history(events),
        resume=[entry],
        tools=[],
        context=[],
        state=None,
    )


def error_of(events: list[BaseEvent]) -> RunErrorEvent:
    assert isinstance(events[-1], RunErrorEvent), events[-1]
    return events[-1]


ANN, BOB = Identity("ann"), Identity("bob")


async def test_one_approval_of_two_runs_nothing_and_asks_again_saying_who_gave_it(
    tmp_path: Path,
) -> None:
    runs = tmp_path / "runs.jsonl"
    adapter = adapter_for(runs, FOUR_EYES, tmp_path / "l.db")
    first = await run(adapter, ask(BIG))
    asked = waiting(first).metadata or {}
    assert asked[APPROVALS_KEY]["needed"] == 2
    assert asked[APPROVALS_KEY]["given"] == []
    assert asked[APPROVALS_KEY]["started_by"] == "carl"

    second = await run(adapter, answer(first, ANN))
    still = (waiting(second).metadata or {})[APPROVALS_KEY]
    assert [v["name"] for v in still["given"]] == ["ann"]
    assert runs_in(runs) == []  # quorum not met: 0 runs

    third = await run(adapter, answer(second, BOB, run_id="r3"))
    assert isinstance(third[-1], RunFinishedEvent)
    assert isinstance(third[-1].outcome, RunFinishedSuccessOutcome)
    assert runs_in(runs) == [{"tool": "send_money", "amount": 5000.0, "to": "Bob"}]

    # Who decided is in the audit trail, the approvers by name.
    [entry] = [e for e in adapter.ledger.audit() if e.tool == "send_money"]
    assert entry.by == "ann, bob"

    # The same resume again: the call ran once, and runs no more.
    again = await run(adapter, answer(second, BOB, run_id="r4"))
    assert not isinstance(again[-1], RunErrorEvent)
    assert len(runs_in(runs)) == 1


async def test_a_call_no_rule_about_people_covers_runs_on_one_approval(tmp_path: Path) -> None:
    runs = tmp_path / "runs.jsonl"
    adapter = adapter_for(runs, FOUR_EYES, tmp_path / "l.db")
    first = await run(adapter, ask(SMALL))
    assert APPROVALS_KEY not in (waiting(first).metadata or {})
    await run(adapter, answer(first, ANN))
    assert len(runs_in(runs)) == 1


async def test_the_same_person_twice_is_one_approval(tmp_path: Path) -> None:
    runs = tmp_path / "runs.jsonl"
    adapter = adapter_for(runs, FOUR_EYES, tmp_path / "l.db")
    first = await run(adapter, ask(BIG))
    second = await run(adapter, answer(first, ANN))
    third = await run(adapter, answer(second, ANN, run_id="r3"))
    given = (waiting(third).metadata or {})[APPROVALS_KEY]["given"]
    assert [v["name"] for v in given] == ["ann"]
    assert runs_in(runs) == []


async def test_the_run_s_starter_may_not_approve_its_own_call(tmp_path: Path) -> None:
    runs = tmp_path / "runs.jsonl"
    adapter = adapter_for(runs, FOUR_EYES, tmp_path / "l.db")
    first = await run(adapter, ask(BIG))
    refused = error_of(await run(adapter, answer(first, CARL)))
    assert refused.code == ErrorCode.NOT_ALLOWED_TO_ANSWER
    assert "carl started this run" in refused.message
    # Nothing was kept: ann and bob still make the quorum, and the call runs once.
    second = await run(adapter, answer(first, ANN, run_id="r3"))
    await run(adapter, answer(second, BOB, run_id="r4"))
    assert len(runs_in(runs)) == 1


async def test_a_rule_may_let_the_starter_approve(tmp_path: Path) -> None:
    runs = tmp_path / "runs.jsonl"
    policy = Policy(require("send_money", approvals=1, self_approval=True))
    adapter = adapter_for(runs, policy, tmp_path / "l.db")
    first = await run(adapter, ask(BIG))
    await run(adapter, answer(first, CARL))
    assert len(runs_in(runs)) == 1


async def test_one_denial_vetoes_and_the_call_never_runs(tmp_path: Path) -> None:
    runs = tmp_path / "runs.jsonl"
    adapter = adapter_for(runs, FOUR_EYES, tmp_path / "l.db")
    first = await run(adapter, ask(BIG))
    second = await run(adapter, answer(first, ANN))
    third = await run(adapter, answer(second, BOB, approved=False, run_id="r3"))
    assert isinstance(third[-1], RunFinishedEvent)
    assert isinstance(third[-1].outcome, RunFinishedSuccessOutcome)
    late = await run(adapter, answer(second, Identity("dan"), run_id="r4"))
    assert not isinstance(late[-1], RunErrorEvent)
    assert runs_in(runs) == []


async def test_with_two_vetoes_needed_one_denial_only_counts(tmp_path: Path) -> None:
    runs = tmp_path / "runs.jsonl"
    policy = Policy(require("send_money", approvals=2, vetoes=2))
    adapter = adapter_for(runs, policy, tmp_path / "l.db")
    first = await run(adapter, ask(BIG))
    second = await run(adapter, answer(first, ANN, approved=False))
    counted = (waiting(second).metadata or {})[APPROVALS_KEY]
    assert [v["name"] for v in counted["denied"]] == ["ann"]
    third = await run(adapter, answer(second, BOB, run_id="r3"))
    fourth = await run(adapter, answer(third, Identity("dan"), run_id="r4"))
    assert isinstance(fourth[-1], RunFinishedEvent)
    assert len(runs_in(runs)) == 1


async def test_roles_decide_who_may_approve(tmp_path: Path) -> None:
    runs = tmp_path / "runs.jsonl"
    policy = Policy(require("send_money", approvals=2, roles=["finance"]))
    adapter = adapter_for(runs, policy, tmp_path / "l.db")
    first = await run(adapter, ask(BIG))
    refused = error_of(await run(adapter, answer(first, ANN)))
    assert refused.code == ErrorCode.NOT_ALLOWED_TO_ANSWER
    assert "needs finance" in refused.message
    second = await run(adapter, answer(first, Identity("ann", ("finance",)), run_id="r3"))
    await run(adapter, answer(second, Identity("bob", ("finance",)), run_id="r4"))
    assert len(runs_in(runs)) == 1


async def test_an_unanswered_question_escalates_then_lapses_on_a_fake_clock(
    tmp_path: Path,
) -> None:
    runs = tmp_path / "runs.jsonl"
    clock = Clock()
    policy = Policy(
        require("send_money", approvals=1, roles=["clerk-lead"]),
        escalate("send_money", after=timedelta(hours=1), to="cfo", then="deny"),
    )
    adapter = adapter_for(runs, policy, tmp_path / "l.db", clock)
    first = await run(adapter, ask(BIG))
    cfo = Identity("cleo", ("cfo",))
    early = error_of(await run(adapter, answer(first, cfo)))
    assert early.code == ErrorCode.NOT_ALLOWED_TO_ANSWER
    assert "escalates to cfo" in early.message

    clock.now += timedelta(hours=1, minutes=1)
    await run(adapter, answer(first, cfo, run_id="r3"))
    assert len(runs_in(runs)) == 1


async def test_a_question_nobody_answers_lapses_into_its_then(tmp_path: Path) -> None:
    runs = tmp_path / "runs.jsonl"
    clock = Clock()
    policy = Policy(
        require("send_money", approvals=2),
        escalate("send_money", after=timedelta(minutes=30), to="cfo", then="deny"),
    )
    adapter = adapter_for(runs, policy, tmp_path / "l.db", clock)
    first = await run(adapter, ask(BIG))
    clock.now += timedelta(hours=1, seconds=1)
    late = await run(adapter, answer(first, ANN))
    assert isinstance(late[-1], RunFinishedEvent)
    assert isinstance(late[-1].outcome, RunFinishedSuccessOutcome)
    assert runs_in(runs) == []


async def test_votes_survive_a_new_adapter_on_the_same_ledger(tmp_path: Path) -> None:
    runs = tmp_path / "runs.jsonl"
    ledger = tmp_path / "l.db"
    first = await run(adapter_for(runs, FOUR_EYES, ledger), ask(BIG))
    second = await run(adapter_for(runs, FOUR_EYES, ledger), answer(first, ANN))
    await run(adapter_for(runs, FOUR_EYES, ledger), answer(second, BOB, run_id="r3"))
    assert len(runs_in(runs)) == 1


async def test_an_answer_that_says_nobody_is_refused(tmp_path: Path) -> None:
    runs = tmp_path / "runs.jsonl"
    adapter = adapter_for(runs, FOUR_EYES, tmp_path / "l.db")
    first = await run(adapter, ask(BIG))
    request = answer(first, ANN)
    assert request.resume is not None
    bare = [e.model_copy(update={"metadata": None}) for e in request.resume]
    refused = error_of(await run(adapter, request.model_copy(update={"resume": bare})))
    assert refused.code == ErrorCode.NOT_ALLOWED_TO_ANSWER
    assert runs_in(runs) == []


class DecisionSpans(TracingProcessor):
    """The decision spans the SDK's tracing ends (`interrupt_widget.decision`)."""

    def __init__(self) -> None:
        self.found: list[dict[str, Any]] = []

    def on_span_end(self, span: Span[Any]) -> None:
        exported = span.export() or {}
        data = exported.get("span_data", {})
        if data.get("type") == "custom" and data.get("name") == SPAN_NAME:
            self.found.append(data["data"])

    def on_trace_start(self, trace: Trace) -> None: ...
    def on_trace_end(self, trace: Trace) -> None: ...
    def on_span_start(self, span: Span[Any]) -> None: ...
    def shutdown(self) -> None: ...
    def force_flush(self) -> None: ...


@pytest.fixture
def decision_spans() -> Iterator[DecisionSpans]:
    recording = DecisionSpans()
    set_trace_processors([recording])
    set_tracing_disabled(False)
    try:
        yield recording
    finally:
        set_tracing_disabled(True)
        set_trace_processors([default_processor()])


async def test_the_decision_span_names_the_approvers_and_the_person_who_answered(
    tmp_path: Path, decision_spans: DecisionSpans
) -> None:
    adapter = adapter_for(tmp_path / "runs.jsonl", FOUR_EYES, tmp_path / "l.db")
    first = await run(adapter, ask(BIG))
    second = await run(adapter, answer(first, ANN))
    await run(adapter, answer(second, BOB, run_id="r3"))
    [span] = decision_spans.found
    assert (span["verdict"], span["by"], span["identity"]) == ("approved", "ann, bob", "bob")


async def test_a_question_an_escalation_cancels_expires_then_and_a_cancel_runs_nothing(
    tmp_path: Path,
) -> None:
    runs = tmp_path / "runs.jsonl"
    clock = Clock()
    policy = Policy(
        require("send_money", approvals=2),
        escalate("send_money", after=timedelta(minutes=30), to="cfo", then="cancel"),
    )
    adapter = adapter_for(runs, policy, tmp_path / "l.db", clock)
    first = await run(adapter, ask(BIG))
    asked = waiting(first)
    assert asked.expires_at == "2030-01-07T10:00:00Z"  # asked at 09:00, 30 + 30 minutes
    assert (asked.metadata or {})[APPROVALS_KEY]["lapses_at"] == asked.expires_at
    clock.now += timedelta(hours=1, seconds=1)
    late = await run(adapter, answer(first, ANN))
    assert isinstance(late[-1], RunFinishedEvent)
    assert isinstance(late[-1].outcome, RunFinishedSuccessOutcome)
    assert runs_in(runs) == []


async def test_a_call_decided_beside_one_that_waits_for_people_runs_now_the_other_waits(
    tmp_path: Path,
) -> None:
    runs = tmp_path / "runs.jsonl"
    adapter = adapter_for(runs, FOUR_EYES, tmp_path / "l.db")
    first = await run(adapter, ask(f"{BIG} and pay amount=250 to=ACME-1 memo=rent"))
    finished = first[-1]
    assert isinstance(finished, RunFinishedEvent)
    assert isinstance(finished.outcome, RunFinishedInterruptOutcome)
    asked = {(i.metadata or {})["tool_name"]: i for i in finished.outcome.interrupts}
    entries = [
        ResumeEntry(
            interrupt_id=i.id,
            status="resolved",
            payload={"approved": True},
            metadata={"identity": ANN.to_wire()},
        )
        for i in asked.values()
    ]
    second = await run(
        adapter,
        RunAgentInput(
            thread_id="t1",
            run_id="r2",
            messages=history(first),
            resume=entries,
            tools=[],
            context=[],
            state=None,
        ),
    )
    # The ordinary call ran; the one over the limit waits for a second person, asked again.
    assert [r["tool"] for r in runs_in(runs)] == ["pay"]
    still = waiting(second)
    assert still.id == asked["send_money"].id
    assert [v["name"] for v in (still.metadata or {})[APPROVALS_KEY]["given"]] == ["ann"]
    calls = [c.function.name for m in history(second) for c in getattr(m, "tool_calls", None) or []]
    assert sorted(calls) == ["pay", "send_money"]  # asked again, never shown twice
    third = await run(adapter, answer(second, BOB, run_id="r3"))
    assert isinstance(third[-1], RunFinishedEvent)
    assert isinstance(third[-1].outcome, RunFinishedSuccessOutcome)
    assert sorted(r["tool"] for r in runs_in(runs)) == ["pay", "send_money"]


def test_a_denial_kept_before_the_quorum_stands_whatever_votes_came_after() -> None:
    # Two answers that raced: every request reads all three votes, in the order they were
    # kept. Bob's denial came second, before the quorum: the call is denied, not outvoted.
    from datetime import UTC, datetime

    from interrupt_widget.identity import Identity
    from interrupt_widget.ledger.votes import Vote
    from interrupt_widget.policy.quorum import Quorum, admit

    now = datetime(2030, 1, 1, tzinfo=UTC)
    quorum = Quorum(needed=2, vetoes=1)
    ann, bob = Vote("ann", (), True, "t1"), Vote("bob", (), False, "t2")
    carl = Vote("carl", (), True, "t3")
    assert admit(quorum, [ann, bob, carl], Identity("dan"), True, now).outcome == "denied"
    assert admit(quorum, [ann, bob], Identity("carl"), True, now).outcome == "denied"
    # The quorum reached first stands too: a denial after it changes nothing.
    assert admit(quorum, [ann, carl], Identity("bob"), False, now).outcome == "approved"


async def test_an_edit_that_brings_a_call_under_a_four_eyes_rule_is_refused(
    tmp_path: Path,
) -> None:
    # 250 needs one approval; edited to 5000 it would need two: one person's edit and
    # approval never runs it.
    runs = tmp_path / "runs.jsonl"
    policy = Policy(require("pay", approvals=2, when=lambda a: a["amount"] > 1000))
    adapter = adapter_for(runs, policy, tmp_path / "l.db")
    first = await run(adapter, ask(PAY))
    assert APPROVALS_KEY not in (waiting(first).metadata or {})
    request = answer(first, ANN)
    (entry,) = request.resume or []
    edited = {"approved": True, "editedArgs": {"amount": 5000.0, "to": "ACME-1", "memo": "rent"}}
    request = request.model_copy(update={"resume": [entry.model_copy(update={"payload": edited})]})
    refused = error_of(await run(adapter, request))
    assert refused.code == "not_allowed_to_answer", refused.message
    assert "needs 2 approvals" in refused.message
    assert runs_in(runs) == []


async def test_an_escalation_that_denies_expires_then_and_the_expiry_denies_the_call(
    tmp_path: Path,
) -> None:
    # `then="deny"` acts on time as `then="cancel"` does: the question expires when it lapses,
    # the picker's expiry (or a Temporal workflow's timer) cancels it then, and that cancel
    # settles the call as denied, with the reason, though nobody answered it.
    runs = tmp_path / "runs.jsonl"
    clock = Clock()
    policy = Policy(
        require("send_money", approvals=2),
        escalate("send_money", after=timedelta(minutes=30), to="cfo", then="deny"),
    )
    adapter = adapter_for(runs, policy, tmp_path / "l.db", clock)
    first = await run(adapter, ask(BIG))
    asked = waiting(first)
    assert asked.expires_at == "2030-01-07T10:00:00Z"  # asked at 09:00, 30 + 30 minutes
    clock.now += timedelta(hours=1, seconds=1)
    expiry = ResumeEntry(
        interrupt_id=asked.id, status="cancelled", metadata={"by": ANSWERED_BY_EXPIRY}
    )
    request = answer(first, ANN).model_copy(update={"resume": [expiry]})
    done = await run(adapter, request)
    assert isinstance(done[-1], RunFinishedEvent)
    assert isinstance(done[-1].outcome, RunFinishedSuccessOutcome)
    [told] = [m for m in history(done) if isinstance(m, ToolMessage)]
    assert "did not approve send_money" in told.content
    assert "nobody answered by 2030-01-07T10:00:00Z; the call is denied" in told.content
    assert runs_in(runs) == []
