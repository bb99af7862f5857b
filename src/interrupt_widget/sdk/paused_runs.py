"""The SDK's own paused run, kept where the kit keeps what ran, so a resume continues it.

When a run pauses on approvals, the adapter serialises the Agents SDK's
`RunState` and keeps it in the call ledger under (thread id,
`sdk-state:<digest of the waiting call ids>`): the store that replicas already
share for exactly-once, written once. A resume loads it from there, never from
the client (approvals travel inside a state, so a client-sent one could approve
itself), checks that the calls it waits on are the calls the conversation
shows, rewrites an edited call's arguments before the SDK reads the state (so
the guardrails, the hooks and the tool all see the edited call), and hands it
back to `Runner.run_streamed`: the SDK stays the one executor.
"""

from __future__ import annotations

import functools
import hashlib
import json
import threading
from collections import OrderedDict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from agents import Agent, RunState, ToolApprovalItem

from interrupt_widget.agui.canonical import spell
from interrupt_widget.agui.interrupts import GatedCall, parse_arguments
from interrupt_widget.errors import AdapterError, ErrorCode
from interrupt_widget.ledger import pauses
from interrupt_widget.ledger.noting_ledger import Asked
from interrupt_widget.ledger.once_only import CallLedger, Key, all_settled
from interrupt_widget.ledger.pauses import PeopleSoFar
from interrupt_widget.sdk.vote_counting import PeopleAsked

STATE_PREFIX: Final = "sdk-state:"
"""Ledger keys that hold a paused run's state, beside the keys of tool calls."""


def state_key(thread_id: str, call_ids: Iterable[str]) -> Key:
    """Where the state of a run paused on `call_ids` is kept."""
    digest = hashlib.sha256("\n".join(sorted(call_ids)).encode()).hexdigest()[:32]
    return (thread_id, f"{STATE_PREFIX}{digest}")


def is_state_key(key: Key) -> bool:
    """Whether a ledger key holds a paused run's state rather than a tool call."""
    return key[1].startswith(STATE_PREFIX)


@dataclass(frozen=True)
class Paused:
    """A paused run to answer: the SDK's state and the approval items it waits on."""

    state: RunState[Any, Any]
    pending: dict[str, ToolApprovalItem]
    """By call id. For a state this process paused, the state's own items (the run's
    `interruptions`), as the SDK's docs approve them: `approve` then finds its item at
    once, where a detached copy (`get_interruptions()`) is found by copying and
    fingerprinting every pending call. Read, never changed."""

    @classmethod
    def restored(cls, state: RunState[Any, Any]) -> Paused:
        """A state read back from the ledger: its detached copies are all the SDK offers."""
        return cls(state, pending_items(state.get_interruptions()))


LIVE_STATES: Final = 256
"""How many paused states this process also keeps as objects, for its own resumes."""

_live: OrderedDict[tuple[int, int, Key], Paused] = OrderedDict()
"""By (the ledger, the starting agent, the key): a state resumes only with its own agent."""
_live_lock = threading.Lock()


async def keep(
    ledger: CallLedger,
    agent: Agent[Any],
    thread_id: str,
    state: RunState[Any, Any],
    interruptions: Sequence[ToolApprovalItem],
    asked: Sequence[Asked] = (),
    people: PeopleAsked | None = None,
) -> dict[str, PeopleSoFar]:
    """Keep `state` (paused on approvals) for the resume that answers them, with the audit's
    notes of the calls it `asked` and the records the rules about `people` keep, in one
    request to the ledger (`ledger/pauses.py`); what those rules count now, by call id.

    `interruptions` are the paused run's own (`RunResultStreaming.interruptions`, the
    items `state` holds). Written to the ledger, which every process and replica reads;
    the object itself is also kept in this process, so its own resume (the common case)
    skips restoring it. A ledger in memory is read by this process alone: the object is
    all it keeps.
    """
    pending = pending_items(interruptions)
    key = state_key(thread_id, pending)
    pause = pauses.Pause(
        functools.partial(state_text, state),
        asked,
        {} if people is None else people.records,
        () if people is None else people.rules.keys(),
    )
    so_far = await pauses.keep(ledger, key, pause)
    with _live_lock:
        _live[(id(ledger), id(agent), key)] = Paused(state, pending)
        while len(_live) > LIVE_STATES:
            _live.popitem(last=False)
    return so_far


def state_text(state: RunState[Any, Any]) -> str:
    """`state` as the ledger keeps it: the SDK's `to_json()`, compact.

    `to_string()` writes the same JSON indented, which only Python's pure encoder does
    (several times the work of the C one); `RunState.from_json` reads either.
    """
    return json.dumps(state.to_json(), separators=(",", ":"))


def _take_live(ledger: CallLedger, agent: Agent[Any], key: Key) -> Paused | None:
    """The state this process paused under `key`, once: a second resume restores its own."""
    with _live_lock:
        return _live.pop((id(ledger), id(agent), key), None)


async def load(
    ledger: CallLedger,
    agent: Agent[Any],
    thread_id: str,
    waiting: Sequence[GatedCall],
    *,
    context: Any,
    edits: Mapping[str, Mapping[str, Any]],
) -> Paused | None:
    """The SDK state of the run paused on `waiting`, checked against them, edits applied.

    None when the state is gone but every waiting call is already settled in the ledger
    (the same resume given again): nothing runs, so the conversation carries on alone.
    Raises `AdapterError`: `state_unavailable` when this ledger does not hold it,
    `call_mismatch` when the calls it waits on are not the calls shown.
    """
    key = state_key(thread_id, (g.call_id for g in waiting))
    live = _take_live(ledger, agent, key)
    if live is not None:
        _check(live.pending, waiting)
        if not edits:
            return live
        data = live.state.to_json()
    else:
        found = await ledger.recorded(key)
        if found is None:
            if await all_settled(ledger, [(thread_id, g.call_id) for g in waiting]):
                return None
            raise AdapterError(
                ErrorCode.STATE_UNAVAILABLE,
                "The paused run of this conversation is not in this server's ledger (a "
                "memory ledger in another process, or one that was pruned), so it cannot be "
                "resumed: nothing ran. Give every process the same ledger (a file or a "
                "postgresql:// URL).",
                interrupt_id=waiting[0].interrupt.id if waiting else None,
            )
        data = json.loads(found.output)
        restored = Paused.restored(await RunState.from_json(agent, data, context_override=context))
        _check(restored.pending, waiting)
        if not edits:
            return restored
    for call_id, arguments in edits.items():
        rewrite_arguments(data, call_id, json.dumps(arguments, ensure_ascii=False))
    return Paused.restored(await RunState.from_json(agent, data, context_override=context))


def pending_items(items: Iterable[ToolApprovalItem]) -> dict[str, ToolApprovalItem]:
    """Approval items by call id (those without one cannot be answered)."""
    return {call_id: item for item in items if (call_id := item.call_id)}


def pending_item(pending: Mapping[str, ToolApprovalItem], call_id: str) -> ToolApprovalItem:
    """The approval item for `call_id` among `pending`, or `call_mismatch`."""
    item = pending.get(call_id)
    if item is None:
        raise AdapterError(
            ErrorCode.CALL_MISMATCH,
            f"The paused run does not wait on call {call_id!r}; nothing ran.",
        )
    return item


def _check(held: Mapping[str, ToolApprovalItem], waiting: Sequence[GatedCall]) -> None:
    """The calls the state waits on must be the calls the conversation shows waiting."""
    for gated in waiting:
        item = held.get(gated.call_id)
        function = gated.call.function
        if item is None or item.tool_name != function.name or not _same(item, function.arguments):
            raise AdapterError(
                ErrorCode.CALL_MISMATCH,
                f"Tool call {gated.call_id!r} ({function.name}) is not the call its paused run "
                "waits on; nothing ran.",
                interrupt_id=gated.interrupt.id,
            )


def _same(item: ToolApprovalItem, arguments: str) -> bool:
    # The very text the model wrote is the same call: the common case reads nothing.
    held = item.arguments or ""
    return held == arguments or spell(parse_arguments(held)) == spell(parse_arguments(arguments))


def rewrite_arguments(node: Any, call_id: str, arguments: str) -> None:
    """Every spelling of call `call_id` in a serialised state now carries `arguments`.

    The state holds the call in several places (the model's response, the items,
    the pending approval, the processed response) and binds an approval to the
    invocation it saw; the binding is dropped so the SDK binds the edited call.
    """
    if isinstance(node, dict):
        if node.get("call_id") == call_id and "arguments" in node:
            node["arguments"] = arguments
        invocations = node.get("tool_invocations")
        if isinstance(invocations, dict):
            invocations.pop(call_id, None)
        for value in node.values():
            rewrite_arguments(value, call_id, arguments)
    elif isinstance(node, list):
        for value in node:
            rewrite_arguments(value, call_id, arguments)
