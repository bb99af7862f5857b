"""`patches/openai-agents-linear-approve.patch` applies to the installed SDK and changes no
approval outcome: the same scenarios (`tests/sdk_patch_scenarios.py`) run on the released
package and on a patched copy, and every answer, real run, refusal and error is the same."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import agents
import pytest

ROOT = Path(__file__).resolve().parent.parent
PATCH = ROOT / "patches" / "openai-agents-linear-approve.patch"
SCENARIOS = ROOT / "tests" / "sdk_patch_scenarios.py"

pytestmark = pytest.mark.skipif(
    agents.__version__ != "0.24.0",
    reason=f"the patch is made for openai-agents 0.24.0, this is {agents.__version__}",
)


def patched_copy(folder: Path) -> Path:
    """A copy of the installed `agents` package with the patch applied, in `folder`."""
    assert shutil.which("patch"), "Debian's `patch` is missing: run scripts/ensure-patch"
    shutil.copytree(
        Path(agents.__file__).parent,
        folder / "agents",
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    command = ["patch", "-p1", "--batch", "--forward", "-d", str(folder), "-i", str(PATCH)]
    applied = subprocess.run(command, capture_output=True, text=True)
    assert applied.returncode == 0, applied.stdout + applied.stderr
    return folder


def start(site: Path | None, journals: Path) -> subprocess.Popen[str]:
    """The scenarios, started in a subprocess with `site` (if any) first on its path."""
    journals.mkdir()
    paths = [str(ROOT / "src"), os.environ.get("PYTHONPATH", "")]
    if site is not None:
        paths.insert(0, str(site))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in paths if p)}
    return subprocess.Popen(
        [sys.executable, str(SCENARIOS), str(journals)],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def outcomes(scenarios: subprocess.Popen[str]) -> dict[str, Any]:
    """What the scenarios printed, once they are done."""
    out, err = scenarios.communicate(timeout=120)
    assert scenarios.returncode == 0, err
    found: dict[str, Any] = json.loads(out.strip().splitlines()[-1])
    return found


def test_the_patched_sdk_answers_approvals_as_the_released_one(tmp_path: Path) -> None:
    site = patched_copy(tmp_path / "site")
    both = start(None, tmp_path / "released"), start(site, tmp_path / "patched")
    released, patched = outcomes(both[0]), outcomes(both[1])

    assert patched.pop("sdk") == str(site / "agents")
    assert released.pop("sdk") == str(Path(agents.__file__).parent)
    assert patched == released
    every = [f"a{n}" for n in range(12)]
    assert sorted(a for a, _ in patched["approve_all_copies"]["ran"]) == sorted(every)
    assert [a for a, _ in patched["approve_even_reject_odd"]["ran"]] == sorted(every[::2])
    # the call changed after it was compared never runs (the SDK refuses the resume)
    assert patched["changed_in_place"] == {
        "error": "ModelBehaviorError",
        "waiting": None,
        "ran": [],
    }
    assert "multiple current pending approvals" in patched["duplicate_made_in_place"]["refused"]
    assert "Cannot apply approval" in patched["uncopyable_in_place"]["refused"]
    assert patched["nested_agent_tool"] == {"error": None, "waiting": [], "ran": [["bob", 5.0]]}
