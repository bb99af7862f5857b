"""The conversation's workflow in Temporal's sandbox (`build_worker(..., sandboxed=True)`):
the same cases as on the default runner, run again with the sandbox checking that the
workflow's code touches nothing non-deterministic (the clock, randomness, files, threads).
The libraries it uses are passed through; the kit's own modules are imported afresh."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

pytest.importorskip("temporalio")

from temporalio.client import Client
from test_temporal_agent import (
    test_a_bad_answer_is_refused_before_history_and_the_question_stays_open,
    test_a_call_needing_two_people_runs_once_on_the_second_approval_not_the_first,
    test_an_approved_call_runs_once_on_the_worker_and_a_repeated_answer_is_the_same,
    test_an_expired_question_is_cancelled_by_the_workflow_timer,
)

from interrupt_widget.temporal.dev_server import DevServer
from temporal_agents import EXPIRING, FOUR_EYES, PAYMENTS, worker_on_fresh_queue

__all__ = [
    "test_a_bad_answer_is_refused_before_history_and_the_question_stays_open",
    "test_a_call_needing_two_people_runs_once_on_the_second_approval_not_the_first",
    "test_an_approved_call_runs_once_on_the_worker_and_a_repeated_answer_is_the_same",
    "test_an_expired_question_is_cancelled_by_the_workflow_timer",
]


@pytest.fixture
async def served(temporal_server: DevServer) -> AsyncIterator[tuple[Client, str]]:
    """A client and a task queue with one sandboxed worker serving the test agents."""
    agents = (PAYMENTS, EXPIRING, FOUR_EYES)
    async with worker_on_fresh_queue(temporal_server, agents, sandboxed=True) as served:
        yield served
