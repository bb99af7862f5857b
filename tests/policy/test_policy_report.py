"""What-if evaluation on a hand-computed set of decisions."""

from __future__ import annotations

import pathlib
import sys
import tomllib
from typing import Any

import pytest

from interrupt_widget import Policy, approve, deny
from interrupt_widget.decisions import Decision, decisions_frame, save_decisions
from interrupt_widget.errors import PolicyError


def decision(n: int, tool: str, arguments: Any, verdict: str, **extra: Any) -> Decision:
    fields: dict[str, Any] = {
        "at": f"2030-01-01T00:00:{n:02d}Z",
        "tool": tool,
        "arguments": arguments,
        "status": "cancelled" if verdict == "cancelled" else "resolved",
        "verdict": verdict,
        "payload": None if verdict == "cancelled" else {"approved": verdict == "approved"},
        "by": "user",
        "interrupt_id": f"approve-call-{n}",
        "reason": "tool_call",
    }
    fields.update(extra)
    return Decision(**fields)


def transfer(amount: float, account: str = "ACME-1") -> dict[str, Any]:
    return {"amount": amount, "to_account": account, "memo": ""}


# By hand, against POLICY (blocked accounts denied first, then up to 100 approved):
#   1  50 ACME      approved   -> approve  agrees
#   2  80 ACME      denied     -> approve  false approval
#   3 500 ACME      approved   -> ask
#   4  20 OFFSHORE  denied     -> deny     agrees
#   5  30 OFFSHORE  approved   -> deny     false denial
#   6  90 ACME      cancelled  -> approve  false approval
#   7  schedule_meeting approved -> ask (no rule names the tool)
#   8  a question (input_required), 9  a decision a policy made: both left out
# Evaluated 7, settled 5 (1 2 4 5 6), agreeing 2 (1 4): agreement 2/5, escalation 2/7.
DECISIONS = [
    decision(1, "transfer_funds", transfer(50), "approved"),
    decision(2, "transfer_funds", transfer(80), "denied"),
    decision(3, "transfer_funds", transfer(500), "approved"),
    decision(4, "transfer_funds", transfer(20, "OFFSHORE-9"), "denied"),
    decision(5, "transfer_funds", transfer(30, "OFFSHORE-9"), "approved"),
    decision(6, "transfer_funds", transfer(90), "cancelled"),
    decision(7, "schedule_meeting", {"topic": "Q3"}, "approved"),
    decision(8, "input_required", None, "answered", reason="input_required"),
    decision(9, "transfer_funds", transfer(10), "approved", by="policy:small transfers"),
]


def policy(limit: float = 100) -> Policy:
    return Policy(
        deny("transfer_funds", when=lambda a: a["to_account"] == "OFFSHORE-9", name="blocked"),
        approve("transfer_funds", when=lambda a: a["amount"] <= limit, name="small"),
    )


def test_the_headline_numbers_match_the_hand_count() -> None:
    report = policy().evaluate(DECISIONS)
    assert len(report) == 7
    assert report.skipped == 2
    assert report.agreement == pytest.approx(2 / 5)
    assert report.escalation_rate == pytest.approx(2 / 7)
    assert [c.interrupt_id for c in report.false_approvals] == ["approve-call-2", "approve-call-6"]
    assert [c.person for c in report.false_approvals] == ["denied", "cancelled"]
    assert [c.rule for c in report.false_approvals] == ["small", "small"]
    assert [c.interrupt_id for c in report.false_denials] == ["approve-call-5"]
    counts = report.counts()
    assert counts[("approved", "approve")] == 1
    assert counts[("denied", "approve")] == 1
    assert counts[("cancelled", "approve")] == 1
    assert counts[("approved", "ask")] == 2
    assert counts[("denied", "deny")] == 1
    assert counts[("approved", "deny")] == 1
    assert sum(counts.values()) == 7


def test_the_breakdown_by_tool() -> None:
    transfers, meetings = policy().evaluate(DECISIONS).by_tool()
    assert (transfers.tool, transfers.decisions, transfers.settled) == ("transfer_funds", 6, 5)
    assert transfers.agreement == pytest.approx(2 / 5)
    assert transfers.escalation_rate == pytest.approx(1 / 6)
    assert (transfers.false_approvals, transfers.false_denials) == (2, 1)
    assert (meetings.tool, meetings.decisions, meetings.settled) == ("schedule_meeting", 1, 0)
    assert meetings.agreement is None
    assert meetings.escalation_rate == 1.0


def test_tightening_the_rule_removes_the_false_approvals() -> None:
    report = policy(limit=50).evaluate(DECISIONS)
    assert report.false_approvals == []
    assert report.agreement == pytest.approx(2 / 3)  # settled: 1, 4, 5; agreeing: 1, 4
    assert report.escalation_rate == pytest.approx(4 / 7)


def test_a_list_a_file_and_a_frame_give_the_same_report(tmp_path: pathlib.Path) -> None:
    path = save_decisions(DECISIONS, tmp_path / "decisions.json")
    reports = [
        policy().evaluate(DECISIONS),
        policy().evaluate(path),
        policy().evaluate(str(path)),
        policy().evaluate(decisions_frame(DECISIONS)),
    ]
    first = reports[0]
    for other in reports[1:]:
        assert other.comparisons == first.comparisons
        assert (other.agreement, other.escalation_rate) == (first.agreement, first.escalation_rate)


def test_the_frame_has_one_row_per_evaluated_decision() -> None:
    frame = policy().evaluate(DECISIONS).frame()
    assert list(frame.columns[:5]) == ["tool", "arguments", "person", "policy", "rule"]
    assert len(frame) == 7
    row = frame.iloc[1]
    assert (row["person"], row["policy"], row["rule"], bool(row["agrees"])) == (
        "denied",
        "approve",
        "small",
        False,
    )
    assert row["arguments"] == transfer(80)
    tools = policy().evaluate(DECISIONS).tool_frame()
    assert list(tools["tool"]) == ["transfer_funds", "schedule_meeting"]


def test_the_chart_is_a_png_that_shows_in_a_notebook(tmp_path: pathlib.Path) -> None:
    report = policy().evaluate(DECISIONS)
    chart = report.chart()
    png = chart._repr_png_()
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    assert chart.png() == chart.png()  # nothing in it changes from one drawing to the next
    saved = chart.save(tmp_path / "chart.png")
    assert saved.read_bytes().startswith(b"\x89PNG")
    axes = chart.figure.axes[0]
    labels = [t.get_text() for t in axes.get_yticklabels()]
    assert labels == ["person approved", "person denied", "person cancelled"]  # top down
    numbers = sorted(t.get_text() for t in axes.texts)
    assert numbers == ["1", "1", "1", "1", "1", "2"]
    assert "agreement 40%" in axes.get_title(loc="left")
    assert repr(chart).startswith("<PolicyChart of 7 decisions")


def test_an_empty_or_wrong_input_is_explained() -> None:
    empty = policy().evaluate([])
    assert (len(empty), empty.agreement, empty.escalation_rate) == (0, None, 0.0)
    with pytest.raises(TypeError, match="got dict"):
        policy().evaluate([{"tool": "x"}])
    frame = decisions_frame(DECISIONS).drop(columns=["verdict"])
    with pytest.raises(ValueError, match="lacks the columns verdict"):
        policy().evaluate(frame)


def test_a_rule_that_raises_names_itself_in_evaluation() -> None:
    broken = Policy(approve("transfer_funds", when=lambda a: a["nope"], name="typo"))
    with pytest.raises(PolicyError, match="rule 'typo' raised KeyError"):
        broken.evaluate(DECISIONS)


def test_the_summary_lists_the_false_approvals() -> None:
    text = repr(policy().evaluate(DECISIONS))
    assert "agreement 40.0%, escalation rate 28.6%" in text
    assert "false approvals 2, false denials 1" in text
    assert text.count("! would approve transfer_funds") == 2


def test_decisions_frame_without_pandas_names_the_install_line(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "pandas", None)  # as if pandas were not installed
    with pytest.raises(ImportError, match=r"not installed: pip install pandas$"):
        decisions_frame(DECISIONS)
    project = tomllib.loads((pathlib.Path(__file__).parents[2] / "pyproject.toml").read_text())
    assert "pandas" in project["project"]["optional-dependencies"]
