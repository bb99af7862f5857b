"""A notebook open in JupyterLab or Notebook 7, driven the way a person drives it.

Everything here is a click or a keystroke on the page; the only back door is
:meth:`NotebookPage.kernel`, which checks facts inside the notebook's kernel.
"""

from __future__ import annotations

import re
import urllib.parse
from pathlib import Path

from jupyter_process import JupyterServer
from kernel_probe import KernelProbe
from playwright.sync_api import Locator, Page, expect

_EXECUTED_PROMPT = re.compile(r"^\s*\[\d+\]:\s*$")
"""A cell's prompt once it has run: ``[3]:`` (``[*]:`` while it runs, ``[ ]:`` before)."""


class NotebookPage:
    """One notebook document in a browser page, plus the kernel behind it."""

    def __init__(self, page: Page, server: JupyterServer, path: str) -> None:
        self.page = page
        self.server = server
        self.path = path
        """The notebook's path relative to the server's root."""
        self._probes: list[KernelProbe] = []

    @property
    def notebook(self) -> Locator:
        """The notebook's cell list (the active one in JupyterLab's main area)."""
        if self.server.kind == "lab":
            return self.page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook")
        return self.page.locator(".jp-Notebook")

    def open(self, *, reset_workspace: bool = True) -> NotebookPage:
        """Open the notebook and return once its kernel is idle."""
        quoted = urllib.parse.quote(self.path)
        if self.server.kind == "lab":
            # `reset` drops the saved layout, so a test never inherits another's open tabs.
            url = f"/lab/tree/{quoted}" + ("?reset" if reset_workspace else "")
        else:
            url = f"/notebooks/{quoted}"
        self.page.goto(self.server.url(url))
        self.wait_kernel_idle()
        return self

    def wait_kernel_idle(self) -> None:
        """Wait until the kernel reports idle where a person reads it.

        In JupyterLab that is the status bar (the toolbar circle can lag behind); Notebook 7
        has no status bar, so there it is the toolbar's kernel name and execution indicator.
        """
        if self.server.kind == "lab":
            status = self.page.locator("#jp-main-statusbar").get_by_text(re.compile(r"\|\s*Idle$"))
        else:
            toolbar = self.page.locator(".jp-NotebookPanel-toolbar")
            expect(toolbar.locator(".jp-KernelName")).to_have_text(
                re.compile("ipykernel"), timeout=60_000
            )
            status = toolbar.locator(".jp-Notebook-ExecutionIndicator[data-status='idle']")
        expect(status).to_be_visible(timeout=60_000)

    def reload(self) -> None:
        """Reload the browser page (the kernel and its widgets live on) and wait for idle."""
        self.page.reload()
        self.wait_kernel_idle()

    def save(self) -> None:
        """Save with the keyboard shortcut and wait until the document is clean."""
        self.notebook.click(position={"x": 5, "y": 5})
        self.page.keyboard.press("Escape")
        self.page.keyboard.press("Control+s")
        if self.server.kind == "lab":
            tab = self.page.locator(".lm-DockPanel-tabBar .lm-TabBar-tab.lm-mod-current")
            expect(tab).not_to_have_class(re.compile(r"\bjp-mod-dirty\b"))

    # Cells

    def cell(self, index: int) -> Locator:
        """Cell ``index`` in document order, markdown cells included."""
        return self.notebook.locator(".jp-Cell").nth(index)

    def code_cell(self, containing: str) -> Locator:
        """The code cell whose source contains ``containing``: stable when cells move."""
        return self.notebook.locator(".jp-CodeCell").filter(
            has=self.page.locator(".jp-InputArea-editor", has_text=containing)
        )

    def output(self, index: int) -> Locator:
        """The output area of cell ``index``."""
        return self.cell(index).locator(".jp-OutputArea")

    def cell_count(self) -> int:
        return self.notebook.locator(".jp-Cell").count()

    def run_all(self, *, wait: bool = True) -> None:
        """Run > Run All Cells; with ``wait``, return once the last cell has run."""
        self.page.get_by_role("menuitem", name="Run", exact=True).click()
        self.page.get_by_role("menuitem", name=re.compile(r"^Run All Cells")).click()
        if wait:
            self._wait_prompt(self.notebook.locator(".jp-CodeCell").last)

    def run_cell(self, index: int) -> None:
        """Select cell ``index`` and press Shift+Enter; return once it has run."""
        self.cell(index).locator(".jp-InputArea-prompt").click()
        self.page.keyboard.press("Shift+Enter")
        self.wait_executed(index)

    def start_cell(self, index: int) -> None:
        """Select cell ``index`` and press Shift+Enter without waiting for it to finish."""
        self.cell(index).locator(".jp-InputArea-prompt").click()
        self.page.keyboard.press("Shift+Enter")

    def wait_executed(self, index: int) -> None:
        """Wait until cell ``index`` shows an execution count, and fail on an error output."""
        self._wait_prompt(self.cell(index))

    def wait_executed_containing(self, source: str) -> None:
        """:meth:`wait_executed` for the code cell whose source contains ``source``."""
        self._wait_prompt(self.code_cell(source))

    def _wait_prompt(self, cell: Locator) -> None:
        prompt = cell.locator(".jp-InputArea-prompt")
        expect(prompt).to_have_text(_EXECUTED_PROMPT, timeout=60_000)
        # JupyterLab draws errors and stderr alike; a traceback tells an exception apart.
        errors = self.notebook.locator(
            ".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']",
            has_text="Traceback (most recent call last)",
        )
        if errors.count():
            raise AssertionError(f"a cell raised:\n{errors.first.inner_text()}")

    # The kernel behind the page

    def kernel(self) -> KernelProbe:
        """A probe on this notebook's kernel (closed when the test ends)."""
        for session in self.server.notebook_sessions():
            if session["path"] == self.path:
                kernel_id = session["kernel"]["id"]
                break
        else:
            raise AssertionError(f"no kernel session for {self.path}")
        probe = KernelProbe(Path(self.server.runtime_dir) / f"kernel-{kernel_id}.json")
        self._probes.append(probe)
        return probe

    def close(self) -> None:
        for probe in self._probes:
            probe.close()
        self._probes.clear()
