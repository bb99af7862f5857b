"""Size of the front-end bundle, against the 20 KB gzipped goal.

The bundle (code and CSS in one ES module) travels in every widget's opening
message and is saved once per widget in the notebook, so it is measured three
ways: minified, gzipped, and the whole opening message of one picker.

    .venv/bin/python bench/bundle.py            # build, then measure
    .venv/bin/python bench/bundle.py --no-build # measure the bundle already built
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BUNDLE = ROOT / "src" / "interrupt_widget" / "static" / "widget.js"
GOAL_GZIPPED = 20 * 1024


def build() -> None:
    subprocess.run(["npm", "run", "--silent", "build"], cwd=ROOT, check=True)


def opening_message_bytes() -> int:
    """Bytes of the comm_open message of one meeting picker (the bundle included)."""
    from interrupt_widget import InterruptPicker
    from interrupt_widget.examples import MEETING_RESPONSE_SCHEMA
    from interrupt_widget.interrupts import approval_schema
    from interrupt_widget.testing import recording_comms

    schema = approval_schema(MEETING_RESPONSE_SCHEMA)  # what the quickstart's picker receives
    interrupt = {
        "id": "int-1",
        "reason": "tool_call",
        "message": "Schedule a meeting about the roadmap?",
        "responseSchema": schema,
        "metadata": {"tool_name": "schedule_meeting", "tool_input": {"topic": "roadmap"}},
    }
    with recording_comms() as recorder:
        picker = InterruptPicker([interrupt])
    opening = recorder.of(picker).messages[0]
    return len(json.dumps(opening.data).encode())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-build", action="store_true", help="measure the existing bundle")
    args = parser.parse_args()
    if not args.no_build:
        build()
    code = BUNDLE.read_bytes()
    gzipped = len(gzip.compress(code, compresslevel=9))
    remote = re.findall(rb"(?:import|from)\s*\(?\s*[\"'`](?:https?:)?//", code)
    print(f"bundle            {BUNDLE.relative_to(ROOT)}")
    print(f"minified          {len(code) / 1024:6.1f} KB ({len(code)} B)")
    print(
        f"gzipped           {gzipped / 1024:6.1f} KB ({gzipped} B)  "
        f"goal <= {GOAL_GZIPPED // 1024} KB: {gzipped / GOAL_GZIPPED:.2f}x of the budget"
    )
    print(f"remote imports    {len(remote)}")
    opening = opening_message_bytes()
    print(f"picker comm_open  {opening / 1024:6.1f} KB (bundle + state, one widget)")
    ok = gzipped <= GOAL_GZIPPED and not remote
    print("result            " + ("within the goal" if ok else "OVER THE GOAL"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
