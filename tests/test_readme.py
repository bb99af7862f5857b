"""The README's code runs as written, its first screen keeps its promises, and its links lead
somewhere: it is the landing page, and the documentation site (docs/) holds the rest."""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"


def _section(title: str) -> str:
    text = README.read_text(encoding="utf-8")
    start = text.index(f"## {title}")
    end = text.find("\n## ", start + 1)
    return text[start : end if end != -1 else None]


def _python_block(section: str) -> str:
    match = re.search(r"```python\n(.*?)```", section, re.DOTALL)
    assert match, "no python block"
    return match.group(1)


def _slug(heading: str) -> str:
    # Python-Markdown's toc slugs, as the site and GitHub both make them for plain headings.
    words = re.sub(r"[^\w\s-]", "", heading.strip().lower())
    return re.sub(r"[\s]+", "-", words)


def test_the_adapter_example_is_ten_lines_and_runs_as_written(tmp_path: Path) -> None:
    code = _python_block(_section("The adapter in ten lines"))
    statements = [
        line
        for line in code.splitlines()
        if line.strip() and not line.startswith(("import ", "from "))
    ]
    assert len(statements) == 10, statements
    script = tmp_path / "example.py"
    script.write_text(code, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != "OPENAI_API_KEY"}
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, env=env, timeout=120
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("RUN_STARTED")
    assert lines[-1].startswith("RUN_FINISHED")
    assert "TOOL_CALL_RESULT" in done.stdout
    reply = "".join(line.split(" ", 1)[1] for line in lines if "TEXT_MESSAGE_CONTENT" in line)
    assert "Tue 8 Jan, 10:00" in reply


def test_the_first_screen_names_the_two_commands_ci_runs() -> None:
    head = README.read_text(encoding="utf-8").splitlines()[:20]
    assert any(line.startswith("make lab") for line in head)
    assert any(line.startswith("make test") for line in head)
    ci = (README.parent / ".ci" / "run").read_text(encoding="utf-8")
    assert "make test" in ci


def test_the_first_notebook_cell_ends_with_the_widget() -> None:
    # Pasted as one cell, the chat must be the cell's last expression, or nobody sees the widget
    # that the next cell waits on.
    cell = _python_block(_section("In a notebook"))
    last = ast.parse(cell).body[-1]
    assert isinstance(last, ast.Expr), cell
    assert isinstance(last.value, ast.Name), cell


def test_the_guide_shows_the_readmes_adapter_example() -> None:
    guide = (README.parent / "docs" / "guide" / "serving.md").read_text(encoding="utf-8")
    readme_code = _python_block(_section("The adapter in ten lines"))
    assert readme_code in guide


def test_every_link_in_the_readme_leads_to_a_file_and_heading() -> None:
    text = README.read_text(encoding="utf-8")
    broken = []
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if target.startswith(("http://", "https://")):
            continue
        path, _, anchor = target.partition("#")
        page = README.parent / path
        if not page.is_file():
            broken.append(target)
        elif anchor:
            headings = re.findall(r"^#+ (.+)$", page.read_text(encoding="utf-8"), re.MULTILINE)
            if anchor not in {_slug(h) for h in headings}:
                broken.append(target)
    assert not broken, broken


def test_the_first_screen_says_how_to_install_and_how_to_run_your_own_agent_offline() -> None:
    text = README.read_text(encoding="utf-8")
    head = "\n".join(text.splitlines()[:30])
    assert "pip install ." in head
    assert "needs no Node" in head
    assert "[pandas]" in head
    notebook = _section("In a notebook")
    assert "model=OfflineModel()" in notebook
    assert "calls a tool only when the request names" in notebook
