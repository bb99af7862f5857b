"""What a rule is and what a ruling says, and the verdicts a ruling is compared with.

The data every part of `interrupt_widget.policy` shares: `Policy` (`rules`) makes
rulings from rules, the report (`report`) compares them with people's verdicts,
and the chart (`chart`) draws the comparison.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from interrupt_widget.decisions import POLICY_BY

if TYPE_CHECKING:
    from agents import FunctionTool

Verdict = Literal["approve", "deny", "ask"]
Condition = Callable[[dict[str, Any]], object]


@dataclass(frozen=True)
class Rule:
    """One rule: for calls to `tool` for which `when` holds, `verdict`."""

    verdict: Verdict
    """`approve` (run it now), `deny` (tell the model it may not) or `ask` (a person decides)."""
    tool: str
    """The tool's name."""
    when: Condition | None
    """Given the call's arguments as a dict, whether the rule applies; None for always."""
    name: str
    """Shown wherever the rule's decision is (`by="policy:<name>"`)."""
    reason: str | None = None
    """For a denial: what the model is told."""

    def matches(self, tool: str, arguments: dict[str, Any]) -> bool:
        """Whether this rule decides the call (a `when` that raises propagates)."""
        return tool == self.tool and (self.when is None or bool(self.when(arguments)))


@dataclass(frozen=True)
class Ruling:
    """What a policy says about one call."""

    verdict: Verdict
    """`approve`, `deny`, or `ask` (no rule settled it)."""
    rule: Rule | None
    """The rule that decided; None when none matched."""

    @property
    def by(self) -> str:
        """`policy:<rule name>`, or `policy` when no rule matched."""
        return f"{POLICY_BY}{self.rule.name}" if self.rule is not None else "policy"

    @property
    def settled(self) -> bool:
        """True when the call needs no person."""
        return self.verdict != "ask"


POLICY_VERDICTS: tuple[Verdict, ...] = ("approve", "deny", "ask")
"""The policy's side of a comparison."""
PERSON_VERDICTS = ("approved", "denied", "cancelled", "expired")
"""The person's side of a comparison (a denial, a cancel and an expiry all mean "not run")."""


def tool_name_of(tool: str | FunctionTool) -> str:
    """The name of the tool a rule names: the name itself, or a `FunctionTool`'s."""
    name: object = tool
    if not isinstance(tool, str):
        # A tool object: its caller has the Agents SDK loaded already (a rule given a name
        # alone, as a server's rules are, never loads it).
        from agents import FunctionTool

        name = tool.name if isinstance(tool, FunctionTool) else None
    if not isinstance(name, str) or not name:
        raise TypeError(f"a rule names a tool (its name or the FunctionTool), got {tool!r}")
    return name
