"""Where the front end's built files live: one ES module and one stylesheet for every widget.

anywidget loads `_esm` and `_css` by path; the stylesheet goes into the document in
JupyterLab and into the widget's shadow root in marimo, which a stylesheet added at run
time to the document's head would not reach.
"""

from __future__ import annotations

import pathlib

_STATIC = pathlib.Path(__file__).parents[1] / "static"
ESM = _STATIC / "widget.js"
"""The bundle esbuild writes from `js/widget.ts`."""
CSS = _STATIC / "widget.css"
"""The stylesheets `js/widget.ts` imports, written beside the bundle."""
INBOX_ESM = _STATIC / "inbox.js"
"""The inbox's own bundle, from `js/inbox/widget.ts`: a page with no inbox never loads it."""
INBOX_CSS = _STATIC / "inbox.css"
"""The inbox's stylesheet (the picker card's rules included), beside its bundle."""
