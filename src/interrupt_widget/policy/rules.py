"""Approval policies: rules on a call's arguments that settle the easy calls alone.

    from interrupt_widget import Policy, approve, ask, deny

    policy = Policy(
        deny("transfer_funds", when=lambda a: a["to_account"] in BLOCKED, reason="blocked"),
        approve("transfer_funds", when=lambda a: a["amount"] <= 100, name="small transfers"),
        ask("transfer_funds"),
    )

Rules are tried in order; the first whose tool matches and whose `when`
(given the call's arguments as a dict) is true decides. A call no rule
matches asks a person, as does a call whose arguments are not a JSON object,
and a call where a `when` raises (the failure is logged): a broken rule never
runs a tool. Give the policy to `OpenAIAgentsAdapter(agent, policy=...)`,
`AgentChat(agent, policy=...)` or `serve(..., policy=...)`; measure it against
recorded decisions with `policy.evaluate(decisions)`.

Rules about people sit beside them (`require`, `escalate`, see `policy/quorum.py`):
a call no rule settles is asked, and they say who must answer it and how many.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from interrupt_widget.errors import PolicyError
from interrupt_widget.policy.quorum import Escalation, Requirement
from interrupt_widget.policy.report import Decisions, PolicyReport, evaluate
from interrupt_widget.policy.ruling import Condition, Rule, Ruling, Verdict, tool_name_of

if TYPE_CHECKING:
    from agents import FunctionTool

logger = logging.getLogger(__name__)

__all__ = ["Policy", "PolicyError", "Rule", "Ruling", "approve", "ask", "deny"]

_NO_RULE = Ruling("ask", None)


def _rule(
    verdict: Verdict,
    tool: str | FunctionTool,
    when: Condition | None,
    name: str | None,
    reason: str | None = None,
) -> Rule:
    tool_name = tool_name_of(tool)
    if when is not None and not callable(when):
        raise TypeError(f"when must be a function of the arguments, got {type(when).__name__}")
    if name is None:
        described = getattr(when, "__name__", "<lambda>") if when is not None else ""
        name = f"{verdict} {tool_name}" + (
            f" when {described}" if described and described != "<lambda>" else ""
        )
    elif not name.strip():
        raise ValueError("a rule's name must not be blank")
    return Rule(verdict, tool_name, when, name, reason)


def approve(
    tool: str | FunctionTool, when: Condition | None = None, name: str | None = None
) -> Rule:
    """Run calls to `tool` for which `when(arguments)` holds at once, with no person."""
    return _rule("approve", tool, when, name)


def deny(
    tool: str | FunctionTool,
    when: Condition | None = None,
    reason: str | None = None,
    name: str | None = None,
) -> Rule:
    """Never run calls to `tool` for which `when(arguments)` holds; the model is told `reason`."""
    return _rule("deny", tool, when, name, reason)


def ask(tool: str | FunctionTool, when: Condition | None = None, name: str | None = None) -> Rule:
    """Leave calls to `tool` for which `when(arguments)` holds to a person (stops the search)."""
    return _rule("ask", tool, when, name)


class Policy:
    """Rules tried in order; the first that matches a call decides; none: a person does."""

    def __init__(self, *rules: Rule | Requirement | Escalation) -> None:
        for rule in rules:
            if not isinstance(rule, Rule | Requirement | Escalation):
                raise TypeError(
                    "Policy takes rules made by approve, deny, ask, require or escalate, "
                    f"got {type(rule).__name__}"
                )
        self.people: tuple[Requirement | Escalation, ...] = tuple(
            r for r in rules if isinstance(r, Requirement | Escalation)
        )
        """The rules about people (`require`, `escalate`), in order."""
        rules_only = tuple(r for r in rules if isinstance(r, Rule))
        self.rules: tuple[Rule, ...] = rules_only
        """The rules that settle calls, in the order they are tried."""
        by_tool: dict[str, list[tuple[Condition | None, Ruling]]] = {}
        for rule in rules_only:
            by_tool.setdefault(rule.tool, []).append((rule.when, Ruling(rule.verdict, rule)))
        self._by_tool = {tool: tuple(found) for tool, found in by_tool.items()}

    def decide(self, tool: str, arguments: Any) -> Ruling:
        """The ruling for one call to `tool` with `arguments` (the parsed JSON).

        A `when` that raises leaves the call to a person; the failure is logged.
        """
        return self._decide(tool, arguments, strict=False)

    def strict_decide(self, tool: str, arguments: Any) -> Ruling:
        """As `decide`, but a `when` that raises raises `PolicyError` naming the rule."""
        return self._decide(tool, arguments, strict=True)

    def _decide(self, tool: str, arguments: Any, *, strict: bool) -> Ruling:
        # The hot path of every gated call and of every evaluated decision: rulings
        # are made once per rule, and a dict skips the slower Mapping check.
        rules = self._by_tool.get(tool)
        if rules is None or not (type(arguments) is dict or isinstance(arguments, Mapping)):
            return _NO_RULE
        given = dict(arguments)  # a rule that changes its dict changes no record
        for when, ruling in rules:
            if when is None:
                return ruling
            try:
                matched = when(given)
            except Exception as exc:
                name = ruling.rule.name if ruling.rule is not None else "?"
                if strict:
                    raise PolicyError(
                        f"rule {name!r} raised {type(exc).__name__}: {exc} on {tool} with {given!r}"
                    ) from exc
                logger.warning("policy rule %r raised; the call is left to a person", name)
                return _NO_RULE
            if matched:
                return ruling
        return _NO_RULE

    def people_for(self, tool: str, arguments: Any) -> tuple[Requirement | None, Escalation | None]:
        """The first `require` and the first `escalate` rule that cover a call, if any."""
        requirement = next(
            (r for r in self.people if isinstance(r, Requirement) and r.matches(tool, arguments)),
            None,
        )
        escalation = next(
            (r for r in self.people if isinstance(r, Escalation) and r.matches(tool, arguments)),
            None,
        )
        return requirement, escalation

    @property
    def tools(self) -> frozenset[str]:
        """The tools some rule names."""
        return frozenset(self._by_tool)

    def evaluate(self, decisions: Decisions) -> PolicyReport:
        """How this policy would have done against people's recorded decisions.

        `decisions` is a list of `Decision`s, the path of a file written by
        `save_decisions`, or a DataFrame from `decisions_frame()`. See `PolicyReport`.
        """
        return evaluate(self, decisions)

    def __repr__(self) -> str:
        names = ", ".join(repr(rule.name) for rule in (*self.rules, *self.people))
        return f"Policy({names})"
