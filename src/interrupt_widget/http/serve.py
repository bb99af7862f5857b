"""Run an AG-UI app on uvicorn: `serve` (blocks) and `running_server` (inside a loop).

`serve` is for a terminal or a deployment. `running_server` is for tests,
benchmarks and notebooks, where nothing may block: the socket is bound and
listening before the block is entered, so its URL is usable at once and no
client races the server's start.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
from collections.abc import AsyncIterator
from typing import TYPE_CHECKING, Any, Unpack

from interrupt_widget.http.app import AppOptions, asgi_app
from interrupt_widget.http.bind_guard import check_bind
from interrupt_widget.http.default_secret import kept_secret
from interrupt_widget.http.fingerprint import secret_from_env
from interrupt_widget.policy.rules import Policy

if TYPE_CHECKING:
    from starlette.types import ASGIApp


def serve(
    agent: Any,
    *,
    host: str = "127.0.0.1",
    port: int = 8000,
    log_level: str = "info",
    policy: Policy | str | None = None,
    insecure_no_token: bool = False,
    workers: int = 1,
    **options: Unpack[AppOptions],
) -> None:
    """Serve `agent` over AG-UI on `host:port` until interrupted (blocks).

    `POST /` takes a camelCase RunAgentInput and answers with the event stream
    as SSE; `GET /health` answers `{"status": "ok", ...}`, or 503 while the call
    ledger's database is unreachable (`interrupt_widget.http.health`). See `asgi_app` for the
    options (`token`, `secret`, `ledger`, `max_body_bytes`, `body_timeout`,
    `response_schemas`, `expires_in`, `run_config`, `cors_origins`), which pass
    to it as they are. The fingerprint secret comes from `secret`, else
    `INTERRUPT_WIDGET_SECRET`; with neither, the secret kept in the per-user
    state folder beside the default ledger (made on the first start, mode
    0600: `interrupt_widget.http.default_secret`), so the interrupts open at a
    restart stay answerable.

    Secure by default: a `host` outside the loopback range (`0.0.0.0`, `::`, a
    LAN address) needs a `token`, else `InsecureBindError` (a `ValueError`) is
    raised before anything listens; `insecure_no_token=True` serves it without
    one anyway, with a warning.

    `workers` > 1 runs that many processes on one socket. Each imports the
    agent (and `policy`) itself, so give them as `"package.module:attribute"`;
    all share one secret (the one given, else one made here) and one `ledger`,
    which must be a SQLite file's path or a database URL: a ledger in memory,
    or a ledger object, is refused (`WorkersRefused`, a `ValueError`) saying why.
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
    # Principals are tokens too: one per person.
    guarded_by = options.get("token") or (None if options.get("principals") is None else "*")
    check_bind(host, token=guarded_by, insecure_no_token=insecure_no_token)
    if workers < 1:
        raise ValueError("workers must be at least 1")
    if options.get("secret") is None and secret_from_env() is None:
        options["secret"] = kept_secret()
    if workers > 1:
        from interrupt_widget.http.workers import run_workers, worker_config

        config = worker_config(agent, policy=policy, **options)
        run_workers(config, workers=workers, host=host, port=port, log_level=log_level)
        return
    if isinstance(agent, str):
        from interrupt_widget.http.target_loading import load_target

        agent = load_target(agent)
    from interrupt_widget.http.target_loading import load_policy

    chosen: Policy | None = load_policy(policy) if isinstance(policy, str) else policy
    app = asgi_app(agent, policy=chosen, **options)
    uvicorn.run(app, host=host, port=port, log_level=log_level, lifespan="on")


@contextlib.asynccontextmanager
async def running_server(
    app: ASGIApp, *, host: str = "127.0.0.1", port: int = 0, log_level: str = "warning"
) -> AsyncIterator[str]:
    """Serve `app` on `host:port` (0: a free port) while the block runs; yields its base URL."""
    import uvicorn

    # IPPROTO_TCP spelled out: asyncio turns Nagle off only on sockets that say they
    # are TCP, and without it each response's first event waited ~40 ms for the
    # client's delayed ACK of the headers.
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
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
