"""No function in src/ runs over 60 lines unless a comment says why it must.

A function's length is its lines from `def` to its end, less its docstring: a docstring
that documents every option is welcome, and it does not make the code harder to follow.
A function that must be long says why in a `# long: <reason>` comment on the line
above its `def` (above its decorators, if it has any).
"""

from __future__ import annotations

import ast
from pathlib import Path

import interrupt_widget

SOURCE = Path(interrupt_widget.__file__).parent
LIMIT = 60
LONG = "# long:"


def _length(node: ast.FunctionDef | ast.AsyncFunctionDef) -> int:
    assert node.end_lineno is not None
    lines = node.end_lineno - node.lineno + 1
    first = node.body[0]
    if (
        isinstance(first, ast.Expr)
        and isinstance(first.value, ast.Constant)
        and isinstance(first.value.value, str)
    ):
        assert first.end_lineno is not None
        lines -= first.end_lineno - first.lineno + 1
    return lines


def _says_why(node: ast.FunctionDef | ast.AsyncFunctionDef, lines: list[str]) -> bool:
    top = min([node.lineno, *(d.lineno for d in node.decorator_list)])
    above = lines[top - 2].strip() if top >= 2 else ""
    return above.startswith(LONG) and len(above) > len(LONG) + 3


def long_functions() -> list[str]:
    found = []
    for path in sorted(SOURCE.rglob("*.py")):
        relative = path.relative_to(SOURCE).as_posix()
        text = path.read_text(encoding="utf-8")
        lines = text.splitlines()
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                length = _length(node)
                if length > LIMIT and not _says_why(node, lines):
                    found.append(f"{relative}:{node.lineno} {node.name} ({length} lines)")
    return found


def test_no_function_is_long_without_saying_why() -> None:
    found = long_functions()
    assert not found, "\n".join(found)


def test_the_measure_sees_a_long_function(tmp_path: Path) -> None:
    body = "\n".join(f"    x{i} = {i}" for i in range(LIMIT + 1))
    tree = ast.parse(f"def f():\n    '''Doc.'''\n{body}\n")
    node = tree.body[0]
    assert isinstance(node, ast.FunctionDef)
    assert _length(node) == LIMIT + 2  # the def line and its body, not the docstring
    lines = ["# long: a table of cases reads best in one place", "def f():"]
    said = ast.parse("\n".join([*lines, "    pass"])).body[0]
    assert isinstance(said, ast.FunctionDef)
    assert _says_why(said, lines)
