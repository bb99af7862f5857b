"""Which ledger records the approved calls that ran: the durable default, or the one named.

Every place that takes a ledger (`OpenAIAgentsAdapter(ledger=...)`,
`AgentChat(ledger=...)`, `asgi_app(agent, ledger=...)`, `serve --ledger ...`)
reads it the same way, through `open_ledger`:

- nothing given: `$INTERRUPT_WIDGET_LEDGER` if set, else the per-user file
  `$XDG_STATE_HOME/interrupt-widget/calls.db` (`~/.local/state/interrupt-widget/calls.db`
  when `XDG_STATE_HOME` is unset), a `SQLiteLedger` shared by every kernel
  and server of that user on this machine;
- a path: a `SQLiteLedger` in that file;
- a `postgresql://` URL: a `PostgresLedger` in that database (every host);
- `"memory"`: an `MemoryLedger` in this process's memory, with a warning,
  since exactly-once then ends with the process;
- a ledger object: itself.

One process opens each file once, so every adapter and chat on one file
shares one ledger object (and settles a call once before touching the file).
"""

from __future__ import annotations

import os
import threading
import warnings
from pathlib import Path
from typing import Final

from interrupt_widget.ledger.memory import MemoryLedger
from interrupt_widget.ledger.once_only import CallLedger

__all__ = [
    "LEDGER_ENV",
    "MEMORY",
    "LedgerSpec",
    "default_ledger_path",
    "open_ledger",
]

LEDGER_ENV: Final = "INTERRUPT_WIDGET_LEDGER"
"""The environment variable naming the ledger when none is given (a path, a URL or `memory`)."""

MEMORY: Final = "memory"
"""The name that asks for the in-memory ledger."""

LedgerSpec = CallLedger | str | os.PathLike[str] | None
"""What a `ledger=` option takes."""

MEMORY_WARNING: Final = (
    "the call ledger is in memory: an approved call runs exactly once only while this "
    "process lives; after a restart the same resume would run it again"
)

_POSTGRES_SCHEMES: Final = ("postgresql://", "postgres://")

_open: dict[str, CallLedger] = {}
_open_lock = threading.Lock()


def default_ledger_path() -> Path:
    """The per-user ledger file: under `$XDG_STATE_HOME`, else `~/.local/state`."""
    state = os.environ.get("XDG_STATE_HOME") or ""
    base = Path(state) if os.path.isabs(state) else Path.home() / ".local" / "state"
    return base / "interrupt-widget" / "calls.db"


def open_ledger(spec: LedgerSpec = None) -> CallLedger:
    """The ledger `spec` names (see the module docs); a clear `ValueError` if unusable."""
    if spec is None or (isinstance(spec, str) and not spec.strip()):
        named = os.environ.get(LEDGER_ENV, "").strip()
        if named:
            return _shared(named)
        path = default_ledger_path()
        _make_private_folder(path.parent)
        return _shared(str(path))
    if isinstance(spec, str | os.PathLike):
        text = os.fspath(spec)
        if text == MEMORY:
            warnings.warn(MEMORY_WARNING, RuntimeWarning, stacklevel=3)
            return MemoryLedger()
        return _shared(text)
    return spec


def _shared(spec: str) -> CallLedger:
    if spec == MEMORY:
        # The environment asked for memory: one per process, like the file it replaces.
        key = MEMORY
        with _open_lock:
            found = _open.get(key)
        if found is None:
            warnings.warn(MEMORY_WARNING, RuntimeWarning, stacklevel=4)
    elif spec.startswith(_POSTGRES_SCHEMES):
        key = spec
    else:
        key = str(Path(spec).expanduser().resolve())
    with _open_lock:
        found = _open.get(key)
        if found is None:
            found = _opened(key)
            _open[key] = found
        return found


def _opened(key: str) -> CallLedger:
    if key == MEMORY:
        return MemoryLedger()
    if key.startswith(_POSTGRES_SCHEMES):
        from interrupt_widget.ledger.postgres import PostgresLedger

        return PostgresLedger(key)
    from interrupt_widget.ledger.sqlite import SQLiteLedger

    return SQLiteLedger(key)


def _make_private_folder(folder: Path) -> None:
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError as exc:
        raise ValueError(
            f"cannot create the call ledger's folder: {exc}; set {LEDGER_ENV} to a writable "
            "file (or to a postgresql:// URL)"
        ) from exc
