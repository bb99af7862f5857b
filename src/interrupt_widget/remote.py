"""Deprecated alias of `interrupt_widget.http.remote` (`RemoteAgent`)."""

from interrupt_widget._moved import moved_attribute
from interrupt_widget.errors import ErrorCode


def __getattr__(name: str) -> object:
    return moved_attribute(
        __name__,
        "interrupt_widget.http.remote",
        name,
        renamed={
            "CONNECTION_FAILED": ErrorCode.CONNECTION_FAILED,
            "INVALID_STREAM": ErrorCode.INVALID_STREAM,
        },
    )
