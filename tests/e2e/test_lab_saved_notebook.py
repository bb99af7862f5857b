"""A notebook saved with its widgets' state keeps a few lines per widget, not the widgets' code,
and opened again with no kernel of the run it shows, still draws them: the kit's server
extension serves the code, which the saved lines load.

JupyterLab saves widget state when its widget manager's `saveState` setting is on; the test
turns it on for its own page and off again.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from chat_page import ChatOnPage
from jupyter_process import JupyterServer
from notebook_page import NotebookPage
from playwright.sync_api import expect

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
