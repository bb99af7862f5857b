"""`python -m interrupt_widget serve package.module:agent`: the command line."""

from __future__ import annotations

import argparse
import logging
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from interrupt_widget.errors import TargetError
from interrupt_widget.http.bind_guard import OPT_OUT_FLAG
from interrupt_widget.http.limits import DEFAULT_BODY_TIMEOUT_SECONDS
from interrupt_widget.http.target_loading import load_policy, load_target
from interrupt_widget.ledger.audit_cli import add_commands as add_audit_commands
from interrupt_widget.ledger.audit_cli import run as run_audit

LEDGER_ENV = "INTERRUPT_WIDGET_LEDGER"
"""Names the ledger when `--ledger` is not given (as `ledger.choose.LEDGER_ENV`)."""

TOKEN_ENV = "INTERRUPT_WIDGET_TOKEN"
"""The environment variable `serve` reads its bearer token from when `--token` is not given."""


def _default_path() -> str:
    from interrupt_widget.ledger.opening import default_ledger_path

    return str(default_ledger_path())


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m interrupt_widget")
    commands = parser.add_subparsers(dest="command", required=True)
    serve = commands.add_parser(
        "serve",
        help="serve an agent over AG-UI (HTTP + SSE)",
        description="Serve an agent over AG-UI (HTTP + SSE). Secure by default: on an address "
        "outside the loopback range, serve refuses to start without a bearer token (--token or "
        f"${TOKEN_ENV}) unless {OPT_OUT_FLAG} is given.",
    )
    serve.add_argument("target", help="the agent, as package.module:attribute")
    _add_access_options(serve)
    _add_run_options(serve)
    serve.add_argument(
        "--cors-origin",
        action="append",
        default=[],
        metavar="ORIGIN",
        help="a web origin (scheme://host[:port]) whose pages may call this server from a "
        "browser; repeat for several",
    )
    serve.add_argument("--log-level", default="info")
    add_audit_commands(commands)
    _add_principals_command(commands)
    return parser


def _add_principals_command(commands: Any) -> None:
    principals = commands.add_parser(
        "principals", help="manage the tokens of `serve --principals FILE`"
    )
    actions = principals.add_subparsers(dest="action", required=True)
    add = actions.add_parser(
        "add",
        help="add a person with a new token to FILE; prints the token once (FILE keeps only "
        "its SHA-256)",
    )
    add.add_argument("file", type=Path)
    add.add_argument("name")
    add.add_argument("--role", action="append", default=[], help="a role; repeat for several")


def _run_principals(args: argparse.Namespace) -> int:
    from interrupt_widget.http.principals import add_principal, token_digest

    try:
        token = add_principal(args.file, args.name, args.role)
    except (OSError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"token for {args.name}: {token}")
    print(f"sha256 kept in {args.file}: {token_digest(token)}")
    return 0


def _add_access_options(serve: argparse.ArgumentParser) -> None:
    """Where the server listens, and who may call it."""
    serve.add_argument(
        "--host",
        default="127.0.0.1",
        help="interface to listen on (default 127.0.0.1); any address outside the loopback "
        "range (0.0.0.0, ::, a LAN address) needs --token",
    )
    serve.add_argument("--port", type=int, default=8000, help="port to listen on")
    serve.add_argument(
        "--token", help=f"bearer token clients must send (default: ${TOKEN_ENV} if set)"
    )
    serve.add_argument(
        "--principals",
        type=Path,
        help="a JSON file of token digests, names and roles (`principals add`): each person "
        "has a token, which decides who starts a run and who answers (instead of --token)",
    )
    serve.add_argument(
        OPT_OUT_FLAG,
        action="store_true",
        help="serve a non-loopback --host without a token (anyone who reaches it can approve "
        "gated tools); only behind a layer that authenticates every request",
    )
    serve.add_argument(
        "--secret-file",
        type=Path,
        help="file holding the fingerprint secret (default: $INTERRUPT_WIDGET_SECRET, else a "
        "secret made on the first start and kept, mode 0600, beside the per-user ledger, so "
        "open interrupts survive a restart)",
    )


def _add_run_options(serve: argparse.ArgumentParser) -> None:
    """What records and settles the calls, and how much the server takes on."""
    serve.add_argument(
        "--ledger",
        help="where the approved calls already run are recorded: a SQLite file (replicas on "
        "one host give the same file and secret), a postgresql:// URL (replicas on several "
        "hosts), or 'memory' (exactly-once then ends with the process). Default: "
        f"${LEDGER_ENV} if set, else the per-user file {_default_path()}",
    )
    serve.add_argument(
        "--policy",
        metavar="MODULE:ATTR",
        help="an approval Policy (or a function returning one) that settles the calls its "
        "rules cover without a person",
    )
    serve.add_argument(
        "--body-timeout",
        type=float,
        default=DEFAULT_BODY_TIMEOUT_SECONDS,
        metavar="SECONDS",
        help="how long a request body may take to arrive in full before the server answers "
        f"408 (default {DEFAULT_BODY_TIMEOUT_SECONDS:g})",
    )
    serve.add_argument(
        "--workers",
        type=int,
        default=1,
        metavar="N",
        help="worker processes (default 1); with more than one, every worker shares one secret "
        "(--secret-file, $INTERRUPT_WIDGET_SECRET, or the kept one) and one --ledger",
    )
    serve.add_argument(
        "--metrics",
        action="store_true",
        help="serve Prometheus metrics at GET /metrics (behind --token when one is set): open "
        "interrupts, decisions by verdict and answerer, time to answer, tool runs, calls in "
        "doubt, ledger errors; needs pip install prometheus-client",
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the process exit code."""
    args = _parser().parse_args(argv)
    if args.command == "audit":
        return run_audit(args)
    if args.command == "principals":
        return _run_principals(args)
    logging.basicConfig(level=args.log_level.upper(), format="%(levelname)s: %(message)s")
    from interrupt_widget.errors import FingerprintSecretError
    from interrupt_widget.http.serve import serve

    secret: str | None = None
    if args.secret_file is not None:
        try:
            secret = args.secret_file.read_text().strip()
        except OSError as exc:
            print(f"error: cannot read --secret-file: {exc}", file=sys.stderr)
            return 2
        if not secret:
            print(f"error: --secret-file {args.secret_file} is empty", file=sys.stderr)
            return 2
    # Worker processes import the agent and the policy themselves, by name.
    agent: Any = args.target
    policy: Any = args.policy
    try:
        if args.workers <= 1:
            agent = load_target(args.target)
            policy = load_policy(args.policy) if args.policy else None
    except TargetError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    token = args.token or os.environ.get(TOKEN_ENV) or None
    try:
        serve(
            agent,
            host=args.host,
            port=args.port,
            token=token,
            secret=secret,
            ledger=args.ledger,
            log_level=args.log_level,
            policy=policy,
            insecure_no_token=args.insecure_no_token,
            body_timeout=args.body_timeout,
            workers=args.workers,
            cors_origins=args.cors_origin,
            metrics=args.metrics,
            principals=str(args.principals) if args.principals is not None else None,
        )
    except (FingerprintSecretError, ValueError, TypeError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0
