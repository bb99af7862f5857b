"""The picker stays readable in JupyterLab's dark theme."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from jupyter_process import JupyterServer
from notebook_page import NotebookPage
from picker_page import PickerOnPage
from playwright.sync_api import Locator, Page, expect

pytestmark = pytest.mark.e2e

CONTRAST = """
(element) => {
  // WCAG contrast of an element's text against the first opaque background behind it.
  const rgb = (css) => css.match(/[\\d.]+/g).map(Number);
  const luminance = ([r, g, b]) => {
    const channel = (c) => ((c /= 255) <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4);
    return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b);
  };
  let node = element;
  let background = null;
  while (node) {
    const css = getComputedStyle(node).backgroundColor;
    const parts = rgb(css);
    if (parts.length < 4 || parts[3] > 0.9) { background = parts.slice(0, 3); break; }
    node = node.parentElement;
  }
  const fg = luminance(rgb(getComputedStyle(element).color));
  const bg = luminance(background ?? [255, 255, 255]);
  return (Math.max(fg, bg) + 0.05) / (Math.min(fg, bg) + 0.05);
}
"""

READABLE = 4.5
"""WCAG AA for body text."""


def menu_item(page: Page, label: str) -> Locator:
    """An entry of an open JupyterLab menu (submenu entries have no menuitem role)."""
    return page.locator(".lm-Menu-item").filter(
        has=page.locator(".lm-Menu-itemLabel").get_by_text(label, exact=True)
    )


@pytest.fixture
def dark_lab(lab_server: JupyterServer) -> Iterator[JupyterServer]:
    """The session's JupyterLab, with the theme the test picks reset afterwards."""
    yield lab_server
    themes = lab_server.settings_dir / "@jupyterlab/apputils-extension/themes.jupyterlab-settings"
    themes.unlink(missing_ok=True)


def test_the_picker_is_readable_in_the_dark_theme(
    dark_lab: JupyterServer,
    open_in_lab: Callable[..., NotebookPage],
    screenshot: Callable[[Locator, str], Path],
) -> None:
    notebook = open_in_lab("picker_several.ipynb")
    page = notebook.page
    page.get_by_role("menuitem", name="Settings", exact=True).click()
    menu_item(page, "Theme").click()
    menu_item(page, "JupyterLab Dark").click()
    expect(page.locator("body")).to_have_attribute("data-jp-theme-light", "false")
    notebook.run_all()
    picker = PickerOnPage(notebook.output(1))
    picker.field("payment-1", "amount").fill("9999")
    picker.button("payment-1", "Approve").click()
    expect(picker.field_error("payment-1", "amount")).not_to_have_text("")
    picker.button("room-1", "Cancel").click()
    expect(picker.decision("room-1")).to_contain_text("Cancelled")

    texts = {
        "status": picker.status,
        "title": picker.card("payment-1").locator(".iw-title"),
        "message": picker.card("payment-1").locator(".iw-message"),
        "argument": picker.card("payment-1").locator(".iw-args td").first,
        "label": picker.card("payment-1").locator("label").first,
        "input": picker.field("payment-1", "amount"),
        "field error": picker.field_error("payment-1", "amount"),
        "approve": picker.button("payment-1", "Approve"),
        "deny": picker.button("payment-1", "Deny"),
        "cancel": picker.button("payment-1", "Cancel"),
        "meeting label": picker.card("meeting-1").locator("label").first,
        "verdict": picker.decision("room-1").locator(".iw-verdict"),
    }
    contrast = {name: locator.evaluate(CONTRAST) for name, locator in texts.items()}
    screenshot(picker.root, "picker-dark")
    unreadable = {name: round(ratio, 2) for name, ratio in contrast.items() if ratio < READABLE}
    assert not unreadable, f"text below {READABLE}:1 contrast in the dark theme: {unreadable}"
