"""The stable error codes a client sees, and the exceptions a user catches.

Every RUN_ERROR this kit emits (the adapter, the thread, the server, the remote
agent) and every JSON error body the server answers with has one of these
codes, so a client can react to a kind of failure (show the answer form again,
start over, fix the request) without parsing the message. The message says
what went wrong for a person to read, naming the interrupt when there is one.
A `RemoteAgent` relays the code of the server it talks to, which may be another
server's own.

The exceptions a user catches live here too, and are exported from the package
root: what a thread, a chat, a picker, a responder or an HTTP client refuses.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from enum import StrEnum


class ErrorCode(StrEnum):
    """`RunErrorEvent.code` values. Stable: clients may match on them."""

    INCOMPLETE_RESUME = "incomplete_resume"
    """A resume left an open interrupt without an entry (a missing entry is not a cancel)."""
    INTERRUPT_EXPIRED = "interrupt_expired"
    """A resolved answer arrived after the interrupt's `expires_at`; it may only be cancelled."""
    INVALID_PAYLOAD = "invalid_payload"
    """A resolved payload does not fit the interrupt's `response_schema`."""
    MALFORMED_RESUME_ENTRY = "malformed_resume_entry"
    """An entry is not a resume entry at all (no id, unknown status, resolved without an object)."""
    CONFLICTING_RESUME_ENTRIES = "conflicting_resume_entries"
    """Two entries answer one interrupt differently."""
    UNKNOWN_INTERRUPT = "unknown_interrupt"
    """An entry names an interrupt the conversation never raised (AG-UI makes it a `RunError`)."""
    PENDING_INTERRUPTS = "pending_interrupts"
    """New input arrived while gated tool calls in the messages still wait for an answer."""
    CALL_MISMATCH = "call_mismatch"
    """A gated call's tool or arguments differ from what its interrupt record shows; nothing ran."""
    INVALID_INPUT = "invalid_input"
    """The input cannot be run: messages that cannot be continued (a gated call names a tool
    the agent lacks), or over HTTP (422) a body that is not a RunAgentInput."""
    MODEL_ERROR = "model_error"
    """The model raised; the message is the error's own."""
    TOOL_ERROR = "tool_error"
    """A tool raised and its failure policy re-raises instead of telling the model."""
    CALL_IN_DOUBT = "call_in_doubt"
    """An approved call was claimed by a run that ended (a crash) before recording its
    result, or is still running elsewhere: it may have run, so it is not run again.
    Not safe to retry blindly: check the tool's effect, then release or record the call
    on the ledger (`SQLiteLedger.release` / `.record`)."""
    STATE_UNAVAILABLE = "state_unavailable"
    """A resume answers a paused run whose SDK state this ledger does not hold (a memory
    ledger in another process, or pruned): nothing ran. Share one ledger between processes."""
    LEDGER_UNAVAILABLE = "ledger_unavailable"
    """The call ledger's database could not be reached or written (PostgreSQL down or
    restarting, SQLite locked too long or on a full disk). A call that could not be claimed
    did not run: resume again once the ledger is back. A call that ran but whose result could
    not be stored is left in doubt (the message says which): it is never run again, and a later
    resume gets `call_in_doubt` until an operator settles it."""
    AGENT_ERROR = "agent_error"
    """The Agents SDK ended the run in a way no other code names."""
    MAX_TURNS = "max_turns"
    """The run used all its turns (`max_turns`) without a final output (`MaxTurnsExceeded`)."""
    MODEL_REFUSAL = "model_refusal"
    """The model refused to answer (`ModelRefusalError`); the message carries its words."""
    GUARDRAIL_TRIPWIRE = "guardrail_tripwire"
    """A guardrail ended the run: an input or output guardrail's tripwire, or a tool guardrail
    that raises. The message names the guardrail and its reason. (A tool guardrail that rejects
    the call instead tells the model, and the run goes on.)"""
    ADAPTER_FAILED = "adapter_failed"
    """In the kernel: the agent's event stream raised instead of ending (the message says how)."""

    # Served over HTTP (`asgi_app`): refusals before the agent runs, and failures after.
    FINGERPRINT_MISSING = "fingerprint_missing"
    """A gated call that a resume would run carries no fingerprint."""
    FINGERPRINT_INVALID = "fingerprint_invalid"
    """A gated call's fingerprint does not match its thread, id, tool or arguments."""
    FINGERPRINT_OTHER_SECRET = "fingerprint_other_secret"
    """A gated call's fingerprint was made with another server secret (a restart with a new
    secret, or replicas with different ones): the call is not known to be changed, but it
    cannot be checked, so nothing ran; ask again."""
    AGENT_FAILED = "agent_failed"
    """The served agent raised instead of ending its stream (the server log has the details)."""

    # The server's JSON error bodies (`{"error": {"code", "message"}}`), which a
    # `RemoteAgent` turns into RUN_ERROR with the same code.
    UNAUTHORIZED = "unauthorized"
    """401: no bearer token, or not this server's."""
    MALFORMED_JSON = "malformed_json"
    """400: the request body is not JSON, or is nested too deeply to parse (JSON that is no
    RunAgentInput: `invalid_input`)."""
    BODY_TIMEOUT = "body_timeout"
    """408: the request body did not arrive in full within the server's body read timeout."""
    BODY_TOO_LARGE = "body_too_large"
    """413: the request body is over the server's limit."""
    UNSUPPORTED_MEDIA_TYPE = "unsupported_media_type"
    """415: the request body is not sent as JSON."""
    NOT_FOUND = "not_found"
    """404: no such path."""
    METHOD_NOT_ALLOWED = "method_not_allowed"
    """405: the path does not take that method."""
    HTTP_ERROR = "http_error"
    """Any other HTTP error status (from a server that sends no code of its own)."""
    INTERNAL_ERROR = "internal_error"
    """500: the server failed; its log has the details."""

    # Calling an agent elsewhere (`RemoteAgent`).
    CONNECTION_FAILED = "connection_failed"
    """The server could not be reached, or the connection broke mid-run."""
    INVALID_STREAM = "invalid_stream"
    """The server's answer is not a well-formed AG-UI event stream."""
    UNANSWERABLE_PAUSE = "unanswerable_pause"
    """The server finished its run paused (a tool call with no result) without an interrupt
    this client can answer; the message names the call and the server option to change."""
    EDIT_NOT_ALLOWED = "edit_not_allowed"
    """An answer edits the arguments of a tool that is not `editable`."""
    EDIT_OUTSIDE_FIELDS = "edit_outside_fields"
    """An answer edits an argument outside the tool's editable `fields`."""
    INVALID_EDIT = "invalid_edit"
    """Edited arguments break the tool's parameter schema (or come without an approval)."""

    # Who may answer (`require`, `escalate`, `serve --principals`).
    NOT_ALLOWED_TO_ANSWER = "not_allowed_to_answer"
    """The answer comes from someone the call's rules do not let answer it (a missing role,
    the run's own starter approving, a question escalated to others); nothing was recorded."""
    IDENTITY_MISMATCH = "identity_mismatch"
    """403: an answer names another identity than the principal its bearer token belongs to."""

    # Replaying a recorded model (`Cassette`).
    CASSETTE_MISMATCH = "cassette_mismatch"
    """The model was asked something its cassette did not record (replay only): the message
    names the turn and the first field that differs, and how to record again."""
    CASSETTE_MISSING = "cassette_missing"
    """Replay only, and the cassette's file does not exist."""

    # Runs on Temporal workers (`interrupt_widget.temporal`).
    ANSWERED_ELSEWHERE = "answered_elsewhere"
    """The interrupt was already answered by another client (another notebook, the inbox of
    another kernel): that answer stands, this one was not taken, and nothing ran for it."""
    TEMPORAL_UNAVAILABLE = "temporal_unavailable"
    """The Temporal server could not be reached (wrong address, or not running): nothing was
    started or answered; start it (or `interrupt_widget.temporal.dev_server()`) and try again."""
    TEMPORAL_NAMESPACE_MISSING = "temporal_namespace_missing"
    """The Temporal namespace the client or worker names does not exist: nothing was sent."""
    TEMPORAL_SEARCH_ATTRIBUTE_MISSING = "temporal_search_attribute_missing"
    """The namespace lacks the kit's `InterruptWidgetWaiting` Keyword search attribute and the
    kit may not add it: the message gives the `temporal operator search-attribute create`
    command; nothing was sent (every run would otherwise wait for ever)."""
    NO_WORKER = "no_worker"
    """No worker polls the task queue the run names (none started, or the queue's name is
    wrong): nothing was sent; start a worker for it, or fix the name."""
    LEDGER_NOT_SHARED = "ledger_not_shared"
    """A conversation's run reached a Temporal worker whose call ledger is not the one its
    earlier runs (or an earlier try of this run) used: a call claimed there could run twice
    here, so nothing ran. The message names both ledgers; give every worker of the task
    queue the same one."""


class AdapterError(Exception):
    """A run that cannot go on; the adapter turns it into RUN_ERROR with `code`."""

    def __init__(self, code: ErrorCode, message: str, *, interrupt_id: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        """Which kind of failure this is."""
        self.message = message
        """What went wrong, naming the interrupt when there is one."""
        self.interrupt_id = interrupt_id
        """The interrupt concerned, if any."""


class LedgerUnavailable(RuntimeError):
    """The call ledger's database failed (unreachable, locked, full) and its retries ran out.

    A run that meets it ends with RUN_ERROR `ledger_unavailable`. Nothing runs without a
    claim: when `in_doubt` is False the call did not run; when True it ran (or raised) but
    the ledger could not record that, so it is kept as in doubt and never run again.
    """

    code = ErrorCode.LEDGER_UNAVAILABLE
    """The code a run refused for this reason ends with."""

    def __init__(
        self, message: str, *, key: tuple[str, str] | None = None, in_doubt: bool = False
    ) -> None:
        super().__init__(message)
        self.key = key
        """(thread id, tool call id) of the call concerned, when there is one."""
        self.in_doubt = in_doubt
        """Whether the call was claimed and may have run (never run again), or did not run."""


class CallMismatch(ValueError):
    """Saved messages hold a gated call that is not what its interrupt shows."""

    code = ErrorCode.CALL_MISMATCH
    """The same code a run refused for this reason ends with."""

    def __init__(self, message: str, *, call_id: str, interrupt_id: str) -> None:
        super().__init__(message)
        self.call_id = call_id
        """The tool call at fault."""
        self.interrupt_id = interrupt_id
        """The interrupt recorded on it."""


class ThreadBusy(RuntimeError):
    """A run is already going on this thread (or chat): await it or stop it first."""


class InterruptsOpen(RuntimeError):
    """New input while the last run still waits for answers."""


class ResumeRefused(ValueError):
    """Resume entries that do not answer the open interrupts exactly; nothing was taken."""


@dataclass(frozen=True)
class AnswerError:
    """One reason a payload does not fit its schema."""

    path: str
    """JSON pointer of the offending field (`""` for the payload itself)."""
    message: str
    """A sentence a person can act on."""


class AnswerRefused(ValueError):
    """An answer the picker did not record; nothing changed."""

    def __init__(self, message: str, errors: list[AnswerError] | None = None) -> None:
        super().__init__(message)
        self.errors: list[AnswerError] = list(errors or [])
        """Per-field reasons when the payload did not fit the schema."""


class ResponderError(RuntimeError):
    """A responder could not answer; the interrupts it names stay open."""


class PolicyError(ValueError):
    """A policy rule raised while `policy.evaluate` put recorded decisions to it."""


class CassetteMissing(LookupError):
    """A cassette set to replay only (`mode="none"`) has no file; the message says how to record."""


class CassetteMismatch(LookupError):
    """The model was asked something its cassette did not record, in a mode that may not record.

    The message names the turn and the first difference in words (`turn 2: tool
    delete_rows: parameter dry_run added`) and the command that records again.
    """

    def __init__(self, message: str, *, turn: int | None = None, difference: str = "") -> None:
        super().__init__(message)
        self.turn = turn
        """The recorded turn closest to the request (1 is the cassette's first), if any."""
        self.difference = difference
        """The first difference from that turn, in words."""


class UnattendedWait(RuntimeError):
    """Raised in the cell that awaits an answer nobody can give: no responder is set and no
    front end holds the widget (nbval, nbclient, papermill, `nbconvert --execute`).

    The message names the ways out (a responder, or a recorded run replayed). Nothing was
    cancelled: the question stays open, and an answer still resumes the run.
    """


class ChatRunError(RuntimeError):
    """The run ended with RUN_ERROR; the message is the one the status line shows.

    A run that failed with one of the kit's own errors keeps its class: the chat's error is
    also a `CassetteMismatch` or a `CassetteMissing` when its code says so, so `except
    CassetteMismatch` catches a replay that went wrong in a chat (or a batch row's
    `exception`) as it does around a plain `Runner.run`. `ChatRunError.of` makes the right
    one.
    """

    def __init__(self, message: str, *, code: str | None = None) -> None:
        super().__init__(message)
        self.code = code
        """The RUN_ERROR code, when the run gave one (an `ErrorCode`, or a remote server's own)."""

    @staticmethod
    def of(message: str, code: str | None = None) -> ChatRunError:
        """The error for a run that ended with RUN_ERROR `code`: also an instance of the
        kit's error that code stands for, when there is one."""
        kept = _KEPT_CLASSES.get(code or "")
        return (kept or ChatRunError)(message, code=code)


class AGUIClientError(Exception):
    """A run over HTTP failed before its stream ended normally."""


class AGUIConnectionError(AGUIClientError):
    """The server could not be reached, or the connection broke mid-stream."""


class AGUIHTTPError(AGUIClientError):
    """The server answered with an HTTP error status."""

    def __init__(self, status: int, code: str | None, message: str) -> None:
        self.status = status
        """The HTTP status code."""
        self.code = code
        """The server's error code (`unauthorized`, `invalid_input`, ...) when it sent one."""
        self.message = message
        """The server's explanation, or the start of its body."""
        label = f"HTTP {status}" + (f" {code}" if code else "")
        super().__init__(f"{label}: {message}")


class AGUIStreamError(AGUIClientError):
    """The answer is not a well-formed AG-UI event stream."""


class CallInDoubt(RuntimeError):
    """A claimed call has no recorded result and its owner is gone: it may have run."""

    def __init__(self, key: tuple[str, str], message: str) -> None:
        super().__init__(message)
        self.key = key
        """(thread id, tool call id)."""


class CannotWaitHere(RuntimeError):
    """Awaiting here would never finish: no click can reach Python while this cell waits.

    Raised at once instead of hanging. The run (or the picker) is left as it was:
    answer it in its widget and it goes on.
    """


class NotInDoubt(ValueError):
    """The call is no longer in doubt (someone settled it, or its run came back)."""


class InsecureBindError(ValueError):
    """`serve` was asked to listen beyond loopback with no token and no explicit opt-out."""


class FingerprintSecretError(ValueError):
    """The configured secret is unusable (empty or too short)."""


class WorkersRefused(ValueError):
    """`serve --workers N` was given something its worker processes cannot share."""


class TargetError(Exception):
    """The `module:attribute` target cannot be loaded."""


class NotAllowedToAnswer(AnswerRefused):
    """An answer from someone the call's rules do not let answer it; nothing was recorded."""

    code = ErrorCode.NOT_ALLOWED_TO_ANSWER
    """The code a run refused for this reason ends with."""


class IdentityMismatch(ValueError):
    """An answer names another identity than the one its sender is known as."""

    code = ErrorCode.IDENTITY_MISMATCH
    """The code the server answers with (403)."""


class TemporalMisconfigured(RuntimeError):
    """The Temporal side cannot carry a run as set up, and it would wait for ever: a namespace
    that does not exist, the kit's search attribute missing where the kit may not add it, no
    worker on the task queue. `code` says which (an `ErrorCode`); the message says how to fix
    it. Raised before anything is sent; a run refused for it ends with RUN_ERROR `code`."""

    def __init__(self, code: ErrorCode, message: str) -> None:
        super().__init__(message)
        self.code = code
        """`temporal_namespace_missing`, `temporal_search_attribute_missing` or `no_worker`."""


class TemporalUnavailable(ConnectionError):
    """The Temporal server is not reachable (`ErrorCode.TEMPORAL_UNAVAILABLE`): nothing was sent."""

    code = ErrorCode.TEMPORAL_UNAVAILABLE
    """The code a run that could not reach Temporal ends with."""


class _CassetteMismatchInRun(ChatRunError, CassetteMismatch):
    """A run that ended with `cassette_mismatch`: a `ChatRunError` and a `CassetteMismatch`."""

    def __init__(self, message: str, *, code: str | None = None) -> None:
        ChatRunError.__init__(self, message, code=code)
        worded = _MISMATCH_WORDS.match(message)  # as `Cassette` words it: "turn 2: ...."
        self.turn = int(worded["turn"]) if worded else None
        self.difference = worded["difference"] if worded else ""


_MISMATCH_WORDS = re.compile(r"turn (?P<turn>\d+): (?P<difference>.*?)\. The model was asked")


class _CassetteMissingInRun(ChatRunError, CassetteMissing):
    """A run that ended with `cassette_missing`: a `ChatRunError` and a `CassetteMissing`."""


_KEPT_CLASSES: dict[str, type[ChatRunError]] = {
    ErrorCode.CASSETTE_MISMATCH.value: _CassetteMismatchInRun,
    ErrorCode.CASSETTE_MISSING.value: _CassetteMissingInRun,
}
"""The RUN_ERROR codes whose run errors keep the class of the kit's error behind them. Not
`ledger_unavailable` nor `call_in_doubt`: their errors say whether the call may have run and
which call it is, which a RUN_ERROR does not carry; nor `temporal_unavailable`, whose
`TemporalUnavailable.code` is an `ErrorCode` where a run error's is the code as sent."""
