"""Closing a widget of the kit closes the `Layout` ipywidgets made for it, too.

Every `DOMWidget` gets a `Layout` widget of its own, registered like any widget and
never closed with it, so a kernel that makes and closes chats and pickers would keep
one per widget for ever. A layout another open widget shares stays open.
"""

from __future__ import annotations

from ipywidgets import DOMWidget
from ipywidgets.widgets.widget import _instances as open_widgets


def close_layout_of(widget: DOMWidget) -> None:
    """Close `widget`'s layout (call once `widget` is closed) unless an open widget uses it."""
    layout = widget.layout
    if layout is None or layout.comm is None:
        return
    shared = any(
        other is not widget and getattr(other, "layout", None) is layout
        for other in list(open_widgets.values())
    )
    if not shared:
        layout.close()
