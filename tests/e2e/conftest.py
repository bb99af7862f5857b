"""Fixtures for the browser suite: one JupyterLab per session, chromium, guarded pages.

Every page fails its test on any uncaught page error or console error. Test notebooks
live in ``notebooks/`` next to this file; each test works on its own copy.
"""

from __future__ import annotations

import os
import re
import shutil
import uuid
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from chromium import VIEWPORT
from chromium import launch as chromium_launch
from jupyter_process import JupyterServer
from notebook_page import NotebookPage
from playwright.sync_api import (
    Browser,
    ConsoleMessage,
    Error,
    Locator,
    Page,
    expect,
    sync_playwright,
)

HERE = Path(__file__).parent
NOTEBOOKS = HERE / "notebooks"
ARTIFACTS = HERE / "artifacts"
"""Screenshots and server logs of failed tests (git-ignored)."""
expect.set_options(timeout=20_000)


@pytest.fixture(scope="session")
def lab_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[JupyterServer]:
    server = JupyterServer.start(kind="lab", base=tmp_path_factory.mktemp("lab"))
    yield server
    server.stop()


@pytest.fixture(scope="session")
def notebook_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[JupyterServer]:
    server = JupyterServer.start(kind="notebook", base=tmp_path_factory.mktemp("nb7"))
    yield server
    server.stop()


@pytest.fixture(scope="session")
def browser() -> Iterator[Browser]:
    with sync_playwright() as playwright:
        try:
            chromium = chromium_launch(playwright)
        except FileNotFoundError as missing:
            pytest.fail(str(missing), pytrace=False)
        yield chromium
        chromium.close()


@dataclass
class PageGuard:
    """Collects page errors and console errors; the ``page`` fixture fails the test on any."""

    problems: list[str] = field(default_factory=list)
    tolerated: list[re.Pattern[str]] = field(default_factory=list)
    """Errors the tools under the kit raise on their own; each entry says why it is here."""

    def on_console(self, message: ConsoleMessage) -> None:
        if message.type == "error":
            self._note(f"console error: {message.text} ({message.location})")

    def on_page_error(self, error: Error) -> None:
        self._note(f"page error: {error.message}\n{error.stack}")

    def _note(self, problem: str) -> None:
        if not any(pattern.search(problem) for pattern in self.tolerated):
            self.problems.append(problem)


@pytest.fixture
def page_guard() -> PageGuard:
    return PageGuard()


@pytest.fixture
def page(browser: Browser, page_guard: PageGuard, request: pytest.FixtureRequest) -> Iterator[Page]:
    """A fresh browser context and page; any page or console error fails the test."""
    context = browser.new_context(viewport=VIEWPORT)
    page = context.new_page()
    page.on("console", page_guard.on_console)
    page.on("pageerror", page_guard.on_page_error)
    yield page
    if getattr(request.node, "failed_call", False) or page_guard.problems:
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=ARTIFACTS / f"{request.node.name}.png")
    context.close()
    assert not page_guard.problems, "\n".join(page_guard.problems)


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """Remember a failed test body, so fixtures keep a screenshot and the server log."""
    report = yield
    if report.when == "call" and report.failed:
        item.failed_call = True  # type: ignore[attr-defined]
    return report


def _open_factory(
    server: JupyterServer, page: Page, request: pytest.FixtureRequest
) -> Iterator[Callable[..., NotebookPage]]:
    opened: list[NotebookPage] = []

    def open_notebook(name: str | Path, *, open_page: bool = True) -> NotebookPage:
        """Copy a notebook under a unique name into the server root and open it.

        ``name`` is a file in this suite's ``notebooks/`` or a path to any notebook.
        """
        source = name if isinstance(name, Path) else NOTEBOOKS / name
        target = f"{source.stem}-{uuid.uuid4().hex[:8]}.ipynb"
        shutil.copy(source, server.root_dir / target)
        notebook = NotebookPage(page, server, target)
        opened.append(notebook)
        if open_page:
            notebook.open()
        return notebook

    yield open_notebook
    for notebook in opened:
        notebook.close()
    if getattr(request.node, "failed_call", False):
        ARTIFACTS.mkdir(exist_ok=True)
        (ARTIFACTS / f"{request.node.name}.server.log").write_text(server.log())
    server.shutdown_kernels()


@pytest.fixture
def open_in_lab(
    lab_server: JupyterServer, page: Page, request: pytest.FixtureRequest
) -> Iterator[Callable[..., NotebookPage]]:
    """``open_in_lab("x.ipynb")`` opens a fresh copy of a test notebook in JupyterLab."""
    yield from _open_factory(lab_server, page, request)


NOTEBOOK7_OWN_ERROR = re.compile(
    r"page error: Cannot read properties of undefined \(reading 'schema'\)"
    r".*/static/notebook/notebook_core\.[0-9a-f]+\.js",
    re.DOTALL,
)
"""Notebook 7.6.5 throws this from its own shortcut settings on every page load, before any
cell runs and with no widget on the page (also on ``/tree``); it is no fault of the kit."""


@pytest.fixture
def open_in_notebook7(
    notebook_server: JupyterServer,
    page: Page,
    page_guard: PageGuard,
    request: pytest.FixtureRequest,
) -> Iterator[Callable[..., NotebookPage]]:
    """``open_in_notebook7("x.ipynb")`` opens a fresh copy of a test notebook in Notebook 7."""
    page_guard.tolerated.append(NOTEBOOK7_OWN_ERROR)
    yield from _open_factory(notebook_server, page, request)


@pytest.fixture(scope="session")
def screenshot() -> Callable[[Locator | Page, str], Path]:
    """``screenshot(locator, "name")`` saves ``name.png`` of that element (or whole page).

    Into ``$E2E_SCREENSHOT_DIR`` when set (``docs/img`` refreshes the documentation's
    pictures), else into the git-ignored artifacts dir, so a plain run changes no tracked file.
    """
    target = Path(os.environ.get("E2E_SCREENSHOT_DIR") or ARTIFACTS / "screens")
    target.mkdir(parents=True, exist_ok=True)

    def take(subject: Locator | Page, name: str) -> Path:
        path = target / f"{name}.png"
        subject.screenshot(path=path, animations="disabled", caret="hide")
        return path

    return take
