"""The same agent in the kernel and on Temporal, driven alike through `AgentChat`, ends alike:
a question nobody answers expires on its deadline, and a call that needs two people asks
again after the first, refuses the same person twice in the same words, and runs once after
the second. What is compared: the chat's status, its decisions (tool, verdict, who), the
words of each refusal, what the model was told for the call, and the tool's own runs."""

from __future__ import annotations

import pathlib
import re
from collections.abc import AsyncIterator, Callable
from typing import Any

import pytest

pytest.importorskip("temporalio")

from interrupt_widget import AgentChat, AnswerRefused, as_identity
from interrupt_widget.temporal import TemporalAgent
from interrupt_widget.temporal.dev_server import DevServer
from interrupt_widget.testing import CommRecorder, until
from payment_agents import SEND, runs_in
from temporal_agents import EXPIRING, FOUR_EYES, expiring, four_eyes, worker_on_fresh_queue

Engine = Callable[[str], Any]
"""Makes the agent named by a `temporal_agents` target, on one engine."""


@pytest.fixture
async def engines(
    temporal_server: DevServer, tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> AsyncIterator[dict[str, Engine]]:
    # One ledger for the worker and the kernel alike (each test's own).
    monkeypatch.setenv("INTERRUPT_WIDGET_LEDGER", str(tmp_path / "calls.db"))
    in_kernel = {EXPIRING: expiring, FOUR_EYES: four_eyes}
    async with worker_on_fresh_queue(temporal_server, (EXPIRING, FOUR_EYES)) as (client, queue):

        def on_temporal(target: str) -> TemporalAgent:
            return TemporalAgent(client, agent=target, task_queue=queue, heartbeat_seconds=2)

        yield {"kernel": lambda target: in_kernel[target](), "temporal": on_temporal}


def told(chat: AgentChat) -> list[str]:
    """What the model was told of each tool call."""
    return [str(m.content) for m in chat.thread.messages if m.role == "tool"]


def decided(chat: AgentChat) -> list[tuple[str, str, str]]:
    return [(d.tool, d.verdict, d.by) for d in chat.decisions]


def ran_since(runs: pathlib.Path, before: int) -> list[Any]:
    return runs_in(runs)[before:]


async def expired_unanswered(make: Engine, runs: pathlib.Path) -> dict[str, Any]:
    before = len(runs_in(runs))
    chat = AgentChat(make(EXPIRING))
    handle = chat.send(SEND)
    await until(chat, lambda: chat.status == "waiting")
    await until(chat, lambda: chat.status != "waiting", timeout=30)
    await handle
    return {
        "status": chat.status,
        "decided": decided(chat),
        "told": told(chat),
        "ran": ran_since(runs, before),
    }


async def two_people(make: Engine, runs: pathlib.Path) -> dict[str, Any]:
    before = len(runs_in(runs))
    chat = AgentChat(make(FOUR_EYES))
    handle = chat.send(SEND)
    await until(chat, lambda: chat.status == "waiting")
    asked = [i.id for i in chat.picker.open_interrupts]
    with as_identity("ann"):
        chat.picker.resolve({"approved": True})
    await until(chat, lambda: chat.status == "waiting" and not chat.picker.submitted, timeout=30)
    again = [i.id for i in chat.picker.open_interrupts]
    with as_identity("ann"), pytest.raises(AnswerRefused) as refused:
        chat.picker.resolve({"approved": True})
    refusal = re.sub(r"\d{4}-\d\d-\d\dT[\d:.]+Z", "<when>", str(refused.value))
    ran_after_one = ran_since(runs, before)
    with as_identity("bob"):
        chat.picker.resolve({"approved": True})
    await handle
    return {
        "asked again": again == asked,
        "refusal": refusal,
        "ran after one": ran_after_one,
        "status": chat.status,
        "decided": decided(chat),
        "told": told(chat),
        "ran": ran_since(runs, before),
    }


@pytest.mark.parametrize("case", [expired_unanswered, two_people], ids=lambda c: c.__name__)
async def test_the_kernel_and_temporal_end_alike(
    case: Callable[[Engine, pathlib.Path], Any],
    engines: dict[str, Engine],
    runs: pathlib.Path,
    recorder: CommRecorder,
) -> None:
    seen = {}
    for name, make in engines.items():
        seen[name] = await case(make, runs)
    assert seen["temporal"] == seen["kernel"]
    print(case.__name__, seen["kernel"])
