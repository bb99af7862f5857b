"""`serve`: run an agent's AG-UI app on uvicorn."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Mapping
from datetime import timedelta
from typing import Any

from interrupt_widget.execution_ledger import CallLedger
from interrupt_widget.http.app import DEFAULT_MAX_BODY_BYTES, asgi_app


def serve(
    agent: Any,
    *,
    host: str = "127.0.0.1",
    port: int = 8000,
    token: str | None = None,
    secret: str | bytes | None = None,
    max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
    response_schemas: Mapping[str, Mapping[str, Any]] | None = None,
    expires_in: float | timedelta | None = None,
    run_config: Any = None,
    ledger: CallLedger | str | os.PathLike[str] | None = None,
    log_level: str = "info",
) -> None:
    """Serve `agent` over AG-UI on `host:port` until interrupted (blocks).

    `POST /` takes a camelCase RunAgentInput and answers with the event stream
    as SSE; `GET /health` answers `{"status": "ok"}`. See `asgi_app` for the
    options. The fingerprint secret comes from `secret`, else
    `INTERRUPT_WIDGET_SECRET`; with neither, a random one is made and a
    restart voids the interrupts that are open.
    """
    import uvicorn

    try:
        asyncio.get_running_loop()
    except RuntimeError:
        pass
    else:
        raise RuntimeError(
            "serve() blocks and cannot run inside a running event loop (a notebook kernel): "
            "run `python -m interrupt_widget serve module:agent` in a terminal, or mount "
            "asgi_app(agent) in your own server"
        )
    app = asgi_app(
        agent,
        token=token,
        secret=secret,
        max_body_bytes=max_body_bytes,
        response_schemas=response_schemas,
        expires_in=expires_in,
        run_config=run_config,
        ledger=ledger,
    )
    uvicorn.run(app, host=host, port=port, log_level=log_level, lifespan="on")
