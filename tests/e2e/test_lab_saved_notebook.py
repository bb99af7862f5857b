"""A notebook saved with its widgets' state keeps a few lines per widget, not the widgets' code,
and opened again with no kernel of the run it shows, still draws them: the kit's server
extension serves the code, which the saved lines load.

JupyterLab saves widget state when its widget manager's `saveState` setting is on; the test
turns it on for its own page and off again.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from chat_page import ChatOnPage
from jupyter_process import JupyterServer
from notebook_page import NotebookPage
from picker_page import PickerOnPage
from playwright.sync_api import Route, expect

from conftest import PageGuard

pytestmark = pytest.mark.e2e

OpenNotebook = Callable[..., NotebookPage]
STATE = "application/vnd.jupyter.widget-state+json"


@pytest.fixture
def saving_widget_state(lab_server: JupyterServer) -> Iterator[None]:
    settings = (
        lab_server.settings_dir / "@jupyter-widgets/jupyterlab-manager/plugin.jupyterlab-settings"
    )
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(json.dumps({"saveState": True}), encoding="utf-8")
    yield
    settings.unlink()


def saved_models(path: Path) -> dict[str, dict[str, object]]:
    notebook = json.loads(path.read_text(encoding="utf-8"))
    models: dict[str, dict[str, object]] = notebook["metadata"]["widgets"][STATE]["state"]
    return models


def test_a_saved_notebook_keeps_no_widget_code_and_draws_its_chat_with_no_kernel(
    saving_widget_state: None, open_in_lab: OpenNotebook, lab_server: JupyterServer
) -> None:
    notebook = open_in_lab("chat_picker_alone.ipynb")
    notebook.run_all()
    chat = ChatOnPage(notebook.output(0))
    expect(chat.open_card()).to_have_count(1)
    notebook.save()

    models = saved_models(lab_server.root_dir / notebook.path)
    ours = [m["state"] for m in models.values() if m["model_name"] == "AnyModel"]
    assert len(ours) == 2  # the chat and its picker
    code = sum(len(str(s.get("_esm", ""))) + len(str(s.get("_css", ""))) for s in ours)
    assert code < 4_000, code  # the bundle alone is ~60 KB

    # The run's kernel is gone; the notebook opens again and draws what was saved.
    lab_server.shutdown_kernels()
    notebook.open()
    again = ChatOnPage(notebook.output(0))
    expect(again.root.locator(".iw-chat-msg[data-kind='user']")).to_contain_text(
        "Book a call with Alice about the roadmap"
    )
    expect(again.open_card()).to_have_count(1)


def test_a_page_that_cannot_reach_the_served_code_gets_it_from_the_kernel(
    open_in_lab: OpenNotebook, page_guard: PageGuard
) -> None:
    """A front end that cannot load what the server serves (VS Code connected to the server)
    asks each widget's kernel for the code: the chat and its picker draw, and answer."""
    page_guard.tolerated.append(re.compile(r"interrupt-widget/static/|Failed to fetch dynamically"))
    notebook = open_in_lab("chat_picker_alone.ipynb", open_page=False)
    blocked: list[str] = []

    def refuse(route: Route) -> None:
        blocked.append(route.request.url)
        route.abort()

    notebook.page.route("**/interrupt-widget/static/**", refuse)
    notebook.open()
    notebook.run_all()
    chat = ChatOnPage(notebook.output(0))
    expect(chat.open_card()).to_have_count(1)
    interrupt_id = str(chat.open_card().get_attribute("data-interrupt-id"))
    alone = PickerOnPage(notebook.output(2))  # the picker shown on its own draws too
    alone.button(interrupt_id, "Deny").click()
    expect(chat.picker.decision(interrupt_id)).to_contain_text("Denied")
    expect(chat.in_status("done")).to_have_count(1)
    assert any(url.split("?")[0].endswith("widget.js") for url in blocked), blocked
