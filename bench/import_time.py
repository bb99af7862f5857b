"""What the kit adds to `import agents`, the SDK it builds on.

`import interrupt_widget` alone loads none of the kit's SDK side: each public name loads its
module when first used. So the kit's side here is what a script or a worker uses: `from
interrupt_widget import AgentBatch, OfflineModel, OpenAIAgentsAdapter, Policy` (`SCRIPT`).

Each side runs in a fresh interpreter, alternating: `import agents` alone, and `import
agents` then `SCRIPT`; each times its imports in the process (the
interpreter's own start-up is the same on both sides and left out). Both read compiled
bytecode, as an installed package does: the runs keep it in a temporary folder of their own
(`PYTHONPYCACHEPREFIX`, even where `PYTHONDONTWRITEBYTECODE` is set), filled by one run of
each side that is not counted. What the kit adds is timed in the second side's own process
(`SCRIPT` once `import agents` is done), its median over the runs; beside it,
the difference between the two sides' medians and their ratio, which a loaded machine's
spread from one interpreter to the next blurs far more. Goal: the kit adds at most 0.3 s (it
added about 2 s under load when importing `jsonschema` built its format checkers' grammar with
the kit).

The widgets (anywidget, ipywidgets, IPython) and the HTTP side load when first used, so a
worker or a served agent never imports them. A notebook does, in a kernel that has IPython
loaded already: the second figure is `from interrupt_widget import AgentChat` there (IPython
and ipywidgets imported before the clock starts, on both sides).

For where the time goes:
`python -X importtime -c "from interrupt_widget import OpenAIAgentsAdapter"`.

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
SCRIPT = "from interrupt_widget import AgentBatch, OfflineModel, OpenAIAgentsAdapter, Policy"
"""What a script or a worker imports of the kit (`import interrupt_widget` alone loads none)."""

_TIMED = """
import time
{before}
started = time.perf_counter()
import agents
between = time.perf_counter()
{more}
print(between - started, time.perf_counter() - between)
"""


_FIRST_ANSWER = """
import time
from ag_ui.core import Interrupt
from interrupt_widget.asking.open_questions import OpenQuestions
schema = {{"type": "object", "properties": {{"approved": {{"type": "boolean"}}}}}}
asked = Interrupt(id="a", reason="tool_call", tool_call_id="c", response_schema=schema)
questions = OpenQuestions([asked])
time.sleep({reading})
started = time.perf_counter()
questions.answer("a", "resolved", {{"approved": True}}, by="user")
print(time.perf_counter() - started)
"""
READING_S = 2.0
"""How long the person reads the question before the first answer (a quick one: 2 s)."""


def first_answer_takes(reading: float, pycache: str) -> float:
    """Seconds the first answer of a fresh interpreter takes, given `reading` s after the ask:
    its check imports `jsonschema` (over a second) unless the ask's warm-up has done so."""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "PYTHONPYCACHEPREFIX": pycache}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    done = subprocess.run(
        [sys.executable, "-c", _FIRST_ANSWER.format(reading=reading)],
        check=True,
        capture_output=True,
        text=True,
        env=env,
    )
    return float(done.stdout.strip().splitlines()[-1])


_SERVER = """
import time
def held():  # this process's resident memory, in MB
    return int(open("/proc/self/status").read().split("VmRSS:")[1].split()[0]) / 1024
memory, started = held(), time.process_time()
import jupyter_server.serverapp, jupyterlab
server, server_memory = time.process_time() - started, held() - memory
memory, started = held(), time.process_time()
import interrupt_widget.lab.server_extension
print(server, server_memory, time.process_time() - started, held() - memory)
"""


def server_extension_takes(pycache: str) -> tuple[float, float, float, float]:
    """What a Jupyter server's imports take (CPU seconds, MB held), then what the kit's server
    extension adds to them, in a fresh interpreter: every person's server loads it."""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "PYTHONPYCACHEPREFIX": pycache}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    done = subprocess.run(
        [sys.executable, "-c", _SERVER], check=True, capture_output=True, text=True, env=env
    )
    server, server_mb, kit, kit_mb = map(float, done.stdout.split())
    return server, server_mb, kit, kit_mb


IN_A_KERNEL = "import IPython, ipywidgets"
"""What a notebook's kernel has imported before its first cell runs (as far as the kit cares)."""


def imports_take(more: str, pycache: str, before: str = "") -> tuple[float, float]:
    """Seconds a fresh interpreter spends importing agents, then `more` (once `before` is
    imported, untimed); its bytecode kept in `pycache`."""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "PYTHONPYCACHEPREFIX": pycache}
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    done = subprocess.run(
        [sys.executable, "-c", _TIMED.format(before=before, more=more)],
        check=True,
        capture_output=True,
        text=True,
        env=env,
    )
    agents, then = done.stdout.strip().splitlines()[-1].split()
    return float(agents), float(then)


def _spread(values: list[float]) -> str:
    return f"{statistics.median(values):.3f} s (runs {min(values):.3f}-{max(values):.3f})"


def main(runs: int) -> None:
    alone: list[float] = []
    with_kit: list[float] = []
    kit_part: list[float] = []
    in_kernel: list[float] = []
    chat = "from interrupt_widget import AgentChat"
    with tempfile.TemporaryDirectory() as pycache:
        imports_take(chat, pycache)  # compiles both sides' modules
        for _ in range(runs):
            alone.append(imports_take("", pycache)[0])
            agents, kit = imports_take(SCRIPT, pycache)
            with_kit.append(agents + kit)
            kit_part.append(kit)
            in_kernel.append(imports_take(chat, pycache, before=IN_A_KERNEL)[1])
        server_extension_takes(pycache)  # compiles the server's modules
        servers = [server_extension_takes(pycache) for _ in range(max(runs // 3, 1))]
        first_runs = max(runs // 3, 1)
        read_first = [first_answer_takes(READING_S, pycache) for _ in range(first_runs)]
        at_once = [first_answer_takes(0, pycache) for _ in range(first_runs)]
    base, total = statistics.median(alone), statistics.median(with_kit)
    added = statistics.median(kit_part)
    print(f"import agents alone: {_spread(alone)}")
    print(f"import agents, then {SCRIPT}: {_spread(with_kit)}")
    print(
        f"the kit adds {added:.3f} s, timed in its own process (runs {min(kit_part):.3f}-"
        f"{max(kit_part):.3f}); {total - base:.3f} s between the sides' medians, ratio "
        f"{total / base:.2f}x ({runs} runs a side, medians)"
    )
    print(f"in a kernel (IPython loaded), {chat} adds {_spread(in_kernel)}")
    print(
        f"the first answer's check, {READING_S:.0f} s after the question: {_spread(read_first)}; "
        f"answered at once (jsonschema imported then): {_spread(at_once)}"
    )
    server_s, server_mb, kit_s, kit_mb = (statistics.median(v) for v in zip(*servers, strict=True))
    print(
        f"a Jupyter server's imports (jupyter_server, jupyterlab): {server_s:.3f} s CPU, "
        f"{server_mb:.0f} MB; the kit's server extension adds {kit_s:.3f} s "
        f"({kit_s / server_s:.2f}x) and {kit_mb:.0f} MB ({kit_mb / server_mb:.2f}x), "
        f"medians of {len(servers)} runs"
    )
    if added > GOAL_ADDED_S:
        print(f"goal not met: the kit adds {added:.3f} s (goal <= {GOAL_ADDED_S} s)")
    if statistics.median(in_kernel) > GOAL_ADDED_S:
        print(f"goal not met: in a kernel, {chat} adds {statistics.median(in_kernel):.3f} s")


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--quick", action="store_true", help=QUICK_HELP)
    args = parser.parse_args()
    main(1 if args.quick else args.runs)
