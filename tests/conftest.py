"""Shared fixtures. Every test is offline: the SDK's trace exporter stays off."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

import pytest
from ag_ui.core import BaseEvent, RunAgentInput
from agents import set_tracing_disabled

from interrupt_widget.adapter import OpenAIAgentsAdapter
from interrupt_widget.testing.stream_rules import assert_valid_stream

set_tracing_disabled(True)

Collect = Callable[[OpenAIAgentsAdapter, RunAgentInput], Awaitable[list[BaseEvent]]]


@pytest.fixture
def collect() -> Collect:
    """Run the adapter to the end; check the stream three ways before returning it."""

    async def run(adapter: OpenAIAgentsAdapter, request: RunAgentInput) -> list[BaseEvent]:
        events = [event async for event in adapter.run(request)]
        assert_valid_stream(events)
        return events

    return run
