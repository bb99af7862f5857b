"""Whether a run sent to a workflow is waiting for a worker that does not come.

The check before a run is sent (`preflight.require_worker`) trusts the task queue's list
of pollers, and Temporal keeps a dead worker's pollers on that list for minutes. A run
sent then waits: its workflow task (or its activity, retried once its worker died) stays
scheduled and nobody starts it. Nothing on Temporal fails, so the watch looks: what of
the run's workflow waits, scheduled and not started, and whether that same thing still
waits `wait` seconds later. It compares what the server says with what it said before,
never the server's clock with this machine's.
"""

from __future__ import annotations

import asyncio
import enum
from typing import Final

from temporalio.api.enums.v1 import PendingActivityState, PendingWorkflowTaskState
from temporalio.client import Client
from temporalio.service import RPCError

LOOK_EVERY: Final = 1.0
"""Seconds between two looks at the workflow (each is one `DescribeWorkflowExecution`)."""
STOP_GRACE: Final = 2.0
"""Seconds a stopped run waiting for a worker is given to end itself before the client ends
it: a live worker takes the Stop in a third of a second."""

_SCHEDULED_TASK = PendingWorkflowTaskState.PENDING_WORKFLOW_TASK_STATE_SCHEDULED
_SCHEDULED_ACTIVITY = PendingActivityState.PENDING_ACTIVITY_STATE_SCHEDULED

Mark = tuple[tuple[str, str, int], ...]
"""What of a workflow waits for a worker: (kind, which, attempt) each."""


class Verdict(enum.Enum):
    GOING = "going"
    """Nothing waits for a worker long enough to say so."""
    TELL = "tell"
    """The same thing has waited `wait` seconds: the person is told (once per thing)."""
    END = "end"
    """Stopped, and it still waits: the client ends the run (the workflow holds the Stop)."""


class WorkerWatch:
    """Looks at the workflow `workflow_id` while one run of it is awaited (see the module)."""

    def __init__(self, client: Client, workflow_id: str, wait: float) -> None:
        self._client, self._workflow_id, self.wait = client, workflow_id, wait
        self._mark: Mark = ()
        self._since = 0.0
        self._told: Mark = ()
        self._looked = float("-inf")
        self._moved_at = asyncio.get_running_loop().time()
        self._stopped_at: float | None = None

    @property
    def waited(self) -> float:
        """How long the thing that waits now has waited, as far as the watch has seen."""
        return asyncio.get_running_loop().time() - self._since if self._mark else 0.0

    async def look(self, *, stopped: bool, moved: bool) -> Verdict:
        """What to do now: `stopped` whether the person stopped the run, `moved` whether
        its events moved on since the last look."""
        now = asyncio.get_running_loop().time()
        if stopped and self._stopped_at is None:
            self._stopped_at = now
        if moved:
            self._mark, self._moved_at = (), now
        # A run that says things is taken: looked at only once it has been quiet a while.
        if now - self._moved_at < LOOK_EVERY or now - self._looked < LOOK_EVERY:
            return Verdict.GOING
        self._looked = now
        mark = await self._waiting()
        if mark != self._mark:
            self._mark, self._since = mark, now
            return Verdict.GOING
        if not mark:
            return Verdict.GOING
        if self._stopped_at is not None and now - max(self._since, self._stopped_at) >= min(
            STOP_GRACE, self.wait
        ):
            return Verdict.END
        if now - self._since >= self.wait and mark != self._told:
            self._told = mark
            return Verdict.TELL
        return Verdict.GOING

    async def _waiting(self) -> Mark:
        try:
            described = await self._client.get_workflow_handle(self._workflow_id).describe()
        except RPCError:  # not there yet, or the server blinked: nothing seen to wait
            return ()
        raw = described.raw_description
        found: list[tuple[str, str, int]] = []
        if raw.HasField("pending_workflow_task"):
            task = raw.pending_workflow_task
            if task.state == _SCHEDULED_TASK:
                since = str(task.original_scheduled_time.ToNanoseconds())
                found.append(("workflow task", since, task.attempt))
        for activity in raw.pending_activities:
            if activity.state == _SCHEDULED_ACTIVITY:
                found.append(("activity", activity.activity_id, activity.attempt))
        return tuple(found)


__all__ = ["LOOK_EVERY", "STOP_GRACE", "Verdict", "WorkerWatch"]
