"""`default_model()`: a real OpenAI model when a key is set, else the offline model.

`OPENAI_API_KEY` set: the model named by `INTERRUPT_WIDGET_MODEL` (default
`DEFAULT_OPENAI_MODEL`). No key, or `INTERRUPT_WIDGET_MODEL=offline`: the
deterministic `OfflineModel`, with the SDK's tracing turned off (its exporter
needs the network and a key).
"""

from __future__ import annotations

import os

from agents import set_tracing_disabled
from agents.models.interface import Model

from interrupt_widget.offline_model import OfflineModel

DEFAULT_OPENAI_MODEL = "gpt-5-mini"
"""The real model used when a key is set and `INTERRUPT_WIDGET_MODEL` names none."""

MODEL_ENV = "INTERRUPT_WIDGET_MODEL"
OFFLINE = "offline"


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
