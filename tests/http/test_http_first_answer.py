"""A served agent's first answer does not stall the server: its answer checks are prepared at
start-up, on a thread of their own (importing `jsonschema` takes over a second)."""

from __future__ import annotations

import subprocess
import sys

_SERVED = """
import sys
from starlette.testclient import TestClient
from interrupt_widget import OfflineModel, asgi_app
from interrupt_widget.agui import answers
from interrupt_widget.examples import meeting_agent

app = asgi_app(meeting_agent(OfflineModel()), ledger="memory")
assert "jsonschema" not in sys.modules and not answers._preparing, "nothing before start-up"
with TestClient(app) as client:
    (thread,) = answers._preparing
    assert client.get("/health").status_code == 200  # serving while it imports
    thread.join(60)
    assert "jsonschema" in sys.modules
"""


def test_the_server_prepares_the_answer_checks_at_start_up_without_waiting_for_them() -> None:
    done = subprocess.run(
        [sys.executable, "-W", "ignore", "-c", _SERVED], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
