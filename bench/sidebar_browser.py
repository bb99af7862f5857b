"""The server's sidebar in real JupyterLab and chromium, with 500 questions waiting.

One JupyterLab server with the kit's extension; its question board (the server's own SQLite
file) holds N questions posted for one running kernel. Measured in the page, rounds
interleaved, against the same sidebar getting a single question (the baseline: what one long
poll and one row cost whatever the list):

1. List: from N questions posted on an empty board to the N-th row drawn in the open
   sidebar (the server's long poll wakes, lists, sends; the page draws). Goal: under 1 s.
2. One: the same for a single question (the baseline). Goal: under 1 s.
3. Responsive: from typing into the filter to the list of N narrowed to one row. Goal:
   under 0.2 s.

Run: .venv/bin/python bench/sidebar_browser.py [--questions 500] [--rounds 5] [--quick]
"""

from __future__ import annotations

import sys
from pathlib import Path

# bench/ holds scripts, not modules; the browser suite's helpers start the server and chromium.
if str(Path(__file__).resolve().parent) in sys.path:
    sys.path.remove(str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "e2e"))

import argparse
import socket
import statistics
import tempfile
import time
from typing import Any

import chromium
from jupyter_process import JupyterServer
from playwright.sync_api import Page, sync_playwright

from interrupt_widget.lab.board import Board, Owner

QUICK_HELP = "the smallest sizes: check that the bench runs (make bench-smoke), not a figure"
GOALS = {"list": 1.0, "filter": 0.2, "one": 1.0}
TAB = '.jp-SideBar .lm-TabBar-tab[title^="Questions waiting"]'


def item(n: int) -> dict[str, Any]:
    interrupt = {
        "id": f"call-{n}",
        "reason": "tool_call",
        "message": f"Pay invoice INV-{n}?",
        "responseSchema": {
            "type": "object",
            "properties": {"approved": {"type": "boolean"}},
            "required": ["approved"],
        },
        "metadata": {"tool_name": "pay_invoice", "tool_input": {"invoice": f"INV-{n}"}},
    }
    return {"id": f"q-{n}", "key": f"INV-{n}", "tool": "pay_invoice", "args": f'invoice="INV-{n}"',
            "interrupt": interrupt, "since": int(time.time() * 1000), "expiresAt": None,
            "error": "", "doubt": ""}  # fmt: skip


def post(board: Board, owner: Owner, numbers: range) -> None:
    board.post(owner, {f"q-{n}": (item(n), None, "ann") for n in numbers}, [])


def timed_post(page: Page, board: Board, owner: Owner, numbers: range) -> float:
    """Seconds from posting these questions on an empty board to every row drawn in the open
    sidebar: the server's long poll, its list, the transfer and the drawing."""
    board.leave(owner.id)
    page.wait_for_function("document.querySelectorAll('.iw-lab-panel .iw-item').length === 0")
    started = time.monotonic()
    post(board, owner, numbers)
    count = len(numbers)
    page.wait_for_function(f"document.querySelectorAll('.iw-lab-panel .iw-item').length >= {count}")
    return time.monotonic() - started


def timed_filter(page: Page, count: int) -> float:
    """Seconds from typing a filter to the list narrowed to the one row it names."""
    box = page.locator(".iw-lab-panel").get_by_label("Filter")
    box.fill("")
    page.wait_for_function(f"document.querySelectorAll('.iw-lab-panel .iw-item').length >= {count}")
    start = page.evaluate("() => performance.now()")
    box.fill(f"INV-{count - 1}")
    page.wait_for_function("document.querySelectorAll('.iw-lab-panel .iw-item').length === 1")
    took: float = page.evaluate(f"() => performance.now() - {start}")
    box.fill("")
    return took / 1000


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--questions", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help=QUICK_HELP)
    args = parser.parse_args()
    if args.quick:
        args.questions, args.rounds = 20, 1
    with tempfile.TemporaryDirectory() as folder:
        server = JupyterServer.start(kind="lab", base=Path(folder) / "lab")
        try:
            results = measure(server, args.questions, args.rounds)
        finally:
            server.stop()
    report(results, args.questions)


def measure(server: JupyterServer, count: int, rounds: int) -> dict[str, list[float]]:
    kernel = server.api("POST", "/api/kernels", {"name": "python3"})["id"]
    name = f"{socket.gethostname()}:{server.port}/"
    many = Owner(kernel, f"kernel {kernel[:8]}", "team/pay.ipynb", name)
    board = Board(server.runtime_dir / "interrupt-widget-board.sqlite")
    results: dict[str, list[float]] = {"list": [], "one": [], "filter": []}
    with sync_playwright() as playwright:
        browser = chromium.launch(playwright)
        page = browser.new_page(viewport=chromium.VIEWPORT)
        page.goto(server.url("/lab"))
        page.locator(TAB).click()
        page.locator(".iw-lab-panel").wait_for()
        for _ in range(rounds):
            results["one"].append(timed_post(page, board, many, range(1)))
            results["list"].append(timed_post(page, board, many, range(count)))
            results["filter"].append(timed_filter(page, count))
        browser.close()
    return results


def report(results: dict[str, list[float]], count: int) -> None:
    med = {k: statistics.median(v) for k, v in results.items()}
    print(f"{count} questions in the open sidebar: {med['list'] * 1000:.0f} ms after their post "
          f"(median of {len(results['list'])}); one question: {med['one'] * 1000:.0f} ms; "
          f"ratio {med['list'] / med['one']:.2f}x")  # fmt: skip
    print(f"filter narrowing {count} to one: {med['filter'] * 1000:.0f} ms")
    for what, goal in GOALS.items():
        if med[what] >= goal:
            print(f"goal not met: {what} took {med[what]:.2f} s (goal < {goal} s)")


if __name__ == "__main__":
    main()
