"""Edit before approve: the edit travels in the answer, the tool runs once with it."""

from __future__ import annotations

import json
import pathlib
from typing import Any

import httpx
import pytest
from ag_ui.core import (
    BaseEvent,
    Interrupt,
    MessagesSnapshotEvent,
    ResumeEntry,
    RunAgentInput,
    RunErrorEvent,
    RunFinishedEvent,
    RunFinishedInterruptOutcome,
    ToolCallResultEvent,
    ToolMessage,
    UserMessage,
)
from agents import function_tool

from interrupt_widget import (
    AgentChat,
    ErrorCode,
    OfflineModel,
    OpenAIAgentsAdapter,
    editable,
    responders,
)
from interrupt_widget.agui.interrupts import gated_calls, interrupt_record
from interrupt_widget.errors import AdapterError
from interrupt_widget.examples import bank_agent, meeting_agent, read_journal
from interrupt_widget.http.app import asgi_app
from interrupt_widget.http.client import AGUIClient
from interrupt_widget.sdk.edits import check_edit, declared_edit

TRANSFER = "transfer_funds amount=250 to_account=ACME-1 memo=rent"
PROPOSAL = {"amount": 250.0, "to_account": "ACME-1", "memo": "rent"}


def edited(**changes: Any) -> dict[str, Any]:
    """An approval whose `editedArgs` is the proposal with `changes`, in full."""
    return {"approved": True, "editedArgs": {**PROPOSAL, **changes}}


def ask(text: str) -> RunAgentInput:
    return RunAgentInput(thread_id="t1", run_id="r1", messages=[UserMessage(id="u1", content=text)])


def snapshot(events: list[BaseEvent]) -> list[Any]:
    return [e for e in events if isinstance(e, MessagesSnapshotEvent)][-1].messages


def the_interrupt(events: list[BaseEvent]) -> Interrupt:
    finished = events[-1]
    assert isinstance(finished, RunFinishedEvent)
    assert isinstance(finished.outcome, RunFinishedInterruptOutcome)
    (interrupt,) = finished.outcome.interrupts
    return interrupt


def answer(events: list[BaseEvent], payload: dict[str, Any], run: str = "r2") -> RunAgentInput:
    entry = ResumeEntry(interrupt_id=the_interrupt(events).id, status="resolved", payload=payload)
    return RunAgentInput(thread_id="t1", run_id=run, messages=snapshot(events), resume=[entry])


@pytest.fixture
def journal(tmp_path: pathlib.Path) -> pathlib.Path:
    return tmp_path / "transfers.jsonl"


@pytest.fixture
def adapter(journal: pathlib.Path) -> OpenAIAgentsAdapter:
    return OpenAIAgentsAdapter(bank_agent(OfflineModel(), journal=journal))


async def test_the_interrupt_offers_edited_args_with_the_fixed_parameters_read_only(
    adapter: OpenAIAgentsAdapter, collect: Any
) -> None:
    interrupt = the_interrupt(await collect(adapter, ask(TRANSFER)))
    assert interrupt.metadata is not None
    assert interrupt.metadata["tool_input"] == PROPOSAL
    schema = interrupt.response_schema or {}
    edited = schema["properties"]["editedArgs"]
    assert set(edited["properties"]) == {"amount", "to_account", "memo"}
    assert edited["properties"]["amount"]["type"] == "number"
    assert edited["properties"]["to_account"]["readOnly"] is True
    assert "readOnly" not in edited["properties"]["amount"]
    assert edited["additionalProperties"] is False
    assert "editedArgs" not in schema.get("required", [])
    assert "arguments" not in schema["properties"]


async def test_an_edited_approval_runs_once_with_the_edit_and_keeps_the_proposal(
    adapter: OpenAIAgentsAdapter, collect: Any, journal: pathlib.Path
) -> None:
    paused = await collect(adapter, ask(TRANSFER))
    record_before = interrupt_record(gated_calls(snapshot(paused))[0].call)
    edit = {"approved": True, "editedArgs": {**PROPOSAL, "amount": 90}}
    resumed = await collect(adapter, answer(paused, edit))

    assert [(t["amount"], t["to_account"], t["memo"]) for t in read_journal(journal)] == [
        (90.0, "ACME-1", "rent")
    ]
    (result,) = [e for e in resumed if isinstance(e, ToolCallResultEvent)]
    assert "edited the arguments" in result.content
    assert '"amount": 90' in result.content
    assert "Sent 90.00 to ACME-1" in result.content
    marker = (result.metadata or {})["interrupt"]
    assert marker["decision"] == "approved"
    assert marker["editedArgs"] == {"amount": 90, "to_account": "ACME-1", "memo": "rent"}
    # The proposal is never rewritten: the call and its interrupt record are as the model made them.
    gated = gated_calls(snapshot(resumed))[0]
    assert json.loads(gated.call.function.arguments) == PROPOSAL
    assert interrupt_record(gated.call) == record_before

    # The same resume again (a replay, another view): the edit does not run twice.
    again = await collect(adapter, answer(paused, edit, run="r3"))
    assert len(read_journal(journal)) == 1
    (replayed,) = [e for e in again if isinstance(e, ToolCallResultEvent)]
    assert replayed.content == result.content


async def test_an_approval_without_an_edit_runs_the_proposal(
    adapter: OpenAIAgentsAdapter, collect: Any, journal: pathlib.Path
) -> None:
    paused = await collect(adapter, ask(TRANSFER))
    resumed = await collect(adapter, answer(paused, {"approved": True}))
    assert [t["amount"] for t in read_journal(journal)] == [250.0]
    (result,) = [e for e in resumed if isinstance(e, ToolCallResultEvent)]
    assert "edited" not in result.content
    assert "editedArgs" not in (result.metadata or {})["interrupt"]


@pytest.mark.parametrize(
    ("payload", "code", "words"),
    [
        (edited(to_account="MALLORY"), "edit_outside_fields", "'to_account'"),
        ({"approved": True, "editedArgs": {"amount": 5}}, "edit_outside_fields", "in full"),
        (edited(amount="lots"), "invalid_edit", "amount"),
        (edited(amount=5, extra=1), "invalid_edit", "unknown field 'extra'"),
        ({"approved": True, "editedArgs": [1, 2]}, "invalid_edit", "not an object"),
        ({"approved": False, "editedArgs": {**PROPOSAL, "amount": 5}}, "invalid_edit", "without"),
        ({"approved": True, "arguments": {**PROPOSAL, "amount": 5}}, "invalid_edit", "editedArgs"),
    ],
    ids=["fixed-field", "partial", "type", "extra", "not-object", "denied", "old-name"],
)
async def test_a_refused_edit_ends_in_run_error_and_runs_nothing(
    adapter: OpenAIAgentsAdapter,
    collect: Any,
    journal: pathlib.Path,
    payload: dict[str, Any],
    code: str,
    words: str,
) -> None:
    paused = await collect(adapter, ask(TRANSFER))
    events = await collect(adapter, answer(paused, payload))
    error = events[-1]
    assert isinstance(error, RunErrorEvent)
    assert error.code == code
    assert words in error.message
    assert "transfer_funds" in error.message
    assert not [e for e in events if isinstance(e, ToolCallResultEvent)]
    assert read_journal(journal) == []


async def test_an_edit_to_a_tool_that_is_not_editable_is_refused(collect: Any) -> None:
    agent = meeting_agent(OfflineModel())
    adapter = OpenAIAgentsAdapter(agent)
    paused = await collect(adapter, ask("Book a call with Alice about the Q3 roadmap"))
    payload = {
        "approved": True,
        "chosen_time": "2030-01-08T10:00:00Z",
        "chosen_label": "Tue",
        "editedArgs": {"topic": "Q3 roadmap", "attendee": "Mallory"},
    }
    events = await collect(adapter, answer(paused, payload))
    error = events[-1]
    assert isinstance(error, RunErrorEvent)
    assert error.code == ErrorCode.EDIT_NOT_ALLOWED
    assert agent.executions.count() == 0


def test_editable_refuses_an_ungated_tool_and_unknown_fields() -> None:
    @function_tool
    def free(amount: float) -> str:
        """Runs without asking."""
        return "ok"

    @function_tool(needs_approval=True)
    def gated(amount: float) -> str:
        """Asks first."""
        return "ok"

    with pytest.raises(ValueError, match="does not need approval"):
        editable(free)
    with pytest.raises(ValueError, match="no parameter 'amonut'"):
        editable(gated, fields=["amonut"])
    with pytest.raises(TypeError):
        editable("gated")  # type: ignore[arg-type]
    assert editable(gated) is gated


async def test_a_responder_edits_and_decisions_record_proposal_and_execution(
    journal: pathlib.Path, tmp_path: pathlib.Path
) -> None:
    replacement = {**PROPOSAL, "amount": 75.5, "memo": "rent, March"}
    edit = {"approved": True, "editedArgs": dict(sorted(replacement.items()))}  # as a file sorts it
    chat = AgentChat(
        bank_agent(OfflineModel(), journal=journal),
        responder=responders.answers({"transfer_funds": edit}),
    )
    result = await chat.send(TRANSFER)
    assert result.outcome == "success"
    assert [(t["amount"], t["memo"]) for t in read_journal(journal)] == [(75.5, "rent, March")]
    (decision,) = chat.decisions
    assert decision.arguments == PROPOSAL
    assert decision.executed_arguments == replacement
    assert list(decision.executed_arguments) == list(PROPOSAL)  # in the tool's own order
    # The model is told what ran, and says so.
    assert "75.50" in result.text
    # A replay of the saved decisions edits the same way.
    saved = chat.save_decisions(tmp_path / "decisions.json")
    again = AgentChat(
        bank_agent(OfflineModel(), journal=tmp_path / "again.jsonl"),
        responder=responders.replay(saved),
    )
    await again.send(TRANSFER)
    assert [t["amount"] for t in read_journal(tmp_path / "again.jsonl")] == [75.5]


async def test_an_edit_over_http_keeps_the_fingerprint_of_the_proposal(
    journal: pathlib.Path,
) -> None:
    app = asgi_app(bank_agent(OfflineModel(), journal=journal), secret="s" * 32)
    transport = httpx.ASGITransport(app=app)
    async with AGUIClient("http://agent.test/", transport=transport) as client:
        paused = [e async for e in client.run(ask(TRANSFER))]
        edit = {"approved": True, "editedArgs": {**PROPOSAL, "amount": 10}}
        resumed = [e async for e in client.run(answer(paused, edit))]
        # A client that rewrites the proposed call instead of sending an edit runs nothing.
        forged = answer(paused, {"approved": True}, run="r3")
        for message in forged.messages:
            for call in getattr(message, "tool_calls", None) or []:
                call.function.arguments = json.dumps({**PROPOSAL, "amount": 1})
        refused = [e async for e in client.run(forged)]
    assert [t["amount"] for t in read_journal(journal)] == [10.0]
    (result,) = [e for e in resumed if isinstance(e, ToolCallResultEvent)]
    assert "Sent 10.00 to ACME-1" in result.content
    assert isinstance(refused[-1], RunErrorEvent)
    tool_messages = [m for m in snapshot(resumed) if isinstance(m, ToolMessage)]
    assert len(tool_messages) == 1


async def test_a_replacement_equal_to_the_proposal_as_a_client_wrote_it_is_no_edit(
    adapter: OpenAIAgentsAdapter, collect: Any, journal: pathlib.Path
) -> None:
    paused = await collect(adapter, ask(TRANSFER))
    # A JavaScript client writes 250.0 as 250: the same arguments, so the proposal runs.
    same = {"approved": True, "editedArgs": {"memo": "rent", "amount": 250, "to_account": "ACME-1"}}
    resumed = await collect(adapter, answer(paused, same))
    assert [t["amount"] for t in read_journal(journal)] == [250.0]
    (result,) = [e for e in resumed if isinstance(e, ToolCallResultEvent)]
    assert "edited" not in result.content
    assert "editedArgs" not in (result.metadata or {})["interrupt"]


async def test_a_replacement_must_hold_every_argument_the_tool_requires(
    adapter: OpenAIAgentsAdapter, collect: Any, journal: pathlib.Path
) -> None:
    paused = await collect(adapter, ask(TRANSFER))
    replacement = {"amount": 30, "to_account": "ACME-1"}  # memo left out: not merged back in
    events = await collect(adapter, answer(paused, {"approved": True, "editedArgs": replacement}))
    error = events[-1]
    assert isinstance(error, RunErrorEvent)
    assert error.code == ErrorCode.INVALID_EDIT
    assert "/memo" in error.message
    assert read_journal(journal) == []


def test_a_replacement_keeps_the_exact_proposed_value_a_javascript_client_rounded() -> None:
    @function_tool(needs_approval=True)
    def pay(account: int, amount: float) -> str:
        """Pays."""
        return "ok"

    spec = declared_edit(editable(pay, fields=["amount"]))
    proposal = '{"account": 9007199254740993, "amount": 5000.0}'
    rounded = {"account": 9007199254740992, "amount": 20}  # as JSON.parse read the proposal
    payload = {"approved": True, "editedArgs": rounded}
    ran = check_edit(spec, arguments=proposal, payload=payload, interrupt_id="i", tool_name="pay")
    assert ran == {"account": 9007199254740993, "amount": 20}
    # A value the client could not have read from the proposal is a change, and refused.
    moved = {"approved": True, "editedArgs": {"account": 9007199254740994, "amount": 20}}
    with pytest.raises(AdapterError) as refused:
        check_edit(spec, arguments=proposal, payload=moved, interrupt_id="i", tool_name="pay")
    assert refused.value.code == ErrorCode.EDIT_OUTSIDE_FIELDS
