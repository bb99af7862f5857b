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
from dataclasses import asdict, dataclass
from datetime import timedelta
from typing import TYPE_CHECKING, Any, Unpack

from interrupt_widget.errors import WorkersRefused

if TYPE_CHECKING:
    from interrupt_widget.http.app import AppOptions

logger = logging.getLogger(__name__)

CONFIG_ENV = "INTERRUPT_WIDGET_WORKER_CONFIG"
"""Where a worker process finds its configuration (JSON, set by the parent `serve`)."""

MEMORY_NAMES = frozenset({"memory"})
"""Ledger names that mean one process's memory, which workers cannot share."""


@dataclass(frozen=True)
class WorkerConfig:
    """What every worker builds its app from: plain data, the same in each process."""

    target: str
    """The agent, as `package.module:attribute` (each worker imports it)."""
    policy: str | None
    """The approval policy, as `package.module:attribute`, if any."""
    options: dict[str, Any]
    """The `asgi_app` options, as JSON: those given, with the secret and the ledger settled."""


def shareable_ledger(ledger: object) -> str:
    """The ledger as a path or URL every worker can open, or `WorkersRefused` saying why."""
    if ledger is None:
        # The default ledger is one file per user: every worker opens the same one.
        from interrupt_widget.ledger.opening import LEDGER_ENV, default_ledger_path

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


def worker_config(target: object, *, policy: object, **options: Unpack[AppOptions]) -> WorkerConfig:
    """Check that everything can reach N processes, and settle it once for all of them."""
    if not isinstance(target, str):
        raise WorkersRefused(
            "workers > 1 needs the agent as 'package.module:attribute', so each worker "
            f"process imports it; got a {type(target).__name__} object"
        )
    if policy is not None and not isinstance(policy, str):
        raise WorkersRefused("workers > 1 needs the policy as 'package.module:attribute'")
    for name in ("run_config", "hooks"):
        if options.get(name) is not None:
            raise WorkersRefused(f"workers > 1 cannot hand a {name} object to other processes")
    if options.get("metrics"):
        raise WorkersRefused(
            "--metrics counts one process's runs, and with --workers a scrape would reach one "
            "worker at random: run one server per port (each with --metrics) instead"
        )
    from interrupt_widget.errors import TargetError
    from interrupt_widget.http.target_loading import load_policy, load_target

    try:  # fail here, once, rather than in every worker
        load_target(target)
        if policy is not None:
            load_policy(policy)
    except TargetError as exc:
        raise WorkersRefused(str(exc)) from None
    from interrupt_widget.http.app import cors_allowed_origins
    from interrupt_widget.http.fingerprint import Fingerprinter

    shared = shared_secret(options.get("secret"))
    Fingerprinter(shared)  # too short: refused before any worker starts
    settled: dict[str, Any] = {
        key: value
        for key, value in options.items()
        if key not in ("run_config", "hooks") and value is not None
    }
    settled["secret"] = shared
    settled["ledger"] = shareable_ledger(options.get("ledger"))
    expires_in = options.get("expires_in")
    if isinstance(expires_in, timedelta):
        settled["expires_in"] = expires_in.total_seconds()
    if "cors_origins" in options:
        settled["cors_origins"] = cors_allowed_origins(options["cors_origins"])
    try:
        json.dumps(settled)
    except (TypeError, ValueError) as exc:
        raise WorkersRefused(f"workers > 1 needs options that are plain JSON data: {exc}") from None
    return WorkerConfig(target=target, policy=policy, options=settled)


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
    from interrupt_widget.http.target_loading import load_policy, load_target

    raw = os.environ.get(CONFIG_ENV)
    if not raw:
        raise RuntimeError(f"{CONFIG_ENV} is unset: worker_app runs only under serve --workers")
    config = WorkerConfig(**json.loads(raw))
    return asgi_app(
        load_target(config.target),
        policy=load_policy(config.policy) if config.policy else None,
        **config.options,
    )
