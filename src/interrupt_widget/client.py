"""Deprecated alias of `interrupt_widget.http.client` (`AGUIClient` and its errors)."""

from interrupt_widget._moved import moved_attribute


def __getattr__(name: str) -> object:
    return moved_attribute(__name__, "interrupt_widget.http.client", name)
