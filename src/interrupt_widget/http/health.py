"""`GET /health`: whether this server can take runs, its call ledger above all.

A served SDK agent records every approved call in its ledger before running it
(`interrupt_widget.once`), so a server whose ledger's database is unreachable
can still chat but runs no approved call. The answer says so:

- `200 {"status": "ok", "ledger": "reachable"}`: the ledger answered a quick read;
- `503 {"status": "unavailable", "ledger": "unreachable", "code": "ledger_unavailable"}`:
  it did not, within `HEALTH_TIMEOUT` seconds (a load balancer then sends runs elsewhere;
  as a liveness probe it would restart a server that reconnects by itself: use it for
  readiness);
- `200 {"status": "ok"}`: the served agent keeps no ledger (an AG-UI agent of its own).

The answer names no host, path or error: `/health` needs no token.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any, Final

from interrupt_widget.errors import ErrorCode, LedgerUnavailable

__all__ = ["HEALTH_TIMEOUT", "health_of"]

logger = logging.getLogger(__name__)

HEALTH_TIMEOUT: Final = 3.0
"""Seconds the ledger has to answer a health check before it counts as unreachable."""


async def health_of(ledger: Any) -> tuple[int, dict[str, str]]:
    """The status code and JSON body of `GET /health` for a server with `ledger` (or None)."""
    check = getattr(ledger, "check", None)
    if check is None:
        return 200, {"status": "ok"}
    try:
        await asyncio.wait_for(check(), timeout=HEALTH_TIMEOUT)
    except (LedgerUnavailable, TimeoutError) as error:
        logger.warning("health: the call ledger %r is unreachable: %s", ledger, error)
        return 503, {
            "status": "unavailable",
            "ledger": "unreachable",
            "code": ErrorCode.LEDGER_UNAVAILABLE.value,
        }
    return 200, {"status": "ok", "ledger": "reachable"}
