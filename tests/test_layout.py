"""The package's folders go one way, and the architecture page is their map.

Each folder (or top-level module) of ``python/fastcluster_metrics`` imports only those before
it in ``ORDER``; no module imports one that imports it back; ``docs/architecture.md`` has a
section for each folder, in that order, naming each of its modules, and names every file of
the Rust core."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "python" / "fastcluster_metrics"
PAGE = ROOT / "docs" / "architecture.md"

# From the bottom up. The package's __init__ (the public API) stands above the folders it
# gathers; plot, dask and the command line use the API as a user would.
ORDER = [
    "_native",
    "_utils",
    "_labels",
    "_table",
    "_embedding",
    "_graph",
    "_soft",
    "_measures",
    "_many",
    "_io",
    "_scib",
    "__init__",
    "plot",
    "dask",
    "_cli",
    "__main__",
]


def _module_name(path: Path) -> str:
    """``fastcluster_metrics._table.count`` for ``_table/count.py`` (a package: its folder)."""
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, Path]:
    found = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
    found["fastcluster_metrics._native"] = PACKAGE / "_native.pyi"
    return found


def _imports(path: Path, modules: dict[str, Path]) -> set[str]:
    """The package modules a module imports, at any depth of its code (lazy imports too)."""
    name = _module_name(path)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                target = ".".join([*base, *([node.module] if node.module else [])])
            else:
                target = node.module or ""
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                found.add(sub if sub in modules else target)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
    return {m for m in found if m in modules and m != name}


def _unit(module: str) -> str:
    """The folder (or top-level module) a module belongs to."""
    parts = module.split(".")
    return "__init__" if len(parts) == 1 else parts[1]


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of a directed graph, or None."""
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        stack.append(node)
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return [*stack[stack.index(nxt) :], nxt]
            if nxt not in state and (found := visit(nxt)) is not None:
                return found
        stack.pop()
        state[node] = 2
        return None

    for node in sorted(graph):
        if node not in state and (found := visit(node)) is not None:
            return found
    return None


def test_the_cycle_finder_finds_a_cycle():
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": set()}) is None


def test_the_import_reader_resolves_relative_and_lazy_imports():
    modules = _modules()
    count = _imports(PACKAGE / "_table" / "count.py", modules)
    assert {"fastcluster_metrics._native", "fastcluster_metrics._labels.codes"} <= count
    assert "fastcluster_metrics._table.weighted" in count
    main = _imports(PACKAGE / "_cli" / "main.py", modules)
    assert "fastcluster_metrics._cli.demo" in main  # imported inside a function
    assert "fastcluster_metrics" in main  # the package's __version__


def test_every_module_belongs_to_a_folder_of_the_order():
    assert {_unit(m) for m in _modules()} == set(ORDER)


def test_folders_import_only_the_folders_below_them():
    modules = _modules()
    rank = {unit: i for i, unit in enumerate(ORDER)}
    upward = []
    for module, path in modules.items():
        for imported in _imports(path, modules):
            if rank[_unit(imported)] > rank[_unit(module)]:
                upward.append(f"{module} -> {imported}")
    assert not upward, upward


def test_no_import_cycles_between_the_package_modules():
    modules = _modules()
    graph = {m: _imports(p, modules) for m, p in modules.items()}
    cycle = _cycle(graph)
    assert cycle is None, " -> ".join(cycle or [])


def test_the_architecture_page_maps_each_folder_in_order():
    page = PAGE.read_text()
    python = page[page.index("## The Python package") : page.index("## The Rust core")]
    headings = re.findall(r"^### `([\w.]+?)/?`", python, re.M)
    folders = [u for u in ORDER if u not in ("_native", "__init__", "__main__")]
    assert headings == [f if (PACKAGE / f).is_dir() else f"{f}.py" for f in folders]
    sections = re.split(r"^### ", python, flags=re.M)[1:]
    for heading, section in zip(headings, sections, strict=True):
        folder = PACKAGE / heading
        if folder.is_dir():
            for module in folder.glob("*.py"):
                if module.name != "__init__.py":
                    assert f"`{module.name}`" in section, (heading, module.name)
    for paragraph in _paragraphs(page):
        assert len(paragraph.split()) <= 150, paragraph[:80]


def _paragraphs(page: str) -> list[str]:
    """The page's paragraphs, each list item and each table row on its own; no code."""
    prose = re.sub(r"^```.*?^```", "", page, flags=re.M | re.S)
    found = []
    for block in re.split(r"\n\s*\n", prose):
        found += re.split(r"\n(?=\s*(?:[-*|]|\d+\.) )", block.strip())
    return [p for p in found if p]


def test_the_paragraph_reader_splits_list_items_and_rows():
    page = "One two.\n\n1. a b\n   c\n2. d\n\n| x | y |\n| z | w |\n\n```\ncode\n```\n"
    assert _paragraphs(page) == ["One two.", "1. a b\n   c", "2. d", "| x | y |", "| z | w |"]


def test_the_architecture_page_names_every_rust_file():
    page = PAGE.read_text()
    for path in (ROOT / "rust" / "core" / "src").rglob("*.rs"):
        if path.name not in ("lib.rs", "mod.rs"):
            assert path.stem in page, path
