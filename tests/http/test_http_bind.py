"""Secure by default: `serve` beyond loopback needs a token or a loudly named opt-out."""

from __future__ import annotations

import logging
import subprocess
import sys
from pathlib import Path

import pytest

from interrupt_widget.errors import InsecureBindError
from interrupt_widget.http import asgi_app, serve
from interrupt_widget.http.bind_guard import check_bind, is_loopback
from interrupt_widget.http.cli import main
from interrupt_widget.ledger.memory import MemoryLedger
from interrupt_widget.ledger.sqlite import SQLiteLedger

AGENT = "interrupt_widget.examples:meeting_agent"


@pytest.mark.parametrize("host", ["127.0.0.1", "127.8.9.10", "::1", "[::1]", "localhost"])
def test_loopback_addresses_are_loopback(host: str) -> None:
    assert is_loopback(host)


@pytest.mark.parametrize(
    "host", ["0.0.0.0", "::", "192.168.1.20", "10.0.0.1", "2001:db8::1", "no-such-host.invalid"]
)
def test_other_addresses_and_unresolvable_names_are_not(host: str) -> None:
    assert not is_loopback(host)


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.168.1.20"])
def test_a_public_bind_without_a_token_is_refused(host: str) -> None:
    with pytest.raises(InsecureBindError, match="without a token") as caught:
        check_bind(host, token=None, insecure_no_token=False)
    assert "--insecure-no-token" in str(caught.value)
    check_bind(host, token="a-token", insecure_no_token=False)  # a token is enough
    check_bind("127.0.0.1", token=None, insecure_no_token=False)  # loopback needs none


def test_the_opt_out_serves_without_a_token_and_says_so(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="interrupt_widget.http.bind_guard"):
        check_bind("0.0.0.0", token=None, insecure_no_token=True)
    assert "WITHOUT A TOKEN" in caplog.text
    assert "can approve" in caplog.text


def test_the_serve_function_refuses_before_anything_listens(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from interrupt_widget.examples import meeting_agent

    monkeypatch.setenv("INTERRUPT_WIDGET_MODEL", "offline")
    with pytest.raises(InsecureBindError):
        serve(meeting_agent(), host="0.0.0.0", port=1)


def test_the_command_refuses_a_public_bind_without_a_token_and_exits_2() -> None:
    env_without_token = {"PATH": "/usr/bin:/bin", "INTERRUPT_WIDGET_MODEL": "offline"}
    done = subprocess.run(
        [sys.executable, "-m", "interrupt_widget", "serve", AGENT, "--host", "0.0.0.0"],
        env=env_without_token,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 2
    assert "refusing to serve 0.0.0.0 without a token" in done.stderr
    assert "Traceback" not in done.stderr
    assert "Uvicorn running" not in done.stderr


def test_help_says_a_public_bind_needs_a_token(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["serve", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "--insecure-no-token" in text
    assert "outside the loopback range" in text
    assert "needs --token" in text


def test_a_lasting_secret_with_a_ledger_in_memory_is_warned_about(
    tmp_path: Path, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    from interrupt_widget.examples import meeting_agent

    monkeypatch.setenv("INTERRUPT_WIDGET_MODEL", "offline")
    secret = "a-secret-that-outlives-the-process"
    with caplog.at_level(logging.WARNING, logger="interrupt_widget.http.app"):
        asgi_app(meeting_agent(), secret=secret, ledger=MemoryLedger())
    assert "the same resume runs its call again" in caplog.text

    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="interrupt_widget.http.app"):
        asgi_app(meeting_agent(), secret=secret, ledger=SQLiteLedger(tmp_path / "ledger.db"))
        asgi_app(meeting_agent(), ledger=MemoryLedger())  # a random secret: nothing survives
    assert "the same resume runs its call again" not in caplog.text
