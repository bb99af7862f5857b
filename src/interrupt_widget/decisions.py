"""The record of who answered which interrupt, how, and when.

One `Decision` per answered interrupt, taken from the picker's recorded
answers. A decision file (`save_decisions`) is plain JSON, readable by people,
by pandas, and by the `replay` responder that answers the same interrupts the
same way in an unattended run.
"""

from __future__ import annotations

import json
import pathlib
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, fields, replace
from typing import Any, Final

from ag_ui.core import BaseEvent, Interrupt, Message, ToolCallResultEvent, ToolMessage

from interrupt_widget.agui.answer_edit import executed_arguments
from interrupt_widget.agui.interrupts import (
    INTERRUPT_KEY,
    gated_calls,
    tool_arguments,
    tool_name,
    verdict,
)
from interrupt_widget.clock import parse_instant, utc_words

DECISIONS_FORMAT = "interrupt-widget/decisions@1"
"""`format` of a decision file, checked when one is read back."""


@dataclass(frozen=True)
class Decision:
    """One answered interrupt."""

    at: str
    """When the answer was recorded (ISO 8601, UTC)."""
    tool: str
    """The gated tool's name, or the interrupt's reason when it is not a tool approval."""
    arguments: Any
    """The tool's arguments as the picker showed them (`metadata.tool_input`), or None."""
    status: str
    """The resume status: `resolved` or `cancelled`."""
    verdict: str
    """In a word: `approved`, `denied`, `answered`, `cancelled` or `expired`."""
    payload: Any
    """The answer payload (None for a cancellation)."""
    by: str
    """Who answered: `view:<id>` (a click in that view), `user` (a click from a view that
    names no id), `python`, `responder:<name>` or `expiry`."""
    interrupt_id: str
    """The interrupt answered."""
    reason: str
    """The interrupt's reason (`tool_call`, `input_required`, ...)."""
    tool_call_id: str | None = None
    """The SDK call id for a tool approval."""
    executed_arguments: Any = None
    """The arguments an approved call ran with: the answer's `editedArgs` (a full
    replacement), else `arguments`; None when it did not run."""
    outcome: str | None = None
    """What came of the answer, once its run said: `ran` (the tool ran on it), `not_run`
    (denied or cancelled, or a later answer to a call an earlier denial or cancel had
    settled), or `replayed` (the call had already run on an earlier answer, `ran_with`,
    and this later one got that run's recorded result)."""
    ran_with: Any = None
    """For `replayed`: the answer payload the call actually ran with (None if unknown);
    `executed_arguments` then says what that run used."""
    settled: str | None = None
    """For an approved call left in doubt (its run ended before recording a result), what
    the person who settled it said: `ran` (its result given by hand, `settled_output`, is
    what the model reads; it never ran again) or `not_run` (it ran then, once)."""
    settled_output: str | None = None
    """For `settled="ran"`: the result the person recorded."""
    ran_at: str | None = None
    """For `replayed`: when the call's recorded result was written, that is when it ran
    (ISO 8601, UTC), as the ledger says; None if it does not know."""
    ran_by: str | None = None
    """For `replayed`: who gave the answer it ran on, as the ledger's audit notes say
    (`by`'s forms); None if they do not say."""
    identity: str | None = None
    """The person who answered (`current_identity()`, `identity=`, or a token's principal);
    None when the answer did not say."""
    approvers: list[str] | None = None
    """For a call that needed several people (`require`): whose votes decided it, once its
    run said; None otherwise."""
    asked_at: str | None = None
    """When the question was asked (ISO 8601, UTC), as its interrupt says; None if it does
    not. `at` minus `asked_at` is how long it waited."""

    @property
    def replay_note(self) -> str:
        """For `replayed`: "replayed: ran on 2026-12-03 23:03:42 UTC (in the widget)", that
        is where its result came from (the ledger, not a run); else empty."""
        if self.outcome != "replayed":
            return ""
        when = f"ran on {instant_words(self.ran_at)}" if self.ran_at else "ran earlier"
        return f"replayed: {when}" + (f" ({answerer_words(self.ran_by)})" if self.ran_by else "")

    def record(self) -> dict[str, Any]:
        """Its fields by name, for writing out at once as JSON: `dataclasses.asdict` without
        its deep copy of every value (a third of a batch row's own bookkeeping)."""
        return {name: getattr(self, name) for name in _FIELD_NAMES}


_FIELD_NAMES: Final = tuple(f.name for f in fields(Decision))


def with_outcomes(
    decisions: list[Decision], results: Mapping[str, Mapping[str, Any]]
) -> list[Decision]:
    """`decisions` with `outcome` (and `ran_with`) set from result markers, by interrupt id.

    `results` maps an interrupt id to the marker the adapter put on its tool
    result (`metadata["interrupt"]`: `decision`, and `replayed`/`ran_with` for a
    call that had already run). The latest decision for an interrupt gets it.
    """
    out = list(decisions)
    for interrupt_id, marker in results.items():
        for n in range(len(out) - 1, -1, -1):
            decision = out[n]
            if decision.interrupt_id != interrupt_id or decision.outcome is not None:
                continue
            people = marker.get("approvers")
            if isinstance(people, list):
                decision = out[n] = replace(decision, approvers=[str(p) for p in people])
            if marker.get("replayed") is True and marker.get("decision") == "approved":
                ran_with = marker.get("ran_with")
                ran = executed_arguments(decision.arguments, ran_with)
                out[n] = replace(
                    decision,
                    outcome="replayed",
                    ran_with=ran_with,
                    executed_arguments=ran if ran_with is not None else None,
                    ran_at=_text(marker.get("ran_at")),
                    ran_by=_text(marker.get("ran_by")),
                )
            elif marker.get("decision") == "approved":
                out[n] = replace(decision, outcome="ran")
            else:
                out[n] = replace(decision, outcome="not_run")
            break
    return out


def answerer_words(by: str) -> str:
    """`by` as a reader says it: "in the widget", "from Python", "by responder approve_all",
    "by ann in the sidebar" (the server's sidebar, `sidebar:<name>`)."""
    if by in ("user", "python") or by.startswith("view:"):
        return "from Python" if by == "python" else "in the widget"
    kind, _, name = by.partition(":")
    if kind == "sidebar" and name:
        return f"by {name} in the sidebar"
    return f"by {kind} {name}" if name else f"by {by}"


def instant_words(at: str) -> str:
    """An ISO 8601 instant as "2026-12-03 23:03:42 UTC" (left as it is if it is not one)."""
    try:
        moment = parse_instant(at)
    except ValueError:
        return at
    return utc_words(moment)


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def decisions_for(
    interrupts: Iterable[Interrupt], answers: Mapping[str, Mapping[str, Any]]
) -> list[Decision]:
    """Decisions for the answered interrupts, in interrupt order (the picker's `answers` trait)."""
    out: list[Decision] = []
    for interrupt in interrupts:
        record = answers.get(interrupt.id)
        if record is None:
            continue
        status, payload, by = str(record["status"]), record.get("payload"), str(record["by"])
        out.append(
            Decision(
                at=str(record.get("at", "")),
                tool=tool_name(interrupt),
                arguments=tool_arguments(interrupt),
                status=status,
                verdict=verdict(status, payload, by),
                payload=payload,
                by=by,
                interrupt_id=interrupt.id,
                reason=interrupt.reason,
                tool_call_id=interrupt.tool_call_id,
                executed_arguments=_executed(interrupt, status, payload, by),
                settled=record.get("settled"),
                settled_output=record.get("output"),
                identity=_name(record.get("identity")),
                asked_at=_text((interrupt.metadata or {}).get(ASKED_AT)),
            )
        )
    return out


def settled_decisions(messages: Iterable[Message]) -> list[Decision]:
    """Decisions a policy made inside runs, read from the result each settled call got.

    The adapter marks such a result with who decided (`by="policy:<rule>"`), the
    answer it stood for and when; the call keeps its interrupt record as usual.
    """
    listed = list(messages)
    interrupts = {g.call_id: g.interrupt for g in gated_calls(listed)}
    out: list[Decision] = []
    for message in listed:
        if not isinstance(message, ToolMessage):
            continue
        marker = (message.metadata or {}).get(INTERRUPT_KEY)
        interrupt = interrupts.get(message.tool_call_id)
        if not isinstance(marker, Mapping) or interrupt is None:
            continue
        by = marker.get("by")
        if not isinstance(by, str) or not by.startswith(POLICY_BY):
            continue
        payload = marker.get("payload")
        out.append(
            Decision(
                at=str(marker.get("at", "")),
                tool=tool_name(interrupt),
                arguments=tool_arguments(interrupt),
                status="resolved",
                verdict=verdict("resolved", payload, by),
                payload=payload,
                by=by,
                interrupt_id=interrupt.id,
                reason=interrupt.reason,
                tool_call_id=interrupt.tool_call_id,
                executed_arguments=_executed(interrupt, "resolved", payload, by),
            )
        )
    return out


ASKED_AT = "asked_at"
"""The interrupt metadata key saying when the adapter asked (`sdk/decision_spans.py`)."""

POLICY_BY = "policy:"
"""How `by` begins for a decision a policy rule made."""


def _name(identity: Any) -> str | None:
    """The name in an answer record's `identity` (`{"name", "roles"}`), if any."""
    name = identity.get("name") if isinstance(identity, Mapping) else None
    return name if isinstance(name, str) else None


def _executed(interrupt: Interrupt, status: str, payload: Any, by: str) -> Any:
    if verdict(status, payload, by) != "approved":
        return None
    return executed_arguments(tool_arguments(interrupt), payload)


def save_decisions(decisions: Iterable[Decision], path: str | pathlib.Path) -> pathlib.Path:
    """Write a decision file; returns its path."""
    target = pathlib.Path(path)
    document = {"format": DECISIONS_FORMAT, "decisions": [d.record() for d in decisions]}
    target.write_text(json.dumps(document, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    return target


def load_decisions(path: str | pathlib.Path) -> list[Decision]:
    """Read a decision file written by `save_decisions`; a clear error for anything else."""
    source = pathlib.Path(path)
    try:
        document = json.loads(source.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise FileNotFoundError(f"no decision file at {source}") from None
    except json.JSONDecodeError as exc:
        raise ValueError(f"{source} is not a decision file: {exc}") from None
    if not isinstance(document, dict) or document.get("format") != DECISIONS_FORMAT:
        raise ValueError(f"{source} is not a decision file (expected format {DECISIONS_FORMAT})")
    names = {f.name for f in fields(Decision)}
    try:
        return [
            Decision(**{k: v for k, v in d.items() if k in names}) for d in document["decisions"]
        ]
    except (TypeError, KeyError, AttributeError) as exc:
        raise ValueError(f"{source} holds a malformed decision: {exc}") from None


PANDAS_MISSING = "decisions_frame() needs pandas, which is not installed: pip install pandas"
"""The ImportError's message when pandas is missing, with the line that installs it."""


def decisions_frame(decisions: Iterable[Decision]) -> Any:
    """The decisions as a pandas DataFrame, one row each (the `pandas` extra installs pandas)."""
    try:
        import pandas as pd
    except ImportError:
        raise ImportError(PANDAS_MISSING) from None
    columns = [f.name for f in fields(Decision)]
    return pd.DataFrame([asdict(d) for d in decisions], columns=columns)


def result_markers(events: Iterable[BaseEvent]) -> dict[str, Mapping[str, Any]]:
    """The decision marker on each tool result of a run, by interrupt id (for `with_outcomes`)."""
    markers: dict[str, Mapping[str, Any]] = {}
    for event in events:
        if isinstance(event, ToolCallResultEvent):
            marker = (event.metadata or {}).get(INTERRUPT_KEY)
            if isinstance(marker, Mapping) and isinstance(marker.get("id"), str):
                markers[marker["id"]] = marker
    return markers
