"""Locators for AgentChat as it appears in a cell's output."""

from __future__ import annotations

from picker_page import PickerOnPage
from playwright.sync_api import Locator


class ChatOnPage:
    """One view of an ``AgentChat``: transcript, inline picker, status line, prompt box."""

    def __init__(self, output: Locator) -> None:
        self._output = output
        self.root = output.locator(".iw-chat")
        self.picker = PickerOnPage(self.root.locator(".iw-chat-picker"))
        """The picker the chat shows while a run waits for an answer."""

    @property
    def status(self) -> Locator:
        return self.root.locator(".iw-chat-status")

    @property
    def prompt(self) -> Locator:
        return self.root.get_by_label("Message")

    def say(self, text: str) -> None:
        """Type a message into the prompt box and press Enter."""
        self.prompt.fill(text)
        self.prompt.press("Enter")

    def send(self, text: str) -> None:
        """Type a message into the prompt box and click Send."""
        self.prompt.fill(text)
        self.root.get_by_role("button", name="Send", exact=True).click()

    @property
    def stop_button(self) -> Locator:
        return self.root.get_by_role("button", name="Stop", exact=True)

    def in_status(self, status: str) -> Locator:
        """The chat itself, found only while its status (``data-status``) is ``status``."""
        return self._output.locator(f".iw-chat[data-status='{status}']")

    @property
    def agent_messages(self) -> Locator:
        return self.root.locator(".iw-chat-msg[data-kind='assistant'] .iw-chat-text")

    @property
    def tool_calls(self) -> Locator:
        return self.root.locator(".iw-chat-tool")

    def open_card(self) -> Locator:
        """The card of the interrupt the run is waiting on (one gated call at a time here)."""
        return self.picker.root.locator(".iw-card[data-phase='open']")
