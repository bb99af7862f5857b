"""Whether a cell may await a person's click, and the error that says so when it may not.

ipykernel 7.4 handles widget messages while a cell is suspended in `await`, so
`await run` in Jupyter returns once the picker is answered. marimo handles one
message at a time: the click waits behind the running cell, and the cell would
wait for ever. There a run needing a person is followed, not awaited: it goes
on by itself once the picker is answered, and another cell reacts to that.
"""

from __future__ import annotations

import sys

from interrupt_widget.errors import CannotWaitHere

__all__ = ["CannotWaitHere", "in_marimo", "marimo_way"]


def in_marimo() -> bool:
    """True inside a marimo notebook's kernel (edit or app mode), where cells run one at a time."""
    if "marimo" not in sys.modules:  # a marimo kernel has imported it before any cell runs
        return False
    from marimo import running_in_notebook

    return running_in_notebook()


def marimo_way(what: str, react: str) -> str:
    """The message of `CannotWaitHere` in marimo: why `what` cannot be awaited, and `react`."""
    return (
        f"{what} would never finish in marimo: marimo handles one message at a time, so the "
        "click that answers the picker cannot reach Python while this cell waits. Nothing was "
        "cancelled; answer the picker and the run goes on by itself. To act on the outcome, "
        f"{react}"
    )
