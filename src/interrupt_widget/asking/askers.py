"""Every chat and batch alive in this process, for views that list questions across it.

A chat or a batch announces itself when it is made; whoever listens (the Jupyter
server's question board, through the kernel's desk) hears of it at that moment, in
the announcing code's context, so it can note which cell made it. Only weak
references are kept: a chat nobody holds any more is forgotten.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable

Listener = Callable[[object], object]

_lock = threading.Lock()
_alive: weakref.WeakSet[object] = weakref.WeakSet()
_listeners: list[Listener] = []


def announce(asker: object) -> None:
    """`asker` (an `AgentChat` or an `AgentBatch`) now exists; tell every listener."""
    with _lock:
        _alive.add(asker)
        listeners = list(_listeners)
    for listener in listeners:
        listener(asker)


def alive() -> list[object]:
    """Every announced asker still held somewhere."""
    with _lock:
        return list(_alive)


def listen(listener: Listener) -> Callable[[], None]:
    """Call `listener(asker)` for each asker announced from now on; returns what stops it."""
    with _lock:
        _listeners.append(listener)

    def stop() -> None:
        with _lock:
            if listener in _listeners:
                _listeners.remove(listener)

    return stop
