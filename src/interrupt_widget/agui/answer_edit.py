"""An answer's edit of a gated call's arguments, as every layer reads it.

An answer approving an editable call may carry `{"arguments": {...}}`: the fields
it changes. The call then runs with the proposal updated by the edit; the
interrupt record keeps the proposal. Which tools are editable, and what an edit
may change, is the SDK side's (`interrupt_widget.sdk.edits`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

EDIT_KEY = "arguments"
"""The answer field that carries an edit of the call's arguments."""


def proposed_edit(payload: Any) -> Mapping[str, Any] | None:
    """The edit an answer carries, or None when it carries none."""
    if isinstance(payload, Mapping) and EDIT_KEY in payload:
        edit = payload[EDIT_KEY]
        return edit if isinstance(edit, Mapping) else {}
    return None


def executed_arguments(proposal: Any, payload: Any) -> Any:
    """The arguments an approved call runs with: the proposal, updated by the answer's edit."""
    edit = proposed_edit(payload)
    if edit is None or not isinstance(proposal, Mapping):
        return proposal
    return {**proposal, **edit}
