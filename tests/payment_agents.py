"""A payment agent whose gated tools append each run's arguments to a file: what ran is read
back from that file, never inferred from events.

`send_money` is gated and takes no edits (the kit's bare approval schema); `pay` is gated
and editable in `amount` and `memo` only. `agent` (for `serve payment_agents:agent`)
writes to `$RUNS_FILE`; `payment_agent(runs)` writes to `runs`.
"""

from __future__ import annotations

import json
import os
import pathlib
from typing import Any

from agents import Agent, function_tool

from interrupt_widget import OfflineModel, Policy, editable, require

RUNS_ENV = "RUNS_FILE"
SEND = "send_money amount=42 to=Bob"
"""Asks for a transfer the person will be asked to approve: 42.0 to Bob."""
PAY = "pay amount=250 to=ACME-1 memo=rent"
"""The same through the editable tool."""
PAY_PROPOSAL = {"amount": 250.0, "to": "ACME-1", "memo": "rent"}


def payment_agent(runs: pathlib.Path | None = None) -> Agent[Any]:
    """A fresh agent writing to `runs` (else to `$RUNS_FILE`, read when a tool runs)."""

    def record(tool: str, arguments: dict[str, Any]) -> None:
        target = runs if runs is not None else pathlib.Path(os.environ[RUNS_ENV])
        with target.open("a", encoding="utf-8") as file:
            file.write(json.dumps({"tool": tool, **arguments}) + "\n")

    @function_tool(needs_approval=True)
    def send_money(amount: float, to: str) -> str:
        """Send `amount` to `to`, once a person approves it."""
        record("send_money", {"amount": amount, "to": to})
        return f"Sent {amount!r} to {to}."

    @function_tool(needs_approval=True)
    def pay(amount: float, to: str, memo: str = "") -> str:
        """Pay `amount` to `to` with `memo`, once a person approves it."""
        record("pay", {"amount": amount, "to": to, "memo": memo})
        return f"Paid {amount!r} to {to} ({memo})."

    return Agent(
        name="payments",
        model=OfflineModel(),
        tools=[send_money, editable(pay, fields=["amount", "memo"])],
    )


def runs_in(path: pathlib.Path) -> list[dict[str, Any]]:
    """Every run the tools wrote to `path`, in order."""
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


agent = payment_agent()

four_eyes = Policy(require("send_money", approvals=2, when=lambda a: a["amount"] > 1000))
"""Two people approve a transfer over 1000 (`serve ... --policy payment_agents:four_eyes`)."""


class Refused:
    """An answer every entry must refuse before anything runs, and the words it says why."""

    def __init__(self, name: str, payload: Any, says: str, code: str) -> None:
        self.name = name
        self.payload = payload
        self.says = says
        """Words every entry's refusal holds (Python, a click, a bulk answer, a resume)."""
        self.code = code
        """The RUN_ERROR code over AG-UI."""

    def __repr__(self) -> str:
        return self.name


MALLORY = {"amount": 1.0, "to": "Mallory"}
"""What the person meant to pay, sent in the kit's old edit field: never 42.0 to Bob."""

REFUSED_SEND = [
    Refused(
        "old-edit-field",
        {"approved": True, "arguments": MALLORY},
        "unknown field 'arguments': this tool does not take edits",
        "invalid_payload",
    ),
    Refused(
        "typo",
        {"aproved": True},
        "unknown field 'aproved': did you mean 'approved'?",
        "invalid_payload",
    ),
    Refused(
        "case-beside-valid",
        {"approved": True, "Approved": False},
        "unknown field 'Approved': did you mean 'approved'?",
        "invalid_payload",
    ),
    Refused(
        "proto",
        {"approved": True, "__proto__": {"approved": False, "to": "Mallory"}},
        "unknown field '__proto__'",
        "invalid_payload",
    ),
    Refused(
        "constructor",
        {"approved": True, "constructor": {"prototype": {"to": "Mallory"}}},
        "unknown field 'constructor'",
        "invalid_payload",
    ),
    Refused(
        "edit-field-case",
        {"approved": True, "editedargs": MALLORY},
        "unknown field 'editedargs'",
        "invalid_payload",
    ),
    Refused(
        "denial-with-extra",
        {"approved": False, "reason": "no", "to": "Mallory"},
        "unknown field 'to'",
        "invalid_payload",
    ),
    Refused(
        "hostile-name",
        {"approved": True, "Approved\n\u0000<b>": True, "y" * 20_000: 1},
        "unknown field 'Approved\\n\\x00<b>': did you mean 'approved'?",
        "invalid_payload",
    ),
    Refused(
        "flood",
        {"approved": True, **{f"x{n}": n for n in range(200)}},
        "195 more unknown fields",
        "invalid_payload",
    ),
]
"""Answers to `send_money` (no edits) that carry a field its schema does not declare."""

REFUSED_PAY = [
    Refused(
        "old-edit-field",
        {"approved": True, "arguments": {**PAY_PROPOSAL, "amount": 1.0}},
        "unknown field 'arguments': did you mean 'editedArgs'?",
        "invalid_edit",
    ),
    Refused(
        "both-edit-fields",
        {"approved": True, "editedArgs": PAY_PROPOSAL, "arguments": {**PAY_PROPOSAL, "amount": 1}},
        "unknown field 'arguments': did you mean 'editedArgs'?",
        "invalid_payload",
    ),
    Refused(
        "nested-typo",
        {"approved": True, "editedArgs": {**PAY_PROPOSAL, "amout": 1.0}},
        "unknown field 'amout': did you mean 'amount'?",
        "invalid_edit",
    ),
    Refused(
        "nested-case",
        {"approved": True, "editedArgs": {**PAY_PROPOSAL, "To": "Mallory"}},
        "unknown field 'To': did you mean 'to'?",
        "invalid_edit",
    ),
    Refused(
        "nested-proto",
        {"approved": True, "editedArgs": {**PAY_PROPOSAL, "__proto__": {"to": "Mallory"}}},
        "unknown field '__proto__'",
        "invalid_edit",
    ),
]
"""Answers to `pay` (editable in amount and memo) with an unknown field, at the top or
inside `editedArgs`."""
