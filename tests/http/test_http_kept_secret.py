"""`serve` without a secret keeps the one it makes, so an interrupt open at a restart is
answered after it; a server started with another secret says so instead of "changed"."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
from ag_ui.core import RunErrorEvent, RunFinishedEvent

from interrupt_widget.errors import FingerprintSecretError
from interrupt_widget.http.default_secret import kept_secret
from serve_process import Served, events_of, paused_invoice, write_agent_module

SECRET_A = "the-first-secret-of-enough-length-0123"
SECRET_B = "a-second-secret-of-enough-length-4567"


@pytest.fixture
def env(tmp_path: Path) -> dict[str, str]:
    environment = {
        k: v
        for k, v in os.environ.items()
        if k not in {"OPENAI_API_KEY", "INTERRUPT_WIDGET_SECRET"}
    }
    environment.update(
        OPENAI_AGENTS_DISABLE_TRACING="1",
        RUNS_FILE=str(tmp_path / "runs.txt"),
        XDG_STATE_HOME=str(tmp_path / "state"),
        PYTHONPATH=os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")]),
    )
    return environment


@pytest.fixture
def target(tmp_path: Path) -> str:
    return write_agent_module(tmp_path)


@pytest.fixture
def started() -> Iterator[list[Served]]:
    servers: list[Served] = []
    yield servers
    for server in servers:
        server.stop()


def _runs(tmp_path: Path) -> int:
    runs = tmp_path / "runs.txt"
    return len(runs.read_text().splitlines()) if runs.exists() else 0


async def test_an_interrupt_open_at_a_restart_is_answered_after_it(
    env: dict[str, str], target: str, tmp_path: Path, started: list[Served]
) -> None:
    first = Served([target], env)
    started.append(first)
    first.wait_ready()
    resume = await paused_invoice(first.url)
    first.stop()

    kept = tmp_path / "state" / "interrupt-widget" / "secret"
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600
    assert stat.S_IMODE(kept.parent.stat().st_mode) == 0o700
    made = kept.read_text()

    second = Served([target], env)
    started.append(second)
    second.wait_ready()
    events = await events_of(second.url, resume)
    assert not [e for e in events if isinstance(e, RunErrorEvent)], events[-1]
    assert isinstance(events[-1], RunFinishedEvent)
    assert _runs(tmp_path) == 1
    assert kept.read_text() == made  # read back, not made again


async def test_a_restart_with_another_secret_says_so(
    env: dict[str, str], target: str, tmp_path: Path, started: list[Served]
) -> None:
    (tmp_path / "a").write_text(SECRET_A)
    (tmp_path / "b").write_text(SECRET_B)
    first = Served([target, "--secret-file", str(tmp_path / "a")], env)
    started.append(first)
    first.wait_ready()
    resume = await paused_invoice(first.url)
    first.stop()

    second = Served([target, "--secret-file", str(tmp_path / "b")], env)
    started.append(second)
    second.wait_ready()
    [error] = [e for e in await events_of(second.url, resume) if isinstance(e, RunErrorEvent)]
    assert error.code == "fingerprint_other_secret"
    assert "restarted with a new secret" in error.message
    assert _runs(tmp_path) == 0
    assert not (tmp_path / "state" / "interrupt-widget" / "secret").exists()  # one was given


def test_a_kept_secret_readable_by_others_is_made_private_and_a_bad_one_refused(
    tmp_path: Path,
) -> None:
    path = tmp_path / "secret"
    made = kept_secret(path)
    os.chmod(path, 0o644)
    assert kept_secret(path) == made
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    path.write_text("short")
    with pytest.raises(FingerprintSecretError, match="unusable"):
        kept_secret(path)
