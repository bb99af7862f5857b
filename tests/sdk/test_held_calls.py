"""A claim whose run is cancelled while it is being taken, or before the SDK started its call,
is given up, never left held; one cut off once its call may have started stays held, in doubt."""

from __future__ import annotations

import asyncio
import pathlib
from datetime import UTC, datetime
from typing import Any

import pytest
from ag_ui.core import BaseEvent, ResumeEntry, RunAgentInput, RunErrorEvent
from agents import Agent, function_tool

from interrupt_widget import OfflineModel, OpenAIAgentsAdapter, SQLiteLedger
from interrupt_widget.asking.thread import ConversationThread
from interrupt_widget.errors import CallInDoubt, ErrorCode
from interrupt_widget.ledger.doubt import settle_doubt
from interrupt_widget.ledger.noting_ledger import Answered
from interrupt_widget.ledger.once_only import Recorded, all_settled
from interrupt_widget.sdk import held_calls


async def test_a_claim_cancelled_while_taken_is_dropped_and_the_next_run_may_claim_it(
    tmp_path: pathlib.Path,
) -> None:
    ledger = SQLiteLedger(tmp_path / "calls.db")
    key = ("thread", "call-1")
    first = asyncio.ensure_future(held_calls.claim(ledger, key, answer={"approved": True}))
    await asyncio.sleep(0)  # the claim is under way in the ledger
    first.cancel()
    await asyncio.gather(first, return_exceptions=True)
    # Without giving it up, this would wait for ever on a claim nobody holds any more.
    assert await asyncio.wait_for(ledger.recorded(key), timeout=10) is None
    second = await asyncio.wait_for(held_calls.claim(ledger, key, answer=None), timeout=10)
    assert isinstance(second, held_calls.Claim)
    second.ran("done")
    await second.recorded()
    found = await ledger.recorded(key)
    assert found is not None
    assert found.output == "done"


async def test_a_claim_cut_off_before_the_sdk_started_its_call_is_given_up(
    tmp_path: pathlib.Path,
) -> None:
    ledger = SQLiteLedger(tmp_path / "calls.db")
    key = ("thread", "call-1")
    held = await held_calls.claim(ledger, key, answer={"approved": True})
    assert isinstance(held, held_calls.Claim)
    held.cut_off("cancelled before the SDK's run began")
    await held.recorded()
    assert await asyncio.wait_for(ledger.recorded(key), timeout=10) is None
    again = await asyncio.wait_for(held_calls.claim(ledger, key, answer=None), timeout=10)
    assert isinstance(again, held_calls.Claim)
    again.drop("done with it")


async def test_a_claim_cut_off_once_its_call_may_have_started_stays_held_in_doubt_everywhere(
    tmp_path: pathlib.Path,
) -> None:
    """A worker shut down mid-tool: the claim is kept, and read in doubt at once by this
    process and by another one on the file (its owner still alive), never claimed again."""
    ledger = SQLiteLedger(tmp_path / "calls.db")
    key = ("thread", "call-1")
    held = await held_calls.claim(ledger, key, answer={"approved": True})
    assert isinstance(held, held_calls.Claim)
    held.started = True
    held.cut_off("the worker shut down mid-tool")
    with pytest.raises(CallInDoubt):
        await held.recorded()
    other = SQLiteLedger(tmp_path / "calls.db")  # another process's view of the same file
    for view in (ledger, other):
        with pytest.raises(CallInDoubt):
            await asyncio.wait_for(held_calls.claim(view, key, answer=None), timeout=5)
        assert key in view.in_doubt()
    settle_doubt(other, key, ran=False, output=None)  # a person: it did not run
    again = await asyncio.wait_for(held_calls.claim(ledger, key, answer=None), timeout=10)
    assert isinstance(again, held_calls.Claim)
    again.ran("sent")
    await again.recorded()


async def test_a_kernel_run_cancelled_inside_its_approved_tool_leaves_the_call_in_doubt(
    tmp_path: pathlib.Path,
) -> None:
    """The same rule in the kernel: a run whose task is cancelled while the approved tool runs
    does not give the call up, so answering again reports it in doubt and runs nothing."""
    began, runs = asyncio.Event(), []

    @function_tool(needs_approval=True)
    async def send_money(amount: float, to: str) -> str:
        """Send `amount` to `to`, once a person approves it."""
        runs.append((amount, to))
        began.set()
        await asyncio.sleep(60)
        return "sent"

    agent = Agent(name="payments", model=OfflineModel(), tools=[send_money])
    adapter = OpenAIAgentsAdapter(agent, ledger=SQLiteLedger(tmp_path / "calls.db"))
    thread = ConversationThread(adapter, thread_id="t-cut")
    assert (await thread.start(thread.user_input("send_money amount=42 to=Bob"))).kind == (
        "interrupt"
    )
    entries = [
        ResumeEntry(interrupt_id=i.id, status="resolved", payload={"approved": True})
        for i in thread.interrupts
    ]

    def answer(run_id: str) -> RunAgentInput:
        return RunAgentInput(
            thread_id=thread.thread_id, run_id=run_id, messages=thread.messages, tools=[],
            context=[], state={}, forwarded_props={}, resume=entries,
        )  # fmt: skip

    async def read(input: RunAgentInput) -> list[BaseEvent]:
        return [event async for event in adapter.run(input)]

    cut = asyncio.ensure_future(read(answer("r-cut")))
    await asyncio.wait_for(began.wait(), timeout=10)
    cut.cancel()
    await asyncio.gather(cut, return_exceptions=True)
    again = await asyncio.wait_for(read(answer("r-again")), timeout=10)
    assert isinstance(again[-1], RunErrorEvent)
    assert again[-1].code == ErrorCode.CALL_IN_DOUBT
    assert runs == [(42.0, "Bob")]


async def test_a_denial_is_recorded_with_its_note_in_one_commit_and_stands_for_later_answers(
    tmp_path: pathlib.Path,
) -> None:
    ledger = SQLiteLedger(tmp_path / "calls.db")
    key = ("thread", "call-1")
    at = datetime.now(UTC)
    denied = Answered("send", "sha", "denied", {"approved": False}, "ann", at, None)
    writes = _counting_writes(ledger)
    got = await held_calls.claim(
        ledger, key, answer={"approved": False}, note=denied, output="Denied by ann."
    )
    assert isinstance(got, held_calls.Claim)
    await got.recorded()
    # The record with its answer and its note, in one write: no claim goes first, so no
    # crash can leave this call, which never runs, in doubt (a claim, a note and the
    # record were three writes before).
    assert writes == ["write"]
    assert ledger.in_doubt() == []
    found = await ledger.recorded(key)
    assert found is not None
    assert (found.output, found.answer) == ("Denied by ann.", {"approved": False})
    [entry] = ledger.audit().entries
    assert (entry.by, entry.decision) == ("ann", "denied")
    # A later answer, even an approval, finds the denial's record: nothing runs.
    approving = Answered("send", "sha", "approved", {"approved": True}, "bob", at, "sha")
    again = await held_calls.claim(ledger, key, answer={"approved": True}, note=approving)
    assert isinstance(again, Recorded)
    assert again.output == "Denied by ann."
    [entry] = ledger.audit().entries
    assert entry.by == "ann"


def _counting_writes(ledger: SQLiteLedger) -> list[str]:
    """The writes `ledger` sends to its group commits from now on, a list that grows with each."""
    writes: list[str] = []
    write = ledger._commits.write

    def counted(work: Any) -> Any:
        writes.append("write")
        return write(work)

    ledger._commits.write = counted  # type: ignore[method-assign]
    return writes


async def test_calls_are_settled_for_a_resume_once_each_has_a_record_or_is_in_doubt(
    tmp_path: pathlib.Path,
) -> None:
    ledger = SQLiteLedger(tmp_path / "calls.db")
    done, doubtful, open_ = ("t", "done"), ("t", "doubtful"), ("t", "open")
    ran = await held_calls.claim(ledger, done, answer=None)
    assert isinstance(ran, held_calls.Claim)
    ran.ran("sent")
    await ran.recorded()
    cut = await held_calls.claim(ledger, doubtful, answer=None)
    assert isinstance(cut, held_calls.Claim)
    cut.started = True
    cut.cut_off("the worker shut down mid-tool")
    with pytest.raises(CallInDoubt):
        await cut.recorded()
    assert await all_settled(ledger, [done, doubtful])
    assert not await all_settled(ledger, [done, doubtful, open_])
    assert await all_settled(ledger, [])


async def test_a_claim_settles_on_its_own_loop_and_a_second_asker_shares_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The first asker waits on a future of its own loop: settling its call never wakes the
    # loop as a thread would (through its self-pipe). A second asker shares the settlement.
    from interrupt_widget.ledger.memory import MemoryLedger

    ledger = MemoryLedger()
    loop = asyncio.get_running_loop()
    woken: list[object] = []
    wake = loop.call_soon_threadsafe

    def counted(callback: Any, *args: Any, **kwargs: Any) -> asyncio.Handle:
        woken.append(callback)
        return wake(callback, *args, **kwargs)

    monkeypatch.setattr(loop, "call_soon_threadsafe", counted)
    key = ("thread", "call-1")
    held = await held_calls.claim(ledger, key, answer={"approved": True})
    assert isinstance(held, held_calls.Claim)
    held.ran("done")
    await held.recorded()
    assert woken == []
    found = await ledger.recorded(key)
    assert found is not None
    assert found.output == "done"

    other = ("thread", "call-2")
    first = await held_calls.claim(ledger, other, answer=None)
    assert isinstance(first, held_calls.Claim)
    joined = asyncio.Event()
    begin = ledger.settlement

    def joining(*args: Any, **kwargs: Any) -> asyncio.Future[str]:
        settling = begin(*args, **kwargs)
        joined.set()  # the second asker now waits on the first's settlement
        return settling

    monkeypatch.setattr(ledger, "settlement", joining)
    second = asyncio.ensure_future(held_calls.claim(ledger, other, answer=None))
    await asyncio.wait_for(joined.wait(), timeout=10)
    assert not second.done()  # it waits for the first asker's call
    first.ran("once")
    await first.recorded()
    replayed = await asyncio.wait_for(second, timeout=10)
    assert isinstance(replayed, Recorded)
    assert replayed.output == "once"


async def test_a_claim_whose_ledger_fails_raises_to_its_asker_and_holds_nothing(
    tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from interrupt_widget.errors import LedgerUnavailable

    ledger = SQLiteLedger(tmp_path / "calls.db")

    def broken(*_: Any) -> Any:
        raise LedgerUnavailable("the disk is gone")

    monkeypatch.setattr(ledger, "_claim_noting", broken)
    with pytest.raises(LedgerUnavailable, match="could not be claimed"):
        await held_calls.claim(ledger, ("thread", "call-1"), answer=None)
    monkeypatch.undo()
    again = await asyncio.wait_for(held_calls.claim(ledger, ("thread", "call-1"), answer=None), 10)
    assert isinstance(again, held_calls.Claim)
    again.drop("done with it")


async def test_a_ledger_of_run_once_alone_holds_claims_as_the_kits_own_do() -> None:
    # Any `CallLedger` holds claims: its `run_once` gets a task of its own (the kit's ledgers
    # begin their settlement at once, without one).
    from interrupt_widget.ledger.memory import MemoryLedger

    inner = MemoryLedger()

    class Wrapped:
        async def run_once(self, key: Any, invoke: Any, *, answer: Any = None) -> str:
            return await inner.run_once(key, invoke, answer=answer)

        async def recorded(self, key: Any) -> Recorded | None:
            return await inner.recorded(key)

    ledger: Any = Wrapped()
    key = ("thread", "call-1")
    held = await held_calls.claim(ledger, key, answer=None)
    assert isinstance(held, held_calls.Claim)
    held.ran("done")
    await held.recorded()
    again = await held_calls.claim(ledger, key, answer=None)
    assert isinstance(again, Recorded)
    assert again.output == "done"


async def test_a_ledger_that_adds_to_run_once_or_record_not_run_is_asked_through_them(
    tmp_path: pathlib.Path,
) -> None:
    # A subclass's own `run_once` (a hold, a refusal, a metric) sees every claim, and its own
    # `record_not_run` every record that runs nothing, a batch row's unsynced outcome too.
    asked: list[str] = []

    class Counting(SQLiteLedger):
        async def run_once(self, key: Any, invoke: Any, *, answer: Any = None) -> str:
            asked.append(f"run_once {key[1]}")
            return await super().run_once(key, invoke, answer=answer)

        async def record_not_run(
            self, key: Any, output: str, *, answer: Any = None
        ) -> Recorded | None:
            asked.append(f"record_not_run {key[1]}")
            return await super().record_not_run(key, output, answer=answer)

    ledger = Counting(tmp_path / "calls.db")
    held = await held_calls.claim(ledger, ("t", "call"), answer=None)
    assert isinstance(held, held_calls.Claim)
    held.ran("done")
    await held.recorded()
    assert await ledger.keep_first(("t", "row"), "{}", synced=False) == "{}"
    assert asked == ["run_once call", "record_not_run row"]
