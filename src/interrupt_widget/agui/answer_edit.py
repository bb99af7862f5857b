"""An answer's edit of a gated call's arguments, as every layer reads it.

An answer approving an editable call may carry `{"editedArgs": {...}}`, as
AG-UI's interrupt guide names it: a FULL replacement of the call's arguments
(not merged per key). The call then runs with the replacement; the interrupt
record keeps the proposal. A value the replacement gives as a client read it
from the proposal (`canonical.agrees`: a large integer a JavaScript client
rounded, `250` for `250.0`) is the proposal's own value. Which tools are
editable, and what an edit may change, is the SDK side's
(`interrupt_widget.sdk.edits`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from interrupt_widget.agui.canonical import agrees

EDIT_KEY = "editedArgs"
"""The answer field that carries the edited arguments: a full replacement of the call's."""

OLD_EDIT_KEY = "arguments"
"""The field an older draft of this kit used for an edit (merged per key): refused, never
read, since ignoring it would run the proposal while the person meant a change."""


def proposed_edit(payload: Any) -> Mapping[str, Any] | None:
    """The replacement arguments an answer carries, or None when it carries none."""
    if isinstance(payload, Mapping) and EDIT_KEY in payload:
        edit = payload[EDIT_KEY]
        return edit if isinstance(edit, Mapping) else {}
    return None


def read_against_proposal(
    proposal: Mapping[str, Any], replacement: Mapping[str, Any]
) -> dict[str, Any]:
    """`replacement` with every value a client read from the proposal as the proposal's own.

    The names come in the proposal's order (a client or a file may have sorted
    them), then any the proposal lacks.
    """
    names = [n for n in proposal if n in replacement] + [
        n for n in replacement if n not in proposal
    ]
    return {
        str(n): proposal[n]
        if n in proposal and agrees(proposal[n], replacement[n])
        else replacement[n]
        for n in names
    }


def executed_arguments(proposal: Any, payload: Any) -> Any:
    """The arguments an approved call runs with: the answer's replacement, else the proposal."""
    edit = proposed_edit(payload)
    if edit is None or not isinstance(proposal, Mapping):
        return proposal
    return read_against_proposal(proposal, edit)
