"""Where the front end's built files live: one ES module and one stylesheet for every widget.

anywidget loads `_esm` and `_css` by path; the stylesheet goes into the document in
JupyterLab and into the widget's shadow root in marimo, which a stylesheet added at run
time to the document's head would not reach.
"""

from __future__ import annotations

import json
import pathlib

from interrupt_widget.widgets.attendance import attached_to_wire

_STATIC = pathlib.Path(__file__).parents[1] / "static"
ESM = _STATIC / "widget.js"
"""The bundle esbuild writes from `js/widget.ts`."""
CSS = _STATIC / "widget.css"
"""The stylesheets `js/widget.ts` imports, written beside the bundle."""


_OWNED = """\
// Drawn by its owner's module (the chat that holds it); shown on its own, it loads that module.
const OWNER = %s;
export default {
  initialize({ model }) {
    model.send(%s); // a front end holds this picker: a person could answer it
  },
  async render(props) {
    const owner = await props.model.widget_manager.get_model(OWNER);
    const url = URL.createObjectURL(new Blob([owner.get("_esm")], { type: "text/javascript" }));
    try {
      const module = await import(url);
      return module.default.render(props);
    } finally {
      URL.revokeObjectURL(url);
    }
  },
};
"""


def owned_module(owner_model_id: str) -> str:
    """The `_esm` of a widget whose owner's module draws it (a chat's picker).

    The bundle is saved once per widget model in an executed notebook (`_esm` is a synced
    trait); the chat draws its picker with its own copy, so the picker carries these few
    lines in its place, which import the chat's copy should the picker be shown alone.
    """
    return _OWNED % (json.dumps(owner_model_id), json.dumps(attached_to_wire()))


INBOX_ESM = _STATIC / "inbox.js"
"""The inbox's own bundle, from `js/inbox/widget.ts`: a page with no inbox never loads it."""
INBOX_CSS = _STATIC / "inbox.css"
"""The inbox's stylesheet (the picker card's rules included), beside its bundle."""
