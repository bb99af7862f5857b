"""What-if evaluation: how a `Policy` would have done against people's decisions.

Each recorded tool approval a person (or a responder) answered is put to the
policy. Where the policy would settle it, its verdict is compared with the
person's: approving what the person denied or cancelled is a false approval
(the dangerous kind), denying what the person approved a false denial. The
numbers need nothing beyond the standard library; `frame()` needs pandas and
`chart()` matplotlib (`pip install matplotlib`).
"""

from __future__ import annotations

import os
import pathlib
from collections import Counter
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass
from typing import Any, NamedTuple, Protocol

from interrupt_widget.agui.interrupts import TOOL_CALL_REASON
from interrupt_widget.clock import parse_instant
from interrupt_widget.decisions import POLICY_BY, Decision, load_decisions
from interrupt_widget.policy.chart import PolicyChart
from interrupt_widget.policy.ruling import PERSON_VERDICTS, POLICY_VERDICTS, Ruling

Decisions = Sequence[Decision] | str | os.PathLike[str] | Any
"""A list of `Decision`s, a decision file's path, or a `decisions_frame()` DataFrame."""


class Decider(Protocol):
    """What the report puts each decision to: a `Policy`'s strict ruling on a call, and its
    rules about people."""

    def strict_decide(self, tool: str, arguments: Any) -> Ruling: ...

    def people_for(self, tool: str, arguments: Any) -> tuple[Any, Any]: ...


class Comparison(NamedTuple):
    """One recorded decision beside what the policy would have said."""

    tool: str
    """The gated tool."""
    arguments: Any
    """The arguments the person saw (the proposal)."""
    person: str
    """`approved`, `denied`, `cancelled` or `expired`."""
    policy: str
    """`approve`, `deny` or `ask`."""
    rule: str | None
    """The rule that decided; None when no rule matched."""
    interrupt_id: str
    """The interrupt the decision answered."""
    by: str
    """Who made the recorded decision."""
    at: str
    """When it was recorded."""
    needs: int = 1
    """How many people the policy's `require` rule would ask to approve it (1: one)."""
    waited: float | None = None
    """Seconds the recorded answer took after the question was asked; None if unknown."""
    escalates_after: float | None = None
    """Seconds after which the policy's `escalate` rule would move the question; None: never."""

    @property
    def settled(self) -> bool:
        """True when the policy would not have asked a person."""
        return self.policy != "ask"

    @property
    def agrees(self) -> bool:
        """True when the policy would have settled it as the person did."""
        return (self.policy == "approve") == (self.person == "approved") and self.settled

    @property
    def false_approval(self) -> bool:
        """The policy would run what the person did not let run."""
        return self.policy == "approve" and self.person != "approved"

    @property
    def false_denial(self) -> bool:
        """The policy would refuse what the person approved."""
        return self.policy == "deny" and self.person == "approved"


@dataclass(frozen=True)
class ToolSummary:
    """The report's figures for one tool."""

    tool: str
    decisions: int
    settled: int
    agreement: float | None
    escalation_rate: float
    false_approvals: int
    false_denials: int


class PolicyReport:
    """The outcome of `policy.evaluate(decisions)`."""

    def __init__(self, policy: Decider, comparisons: Sequence[Comparison], skipped: int) -> None:
        self.policy = policy
        """The policy evaluated."""
        self.comparisons: tuple[Comparison, ...] = tuple(comparisons)
        """One per evaluated decision, in the order given."""
        self.skipped = skipped
        """Decisions left out: not a tool approval, or made by a policy rather than a person."""
        settled = [c for c in self.comparisons if c.settled]
        self.agreement: float | None = (
            sum(c.agrees for c in settled) / len(settled) if settled else None
        )
        """Among the decisions the policy would settle, the share where it agrees with the
        person; None when it would settle none."""
        total = len(self.comparisons)
        self.escalation_rate: float = (total - len(settled)) / total if total else 0.0
        """The share of all evaluated decisions the policy would leave to a person."""
        self.false_approvals: list[Comparison] = [c for c in settled if c.false_approval]
        """Decisions the policy would approve that the person denied, cancelled or let
        expire: the dangerous ones."""
        self.false_denials: list[Comparison] = [c for c in settled if c.false_denial]
        """Decisions the policy would deny that the person approved."""
        self.more_people: list[Comparison] = [
            c for c in self.comparisons if not c.settled and c.needs > 1
        ]
        """Decisions the policy would leave to several people (`require(approvals=N)`)."""
        known = sorted(c.waited for c in self.comparisons if c.waited is not None)
        self.median_wait: float | None = known[len(known) // 2] if known else None
        """The median time a recorded question waited for its answer (seconds); None when
        no decision says when it was asked."""

    def extra_wait(self, comparison: Comparison) -> float | None:
        """How much longer `comparison`'s call would have waited for the further approvers
        its rule asks for, each taken to answer in the median recorded time (seconds)."""
        if comparison.needs <= 1 or self.median_wait is None:
            return 0.0 if comparison.needs <= 1 else None
        return (comparison.needs - 1) * self.median_wait

    def would_escalate(self) -> list[Comparison]:
        """The calls needing several people whose expected wait passes their escalation."""
        return [
            c
            for c in self.more_people
            if c.escalates_after is not None
            and (extra := self.extra_wait(c)) is not None
            and (c.waited or 0.0) + extra >= c.escalates_after
        ]

    def __len__(self) -> int:
        return len(self.comparisons)

    def __iter__(self) -> Iterator[Comparison]:
        return iter(self.comparisons)

    def counts(self) -> dict[tuple[str, str], int]:
        """How many decisions fall in each (person verdict, policy verdict) cell."""
        found = Counter((c.person, c.policy) for c in self.comparisons)
        return {(p, q): found[(p, q)] for p in PERSON_VERDICTS for q in POLICY_VERDICTS}

    def by_tool(self) -> list[ToolSummary]:
        """The same figures per tool, in order of first appearance."""
        groups: dict[str, list[Comparison]] = {}
        for c in self.comparisons:
            groups.setdefault(c.tool, []).append(c)
        summaries: list[ToolSummary] = []
        for tool, group in groups.items():
            part = PolicyReport(self.policy, group, 0)
            summaries.append(
                ToolSummary(
                    tool=tool,
                    decisions=len(group),
                    settled=sum(c.settled for c in group),
                    agreement=part.agreement,
                    escalation_rate=part.escalation_rate,
                    false_approvals=len(part.false_approvals),
                    false_denials=len(part.false_denials),
                )
            )
        return summaries

    def frame(self) -> Any:
        """One row per decision: tool, arguments, person, policy, rule, ... (pandas)."""
        pd = _pandas()
        columns = ["tool", "arguments", "person", "policy", "rule", "interrupt_id", "by", "at"]
        frame = pd.DataFrame([c._asdict() for c in self.comparisons], columns=columns)
        frame["agrees"] = [c.agrees for c in self.comparisons]
        return frame

    def tool_frame(self) -> Any:
        """`by_tool()` as a DataFrame, one row per tool (pandas)."""
        pd = _pandas()
        columns = [
            "tool",
            "decisions",
            "settled",
            "agreement",
            "escalation_rate",
            "false_approvals",
            "false_denials",
        ]
        return pd.DataFrame([asdict(s) for s in self.by_tool()], columns=columns)

    def chart(self, *, title: str | None = None) -> PolicyChart:
        """The policy against the person: for each person verdict, what the policy says.

        Shows as a PNG in a notebook; `.save(path)` writes it; `.figure` is the
        matplotlib Figure. Needs matplotlib (the `charts` extra).
        """
        return PolicyChart(self, title=title)

    def summary(self) -> str:
        """The headline figures in a few lines of text."""
        agreement = "n/a" if self.agreement is None else f"{self.agreement:.1%}"
        lines = [
            f"{self.policy!r} against {len(self)} recorded decisions",
            f"  agreement {agreement}, escalation rate {self.escalation_rate:.1%}",
            f"  false approvals {len(self.false_approvals)}, "
            f"false denials {len(self.false_denials)}",
        ]
        for c in self.false_approvals:
            lines.append(
                f"  ! would approve {c.tool} {c.arguments!r} ({c.rule}); person: {c.person}"
            )
        lines.extend(self._people_lines())
        return "\n".join(lines)

    def _people_lines(self) -> list[str]:
        """What the rules about people would have cost: further approvers and their wait."""
        if not self.more_people:
            return []
        extra = [w for c in self.more_people if (w := self.extra_wait(c)) is not None]
        line = f"  {len(self.more_people)} would need a second approver (or more)"
        if extra:
            line += f", waiting about {_duration(sum(extra) / len(extra))} more each"
            line += f" (the median answer took {_duration(self.median_wait or 0.0)})"
        lines = [line]
        escalated = self.would_escalate()
        if escalated:
            lines.append(f"  {len(escalated)} of them would have escalated")
        return lines

    def __repr__(self) -> str:
        return self.summary()


def evaluate(policy: Decider, decisions: Decisions) -> PolicyReport:
    """Put every recorded tool approval in `decisions` to `policy` (see `PolicyReport`)."""
    comparisons: list[Comparison] = []
    skipped = 0
    decide = policy.strict_decide
    for tool, arguments, verdict, by, reason, interrupt_id, at, asked_at in _rows(decisions):
        if reason != TOOL_CALL_REASON or verdict not in PERSON_VERDICTS or by.startswith(POLICY_BY):
            skipped += 1
            continue
        ruling = decide(tool, arguments)
        rule = ruling.rule.name if ruling.rule is not None else None
        requirement, escalation = policy.people_for(tool, arguments)
        comparisons.append(
            Comparison(
                tool,
                arguments,
                verdict,
                ruling.verdict,
                rule,
                interrupt_id,
                by,
                at,
                needs=requirement.approvals if requirement is not None else 1,
                waited=_waited(asked_at, at),
                escalates_after=escalation.after.total_seconds() if escalation else None,
            )
        )
    return PolicyReport(policy, comparisons, skipped)


def _waited(asked_at: Any, at: Any) -> float | None:
    """Seconds from `asked_at` to `at` (ISO 8601 instants), or None when either is unknown."""
    if not isinstance(asked_at, str) or not isinstance(at, str) or not asked_at or not at:
        return None
    try:
        return max(0.0, (parse_instant(at) - parse_instant(asked_at)).total_seconds())
    except ValueError:
        return None


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 90 * 60:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


_Row = tuple[str, Any, str, str, str, str, str, Any]


def _rows(decisions: Decisions) -> Iterable[_Row]:
    if isinstance(decisions, str | os.PathLike):
        decisions = load_decisions(pathlib.Path(decisions))
    if _is_frame(decisions):
        frame: Any = decisions
        needed = ["tool", "arguments", "verdict", "by", "reason", "interrupt_id", "at"]
        missing = [name for name in needed if name not in frame.columns]
        if missing:
            raise ValueError(
                f"the DataFrame lacks the columns {', '.join(missing)}; "
                "pass one made by decisions_frame()"
            )
        columns = [frame[name].tolist() for name in needed]
        asked = frame["asked_at"].tolist() if "asked_at" in frame.columns else [None] * len(frame)
        return list(zip(*columns, asked, strict=True))
    rows: list[_Row] = []
    for d in decisions:
        if not isinstance(d, Decision):
            raise TypeError(
                f"evaluate takes Decisions, a decision file or a DataFrame, got {type(d).__name__}"
            )
        rows.append(
            (d.tool, d.arguments, d.verdict, d.by, d.reason, d.interrupt_id, d.at, d.asked_at)
        )
    return rows


def _is_frame(value: Any) -> bool:
    try:
        import pandas as pd
    except ImportError:  # without pandas, nothing is a DataFrame
        return False
    return isinstance(value, pd.DataFrame)


def _pandas() -> Any:
    try:
        import pandas as pd
    except ImportError:  # pragma: no cover - pandas is in the dev extra
        raise ImportError("this needs pandas: pip install pandas") from None
    return pd
