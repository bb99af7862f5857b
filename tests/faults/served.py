"""Real `python -m interrupt_widget serve bank:agent` processes for the fault tests."""

from __future__ import annotations

import os
import pathlib

from bank import HOLD_ENV, RUNS_ENV

import serve_process

HERE = pathlib.Path(__file__).parent


def server_env(runs: pathlib.Path, **extra: str) -> dict[str, str]:
    """The environment of a served bank: offline, its runs file, this folder on the path."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in {"OPENAI_API_KEY", "INTERRUPT_WIDGET_SECRET", HOLD_ENV}
    }
    env.update(
        INTERRUPT_WIDGET_MODEL="offline",
        OPENAI_AGENTS_DISABLE_TRACING="1",
        PYTHONPATH=os.pathsep.join([str(HERE), env.get("PYTHONPATH", "")]).rstrip(os.pathsep),
    )
    env[RUNS_ENV] = str(runs)
    env.update(extra)
    return env


class Served(serve_process.Served):
    """One `serve bank:agent` process (see `serve_process.Served`)."""

    def __init__(self, args: list[str], env: dict[str, str], *, port: int | None = None) -> None:
        super().__init__(["bank:agent", *args], env, port=port)
