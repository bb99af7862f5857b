"""A notebook's run recorded for CI in one step, and replayed with one setting.

A regression run needs two files beside the notebook: the model's answers (a cassette,
`STEM.cassette.jsonl`) and the people's (a decision file, `STEM.decisions.json`). One
environment variable names both by their stem:

- `INTERRUPT_WIDGET_RECORD=path/STEM`: every chat, batch and adapter made without
  `cassette=` records its model calls anew into `STEM.cassette.jsonl` (one file for the
  whole process, mode `all`), and every chat and batch writes its decisions to
  `STEM.decisions.json` as they are made, in the order the chats and batches were made;
- `INTERRUPT_WIDGET_REPLAY=path/STEM`: every cassette only replays (mode `none`), those made
  without `cassette=` from `STEM.cassette.jsonl`, and every chat and batch made without a
  responder answers from `STEM.decisions.json` (the `replay:` responder).

`INTERRUPT_WIDGET_CASSETTE_MODE` and `INTERRUPT_WIDGET_RESPONDER`, when set, still win.
"""

from __future__ import annotations

import os
import pathlib
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Final

from interrupt_widget.decisions import Decision, save_decisions

__all__ = [
    "RECORD_ENV",
    "REPLAY_ENV",
    "DecisionRecorder",
    "Recording",
    "decision_recorder",
    "recording",
    "replaying",
]

RECORD_ENV: Final = "INTERRUPT_WIDGET_RECORD"
"""The stem to record a run's cassette and decision file under."""
REPLAY_ENV: Final = "INTERRUPT_WIDGET_REPLAY"
"""The stem of a recorded run's cassette and decision file, to replay them."""


@dataclass(frozen=True)
class Recording:
    """A recorded run's two files, named by their stem."""

    stem: pathlib.Path
    """`path/STEM`, as the environment gives it."""

    @property
    def cassette(self) -> pathlib.Path:
        """The model's answers: `STEM.cassette.jsonl`."""
        return self.stem.with_name(self.stem.name + ".cassette.jsonl")

    @property
    def decisions(self) -> pathlib.Path:
        """The people's answers: `STEM.decisions.json`."""
        return self.stem.with_name(self.stem.name + ".decisions.json")


def recording(environ: Mapping[str, str] | None = None) -> Recording | None:
    """The run `INTERRUPT_WIDGET_RECORD` records, or None."""
    return _named(RECORD_ENV, environ)


def replaying(environ: Mapping[str, str] | None = None) -> Recording | None:
    """The recorded run `INTERRUPT_WIDGET_REPLAY` replays, or None."""
    return _named(REPLAY_ENV, environ)


def _named(name: str, environ: Mapping[str, str] | None) -> Recording | None:
    env = os.environ if environ is None else environ
    if env.get(RECORD_ENV, "").strip() and env.get(REPLAY_ENV, "").strip():
        raise ValueError(f"set {RECORD_ENV} or {REPLAY_ENV}, not both")
    stem = env.get(name, "").strip()
    return Recording(pathlib.Path(stem)) if stem else None


class DecisionRecorder:
    """The decision file of a run being recorded: every chat's and batch's decisions,
    rewritten whenever one changes, in the order they were made. One per file in a process."""

    def __init__(self, path: pathlib.Path) -> None:
        self.path = path
        """The decision file written."""
        self._lock = threading.Lock()
        self._kept: dict[int, list[Decision]] = {}
        save_decisions([], path)  # a run that asks nobody still leaves a file to replay

    def join(self) -> int:
        """A place for one more chat's (or batch's) decisions; `keep` takes the token this
        returns."""
        with self._lock:
            token = len(self._kept)
            self._kept[token] = []
            return token

    def keep(self, token: int, decisions: Sequence[Decision]) -> None:
        """The chat (or batch) `token` names has these decisions now: write the file again."""
        with self._lock:
            self._kept[token] = list(decisions)
            save_decisions([d for kept in self._kept.values() for d in kept], self.path)


_RECORDERS: dict[pathlib.Path, DecisionRecorder] = {}
_RECORDERS_LOCK = threading.Lock()


def decision_recorder(environ: Mapping[str, str] | None = None) -> DecisionRecorder | None:
    """The process's recorder of the decision file `INTERRUPT_WIDGET_RECORD` names, or None."""
    run = recording(environ)
    if run is None:
        return None
    path = run.decisions.resolve()
    with _RECORDERS_LOCK:
        if path not in _RECORDERS:
            _RECORDERS[path] = DecisionRecorder(path)
        return _RECORDERS[path]
