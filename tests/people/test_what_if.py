"""The what-if report with rules about people: replayed on recorded decisions, it says how
many calls would have needed a second approver and how much longer they would have waited
(each further approver taken to answer in the median recorded time), and which of those
waits would have passed the escalation."""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

from interrupt_widget import Policy, approve, escalate, require
from interrupt_widget.decisions import Decision, load_decisions, save_decisions


def decision(n: int, amount: float, waited_minutes: int, verdict: str = "approved") -> Decision:
    return Decision(
        at=f"2030-01-07T10:{waited_minutes:02d}:00Z",
        tool="send_money",
        arguments={"amount": amount, "to": "Bob"},
        status="resolved",
        verdict=verdict,
        payload={"approved": verdict == "approved"},
        by="user",
        interrupt_id=f"approve-call_{n}",
        reason="tool_call",
        asked_at="2030-01-07T10:00:00Z",
        identity="ann",
    )


RECORDED = [
    decision(1, 50, 2),
    decision(2, 5000, 4),
    decision(3, 9000, 10, verdict="denied"),
    decision(4, 700, 6),
]
POLICY = Policy(
    approve("send_money", when=lambda a: a["amount"] <= 100),
    require("send_money", approvals=2, when=lambda a: a["amount"] > 1000),
    escalate("send_money", after=timedelta(minutes=12), to="cfo"),
)


def test_the_report_counts_calls_needing_a_second_approver_and_their_wait() -> None:
    report = POLICY.evaluate(RECORDED)
    assert [c.interrupt_id for c in report.more_people] == ["approve-call_2", "approve-call_3"]
    assert [c.waited for c in report.comparisons] == [120.0, 240.0, 600.0, 360.0]
    assert report.median_wait == 360.0
    assert [report.extra_wait(c) for c in report.more_people] == [360.0, 360.0]
    # The 9000 transfer waited 10 min, 6 more for a second approver: past the 12 min escalation.
    assert [c.interrupt_id for c in report.would_escalate()] == ["approve-call_3"]
    summary = report.summary()
    assert "2 would need a second approver (or more), waiting about 6 min more each" in summary
    assert "(the median answer took 6 min)" in summary
    assert "1 of them would have escalated" in summary


def test_a_decision_file_keeps_when_it_was_asked_and_who_answered(tmp_path: Path) -> None:
    path = save_decisions(RECORDED, tmp_path / "d.json")
    loaded = load_decisions(path)
    assert (loaded[0].asked_at, loaded[0].identity) == ("2030-01-07T10:00:00Z", "ann")
    report = POLICY.evaluate(path)
    assert len(report.more_people) == 2


def test_a_policy_without_rules_about_people_adds_nothing() -> None:
    report = Policy(approve("send_money", when=lambda a: a["amount"] <= 100)).evaluate(RECORDED)
    assert report.more_people == []
    assert "second approver" not in report.summary()
