"""Deprecated alias: `running_server` lives in `interrupt_widget.http.serve`."""

from interrupt_widget._moved import moved_attribute


def __getattr__(name: str) -> object:
    return moved_attribute(__name__, "interrupt_widget.http.serve", name, names=("running_server",))
