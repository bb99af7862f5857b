"""`python -m interrupt_widget worker package.module:agent --temporal HOST:PORT --task-queue Q`."""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import sys
import threading
import time
from collections.abc import Coroutine, Sequence
from typing import Any

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
    parser.add_argument(
        "--sandboxed",
        action="store_true",
        help="run the conversations' workflow in Temporal's sandbox (slower: see the guide)",
    )
    parser.add_argument("--log-level", default="info")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run a worker until SIGTERM or SIGINT; returns the process exit code."""
    args = _parser().parse_args(argv)
    logging.basicConfig(level=args.log_level.upper(), format="%(levelname)s: %(message)s")
    try:
        _run(
            run_worker(
                args.targets,
                temporal=args.temporal,
                task_queue=args.task_queue,
                namespace=args.namespace,
                ledger=args.ledger,
                graceful_seconds=args.graceful_seconds,
                sandboxed=args.sandboxed,
            )
        )
    except (TargetError, TemporalMisconfigured, TemporalUnavailable) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    _exit_if_stuck()
    return 0


THREAD_GRACE = 2.0
"""How long a stopped worker waits for threads its runs started (a tool, a ledger write) to
end before it exits without them."""


def _run(work: Coroutine[Any, Any, None]) -> None:
    """`asyncio.run`, except that the loop's closing does not wait for threads still busy:
    a tool stuck in a thread past the graceful time would otherwise keep the stopped worker
    alive for ever (Python 3.11's `asyncio.run` joins its default executor without a bound)."""
    loop = asyncio.new_event_loop()
    try:
        loop.run_until_complete(work)
    finally:
        left = asyncio.all_tasks(loop)
        for task in left:
            task.cancel()
        if left:
            loop.run_until_complete(asyncio.wait(left, timeout=THREAD_GRACE))
        loop.run_until_complete(loop.shutdown_asyncgens())
        loop.close()  # shuts the default executor down without waiting for its threads


def _exit_if_stuck() -> None:
    """End the process now if threads a run started are still busy after `THREAD_GRACE`
    (the interpreter would wait for them at exit): the call they run is left claimed, in
    doubt, as when a worker dies, and never run twice."""
    deadline = time.monotonic() + THREAD_GRACE
    for thread in threading.enumerate():
        if thread is not threading.main_thread() and not thread.daemon:
            thread.join(max(deadline - time.monotonic(), 0.0))
    stuck = [
        t.name
        for t in threading.enumerate()
        if t is not threading.main_thread() and not t.daemon and t.is_alive()
    ]
    if stuck:
        logging.getLogger(__name__).warning(
            "worker %s: threads still busy after it stopped (%s): exiting without them; a "
            "call they run is left in doubt",
            os.getpid(),
            ", ".join(stuck),
        )
        logging.shutdown()
        sys.stderr.flush()
        os._exit(0)
