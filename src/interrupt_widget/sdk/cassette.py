"""`Cassette`: a model's answers recorded once at the SDK's `Model` seam, replayed for ever.

A notebook or test whose agent runs on a real model (`model="gpt-4o"`) records each
model call once, with a key, into a JSON Lines file beside it; every later run replays
the file with no key and no network, streaming included, so the notebook regresses
under nbval in CI::

    from interrupt_widget import AgentChat, Cassette

    chat = AgentChat(agent, cassette="orders.cassette.jsonl")   # or Cassette(path, mode=...)

The cassette sits where the Agents SDK asks a model (`Model.get_response` and
`Model.stream_response`), above HTTP: it records what the model was asked (the canonical
request, `cassette_requests`) and what it answered (every stream event, in order), never
a header or a key. It is an SDK `ModelProvider` (`RunConfig(model_provider=cassette)`
for your own `Runner.run`, which also covers handoffs and agents used as tools that
name their model), and `cassette.wrap(agent)` covers agents that hold a `Model`
instance. `AgentChat`, `AgentBatch` and `OpenAIAgentsAdapter` take `cassette=`.

Modes, as vcrpy and pytest-recording name them:

- `once` (default): replay if the file exists (a request it lacks fails), else record;
- `none`: replay only; a request the file lacks fails with `CassetteMismatch`, a missing
  file with `CassetteMissing`, and nothing reaches the model (nor the network);
- `new_episodes`: replay what the file has, record (append) what it lacks;
- `all`: record every call anew, replacing the file.

`INTERRUPT_WIDGET_CASSETTE_MODE` (set by `pytest --cassette-mode`) overrides the mode
of every cassette in the process, so one switch re-records or locks a whole run; and
`INTERRUPT_WIDGET_CASSETTE=<path>` gives a cassette to everything created without one.
`INTERRUPT_WIDGET_RECORD=<stem>` and `INTERRUPT_WIDGET_REPLAY=<stem>` record and replay a
run's cassette and its decision file together (`interrupt_widget.recordings`).
"""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import dataclasses
import functools
import os
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any, Final, Literal, cast, get_args

from agents import (
    Agent,
    AgentOutputSchemaBase,
    Handoff,
    Model,
    ModelProvider,
    ModelResponse,
    ModelSettings,
    ModelTracing,
    RunConfig,
    Tool,
)
from agents.items import TResponseInputItem, TResponseStreamEvent
from agents.models.multi_provider import MultiProvider
from openai import AsyncOpenAI
from openai.types.responses.response_prompt_param import ResponsePromptParam

from interrupt_widget.errors import CassetteMismatch, CassetteMissing
from interrupt_widget.recordings import recording, replaying
from interrupt_widget.sdk import cassette_requests
from interrupt_widget.sdk.cassette_file import Entry, Redact, event_json, load, response_json, write
from interrupt_widget.sdk.cassette_requests import Request, canonical_request, explain
from interrupt_widget.sdk.response_stream import response_stream

__all__ = ["CASSETTE_ENV", "CASSETTE_MODE_ENV", "Cassette", "CassetteMode", "cassette_from"]

CassetteMode = Literal["once", "none", "new_episodes", "all"]
MODES: Final = get_args(CassetteMode)

CASSETTE_ENV: Final = "INTERRUPT_WIDGET_CASSETTE"
"""A cassette path for every chat, batch and adapter created without `cassette=`."""
CASSETTE_MODE_ENV: Final = "INTERRUPT_WIDGET_CASSETTE_MODE"
"""The mode of every cassette in the process (`pytest --cassette-mode` sets it)."""

REPLAY_ONLY_KEY: Final = "no-key-replaying-a-cassette"
"""The key `Cassette.openai_client` gives a client that only replays: never sent anywhere."""

_ACTIVE: contextvars.ContextVar[Cassette | None] = contextvars.ContextVar(
    "interrupt_widget_cassette", default=None
)
"""The cassette of the run in this context: the kit's runs set it, tapped models read it."""


class Cassette(ModelProvider):
    """Records a run's model calls to `path` and replays them (see the module docs)."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        mode: CassetteMode | None = None,
        *,
        provider: ModelProvider | None = None,
        redact: Redact | None = None,
    ) -> None:
        """`provider` makes the real models a recording calls (the SDK's own by default);
        `redact(line) -> line` may change each line before it is written (see `cassette_file`)."""
        self.path = Path(path)
        """The JSON Lines file."""
        forced = os.environ.get(CASSETTE_MODE_ENV) or ("none" if replaying() else None)
        self.mode: CassetteMode = _mode(forced or mode or "once")
        """The mode in force: `INTERRUPT_WIDGET_CASSETTE_MODE` when set, else `none` while
        `INTERRUPT_WIDGET_REPLAY` is set, else the one given."""
        self.provider = provider
        """Where the models come from when recording (None: the SDK's `MultiProvider`)."""
        self.redact = redact
        """Called with each line (a dict) before it is written; returns what to write."""
        self._lock = threading.Lock()
        self._existed = self.path.exists()
        self._entries: list[Entry] = load(self.path) if self._existed and self.mode != "all" else []
        self._used: set[int] = set()
        self._started_anew = False

    def __repr__(self) -> str:
        return f"Cassette({str(self.path)!r}, mode={self.mode!r})"

    @property
    def records(self) -> bool:
        """Whether a request the file lacks is recorded (else it fails)."""
        return self.mode in ("all", "new_episodes") or (self.mode == "once" and not self._existed)

    @property
    def entries(self) -> list[Entry]:
        """What the cassette holds now, recorded and newly recorded, in order."""
        with self._lock:
            return list(self._entries)

    # -- the SDK's seams ---------------------------------------------------------------

    def get_model(self, model_name: str | None) -> Model:
        """A model that records or replays the calls to the model named `model_name`."""
        return TapedModel(lambda: self._provider().get_model(model_name), bound=self)

    def wrap(self, agent: Agent[Any]) -> Agent[Any]:
        """Put every `Model` instance held by `agent`, its handoffs and the agents it uses as
        tools on this cassette (in place; it returns `agent`). Models named by string go
        through `RunConfig(model_provider=cassette)` instead."""
        tap_models(agent, bound=self)
        return agent

    def openai_client(self, **options: Any) -> AsyncOpenAI:
        """An `AsyncOpenAI` for a model instance this cassette covers, that builds with no key
        while the cassette only replays::

            cassette = Cassette("orders.cassette.jsonl")
            model = OpenAIResponsesModel(model="gpt-4o", openai_client=cassette.openai_client())

        With a key (`OPENAI_API_KEY`, or `api_key=` among `options`) it is
        `AsyncOpenAI(**options)`. With none, while the cassette cannot record (`records` is
        False: mode `none`, or `once` with its file), the client gets a placeholder key and
        is never called: the file answers every call, and a call it lacks fails with
        `CassetteMismatch` before any model is asked. A cassette that would record needs the
        real key, and `AsyncOpenAI` says so as it always does."""
        keyless = not options.get("api_key") and not os.environ.get("OPENAI_API_KEY")
        if keyless and not self.records:
            options["api_key"] = REPLAY_ONLY_KEY
        return AsyncOpenAI(**options)

    def run_config(self, config: RunConfig | None = None) -> RunConfig:
        """`config` (or a new one) with this cassette as its model provider, the given provider
        (if any) recording behind it, and a `Model` instance set on it taped."""
        config = config or RunConfig()
        given = config.model_provider
        if self.provider is None and given is not self and not isinstance(given, MultiProvider):
            self.provider = given  # the run's own provider records behind the cassette
        model = config.model
        if isinstance(model, Model) and not isinstance(model, TapedModel):
            model = TapedModel(model, bound=self)
        return dataclasses.replace(config, model_provider=self, model=model)

    @contextlib.contextmanager
    def active(self) -> Iterator[None]:
        """Make this the cassette of every taped model called in this context."""
        token = _ACTIVE.set(self)
        try:
            yield
        finally:
            _ACTIVE.reset(token)

    # -- recording and replaying ---------------------------------------------------------

    def _provider(self) -> ModelProvider:
        if self.provider is None:
            self.provider = MultiProvider()
        return self.provider

    def _recorded(self, request: Request) -> Entry | None:
        """The entry that answers `request`: the first unused one with its digest, else
        (a cell run again) the last used one; None if the file has none."""
        key = cassette_requests.digest(request)
        with self._lock:
            matches = [i for i, e in enumerate(self._entries) if e.digest == key]
            if not matches:
                return None
            index = next((i for i in matches if i not in self._used), matches[-1])
            self._used.add(index)
            return self._entries[index]

    def _lookup(self, request: Request) -> Entry | None:
        """The entry to replay, None to record, or the error saying why neither may happen."""
        if self.mode == "all":
            return None
        if self.mode == "none" and not self._existed:
            raise CassetteMissing(
                f"The cassette {str(self.path)!r} does not exist and its mode is 'none' (replay "
                f"only). Record it once with a key: {_RECORD_HOW}."
            )
        found = self._recorded(request)
        if found is not None or self.records:
            return found
        raise self._mismatch(request)

    def _mismatch(self, request: Request) -> CassetteMismatch:
        entries = self.entries
        if not entries:
            return CassetteMismatch(
                f"The cassette {str(self.path)!r} has no recorded turns, and its mode is "
                f"{self.mode!r}. Record it: {_RECORD_HOW}."
            )
        closest = max(entries, key=lambda e: _likeness(e.request, request))
        difference = explain(closest.request, request)
        return CassetteMismatch(
            f"turn {closest.turn}: {difference}. The model was asked something the cassette "
            f"{str(self.path)!r} did not record (mode {self.mode!r}), so nothing was sent to "
            f"it. If the change is meant, record again: {_RECORD_HOW}; or use mode "
            "'new_episodes' to keep the turns that still match.",
            turn=closest.turn,
            difference=difference,
        )

    def _keep(self, entry_of: Callable[[int], Entry]) -> None:
        with self._lock:
            entry = entry_of(len(self._entries) + 1)
            truncate = self.mode == "all" and not self._started_anew
            write(self.path, entry, redact=self.redact, truncate=truncate)
            self._started_anew = True
            self._entries.append(entry)


_RECORD_HOW: Final = (
    f"set {CASSETTE_MODE_ENV}=all (or run pytest with --cassette-mode=all, or "
    "Cassette(path, mode='all')) with OPENAI_API_KEY set, and run it once"
)


def _mode(value: str) -> CassetteMode:
    if value not in MODES:
        raise ValueError(f"unknown cassette mode {value!r}: use one of {', '.join(MODES)}")
    return cast(CassetteMode, value)


def _likeness(recorded: Request, asked: Request) -> tuple[int, int]:
    """How close a recorded request is to `asked`: equal fields, then the shared input prefix."""
    equal = sum(recorded.get(k) == asked.get(k) for k in set(recorded) | set(asked))
    shared = 0
    for a, b in zip(recorded.get("input") or [], asked.get("input") or [], strict=False):
        if a != b:
            break
        shared += 1
    return equal, shared


class TapedModel(Model):
    """A `Model` whose calls go through a cassette: the one active in this context, else the
    one it is bound to; with neither, straight to the model it wraps."""

    def __init__(self, inner: Model | Callable[[], Model], *, bound: Cassette | None) -> None:
        self._inner = inner
        self.bound = bound
        """The cassette this model records to when no run activates another."""

    def inner(self) -> Model:
        """The model a recording asks (made on first use: a replay never makes it)."""
        if not isinstance(self._inner, Model):
            self._inner = self._inner()
        return self._inner

    def _cassette(self) -> Cassette | None:
        return _ACTIVE.get() or self.bound

    async def get_response(
        self,
        system_instructions: str | None,
        input: str | list[TResponseInputItem],
        model_settings: ModelSettings,
        tools: list[Tool],
        output_schema: AgentOutputSchemaBase | None,
        handoffs: list[Handoff[Any, Any]],
        tracing: ModelTracing,
        *,
        previous_response_id: str | None,
        conversation_id: str | None,
        prompt: ResponsePromptParam | None,
    ) -> ModelResponse:
        """The cassette's recorded response to this request, else the inner model's (kept)."""
        args = (system_instructions, input, model_settings, tools, output_schema, handoffs, tracing)
        call = _Call(args, previous_response_id, conversation_id, prompt)
        cassette = self._cassette()
        if cassette is None:
            return await self.inner().get_response(*call.args, **call.kwargs)
        entry = cassette._lookup(call.request)
        if entry is not None:
            return entry.model_response()
        response = await self.inner().get_response(*call.args, **call.kwargs)
        cassette._keep(call.entry("response", response=response_json(response)))
        return response

    async def stream_response(
        self,
        system_instructions: str | None,
        input: str | list[TResponseInputItem],
        model_settings: ModelSettings,
        tools: list[Tool],
        output_schema: AgentOutputSchemaBase | None,
        handoffs: list[Handoff[Any, Any]],
        tracing: ModelTracing,
        *,
        previous_response_id: str | None,
        conversation_id: str | None,
        prompt: ResponsePromptParam | None,
    ) -> AsyncIterator[TResponseStreamEvent]:
        """The cassette's recorded stream for this request, else the inner model's (kept)."""
        args = (system_instructions, input, model_settings, tools, output_schema, handoffs, tracing)
        call = _Call(args, previous_response_id, conversation_id, prompt)
        cassette = self._cassette()
        entry = None if cassette is None else cassette._lookup(call.request)
        if entry is not None:
            async for event in _replayed_stream(entry):
                yield event
            return
        seen: list[dict[str, Any]] = []
        async for event in self.inner().stream_response(*call.args, **call.kwargs):
            seen.append(event_json(event))
            yield event
        if cassette is not None:
            cassette._keep(call.entry("stream", events=seen))

    async def close(self) -> None:
        if isinstance(self._inner, Model):
            await self._inner.close()


async def _replayed_stream(entry: Entry) -> AsyncIterator[TResponseStreamEvent]:
    if entry.kind == "response":  # recorded by a run that did not stream
        response = entry.model_response()
        async for event in response_stream(response.response_id or "", response.output):
            yield event
        return
    for event in entry.stream_events():
        # Yield to the loop per event, as a network stream would: a reader may stop the run.
        await asyncio.sleep(0)
        yield event


class _Call:
    """One call at the seam: its arguments, and its canonical request (made only when a
    cassette reads it: a taped model outside a cassette's run passes straight through)."""

    def __init__(
        self,
        args: tuple[Any, ...],
        previous_response_id: str | None,
        conversation_id: str | None,
        prompt: ResponsePromptParam | None,
    ) -> None:
        self.args = args
        self.kwargs: dict[str, Any] = {
            "previous_response_id": previous_response_id,
            "conversation_id": conversation_id,
            "prompt": prompt,
        }

    @functools.cached_property
    def request(self) -> Request:
        instructions, input, settings, tools, output_schema, handoffs, _tracing = self.args
        return canonical_request(
            instructions, input, settings, tools, output_schema, handoffs, **self.kwargs
        )

    def entry(self, kind: Literal["stream", "response"], **answer: Any) -> Callable[[int], Entry]:
        request = self.request
        key = cassette_requests.digest(request)
        return lambda turn: Entry(turn=turn, digest=key, request=request, kind=kind, **answer)


def tap_models(agent: Agent[Any], *, bound: Cassette | None) -> None:
    """Wrap every `Model` instance of `agent`'s graph (handoffs, agents as tools) in place.

    A model already taped keeps its tap (and gets `bound` if it had none). With `bound`
    None, the taps follow whichever cassette a run activates, and pass through otherwise.
    """
    for found in _agent_graph(agent):
        model = found.model
        if isinstance(model, TapedModel):
            model.bound = model.bound or bound
        elif isinstance(model, Model):
            found.model = TapedModel(model, bound=bound)


def _agent_graph(root: Agent[Any]) -> list[Agent[Any]]:
    """`root` and every agent it can reach through handoffs and agents used as tools."""
    found: list[Agent[Any]] = []
    queue: list[Any] = [root]
    while queue:
        agent = queue.pop()
        if not isinstance(agent, Agent) or any(agent is seen for seen in found):
            continue
        found.append(agent)
        for handoff in agent.handoffs:
            # The SDK keeps a handoff's agent in `_agent_ref` and an agent tool's in
            # `_agent_instance`, and reads them the same way (`_run_state_agent_identity`).
            ref = getattr(handoff, "_agent_ref", None)
            queue.append(handoff if isinstance(handoff, Agent) else ref() if ref else None)
        queue.extend(getattr(tool, "_agent_instance", None) for tool in agent.tools)
    return found


def cassette_from(spec: Cassette | str | os.PathLike[str] | None) -> Cassette | None:
    """The cassette `spec` names: itself, one at a path, or else the environment's: the run
    `INTERRUPT_WIDGET_RECORD` records (one cassette for the process, recording anew), the
    one `INTERRUPT_WIDGET_REPLAY` replays, or `INTERRUPT_WIDGET_CASSETTE`'s."""
    if isinstance(spec, Cassette):
        return spec
    if spec is not None:
        return Cassette(spec)
    run = recording()
    if run is not None:
        return _recording_cassette(run.cassette.resolve())
    run = replaying()
    if run is not None:
        return Cassette(run.cassette)
    path = os.environ.get(CASSETTE_ENV, "").strip()
    return Cassette(path) if path else None


_RECORDING: dict[Path, Cassette] = {}
_RECORDING_LOCK = threading.Lock()


def _recording_cassette(path: Path) -> Cassette:
    # One for every chat of the process: the file starts anew once, and each chat's calls
    # are added to it in turn.
    with _RECORDING_LOCK:
        if path not in _RECORDING:
            _RECORDING[path] = Cassette(path, mode="all")
        return _RECORDING[path]
