"""A record of every tool body the example agents actually ran."""

from __future__ import annotations

import json
import os
import pathlib
import threading
from dataclasses import dataclass, field
from typing import Any

from agents import Agent

from interrupt_widget.shared_list import SharedList


@dataclass(frozen=True)
class ExecutedCall:
    """One run of a tool body."""

    tool_name: str
    """The tool that ran."""
    call_id: str
    """The SDK's tool call id."""
    arguments: dict[str, Any]
    """The arguments it ran with."""
    payload: Any
    """The human's answer it saw through `resume_payload` (None if not gated)."""


class ToolRunLog:
    """Thread-safe list of `ExecutedCall`s, so a test can check "ran exactly once"."""

    def __init__(self) -> None:
        self._calls: SharedList[ExecutedCall] = SharedList()

    def record(self, call: ExecutedCall) -> None:
        """Add a call that ran (the example tools call this from their bodies)."""
        self._calls.append(call)

    @property
    def calls(self) -> list[ExecutedCall]:
        """A copy of the calls so far, oldest first."""
        return self._calls.copy()

    def count(self, tool_name: str | None = None, *, call_id: str | None = None) -> int:
        """How many times a tool (or one call) ran; every run when both are None."""
        return sum(
            1
            for c in self.calls
            if (tool_name is None or c.tool_name == tool_name)
            and (call_id is None or c.call_id == call_id)
        )

    def __repr__(self) -> str:
        return f"ToolRunLog({len(self.calls)} calls)"


@dataclass
class ExampleAgent(Agent[Any]):
    """An `Agent` that also carries the log of its tools' executions."""

    executions: ToolRunLog = field(default_factory=ToolRunLog)
    """Every tool body this agent's tools ran."""


_JOURNAL_LOCK = threading.Lock()


def append_journal(path: pathlib.Path, record: dict[str, Any]) -> None:
    """Append one JSON line to a journal file, on disk before the tool returns."""
    line = json.dumps(record, sort_keys=True) + "\n"
    with _JOURNAL_LOCK, path.open("a", encoding="utf-8") as out:
        out.write(line)
        out.flush()
        os.fsync(out.fileno())


def read_journal(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """Every record an example agent's `journal=path` got, oldest first (empty if none)."""
    source = pathlib.Path(path)
    if not source.exists():
        return []
    lines = source.read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]
