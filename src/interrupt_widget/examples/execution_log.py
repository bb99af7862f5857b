"""Deprecated module name: the examples' record of tool runs is `tool_runs.ToolRunLog`."""

from __future__ import annotations

from interrupt_widget.examples.tool_runs import (
    ExampleAgent,
    ExecutedCall,
    ExecutionLog,
    ToolRunLog,
)

__all__ = ["ExampleAgent", "ExecutedCall", "ExecutionLog", "ToolRunLog"]
