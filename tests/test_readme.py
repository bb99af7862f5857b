"""The README's code runs as written, its first screen keeps its promises, and its links lead
somewhere: it is the landing page, and the documentation site (docs/) holds the rest."""

from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

from interrupt_widget.recordings import RECORD_ENV, REPLAY_ENV

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


def test_one_install_section_near_the_top_names_every_extra_and_the_test_tools() -> None:
    text = README.read_text(encoding="utf-8")
    head = "\n".join(text.splitlines()[:30])
    assert "## Install" in head
    install = _section("Install")
    assert "pip install ." in install
    assert "needs no Node" in install
    extras = tomllib.loads((README.parent / "pyproject.toml").read_text(encoding="utf-8"))
    for extra in extras["project"]["optional-dependencies"]:
        assert f"| `{extra}` |" in install, extra
    for tool in ("pytest", "nbval", "mypy", "ruff"):
        assert tool in install, tool
    # One place says how to install: no other section gives a pip command.
    assert text.count("pip install") == install.count("pip install")
    notebook = _section("In a notebook")
    assert "model=OfflineModel()" in notebook
    assert "calls a tool only when the request names" in notebook


def test_one_setting_records_the_model_and_the_people_and_one_replays_them() -> None:
    install = _section("Install")
    blocks = re.findall(r"```(\w*)\n(.*?)```", install, re.DOTALL)
    [(language, block)] = [(lang, b) for lang, b in blocks if "pytest" in b]
    assert language == "bash"  # a shell block: the runner of python blocks leaves it alone
    command = block.replace("\\\n", " ")
    assert "pytest --nbval-lax --nbval-current-env my_notebook.ipynb" in command
    settings = dict(re.findall(r"(\w+)=(\S+)", command.split("pytest")[0]))
    assert settings == {REPLAY_ENV: "my_notebook"}
    assert f"`{RECORD_ENV}=my_notebook`" in install
    for written in ("my_notebook.cassette.jsonl", "my_notebook.decisions.json"):
        assert written in install


def test_the_readme_the_quickstart_and_the_first_notebook_agree_on_a_missing_key() -> None:
    quickstart = (README.parent / "docs" / "guide" / "quickstart.md").read_text(encoding="utf-8")
    offline = quickstart[quickstart.index("## Your own agent, offline") :]
    notebook = json.loads(
        (README.parent / "notebooks" / "01_quickstart.ipynb").read_text(encoding="utf-8")
    )
    first_cell = "".join(notebook["cells"][0]["source"])
    for said in (_section("In a notebook"), offline.split("\n## ")[0], first_cell):
        words = " ".join(said.split())
        # The example agents, and your own agent that names no model, run offline in a chat;
        # one that names a model needs the key (or model=OfflineModel()).
        assert "names no model" in words
        assert "names a model" in words
        assert "OfflineModel()" in words
        assert "keeps the model you gave it" not in words
