"""What a batch shows as, registered from above: a batch sits below the widgets and imports
none. The inbox widget (`widgets/inbox.py`) makes itself every batch's view when it is
imported, and `import interrupt_widget` registers a maker that imports it on a batch's first
showing. Light on purpose: registering here loads neither the Agents SDK nor a widget."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any, Protocol, TypeVar

_T = TypeVar("_T")


class BatchView(Protocol):
    """What a batch shows as: the inbox widget (`widgets/inbox.py`)."""

    def _repr_mimebundle_(self, **kwargs: Any) -> Any: ...

    def close(self) -> None:
        """Stop following the batch and close the widget."""
        ...

    async def _attended(self, work: asyncio.Future[_T]) -> _T:
        """`work`, or `UnattendedWait` when its questions wait and no front end holds the view."""
        ...


views: list[Callable[[Any], BatchView]] = []
"""The one maker of a batch's view (given the `AgentBatch`), once one is registered."""


def show_batches_with(make: Callable[[Any], BatchView]) -> None:
    """Make `make(batch)` the view of every batch (the inbox calls it when it is imported)."""
    views[:] = [make]
