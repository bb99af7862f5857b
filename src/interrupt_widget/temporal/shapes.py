"""What travels between the notebook, the workflow and its activities: plain dataclasses of
JSON values (AG-UI objects in their camelCase wire form), so Temporal's default converter
carries them and a workflow's history reads as the protocol."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Final

JsonDict = dict[str, Any]

WORKFLOW: Final = "InterruptWidgetConversation"
"""The workflow type name: one conversation (an AG-UI thread) per workflow."""
SEGMENT_ACTIVITY: Final = "interrupt_widget.run_segment"
"""The activity that runs one AG-UI run of the agent (the SDK's run, tools included)."""
RUN_UPDATE: Final = "run"
"""The update that starts a run on new input (a user message)."""
ANSWER_UPDATE: Final = "answer"
"""The update that carries the answers to the open interrupts."""
STOP_SIGNAL: Final = "stop"
"""The signal that asks the run with the given run id to end cancelled (a person's Stop)."""
OPEN_QUERY: Final = "open"
"""The query that reads the conversation: its messages and open interrupts."""
STREAM_SIGNAL: Final = "stream"
"""The signal a running segment sends its events by, in batches, as the run says them."""
STREAM_QUERY: Final = "stream"
"""The query that reads a running run's events from an offset, as they come."""
STOPPED_QUERY: Final = "stopped"
"""The query a run's retry asks first: whether a person's Stop ended that run meanwhile."""


def stopped_at_once(thread_id: str, run_id: str) -> list[JsonDict]:
    """The events of a run stopped before it did anything: started, then cancelled."""
    ids = {"threadId": thread_id, "runId": run_id}
    return [
        {"type": "RUN_STARTED", **ids},
        {"type": "RUN_FINISHED", **ids, "outcome": {"type": "cancelled"}},
    ]


@dataclass
class ConversationStart:
    """How a conversation's workflow starts: which agent runs it, on which task queue."""

    agent: str
    """The agent as `package.module:attribute`; a worker runs only the agents it serves."""
    task_queue: str
    """Where its activities go (the workers' queue)."""
    heartbeat_seconds: float = 10.0
    """An activity that has not heartbeat for this long is retried on another worker."""
    keep_open_seconds: float = 3600.0
    """How long a conversation with nothing open waits for new input before it ends (a new
    message later starts it again, from the messages it is sent)."""
    max_history_events: int = 10_000
    """Past this many events in its history (or when Temporal suggests it), the workflow
    continues as new between runs, carrying what it holds (`Carried`)."""
    carried: Carried | None = None
    """What the conversation held when its previous run continued as new."""
    expiry_attempts: int = 5
    """How many times the workflow tries to cancel questions whose deadline passed before it
    gives up, leaves them open for a person to cancel, and says why (`OpenConversation.problem`)."""
    expiry_backoff_seconds: float = 1.0
    """The wait before the second try of an expiry; each next wait doubles, up to a minute."""


@dataclass
class Carried:
    """What a conversation's workflow carries into its next run (continue-as-new)."""

    messages: list[JsonDict]
    interrupts: list[JsonDict]
    state: PausedState | None
    edits: dict[str, JsonDict]
    answered: list[str]
    problem: str | None = None
    ledger: str | None = None


@dataclass
class PausedState:
    """The SDK's `RunState` of a run paused on approvals, as the adapter keeps it."""

    call_id: str
    """Its key in the ledger (`sdk-state:<digest>`, beside the thread id)."""
    text: str
    """The state, serialised by the SDK."""


@dataclass
class SegmentRequest:
    """One AG-UI run for an activity to perform."""

    agent: str
    input: JsonDict
    """The `RunAgentInput`, wire form."""
    state: PausedState | None = None
    """The paused state a resume continues, for a worker whose ledger lacks it."""
    retry_errors: bool = False
    """A run that ends in RUN_ERROR fails the activity, to be tried again under its retry
    policy: an expiry, which nobody waits for, is retried rather than reported."""
    stream: bool = False
    """Send the run's events to the workflow as they come (someone reads them as they are
    written); an expiry, which nobody reads, does not."""
    ledger: str | None = None
    """Where the ledger of the conversation's earlier runs keeps its records (`ledger_place`),
    None before its first run: a worker whose ledger is elsewhere refuses the run."""


@dataclass
class SegmentResult:
    """What one run said, and the state it paused in (None when it did not pause)."""

    events: list[JsonDict] = field(default_factory=list)
    state: PausedState | None = None
    edits: dict[str, JsonDict] = field(default_factory=dict)
    """What a person may change in the calls it paused on, by tool name (`EditSpec`'s `fields`
    and `parameters`), so the workflow refuses an edit the worker would refuse."""
    ledger: str | None = None
    """Where the ledger this run used keeps its records (`ledger_place`)."""


@dataclass
class StreamBatch:
    """Events of a running run, sent by its segment as they are said: `events` are the
    run's events from index `offset` on, in the attempt `attempt` of its activity (a retried
    activity says its run again, from the start)."""

    run_id: str
    attempt: int
    offset: int
    events: list[JsonDict]


@dataclass
class StreamRead:
    """Which events of a running run a client asks for: those of `attempt` from `offset` on."""

    run_id: str
    attempt: int = 0
    offset: int = 0


@dataclass
class StreamChunk:
    """A running run's events from `offset` on, in the attempt the workflow holds (`attempt`;
    0: none yet, or the run is not running). When `attempt` differs from the one asked for,
    `offset` is 0: the run was begun again, and these are its events from the start."""

    attempt: int = 0
    offset: int = 0
    events: list[JsonDict] = field(default_factory=list)


@dataclass
class ResumeUpdate:
    """The update that answers a conversation's open interrupts: AG-UI resume entries, wire form."""

    run_id: str
    entries: list[JsonDict]


@dataclass
class OpenConversation:
    """A conversation as its workflow holds it: what a new kernel needs to show it again."""

    thread_id: str
    messages: list[JsonDict]
    interrupts: list[JsonDict]
    running: bool
    problem: str | None = None
    """Why the open interrupts are still open after their deadline (the workflow's expiry
    failed every try); None when nothing is wrong."""
