"""Locators for the interrupt picker as it appears in a cell's output."""

from __future__ import annotations

from playwright.sync_api import Locator


class PickerOnPage:
    """One view of an ``InterruptPicker``: its status line and one card per interrupt."""

    def __init__(self, output: Locator) -> None:
        self.root = output.locator(".iw-picker")
        """The picker's region inside the output area."""

    @property
    def status(self) -> Locator:
        """The line above the cards: progress, "Answers sent." or an error."""
        return self.root.locator(".iw-status")

    def card(self, interrupt_id: str) -> Locator:
        return self.root.locator(f".iw-card[data-interrupt-id='{interrupt_id}']")

    def field(self, interrupt_id: str, name: str) -> Locator:
        """The control for answer field ``name`` (its ``data-field``) in one card."""
        return self.card(interrupt_id).locator(f"[data-field='{name}']")

    def field_error(self, interrupt_id: str, name: str) -> Locator:
        """The inline message beside field ``name``."""
        control_id = self.field(interrupt_id, name).get_attribute("id")
        return self.card(interrupt_id).locator(f"[id='{control_id}-err']")

    def button(self, interrupt_id: str, name: str) -> Locator:
        """``Approve``, ``Deny``, ``Submit`` or ``Cancel`` on one card."""
        return self.card(interrupt_id).get_by_role("button", name=name, exact=True)

    def decision(self, interrupt_id: str) -> Locator:
        """The read-only summary a card shows once answered."""
        return self.card(interrupt_id).locator(".iw-decision")
