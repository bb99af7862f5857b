"""A run's notes to the person watching it, beside its events: AG-UI `CUSTOM` events.

`WAITING_NOTE` says the run waits on something outside it (no worker takes it); its value is
`{"message": ...}`, one sentence for the person. The run's next event of another kind means
it moved on. A client that does not know the name passes it by, as AG-UI has clients do
with any `CUSTOM` event.
"""

from __future__ import annotations

from typing import Final

from ag_ui.core import BaseEvent, CustomEvent

WAITING_NOTE: Final = "interrupt_widget.waiting"


def waiting_note(message: str) -> CustomEvent:
    """The note that the run waits, `message` saying on what and what to do."""
    return CustomEvent(name=WAITING_NOTE, value={"message": message})


def waiting_message(event: BaseEvent) -> str | None:
    """The sentence of a waiting note; None for any other event."""
    if not isinstance(event, CustomEvent) or event.name != WAITING_NOTE:
        return None
    value = event.value
    message = value.get("message") if isinstance(value, dict) else None
    return message if isinstance(message, str) else None


__all__ = ["WAITING_NOTE", "waiting_message", "waiting_note"]
