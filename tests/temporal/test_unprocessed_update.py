"""An update the server rejects as processed by no worker is sent again; nothing else is.

The server rejects an update this way when the worker that completed the update's workflow
task did not take it: seen when the queue's only worker was killed with the workflow in its
cache and a new worker took the task over (tests/faults/test_temporal_workers.py). The update
was never applied, so sending it again, with the same id, is safe; any other failure is the
run's own and ends it as before.
"""

from __future__ import annotations

import pytest

pytest.importorskip("temporalio")

from ag_ui.core import RunAgentInput, UserMessage
from temporalio.client import WorkflowUpdateFailedError
from temporalio.exceptions import ApplicationError

from interrupt_widget.errors import ErrorCode
from interrupt_widget.temporal.agent import (
    UNPROCESSED_TRIES,
    UNPROCESSED_UPDATE,
    TemporalAgent,
    _sent_until_processed,
)

UNPROCESSED = ApplicationError(
    "Workflow Update is rejected because it wasn't processed by worker. Probably, Workflow "
    "Update is not supported by the worker.",
    type=UNPROCESSED_UPDATE,
    non_retryable=True,
)


class Server:
    """Rejects the first `rejections` sends with `failure`, then answers with the events."""

    def __init__(self, rejections: int, failure: BaseException) -> None:
        self.rejections, self.failure, self.sends = rejections, failure, 0

    async def send(self) -> list[str]:
        self.sends += 1
        if self.sends <= self.rejections:
            raise WorkflowUpdateFailedError(self.failure)
        return ["RUN_FINISHED"]


async def test_an_update_no_worker_processed_is_sent_again_until_one_does() -> None:
    server = Server(rejections=2, failure=UNPROCESSED)
    assert await _sent_until_processed(server.send) == ["RUN_FINISHED"]
    assert server.sends == 3


async def test_it_is_sent_a_bounded_number_of_times() -> None:
    server = Server(rejections=UNPROCESSED_TRIES, failure=UNPROCESSED)
    with pytest.raises(WorkflowUpdateFailedError) as raised:
        await _sent_until_processed(server.send)
    assert raised.value.cause is UNPROCESSED
    assert server.sends == UNPROCESSED_TRIES


@pytest.mark.parametrize(
    "failure",
    [
        ApplicationError("the answer does not fit", type="INVALID_ANSWER"),
        ApplicationError("no type"),
        RuntimeError("not an application error"),
    ],
    ids=["refusal", "untyped", "other"],
)
async def test_any_other_failure_is_the_runs_own_and_never_sent_again(
    failure: BaseException,
) -> None:
    server = Server(rejections=1, failure=failure)
    with pytest.raises(WorkflowUpdateFailedError):
        await _sent_until_processed(server.send)
    assert server.sends == 1


async def test_an_update_never_processed_ends_the_run_saying_which_workers_to_look_at(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    agent = TemporalAgent("127.0.0.1:1", agent="payments:agent", task_queue="pay-q")
    server = Server(rejections=UNPROCESSED_TRIES, failure=UNPROCESSED)
    monkeypatch.setattr(agent, "_send", lambda _input, _stopped: server.send())
    ask = RunAgentInput(
        thread_id="t", run_id="r1", state={}, messages=[UserMessage(id="u", content="pay")],
        tools=[], context=[], forwarded_props={},
    )  # fmt: skip
    events = await agent._outcome(ask, lambda: False)
    assert server.sends == UNPROCESSED_TRIES
    assert [e["type"] for e in events] == ["RUN_STARTED", "RUN_ERROR"]
    assert events[1]["code"] == ErrorCode.NO_WORKER
    said = events[1]["message"]
    assert "'pay-q'" in said
    assert "nothing ran" in said
    assert "python -m interrupt_widget worker payments:agent" in said
    assert "not supported" not in said  # Temporal's own words blame the worker's version
