"""Saved size of an executed tutorial, against the same notebook with a trivial widget module.

An executed notebook keeps each widget's state in its metadata, and anywidget's `_esm`
and `_css` are synced traits: the front-end code is saved once per widget model. This
executes a notebook as `make test-nb` does (offline model, no key, answered as
`responders.for_notebook` says, a ledger of its own in a temporary folder), saves it with its
widget state, and prints its size. The baseline is the same executed notebook with every
anywidget model's `_esm` and `_css` replaced by a trivial module (`TRIVIAL_ESM`, no
stylesheet): what the notebook would weigh if each widget carried next to no code. The
difference is what the kit's code costs the saved file. A third figure puts the whole
bundle back into every anywidget model, as each widget carried it before a chat's picker
took a loader of its chat's module in its place. A fourth executes the notebook again as a
kernel of a Jupyter server with the kit's extension runs it (which serves the bundle, so
each widget carries a loader of it: `SERVED_AT_ENV` set).

    .venv/bin/python bench/notebook_size.py                        # notebook 03
    .venv/bin/python bench/notebook_size.py notebooks/*.ipynb        # each tutorial
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from collections import Counter
from pathlib import Path
from typing import Any

import nbformat
from nbclient import NotebookClient

from interrupt_widget import responders
from interrupt_widget.widgets._bundle import CSS, ESM, SERVED_AT_ENV

ROOT = Path(__file__).resolve().parent.parent
QUICK = ROOT / "notebooks" / "01_quickstart.ipynb"
"""The smallest tutorial, for a quick check that the bench runs."""
DEFAULT = ROOT / "notebooks" / "03_headless_and_ci.ipynb"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
TRIVIAL_ESM = 'export default { render({ el }) { el.textContent = "widget"; } };\n'
"""The baseline's module: an anywidget that draws one word."""


def execute(path: Path, *, served: bool = False) -> nbformat.NotebookNode:
    """`path` executed as `make test-nb` runs it, with its widget state stored; `served`: as
    a kernel of a server that serves the bundle runs it."""
    notebook = nbformat.read(path, as_version=4)
    saved = dict(os.environ)
    with tempfile.TemporaryDirectory() as ledgers:
        os.environ.pop("OPENAI_API_KEY", None)
        os.environ.update(
            INTERRUPT_WIDGET_MODEL="offline",
            INTERRUPT_WIDGET_RESPONDER=responders.for_notebook(path),
            INTERRUPT_WIDGET_LEDGER=str(Path(ledgers) / "calls.db"),
        )
        if served:
            os.environ[SERVED_AT_ENV] = "interrupt-widget/static/"
        try:
            where = {"metadata": {"path": str(path.parent)}}
            client = NotebookClient(notebook, timeout=300, resources=where)
            client.execute()
        finally:
            os.environ.clear()
            os.environ.update(saved)
    return notebook


def saved_size(notebook: nbformat.NotebookNode) -> int:
    return len(nbformat.writes(notebook).encode("utf-8"))


def models(notebook: nbformat.NotebookNode) -> dict[str, Any]:
    state = notebook.metadata.get("widgets", {}).get(WIDGET_STATE, {})
    return dict(state.get("state", {}))


def with_modules(notebook: nbformat.NotebookNode, esm: str, css: str) -> nbformat.NotebookNode:
    """A copy whose anywidget models all carry `esm` and `css`."""
    copy = nbformat.from_dict(json.loads(json.dumps(notebook)))
    for model in models(copy).values():
        state = model.get("state", {})
        if "_esm" in state:
            state["_esm"] = esm
            state["_css"] = css
    return copy


def report(path: Path) -> None:
    executed = execute(path)
    size = saved_size(executed)
    baseline = saved_size(with_modules(executed, TRIVIAL_ESM, ""))
    copied = saved_size(with_modules(executed, ESM.read_text("utf-8"), CSS.read_text("utf-8")))
    on_server = saved_size(execute(path, served=True))
    states = [m.get("state", {}) for m in models(executed).values()]
    kinds = Counter(str(s.get("kind") or s.get("_model_name", "?")) for s in states)
    code = Counter(len(s["_esm"]) + len(s["_css"]) for s in states if "_esm" in s)
    print(path.relative_to(ROOT) if path.is_relative_to(ROOT) else path)
    print(f"  widget models: {dict(sorted(kinds.items()))}")
    per_model = ", ".join(f"{n:,} B x{count}" for n, count in sorted(code.items(), reverse=True))
    print(f"  _esm + _css per anywidget model: {per_model}")
    for label, value in (
        ("saved, executed", size),
        ("saved, on a server with the kit", on_server),
        ("the bundle in every anywidget model", copied),
        ("baseline: a trivial module in each", baseline),
    ):
        print(f"  {label:<38} {value / 1024:7.1f} KB  {value / baseline:5.2f}x baseline")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("notebooks", nargs="*", type=Path, default=[DEFAULT])
    parser.add_argument(
        "--quick",
        action="store_true",
        help="the quickstart only: check that the bench runs (make bench-smoke), not a figure",
    )
    args = parser.parse_args()
    notebooks = [QUICK] if args.quick else args.notebooks
    for path in notebooks:
        report(path.resolve())
        sys.stdout.flush()


if __name__ == "__main__":
    main()
