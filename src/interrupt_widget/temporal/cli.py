"""`python -m interrupt_widget worker package.module:agent --temporal HOST:PORT --task-queue Q`."""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
from collections.abc import Sequence

from interrupt_widget.errors import TargetError, TemporalMisconfigured, TemporalUnavailable
from interrupt_widget.temporal.worker import run_worker


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m interrupt_widget worker",
        description="Run a Temporal worker for the kit's conversations: their workflows, and "
        "the agent's runs (model calls, tools). Start any number, on any host that reaches the "
        "server; give workers that may retry each other's runs the same --ledger. SIGTERM stops "
        "one cleanly: running activities finish (up to --graceful-seconds) or are handed back.",
    )
    parser.add_argument(
        "targets", nargs="+", metavar="TARGET", help="an agent, as package.module:attribute"
    )
    parser.add_argument("--temporal", required=True, metavar="HOST:PORT", help="the server")
    parser.add_argument("--task-queue", required=True, help="the queue the TemporalAgent names")
    parser.add_argument("--namespace", default="default")
    parser.add_argument(
        "--ledger",
        default=None,
        help="where approved calls are claimed and recorded: a file or a postgresql:// URL "
        "(default: $INTERRUPT_WIDGET_LEDGER, else the per-user file)",
    )
    parser.add_argument("--graceful-seconds", type=float, default=30.0)
    parser.add_argument("--log-level", default="info")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run a worker until SIGTERM or SIGINT; returns the process exit code."""
    args = _parser().parse_args(argv)
    logging.basicConfig(level=args.log_level.upper(), format="%(levelname)s: %(message)s")
    try:
        asyncio.run(
            run_worker(
                args.targets,
                temporal=args.temporal,
                task_queue=args.task_queue,
                namespace=args.namespace,
                ledger=args.ledger,
                graceful_seconds=args.graceful_seconds,
            )
        )
    except (TargetError, TemporalMisconfigured, TemporalUnavailable) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return 0
