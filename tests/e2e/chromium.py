"""Debian's chromium as Playwright drives it here (its own browser download cannot work)."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Browser, Playwright, ViewportSize

EXECUTABLE = Path("/usr/bin/chromium")
"""Installed by ``scripts/ensure-chromium`` when missing."""
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
"""Headless, no sandbox (containers), and nothing that reaches for the network by itself."""
VIEWPORT: ViewportSize = {"width": 1280, "height": 860}


def launch(playwright: Playwright) -> Browser:
    if not EXECUTABLE.exists():
        raise FileNotFoundError(f"{EXECUTABLE} is missing: run scripts/ensure-chromium")
    return playwright.chromium.launch(executable_path=str(EXECUTABLE), args=ARGS)
