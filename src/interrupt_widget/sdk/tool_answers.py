"""`resume_payload(ctx)`: the human's answer, read from inside the approved tool.

The Agents SDK runs an approved call inside the resumed run; the adapter hands
the answers to that run by call id, in a context variable set where the SDK's
run task is created (a task copies its context then), so a tool reads the
answer to its own call and never another's, nested runs included.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any

from agents import RunContextWrapper

_ANSWERS: ContextVar[Mapping[str, Any] | None] = ContextVar(
    "interrupt_widget_answers", default=None
)


def resume_payload(ctx: RunContextWrapper[Any] | Any) -> Any | None:
    """The resolved payload the human gave for this tool call, or None.

    `ctx` is the SDK's `ToolContext` the tool receives. None when the call was
    not gated, or when the tool runs outside a resume.
    """
    answers = _ANSWERS.get() or {}
    call_id = getattr(ctx, "tool_call_id", None)
    if isinstance(call_id, str):
        return answers.get(call_id)
    # A plain RunContextWrapper names no call: only a single answer is unambiguous.
    return next(iter(answers.values())) if len(answers) == 1 else None


@contextmanager
def answering(answers: Mapping[str, Any]) -> Iterator[None]:
    """Make `answers` (call id -> payload) what `resume_payload` reads in this context."""
    token = _ANSWERS.set(dict(answers))
    try:
        yield
    finally:
        _ANSWERS.reset(token)
