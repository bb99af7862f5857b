"""`python -m interrupt_widget serve package.module:agent --port N`, and `audit write|verify`."""

from __future__ import annotations

import sys

from interrupt_widget.http.cli import main

if __name__ == "__main__":
    sys.exit(main())
