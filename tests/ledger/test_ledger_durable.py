"""Exactly once survives the process: the durable default ledger, choosing another, retention,
and one truth for a call that ran (a late answer replays its result, never "Not run").

Runs are counted by the example agents' `executions` (their tool bodies append to it) or,
for real `serve` processes, from the file the tool writes.
"""

from __future__ import annotations

import asyncio
import os
import stat
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from ag_ui.core import (
    BaseEvent,
    MessagesSnapshotEvent,
    ResumeEntry,
    RunAgentInput,
    RunErrorEvent,
    RunFinishedEvent,
    RunFinishedInterruptOutcome,
    ToolCallResultEvent,
    UserMessage,
)

from interrupt_widget import AgentChat, OfflineModel, OpenAIAgentsAdapter, SQLiteLedger
from interrupt_widget.agui.messages import NOT_RUN_PREFIX
from interrupt_widget.examples import meeting_agent
from interrupt_widget.http.app import asgi_app
from interrupt_widget.http.cli import _parser
from interrupt_widget.ledger.memory import MemoryLedger
from interrupt_widget.ledger.opening import LEDGER_ENV, default_ledger_path, open_ledger
from interrupt_widget.testing import CommRecorder, until
from interrupt_widget.widgets.chat import ChatResult
from serve_process import Served, events_of, paused_invoice, write_agent_module

BOOK = "Book a call with Alice about the Q3 roadmap"
APPROVE = {"approved": True, "chosen_time": "2030-01-08T10:00:00Z", "chosen_label": "Tue 8 Jan"}
OTHER_TIME = {"approved": True, "chosen_time": "2030-01-09T15:00:00Z", "chosen_label": "Wed 9"}
SECRET = "a-secret-that-survives-restarts-0123456789"


@pytest.fixture
def no_ledger_named(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """The per-user default as a user without settings gets it, under a temporary state dir."""
    monkeypatch.delenv(LEDGER_ENV)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "state"))
    return tmp_path / "state" / "interrupt-widget" / "calls.db"


# -- where the record lives ------------------------------------------------------------------


def test_the_default_is_a_private_per_user_sqlite_file_shared_in_the_process(
    no_ledger_named: Path,
) -> None:
    agent = meeting_agent(OfflineModel())
    ledger = OpenAIAgentsAdapter(agent).ledger
    assert isinstance(ledger, SQLiteLedger)
    assert ledger.path == no_ledger_named
    assert stat.S_IMODE(no_ledger_named.parent.stat().st_mode) == 0o700
    assert OpenAIAgentsAdapter(agent).ledger is ledger  # every adapter, chat and app here
    assert default_ledger_path() == no_ledger_named


def test_without_xdg_state_home_it_lives_under_the_home_folder(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.delenv("XDG_STATE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path))
    assert default_ledger_path() == tmp_path / ".local/state/interrupt-widget/calls.db"


def test_the_environment_names_the_ledger(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(LEDGER_ENV, str(tmp_path / "named.db"))
    ledger = open_ledger()
    assert isinstance(ledger, SQLiteLedger)
    assert ledger.path == tmp_path / "named.db"
    monkeypatch.setenv(LEDGER_ENV, "memory")
    with pytest.warns(RuntimeWarning, match="only while this process lives"):
        assert isinstance(open_ledger(), MemoryLedger)


def test_memory_only_by_name_and_with_a_warning(tmp_path: Path) -> None:
    agent = meeting_agent(OfflineModel())
    with pytest.warns(RuntimeWarning, match="after a restart the same resume would run it"):
        assert isinstance(OpenAIAgentsAdapter(agent, ledger="memory").ledger, MemoryLedger)
    path = tmp_path / "mine.db"
    chosen = OpenAIAgentsAdapter(agent, ledger=path).ledger
    assert isinstance(chosen, SQLiteLedger)
    assert chosen.path == path
    own = MemoryLedger()
    assert OpenAIAgentsAdapter(agent, ledger=own).ledger is own  # an object: no warning
    assert _parser().parse_args(["serve", "m:a", "--ledger", "memory"]).ledger == "memory"


async def test_agent_chat_takes_a_ledger(recorder: CommRecorder, tmp_path: Path) -> None:
    agent = meeting_agent(OfflineModel())
    chat = AgentChat(agent, ledger=tmp_path / "chat.db")
    chat.send(BOOK)
    await until(chat, lambda: chat.status == "waiting")
    assert chat.picker is not None
    chat.picker.resolve(APPROVE, by="user")
    assert chat.last_run is not None
    await chat.last_run
    recorded = await SQLiteLedger(tmp_path / "chat.db").recorded(
        (chat.thread.thread_id, chat.decisions[0].tool_call_id or "")
    )
    assert recorded is not None
    assert recorded.answer == APPROVE


# -- retention by age, never by count ---------------------------------------------------------


async def test_no_ledger_forgets_a_call_by_count() -> None:
    ledger = MemoryLedger()
    runs: list[str] = []

    async def first() -> str:
        runs.append("first")
        return "sent"

    async def other() -> str:
        return "other"

    await ledger.run_once(("t", "the-first"), first)
    for n in range(5000):  # more than the 4,096 the in-memory ledger once kept
        await ledger.run_once(("t", f"call-{n}"), other)
    assert await ledger.run_once(("t", "the-first"), first) == "sent"
    assert runs == ["first"]


async def test_prune_forgets_by_age_and_keeps_claims_in_doubt(tmp_path: Path) -> None:
    ledger = SQLiteLedger(tmp_path / "calls.db")

    async def tool() -> str:
        return "sent"

    await ledger.run_once(("t", "done"), tool)
    assert ledger.prune(older_than=3600) == 0
    assert ledger.prune(older_than=0) == 1
    assert await ledger.recorded(("t", "done")) is None
    memory = MemoryLedger()
    await memory.run_once(("t", "done"), tool)
    assert memory.prune(older_than=3600) == 0
    assert memory.prune(older_than=0) == 1
    with pytest.raises(ValueError, match="negative"):
        memory.prune(older_than=-1)


# -- a restart forgets nothing ----------------------------------------------------------------


def _server_env(tmp_path: Path, runs: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in {"OPENAI_API_KEY", LEDGER_ENV}}
    env.update(
        PYTHONPATH=os.pathsep.join([str(tmp_path), env.get("PYTHONPATH", "")]),
        RUNS_FILE=str(runs),
        OPENAI_AGENTS_DISABLE_TRACING="1",
        XDG_STATE_HOME=str(tmp_path / "state"),  # the default per-user location, made temporary
    )
    return env


@pytest.fixture
def serve_twice(tmp_path: Path) -> Iterator[Any]:
    target = write_agent_module(tmp_path)
    secret = tmp_path / "secret"
    secret.write_text(SECRET + "\n")
    runs = tmp_path / "runs.txt"
    runs.touch()
    started: list[Served] = []

    def start() -> Served:
        server = Served([target, "--secret-file", str(secret)], _server_env(tmp_path, runs))
        started.append(server)
        server.wait_ready()
        return server

    start.runs = runs  # type: ignore[attr-defined]
    try:
        yield start
    finally:
        for server in started:
            server.stop()


@pytest.mark.parametrize("how", ["clean", "kill -9"])
async def test_a_restarted_serve_with_the_default_ledger_replays_an_approved_call(
    serve_twice: Any, tmp_path: Path, how: str
) -> None:
    first = serve_twice()
    resume = await paused_invoice(first.url)
    before = await events_of(first.url, resume)
    assert [e.content for e in before if isinstance(e, ToolCallResultEvent)] == [
        "Invoice sent to ACME."
    ]
    if how == "clean":
        first.stop()
    else:
        first.process.kill()
        first.process.wait(timeout=30)
    second = serve_twice()
    after = await events_of(second.url, resume)  # the same resume, to the new process
    assert not any(isinstance(e, RunErrorEvent) for e in after)
    [result] = [e for e in after if isinstance(e, ToolCallResultEvent)]
    assert result.content == "Invoice sent to ACME."
    assert (result.metadata or {})["interrupt"]["replayed"] is True
    assert _lines(serve_twice.runs) == 1
    assert _exists(tmp_path / "state" / "interrupt-widget" / "calls.db")


def _lines(path: Path) -> int:
    return len(path.read_text().splitlines())


def _exists(path: Path) -> bool:
    return path.exists()


# -- a call that ran has one truth ------------------------------------------------------------


async def _pause(adapter: OpenAIAgentsAdapter) -> tuple[list[Any], str]:
    ask = RunAgentInput(thread_id="t1", run_id="r1", messages=[UserMessage(id="u1", content=BOOK)])
    events = [e async for e in adapter.run(ask)]
    finished = events[-1]
    assert isinstance(finished, RunFinishedEvent)
    assert isinstance(finished.outcome, RunFinishedInterruptOutcome)
    snapshot = next(e for e in reversed(events) if isinstance(e, MessagesSnapshotEvent))
    return list(snapshot.messages), finished.outcome.interrupts[0].id


async def _answer(
    adapter: OpenAIAgentsAdapter, messages: list[Any], interrupt_id: str, entry: dict[str, Any]
) -> list[BaseEvent]:
    resume = RunAgentInput(
        thread_id="t1",
        run_id="r2",
        messages=messages,
        resume=[ResumeEntry(interrupt_id=interrupt_id, **entry)],
    )
    return [e async for e in adapter.run(resume)]


@pytest.mark.parametrize(
    "late",
    [
        {"status": "resolved", "payload": {"approved": False, "reason": "changed my mind"}},
        {"status": "cancelled"},
        {"status": "resolved", "payload": OTHER_TIME},
    ],
    ids=["deny", "cancel", "another-payload"],
)
async def test_a_late_answer_from_another_client_replays_the_result(late: dict[str, Any]) -> None:
    agent = meeting_agent(OfflineModel())
    messages, interrupt_id = await _pause(OpenAIAgentsAdapter(agent))
    approve = {"status": "resolved", "payload": APPROVE}
    ran = await _answer(OpenAIAgentsAdapter(agent), messages, interrupt_id, approve)
    [first] = [e for e in ran if isinstance(e, ToolCallResultEvent)]

    other_client = OpenAIAgentsAdapter(meeting_agent(OfflineModel()))  # same user's ledger
    again = await _answer(other_client, messages, interrupt_id, late)  # the stale messages
    assert not any(isinstance(e, RunErrorEvent) for e in again)
    [result] = [e for e in again if isinstance(e, ToolCallResultEvent)]
    assert result.content == first.content
    assert not result.content.startswith(NOT_RUN_PREFIX)
    marker = (result.metadata or {})["interrupt"]
    assert marker["replayed"] is True
    assert marker["ran_with"] == APPROVE
    assert marker["decision"] == "approved"
    assert agent.executions.count() == 1


async def _answered(chat: AgentChat, payload: dict[str, Any]) -> ChatResult:
    """Answer the chat's open question as a click would, and wait for the run to end."""
    assert chat.picker is not None
    chat.picker.resolve(payload, by="user")
    assert chat.last_run is not None
    return await chat.last_run


async def _saved_then_answered(
    agent: Any, tmp_path: Path, payload: dict[str, Any]
) -> tuple[AgentChat, Path]:
    """A chat asked to book, saved while it waits, then answered: the chat and the stale save."""
    chat = AgentChat(agent)
    chat.send(BOOK)
    await until(chat, lambda: chat.status == "waiting")
    stale = chat.save(tmp_path / "waiting.json")  # saved before the answer
    await _answered(chat, payload)
    return chat, stale


async def test_the_decision_log_shows_the_answer_that_ran_and_the_late_one(
    recorder: CommRecorder, tmp_path: Path
) -> None:
    agent = meeting_agent(OfflineModel())
    chat, stale = await _saved_then_answered(agent, tmp_path, APPROVE)
    assert [d.outcome for d in chat.decisions] == ["ran"]

    second = AgentChat.load(stale, meeting_agent(OfflineModel()))  # another kernel, same user
    result = await _answered(second, {"approved": False, "reason": "too late"})
    [late] = second.decisions
    assert (late.verdict, late.outcome, late.ran_with) == ("denied", "replayed", APPROVE)
    assert "Not run" not in " ".join(str(m.content) for m in second.thread.messages)
    assert "Tue 8 Jan" in result.text
    assert agent.executions.count() == 1
    saved = second.save_decisions(tmp_path / "decisions.json").read_text()
    assert '"outcome": "replayed"' in saved


async def test_a_stale_save_approved_after_a_denial_runs_nothing(
    recorder: CommRecorder, tmp_path: Path
) -> None:
    agent = meeting_agent(OfflineModel())
    denial = {"approved": False, "reason": "not this week"}
    chat, stale = await _saved_then_answered(agent, tmp_path, denial)
    assert [d.outcome for d in chat.decisions] == ["not_run"]

    other_agent = meeting_agent(OfflineModel())
    second = AgentChat.load(stale, other_agent)  # another kernel, same user
    await _answered(second, APPROVE)
    [late] = second.decisions
    assert (late.verdict, late.outcome) == ("approved", "not_run")
    contents = [str(m.content) for m in second.thread.messages if m.role == "tool"]
    assert any(c.startswith(NOT_RUN_PREFIX) and "not this week" in c for c in contents)
    assert agent.executions.count() == 0
    assert other_agent.executions.count() == 0


async def test_a_stale_save_approved_again_replays_and_does_not_run(
    recorder: CommRecorder, tmp_path: Path
) -> None:
    old_agent = meeting_agent(OfflineModel())
    _, stale = await _saved_then_answered(old_agent, tmp_path, APPROVE)

    new_agent = meeting_agent(OfflineModel())  # as in a restarted kernel
    loaded = AgentChat.load(stale, new_agent)
    await _answered(loaded, APPROVE)
    assert old_agent.executions.count() == 1
    assert new_agent.executions.count() == 0
    assert [d.outcome for d in loaded.decisions] == ["replayed"]


async def test_a_late_deny_of_a_call_in_doubt_is_refused_with_its_code(tmp_path: Path) -> None:
    ledger = SQLiteLedger(tmp_path / "calls.db")
    agent = meeting_agent(OfflineModel())
    adapter = OpenAIAgentsAdapter(agent, ledger=ledger)
    messages, interrupt_id = await _pause(adapter)
    call_id = messages[-1].tool_calls[0].id
    # Another process claims the call and dies before its result, as a crash leaves it.
    code = (
        "import asyncio, os\n"
        "from interrupt_widget.ledger.sqlite import SQLiteLedger\n"
        f"ledger = SQLiteLedger({str(tmp_path / 'calls.db')!r})\n"
        "async def invoke():\n"
        "    os._exit(3)\n"
        f"asyncio.run(ledger.run_once(('t1', {call_id!r}), invoke))\n"
    )
    died = await asyncio.create_subprocess_exec(sys.executable, "-c", code)
    assert await died.wait() == 3
    deny = {"status": "resolved", "payload": {"approved": False}}
    events = await _answer(adapter, messages, interrupt_id, deny)
    error = events[-1]
    assert isinstance(error, RunErrorEvent)
    assert error.code == "call_in_doubt"
    assert "release" in error.message
    assert str(tmp_path) not in error.message
    assert not any(isinstance(e, ToolCallResultEvent) for e in events)
    assert agent.executions.count() == 0


def test_asgi_app_takes_a_ledger_path(tmp_path: Path) -> None:
    app = asgi_app(meeting_agent(OfflineModel()), secret=SECRET, ledger=tmp_path / "app.db")
    assert app is not None
    assert (tmp_path / "app.db").exists()
