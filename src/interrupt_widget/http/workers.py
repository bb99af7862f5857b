"""`serve --workers N`: N uvicorn worker processes behind one socket.

Exactly-once across workers needs two things every worker shares: the
fingerprint secret (a call interrupted by one worker is resumed on another)
and a ledger that lives outside any one process (a SQLite file or a database;
a ledger in memory would let two workers each run the same approved call).
The parent checks both before it starts anything, refusing what cannot be
shared, and hands the workers one settled configuration through the
environment: the secret given, or one it generates once for all of them.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from datetime import timedelta
from typing import Any

logger = logging.getLogger(__name__)

CONFIG_ENV = "INTERRUPT_WIDGET_WORKER_CONFIG"
"""Where a worker process finds its configuration (JSON, set by the parent `serve`)."""

MEMORY_NAMES = frozenset({"memory"})
"""Ledger names that mean one process's memory, which workers cannot share."""


class WorkersRefused(ValueError):
    """`serve --workers N` was given something its worker processes cannot share."""


@dataclass(frozen=True)
class WorkerConfig:
    """What every worker builds its app from: plain data, the same in each process."""

    target: str
    """The agent, as `package.module:attribute` (each worker imports it)."""
    secret: str
    """The fingerprint secret every worker signs and checks with."""
    ledger: str
    """The shared ledger: a SQLite file's path or a database URL."""
    token: str | None
    """The bearer token clients must send, if any."""
    policy: str | None
    """The approval policy, as `package.module:attribute`, if any."""
    max_body_bytes: int
    """The cap on a request body."""
    body_timeout: float
    """How long a request body may take to arrive in full."""
    expires_in: float | None
    """Seconds an interrupt stays answerable (None: for ever)."""
    response_schemas: dict[str, Any] | None
    """Extra answer fields per tool name."""
    cors_origins: list[str]
    """The web origins whose pages may call the server (see `asgi_app`)."""


def shareable_ledger(ledger: object) -> str:
    """The ledger as a path or URL every worker can open, or `WorkersRefused` saying why."""
    if ledger is None:
        # The default ledger is one file per user: every worker opens the same one.
        from interrupt_widget.ledgers import LEDGER_ENV, default_ledger_path

        ledger = os.environ.get(LEDGER_ENV, "").strip() or str(default_ledger_path())
    if isinstance(ledger, str | os.PathLike):
        text = os.fspath(ledger).strip()
        if text in MEMORY_NAMES:
            raise WorkersRefused(
                "--workers cannot share a ledger in memory: each worker would keep its own "
                "record, and two workers could each run the same approved call; give "
                "--ledger FILE (a SQLite file) or a database URL"
            )
        if text:
            return text if "://" in text else os.path.abspath(os.path.expanduser(text))
    raise WorkersRefused(
        "--workers needs the ledger as a path or URL every worker opens itself, "
        f"not an object that lives in one process ({type(ledger).__name__})"
    )


def shared_secret(secret: str | bytes | None) -> str:
    """The secret for every worker: the one given (or in the environment), else one made now."""
    from interrupt_widget.http.fingerprint import random_secret, secret_from_env

    if isinstance(secret, bytes):
        secret = secret.decode()
    secret = secret or secret_from_env()
    if secret:
        return secret
    logger.warning(
        "no fingerprint secret (INTERRUPT_WIDGET_SECRET or --secret-file): using a random one "
        "shared by the workers, so a restart voids every open interrupt"
    )
    return random_secret()


def worker_config(
    target: object,
    *,
    secret: str | bytes | None,
    ledger: object,
    token: str | None,
    policy: object,
    max_body_bytes: int,
    body_timeout: float,
    expires_in: float | timedelta | None,
    response_schemas: Mapping[str, Mapping[str, Any]] | None,
    run_config: object,
    cors_origins: Sequence[str] = (),
) -> WorkerConfig:
    """Check that everything can reach N processes, and settle it once for all of them."""
    if not isinstance(target, str):
        raise WorkersRefused(
            "workers > 1 needs the agent as 'package.module:attribute', so each worker "
            f"process imports it; got a {type(target).__name__} object"
        )
    if policy is not None and not isinstance(policy, str):
        raise WorkersRefused("workers > 1 needs the policy as 'package.module:attribute'")
    if run_config is not None:
        raise WorkersRefused("workers > 1 cannot hand a run_config object to other processes")
    from interrupt_widget.http.cli import TargetError, load_policy, load_target

    try:  # fail here, once, rather than in every worker
        load_target(target)
        if policy is not None:
            load_policy(policy)
    except TargetError as exc:
        raise WorkersRefused(str(exc)) from None
    from interrupt_widget.http.app import cors_allowed_origins
    from interrupt_widget.http.fingerprint import Fingerprinter

    shared = shared_secret(secret)
    Fingerprinter(shared)  # too short: refused before any worker starts
    seconds = expires_in.total_seconds() if isinstance(expires_in, timedelta) else expires_in
    return WorkerConfig(
        target=target,
        secret=shared,
        ledger=shareable_ledger(ledger),
        token=token,
        policy=policy,
        max_body_bytes=max_body_bytes,
        body_timeout=body_timeout,
        expires_in=seconds,
        response_schemas=json.loads(json.dumps(response_schemas)) if response_schemas else None,
        cors_origins=cors_allowed_origins(cors_origins),
    )


def run_workers(
    config: WorkerConfig, *, workers: int, host: str, port: int, log_level: str
) -> None:
    """Serve with `workers` processes until interrupted (blocks)."""
    import uvicorn

    os.environ[CONFIG_ENV] = json.dumps(asdict(config))
    try:
        uvicorn.run(
            f"{__name__}:worker_app",
            factory=True,
            workers=workers,
            host=host,
            port=port,
            log_level=log_level,
            lifespan="on",
        )
    finally:
        os.environ.pop(CONFIG_ENV, None)


def worker_app() -> Any:
    """The app one worker serves, built from the configuration its parent settled."""
    from interrupt_widget.http.app import asgi_app
    from interrupt_widget.http.cli import load_policy, load_target

    raw = os.environ.get(CONFIG_ENV)
    if not raw:
        raise RuntimeError(f"{CONFIG_ENV} is unset: worker_app runs only under serve --workers")
    config = WorkerConfig(**json.loads(raw))
    return asgi_app(
        load_target(config.target),
        token=config.token,
        secret=config.secret,
        ledger=config.ledger,
        policy=load_policy(config.policy) if config.policy else None,
        max_body_bytes=config.max_body_bytes,
        body_timeout=config.body_timeout,
        expires_in=config.expires_in,
        response_schemas=config.response_schemas,
        cors_origins=config.cors_origins,
    )
