"""Edit before approve: a person may change a gated call's arguments in the answer.

`editable(tool, fields=None)` marks a gated tool. Its interrupts then offer an
`editedArgs` property in their response schema, as AG-UI's interrupt guide
recommends (its presence is the signal a client reads to offer an edit): the
tool's own parameter schema, whose parameters outside `fields` are marked
`readOnly`. A client sends `{"approved": true, "editedArgs": {...}}`, a FULL
replacement of the call's arguments (not merged per key); parameters outside
`fields` must stay as proposed. The call the model proposed is never
rewritten: the interrupt record and the fingerprint keep covering the
proposal, the edit travels only in the answer, and the tool runs once with the
replacement. A value the replacement gives as a client read it from the
proposal (`canonical.agrees`, e.g. a large integer a JavaScript client
rounded) is the proposal's own value. This module is the one home of what an
edit may be; how an answer carries one is `interrupt_widget.agui.answer_edit`'s.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from agents import FunctionTool

from interrupt_widget.agui.answer_edit import EDIT_KEY, OLD_EDIT_KEY, read_against_proposal
from interrupt_widget.agui.answers import (
    describe,
    undeclared_fields,
    unknown_field,
    validate_payload,
)
from interrupt_widget.agui.canonical import agrees
from interrupt_widget.agui.interrupts import parse_arguments
from interrupt_widget.errors import AdapterError, ErrorCode

_EDITABLE_ATTR = "__interrupt_widget_editable__"


@dataclass(frozen=True)
class EditSpec:
    """What a person may change in one editable tool's calls."""

    tool_name: str
    """The tool's name."""
    fields: tuple[str, ...] | None
    """The arguments a person may change; None for all of them."""
    parameters: Mapping[str, Any]
    """The tool's own parameter schema, which the edited arguments must fit."""

    def allowed(self) -> tuple[str, ...]:
        """The names a person may change."""
        if self.fields is not None:
            return self.fields
        return tuple(self.parameters.get("properties", {}))

    def answer_schema(self) -> dict[str, Any]:
        """The extra answer fields: `editedArgs`, the tool's parameters as one object.

        Parameters a person may not change are `readOnly`: they belong in the
        replacement, as proposed. `editedArgs` itself is optional: an answer
        without it runs the proposal.
        """
        allowed = self.allowed()
        properties = {
            name: prop if name in allowed else {**prop, "readOnly": True}
            for name, prop in self.parameters.get("properties", {}).items()
        }
        edited: dict[str, Any] = {
            "type": "object",
            "title": "Arguments",
            "description": "The arguments to run with instead of the proposal, in full "
            "(only with approval).",
            "properties": properties,
            "additionalProperties": False,
        }
        if self.parameters.get("required"):
            edited["required"] = list(self.parameters["required"])
        return {"properties": {EDIT_KEY: edited}}


def editable(tool: FunctionTool, fields: Iterable[str] | None = None) -> FunctionTool:
    """Let a person change the arguments of `tool`'s calls before approving them.

    `fields` limits which arguments may change (all of them by default). The
    tool must need approval (`needs_approval`), else no one is ever asked.
    """
    if not isinstance(tool, FunctionTool):
        raise TypeError(f"editable() takes a FunctionTool, got {type(tool).__name__}")
    if tool.needs_approval is False:
        raise ValueError(
            f"{tool.name} does not need approval, so no one could edit it: "
            "declare it with needs_approval=True"
        )
    known = tuple(tool.params_json_schema.get("properties", {}))
    chosen = None if fields is None else tuple(fields)
    if chosen is not None:
        unknown = [name for name in chosen if name not in known]
        if unknown:
            raise ValueError(
                f"{tool.name} has no parameter {', '.join(map(repr, unknown))} "
                f"(its parameters: {', '.join(known) or 'none'})"
            )
        if not chosen:
            raise ValueError("fields must name at least one parameter (or be None for all)")
    setattr(tool, _EDITABLE_ATTR, EditSpec(tool.name, chosen, tool.params_json_schema))
    return tool


def declared_edit(tool: Any) -> EditSpec | None:
    """The `EditSpec` `editable` declared on `tool`, if any."""
    spec = getattr(tool, _EDITABLE_ATTR, None)
    return spec if isinstance(spec, EditSpec) else None


def check_edit(
    spec: EditSpec | None,
    *,
    arguments: str,
    payload: Any,
    interrupt_id: str,
    tool_name: str,
) -> dict[str, Any] | None:
    """The full arguments an answer asks to run with, or None when it changes nothing.

    `arguments` is the call's text as the model wrote it, read (`parse_arguments`) only
    when the answer edits: most answers do not, and pay nothing for it.

    Raises `AdapterError` (and so nothing runs) when the tool is not editable, when
    the answer sends the old `arguments` field or the replacement names an argument
    the tool does not take, when the replacement differs from the proposal outside
    `fields`, or when it breaks the tool's parameter schema.
    """
    if not isinstance(payload, Mapping):
        return None
    where = f"interrupt {interrupt_id!r} ({tool_name})"

    def refuse(code: ErrorCode, message: str) -> AdapterError:
        return AdapterError(code, message, interrupt_id=interrupt_id)

    if spec is not None and OLD_EDIT_KEY in payload and EDIT_KEY not in payload:
        # Ignored, it would run the proposal while the person meant a change.
        raise refuse(
            ErrorCode.INVALID_EDIT,
            f"The answer to {where} is invalid: "
            f"{unknown_field(OLD_EDIT_KEY, ['approved', EDIT_KEY], [])}. Nothing was run.",
        )
    if EDIT_KEY not in payload:
        return None
    proposal = parse_arguments(arguments)
    spec, edit, proposal = _edit_shape(spec, payload, proposal, (where, tool_name), refuse)
    # A name the tool does not take (nor the proposal holds) is a typo or a probe, not a
    # change outside `fields`: refused as such, with the name it likely misspells.
    declared = {**dict.fromkeys(map(str, proposal)), **spec.parameters.get("properties", {})}
    unknown = undeclared_fields({"properties": declared}, edit, [EDIT_KEY])
    if unknown:
        raise refuse(
            ErrorCode.INVALID_EDIT,
            f"The edited arguments of {where} name what {tool_name} does not take: "
            f"{describe(unknown)}. Nothing was run.",
        )
    changed = _changed_outside(spec, proposal, edit)
    if changed:
        raise refuse(
            ErrorCode.EDIT_OUTSIDE_FIELDS,
            f"The answer to {where} changes {', '.join(map(repr, changed))}; only "
            f"{', '.join(map(repr, spec.allowed()))} may be changed (editedArgs replaces "
            "the arguments in full: the others as proposed).",
        )
    replacement = read_against_proposal(proposal, edit)
    errors = validate_payload(spec.parameters, replacement)
    if errors:
        raise refuse(
            ErrorCode.INVALID_EDIT,
            f"The edited arguments of {where} do not fit {tool_name}'s parameters: "
            f"{describe(errors)}",
        )
    return None if agrees(proposal, replacement) else replacement


def _edit_shape(
    spec: EditSpec | None,
    payload: Mapping[str, Any],
    proposal: Any,
    named: tuple[str, str],
    refuse: Callable[[ErrorCode, str], AdapterError],
) -> tuple[EditSpec, Mapping[str, Any], Mapping[str, Any]]:
    """The spec, the replacement and the proposal of an edit that could be one at all.

    `named` is how messages name the interrupt, and the tool.
    """
    where, tool_name = named
    if spec is None:
        raise refuse(
            ErrorCode.EDIT_NOT_ALLOWED,
            f"The answer to {where} edits the arguments, but {tool_name} is not editable.",
        )
    edit = payload[EDIT_KEY]
    if payload.get("approved") is not True:
        raise refuse(
            ErrorCode.INVALID_EDIT,
            f"The answer to {where} edits the arguments without approving; "
            "an edit goes only with approved: true.",
        )
    if not isinstance(edit, Mapping):
        raise refuse(
            ErrorCode.INVALID_EDIT,
            f"The edit in the answer to {where} is not an object of arguments.",
        )
    if not isinstance(proposal, Mapping):
        raise refuse(
            ErrorCode.INVALID_EDIT,
            f"The proposed arguments of {where} are not an object, so they cannot be edited.",
        )
    return spec, edit, proposal


def _changed_outside(
    spec: EditSpec, proposal: Mapping[str, Any], edit: Mapping[str, Any]
) -> list[str]:
    """The arguments outside `fields` the replacement leaves out, adds or changes."""
    fixed = [name for name in {*proposal, *edit} if str(name) not in spec.allowed()]
    return sorted(
        str(name)
        for name in fixed
        if name not in proposal or name not in edit or not agrees(proposal[name], edit[name])
    )
