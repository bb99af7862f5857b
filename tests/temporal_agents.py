"""Targets the Temporal tests' workers load by name: the payment agent of `payment_agents`
(its tools append each run to `$RUNS_FILE`), and the same with questions that expire."""

from __future__ import annotations

from interrupt_widget import OpenAIAgentsAdapter, Policy, approve
from payment_agents import payment_agent

PAYMENTS = "payment_agents:payment_agent"
EXPIRING = "temporal_agents:expiring"

EXPIRES_IN = 1.0
"""Seconds an expiring agent's question stays answerable."""


def expiring() -> OpenAIAgentsAdapter:
    """The payment agent whose questions expire after `EXPIRES_IN` seconds."""
    return OpenAIAgentsAdapter(payment_agent(), expires_in=EXPIRES_IN)


def approving() -> OpenAIAgentsAdapter:
    """The payment agent with a policy on the worker that approves every transfer."""
    return OpenAIAgentsAdapter(
        payment_agent(), policy=Policy(approve("send_money", name="all")), ledger=None
    )


APPROVING = "temporal_agents:approving"
