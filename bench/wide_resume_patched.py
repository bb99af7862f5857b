"""The wide resume on the released Agents SDK and on the SDK with the upstream patch.

`patches/openai-agents-linear-approve.patch` makes `RunState.approve`/`reject` take each
pending call's identity once instead of copying and fingerprinting every pending call for
every approval. This bench copies the installed `agents` package into a temporary
directory, applies the patch there with `patch -p1` (no network, nothing installed), and
runs `bench/wide_resume.py`'s two sides in two subprocesses, one with the released package
and one with the patched copy first on `sys.path`:

- the raw SDK: `RunState.approve` for each of `--calls` interruptions (CPU and wall clock),
  then the resumed run; also at the smaller `--sizes`, to show how `approve` grows;
- the kit: `OpenAIAgentsAdapter` with the default SQLite ledger, one resume approving every
  call, timed from its start to its end, with `wide_resume.py`'s stack sampler saying where
  the time went (the SDK's `approve`, the ledger's synced writes, the rest); then the same
  with the memory ledger, which syncs nothing, to show what the disk adds.

Both sides count every approved call run once. Prints the figures side by side, the
ratio, and whether the goal (200 calls in one resume <= 2 s) is met with the patched SDK.
`--kit-tests` also runs the kit's approval and agent-as-tool tests on the patched SDK and
prints their counts.

Run: .venv/bin/python bench/wide_resume_patched.py [--calls 200] [--sizes 50,100]
     [--kit-tests] [--quick]
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from importlib.metadata import version
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PATCH = ROOT / "patches" / "openai-agents-linear-approve.patch"
GOAL_S = 2.0
"""A resume answering 200 parallel calls: at most this many seconds (wall clock)."""

APPROVAL_WORDS = re.compile(r"needs_approval|as_tool|nested")
"""What marks one of the kit's tests about approvals and agents used as tools."""


def approval_tests() -> tuple[list[str], list[str]]:
    """The kit's test files about approvals (`needs_approval`, `as_tool`, nested approvals),
    and those left out: the browser tests, the patch's own test (it runs both SDKs itself),
    and the pinned AG-UI client's when that client is not installed."""
    chosen: list[str] = []
    left_out: list[str] = []
    client = ROOT / "tests" / "agui_client" / "node_modules" / "@ag-ui" / "client"
    for path in sorted((ROOT / "tests").rglob("test_*.py")):
        name = str(path.relative_to(ROOT))
        if not APPROVAL_WORDS.search(path.read_text(encoding="utf-8")):
            continue
        if "e2e" in path.parts or path.name == "test_sdk_patch.py":
            left_out.append(name)
        elif "agui_client" in path.read_text(encoding="utf-8") and not client.is_dir():
            left_out.append(name + " (needs npm ci --prefix tests/agui_client)")
        else:
            chosen.append(name)
    return chosen, left_out


def patched_sdk(folder: Path) -> Path:
    """A directory holding a copy of the installed `agents` package with the patch applied.

    Raises `RuntimeError` naming what failed when `patch` is missing or does not apply.
    """
    spec = importlib.util.find_spec("agents")  # found, not imported: the parent stays light
    if spec is None or spec.origin is None:
        raise RuntimeError("openai-agents is not installed")
    site = folder / "patched-site"
    shutil.copytree(
        Path(spec.origin).parent,
        site / "agents",
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    if shutil.which("patch") is None:
        raise RuntimeError("the `patch` tool is not installed: apt-get install patch")
    applied = subprocess.run(
        ["patch", "-p1", "--batch", "--forward", "-d", str(site), "-i", str(PATCH)],
        capture_output=True,
        text=True,
    )
    if applied.returncode != 0:
        raise RuntimeError(
            f"{PATCH.name} does not apply to openai-agents {version('openai-agents')} "
            f"(it is made for 0.24.0):\n{applied.stdout}{applied.stderr}"
        )
    return site


def child_env(site: Path | None) -> dict[str, str]:
    """The environment of a subprocess: `site` (the patched copy) first on its path."""
    env = dict(os.environ)
    paths = [str(ROOT / "src"), env.get("PYTHONPATH", "")]
    if site is not None:
        paths.insert(0, str(site))
    env["PYTHONPATH"] = os.pathsep.join(p for p in paths if p)
    env["OPENAI_AGENTS_DISABLE_TRACING"] = "1"
    return env


def start_side(site: Path | None, calls: int, sizes: list[int]) -> subprocess.Popen[str]:
    """One side's measurement, started in a subprocess with its own SDK."""
    command = [sys.executable, __file__, "--child", "--calls", str(calls)]
    command += ["--sizes", ",".join(map(str, sizes))]
    if site is not None:
        command += ["--expect-sdk", str(site / "agents")]
    return subprocess.Popen(
        command, env=child_env(site), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )


def side_figures(side: subprocess.Popen[str], name: str) -> dict[str, Any]:
    """What a side measured, once it is done."""
    out, err = side.communicate()
    if side.returncode != 0:
        raise RuntimeError(f"the {name} side failed:\n{err}")
    found: dict[str, Any] = json.loads(out.strip().splitlines()[-1])
    return found


async def measure(calls: int, sizes: list[int], expect_sdk: str | None) -> dict[str, Any]:
    """In the subprocess: the raw SDK at each size, then the kit's resume at `calls`."""
    import agents
    from agents import set_tracing_disabled

    from wide_resume import kit_resume, sdk_resume

    where = str(Path(agents.__file__).parent)
    if expect_sdk is not None and where != expect_sdk:
        raise RuntimeError(f"expected the patched SDK at {expect_sdk}, imported {where}")
    set_tracing_disabled(True)
    await sdk_resume(3)  # warm up the SDK, the model and the kit's imports
    sdk: dict[str, list[float]] = {}
    for n in sorted({*sizes, calls}):
        sdk[str(n)] = list(await sdk_resume(n))
    with tempfile.TemporaryDirectory() as folder:
        wall, cpu, sampler = await kit_resume(calls, Path(folder), 0.005)
        in_memory = await kit_resume(calls, Path(folder), 0.005, in_memory=True)
    samples = sum(sampler.counts.values()) or 1
    return {
        "sdk": sdk,
        "kit": [wall, cpu],
        "kit_in_memory": list(in_memory[:2]),
        "where": {k: v * wall / samples for k, v in sampler.counts.most_common()},
        "workers": {k: v * wall / samples for k, v in sampler.in_workers.items()},
    }


def kit_tests(site: Path) -> str:
    """The kit's approval tests run on the patched SDK: pytest's summary line."""
    chosen, left_out = approval_tests()
    print(f"the kit's approval tests: {len(chosen)} files; left out: {', '.join(left_out)}")
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *chosen]
    done = subprocess.run(command, env=child_env(site), cwd=ROOT, capture_output=True, text=True)
    summary = done.stdout.strip().splitlines()[-1] if done.stdout.strip() else done.stderr
    if done.returncode != 0:
        raise RuntimeError(f"the kit's approval tests fail on the patched SDK:\n{done.stdout}")
    return summary


def report(calls: int, released: dict[str, Any], patched: dict[str, Any]) -> None:
    print("RunState.approve for n parallel calls (raw SDK, cpu; wall in brackets):")
    print("      n   released: all n     per call    patched: all n     per call   ratio")
    for n in released["sdk"]:
        before, after = released["sdk"][n], patched["sdk"][n]
        print(
            f"  {n:>5}  {before[2]:8.2f} s ({before[0]:6.2f})  {before[2] / int(n) * 1e3:7.2f} ms"
            f"  {after[2]:8.3f} s ({after[0]:6.3f})  {after[2] / int(n) * 1e3:7.2f} ms"
            f"  {before[2] / max(after[2], 1e-9):6.1f}x"
        )
    b, a = released["sdk"][str(calls)], patched["sdk"][str(calls)]
    print(
        f"raw SDK, {calls} calls, approvals + resumed run: released {b[0] + b[1]:.2f} s wall, "
        f"patched {a[0] + a[1]:.2f} s wall (resumed run alone {b[1]:.2f} / {a[1]:.2f} s)"
    )
    (kit_b, cpu_b), (kit_a, cpu_a) = released["kit"], patched["kit"]
    print(f"kit, SQLite ledger, one resume answering {calls} calls:")
    print(f"  released SDK {kit_b:8.2f} s wall ({cpu_b:.2f} s cpu)")
    print(f"  patched SDK  {kit_a:8.2f} s wall ({cpu_a:.2f} s cpu)   {kit_b / kit_a:.1f}x faster")
    (mem_b, mem_cpu_b), (mem_a, mem_cpu_a) = released["kit_in_memory"], patched["kit_in_memory"]
    print(f"kit, memory ledger (no disk), the same resume: released SDK {mem_b:.2f} s wall")
    print(f"  ({mem_cpu_b:.2f} s cpu), patched SDK {mem_a:.2f} s wall ({mem_cpu_a:.2f} s cpu)")
    print(f"  so the SQLite ledger adds {kit_a - mem_a:.2f} s wall to the patched side's resume")
    print("  where the patched side's resume went (sampled every 5 ms):")
    for where, seconds in patched["where"].items():
        print(f"    {seconds:7.2f} s  {where}")
    for where, seconds in patched["workers"].items():
        print(f"    meanwhile in worker threads: {seconds:.2f} s  {where}")
    if calls != 200:
        print(f"goal not judged: it is for 200 calls (<= {GOAL_S:g} s), this run answered {calls}")
    elif kit_a <= GOAL_S:
        print(f"goal met with the patched SDK: 200 calls in one resume in {kit_a:.2f} s")
    else:
        print(
            f"goal not met with the patched SDK: 200 calls in one resume in {kit_a:.2f} s "
            f"(<= {GOAL_S:g} s; released SDK {kit_b:.2f} s)"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--sizes", default="50,100", help="more sizes for approve's growth")
    parser.add_argument("--kit-tests", action="store_true", help="run the kit's approval tests")
    parser.add_argument("--quick", action="store_true", help="ten calls: the bench runs")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--expect-sdk", help=argparse.SUPPRESS)
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",") if s]
    if args.quick:
        args.calls, sizes = 10, [5]
    if args.child:
        figures = asyncio.run(measure(args.calls, sizes, args.expect_sdk))
        print(json.dumps(figures))
        return
    with tempfile.TemporaryDirectory() as folder:
        site = patched_sdk(Path(folder))
        if args.quick:  # both at once: the figures mean nothing, the run must stay short
            sides = start_side(None, args.calls, sizes), start_side(site, args.calls, sizes)
            released = side_figures(sides[0], "released")
            patched = side_figures(sides[1], "patched")
        else:  # one after the other, so neither side's figures pay for the other's
            released = side_figures(start_side(None, args.calls, sizes), "released")
            patched = side_figures(start_side(site, args.calls, sizes), "patched")
        report(args.calls, released, patched)
        if args.kit_tests:
            print(f"the kit's approval tests on the patched SDK: {kit_tests(site)}")


if __name__ == "__main__":
    main()
