"""What a gated call's result says, and how it is marked, for each answer.

A gated call's TOOL_CALL_RESULT carries a marker in `metadata["interrupt"]`:
the decision, and for a later answer to a call already settled, that the
earlier answer stands (`replayed`). A call that did not run gets a sentence
the model reads (denied, with the person's reason; cancelled; denied by the
policy), and so does one that ran with the arguments a person edited, before
its result. The ledger keeps, beside a claim, which answer settled the call.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any, Final

from interrupt_widget.agui.interrupts import DENIAL_REASON
from interrupt_widget.agui.messages import NOT_RUN_PREFIX, REASON_LABEL
from interrupt_widget.agui.resume import Resolution
from interrupt_widget.clock import utc_text
from interrupt_widget.ledger.once_only import Recorded
from interrupt_widget.policy.rules import Ruling

_NOT_RUN_KEY: Final = "not_run"
"""Key of the ledger's answer record for a call settled without running."""


def not_run_output(resolution: Resolution, name: str, ruling: Ruling | None) -> str:
    """What the model is told about a denied or cancelled call."""
    if resolution.decision == "denied" and ruling is not None:
        rule = ruling.rule.name if ruling.rule is not None else "policy"
        reason = _reason(resolution.payload)
        return f"{NOT_RUN_PREFIX} the approval policy ({rule}) denied {name}.{reason}"
    return not_run_sentence(resolution.decision, name, resolution.payload)


def not_run_sentence(decision: str, name: str, payload: Any) -> str:
    """What the model is told about a call a person denied (with the reason) or cancelled."""
    if decision == "denied":
        return f"{NOT_RUN_PREFIX} the user did not approve {name}.{_reason(payload)}"
    return f"{NOT_RUN_PREFIX} the approval request for {name} was cancelled."


def edited_note(tool_name: str, arguments: Mapping[str, Any], output: str) -> str:
    """The tool output the model reads after an edited call: what ran, then the result."""
    shown = json.dumps(arguments, ensure_ascii=False, sort_keys=True)
    return (
        f"The user edited the arguments before approving; {tool_name} ran with {shown} "
        f"(not the arguments you proposed). Result: {output}"
    )


def not_run_answer(resolution: Resolution) -> dict[str, Any]:
    """The ledger's record of an answer that settled a call without running it."""
    return {_NOT_RUN_KEY: resolution.decision, "payload": resolution.payload}


def replay_marker(resolution: Resolution, prior: Recorded) -> dict[str, Any]:
    """How a later answer's result is marked: the earlier answer that settled the call stands,
    with when it was settled (`ran_at`) and by whom (`ran_by`) when the ledger knows."""
    answer = prior.answer
    earlier = answer.get(_NOT_RUN_KEY) if isinstance(answer, Mapping) else None
    marker: dict[str, Any]
    if earlier in ("denied", "cancelled"):
        marker = {"decision": earlier, "replayed": True, "late_decision": resolution.decision}
    else:
        marker = {
            "decision": "approved",
            "replayed": True,
            "ran_with": prior.answer,
            "late_decision": resolution.decision,
        }
    if prior.at is not None:
        marker["ran_at"] = utc_text(datetime.fromtimestamp(prior.at, UTC))
    if prior.by is not None:
        marker["ran_by"] = prior.by
    return marker


def ruled_marker(
    marker: dict[str, Any], resolution: Resolution, ruling: Ruling | None, now: datetime
) -> dict[str, Any]:
    """The full marker: the interrupt id, and for a policy's ruling who decided and when."""
    full: dict[str, Any] = {"id": resolution.gated.interrupt.id, **marker}
    if resolution.approvers:  # a call several people decided: who they were
        full["approvers"] = list(resolution.approvers)
    if ruling is not None:
        # Recorded like a person's answer, so the decision log and the transcript show it.
        full.update(by=ruling.by, payload=resolution.payload, at=utc_text(now))
    return full


def _reason(payload: Any) -> str:
    """` Reason: ...` when a denial says why, so the model can act on it."""
    reason = payload.get(DENIAL_REASON) if isinstance(payload, Mapping) else None
    if not isinstance(reason, str) or not reason.strip():
        return ""
    return f" {REASON_LABEL} {' '.join(reason.split())}"
