"""`resume_payload(ctx)`: the human's answer, read from inside the approved tool.

The adapter runs an approved call itself, in the task that handles the resume,
with the payload set in a context variable around that one call. The value is
keyed by the call id too, so a tool that starts a nested run (or a call the
SDK runs on its own) never sees another call's answer.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from agents import RunContextWrapper

_CURRENT: ContextVar[tuple[str, Any] | None] = ContextVar("interrupt_widget_payload", default=None)


def resume_payload(ctx: RunContextWrapper[Any] | Any) -> Any | None:
    """The resolved payload the human gave for this tool call, or None.

    `ctx` is the SDK's `ToolContext` (or `RunContextWrapper`) the tool receives.
    None when the call was not gated, or when the tool runs outside a resume.
    """
    current = _CURRENT.get()
    if current is None:
        return None
    call_id, payload = current
    ctx_call_id = getattr(ctx, "tool_call_id", None)
    if ctx_call_id is not None and ctx_call_id != call_id:
        return None
    return payload


@contextmanager
def answering(call_id: str, payload: Any) -> Iterator[None]:
    """Make `payload` the answer `resume_payload` returns for `call_id` in this context."""
    token = _CURRENT.set((call_id, payload))
    try:
        yield
    finally:
        _CURRENT.reset(token)
