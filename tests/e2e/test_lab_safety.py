"""Untrusted text in an interrupt is shown as text in JupyterLab, and no payload runs.

Every payload in ``picker_hostile.ipynb`` would set ``window.__pwned`` if the page ever
parsed it as HTML or followed it as a URL.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from chat_page import ChatOnPage
from notebook_page import NotebookPage
from picker_page import PickerOnPage
from playwright.sync_api import Locator, expect

pytestmark = pytest.mark.e2e

SCRIPT = "<script>window.__pwned = 'script'</script>"
IMG = "<img src=x onerror=\"window.__pwned = 'img'\">"
LINK = "<a href=\"javascript:window.__pwned='link'\">click me</a>"
SVG = "<svg onload=\"window.__pwned = 'svg'\"></svg>"


def test_hostile_interrupt_text_shows_as_text_and_never_runs(
    open_in_lab: Callable[..., NotebookPage], screenshot: Callable[[Locator, str], Path]
) -> None:
    notebook = open_in_lab("picker_hostile.ipynb")
    notebook.run_all()
    picker = PickerOnPage(notebook.output(1))
    card = picker.card("hostile-1")

    expect(card.locator(".iw-message")).to_have_text(f"Run this? {SCRIPT} {IMG}")
    expect(card.locator(".iw-title")).to_have_text(f"shell{SVG}")
    arguments = card.locator(".iw-args")
    expect(arguments.get_by_role("row", name="command")).to_contain_text(LINK)
    expect(arguments.get_by_role("row", name=IMG)).to_contain_text(SCRIPT)
    expect(card.locator("label", has_text=f"Note {IMG}")).to_be_visible()
    expect(card.get_by_text(SVG, exact=True)).to_be_visible()
    expect(card.get_by_label(LINK, exact=True)).to_be_visible()
    expect(picker.root.locator("script, img, svg, a, iframe, object")).to_have_count(0)
    screenshot(card, "picker-hostile")

    picker.field("hostile-1", "note").fill(IMG)
    card.get_by_label(LINK, exact=True).check()
    picker.button("hostile-1", "Approve").click()

    expect(picker.decision("hostile-1")).to_contain_text(LINK)
    expect(picker.decision("hostile-1")).to_contain_text(IMG)
    expect(picker.root.locator("script, img, svg, a, iframe, object")).to_have_count(0)
    payload = notebook.kernel().wait_for("submissions and submissions[0][0].payload", bool)
    assert payload == {"approved": True, "note": IMG, "level": LINK}
    assert notebook.page.evaluate("() => window.__pwned") is None


def test_hostile_markdown_in_an_agent_reply_is_drawn_inert(
    open_in_lab: Callable[..., NotebookPage], screenshot: Callable[[Locator, str], Path]
) -> None:
    notebook = open_in_lab("chat_hostile_markdown.ipynb")
    requested: list[str] = []
    notebook.page.on("request", lambda request: requested.append(request.url))
    notebook.run_all()
    chat = ChatOnPage(notebook.output(1))
    chat.say("hello")

    reply = chat.agent_messages.first
    expect(reply.locator("strong")).to_have_text("Done.")
    expect(reply.locator("code")).to_have_text("ls")
    expect(reply.locator("li")).to_have_count(5)
    links = reply.locator("a[href]")
    expect(links).to_have_count(1)  # the http(s) one; javascript: stays text
    expect(links).to_have_attribute("href", "https://example.org/docs")
    expect(reply.locator(".iw-md-image")).to_have_text(["a cat", "x"])
    expect(reply).to_contain_text("click me")
    expect(reply).to_contain_text(IMG)
    expect(reply).to_contain_text("<script>window.__pwned = 'script'</script>")
    expect(reply).to_contain_text("&lt;b&gt;entity&lt;/b&gt; &#60;i&#62;")
    expect(chat.root.locator("script, img, svg, iframe, object, b, i")).to_have_count(0)
    screenshot(reply, "chat-markdown-hostile")
    assert notebook.page.evaluate("() => window.__pwned") is None
    assert not [url for url in requested if "example.org" in url]
