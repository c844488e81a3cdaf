"""The examples in the README and in every docstring run and print what they show."""

import doctest
from pathlib import Path

import pytest

import fastcluster_metrics
from fastcluster_metrics import _contingency, _evaluate, _many, _supervised

README = Path(__file__).resolve().parent.parent / "README.md"


@pytest.mark.parametrize(
    "module", [fastcluster_metrics, _supervised, _contingency, _evaluate, _many]
)
def test_docstring_examples(module):
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0
    assert result.failed == 0


def test_readme_quickstart():
    result = doctest.testfile(str(README), module_relative=False)
    assert result.attempted >= 4
    assert result.failed == 0
