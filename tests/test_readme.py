"""The README's code runs as written, and its first screen keeps its promises."""

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


def test_the_notebook_example_pasted_as_one_cell_shows_the_widget_before_it_waits() -> None:
    code = _python_block(_section("In a notebook"))
    flags = ast.PyCF_ONLY_AST | ast.PyCF_ALLOW_TOP_LEVEL_AWAIT
    body = compile(code, "README", "exec", flags=flags).body
    first_wait = next(
        n
        for n, node in enumerate(body)
        if any(isinstance(inner, ast.Await) for inner in ast.walk(node))
    )
    shown = [
        node
        for node in body[:first_wait]
        if isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Call)
        and isinstance(node.value.func, ast.Name)
        and node.value.func.id == "display"
    ]
    # Only a cell's last expression shows by itself; `await run` would wait on an unseen widget.
    assert shown, "the widget is not displayed before the cell awaits the run"


def test_the_first_screen_says_how_to_install_and_how_to_run_your_own_agent_offline() -> None:
    text = README.read_text(encoding="utf-8")
    head = "\n".join(text.splitlines()[:25])
    assert "pip install ." in head
    assert "needs no Node" in head
    assert "[pandas]" in head
    notebook = _section("In a notebook")
    assert "model=OfflineModel()" in notebook
    assert "calls a tool only when the request names" in notebook
