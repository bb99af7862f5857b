"""The one clock: the time now, instants read from ISO 8601 text, and instants written as text.

Every instant inside the kit is an aware `datetime` in UTC. Text is read once where it
comes in (an interrupt's `expires_at`, an answer's date-time, a saved record) with
`parse_instant`, and written where it goes out with `utc_text`, always in UTC with a `Z`.
No other module calls `fromisoformat`, `isoformat` or `strftime`
(`tests/test_clock.py` keeps it so).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Literal

__all__ = ["Precision", "now", "parse_instant", "parse_iso", "utc_text", "utc_words"]

Precision = Literal["auto", "seconds", "milliseconds", "microseconds"]
"""How many digits of a second `utc_text` writes: `auto` writes microseconds only when
there are some (an interrupt's `expires_at`); the others always write that many."""


def now() -> datetime:
    """The time now, in UTC."""
    return datetime.now(UTC)


def parse_iso(text: str) -> datetime:
    """ISO 8601 text as it is written: aware when it names a zone (`Z` or an offset), naive
    when it names none. `ValueError` for text that is no ISO 8601 date or time."""
    return datetime.fromisoformat(text.replace("Z", "+00:00").replace("z", "+00:00"))


def parse_instant(text: str) -> datetime:
    """An ISO 8601 instant (`Z` or an offset) as an aware datetime in UTC; a time without a
    zone counts as UTC."""
    moment = parse_iso(text)
    return moment.astimezone(UTC) if moment.tzinfo else moment.replace(tzinfo=UTC)


def utc_text(moment: datetime, precision: Precision = "auto") -> str:
    """`moment` as ISO 8601 in UTC ending in `Z` (`2030-01-08T10:00:00Z`); a naive one
    counts as UTC."""
    aware = moment if moment.tzinfo else moment.replace(tzinfo=UTC)
    return aware.astimezone(UTC).isoformat(timespec=precision).replace("+00:00", "Z")


def utc_words(moment: datetime) -> str:
    """`moment` as a person reads it: `2030-01-08 10:00:00 UTC`."""
    aware = moment if moment.tzinfo else moment.replace(tzinfo=UTC)
    return aware.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
