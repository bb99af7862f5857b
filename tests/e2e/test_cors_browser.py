"""CORS seen by chromium: a page on another port calls `serve --cors-origin` and reads the stream.

A page whose origin is listed sends the preflighted request (bearer token, JSON body)
and reads the SSE events as they come; a page on an origin not listed is refused by
the browser itself.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page
from served_agent import ServedAgent, origins, served_agent, static_site

from conftest import PageGuard

pytestmark = pytest.mark.e2e

TOKEN = "cors-browser-token"
CALL = """
async ([url, token]) => {
  const input = {
    threadId: "cors-thread", runId: "cors-run", state: null, tools: [], context: [],
    forwardedProps: null,
    messages: [{id: "u1", role: "user", content: "Book a call with Ada about the budget"}],
  };
  let response;
  try {
    response = await fetch(url, {
      method: "POST",
      headers: {"Content-Type": "application/json", "Authorization": `Bearer ${token}`,
                "Accept": "text/event-stream"},
      body: JSON.stringify(input),
    });
  } catch (error) {
    return {refused: String(error)};
  }
  // Read the stream chunk by chunk, as an AG-UI client does.
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  let chunks = 0;
  for (;;) {
    const {done, value} = await reader.read();
    if (done) break;
    chunks += 1;
    text += decoder.decode(value, {stream: true});
  }
  const events = text.split("\\n\\n").filter((f) => f.startsWith("data: "))
    .map((f) => JSON.parse(f.slice(6)));
  return {status: response.status, type: response.headers.get("content-type"), chunks,
          events: events.map((e) => e.type), outcome: events.at(-1)?.outcome?.type ?? null};
}
"""


@pytest.fixture
def pages(tmp_path: Path) -> Iterator[tuple[str, str]]:
    """Two sites on two ports: the first is listed as a CORS origin, the second is not."""
    page = "<!doctype html><link rel=icon href='data:,'><title>another origin</title>"
    (tmp_path / "index.html").write_text(page)
    with static_site(tmp_path) as listed, static_site(tmp_path) as unlisted:
        yield listed, unlisted


@pytest.fixture
def agent_server(pages: tuple[str, str]) -> Iterator[ServedAgent]:
    listed, _ = pages
    with served_agent(
        "interrupt_widget.examples:meeting_agent", "--token", TOKEN, *origins(listed)
    ) as server:
        yield server


def call_from(page: Page, site: str, server: ServedAgent) -> dict[str, Any]:
    page.goto(f"{site}/index.html")
    result: dict[str, Any] = page.evaluate(CALL, [server.url, TOKEN])
    return result


def test_a_page_on_a_listed_origin_streams_the_run_to_its_interrupt(
    page: Page, pages: tuple[str, str], agent_server: ServedAgent
) -> None:
    listed, _ = pages
    result = call_from(page, listed, agent_server)
    assert result["status"] == 200
    assert result["type"].startswith("text/event-stream")
    assert result["events"][0] == "RUN_STARTED"
    assert result["events"][-1] == "RUN_FINISHED"
    assert result["outcome"] == "interrupt"


def test_a_page_on_another_origin_is_refused_by_the_browser(
    page: Page, page_guard: PageGuard, pages: tuple[str, str], agent_server: ServedAgent
) -> None:
    # Chromium logs the refusal itself; that line is the expected outcome here.
    page_guard.tolerated.append(re.compile(r"blocked by CORS policy|net::ERR_FAILED"))
    _, unlisted = pages
    result = call_from(page, unlisted, agent_server)
    assert result == {"refused": "TypeError: Failed to fetch"}
    # The preflight was refused, so the POST never reached the agent.
    agent_server.wait_for_line(r'"OPTIONS / HTTP/1\.1" 400')
    assert not [line for line in agent_server.log if '"POST / HTTP' in line]
