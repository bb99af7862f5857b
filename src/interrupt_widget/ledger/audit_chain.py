"""Hash-chained JSON Lines: a file that shows which line was changed, removed or reordered.

Every line is one JSON object in canonical form (sorted keys, no spaces)
with three fields of its own:

- `seq`: its place, 0 for the opening line, then 1, 2, ... for the records,
  and the closing line last;
- `prev`: the `sha256` of the line before it (64 zeros on the opening line);
- `sha256`: the SHA-256 of the line's canonical JSON without this field.

The opening line (`kind: "open"`) names the format and the window; each
record line (`kind: "call"`) holds one audit entry; the closing line
(`kind: "close"`) holds the number of records, so lines cut from the end
show too. `verify_chain` reads a file back and names the first line that
does not fit: its own hash does not match its content (changed), its `seq`
skips (a line removed before it), comes early or late (reordered), or its
`prev` is not the hash of the line before it.

A chain proves the lines belong together, not who wrote them: someone who
rewrites the whole file can compute a new chain. `write_chain` returns the
last line's hash (the head); kept apart from the file, it pins the whole
file (`verify_chain(path, head=...)`).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

__all__ = ["AUDIT_FORMAT", "ChainCheck", "verify_chain", "write_chain"]

AUDIT_FORMAT: Final = "interrupt-widget/audit@1"
"""`format` on the opening line of an audit trail file."""

GENESIS: Final = "0" * 64
"""The `prev` of the opening line."""


@dataclass(frozen=True)
class ChainCheck:
    """What `verify_chain` found."""

    intact: bool
    """True when every line fits its place and the chain."""
    records: int
    """How many record lines were read."""
    head: str | None
    """The `sha256` of the last line read (None for an empty file)."""
    line: int | None = None
    """The first line (1-based) that does not fit; None when intact."""
    problem: str | None = None
    """What is wrong with that line, in a sentence."""


_CANONICAL = json.JSONEncoder(
    sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str
).encode  # built once: `json.dumps` with options builds an encoder on every call


def canonical_json(value: Any) -> str:
    """`value` as compact JSON with sorted keys: one text for one value."""
    return _CANONICAL(value)


def _sealed(body: Mapping[str, Any]) -> tuple[str, str]:
    """The line for `body` and its hash."""
    digest = hashlib.sha256(canonical_json(body).encode("utf-8")).hexdigest()
    return canonical_json({**body, "sha256": digest}), digest


def write_chain(path: Path, window: Mapping[str, Any], records: Iterable[Mapping[str, Any]]) -> str:
    """Write the opening line, one line per record and the closing line; the head hash."""
    prev = GENESIS
    seq = 0
    lines: list[str] = []

    def add(body: dict[str, Any]) -> None:
        nonlocal prev, seq
        line, prev = _sealed({**body, "seq": seq, "prev": prev})
        lines.append(line)
        seq += 1

    add({"kind": "open", "format": AUDIT_FORMAT, **window})
    count = 0
    for record in records:
        add({"kind": "call", "record": dict(record)})
        count += 1
    add({"kind": "close", "records": count})
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return prev


def verify_chain(path: Path, *, head: str | None = None) -> ChainCheck:
    """Check every line of an audit trail file (see the module docs)."""
    raw = path.read_text(encoding="utf-8").split("\n")
    if raw and raw[-1] == "":
        raw.pop()
    parsed = [_parsed(text) for text in raw]
    seqs = [p.get("seq") if p is not None else None for p in parsed]
    prev_hash = GENESIS
    records = 0
    last: str | None = None

    def broken(index: int, problem: str) -> ChainCheck:
        return ChainCheck(False, records, last, line=index + 1, problem=problem)

    for index, (text, value) in enumerate(zip(raw, parsed, strict=True)):
        if value is None:
            return broken(index, "changed: it is not a JSON object")
        digest = _sealed({k: v for k, v in value.items() if k != "sha256"})[1]
        problem = _misfit(index, text, value, seqs, prev_hash)
        if problem is not None:
            return broken(index, problem)
        kind = value.get("kind")
        if kind == "close":
            if index != len(raw) - 1:
                return broken(index + 1, "follows the closing line")
            if value.get("records") != records:
                return broken(index, f"closes {value.get('records')} records, {records} were read")
            last = digest
            if head is not None and head != digest:
                return ChainCheck(
                    False,
                    records,
                    last,
                    line=index + 1,
                    problem=f"ends with hash {digest}, not the expected {head}: "
                    "the file was rewritten",
                )
            return ChainCheck(True, records, last)
        if kind == "call" and index > 0:
            records += 1
        elif index > 0:
            return broken(index, f"has an unknown kind {kind!r}")
        prev_hash = last = digest
    if not raw:
        return ChainCheck(False, 0, None, line=1, problem="the file is empty")
    return ChainCheck(
        False,
        records,
        last,
        line=len(raw) + 1,
        problem="missing: the trail has no closing line (lines were cut from its end)",
    )


def _parsed(text: str) -> dict[str, Any] | None:
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _misfit(
    index: int, text: str, value: dict[str, Any], seqs: list[Any], prev_hash: str
) -> str | None:
    """Why line `index` does not fit its place in the chain, or None."""
    line, digest = _sealed({k: v for k, v in value.items() if k != "sha256"})
    if line != text or value.get("sha256") != digest:
        return "changed: its content does not match its hash"
    seq = value.get("seq")
    if seq != index:
        return _misplaced(index, seq, seqs)
    if index == 0 and (value.get("kind") != "open" or value.get("format") != AUDIT_FORMAT):
        return f"not an audit trail: the first line does not open {AUDIT_FORMAT}"
    if value.get("prev") != prev_hash:
        return "does not follow the line before it (the chain is broken)"
    return None


def _misplaced(index: int, seq: Any, seqs: list[Any]) -> str:
    if not isinstance(seq, int):
        return "changed: it has no place number"
    if seq > index and index not in seqs:
        gone = seq - index
        lines = "a line was" if gone == 1 else f"{gone} lines were"
        return f"{lines} removed before it (it is line {seq + 1} of the trail)"
    return f"out of order (it is line {seq + 1} of the trail)"
