"""interrupt-widget: human-in-the-loop agent runs as a native notebook experience.

An OpenAI Agents SDK run pauses on a tool that needs a human; a widget in the
notebook cell asks; the run resumes in the kernel with the answer. Everything
speaks the AG-UI protocol 1.0.
"""

from __future__ import annotations

from . import responders
from .adapter import AdapterRun, OpenAIAgentsAdapter
from .awaiting import CannotWaitHere
from .chat import AgentChat
from .edits import editable
from .errors import (
    AdapterError,
    AGUIClientError,
    AGUIConnectionError,
    AGUIHTTPError,
    AGUIStreamError,
    AnswerRefused,
    CallMismatch,
    ChatRunError,
    ErrorCode,
    InterruptsOpen,
    PolicyError,
    ResponderError,
    ResumeRefused,
    ThreadBusy,
    UnattendedWait,
)
from .http import AGUIClient, RemoteAgent, asgi_app, serve
from .interrupts import with_response_schema
from .offline_model import OfflineModel, default_model
from .picker import InterruptPicker
from .policy import Policy, approve, ask, deny
from .postgres_ledger import PostgresLedger
from .run_handle import AGUIAgent, RunHandle
from .sqlite_ledger import CallInDoubt, SQLiteLedger
from .tool_answers import resume_payload

__version__ = "0.1.0"

__all__: list[str] = [
    "AGUIAgent",
    "AGUIClient",
    "AGUIClientError",
    "AGUIConnectionError",
    "AGUIHTTPError",
    "AGUIStreamError",
    "AdapterError",
    "AdapterRun",
    "AgentChat",
    "AnswerRefused",
    "CallInDoubt",
    "CallMismatch",
    "CannotWaitHere",
    "ChatRunError",
    "ErrorCode",
    "InterruptPicker",
    "InterruptsOpen",
    "OfflineModel",
    "OpenAIAgentsAdapter",
    "Policy",
    "PolicyError",
    "PostgresLedger",
    "RemoteAgent",
    "ResponderError",
    "ResumeRefused",
    "RunHandle",
    "SQLiteLedger",
    "ThreadBusy",
    "UnattendedWait",
    "__version__",
    "approve",
    "asgi_app",
    "ask",
    "default_model",
    "deny",
    "editable",
    "responders",
    "resume_payload",
    "serve",
    "with_response_schema",
]
