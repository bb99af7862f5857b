"""Who answers each notebook's questions under nbval, set before its kernel starts.

`make test-nb` runs every tutorial in one pytest process (each notebook still in a kernel of its
own), so the kit and the SDK are imported once, not once per notebook. Each kernel inherits the
environment it starts in; this plugin sets, just before a notebook's kernel starts:

- `INTERRUPT_WIDGET_RESPONDER`: `responders.for_notebook` (its decision file replayed if one
  sits beside it; nobody if it answers its questions itself; else `approve_all`);
- `INTERRUPT_WIDGET_LEDGER`: a ledger of its own in a temporary folder, never the user's.

Load it with `-p notebook_answers` (tests/ on `PYTHONPATH`).
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import pytest

from interrupt_widget import responders
from interrupt_widget.ledger.opening import LEDGER_ENV

_ledgers = tempfile.TemporaryDirectory(prefix="notebook-ledgers-")
_started: set[Path] = set()
# Set only so that pytest finds this plugin: the notebooks' kernels start without it.
os.environ.pop("PYTHONPATH", None)


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    # Before the runner's own setup, which starts the notebook's kernel with this environment.
    notebook = Path(str(item.path))
    if notebook.suffix != ".ipynb" or notebook in _started:
        return
    _started.add(notebook)
    responder = responders.for_notebook(notebook)
    os.environ[responders.ENV_VAR] = responder
    os.environ[LEDGER_ENV] = str(Path(_ledgers.name) / f"{notebook.stem}.db")
    plugins = item.config.pluginmanager
    reporter, capture = plugins.get_plugin("terminalreporter"), plugins.get_plugin("capturemanager")
    if reporter is not None and capture is not None:
        with capture.global_and_fixture_disabled():  # said where the notebook's dots are
            reporter.write_line(f"\n== {notebook.name} ({responders.ENV_VAR}={responder})")


def pytest_unconfigure(config: pytest.Config) -> None:
    _ledgers.cleanup()
