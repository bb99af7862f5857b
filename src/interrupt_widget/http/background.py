"""`running_server`: an ASGI app on uvicorn inside the current event loop.

For tests, benchmarks and notebooks, where `serve()` cannot block: the socket
is bound and listening before the context is entered, so its URL is usable at
once and no client races the server's start.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import AsyncIterator

from starlette.types import ASGIApp


@contextlib.asynccontextmanager
async def running_server(
    app: ASGIApp, *, host: str = "127.0.0.1", port: int = 0, log_level: str = "warning"
) -> AsyncIterator[str]:
    """Serve `app` on `host:port` (0: a free port) while the block runs; yields its base URL."""
    import uvicorn

    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(1024)
    bound_port = sock.getsockname()[1]
    config = uvicorn.Config(app, log_level=log_level, lifespan="on", timeout_graceful_shutdown=30)
    server = uvicorn.Server(config)
    task = asyncio.create_task(server.serve(sockets=[sock]), name=f"uvicorn-{bound_port}")
    try:
        yield f"http://{host}:{bound_port}/"
    finally:
        server.should_exit = True
        await task
        sock.close()
