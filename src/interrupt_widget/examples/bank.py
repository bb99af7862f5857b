"""A bank-style example: an editable money transfer, for approval policies.

`transfer_funds(amount, to_account, memo="")` needs approval and is
`editable`: the approver may change the amount and the memo (never the
recipient). `check_balance` never needs approval. Each transfer that really
runs is appended to a journal file (one JSON line per transfer), so a test or
a notebook can count what ran, and with which arguments, from outside the
process that ran it.
"""

from __future__ import annotations

import os
import pathlib
from typing import Any

from agents import Model, function_tool
from agents.tool_context import ToolContext

from interrupt_widget.examples.tool_runs import (
    ExampleAgent,
    ExecutedCall,
    ToolRunLog,
    append_journal,
)
from interrupt_widget.policy.rules import Policy, approve, deny
from interrupt_widget.sdk.edits import editable
from interrupt_widget.sdk.model_choice import default_model
from interrupt_widget.sdk.tool_answers import resume_payload

BANK_INSTRUCTIONS = (
    "You move money for the user. Call transfer_funds with the amount, the recipient account "
    "and a memo from the request; a person approves each transfer in the tool's own form. "
    "Report only what the tools returned."
)

EDITABLE_TRANSFER_FIELDS = ("amount", "memo")
"""What an approver may change in a transfer: not the recipient."""

JOURNAL_ENV = "INTERRUPT_WIDGET_BANK_JOURNAL"
"""The journal file `bank_agent()` writes to when none is given (e.g. under `serve`)."""

SMALL_TRANSFER = 100
"""Transfers up to this amount are what `starter_policy` approves alone."""

BLOCKED_ACCOUNTS = frozenset({"OFFSHORE-9"})
"""Accounts `starter_policy` never sends money to."""


def bank_agent(
    model: Model | str | None = None, *, journal: str | os.PathLike[str] | None = None
) -> ExampleAgent:
    """A fresh bank agent; `default_model()` if no model.

    `journal`, when given (else `$INTERRUPT_WIDGET_BANK_JOURNAL`, if set), is a
    file each executed transfer appends one JSON line to (read it back with
    `read_journal`).
    """
    log = ToolRunLog()
    journal = journal if journal is not None else (os.environ.get(JOURNAL_ENV) or None)
    journal_path = pathlib.Path(journal) if journal is not None else None

    @function_tool(needs_approval=True)
    def transfer_funds(
        ctx: ToolContext[Any], amount: float, to_account: str, memo: str = ""
    ) -> str:
        """Send `amount` to `to_account`, once a person approves it."""
        arguments = {"amount": amount, "to_account": to_account, "memo": memo}
        log.record(ExecutedCall("transfer_funds", ctx.tool_call_id, arguments, resume_payload(ctx)))
        if journal_path is not None:
            append_journal(journal_path, {"call_id": ctx.tool_call_id, **arguments})
        return f"Sent {amount:.2f} to {to_account}" + (f" ({memo})." if memo else ".")

    @function_tool
    def check_balance(ctx: ToolContext[Any]) -> str:
        """The account's balance."""
        log.record(ExecutedCall("check_balance", ctx.tool_call_id, {}, None))
        return "The balance is 12500.00."

    editable(transfer_funds, fields=EDITABLE_TRANSFER_FIELDS)
    return ExampleAgent(
        name="Bank",
        instructions=BANK_INSTRUCTIONS,
        tools=[transfer_funds, check_balance],
        model=model if model is not None else default_model(),
        executions=log,
    )


def starter_policy() -> Policy:
    """A first approval policy for the bank agent: block some accounts, approve small sums.

    Everything else asks a person. `serve interrupt_widget.examples:bank_agent
    --policy interrupt_widget.examples.bank:starter_policy` serves the agent with it.
    """
    return Policy(
        deny(
            "transfer_funds",
            when=lambda a: a.get("to_account") in BLOCKED_ACCOUNTS,
            reason="that account is blocked",
            name="blocked accounts",
        ),
        approve(
            "transfer_funds",
            when=lambda a: float(a.get("amount", 0)) <= SMALL_TRANSFER,
            name="small transfers",
        ),
    )
