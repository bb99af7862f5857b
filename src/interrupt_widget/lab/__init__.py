"""The kit in JupyterLab: one sidebar for every question waiting on the Jupyter server.

Two halves, both installed with the kit (the `lab` extra brings JupyterLab): the
JupyterLab extension (built from `labextension/` into `interrupt_widget/labextension/`,
shipped in the wheel under `share/jupyter/labextensions/interrupt-widget-lab/`) draws the
sidebar and the notifications; the Jupyter Server extension (`server_extension.py`) serves
the questions from the board (`board.py`) that every kernel's desk (`kernel_desk.py`)
posts to, and takes the answers people give there.
"""

from __future__ import annotations

from typing import Any


def _jupyter_server_extension_points() -> list[dict[str, str]]:
    return [{"module": "interrupt_widget.lab"}]


def _load_jupyter_server_extension(serverapp: Any) -> None:
    from interrupt_widget.lab.server_extension import load

    load(serverapp)


def _jupyter_labextension_paths() -> list[dict[str, str]]:
    """Where the built front end is, beside this package, and its name among lab extensions
    (for `jupyter labextension develop`, which links a checkout's build into an environment)."""
    return [{"src": "../labextension", "dest": "interrupt-widget-lab"}]
