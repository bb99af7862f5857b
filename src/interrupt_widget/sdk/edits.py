"""Edit before approve: a person may change a gated call's arguments in the answer.

`editable(tool, fields=None)` marks a gated tool. Its interrupts then offer an
`arguments` property in their response schema (the tool's own parameter schema,
limited to `fields`), so any AG-UI client can send `{"approved": true,
"arguments": {...}}`. The call the model proposed is never rewritten: the
interrupt record and the fingerprint keep covering the proposal, the edit
travels only in the answer, and the tool runs once with the proposal updated
by the edit. This module is the one home of what an edit may be; how an answer
carries one is `interrupt_widget.agui.answer_edit`'s.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from agents import FunctionTool

from interrupt_widget.agui.answer_edit import EDIT_KEY
from interrupt_widget.agui.answers import describe, validate_payload
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
        """The extra answer fields: `arguments`, an object of the editable parameters.

        No field is required: an edit names only what it changes, and the rest
        of the proposal stands.
        """
        properties = self.parameters.get("properties", {})
        arguments = {
            "type": "object",
            "title": "Arguments",
            "description": "Change the proposed arguments before approving (only with approval).",
            "properties": {name: properties[name] for name in self.allowed()},
            "additionalProperties": False,
        }
        return {"properties": {EDIT_KEY: arguments}}


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
    proposal: Any,
    payload: Any,
    interrupt_id: str,
    tool_name: str,
) -> dict[str, Any] | None:
    """The edited arguments an answer asks to run with, or None when it edits nothing.

    Raises `AdapterError` (and so nothing runs) when the tool is not editable,
    when the edit changes a field outside `fields`, or when the edited
    arguments break the tool's parameter schema.
    """
    if not isinstance(payload, Mapping) or EDIT_KEY not in payload:
        return None
    where = f"interrupt {interrupt_id!r} ({tool_name})"
    if spec is None:
        raise AdapterError(
            ErrorCode.EDIT_NOT_ALLOWED,
            f"The answer to {where} edits the arguments, but {tool_name} is not editable.",
            interrupt_id=interrupt_id,
        )
    edit = payload[EDIT_KEY]
    if payload.get("approved") is not True:
        raise AdapterError(
            ErrorCode.INVALID_EDIT,
            f"The answer to {where} edits the arguments without approving; "
            "an edit goes only with approved: true.",
            interrupt_id=interrupt_id,
        )
    if not isinstance(edit, Mapping):
        raise AdapterError(
            ErrorCode.INVALID_EDIT,
            f"The edit in the answer to {where} is not an object of arguments.",
            interrupt_id=interrupt_id,
        )
    outside = sorted(str(name) for name in edit if name not in spec.allowed())
    if outside:
        raise AdapterError(
            ErrorCode.EDIT_OUTSIDE_FIELDS,
            f"The answer to {where} edits {', '.join(map(repr, outside))}; only "
            f"{', '.join(map(repr, spec.allowed()))} may be changed.",
            interrupt_id=interrupt_id,
        )
    if not isinstance(proposal, Mapping):
        raise AdapterError(
            ErrorCode.INVALID_EDIT,
            f"The proposed arguments of {where} are not an object, so they cannot be edited.",
            interrupt_id=interrupt_id,
        )
    merged = {**proposal, **edit}
    errors = validate_payload(spec.parameters, merged)
    if errors:
        raise AdapterError(
            ErrorCode.INVALID_EDIT,
            f"The edited arguments of {where} do not fit {tool_name}'s parameters: "
            f"{describe(errors)}",
            interrupt_id=interrupt_id,
        )
    return merged


def edited_note(tool_name: str, arguments: Mapping[str, Any], output: str) -> str:
    """The tool output the model reads after an edited call: what ran, then the result."""
    shown = json.dumps(arguments, ensure_ascii=False, sort_keys=True)
    return (
        f"The user edited the arguments before approving; {tool_name} ran with {shown} "
        f"(not the arguments you proposed). Result: {output}"
    )
