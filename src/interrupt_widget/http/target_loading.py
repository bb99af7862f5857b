"""What `serve` runs, named as `package.module:attribute`: the agent and the policy.

The command line, `serve(...)` given a name, and each worker process load them
here, by name, so a worker imports the agent itself.
"""

from __future__ import annotations

import importlib
from typing import Any

from interrupt_widget.errors import TargetError


def _resolve(target: str, what: str) -> Any:
    module_name, sep, attribute = target.partition(":")
    if not sep or not module_name or not attribute:
        raise TargetError(f"expected package.module:{what}, got {target!r}")
    try:
        obj: Any = importlib.import_module(module_name)
    except ImportError as exc:
        raise TargetError(f"cannot import {module_name!r}: {exc}") from exc
    for part in attribute.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            raise TargetError(f"{module_name!r} has no attribute {attribute!r}") from None
    return obj


def load_target(target: str) -> Any:
    """The object named by `package.module:attribute` (an attribute path may have dots).

    A callable that is not itself an agent (a factory) is called with no
    arguments; an Agents SDK `Agent` or an AG-UI agent is returned as is.
    """
    obj = _resolve(target, "agent")
    from agents import Agent

    from interrupt_widget.agui.run_handle import AGUIAgent

    if not isinstance(obj, Agent | AGUIAgent) and callable(obj):
        obj = obj()
    if not isinstance(obj, Agent | AGUIAgent):
        raise TargetError(
            f"{target} is a {type(obj).__name__}, not an agents.Agent or an AG-UI agent"
        )
    return obj


def load_policy(target: str) -> Any:
    """The `Policy` named by `package.module:attribute` (a function returning one is called)."""
    from interrupt_widget.policy.rules import Policy

    obj = _resolve(target, "policy")
    if not isinstance(obj, Policy) and callable(obj):
        obj = obj()
    if not isinstance(obj, Policy):
        raise TargetError(f"{target} is a {type(obj).__name__}, not an interrupt_widget.Policy")
    return obj
