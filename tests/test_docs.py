"""The documentation site's promises that `mkdocs build --strict` cannot check by itself.

The API reference is generated from docstrings, read as the site reads them (griffe, with the
site's extension): a public name, or a public method, property or field of a public class,
without a docstring would show as a bare signature, so it fails here. Every public name has a
place in the reference, and the notebooks the site renders load nothing from elsewhere.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

import griffe
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))
from griffe_runtime_exports import runtime_module

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = ROOT / "docs" / "reference"
DOCUMENTED = ("interrupt_widget", "interrupt_widget.responders", "interrupt_widget.examples")
"""The modules the reference documents, by the path a user writes (`interrupt_widget.responders`
is the asking package's module, imported from the root)."""


@pytest.fixture(scope="module")
def package() -> griffe.Module:
    extensions = griffe.load_extensions(
        f"{ROOT / 'scripts' / 'griffe_runtime_exports.py'}:RuntimeExports"
    )
    loaded = griffe.load(
        "interrupt_widget",
        search_paths=[str(ROOT / "src")],
        extensions=extensions,
        resolve_aliases=True,
        resolve_external=False,
    )
    assert isinstance(loaded, griffe.Module)
    return loaded


def _public_names(module_path: str) -> list[str]:
    module = runtime_module(module_path)
    return [
        name
        for name in module.__all__
        if not name.startswith("_") and not isinstance(getattr(module, name), type(module))
    ]


def _undocumented(obj: griffe.Object | griffe.Alias, path: str) -> list[str]:
    target = obj.final_target if isinstance(obj, griffe.Alias) else obj
    missing = [] if target.docstring else [path]
    if isinstance(target, griffe.Class):
        for name, member in target.members.items():
            if name.startswith("_") or isinstance(member, griffe.Alias):
                continue
            if not member.docstring:
                missing.append(f"{path}.{name}")
    return missing


@pytest.mark.parametrize("module_path", DOCUMENTED)
def test_every_public_name_and_member_has_a_docstring(
    package: griffe.Module, module_path: str
) -> None:
    real = runtime_module(module_path).__name__
    static = package if real == "interrupt_widget" else package[real.split(".", 1)[1]]
    assert static.docstring, module_path
    missing: list[str] = []
    for name in _public_names(module_path):
        missing += _undocumented(static[name], f"{module_path}.{name}")
    assert not missing, "add a docstring (the API reference shows it):\n" + "\n".join(missing)


def test_every_public_name_has_a_place_in_the_reference() -> None:
    pages = "\n".join(page.read_text(encoding="utf-8") for page in REFERENCE.glob("*.md"))
    shown = set(re.findall(r"^::: (\S+)", pages, re.MULTILINE))
    absent = [
        f"{module_path}.{name}"
        for module_path in DOCUMENTED
        for name in _public_names(module_path)
        if f"{module_path}.{name}" not in shown and module_path not in shown
    ]
    assert not absent, "add to docs/reference/ (`::: NAME`):\n" + "\n".join(absent)


def test_the_rendered_notebooks_carry_no_widget_state() -> None:
    # A notebook with saved widget state makes its page fetch a widget renderer from a CDN;
    # the widgets draw in a live kernel, and the saved state is a stale copy of the bundle.
    carrying = [
        notebook.name
        for notebook in sorted((ROOT / "notebooks").glob("*.ipynb"))
        if "widgets" in json.loads(notebook.read_text(encoding="utf-8"))["metadata"]
    ]
    assert not carrying, carrying


def _reader_texts() -> list[tuple[Path, str]]:
    """Every page a person reads: the docs, the README and the notebooks' cells."""
    pages = [*sorted((ROOT / "docs").rglob("*.md")), ROOT / "README.md"]
    texts = [(page, page.read_text(encoding="utf-8")) for page in pages]
    for notebook in sorted((ROOT / "notebooks").glob("*.ipynb")):
        cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
        texts.append((notebook, "\n".join("".join(cell["source"]) for cell in cells)))
    return texts


def test_every_nbval_command_in_the_docs_runs_in_the_current_environment() -> None:
    # Without --nbval-current-env nbval starts the kernel the notebook names, which may be
    # another Python, where the kit (or this version of it) is not installed.
    texts = _reader_texts()
    commands = [
        (page.name, line)
        for page, text in texts
        for line in text.replace("\\\n", " ").splitlines()
        if re.search(r"pytest\b.*--nbval", line)
    ]
    assert commands  # the guides do give some
    missing = [
        f"{name}: {line.strip()}" for name, line in commands if "--nbval-current-env" not in line
    ]
    assert not missing, "\n".join(missing)


_FROM_AN_INDEX = re.compile(r"""pip install[\s"'`]+(?:-\S+[\s"'`]+)*interrupt[-_]widget\b""")
"""An install of the kit by name, which fails: the kit is not on a package index (across a
line break and the quotes of a Python string continued on the next line, too)."""


def test_no_page_or_message_installs_the_kit_from_a_package_index() -> None:
    # `pip install "interrupt-widget[charts]"` finds nothing to install; what works is the
    # clone (`pip install ".[charts]"`), a wheel built once, or the package an extra adds.
    # The Temporal package's messages are left to its own change (src/.../temporal/).
    sources = [
        path
        for path in sorted((ROOT / "src" / "interrupt_widget").rglob("*.py"))
        if "temporal" not in path.relative_to(ROOT / "src" / "interrupt_widget").parts
    ]
    texts = [*_reader_texts(), *((path, path.read_text(encoding="utf-8")) for path in sources)]
    broken = [
        f"{path.relative_to(ROOT)}: {found[0]!r}"
        for path, text in texts
        for found in _FROM_AN_INDEX.finditer(text)
    ]
    assert not broken, "\n".join(broken)


def test_every_page_that_names_may_answer_says_an_empty_list_means_anyone() -> None:
    # `may_answer: []` reads as "nobody may" unless the page says otherwise; it means the
    # call's rule names no role, so anyone may answer (the card says "Anyone may still answer").
    pages = [
        (path, text)
        for path, text in _reader_texts()
        if "may_answer" in text and path.suffix == ".md"  # the notebooks only print it
    ]
    assert pages  # the people guide names it
    silent = [
        path.name
        for path, text in pages
        for paragraph in text.split("\n\n")
        if "may_answer" in paragraph
        and not re.search(r"empty[^.]*\banyone\b", paragraph.replace("\n", " "), re.I)
    ]
    assert not silent, silent


def test_every_guide_page_is_in_the_home_pages_table_and_the_sites_nav() -> None:
    # A guide page missing from the home table is a page a reader of the site's home
    # never finds; the nav is the other way in.
    home = (ROOT / "docs" / "index.md").read_text(encoding="utf-8")
    table = home.split("## The guide", 1)[1].split("\n\n", 2)[1]
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8").split("\nnav:", 1)[1]
    pages = sorted(p.name for p in (ROOT / "docs" / "guide").glob("*.md"))
    assert pages
    assert [p for p in pages if f"](guide/{p})" not in table] == []
    assert [p for p in pages if f": guide/{p}\n" not in nav] == []


_DURATION = re.compile(r"\b\d[\d,.]*(?:-\d[\d,.]*)? ?(?:s|min|minutes|seconds|hours?)\b")
_ABOUT_THE_SUITE = re.compile(r"`make test|\bsuite\b|\btier\b|\brehearsal\b|\bfresh clone\b")


def test_the_suites_time_is_stated_in_one_place() -> None:
    # The README and the site's home quoted different times (710 s, 647 s): the figure lives
    # in docs/performance.md's suite section alone, and every other page links there.
    performance = ROOT / "docs" / "performance.md"
    stated = [
        f"{path.relative_to(ROOT)}: {_DURATION.findall(paragraph)}"
        for path, text in _reader_texts()
        if path.suffix == ".md" and path != performance
        for paragraph in text.split("\n\n")
        if _ABOUT_THE_SUITE.search(paragraph) and _DURATION.search(paragraph)
    ]
    assert not stated, "\n".join(stated)
    section = performance.read_text(encoding="utf-8").split("## The whole suite (`make test`)")
    assert len(section) == 2, "docs/performance.md has no suite section"
    assert _DURATION.search(section[1].split("\n## ", 1)[0])
    for page in (ROOT / "README.md", ROOT / "docs" / "index.md"):
        assert "performance.md#the-whole-suite-make-test" in page.read_text(encoding="utf-8")
