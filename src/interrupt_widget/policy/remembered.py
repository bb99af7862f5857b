"""Remembered decisions: "approve this, and the calls like it", as rules a person can remove.

A person approving one call in the inbox may make a rule of it: the same tool,
and one argument equal to this call's value (`eq`) or at most it (`le`, for
amounts); with no argument named, every call to the tool. The inbox applies a
rule at once to the calls already waiting and to each call that waits later,
recording each answer with `by="rule:<name>"`, on the same path as a click.
`RememberedRules.policy()` is the same rules as a `Policy`, which prints as code
and can be evaluated against decisions or given to the next batch.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from interrupt_widget.policy.rules import Policy, approve

__all__ = ["RULE_BY", "RememberedPolicy", "RememberedRule", "RememberedRules"]

RULE_BY = "rule:"
"""How `by` begins for an answer a remembered rule gave."""

RuleOp = Literal["eq", "le"]


@dataclass(frozen=True)
class RememberedRule:
    """Approve calls to `tool` whose `field` is equal to (`eq`) or at most (`le`) `value`."""

    tool: str
    field: str | None
    """The argument the rule looks at; None for every call to the tool."""
    op: RuleOp
    value: Any

    @property
    def name(self) -> str:
        """`transfer_funds when amount <= 100`: the rule in words, unique per rule."""
        if self.field is None:
            return f"every {self.tool}"
        sign = "<=" if self.op == "le" else "=="
        return f"{self.tool} when {self.field} {sign} {json.dumps(self.value)}"

    def matches(self, tool: str, arguments: Any) -> bool:
        """Whether the rule approves a call to `tool` with `arguments`."""
        if tool != self.tool:
            return False
        if self.field is None:
            return True
        if not isinstance(arguments, Mapping) or self.field not in arguments:
            return False
        given = arguments[self.field]
        if self.op == "eq":
            return bool(given == self.value)
        numbers = (int, float)
        return (
            isinstance(given, numbers)
            and not isinstance(given, bool)
            and isinstance(self.value, numbers)
            and given <= self.value
        )

    def code(self) -> str:
        """The rule as the `approve(...)` that makes the same `Policy` rule."""
        if self.field is None:
            return f"approve({self.tool!r}, name={self.name!r})"
        sign = "<=" if self.op == "le" else "=="
        condition = f"lambda a: a.get({self.field!r}) {sign} {self.value!r}"
        return f"approve({self.tool!r}, when={condition}, name={self.name!r})"


class RememberedPolicy(Policy):
    """A `Policy` made of remembered rules; `str()` gives the code that makes it."""

    def __init__(self, rules: list[RememberedRule]) -> None:
        super().__init__(*(approve(r.tool, when=_condition(r), name=r.name) for r in rules))
        self._remembered = list(rules)

    def __str__(self) -> str:
        if not self._remembered:
            return "Policy()"
        lines = "".join(f"    {r.code()},\n" for r in self._remembered)
        return f"Policy(\n{lines})"


def _condition(rule: RememberedRule) -> Any:
    if rule.field is None:
        return None
    return lambda arguments: rule.matches(rule.tool, arguments)


class RememberedRules:
    """The rules one inbox remembers, and how many calls each settled."""

    def __init__(self) -> None:
        self._rules: dict[str, RememberedRule] = {}
        self.settled: dict[str, int] = {}
        """Calls each rule answered, by rule name."""

    def add(self, rule: RememberedRule) -> RememberedRule:
        """Remember `rule` (adding one that exists again changes nothing)."""
        if rule.name not in self._rules:
            self._rules[rule.name] = rule
            self.settled[rule.name] = 0
        return rule

    def remove(self, name: str) -> bool:
        """Forget the rule named `name`; False when there is none. What it settled stays."""
        self.settled.pop(name, None)
        return self._rules.pop(name, None) is not None

    def match(self, tool: str, arguments: Any) -> RememberedRule | None:
        """The first rule that approves this call, or None."""
        for rule in self._rules.values():
            if rule.matches(tool, arguments):
                return rule
        return None

    def count(self, rule: RememberedRule) -> None:
        self.settled[rule.name] = self.settled.get(rule.name, 0) + 1

    def policy(self) -> RememberedPolicy:
        return RememberedPolicy(list(self._rules.values()))

    def to_wire(self) -> list[dict[str, Any]]:
        """The rules as the inbox's `rules` trait holds them."""
        return [
            {
                "name": r.name,
                "tool": r.tool,
                "field": r.field,
                "op": r.op,
                "value": r.value,
                "settled": self.settled.get(r.name, 0),
            }
            for r in self._rules.values()
        ]

    def __len__(self) -> int:
        return len(self._rules)
