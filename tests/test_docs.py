"""The examples in the README, the documentation's pages and every docstring run and print what
they show; the documentation has every measure's formula."""

import doctest
import importlib.util
import re
from pathlib import Path

import pytest

import fastcluster_metrics
from fastcluster_metrics._many import compare as _many
from fastcluster_metrics._many import dendrogram as _dendrogram
from fastcluster_metrics._measures import evaluate as _evaluate
from fastcluster_metrics._measures import supervised as _supervised

README = Path(__file__).resolve().parent.parent / "README.md"
DOCS = README.parent / "docs"


@pytest.mark.parametrize(
    "module", [fastcluster_metrics, _supervised, _evaluate, _many, _dendrogram]
)
def test_docstring_examples(module):
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0
    assert result.failed == 0


def test_the_public_classes_examples_run_with_the_package():
    """The public classes are named as the package's (their ``__module__``), so that doctest
    finds their examples in the package, wherever they are defined."""
    found = doctest.DocTestFinder().find(fastcluster_metrics)
    names = {test.name for test in found if test.examples}
    assert {
        "fastcluster_metrics.Contingency",
        "fastcluster_metrics.ContingencyAccumulator",
    } <= names


def test_readme_quickstart():
    result = doctest.testfile(str(README), module_relative=False)
    assert result.attempted >= 4
    assert result.failed == 0


def test_changelog_names_the_version_of_pyproject():
    """CHANGELOG.md's newest version is pyproject.toml's, released on a date or not yet, and
    each kind of change has one heading per version."""
    root = README.parent
    pyproject = (root / "pyproject.toml").read_text(encoding="utf-8")
    version = re.search(r'^\[project\]$[^\[]*?^version = "([^"]+)"$', pyproject, re.M | re.S)
    assert version is not None
    changelog = (root / "CHANGELOG.md").read_text(encoding="utf-8")
    headings = re.findall(r"^## \[([^\]]+)\] - (\d{4}-\d{2}-\d{2}|Unreleased)$", changelog, re.M)
    assert headings and headings[0][0] == version.group(1)
    for section in re.split(r"^## ", changelog, flags=re.M)[1:]:
        kinds = re.findall(r"^### (.+)$", section, re.M)
        assert len(kinds) == len(set(kinds)), section.splitlines()[0]
    assert "[CHANGELOG.md](CHANGELOG.md)" in README.read_text(encoding="utf-8")


def test_the_cli_pages_table_is_the_command_lines():
    """The command line page's example table has the command line's columns: n and the
    default measures' short names, in as many blocks as the command line cuts them into."""
    from fastcluster_metrics._cli import render as cli_render
    from fastcluster_metrics._measures import lookup as _lookup

    text = (DOCS / "guide" / "cli.md").read_text(encoding="utf-8")
    block = text.split("```text\ntruth: ")[1].split("```")[0]
    heads = [line.split() for line in block.splitlines() if line.startswith("prediction")]
    assert [w for head in heads for w in head[1:]] == [
        "n",
        *(_lookup.label(m) for m in _lookup.default_names()),
    ]
    assert all(len(line) <= cli_render.TABLE_WIDTH for line in block.splitlines())


# --- the documentation site (docs/) ----------------------------------------------------------


def _docs_module(name: str):
    """``docs/<name>.py`` (the formulas) or ``docs/_ext/<name>.py`` (the Sphinx extension),
    imported from its path."""
    path = DOCS / f"{name}.py"
    if not path.exists():
        path = DOCS / "_ext" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_every_measure_has_a_formula():
    """docs/formulas.py has a formula for each row of the catalogue and for nothing else: a
    measure cannot be added without one, nor renamed without its formula."""
    from fastcluster_metrics._measures.catalogue import MEASURES

    formulas = _docs_module("formulas").FORMULAS
    assert set(formulas) == set(MEASURES)
    per_sample = _docs_module("formulas").PER_SAMPLE
    assert set(per_sample) == {m.name for m in MEASURES.values() if m.per_sample is not None}
    for name, formula in formulas.items():
        assert formula.strip(), name
        # balanced braces, or MathJax shows the source instead of the formula
        assert formula.count("{") == formula.count("}"), name
        assert formula.count(r"\left") == formula.count(r"\right"), name


def test_the_measures_page_shows_every_measure_with_its_formula(monkeypatch):
    """The measures page (docs/measures.rst, ``.. fcm-measures::``) lists every measure of the
    catalogue in its table and in a section of its own with its formula, range and names."""
    pytest.importorskip("sphinx")
    from fastcluster_metrics._measures.catalogue import MEASURES

    formulas = _docs_module("formulas")
    monkeypatch.setitem(__import__("sys").modules, "formulas", formulas)
    extension = _docs_module("fcm_docs")
    text = "\n".join(extension.measures_rst())
    assert f"All {len(MEASURES)} measures" in text
    for row in MEASURES.values():
        anchor = extension._anchor(row.name)
        assert f"   * - :ref:`{row.name} <{anchor}>`" in text, row.name
        section = text.split(f".. _{anchor}:\n")[1].split("\n.. _measure-")[0]
        assert section.count(".. math::") == 1, row.name
        assert formulas.FORMULAS[row.name].split("\n")[0] in section, row.name
        if row.per_sample is not None:
            assert formulas.PER_SAMPLE[row.name] in section, row.name
        for short in row.short[1:]:
            assert f"``{short}``" in section, row.name
    assert ".. fcm-measures::" in (DOCS / "measures.rst").read_text(encoding="utf-8")


def test_the_api_reference_lists_every_public_name():
    """docs/api.rst names every name of ``__all__`` of the package, plot and dask."""
    from fastcluster_metrics import dask, plot

    api = (DOCS / "api.rst").read_text(encoding="utf-8")
    blocks = re.split(r"^\.\. currentmodule:: ", api, flags=re.M)
    listed: dict[str, set[str]] = {}
    for block in blocks[1:]:
        module, _, body = block.partition("\n")
        names = set(re.findall(r"^   (\w+)$", body, re.M))
        listed.setdefault(module.strip(), set()).update(names)
    assert listed["fastcluster_metrics"] == set(fastcluster_metrics.__all__)
    assert listed["fastcluster_metrics.plot"] == set(plot.__all__)
    assert listed["fastcluster_metrics.dask"] == set(dask.__all__)


EXAMPLE_PAGES = sorted(
    p.relative_to(DOCS).as_posix()
    for p in DOCS.rglob("*.md")
    if "_build" not in p.parts and ">>>" in p.read_text(encoding="utf-8")
)


def test_the_guide_has_examples():
    assert {"getting-started.md", "guide/choosing.md", "guide/single-cell.md"} <= set(EXAMPLE_PAGES)


@pytest.mark.parametrize("page", EXAMPLE_PAGES)
def test_docs_page_examples(page):
    """The ``>>>`` examples of each Markdown page run (Sphinx's doctest builder runs them
    too, in CI)."""
    result = doctest.testfile(str(DOCS / page), module_relative=False, encoding="utf-8")
    assert result.failed == 0


def test_every_measure_of_another_kind_has_a_formula_on_the_measures_page(monkeypatch):
    """The measures of memberships, covers, embeddings and graphs (the catalogue's OTHERS)
    each have a formula in docs/formulas.py and a section of the measures page."""
    pytest.importorskip("sphinx")
    from fastcluster_metrics._measures.catalogue import KINDS, OTHERS

    formulas = _docs_module("formulas")
    assert set(formulas.OTHER_FORMULAS) == set(OTHERS)
    assert set(formulas.OTHER_NOTATION) == set(KINDS) - {"table"}
    monkeypatch.setitem(__import__("sys").modules, "formulas", formulas)
    extension = _docs_module("fcm_docs")
    text = "\n".join(extension.other_measures_rst())
    for row in OTHERS.values():
        anchor = extension._anchor(row.name)
        assert f"   * - :ref:`{row.name} <{anchor}>`" in text, row.name
        section = text.split(f".. _{anchor}:\n")[1].split("\n.. _measure-")[0]
        assert formulas.OTHER_FORMULAS[row.name].split("\n")[0] in section, row.name
        assert f":func:`~fastcluster_metrics.{row.function_name}`" in section, row.name
    assert ".. fcm-other-measures::" in (DOCS / "measures.rst").read_text(encoding="utf-8")
