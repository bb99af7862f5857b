"""A second example: expense approvals, with a bounded amount and a category in the answer.

`submit_expense` always needs approval; the approver picks a category and may
lower the amount. `issue_refund` needs approval only above `REFUND_LIMIT`
(a callable `needs_approval`). `check_budget` never does.
"""

from __future__ import annotations

from typing import Any

from agents import Model, RunContextWrapper, function_tool
from agents.tool_context import ToolContext

from interrupt_widget.examples.tool_runs import ExampleAgent, ExecutedCall, ToolRunLog
from interrupt_widget.sdk.model_choice import default_model
from interrupt_widget.sdk.response_schema import with_response_schema
from interrupt_widget.sdk.tool_answers import resume_payload

EXPENSE_CATEGORIES = ["travel", "meals", "equipment", "software", "other"]
"""The categories the approver picks from for `submit_expense` (its answer's `category`)."""
MAX_EXPENSE = 10_000
REFUND_LIMIT = 50
"""Refunds above this amount need approval."""

EXPENSE_RESPONSE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "category": {"type": "string", "enum": EXPENSE_CATEGORIES, "title": "Category"},
        "approved_amount": {
            "type": "number",
            "minimum": 0,
            "maximum": MAX_EXPENSE,
            "title": "Approved amount",
        },
    },
    "required": ["category"],
}
"""The answer fields `submit_expense` adds beside `approved` (`category` required when approved)."""

EXPENSE_INSTRUCTIONS = (
    "You file expenses and refunds. Call submit_expense or issue_refund as asked, with the "
    "amount and description from the request; approval happens in the tool's own form. "
    "Report only what the tools returned."
)


async def _refund_needs_approval(
    _ctx: RunContextWrapper[Any], params: dict[str, Any], _call_id: str
) -> bool:
    return float(params.get("amount", 0)) > REFUND_LIMIT


def expense_agent(model: Model | str | None = None) -> ExampleAgent:
    """A fresh expenses agent (its own `executions` log); `default_model()` if no model."""
    log = ToolRunLog()

    @function_tool(needs_approval=True)
    def submit_expense(ctx: ToolContext[Any], amount: float, description: str = "") -> str:
        """File an expense of `amount` for `description`, once a manager approves it."""
        answer = resume_payload(ctx)
        log.record(
            ExecutedCall(
                "submit_expense",
                ctx.tool_call_id,
                {"amount": amount, "description": description},
                answer,
            )
        )
        if not isinstance(answer, dict) or answer.get("approved") is not True:
            return f"Not filed: the expense of {amount:.2f} was not approved."
        granted = float(answer.get("approved_amount", amount))
        return f"Filed {granted:.2f} for {description or 'an expense'} under {answer['category']}."

    @function_tool(needs_approval=_refund_needs_approval)
    def issue_refund(ctx: ToolContext[Any], amount: float, reason: str = "") -> str:
        """Refund `amount` to the customer; large refunds need approval."""
        log.record(
            ExecutedCall(
                "issue_refund",
                ctx.tool_call_id,
                {"amount": amount, "reason": reason},
                resume_payload(ctx),
            )
        )
        return f"Refunded {amount:.2f}" + (f" ({reason})." if reason else ".")

    @function_tool
    def check_budget(ctx: ToolContext[Any], category: str = "other") -> str:
        """How much budget a category has left."""
        log.record(ExecutedCall("check_budget", ctx.tool_call_id, {"category": category}, None))
        return f"The {category} budget has 2500.00 left."

    with_response_schema(submit_expense, EXPENSE_RESPONSE_SCHEMA)
    return ExampleAgent(
        name="Expenses",
        instructions=EXPENSE_INSTRUCTIONS,
        tools=[submit_expense, issue_refund, check_budget],
        model=model if model is not None else default_model(),
        executions=log,
    )
