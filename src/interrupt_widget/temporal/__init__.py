"""Agent runs on Temporal workers, answered from the notebook (`pip install
'interrupt-widget[temporal]'`).

`TemporalAgent` is an AG-UI agent like the kernel's adapter, so the picker, `AgentChat`,
`AgentBatch`, `Inbox` and `serve` drive it unchanged; `run_worker` (or `python -m
interrupt_widget worker`) runs the agent's runs; `dev_server()` starts a Temporal server
on this machine to try it all. Nothing here is imported by the package root: the kit
works without Temporal installed.
"""

from __future__ import annotations

from interrupt_widget.temporal.agent import TemporalAgent, connect
from interrupt_widget.temporal.dev_server import WAITING_ATTRIBUTE, DevServer, dev_server
from interrupt_widget.temporal.shapes import OpenConversation
from interrupt_widget.temporal.worker import adapter_for, build_worker, run_worker

__all__ = [
    "WAITING_ATTRIBUTE",
    "DevServer",
    "OpenConversation",
    "TemporalAgent",
    "adapter_for",
    "build_worker",
    "connect",
    "dev_server",
    "run_worker",
]
