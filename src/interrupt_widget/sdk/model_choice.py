"""`default_model()`: the offline model, or a real OpenAI model when a key is set.

With `OPENAI_API_KEY` set, the model named by `INTERRUPT_WIDGET_MODEL` (default
`DEFAULT_OPENAI_MODEL`); with no key, or `INTERRUPT_WIDGET_MODEL=offline`, an
`OfflineModel`, with the SDK's tracing turned off (its exporter needs the network and a key).
"""

from __future__ import annotations

import os
from typing import Final

from agents import set_tracing_disabled
from agents.models._openai_shared import get_default_openai_client, get_default_openai_key
from agents.models.interface import Model
from openai import OpenAIError

from interrupt_widget.sdk.offline_model import OfflineModel

DEFAULT_OPENAI_MODEL = "gpt-5-mini"
"""The real model used when a key is set and `INTERRUPT_WIDGET_MODEL` names none."""

MODEL_ENV = "INTERRUPT_WIDGET_MODEL"
OFFLINE = "offline"

KEY_ENV_VARS: Final = ("OPENAI_API_KEY", "OPENAI_ADMIN_KEY")
"""The environment variables the OpenAI client reads a key from."""

OFFLINE_WAY: Final = (
    "To run without a key, give the agent the offline model: "
    "Agent(..., model=OfflineModel()) or AgentChat(agent, model=OfflineModel()) "
    "(from interrupt_widget import OfflineModel), or set INTERRUPT_WIDGET_MODEL=offline "
    "for agents built with default_model(). Its rule: it calls a tool only when the "
    "request names it (tool_name key=value) or asks to book a meeting."
)
"""Said wherever a run fails for want of an OpenAI key."""


def has_openai_credentials() -> bool:
    """True when the SDK's default OpenAI client can find a key (environment or code)."""
    return (
        any(os.environ.get(name, "").strip() for name in KEY_ENV_VARS)
        or get_default_openai_key() is not None
        or get_default_openai_client() is not None
    )


def is_missing_credentials(error: BaseException) -> bool:
    """True for the OpenAI client's refusal to start without a key."""
    text = str(error)
    return isinstance(error, OpenAIError) and (
        "Missing credentials" in text or "api_key client option must be set" in text
    )


def default_model() -> Model | str:
    """The model for the example agents and notebooks (see the module docs).

    Returns a model name (the SDK resolves it with the default provider) or
    an `OfflineModel`.
    """
    choice = os.environ.get(MODEL_ENV, "").strip()
    if choice.lower() == OFFLINE or not os.environ.get("OPENAI_API_KEY"):
        set_tracing_disabled(True)
        return OfflineModel()
    return choice or DEFAULT_OPENAI_MODEL
