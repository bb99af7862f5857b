"""The layout stays true: imports run one way between the packages, and no module is in a circle.

Every import counts, at the top, inside a function, or under TYPE_CHECKING: each is a
dependency a reader has to hold in mind. docs/architecture.md draws the same order.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import interrupt_widget

PACKAGE = "interrupt_widget"
SOURCE = Path(interrupt_widget.__file__).parent

RANKS: dict[str, int] = {
    "errors": 0,
    "identity": 0,
    "shared_list": 0,
    "clock": 0,
    "free_port": 0,
    "agui": 1,
    "ledger": 2,
    "decisions": 3,
    "policy": 4,
    "recordings": 4,
    "sdk": 5,
    "asking": 6,
    "http": 7,
    "batch": 7,
    "widgets": 8,
    "temporal": 8,
    "examples": 9,
    "lab": 9,
    "testing": 9,
    "__main__": 10,
    "": 10,
}
"""Where each part stands, lowest first: a module imports only from parts ranked below
its own, or from its own package. `""` is the package root (`interrupt_widget/__init__.py`)."""


def module_name(path: Path) -> str:
    parts = path.relative_to(SOURCE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES: dict[str, Path] = {module_name(p): p for p in SOURCE.rglob("*.py")}


def part_of(module: str) -> str:
    """The package or top-level module `module` belongs to (`""` for the root itself)."""
    return module.split(".")[1] if "." in module else ""


def imported(module: str, path: Path) -> Iterator[tuple[int, str]]:
    """(line, module) for every module of the kit that `module` imports."""
    is_package = path.name == "__init__.py"
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == PACKAGE:
                    yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".")
                base = base[: len(base) - node.level + (1 if is_package else 0)]
                source = ".".join([*base, node.module] if node.module else base)
            else:
                source = node.module or ""
            if source.split(".")[0] != PACKAGE:
                continue
            for alias in node.names:
                # `from interrupt_widget.asking import responders` imports a module, not a name.
                submodule = f"{source}.{alias.name}"
                yield node.lineno, submodule if submodule in MODULES else source


def edges() -> Iterator[tuple[str, int, str]]:
    for module, path in sorted(MODULES.items()):
        for line, target in imported(module, path):
            if target != module and target in MODULES:
                yield module, line, target


def test_every_part_has_a_rank() -> None:
    assert {part_of(m) for m in MODULES} == set(RANKS)


def test_no_module_imports_upward() -> None:
    upward = [
        f"{module}:{line} imports {target}"
        for module, line, target in edges()
        if part_of(module) != part_of(target) and RANKS[part_of(target)] >= RANKS[part_of(module)]
    ]
    assert not upward, "\n".join(upward)


def test_the_protocol_side_never_imports_the_agents_sdk() -> None:
    found = []
    for module, path in MODULES.items():
        if part_of(module) not in {"errors", "agui"}:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom) and not node.level
                else []
            )
            found += [
                f"{module}:{node.lineno} imports {n}"
                for n in names
                if n.split(".")[0] in {"agents", "openai"}
            ]
    assert not found, "\n".join(found)


def test_no_module_is_in_an_import_circle() -> None:
    graph: dict[str, set[str]] = {m: set() for m in MODULES}
    for module, _, target in edges():
        graph[module].add(target)
    circles: list[list[str]] = []
    state: dict[str, int] = {}  # 1: on the current path, 2: done

    def visit(module: str, path: list[str]) -> None:
        state[module] = 1
        for target in sorted(graph[module]):
            if state.get(target) == 1:
                circles.append([*path[path.index(target) :], target])
            elif target not in state:
                visit(target, [*path, target])
        state[module] = 2

    for module in sorted(graph):
        if module not in state:
            visit(module, [module])
    assert not circles, "\n".join(" -> ".join(c) for c in circles)
