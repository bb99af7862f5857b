"""The kit's JupyterLab extension: a sidebar of every question waiting on the Jupyter server.

The front end is built from `labextension/` into `interrupt_widget/labextension/` and ships in
the wheel under `share/jupyter/labextensions/interrupt-widget-lab/`; this module names it for
`jupyter labextension develop`, which links a checkout's build into an environment.
"""

from __future__ import annotations


def _jupyter_labextension_paths() -> list[dict[str, str]]:
    """Where the built front end is, beside this package, and its name among lab extensions."""
    return [{"src": "../labextension", "dest": "interrupt-widget-lab"}]
