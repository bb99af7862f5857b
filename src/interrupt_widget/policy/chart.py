"""The chart of a policy against the people it would replace, drawn with matplotlib.

One horizontal bar per person verdict (approved, denied, cancelled, expired),
split by what the policy would have said (approve, deny, ask a person), with
the count in each part. A false approval is the green part of a bar that is
not "approved". Drawn on a bare `Figure` (no pyplot), so making a chart opens
no window and leaves no global state behind.
"""

from __future__ import annotations

import io
import os
import pathlib
from collections.abc import Sized
from typing import Any, Protocol

from interrupt_widget.policy.ruling import PERSON_VERDICTS, POLICY_VERDICTS

COLOURS = {"approve": "#2e7d32", "deny": "#c62828", "ask": "#9e9e9e"}
"""The policy verdicts' colours (green, red, grey)."""


LABELS = {"approve": "policy approves", "deny": "policy denies", "ask": "asks a person"}


class Tally(Protocol):
    """What the chart draws: a `PolicyReport`'s count of each (person, policy) verdict
    pair, and its headline figures."""

    @property
    def agreement(self) -> float | None: ...

    @property
    def escalation_rate(self) -> float: ...

    @property
    def false_approvals(self) -> Sized: ...

    def counts(self) -> dict[tuple[str, str], int]: ...

    def __len__(self) -> int: ...


class PolicyChart:
    """`report.chart()`: shows as a PNG in a notebook; `save(path)` writes one."""

    def __init__(self, report: Tally, *, title: str | None = None) -> None:
        try:
            from matplotlib.figure import Figure
        except ImportError:
            raise ImportError("the chart needs matplotlib: pip install matplotlib") from None
        self.report = report
        """The report drawn."""
        self.figure: Any = Figure(figsize=(7.0, 3.2), layout="constrained")
        """The matplotlib Figure."""
        _draw(self.figure, report, title)

    def png(self, *, dpi: int = 120) -> bytes:
        """The chart as PNG bytes (no timestamp or version inside, so the same data gives
        the same bytes)."""
        buffer = io.BytesIO()
        self.figure.savefig(buffer, format="png", dpi=dpi, metadata={"Software": None})
        return buffer.getvalue()

    def save(self, path: str | os.PathLike[str], *, dpi: int = 120) -> pathlib.Path:
        """Write the chart as a PNG; returns its path."""
        target = pathlib.Path(path)
        target.write_bytes(self.png(dpi=dpi))
        return target

    def _repr_png_(self) -> bytes:
        return self.png(dpi=96)

    def __repr__(self) -> str:
        counts = self.report.counts()
        cells = ", ".join(f"{p}/{q}={n}" for (p, q), n in counts.items() if n)
        return f"<PolicyChart of {len(self.report)} decisions: {cells}>"


def _draw(figure: Any, report: Tally, title: str | None) -> None:
    from matplotlib.ticker import MaxNLocator

    counts = report.counts()
    rows = [p for p in PERSON_VERDICTS if any(counts[(p, q)] for q in POLICY_VERDICTS)]
    rows = rows or ["approved", "denied"]
    axes = figure.add_subplot()
    positions = list(range(len(rows)))[::-1]  # first verdict on top
    left = [0] * len(rows)
    for verdict in POLICY_VERDICTS:
        widths = [counts.get((p, verdict), 0) for p in rows]
        bars = axes.barh(
            positions,
            widths,
            left=left,
            color=COLOURS[verdict],
            label=LABELS[verdict],
            edgecolor="white",
            height=0.6,
        )
        for bar, width in zip(bars, widths, strict=True):
            if width:
                x = bar.get_x() + bar.get_width() / 2
                y = bar.get_y() + bar.get_height() / 2
                axes.text(x, y, str(width), ha="center", va="center", color="white", fontsize=9)
        left = [a + b for a, b in zip(left, widths, strict=True)]
    axes.set_yticks(positions, [f"person {p}" for p in rows])
    axes.set_xlabel("recorded decisions")
    axes.xaxis.set_major_locator(MaxNLocator(integer=True))
    axes.spines[["top", "right"]].set_visible(False)
    axes.legend(loc="lower right", frameon=False, fontsize=8)
    agreement = "n/a" if report.agreement is None else f"{report.agreement:.0%}"
    axes.set_title(
        title
        or f"Policy against person: agreement {agreement}, escalation "
        f"{report.escalation_rate:.0%}, false approvals {len(report.false_approvals)}",
        fontsize=10,
        loc="left",
    )
