"""`GET /health` says whether the served agent's call ledger is reachable (200 or 503)."""

from __future__ import annotations

import shutil
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import httpx
from ag_ui.core import RunAgentInput, RunFinishedEvent
from agents import set_tracing_disabled
from starlette.applications import Starlette

from interrupt_widget import SQLiteLedger
from interrupt_widget.examples import meeting_agent
from interrupt_widget.http.app import asgi_app
from interrupt_widget.sdk.offline_model import OfflineModel

set_tracing_disabled(True)

SECRET = "a-test-secret-that-is-long-enough"


class OwnAgent:
    """An AG-UI agent of its own: no call ledger to report on."""

    async def run(self, input: RunAgentInput) -> AsyncIterator[Any]:
        yield RunFinishedEvent(thread_id=input.thread_id, run_id=input.run_id)


async def health(app: Starlette) -> tuple[int, dict[str, Any]]:
    transport = httpx.ASGITransport(app=app)
    async with httpx.AsyncClient(transport=transport, base_url="http://agent.test") as http:
        response = await http.get("/health")
    return response.status_code, response.json()


async def test_a_reachable_ledger_is_reported(tmp_path: Path) -> None:
    ledger = SQLiteLedger(tmp_path / "calls.db")
    app = asgi_app(meeting_agent(OfflineModel()), secret=SECRET, ledger=ledger)
    assert await health(app) == (200, {"status": "ok", "ledger": "reachable"})


async def test_an_unreachable_ledger_is_a_503_that_names_no_path(tmp_path: Path) -> None:
    folder = tmp_path / "ledger"
    folder.mkdir()
    ledger = SQLiteLedger(folder / "calls.db")
    app = asgi_app(meeting_agent(OfflineModel()), secret=SECRET, ledger=ledger)
    shutil.rmtree(folder)  # the file's folder is gone: nothing can open it

    status, body = await health(app)

    assert status == 503
    assert body == {"status": "unavailable", "ledger": "unreachable", "code": "ledger_unavailable"}
    folder.mkdir()  # the folder is back, and a ledger makes its table again
    SQLiteLedger(folder / "calls.db")
    assert (await health(app))[0] == 200


async def test_an_agent_without_a_ledger_reports_only_itself() -> None:
    app = asgi_app(OwnAgent(), secret=SECRET)
    assert await health(app) == (200, {"status": "ok"})
