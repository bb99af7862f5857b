"""Targets the Temporal tests' workers load by name: the payment agent of `payment_agents`
(its tools append each run to `$RUNS_FILE`), the same with questions that expire or a policy
that approves, and `faulty`: a worker that can be held, for a kill, just before an approved
call is claimed (`before`) or inside the tool after it wrote its run (`mid`), while a file
of that name is in `$TEMPORAL_HOLD_DIR`."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import pathlib
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

from agents import Agent, function_tool
from temporalio import activity
from temporalio.client import Client

from interrupt_widget import (
    LedgerUnavailable,
    OfflineModel,
    OpenAIAgentsAdapter,
    Policy,
    SQLiteLedger,
    approve,
    escalate,
    require,
)
from interrupt_widget.ledger.once_only import Recorded
from interrupt_widget.sdk.paused_runs import is_state_key
from interrupt_widget.temporal import TemporalAgent, adapter_for, build_worker
from interrupt_widget.temporal.dev_server import DevServer
from payment_agents import RUNS_ENV, payment_agent

PAYMENTS = "payment_agents:payment_agent"
EXPIRING = "temporal_agents:expiring"

EXPIRES_IN = 1.0
"""Seconds an expiring agent's question stays answerable."""


def expiring() -> OpenAIAgentsAdapter:
    """The payment agent whose questions expire after `EXPIRES_IN` seconds."""
    return OpenAIAgentsAdapter(payment_agent(), expires_in=EXPIRES_IN)


def approving() -> OpenAIAgentsAdapter:
    """The payment agent with a policy on the worker that approves every transfer."""
    return OpenAIAgentsAdapter(
        payment_agent(), policy=Policy(approve("send_money", name="all")), ledger=None
    )


APPROVING = "temporal_agents:approving"


def four_eyes() -> OpenAIAgentsAdapter:
    """The payment agent whose transfers need two people's approval, votes kept on the worker."""
    return OpenAIAgentsAdapter(payment_agent(), policy=Policy(require("send_money", approvals=2)))


FOUR_EYES = "temporal_agents:four_eyes"


def finance_four_eyes() -> OpenAIAgentsAdapter:
    """The payment agent whose transfers need two people of the finance role."""
    rule = require("send_money", approvals=2, roles=["finance"])
    return OpenAIAgentsAdapter(payment_agent(), policy=Policy(rule))


FINANCE_FOUR_EYES = "temporal_agents:finance_four_eyes"


def denied_when_nobody_answers() -> OpenAIAgentsAdapter:
    """The payment agent whose transfers need two people, denied a second after nobody did."""
    rules = (
        require("send_money", approvals=2),
        escalate("send_money", after=0.5, then_after=0.5, to="cfo", then="deny"),
    )
    return OpenAIAgentsAdapter(payment_agent(), policy=Policy(*rules))


DENIED_WHEN_NOBODY_ANSWERS = "temporal_agents:denied_when_nobody_answers"


HOLD_ENV = "TEMPORAL_HOLD_DIR"
SHARED_LEDGER_ENV = "TEMPORAL_SHARED_LEDGER"
FAULTY = "temporal_agents:faulty"


async def hold(stage: str) -> None:
    """Wait here while `$TEMPORAL_HOLD_DIR/<stage>` exists, saying which process waits, and
    once the activity it waits in was asked to stop (`<stage>.cancelled`)."""
    folder = pathlib.Path(os.environ[HOLD_ENV])
    gate = folder / stage
    if not gate.exists():
        return
    (folder / f"{stage}.arrived").write_text(str(os.getpid()))
    await asyncio.to_thread(_until_gone, gate, folder / f"{stage}.cancelled")


def _until_gone(gate: pathlib.Path, cancelled: pathlib.Path) -> None:
    while gate.exists():
        if activity.in_activity() and activity.is_cancelled():
            cancelled.touch()
        time.sleep(0.05)


def _record_run(amount: float, to: str) -> None:
    with pathlib.Path(os.environ[RUNS_ENV]).open("a", encoding="utf-8") as file:
        file.write(json.dumps({"tool": "send_money", "amount": amount, "to": to}) + "\n")


class HoldingLedger(SQLiteLedger):
    """A SQLite ledger that may hold a call just before it is claimed."""

    async def run_once(
        self, key: tuple[str, str], invoke: Callable[[], Awaitable[str]], *, answer: Any = None
    ) -> str:
        if not is_state_key(key):
            await hold("before")
        return await super().run_once(key, invoke, answer=answer)

    async def record_not_run(
        self, key: tuple[str, str], output: str, *, answer: Any = None
    ) -> Recorded | None:
        await hold("before")  # a denial's or a cancel's record, written without a claim
        return await super().record_not_run(key, output, answer=answer)


def faulty() -> OpenAIAgentsAdapter:
    """The payment agent on the shared ledger, holdable before the claim and in the tool."""

    @function_tool(needs_approval=True)
    async def send_money(amount: float, to: str) -> str:
        """Send `amount` to `to`, once a person approves it."""
        _record_run(amount, to)
        await hold("mid")
        return f"Sent {amount!r} to {to}."

    agent = Agent(name="payments", model=OfflineModel(), tools=[send_money])
    ledger = HoldingLedger(os.environ[SHARED_LEDGER_ENV])
    return OpenAIAgentsAdapter(agent, ledger=ledger)


LEDGER_DOWN = "ledger-down"
"""While a file of this name is in `$TEMPORAL_HOLD_DIR`, a `DownLedger` refuses to claim."""


class DownLedger(SQLiteLedger):
    """A SQLite ledger that cannot be reached while `$TEMPORAL_HOLD_DIR/ledger-down` exists;
    each call it refuses then is one line in `ledger-tries` beside it."""

    async def run_once(
        self, key: tuple[str, str], invoke: Callable[[], Awaitable[str]], *, answer: Any = None
    ) -> str:
        _refuse_while_down(key)
        return await super().run_once(key, invoke, answer=answer)

    async def record_not_run(
        self, key: tuple[str, str], output: str, *, answer: Any = None
    ) -> Recorded | None:
        _refuse_while_down(key)
        return await super().record_not_run(key, output, answer=answer)


def _refuse_while_down(key: tuple[str, str]) -> None:
    folder = pathlib.Path(os.environ[HOLD_ENV])
    if not is_state_key(key) and (folder / LEDGER_DOWN).exists():
        with (folder / "ledger-tries").open("a", encoding="utf-8") as tries:
            tries.write(f"{key[1]}\n")
        raise LedgerUnavailable("the ledger cannot be reached (the test took it down)")


def expiring_on_a_ledger_that_fails() -> OpenAIAgentsAdapter:
    """The payment agent whose questions expire, on a ledger a test can take down."""
    ledger = DownLedger(os.environ[SHARED_LEDGER_ENV])
    return OpenAIAgentsAdapter(payment_agent(), expires_in=EXPIRES_IN, ledger=ledger)


EXPIRING_ON_A_LEDGER_THAT_FAILS = "temporal_agents:expiring_on_a_ledger_that_fails"


ADDRESS_ENV = "TEMPORAL_ADDRESS"
QUEUE_ENV = "TEMPORAL_QUEUE"
MEETINGS = "interrupt_widget.examples:meeting_agent"


def served() -> TemporalAgent:
    """What `serve temporal_agents:served` serves: the meeting agent on Temporal workers at
    `$TEMPORAL_ADDRESS`, queue `$TEMPORAL_QUEUE`."""
    return TemporalAgent(os.environ[ADDRESS_ENV], agent=MEETINGS, task_queue=os.environ[QUEUE_ENV])


@contextlib.asynccontextmanager
async def worker_on_fresh_queue(
    server: DevServer, agents: tuple[str, ...], *, sandboxed: bool = False
) -> AsyncIterator[tuple[Client, str]]:
    """A client and a new task queue with one in-process worker serving `agents`."""
    client = await Client.connect(server.address)
    queue = f"q-{uuid.uuid4().hex[:8]}"
    adapters = {name: adapter_for(name) for name in agents}
    worker = build_worker(
        client, adapters, task_queue=queue, graceful_seconds=1, sandboxed=sandboxed
    )
    async with worker:
        yield client, queue


LINGERING = "temporal_agents:lingering"
LINGER_STARTED = "linger.started"
"""Written in `$TEMPORAL_HOLD_DIR` by `linger` as it begins: a long run is under way."""


def lingering() -> OpenAIAgentsAdapter:
    """An agent whose tool `linger(seconds)`, asked for no approval, takes that long: a long
    run to stop ("linger seconds=60")."""

    @function_tool
    async def linger(seconds: float) -> str:
        """Wait `seconds`, then say so."""
        (pathlib.Path(os.environ[HOLD_ENV]) / LINGER_STARTED).write_text(str(os.getpid()))
        await asyncio.sleep(seconds)
        return f"lingered {seconds} s"

    agent = Agent(name="lingering", model=OfflineModel(), tools=[linger])
    return OpenAIAgentsAdapter(agent, ledger=None)


WORD_DELAY = 0.1
"""Seconds the slow talker takes per word of a reply."""


class SlowModel(OfflineModel):
    """The offline model writing its replies slowly: one word every `WORD_DELAY` seconds."""

    async def stream_response(self, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:  # type: ignore[override]
        async for event in super().stream_response(*args, **kwargs):
            if getattr(event, "type", "") == "response.output_text.delta":
                await asyncio.sleep(WORD_DELAY)
            yield event


SLOW_TALKER = "temporal_agents:slow_talker"


def slow_talker() -> OpenAIAgentsAdapter:
    """An agent whose replies come a word every `WORD_DELAY` seconds ("reply with 20 words":
    two seconds of writing), for time to first token."""
    return OpenAIAgentsAdapter(Agent(name="slow", model=SlowModel()), ledger=None)
