"""interrupt-widget: human-in-the-loop agent runs as a native notebook experience.

An OpenAI Agents SDK run pauses on a tool that needs a human; a widget in the
notebook cell asks; the run resumes in the kernel with the answer. Everything
speaks the AG-UI protocol 1.0.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from .batch import views as _batch_views
from .errors import (
    AdapterError,
    AGUIClientError,
    AGUIConnectionError,
    AGUIHTTPError,
    AGUIStreamError,
    AnswerRefused,
    CallInDoubt,
    CallMismatch,
    CannotWaitHere,
    CassetteMismatch,
    CassetteMissing,
    ChatRunError,
    ErrorCode,
    FingerprintSecretError,
    IdentityMismatch,
    InsecureBindError,
    InterruptsOpen,
    LedgerUnavailable,
    NotAllowedToAnswer,
    NotInDoubt,
    PolicyError,
    ResponderError,
    ResumeRefused,
    TargetError,
    TemporalMisconfigured,
    TemporalUnavailable,
    ThreadBusy,
    UnattendedWait,
    WorkersRefused,
)
from .identity import Identity, as_identity, current_identity, set_identity

if TYPE_CHECKING:
    from .agui.run_handle import AGUIAgent, RunHandle
    from .asking import responders
    from .batch.agent_batch import AgentBatch
    from .decisions import decisions_frame, load_decisions
    from .http import AGUIClient, RemoteAgent, asgi_app, serve
    from .ledger.postgres import PostgresLedger
    from .ledger.sqlite import SQLiteLedger
    from .policy.quorum import escalate, require
    from .policy.rules import Policy, approve, ask, deny
    from .sdk.adapter import AdapterRunHandle, OpenAIAgentsAdapter
    from .sdk.cassette import Cassette
    from .sdk.decision_spans import SPAN_NAME
    from .sdk.edits import editable
    from .sdk.model_choice import default_model
    from .sdk.offline_model import OfflineModel
    from .sdk.response_schema import with_response_schema
    from .sdk.tool_answers import resume_payload
    from .widgets.chat import AgentChat
    from .widgets.inbox import Inbox
    from .widgets.picker import InterruptPicker
    from .widgets.renderers import MEETING_TIME
    from .widgets.sdk_interruptions import answer_interruptions

_ON_FIRST_USE = {
    "AGUIAgent": ".agui.run_handle",
    "RunHandle": ".agui.run_handle",
    "responders": ".asking",
    "AgentBatch": ".batch.agent_batch",
    "decisions_frame": ".decisions",
    "load_decisions": ".decisions",
    "PostgresLedger": ".ledger.postgres",
    "SQLiteLedger": ".ledger.sqlite",
    "escalate": ".policy.quorum",
    "require": ".policy.quorum",
    "Policy": ".policy.rules",
    "approve": ".policy.rules",
    "ask": ".policy.rules",
    "deny": ".policy.rules",
    "AdapterRunHandle": ".sdk.adapter",
    "OpenAIAgentsAdapter": ".sdk.adapter",
    "Cassette": ".sdk.cassette",
    "SPAN_NAME": ".sdk.decision_spans",
    "editable": ".sdk.edits",
    "default_model": ".sdk.model_choice",
    "OfflineModel": ".sdk.offline_model",
    "with_response_schema": ".sdk.response_schema",
    "resume_payload": ".sdk.tool_answers",
    "MEETING_TIME": ".widgets.renderers",
    "AgentChat": ".widgets.chat",
    "Inbox": ".widgets.inbox",
    "InterruptPicker": ".widgets.picker",
    "answer_interruptions": ".widgets.sdk_interruptions",
    "AGUIClient": ".http",
    "RemoteAgent": ".http",
    "asgi_app": ".http",
    "serve": ".http",
}
"""Names loaded when first used, each from its module: the Agents SDK's side, the ledgers,
the rules, the notebook widgets (anywidget, ipywidgets, IPython) and the HTTP side (httpx,
the server). `import interrupt_widget` itself loads none of them, nor does importing one of
the kit's modules that needs none (the Jupyter server's extension, which runs in every
person's server), and a Temporal worker, a served agent or a script that only runs a batch
never loads the widgets."""


def __getattr__(name: str) -> Any:
    module = _ON_FIRST_USE.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module, __name__), name)
    globals()[name] = value  # looked up once
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_ON_FIRST_USE})


def _inbox_of(batch: AgentBatch) -> Inbox:
    # A batch shows as its inbox (and awaiting it checks that someone can answer), from the
    # first batch on; importing the inbox makes it every later batch's view itself.
    from .widgets.inbox import Inbox

    return Inbox(batch)


_batch_views.show_batches_with(_inbox_of)


__version__ = "0.1.0"

__all__: list[str] = [
    "MEETING_TIME",
    "SPAN_NAME",
    "AGUIAgent",
    "AGUIClient",
    "AGUIClientError",
    "AGUIConnectionError",
    "AGUIHTTPError",
    "AGUIStreamError",
    "AdapterError",
    "AdapterRunHandle",
    "AgentBatch",
    "AgentChat",
    "AnswerRefused",
    "CallInDoubt",
    "CallMismatch",
    "CannotWaitHere",
    "Cassette",
    "CassetteMismatch",
    "CassetteMissing",
    "ChatRunError",
    "ErrorCode",
    "FingerprintSecretError",
    "Identity",
    "IdentityMismatch",
    "Inbox",
    "InsecureBindError",
    "InterruptPicker",
    "InterruptsOpen",
    "LedgerUnavailable",
    "NotAllowedToAnswer",
    "NotInDoubt",
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
    "TargetError",
    "TemporalMisconfigured",
    "TemporalUnavailable",
    "ThreadBusy",
    "UnattendedWait",
    "WorkersRefused",
    "__version__",
    "answer_interruptions",
    "approve",
    "as_identity",
    "asgi_app",
    "ask",
    "current_identity",
    "decisions_frame",
    "default_model",
    "deny",
    "editable",
    "escalate",
    "load_decisions",
    "require",
    "responders",
    "resume_payload",
    "serve",
    "set_identity",
    "with_response_schema",
]


def _post_questions_to_the_server() -> None:
    # In a kernel of a Jupyter server that runs the kit's extension, every chat's and
    # batch's questions reach the server's sidebar; elsewhere nothing is loaded.
    import os

    if os.environ.get("INTERRUPT_WIDGET_BOARD"):
        from .lab.kernel_desk import serve_the_board

        serve_the_board()


_post_questions_to_the_server()
