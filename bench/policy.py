"""What an approval policy costs: per gated call in the adapter, and per evaluated decision.

1. Overhead per gated call: the work the adapter adds for a policy of ten
   rules when a run ends with one gated call (`_settle`: reading the call's
   arguments, trying the rules, building the settled resolution), against the
   same adapter with no policy. Nine rules name the tool with a `when` that
   does not hold; the tenth approves. The tool run itself is not included
   (it is the same with or without a policy).
2. What-if evaluation: `policy.evaluate(decisions)` over 100,000 recorded
   decisions, from a list of `Decision`s and from a `decisions_frame()`.

Run: .venv/bin/python bench/policy.py [--calls 2000] [--decisions 100000] [--quick]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from typing import Any

from ag_ui.core import AssistantMessage, FunctionCall, ToolCall

from interrupt_widget import OfflineModel, OpenAIAgentsAdapter, Policy, approve, deny
from interrupt_widget.agui.interrupts import attach, tool_call_interrupt
from interrupt_widget.decisions import Decision, decisions_frame
from interrupt_widget.examples import bank_agent

QUICK_HELP = "the smallest sizes: check that the bench runs (make bench-smoke), not a figure"


def ten_rules() -> Policy:
    rules = [
        deny("transfer_funds", when=lambda a, n=n: a["to_account"] == f"BLOCKED-{n}")
        for n in range(5)
    ]
    rules += [
        deny("transfer_funds", when=lambda a, n=n: a["amount"] > 1_000_000 + n) for n in range(4)
    ]
    rules.append(approve("transfer_funds", when=lambda a: a["amount"] <= 100, name="small"))
    return Policy(*rules)


def gated_call(n: int) -> tuple[Any, list[Any]]:
    arguments = json.dumps({"amount": 40.0, "to_account": "ACME-1", "memo": f"m{n}"})
    interrupt = tool_call_interrupt(
        tool_call_id=f"call-{n}",
        tool_name="transfer_funds",
        arguments=arguments,
        response_schema=None,
        expires_at=None,
    )
    call = ToolCall(
        id=f"call-{n}", function=FunctionCall(name="transfer_funds", arguments=arguments)
    )
    message = AssistantMessage(id=f"m-{n}", tool_calls=[attach(call, interrupt)])
    return interrupt, [message]


def per_call(adapter: OpenAIAgentsAdapter, calls: list[tuple[Any, list[Any]]]) -> list[float]:
    samples = []
    for interrupt, messages in calls:
        start = time.perf_counter()
        adapter.settle([interrupt], messages)
        samples.append((time.perf_counter() - start) * 1000)
    return samples


def decisions(count: int) -> list[Decision]:
    verdicts = ["approved", "approved", "denied", "cancelled"]
    return [
        Decision(
            at="2030-01-01T00:00:00Z",
            tool="transfer_funds",
            arguments={"amount": float(n % 500), "to_account": f"ACME-{n % 7}", "memo": ""},
            status="cancelled" if verdicts[n % 4] == "cancelled" else "resolved",
            verdict=verdicts[n % 4],
            payload=None,
            by="user",
            interrupt_id=f"approve-call-{n}",
            reason="tool_call",
        )
        for n in range(count)
    ]


def main(calls: int, count: int) -> None:
    agent = bank_agent(OfflineModel())
    with_policy = OpenAIAgentsAdapter(agent, policy=ten_rules())
    without = OpenAIAgentsAdapter(agent)
    sample = [gated_call(n) for n in range(calls)]
    per_call(with_policy, sample[:200])  # warm up
    per_call(without, sample[:200])
    policy_ms = per_call(with_policy, sample)
    plain_ms = per_call(without, sample)
    overhead = statistics.median(policy_ms) - statistics.median(plain_ms)
    p95 = statistics.quantiles(policy_ms, n=20)[-1] - statistics.median(plain_ms)
    print(f"{calls} gated calls, a policy of ten rules (the tenth approves); medians")
    print(f"  with the policy   {statistics.median(policy_ms):.4f} ms per call")
    print(f"  without a policy  {statistics.median(plain_ms):.4f} ms per call")
    print(f"  overhead          {overhead:.4f} ms (p95 {p95:.4f} ms; budget 0.1 ms)")

    records = decisions(count)
    policy = ten_rules()
    policy.evaluate(records[:1000])  # warm up
    start = time.perf_counter()
    report = policy.evaluate(records)
    from_list = time.perf_counter() - start
    frame = decisions_frame(records)
    start = time.perf_counter()
    policy.evaluate(frame)
    from_frame = time.perf_counter() - start
    print(
        f"evaluate {count:,} decisions: from a list {from_list:.3f} s, "
        f"from a DataFrame {from_frame:.3f} s (budget 2 s)"
    )
    print(
        f"  agreement {report.agreement:.3f}, escalation {report.escalation_rate:.3f}, "
        f"false approvals {len(report.false_approvals)}"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--decisions", type=int, default=100_000)
    parser.add_argument("--quick", action="store_true", help=QUICK_HELP)
    options = parser.parse_args()
    if options.quick:
        vars(options).update(calls=20, decisions=200)
    main(options.calls, options.decisions)
