"""What `import interrupt_widget` adds to `import agents`, the SDK it builds on.

Each side runs in a fresh interpreter, alternating: `import agents` alone, and `import
agents` then `import interrupt_widget`; each times its imports in the process (the
interpreter's own start-up is the same on both sides and left out). Both read compiled
bytecode, as an installed package does: the runs keep it in a temporary folder of their own
(`PYTHONPYCACHEPREFIX`, even where `PYTHONDONTWRITEBYTECODE` is set), filled by one run of
each side that is not counted. The figure is the
median of each side over the runs, their difference (what the kit adds) and its ratio.
Goal: the kit adds at most 0.3 s (it added about 2 s under load when importing
`jsonschema` built its format checkers' grammar with the kit).

For where the time goes: `python -X importtime -c "import interrupt_widget"`.

Run: .venv/bin/python bench/import_time.py [--runs 9] [--quick]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

QUICK_HELP = "the smallest sizes: check that the bench runs (make bench-smoke), not a figure"

ROOT = Path(__file__).resolve().parent.parent
GOAL_ADDED_S = 0.3

_TIMED = """
import time
started = time.perf_counter()
import agents
{more}
print(time.perf_counter() - started)
"""


def imports_take(more: str, pycache: str) -> float:
    """Seconds a fresh interpreter spends importing agents (and `more`), its bytecode
    kept in `pycache`."""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "PYTHONPYCACHEPREFIX": pycache}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    done = subprocess.run(
        [sys.executable, "-c", _TIMED.format(more=more)],
        check=True,
        capture_output=True,
        text=True,
        env=env,
    )
    return float(done.stdout.strip().splitlines()[-1])


def main(runs: int) -> None:
    alone: list[float] = []
    with_kit: list[float] = []
    with tempfile.TemporaryDirectory() as pycache:
        imports_take("import interrupt_widget", pycache)  # compiles both sides' modules
        for _ in range(runs):
            alone.append(imports_take("", pycache))
            with_kit.append(imports_take("import interrupt_widget", pycache))
    base = statistics.median(alone)
    kit = statistics.median(with_kit)
    added = kit - base
    print(
        f"import agents: {base:.3f} s (runs {min(alone):.3f}-{max(alone):.3f}); "
        f"+ import interrupt_widget: {kit:.3f} s (runs {min(with_kit):.3f}-{max(with_kit):.3f})"
    )
    print(f"the kit adds {added:.3f} s, ratio {kit / base:.2f}x ({runs} runs a side, medians)")
    if added > GOAL_ADDED_S:
        print(f"goal not met: the kit adds {added:.3f} s (goal <= {GOAL_ADDED_S} s)")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--quick", action="store_true", help=QUICK_HELP)
    args = parser.parse_args()
    main(1 if args.quick else args.runs)
