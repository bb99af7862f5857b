"""One way to make an agent: every entry (the chat, a batch, `asgi_app`, `serve`, a Temporal
worker) accepts and refuses the same options, in the same words (`sdk/agent_options.py`).

A differential test: each refused combination goes to every entry that can take it, and
each must raise the same exception class with the same message.
"""

from __future__ import annotations

import pathlib
from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from agents import RunConfig, RunHooks

from interrupt_widget import (
    AgentBatch,
    AgentChat,
    OfflineModel,
    OpenAIAgentsAdapter,
    Policy,
    RemoteAgent,
    approve,
    asgi_app,
    serve,
)
from interrupt_widget.examples import bank_agent
from interrupt_widget.sdk.agent_options import OPTION_NAMES, resolve_agent
from interrupt_widget.testing import CommRecorder

SECRET = "a-test-secret-that-is-long-enough"

Entry = Callable[..., object]

ENTRIES: dict[str, Entry] = {
    "AgentChat": lambda agent, **options: AgentChat(agent, **options),
    "AgentBatch": lambda agent, **options: AgentBatch(agent, ["hello"], name="n", **options),
    "asgi_app": lambda agent, **options: asgi_app(agent, secret=SECRET, **options),
    "serve": lambda agent, **options: serve(agent, secret=SECRET, **options),
}


def _option_values(tmp_path: pathlib.Path) -> dict[str, Any]:
    """A value for every agent option, each one an entry would accept for an `agents.Agent`."""
    return {
        "model": OfflineModel(),
        "run_config": RunConfig(),
        "expires_in": timedelta(minutes=5),
        "response_schemas": {"transfer_funds": {"type": "object", "properties": {}}},
        "policy": Policy(approve("transfer_funds")),
        "ledger": tmp_path / "calls.db",
        "hooks": RunHooks[Any](),
        "cassette": tmp_path / "model.json",
    }


def _refusal(entry: Entry, agent: object, options: dict[str, Any]) -> tuple[type, str]:
    with pytest.raises(Exception) as caught:  # noqa: PT011 - the class is what is compared
        entry(agent, **options)
    return type(caught.value), str(caught.value)


def _same_everywhere(agent: object, options: dict[str, Any]) -> tuple[type, str]:
    found = {name: _refusal(entry, agent, options) for name, entry in ENTRIES.items()}
    assert len(set(found.values())) == 1, found
    return next(iter(found.values()))


def test_the_options_are_one_set(tmp_path: pathlib.Path) -> None:
    assert set(_option_values(tmp_path)) == set(OPTION_NAMES)


@pytest.mark.usefixtures("recorder")
@pytest.mark.parametrize("option", OPTION_NAMES)
def test_an_agent_that_speaks_ag_ui_refuses_each_option_alike_at_every_entry(
    option: str, tmp_path: pathlib.Path
) -> None:
    adapter = OpenAIAgentsAdapter(bank_agent(OfflineModel()), ledger=tmp_path / "calls.db")
    value = _option_values(tmp_path)[option]
    kind, message = _same_everywhere(adapter, {option: value})
    assert kind is TypeError
    assert message.startswith(f"{option} cannot be given beside OpenAIAgentsAdapter")
    assert (kind, message) == _refusal(
        lambda a, **o: resolve_agent(a, **o), adapter, {option: value}
    )


@pytest.mark.usefixtures("recorder")
def test_a_remote_agent_refuses_several_options_alike_naming_them_all() -> None:
    remote = RemoteAgent("http://127.0.0.1:9/")
    kind, message = _same_everywhere(remote, {"policy": Policy(), "ledger": "memory"})
    assert kind is TypeError
    assert message.startswith("ledger, policy cannot be given beside RemoteAgent")
    assert "where it is served" in message


@pytest.mark.usefixtures("recorder")
def test_what_is_no_agent_is_refused_alike() -> None:
    kind, message = _same_everywhere(42, {})
    assert kind is TypeError
    assert message.endswith("not int")


@pytest.mark.usefixtures("recorder")
def test_an_unknown_option_is_refused_alike_naming_the_options() -> None:
    kind, message = _same_everywhere(bank_agent(OfflineModel()), {"tool_choice": "auto"})
    assert kind is TypeError
    assert message.startswith("unknown agent option tool_choice: the options are model, ")


@pytest.mark.usefixtures("recorder")
def test_a_worker_refuses_a_ledger_beside_an_adapter_in_the_same_words(
    tmp_path: pathlib.Path,
) -> None:
    pytest.importorskip("temporalio")
    from interrupt_widget.temporal import adapter_for

    adapter = OpenAIAgentsAdapter(bank_agent(OfflineModel()), ledger=tmp_path / "calls.db")
    worker = _refusal(lambda a, **o: adapter_for(a, **o), adapter, {"ledger": "memory"})
    assert worker == _same_everywhere(adapter, {"ledger": "memory"})


@pytest.mark.usefixtures("recorder")
def test_a_temporal_agent_refuses_options_alike() -> None:
    pytest.importorskip("temporalio")
    from interrupt_widget.temporal import TemporalAgent

    temporal = TemporalAgent("127.0.0.1:9", agent="m:agent", task_queue="q")
    kind, message = _same_everywhere(temporal, {"cassette": "model.json"})
    assert kind is TypeError
    assert message.startswith("cassette cannot be given beside TemporalAgent")


def test_every_entry_accepts_every_option_for_an_sdk_agent(
    recorder: CommRecorder, tmp_path: pathlib.Path
) -> None:
    options = _option_values(tmp_path)
    agent = bank_agent(OfflineModel())
    chat = AgentChat(agent, **options)
    assert chat.agent is not agent  # the given model swapped into a copy
    batch = AgentBatch(agent, ["hello"], name="n", **options)
    assert isinstance(batch.adapter, OpenAIAgentsAdapter)
    assert batch.adapter.policy is options["policy"]
    assert batch.ledger is batch.adapter.ledger  # the rows' outcomes beside the calls
    asgi_app(agent, secret=SECRET, **options)
