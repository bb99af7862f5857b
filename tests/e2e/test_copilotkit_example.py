"""The CopilotKit example (`examples/copilotkit/`) clicked through in chromium, cross-origin.

The page is CopilotKit 1.74's stock `<CopilotChat/>` with `useInterrupt`, served from
one port; the meeting agent runs in `serve --cors-origin` on another. What the tool
really did is read from the file the server's tool writes. CopilotKit's own resume
(a `tool` message with the answer before the `resume` array, the paused run's
`runId` reused) is what the server answers here.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Locator, Page, expect
from recorded_agents import RUNS_FILE_ENV, read_runs
from served_agent import ServedAgent, origins, served_agent, static_site

pytestmark = pytest.mark.e2e

HERE = Path(__file__).parent
EXAMPLE = HERE.parents[1] / "examples" / "copilotkit"
ASK = "Book a call with Alice about the Q3 roadmap"


@pytest.fixture(scope="module")
def site() -> Iterator[str]:
    built = EXAMPLE / "dist" / "app.js"
    assert built.exists(), "build the example first: make copilotkit-build"
    with static_site(EXAMPLE / "dist") as origin:
        yield origin


@pytest.fixture
def runs_file(tmp_path: Path) -> Path:
    return tmp_path / "runs.jsonl"


@pytest.fixture
def agent_server(site: str, runs_file: Path) -> Iterator[ServedAgent]:
    env = {RUNS_FILE_ENV: str(runs_file), "PYTHONPATH": os.pathsep.join([str(HERE)])}
    with served_agent("recorded_agents:meeting_agent_writing_runs", *origins(site), env=env) as s:
        yield s


def ask_for_a_meeting(page: Page, site: str, server: ServedAgent) -> Locator:
    page.goto(f"{site}/index.html?agent={server.url}")
    box = page.get_by_test_id("copilot-chat-textarea")
    box.fill(ASK)
    box.press("Enter")
    slots = page.locator("section.slots")
    expect(slots).to_contain_text('Schedule "Q3 roadmap" with Alice?')
    return slots


def test_clicking_a_slot_runs_the_tool_once_with_that_time(
    page: Page,
    site: str,
    agent_server: ServedAgent,
    runs_file: Path,
    screenshot: Callable[[Locator | Page, str], Path],
) -> None:
    slots = ask_for_a_meeting(page, site, agent_server)
    assert read_runs(runs_file) == []  # paused: nothing ran before the click
    screenshot(page, "copilotkit-slots")
    first = slots.locator("button.slot").first
    chosen = first.get_attribute("data-time")
    label = first.inner_text()
    first.click()
    expect(page.get_by_text(f'Scheduled "Q3 roadmap" with Alice for {label}.')).to_be_visible()
    (run,) = read_runs(runs_file)
    assert run["arguments"] == {"topic": "Q3 roadmap", "attendee": "Alice"}
    assert run["answer"]["approved"] is True
    assert run["answer"]["chosen_time"] == chosen
    assert run["answer"]["chosen_label"] == label


def test_cancel_on_a_new_thread_runs_nothing(
    page: Page, site: str, agent_server: ServedAgent, runs_file: Path
) -> None:
    slots = ask_for_a_meeting(page, site, agent_server)
    slots.get_by_role("button", name="Cancel").click()
    expect(page.get_by_text("The meeting was not scheduled.")).to_be_visible()
    # The resume reached the server and its run ended; the tool never ran.
    agent_server.wait_for_line(r'"POST / HTTP/1\.1" 200')
    posts = [line for line in agent_server.log if '"POST / HTTP/1.1" 200' in line]
    assert len(posts) == 2
    assert read_runs(runs_file) == []
