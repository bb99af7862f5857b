"""Size of the front-end bundle, against its gzipped goals.

The bundle (`widget.js`, and `widget.css` that anywidget's `_css` loads) travels
in every widget's opening message and is saved once per widget in the notebook,
so it is measured minified, gzipped, and as the whole opening message of one
picker. The widgets' own code (ours, JS and CSS) has a goal of its own, apart
from the packages the bundle includes: it is the same entry built again with
every package left out (esbuild's `--packages=external`). The goal counts a
Markdown renderer apart: that is the Markdown parser (a package, already left
out) and our module that draws its output (`js/chat/markdown.ts`, with the
stylesheet it imports, `markdown.css`), so the own code is built with that
module left out too (`--external:`), and the module's own size, JS and CSS
minified and gzipped, is printed on a line of its own. Each build's stylesheet
is the CSS esbuild writes beside its JS, and each build's JS goes through terser
with `terser.config.json`, as `npm run build` does.

    .venv/bin/python bench/bundle.py            # build, then measure
    .venv/bin/python bench/bundle.py --no-build # measure the bundle already built
"""

from __future__ import annotations

import argparse
import gzip
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

QUICK_HELP = "the smallest sizes: check that the bench runs (make bench-smoke), not a figure"

ROOT = Path(__file__).resolve().parent.parent
STATIC = ROOT / "src" / "interrupt_widget" / "static"
BUNDLE = STATIC / "widget.js"
STYLES = STATIC / "widget.css"
LAB_STATIC = ROOT / "src" / "interrupt_widget" / "labextension" / "static"
GOAL_GZIPPED = 20 * 1024
"""The whole bundle, packages included, code and stylesheet."""
INBOX = STATIC / "inbox.js"
INBOX_STYLES = STATIC / "inbox.css"
INBOX_ENTRY = "js/inbox/widget.ts"
"""The inbox's own bundle: only a page that shows an inbox loads it."""
MARKDOWN = "js/chat/markdown.ts"
"""Our part of the Markdown renderer, which the own-code figure counts apart."""


def build() -> None:
    subprocess.run(["npm", "run", "--silent", "build"], cwd=ROOT, check=True)


def gz(data: bytes) -> int:
    return len(gzip.compress(data, compresslevel=9))


def bundled(entry: str, *flags: str) -> tuple[bytes, bytes]:
    """`entry` bundled and minified as `npm run build` does, every package left out: JS, CSS."""
    with tempfile.TemporaryDirectory() as out:
        target = Path(out) / "out.js"
        subprocess.run(
            [
                str(ROOT / "node_modules" / ".bin" / "esbuild"),
                entry,
                "--bundle",
                "--format=esm",
                "--minify",
                "--target=es2020",
                "--packages=external",
                *flags,
                "--log-level=error",
                f"--outfile={target}",
            ],
            cwd=ROOT,
            check=True,
        )
        subprocess.run(
            [
                str(ROOT / "node_modules" / ".bin" / "terser"),
                str(target),
                "--config-file",
                str(ROOT / "terser.config.json"),
                "--output",
                str(target),
            ],
            cwd=ROOT,
            check=True,
        )
        css = target.with_suffix(".css")
        return target.read_bytes(), css.read_bytes() if css.exists() else b""


def own_code() -> tuple[bytes, bytes]:
    """The widgets' entry without the packages and without our Markdown module."""
    return bundled("js/widget.ts", f"--external:./{MARKDOWN}")


def markdown_code() -> tuple[bytes, bytes]:
    """Our Markdown module and its stylesheet alone, without the parser package it imports."""
    return bundled(MARKDOWN)


def opening_message_bytes() -> int:
    """Bytes of the comm_open message of one meeting picker (the bundle included)."""
    from interrupt_widget import InterruptPicker
    from interrupt_widget.agui.interrupts import approval_schema
    from interrupt_widget.examples import MEETING_RESPONSE_SCHEMA
    from interrupt_widget.testing import recording_comms

    schema = approval_schema(MEETING_RESPONSE_SCHEMA)  # what the quickstart's picker receives
    interrupt = {
        "id": "int-1",
        "reason": "tool_call",
        "message": "Schedule a meeting about the roadmap?",
        "responseSchema": schema,
        "metadata": {"tool_name": "schedule_meeting", "tool_input": {"topic": "roadmap"}},
    }
    with recording_comms() as recorder:
        picker = InterruptPicker([interrupt])
    opening = recorder.of(picker).messages[0]
    return len(json.dumps(opening.data).encode())


def lab_extension() -> None:
    """The JupyterLab extension's built chunks (federated: JupyterLab's packages are shared,
    not in them), gzipped: its own code, the inbox's view it reuses, and the loaders'."""
    chunks = sorted(LAB_STATIC.glob("*.js")) if LAB_STATIC.is_dir() else []
    if not chunks:
        print("lab extension     not built (make build)")
        return
    sizes = {path.name.split(".")[0]: gz(path.read_bytes()) for path in chunks}
    total = sum(sizes.values())
    parts = ", ".join(f"{name} {size} B" for name, size in sizes.items())
    print(f"lab extension     {total / 1024:6.1f} KB gzipped, every chunk ({parts})")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--no-build", action="store_true", help="measure the existing bundle")
    parser.add_argument("--quick", action="store_true", help=QUICK_HELP + " (with --no-build)")
    args = parser.parse_args()
    if not (args.no_build or args.quick):
        build()
    code = BUNDLE.read_bytes()
    styles = STYLES.read_bytes()
    own, own_styles = own_code()
    markdown, markdown_styles = markdown_code()
    gzipped = gz(code) + gz(styles)
    own_gzipped = gz(own) + gz(own_styles)
    markdown_gzipped = gz(markdown) + gz(markdown_styles)
    remote = re.findall(rb"(?:import|from)\s*\(?\s*[\"'`](?:https?:)?//", code)
    print(f"bundle            {BUNDLE.relative_to(ROOT)} + {STYLES.name}")
    print(f"minified          {len(code) / 1024:6.1f} KB JS + {len(styles) / 1024:.1f} KB CSS")
    print(f"gzipped JS        {gz(code) / 1024:6.1f} KB ({gz(code)} B)")
    print(f"gzipped CSS       {gz(styles) / 1024:6.1f} KB ({gz(styles)} B)")
    print(
        f"whole, gzipped    {gzipped / 1024:6.1f} KB  "
        f"goal <= {GOAL_GZIPPED // 1024} KB: {gzipped / GOAL_GZIPPED:.2f}x of the budget"
    )
    print(
        f"own code, gzipped {own_gzipped / 1024:6.1f} KB "
        f"({own_gzipped} B: JS {gz(own)} B + CSS {gz(own_styles)} B)"
    )
    print(
        f"Markdown renderer (counted apart) {markdown_gzipped / 1024:.1f} KB "
        f"(JS {gz(markdown)} B + CSS {gz(markdown_styles)} B, {MARKDOWN})"
    )
    packages = gz(code) - gz(own) - gz(markdown)
    print(f"packages, gzipped {packages / 1024:6.1f} KB (the JS difference)")
    print(f"remote imports    {len(remote)}")
    opening = opening_message_bytes()
    print(f"picker comm_open  {opening / 1024:6.1f} KB (bundle + state, one widget)")
    inbox_own, inbox_own_styles = bundled(INBOX_ENTRY)
    inbox_gzipped = gz(INBOX.read_bytes()) + gz(INBOX_STYLES.read_bytes())
    inbox_own_gzipped = gz(inbox_own) + gz(inbox_own_styles)
    page = own_gzipped + inbox_own_gzipped  # the Markdown renderer counted apart, as above
    print(
        f"inbox bundle      {inbox_gzipped / 1024:6.1f} KB gzipped "
        f"({INBOX.name} + {INBOX_STYLES.name})"
    )
    print(
        f"inbox own code    {inbox_own_gzipped / 1024:6.1f} KB ({inbox_own_gzipped} B, the "
        "shared card included)"
    )
    print(f"a page with all   {page / 1024:6.1f} KB of own code, both bundles (Markdown apart)")
    remote += re.findall(rb"(?:import|from)\s*\(?\s*[\"'`](?:https?:)?//", INBOX.read_bytes())
    lab_extension()
    # The per-widget goals are retired: the whole bundle's is the one a widget's message pays.
    sizes = {"the whole bundle": (gzipped, GOAL_GZIPPED)}
    missed = [
        f"goal not met: {what} is {size} B gzipped (goal <= {goal} B)"
        for what, (size, goal) in sizes.items()
        if size > goal
    ]
    for line in missed:
        print(line)
    print("result            " + ("within the goal" if not missed else "OVER THE GOAL"))
    # A size over its goal is a figure to report, and `make bench` goes on; a module
    # imported from the network breaks the offline bundle, and fails the run.
    return 1 if remote else 0


if __name__ == "__main__":
    sys.exit(main())
