"""Custom renderers that ship with the kit, as paths for `InterruptPicker(renderers=...)`.

Each is a plain ES module exporting `render({interrupt, resolve, cancel, el})`;
it doubles as a worked example for writing your own.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["MEETING_TIME"]

MEETING_TIME = Path(__file__).with_name("meeting_time.js")
"""One-click meeting slots for `schedule_meeting` (from `tool_input.suggested_times`, or
the next three weekdays at 10:00 and 14:00), "Another time…" (the general form), and
"Don't schedule"."""
