"""The stable error codes a run ends with, and the exception that carries one.

Every RUN_ERROR the adapter emits has one of these codes, so a client can react
to a kind of failure (show the answer form again, start over) without parsing
the message. The message names the interrupt concerned, for a person to read.
"""

from __future__ import annotations

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
    PENDING_INTERRUPTS = "pending_interrupts"
    """New input arrived while gated tool calls in the messages still wait for an answer."""
    INVALID_INPUT = "invalid_input"
    """The messages cannot be continued (e.g. a gated call names a tool the agent lacks)."""
    MODEL_ERROR = "model_error"
    """The model raised; the message is the error's own."""
    TOOL_ERROR = "tool_error"
    """A tool raised and its failure policy re-raises instead of telling the model."""
    AGENT_ERROR = "agent_error"
    """The Agents SDK ended the run (max turns, a guardrail tripwire, ...)."""


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
