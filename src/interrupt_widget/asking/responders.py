"""Headless responders: answer a chat's interrupts with no human at the keyboard.

A responder answers through the picker, on the same path as a click, with
`by="responder:<name>"`, so the widget and the decision record show who
answered. Set one per chat (`AgentChat(agent, responder=approve_all())`) or for
every chat that has none with the environment variable
`INTERRUPT_WIDGET_RESPONDER` (`approve_all`, `deny_all`, `cancel_all`, `fail`,
`replay:<decision file>`), so a notebook runs unattended under nbval.
`INTERRUPT_WIDGET_REPLAY=<stem>` replays `<stem>.decisions.json` when no responder is named
(`interrupt_widget.recordings`).
"""

from __future__ import annotations

import json
import os
import pathlib
from collections.abc import Callable, Mapping
from typing import Any, Protocol, runtime_checkable

from ag_ui.core import Interrupt

from interrupt_widget import clock
from interrupt_widget.agui.interrupts import tool_arguments, tool_name
from interrupt_widget.asking.open_questions import QuestionsView, answer_refusal
from interrupt_widget.decisions import POLICY_BY, Decision, load_decisions
from interrupt_widget.errors import AnswerRefused, ResponderError
from interrupt_widget.identity import Identity, answering_identity
from interrupt_widget.recordings import Recording, replaying

__all__ = [
    "CANCEL",
    "ENV_VAR",
    "Responder",
    "ResponderError",
    "answers",
    "approve_all",
    "cancel_all",
    "deny_all",
    "fail",
    "for_notebook",
    "from_env",
    "replay",
]

ENV_VAR = "INTERRUPT_WIDGET_RESPONDER"
"""Environment variable naming the responder for chats created without one."""


@runtime_checkable
class Responder(Protocol):
    """Answers every open interrupt of a picker, or raises `ResponderError`."""

    name: str
    """Shown as `responder:<name>` wherever the answer is displayed."""

    def respond(self, picker: QuestionsView) -> None:
        """Answer every open interrupt of `picker` on the path a click takes."""
        ...


class _Cancel:
    def __repr__(self) -> str:
        return "CANCEL"


CANCEL: Any = _Cancel()
"""Put in `answers({...})` to cancel the interrupts of that tool or reason."""

PayloadOrFunction = Any | Callable[[Interrupt], Any]
"""What `answers` gives the interrupts of one tool: a payload (or `CANCEL`), or a function of
the interrupt that returns one."""


def _label(interrupt: Interrupt) -> str:
    args = tool_arguments(interrupt)
    shown = "" if args is None else f" with {json.dumps(args, sort_keys=True)}"
    return f"{tool_name(interrupt)}{shown} (interrupt {interrupt.id})"


class _Policy:
    """A responder that picks each answer with `decide(interrupt) -> payload | CANCEL`."""

    def __init__(self, name: str, decide: Callable[[Interrupt], Any]) -> None:
        self.name = name
        self._decide = decide

    def respond(self, picker: QuestionsView) -> None:
        by = f"responder:{self.name}"
        # Decide everything before recording anything, so a refusal answers nothing.
        plan = [(i, self._decide(i)) for i in picker.open_interrupts]
        for interrupt, payload in plan:
            problem = _refusal(interrupt, payload, answering_identity(by))
            if problem:
                raise ResponderError(
                    f"responder {self.name} could not answer {_label(interrupt)}: {problem}"
                )
        for interrupt, payload in plan:
            try:
                if payload is CANCEL:
                    picker.cancel(interrupt.id, by=by)
                else:
                    picker.resolve(payload, interrupt.id, by=by)
            except AnswerRefused as exc:
                raise ResponderError(
                    f"responder {self.name} could not answer {_label(interrupt)}: {exc}"
                ) from exc

    def __repr__(self) -> str:
        return f"<responder {self.name}>"


def _refusal(interrupt: Interrupt, payload: Any, who: Identity) -> str:
    """Why the picker would refuse this answer from `who` ("" if it would take it), checked
    up front with the questions' own check (`answer_refusal`), so a refusal answers nothing."""
    if payload is CANCEL:
        return ""
    found = answer_refusal(interrupt, tool_name(interrupt), payload, who, clock.now())
    return "" if found is None else found.reason


def _is_approval(interrupt: Interrupt) -> bool:
    props = (interrupt.response_schema or {}).get("properties", {})
    return interrupt.reason == "tool_call" or (isinstance(props, Mapping) and "approved" in props)


def _defaults(interrupt: Interrupt) -> dict[str, Any]:
    props = (interrupt.response_schema or {}).get("properties", {})
    if not isinstance(props, Mapping):
        return {}
    return {k: v["default"] for k, v in props.items() if isinstance(v, Mapping) and "default" in v}


def _required(schema: Mapping[str, Any], approving: bool) -> list[str]:
    """The fields an answer must have: `required`, plus those an approval requires."""
    names = [n for n in schema.get("required", []) if isinstance(n, str)]
    then = schema.get("then")
    if approving and isinstance(then, Mapping):
        names += [n for n in then.get("required", []) if isinstance(n, str) and n not in names]
    return names


_NO_VALUE = object()


def _stand_in(prop: Any) -> Any:
    """A value for a required field with no default: its first `enum` value or example."""
    if not isinstance(prop, Mapping):
        return _NO_VALUE
    for key in ("enum", "examples"):
        values = prop.get(key)
        if isinstance(values, list) and values:
            return values[0]
    return _NO_VALUE


def _filled(interrupt: Interrupt) -> dict[str, Any]:
    """An approving answer: every default, then each required field still missing from
    its first `enum` value or `examples` entry; refused, naming the field, past that."""
    schema = interrupt.response_schema or {}
    payload = _defaults(interrupt)
    approving = _is_approval(interrupt)
    if approving:
        payload["approved"] = True
    props = schema.get("properties", {})
    for name in _required(schema, approving):
        if name in payload:
            continue
        value = _stand_in(props.get(name) if isinstance(props, Mapping) else None)
        if value is _NO_VALUE:
            raise ResponderError(
                f"responder approve_all could not answer {_label(interrupt)}: the required "
                f"field {name!r} has no default, enum or examples in its schema. "
                + _way_out(tool_name(interrupt))
            )
        payload[name] = value
    return payload


def _way_out(tool: str) -> str:
    """How to answer a tool a generic responder cannot: script it, or replay a recording."""
    return (
        f"Script its answer, responders.answers({{{tool!r}: {{'approved': True, ...}}}}), or "
        "answer once by hand, save it with chat.save_decisions(path) and replay it: "
        "responders.replay(path) or INTERRUPT_WIDGET_RESPONDER=replay:<path>."
    )


def approve_all() -> Responder:
    """Approve every tool (`{"approved": true}` plus the schema's defaults).

    A required answer field is filled from its schema's `default`, then its first
    `enum` value or `examples` entry; with none of those the responder fails,
    naming the field. A question that is not an approval is answered the same
    way, without `approved`.
    """

    def decide(interrupt: Interrupt) -> Any:
        return _filled(interrupt)

    return _Policy("approve_all", decide)


def deny_all() -> Responder:
    """Deny every tool (`{"approved": false}`); cancel questions that are not approvals."""

    def decide(interrupt: Interrupt) -> Any:
        return {"approved": False} if _is_approval(interrupt) else CANCEL

    return _Policy("deny_all", decide)


def cancel_all() -> Responder:
    """Cancel every interrupt: no tool runs, the model is told so."""
    return _Policy("cancel_all", lambda _interrupt: CANCEL)


class _Fail:
    name = "fail"

    def respond(self, picker: QuestionsView) -> None:
        names = "; ".join(_label(i) for i in picker.open_interrupts)
        raise ResponderError(f"responder fail met interrupts that need an answer: {names}")

    def __repr__(self) -> str:
        return "<responder fail>"


def fail() -> Responder:
    """Refuse to answer: the awaited `send` raises, naming each interrupt met."""
    return _Fail()


def answers(
    table: Mapping[str, PayloadOrFunction] | Callable[[Interrupt], Any], *, name: str = "answers"
) -> Responder:
    """Scripted answers: a payload (or `CANCEL`, or `fn(interrupt) -> payload`) per tool
    name or interrupt reason, or one callable for every interrupt.

    An interrupt the table does not cover makes the responder fail, naming it.
    """
    if callable(table) and not isinstance(table, Mapping):
        return _Policy(name, table)
    entries = dict(table)

    def decide(interrupt: Interrupt) -> Any:
        for key in (tool_name(interrupt), interrupt.reason):
            if key in entries:
                value = entries[key]
                return value(interrupt) if callable(value) and value is not CANCEL else value
        known = ", ".join(sorted(entries)) or "nothing"
        raise ResponderError(
            f"responder {name} has no answer for {_label(interrupt)} (it answers: {known})"
        )

    return _Policy(name, decide)


def replay(path: str | pathlib.Path) -> Responder:
    """Answer as a decision file (`chat.save_decisions(path)`) recorded.

    Each interrupt is matched to the first unused decision for the same tool
    and the same arguments (decisions a policy made are skipped: they answered
    no interrupt). It fails, naming the interrupt, when the file has
    no decision for it or when the tool's arguments changed.
    """
    source = pathlib.Path(path)
    # A call a policy settled never asked anyone: its record answers no interrupt.
    decisions = [d for d in load_decisions(source) if not d.by.startswith(POLICY_BY)]
    used: set[int] = set()

    def decide(interrupt: Interrupt) -> Any:
        tool, args = tool_name(interrupt), tool_arguments(interrupt)
        same_tool = [(n, d) for n, d in enumerate(decisions) if n not in used and d.tool == tool]
        for n, decision in same_tool:
            if decision.arguments == args:
                used.add(n)
                return _replayed(decision)
        if same_tool:
            recorded = json.dumps(same_tool[0][1].arguments, sort_keys=True)
            raise ResponderError(
                f"replay of {source}: the arguments of {_label(interrupt)} changed "
                f"since the decision was recorded (recorded: {recorded})"
            )
        raise ResponderError(f"replay of {source}: no recorded decision for {_label(interrupt)}")

    return _Policy(f"replay:{source.name}", decide)


def _replayed(decision: Decision) -> Any:
    return CANCEL if decision.status == "cancelled" else decision.payload


_BY_NAME: dict[str, Callable[[], Responder]] = {
    "approve_all": approve_all,
    "deny_all": deny_all,
    "cancel_all": cancel_all,
    "fail": fail,
}


def from_env(environ: Mapping[str, str] | None = None) -> Responder | None:
    """The responder `INTERRUPT_WIDGET_RESPONDER` names; else, while `INTERRUPT_WIDGET_REPLAY`
    names a recorded run, the replay of its decision file; else None."""
    value = (os.environ if environ is None else environ).get(ENV_VAR, "").strip()
    if not value:
        run = replaying(environ)
        return replay(run.decisions) if run is not None else None
    if value.startswith("replay:"):
        return replay(value.removeprefix("replay:"))
    factory = _BY_NAME.get(value)
    if factory is None:
        options = ", ".join([*_BY_NAME, "replay:<path>"])
        raise ValueError(f"{ENV_VAR}={value!r} is not a responder; use one of {options}")
    return factory()


def for_notebook(notebook: str | os.PathLike[str]) -> str:
    """The `INTERRUPT_WIDGET_RESPONDER` value that runs `notebook` with nobody at it (nbval in
    CI): `replay:` its decision file if one sits beside it (`NAME.decisions.json` for
    `NAME.ipynb`); nobody (`""`) if its metadata says it answers its own questions
    (`{"interrupt_widget": {"answers_itself": true}}`); else `approve_all`."""
    path = pathlib.Path(notebook)
    recorded = Recording(path.with_suffix("")).decisions
    if recorded.is_file():
        return f"replay:{recorded.resolve()}"
    metadata = json.loads(path.read_text(encoding="utf-8")).get("metadata", {})
    kit = metadata.get("interrupt_widget") if isinstance(metadata, dict) else None
    if isinstance(kit, dict) and kit.get("answers_itself") is True:
        return ""
    return "approve_all"
