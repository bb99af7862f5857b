"""One clock: `clock.py` is the only module that reads or writes instants as text, or asks
the time, so every deadline and answer time is read once and written one way."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import interrupt_widget
from interrupt_widget.clock import parse_instant, utc_text, utc_words

SOURCE = Path(interrupt_widget.__file__).parent

TIME_TEXT = re.compile(r"fromisoformat|isoformat\(|strftime\(|strptime\(|datetime\.now\(")
"""Reading or writing an instant as text, or asking the time, by hand."""

ELSEWHERE: set[str] = set()
"""Packages not yet on the clock: none."""


def test_the_clock_is_the_only_module_that_reads_writes_or_asks_the_time() -> None:
    found = [
        f"{path.relative_to(SOURCE)}:{number}: {line.strip()}"
        for path in sorted(SOURCE.rglob("*.py"))
        if path.name != "clock.py" and path.relative_to(SOURCE).parts[0] not in ELSEWHERE
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if TIME_TEXT.search(line)
    ]
    assert not found, "use interrupt_widget.clock:\n" + "\n".join(found)


def test_an_instant_is_read_in_utc_whatever_its_zone() -> None:
    plus_two = parse_instant("2030-01-08T12:00:00+02:00")
    assert plus_two == datetime(2030, 1, 8, 10, tzinfo=UTC)
    assert plus_two.tzinfo is UTC
    assert parse_instant("2030-01-08T10:00:00Z") == plus_two
    assert parse_instant("2030-01-08T10:00:00") == plus_two  # no zone: UTC


def test_instants_are_written_as_the_wire_pins_them() -> None:
    at = datetime(2026, 12, 2, 11, 5, tzinfo=timezone(timedelta(hours=1)))
    assert utc_text(at) == "2026-12-02T10:05:00Z"  # an interrupt's expires_at
    assert utc_text(at, "milliseconds") == "2026-12-02T10:05:00.000Z"  # an answer's time
    assert utc_text(at, "microseconds") == "2026-12-02T10:05:00.000000Z"  # the audit trail
    assert utc_text(at + timedelta(microseconds=5)) == "2026-12-02T10:05:00.000005Z"
    assert utc_words(at) == "2026-12-02 10:05:00 UTC"
