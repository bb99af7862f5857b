"""A list that several threads add to and read whole.

The kit's records of what happened (the tool bodies an example ran, the messages a
recording comm published) are appended from the kernel's and the SDK's threads and
read from a test's; each read is a copy taken under the lock, so a reader never sees
a list changing under it.
"""

from __future__ import annotations

import threading
from typing import Generic, TypeVar

T = TypeVar("T")


class SharedList(Generic[T]):
    """Items in the order they were added; `copy()` returns them as a new list."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._items: list[T] = []

    def append(self, item: T) -> None:
        with self._lock:
            self._items.append(item)

    def copy(self) -> list[T]:
        with self._lock:
            return list(self._items)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()

    def __len__(self) -> int:
        with self._lock:
            return len(self._items)
