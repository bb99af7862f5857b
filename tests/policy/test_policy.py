"""Approval policies: rules settle calls inside the run, once, recorded like a person's answer."""

from __future__ import annotations

import json
import logging
import pathlib
import subprocess
import sys
from typing import Any

import httpx
import pytest
from ag_ui.core import (
    BaseEvent,
    MessagesSnapshotEvent,
    ResumeEntry,
    RunAgentInput,
    RunFinishedEvent,
    RunFinishedInterruptOutcome,
    RunFinishedSuccessOutcome,
    ToolCallResultEvent,
    UserMessage,
)
from agents import function_tool

from interrupt_widget import (
    AgentChat,
    OfflineModel,
    OpenAIAgentsAdapter,
    Policy,
    approve,
    ask,
    deny,
    responders,
)
from interrupt_widget.errors import ResponderError, TargetError
from interrupt_widget.examples import bank_agent, read_journal
from interrupt_widget.examples.bank import starter_policy
from interrupt_widget.http.app import asgi_app
from interrupt_widget.http.cli import main
from interrupt_widget.http.client import AGUIClient
from interrupt_widget.http.target_loading import load_policy

SMALL = "transfer_funds amount=40 to_account=ACME-1 memo=coffee"
LARGE = "transfer_funds amount=4000 to_account=ACME-1 memo=rent"
BLOCKED = "transfer_funds amount=10 to_account=OFFSHORE-9"


def ask_for(text: str, run: str = "r1") -> RunAgentInput:
    return RunAgentInput(thread_id="t1", run_id=run, messages=[UserMessage(id="u1", content=text)])


def results(events: list[BaseEvent]) -> list[ToolCallResultEvent]:
    return [e for e in events if isinstance(e, ToolCallResultEvent)]


def finished(events: list[BaseEvent]) -> Any:
    last = events[-1]
    assert isinstance(last, RunFinishedEvent)
    return last.outcome


@pytest.fixture
def journal(tmp_path: pathlib.Path) -> pathlib.Path:
    return tmp_path / "transfers.jsonl"


def adapter_with(policy: Policy, journal: pathlib.Path) -> OpenAIAgentsAdapter:
    return OpenAIAgentsAdapter(bank_agent(OfflineModel(), journal=journal), policy=policy)


async def test_an_approving_rule_runs_the_call_at_once_exactly_once(
    journal: pathlib.Path, collect: Any
) -> None:
    adapter = adapter_with(starter_policy(), journal)
    events = await collect(adapter, ask_for(SMALL))
    assert isinstance(finished(events), RunFinishedSuccessOutcome)  # never paused
    (result,) = results(events)
    assert result.content == "Sent 40.00 to ACME-1 (coffee)."
    marker = (result.metadata or {})["interrupt"]
    assert marker["by"] == "policy:small transfers"
    assert marker["decision"] == "approved"
    assert marker["payload"] == {"approved": True}
    assert [t["amount"] for t in read_journal(journal)] == [40.0]
    text = "".join(getattr(e, "delta", "") for e in events)
    assert "Sent 40.00 to ACME-1" in text
    # The same request again makes the same call: the ledger runs it once.
    again = await collect(adapter, ask_for(SMALL, run="r2"))
    assert results(again)[0].content == result.content
    assert len(read_journal(journal)) == 1


async def test_a_denying_rule_runs_nothing_and_tells_the_model_its_reason(
    journal: pathlib.Path, collect: Any
) -> None:
    events = await collect(adapter_with(starter_policy(), journal), ask_for(BLOCKED))
    assert isinstance(finished(events), RunFinishedSuccessOutcome)
    (result,) = results(events)
    assert result.content.startswith("Not run:")
    assert "blocked accounts" in result.content
    assert "that account is blocked" in result.content
    assert (result.metadata or {})["interrupt"]["by"] == "policy:blocked accounts"
    assert read_journal(journal) == []
    text = "".join(getattr(e, "delta", "") for e in events)
    assert "did not run" in text
    assert "that account is blocked" in text


async def test_a_call_no_rule_settles_asks_a_person_beside_one_that_is_settled(
    journal: pathlib.Path, collect: Any
) -> None:
    adapter = adapter_with(starter_policy(), journal)
    both = f"{SMALL} and {LARGE}"
    paused = await collect(adapter, ask_for(both))
    outcome = finished(paused)
    assert isinstance(outcome, RunFinishedInterruptOutcome)
    (interrupt,) = outcome.interrupts
    assert (interrupt.metadata or {})["tool_input"]["amount"] == 4000
    assert [t["amount"] for t in read_journal(journal)] == [40.0]  # the small one already ran

    snapshot = [e for e in paused if isinstance(e, MessagesSnapshotEvent)][-1].messages
    entry = ResumeEntry(interrupt_id=interrupt.id, status="resolved", payload={"approved": True})
    resumed = await collect(
        adapter, RunAgentInput(thread_id="t1", run_id="r2", messages=snapshot, resume=[entry])
    )
    assert isinstance(finished(resumed), RunFinishedSuccessOutcome)
    assert [t["amount"] for t in read_journal(journal)] == [40.0, 4000.0]


async def test_the_first_matching_rule_decides_and_ask_stops_the_search(
    journal: pathlib.Path, collect: Any
) -> None:
    policy = Policy(
        ask("transfer_funds", when=lambda a: a["memo"] == "coffee", name="coffee needs a person"),
        approve("transfer_funds"),
    )
    paused = await collect(adapter_with(policy, journal), ask_for(SMALL))
    assert isinstance(finished(paused), RunFinishedInterruptOutcome)
    assert read_journal(journal) == []
    assert policy.decide("transfer_funds", {"memo": "tea"}).rule is policy.rules[1]
    assert policy.decide("transfer_funds", "not json").verdict == "ask"
    assert policy.decide("check_balance", {}).rule is None


async def test_a_rule_that_raises_leaves_the_call_to_a_person(
    journal: pathlib.Path, collect: Any, caplog: pytest.LogCaptureFixture
) -> None:
    policy = Policy(approve("transfer_funds", when=lambda a: a["no such field"] > 0, name="bad"))
    with caplog.at_level(logging.WARNING):
        paused = await collect(adapter_with(policy, journal), ask_for(SMALL))
    assert isinstance(finished(paused), RunFinishedInterruptOutcome)
    assert read_journal(journal) == []
    assert "policy rule 'bad' raised" in caplog.text


def test_rules_are_checked_when_made() -> None:
    with pytest.raises(TypeError, match="rules made by approve"):
        Policy(lambda a: True)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="names a tool"):
        approve("")
    with pytest.raises(TypeError, match="function of the arguments"):
        approve("t", when=True)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="blank"):
        deny("t", name=" ")

    def small(arguments: dict[str, Any]) -> bool:
        return bool(arguments["amount"] < 10)

    assert approve("t", when=small).name == "approve t when small"
    assert deny("t").name == "deny t"

    @function_tool(needs_approval=True)
    def gated(amount: float) -> str:
        """Asks first."""
        return "ok"

    assert ask(gated).tool == "gated"


async def test_a_chat_records_a_policy_decision_and_opens_no_picker(
    journal: pathlib.Path,
) -> None:
    chat = AgentChat(
        bank_agent(OfflineModel(), journal=journal),
        policy=starter_policy(),
        responder=responders.fail(),  # a person is never asked
    )
    result = await chat.send(SMALL)
    assert result.outcome == "success"
    assert not chat.picker
    (decision,) = chat.decisions
    assert decision.by == "policy:small transfers"
    assert decision.verdict == "approved"
    assert decision.arguments == {"amount": 40.0, "to_account": "ACME-1", "memo": "coffee"}
    assert decision.executed_arguments == decision.arguments
    assert result.decisions == (decision,)
    # The transcript carries the decision on the call's result, for the read-only card.
    tool_message = next(m for m in chat.messages if m["role"] == "tool")
    assert tool_message["metadata"]["interrupt"]["by"] == "policy:small transfers"
    await chat.send(BLOCKED)
    assert [d.verdict for d in chat.decisions] == ["approved", "denied"]
    assert len(read_journal(journal)) == 1


def test_a_remote_chat_refuses_a_policy() -> None:
    from interrupt_widget import RemoteAgent

    with pytest.raises(TypeError, match="policy cannot be given beside RemoteAgent"):
        AgentChat(RemoteAgent("http://127.0.0.1:9/"), policy=starter_policy())
    adapter = OpenAIAgentsAdapter(bank_agent(OfflineModel()))
    with pytest.raises(TypeError, match="policy cannot be given beside OpenAIAgentsAdapter"):
        AgentChat(adapter, policy=starter_policy())


async def test_a_served_agent_applies_its_policy(journal: pathlib.Path) -> None:
    app = asgi_app(bank_agent(OfflineModel(), journal=journal), policy=starter_policy())
    async with AGUIClient("http://agent.test/", transport=httpx.ASGITransport(app=app)) as client:
        small = [e async for e in client.run(ask_for(SMALL))]
        large = [e async for e in client.run(ask_for(LARGE, run="r2"))]
    assert isinstance(finished(small), RunFinishedSuccessOutcome)
    assert isinstance(finished(large), RunFinishedInterruptOutcome)
    assert [t["amount"] for t in read_journal(journal)] == [40.0]


def test_serve_policy_loads_a_policy_or_says_why_not(capsys: pytest.CaptureFixture[str]) -> None:
    assert isinstance(load_policy("interrupt_widget.examples.bank:starter_policy"), Policy)
    with pytest.raises(TargetError, match=r"not an interrupt_widget\.Policy"):
        load_policy("interrupt_widget.examples.bank:SMALL_TRANSFER")
    with pytest.raises(TargetError, match=r"expected package\.module:policy"):
        load_policy("no-colon")
    code = main(
        ["serve", "interrupt_widget.examples:bank_agent", "--policy", "interrupt_widget:nothing"]
    )
    assert code == 2
    assert "has no attribute 'nothing'" in capsys.readouterr().err


def test_serve_with_policy_settles_small_transfers(tmp_path: pathlib.Path) -> None:
    journal = tmp_path / "served.jsonl"
    script = f"""
import asyncio, json, os, subprocess, sys
import httpx
from ag_ui.core import RunAgentInput, UserMessage
from interrupt_widget.http.client import AGUIClient

from interrupt_widget.free_port import free_port
port = free_port()
env = dict(os.environ, INTERRUPT_WIDGET_MODEL="offline", OPENAI_API_KEY="",
           INTERRUPT_WIDGET_BANK_JOURNAL={str(journal)!r})
server = subprocess.Popen(
    [sys.executable, "-m", "interrupt_widget", "serve", "interrupt_widget.examples:bank_agent",
     "--policy", "interrupt_widget.examples.bank:starter_policy", "--port", str(port)],
    env=env, stderr=subprocess.PIPE, text=True)
for line in server.stderr:
    if "Uvicorn running on" in line:
        break
async def main():
    request = RunAgentInput(thread_id="t", run_id="r",
        messages=[UserMessage(id="u", content={SMALL!r})])
    async with AGUIClient(f"http://127.0.0.1:{{port}}/") as client:
        events = [e async for e in client.run(request)]
    print(json.dumps(events[-1].outcome.type))
try:
    asyncio.run(main())
finally:
    server.terminate(); server.wait(timeout=30)
"""
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout.strip().splitlines()[-1]) == "success"
    assert [(t["amount"], t["to_account"]) for t in read_journal(journal)] == [(40.0, "ACME-1")]


async def test_a_replay_of_a_chat_with_a_policy_skips_the_policy_s_decisions(
    journal: pathlib.Path, tmp_path: pathlib.Path
) -> None:
    both = f"{SMALL} and {LARGE}"
    first = AgentChat(
        bank_agent(OfflineModel(), journal=journal),
        policy=starter_policy(),
        responder=responders.answers({"transfer_funds": {"approved": False}}),
    )
    await first.send(both)
    assert [d.by for d in first.decisions] == ["policy:small transfers", "responder:answers"]
    saved = first.save_decisions(tmp_path / "decisions.json")
    # The same policy again: it settles the small call, the replay answers the large one.
    again = AgentChat(
        bank_agent(OfflineModel(), journal=tmp_path / "again.jsonl"),
        policy=starter_policy(),
        responder=responders.replay(saved),
    )
    result = await again.send(both)
    assert result.outcome == "success"
    assert [t["amount"] for t in read_journal(tmp_path / "again.jsonl")] == [40.0]
    # No policy: the small call asks, and no person ever answered it, so the replay says so.
    unruled = AgentChat(
        bank_agent(OfflineModel(), journal=tmp_path / "unruled.jsonl"),
        responder=responders.replay(saved),
    )
    with pytest.raises(ResponderError, match="changed since the decision was recorded"):
        await unruled.send(SMALL)
    assert read_journal(tmp_path / "unruled.jsonl") == []
