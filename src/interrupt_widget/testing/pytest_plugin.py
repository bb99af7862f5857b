"""The kit's pytest plugin: `--cassette-mode` sets the mode of every `Cassette` in a run.

    pytest --cassette-mode=none --nbval-lax --nbval-current-env notebooks/

It sets `INTERRUPT_WIDGET_CASSETTE_MODE` for the test process and everything it starts
(nbval's kernels inherit it), so `none` makes a whole run replay only, failing fast on
any model call its cassettes lack, and `all` records every cassette anew.
"""

from __future__ import annotations

import os

import pytest

from interrupt_widget.sdk.cassette import CASSETTE_MODE_ENV, MODES

__all__ = ["pytest_addoption", "pytest_configure"]


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.getgroup("interrupt-widget").addoption(
        "--cassette-mode",
        default=None,
        metavar="MODE",
        help="mode of every interrupt_widget Cassette in this run: once, none (replay only), "
        "new_episodes or all (record anew); sets INTERRUPT_WIDGET_CASSETTE_MODE",
    )


def pytest_configure(config: pytest.Config) -> None:
    mode = config.getoption("--cassette-mode")
    if mode is None:
        return
    if mode not in MODES:
        raise pytest.UsageError(f"--cassette-mode={mode}: use one of {', '.join(MODES)}")
    os.environ[CASSETTE_MODE_ENV] = mode
