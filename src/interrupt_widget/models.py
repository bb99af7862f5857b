"""Deprecated alias: `default_model` and its settings live in `interrupt_widget.offline_model`."""

from interrupt_widget._moved import moved_attribute


def __getattr__(name: str) -> object:
    return moved_attribute(
        __name__,
        "interrupt_widget.offline_model",
        name,
        names=("default_model", "DEFAULT_OPENAI_MODEL", "MODEL_ENV", "OFFLINE"),
    )
