"""The examples in the README and in every docstring run and print what they show."""

import doctest
import re
from pathlib import Path

import pytest

import fastcluster_metrics
from fastcluster_metrics import _contingency, _dendrogram, _evaluate, _many, _supervised

README = Path(__file__).resolve().parent.parent / "README.md"


@pytest.mark.parametrize(
    "module", [fastcluster_metrics, _supervised, _contingency, _evaluate, _many, _dendrogram]
)
def test_docstring_examples(module):
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0
    assert result.failed == 0


def test_readme_quickstart():
    result = doctest.testfile(str(README), module_relative=False)
    assert result.attempted >= 4
    assert result.failed == 0


def test_changelog_names_the_version_of_pyproject():
    """CHANGELOG.md's newest release is pyproject.toml's version, under an [Unreleased] section."""
    root = README.parent
    pyproject = (root / "pyproject.toml").read_text(encoding="utf-8")
    version = re.search(r'^\[project\]$[^\[]*?^version = "([^"]+)"$', pyproject, re.M | re.S)
    assert version is not None
    changelog = (root / "CHANGELOG.md").read_text(encoding="utf-8")
    headings = re.findall(r"^## \[([^\]]+)\]( - \d{4}-\d{2}-\d{2})?$", changelog, re.M)
    assert headings[0] == ("Unreleased", "")
    assert headings[1][0] == version.group(1) and headings[1][1]
    assert "[CHANGELOG.md](CHANGELOG.md)" in README.read_text(encoding="utf-8")


def test_readme_table_is_the_command_lines():
    """The README's example table has the command line's columns: n and the default measures'
    short names, in as many blocks as the command line cuts them into."""
    from fastcluster_metrics import _catalogue, _cli

    text = README.read_text(encoding="utf-8")
    block = text.split("```text\ntruth: ")[1].split("```")[0]
    heads = [line.split() for line in block.splitlines() if line.startswith("prediction")]
    assert [w for head in heads for w in head[1:]] == [
        "n",
        *(_catalogue.label(m) for m in _catalogue.default_names()),
    ]
    assert all(len(line) <= _cli.TABLE_WIDTH for line in block.splitlines())
