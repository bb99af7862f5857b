"""The one way an entry turns what the user passed into an AG-UI agent, and its options.

`AgentChat`, `AgentBatch`, `asgi_app`/`serve` and a Temporal worker each take an agent:
an `agents.Agent`, which runs in an `OpenAIAgentsAdapter` made here with `AgentOptions`,
or an object that already speaks AG-UI (an adapter, a `RemoteAgent`, a `TemporalAgent`),
which runs itself and so takes none of them. `resolve_agent` is the one place that
decides, so every entry accepts the same options and refuses the same ones in the same
words; an agent that names no model runs on `OfflineModel` when no OpenAI key is set
(the SDK's default model would only fail with "Missing credentials"), and says so.
"""

from __future__ import annotations

import dataclasses
import logging
import os
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, TypedDict, Unpack

from agents import Agent, Model, RunConfig, RunHooks

from interrupt_widget.agui.run_handle import AGUIAgent
from interrupt_widget.ledger.opening import LedgerSpec
from interrupt_widget.policy.rules import Policy
from interrupt_widget.sdk.adapter import OpenAIAgentsAdapter, uses_default_model
from interrupt_widget.sdk.cassette import Cassette, cassette_from
from interrupt_widget.sdk.model_choice import has_openai_credentials
from interrupt_widget.sdk.offline_model import OfflineModel

__all__ = ["OPTION_NAMES", "AgentOptions", "OptionsBesidePolicy", "ResolvedAgent", "resolve_agent"]

_log = logging.getLogger(__name__)


class OptionsBesidePolicy(TypedDict, total=False):
    """`AgentOptions` but the policy: what `serve` takes as it is (it also takes a policy
    by name, for worker processes to import)."""

    model: str | Model | None
    """Replaces the agent's model (e.g. `OfflineModel()`); its handoffs keep theirs."""
    run_config: RunConfig | None
    """The SDK's `RunConfig`, passed to every run, resumed ones included."""
    expires_in: float | timedelta | None
    """How long an interrupt stays answerable (seconds or a timedelta); None: for ever."""
    response_schemas: Mapping[str, Mapping[str, Any]] | None
    """Extra answer fields per tool name, beside `approved` (see `with_response_schema`)."""
    ledger: LedgerSpec
    """Where approved calls are claimed and recorded (see `interrupt_widget.ledger.opening`):
    the per-user SQLite file by default; a path, a `postgresql://` URL, `"memory"`, a ledger."""
    hooks: RunHooks[Any] | None
    """The SDK's `RunHooks`, passed to every run, resumed ones included."""
    cassette: Cassette | str | os.PathLike[str] | None
    """Where the model's answers are recorded and replayed (a `Cassette`, or a path for one;
    None: the environment's, if any)."""


class AgentOptions(OptionsBesidePolicy, total=False):
    """What an entry (`AgentChat`, `AgentBatch`, `asgi_app`, `serve`) may set on the agent it
    makes from an `agents.Agent`. Each goes to the `OpenAIAgentsAdapter` that runs it."""

    policy: Policy | None
    """Rules that settle the calls they cover without a person (`Policy`)."""


OPTION_NAMES: tuple[str, ...] = tuple(AgentOptions.__annotations__)
"""The names of `AgentOptions`, in the order the refusals list them."""


@dataclass(frozen=True)
class ResolvedAgent:
    """What an entry runs: the AG-UI agent, and what it was made from."""

    runs_on: AGUIAgent
    """The AG-UI agent every run goes to."""
    agent: Any
    """The `agents.Agent` it runs (with `model` swapped in), or the AG-UI agent given."""
    offline: bool
    """True when it runs on `OfflineModel` because no key is set and the agent names no model."""

    @property
    def adapter(self) -> OpenAIAgentsAdapter | None:
        """The kit's adapter when one runs it (made here, or given); None for another."""
        return self.runs_on if isinstance(self.runs_on, OpenAIAgentsAdapter) else None


def resolve_agent(agent: Any, **options: Unpack[AgentOptions]) -> ResolvedAgent:
    """`agent` as an AG-UI agent: itself when it speaks AG-UI already (then `options` are
    refused: they belong where it runs), else an `OpenAIAgentsAdapter` made with `options`.

    Raises `TypeError` for an option this kit does not know, for options given to an agent
    that already speaks AG-UI, and for an `agent` that is neither kind.
    """
    given = _given(options)
    if isinstance(agent, AGUIAgent):  # an adapter, a `RemoteAgent`, a `TemporalAgent`
        if given:
            raise TypeError(
                f"{_listed(given)} cannot be given beside {type(agent).__name__}, which "
                "already speaks AG-UI: they belong to the agent where it runs (give them to "
                "OpenAIAgentsAdapter(agent, ...), or where it is served: a server, or workers)"
            )
        sdk_agent = agent.agent if isinstance(agent, OpenAIAgentsAdapter) else agent
        return ResolvedAgent(runs_on=agent, agent=sdk_agent, offline=False)
    if not isinstance(agent, Agent):
        raise TypeError(
            "an agent is an agents.Agent or an AG-UI agent (an OpenAIAgentsAdapter, a "
            f"RemoteAgent, a TemporalAgent), not {type(agent).__name__}"
        )
    return _adapted(agent, options)


def _given(options: Mapping[str, object]) -> list[str]:
    """The names of the options given (not None), unknown names refused first."""
    unknown = sorted(set(options) - set(OPTION_NAMES))
    if unknown:
        raise TypeError(
            f"unknown agent option {_listed(unknown)}: the options are {_listed(OPTION_NAMES)}"
        )
    return [name for name in OPTION_NAMES if options.get(name) is not None]


def _listed(names: list[str] | tuple[str, ...]) -> str:
    return ", ".join(names)


def _adapted(agent: Agent[Any], options: AgentOptions) -> ResolvedAgent:
    model = options.get("model")
    if model is not None:
        agent = agent.clone(model=model)
    tape = cassette_from(options.get("cassette"))
    config = options.get("run_config")
    # A cassette that replays answers for the model, whatever the agent names.
    replaying = tape is not None and not tape.records
    offline = (
        uses_default_model(agent)
        and (config is None or config.model is None)
        and not has_openai_credentials()
        and not replaying
    )
    if offline:
        _log.warning("%s: %s.", agent.name, OFFLINE_FALLBACK_NOTE)
        # Every agent of the run names no model, so the run's model changes nothing else;
        # the trace exporter needs the network and a key.
        config = dataclasses.replace(
            config or RunConfig(), model=OfflineModel(), tracing_disabled=True
        )
    elif replaying and not has_openai_credentials():
        # Nor can it export a replay's trace: with no key it warns, from its own thread, into
        # whatever cell runs five seconds later (a regression run's checked output, in CI).
        config = dataclasses.replace(config or RunConfig(), tracing_disabled=True)
    adapter = OpenAIAgentsAdapter(
        agent,
        run_config=config,
        expires_in=options.get("expires_in"),
        response_schemas=options.get("response_schemas"),
        policy=options.get("policy"),
        ledger=options.get("ledger"),
        hooks=options.get("hooks"),
        cassette=tape,
    )
    return ResolvedAgent(runs_on=adapter, agent=agent, offline=offline)


OFFLINE_FALLBACK_NOTE = (
    "on the offline model: no OpenAI key is set and the agent names no model; set "
    "OPENAI_API_KEY before making the agent to use a real one"
)
"""Logged (and said in a chat's running line) when an agent runs offline for want of a key."""
