"""A call that needs two approvals, asked on one server and voted on from others through a
shared board: the cell that asks, and reading the question as its votes come in."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

DEADLINE = 30.0


def asks_two_approvals(runs: Path) -> str:
    """A cell whose chat asks to send money under a rule that needs two approvals (`handle`
    its run); the payment tool writes each run to `runs`."""
    return (
        "import pathlib\nfrom interrupt_widget import AgentChat, Policy, require\n"
        "from payment_agents import payment_agent\n"
        f"chat = AgentChat(payment_agent(pathlib.Path({str(runs)!r})), "
        "policy=Policy(require('send_money', approvals=2)))\n"
        "handle = chat.send('send_money amount=5000 to=Bob')"
    )


def once_voted(read_items: Callable[[], list[dict[str, Any]]], given: list[str]) -> dict[str, Any]:
    """The one question `read_items()` lists, once the approvals given so far are `given`
    (another server's board: there is no event to await from here, so it is read again)."""
    deadline = time.monotonic() + DEADLINE
    while True:
        items = read_items()
        votes = [
            [v["name"] for v in i["interrupt"]["metadata"]["approvals"]["given"]] for i in items
        ]
        if votes == [given]:
            found: dict[str, Any] = items[0]
            return found
        assert time.monotonic() < deadline, votes
        time.sleep(0.1)
