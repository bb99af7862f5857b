"""Where the front end's built files live: one ES module and one stylesheet for every widget.

Each widget's `_esm` and `_css` are synced traits of its own (`widget_module`): the files' text,
or a loader where the server serves them. The stylesheet goes into the document in
JupyterLab and into the widget's shadow root in marimo, which a stylesheet added at run
time to the document's head would not reach. Not class attributes naming the files:
anywidget then ties every instance to the file's change signal, which keeps each widget
(and all it holds) alive for the life of the process, closed or not.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import pathlib
from dataclasses import dataclass
from typing import Final

from interrupt_widget.widgets.attendance import attached_to_wire

STATIC = pathlib.Path(__file__).parents[1] / "static"
"""The built front end's files."""
ESM = STATIC / "widget.js"
"""The bundle esbuild writes from `js/widget.ts`."""
CSS = STATIC / "widget.css"
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


SERVED_AT_ENV = "INTERRUPT_WIDGET_BUNDLE_PATH"
"""Where the Jupyter server serves these files, under its base URL (`interrupt-widget/static/`):
set for its kernels by the kit's server extension, which serves them. Set it by hand to
execute a notebook elsewhere (nbconvert, papermill) that will be opened on such a server."""

_SERVED = """\
// Served by the kit's Jupyter server extension; from the kernel where the page cannot reach it.
let base = "/";
try {
  base = JSON.parse(document.getElementById("jupyter-config-data").textContent).baseUrl || "/";
} catch {}
const at = (path) => new URL(base + path, document.baseURI).href;
const STYLES = %s;
if (!document.querySelector(`link[data-interrupt-widget="${STYLES}"]`)) {
  const link = Object.assign(document.createElement("link"), { rel: "stylesheet" });
  link.href = at(STYLES);
  link.dataset.interruptWidget = STYLES;
  document.head.append(link);
}
let module, unreachable, loading;
try {
  module = await import(at(%s));
} catch (error) {
  unreachable = error;
}
const fromKernel = (model) => new Promise((resolve, reject) => {
  const heard = (m) => {
    if (m?.type !== "widget_code") return;
    clearTimeout(timer);
    model.off("msg:custom", heard);
    resolve(m);
  };
  const timer = setTimeout(() => {
    model.off("msg:custom", heard);
    reject(new Error("no kernel sent it"));
  }, %d);
  model.on("msg:custom", heard);
  model.send({ type: "widget_code" });
});
const fromCode = async ({ esm, css }) => {
  document.head.append(Object.assign(document.createElement("style"), { textContent: css }));
  const url = URL.createObjectURL(new Blob([esm], { type: "text/javascript" }));
  try {
    return (module = await import(url));
  } finally {
    URL.revokeObjectURL(url);
  }
};
const load = async (model) => module ?? (loading ??= fromKernel(model).then(fromCode));
const started = new WeakSet();
export default {
  // With no module yet, say what its `initialize` says: a front end holds the model.
  initialize: (props) => (module ? module.default.initialize?.(props) : props.model.send(%s)),
  async render(props) {
    if (!module) props.el.textContent = "interrupt-widget: loading this widget's code...";
    try {
      const loaded = await load(props.model);
      if (unreachable && !started.has(props.model)) {
        started.add(props.model);
        await loaded.default.initialize?.({ model: props.model, experimental: props.experimental });
      }
      props.el.textContent = "";
      return loaded.default.render(props);
    } catch (error) {
      props.el.textContent = "interrupt-widget: this widget's code is served by the kit's " +
        `Jupyter server extension, which this page cannot reach (${unreachable}), and ` +
        `${error.message}; open the notebook on a server where interrupt-widget is installed.`;
    }
  },
};
"""
"""The `_esm` a widget saves where the server serves its code (`served`). It resolves the
server's URL against the page's own Jupyter base URL, so the notebook draws on any server
with the kit (JupyterHub's too). A front end that cannot reach that URL (VS Code connected
to the server) asks the widget's kernel instead, over the widget's own channel
(`WantsCode`). anywidget delivers no custom message to a model before its `initialize`
returns, so the first view asks, then runs the module's `initialize` for the model."""

WIDGET_CODE: Final = "widget_code"
"""`type` of a view's request for its widget's code, when the served loader cannot reach the
server's copy, and of the kernel's reply carrying it (`widget_code`)."""

KERNEL_WAIT_MS: Final = 15_000
"""How long a served loader waits for the kernel's copy before saying it has none (a saved
notebook opened with no kernel never gets one)."""


@dataclass(frozen=True)
class WantsCode:
    """A view asked for its widget's code: its page cannot reach the copy the server serves."""


def widget_code(esm: pathlib.Path, css: pathlib.Path) -> dict[str, str]:
    """The reply to `WantsCode`: the module and the stylesheet the served loader would load."""
    return {"type": WIDGET_CODE, "esm": esm.read_text("utf-8"), "css": css.read_text("utf-8")}


@functools.cache
def _version(path: pathlib.Path) -> str:
    """A short digest of `path`'s content: a new bundle is a new URL, never a stale cache."""
    return hashlib.sha256(path.read_bytes()).hexdigest()[:12]


def served(esm: pathlib.Path, css: pathlib.Path) -> dict[str, str]:
    """`_esm` and `_css` that load `esm` and `css` from the Jupyter server when this kernel's
    server serves them (see `SERVED_AT_ENV`); `{}` elsewhere (the files themselves are sent).

    An executed notebook saves each widget's `_esm` and `_css` (the bundle, ~60 KB); these
    few lines are what it saves instead, and the widget still draws wherever the notebook
    opens on a server with the kit, with or without a kernel.
    """
    at = os.environ.get(SERVED_AT_ENV)
    if not at:
        return {}
    code, styles = (json.dumps(f"{at}{f.name}?v={_version(f)}") for f in (esm, css))
    # The loader links the stylesheet itself: anywidget's own `_css` would read a relative
    # path against the page's address, not the server's base URL.
    attached = json.dumps(attached_to_wire())
    return {"_esm": _SERVED % (styles, code, KERNEL_WAIT_MS, attached), "_css": ""}


def widget_module(esm: pathlib.Path, css: pathlib.Path) -> dict[str, str]:
    """A widget's `_esm` and `_css`: the loader where the server serves them (`served`), else
    the files' text (read once per build of the files)."""
    return served(esm, css) or {"_esm": _text(esm), "_css": _text(css)}


def _text(path: pathlib.Path) -> str:
    return _read(path, path.stat().st_mtime_ns)


@functools.cache
def _read(path: pathlib.Path, _built: int) -> str:
    return path.read_text("utf-8")


INBOX_ESM = STATIC / "inbox.js"
"""The inbox's own bundle, from `js/inbox/widget.ts`: a page with no inbox never loads it."""
INBOX_CSS = STATIC / "inbox.css"
"""The inbox's stylesheet (the picker card's rules included), beside its bundle."""
