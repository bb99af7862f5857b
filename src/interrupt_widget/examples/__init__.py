"""Example agents for the notebooks, the tests and the docs.

- `meeting_agent()`: the quickstart's scheduler (`schedule_meeting`, gated,
  answered with a time).
- `bank_agent()`: money transfers (`transfer_funds` gated and `editable` in its
  amount and memo, `check_balance`), for approval policies.
- `expense_agent()`: expense approvals (`submit_expense` gated with a category
  and a bounded amount, `issue_refund` gated above a limit, `check_budget`).

Each factory returns a fresh `ExampleAgent` whose `executions` log records
every tool body that ran (a `ToolRunLog`).
"""

from __future__ import annotations

from interrupt_widget.examples.bank import EDITABLE_TRANSFER_FIELDS, bank_agent
from interrupt_widget.examples.expenses import (
    EXPENSE_CATEGORIES,
    EXPENSE_RESPONSE_SCHEMA,
    REFUND_LIMIT,
    expense_agent,
)
from interrupt_widget.examples.meeting import MEETING_RESPONSE_SCHEMA, meeting_agent
from interrupt_widget.examples.tool_runs import (
    ExampleAgent,
    ExecutedCall,
    ToolRunLog,
    read_journal,
)

__all__ = [
    "EDITABLE_TRANSFER_FIELDS",
    "EXPENSE_CATEGORIES",
    "EXPENSE_RESPONSE_SCHEMA",
    "MEETING_RESPONSE_SCHEMA",
    "REFUND_LIMIT",
    "ExampleAgent",
    "ExecutedCall",
    "ToolRunLog",
    "bank_agent",
    "expense_agent",
    "meeting_agent",
    "read_journal",
]
