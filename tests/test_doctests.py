"""Every docstring example of the package runs and prints what it shows: the doctests of each
module of ``python/fastcluster_metrics`` (found by walking its files, not by a list kept by
hand), a module skipped only when an optional dependency it needs is not installed (named in
the skip)."""

from __future__ import annotations

import doctest
import importlib
import importlib.util
import inspect
import sys
from pathlib import Path
from types import ModuleType

import pytest

import fastcluster_metrics

PACKAGE = Path(fastcluster_metrics.__file__).resolve().parent
FLAGS = doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS

REQUIRED = {"numpy", "fastcluster_metrics"}
"""What the package needs installed (``[project] dependencies``): never a reason to skip."""


def _module_names() -> list[str]:
    """Every module of the package, by its files (``_io/readers/csv.py``:
    ``fastcluster_metrics._io.readers.csv``; a package: its folder's name)."""
    names = []
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        names.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return names


MODULES = _module_names()


def _optional(error: ModuleNotFoundError) -> str | None:
    """The optional dependency (not installed) an import error is about, or None."""
    top = (error.name or "").partition(".")[0]
    if not top or top in REQUIRED or importlib.util.find_spec(top) is not None:
        return None
    return top


def _import(name: str) -> ModuleType:
    """The module, or a skip that names the optional dependency it needs."""
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as e:
        missing = _optional(e)
        if missing is None:
            raise
        pytest.skip(f"{name} needs {missing}, which is not installed")


class _Runner(doctest.DocTestRunner):
    """Runs the examples quietly, keeping each failure as a line (file, line, example, what
    was expected and what came) and the optional dependencies found missing (the rest of a
    docstring that needs one is not held against it)."""

    def __init__(self) -> None:
        super().__init__(optionflags=FLAGS, verbose=False)
        self.problems: list[str] = []
        self.missing: set[str] = set()
        self._needing: set[str] = set()  # the docstrings that need a missing dependency

    def _where(self, test: doctest.DocTest, example: doctest.Example) -> str:
        line = (test.lineno or 0) + example.lineno + 1
        path = Path(test.filename or "?")
        shown = path.relative_to(PACKAGE.parent) if path.is_relative_to(PACKAGE.parent) else path
        return f"{shown}:{line} ({test.name}): {example.source.strip()}"

    def report_start(self, out, test, example):
        pass

    def report_success(self, out, test, example, got):
        pass

    def report_failure(self, out, test, example, got):
        if test.name in self._needing:
            return
        self.problems.append(
            f"{self._where(test, example)}\n    expected: {example.want!r}\n    got: {got!r}"
        )

    def report_unexpected_exception(self, out, test, example, exc_info):
        error = exc_info[1]
        if isinstance(error, ModuleNotFoundError) and (missing := _optional(error)) is not None:
            self.missing.add(missing)
            self._needing.add(test.name)
        if test.name in self._needing:
            return
        self.problems.append(
            f"{self._where(test, example)}\n    raised {type(error).__name__}: {error}"
        )


def _defined_in(obj: object) -> str | None:
    """The file that defines a function, class or property (by its code, not by its
    ``__module__``: the public ones are named as the package's), or None (a built-in)."""
    if isinstance(obj, property):
        obj = obj.fget
    if inspect.isclass(obj):
        for member in vars(obj).values():
            if isinstance(member, (staticmethod, classmethod)):
                member = member.__func__
            if isinstance(member, property):
                member = member.fget
            if inspect.isfunction(member) and not member.__code__.co_filename.startswith("<"):
                return member.__code__.co_filename
        return getattr(sys.modules.get(obj.__module__), "__file__", None)
    obj = inspect.unwrap(obj)
    return obj.__code__.co_filename if inspect.isfunction(obj) else None


class _Finder(doctest.DocTestFinder):
    """Finds the examples of what a module's file defines, whatever module it is named as
    (doctest's own finder goes by ``__module__``, and would find the public functions and
    classes in the package's ``__init__.py``, with line numbers of another file)."""

    def _from_module(self, module, object):
        file = _defined_in(object)
        return file is not None and Path(file).resolve() == Path(module.__file__).resolve()


def _doctests(module: ModuleType) -> list[doctest.DocTest]:
    """The module's doctests with examples: its own, and those of what its file defines."""
    return [test for test in _Finder().find(module, module.__name__) if test.examples]


def _file(name: str) -> Path:
    """The file of a module of the package, by its name (not imported)."""
    relative = Path(*name.split(".")[1:])
    folder = PACKAGE / relative
    return (folder / "__init__.py") if folder.is_dir() else PACKAGE / relative.with_suffix(".py")


@pytest.mark.parametrize("name", MODULES)
def test_the_docstring_examples_of_each_module_run(name, tmp_path, monkeypatch):
    module = _import(name)
    monkeypatch.chdir(tmp_path)  # an example that writes a file writes it here
    runner = _Runner()
    try:
        for test in _doctests(module):
            runner.run(test, out=lambda text: None)
    finally:
        if "matplotlib.pyplot" in sys.modules:
            sys.modules["matplotlib.pyplot"].close("all")
    if runner.problems:
        pytest.fail(
            f"{len(runner.problems)} example(s) of {name} failed:\n" + "\n".join(runner.problems),
            pytrace=False,
        )
    if runner.missing:
        pytest.skip(f"{name}'s examples need {', '.join(sorted(runner.missing))}, not installed")


def test_every_file_with_examples_has_them_found():
    """Each file of the package with a ``>>>`` example has its examples found (in the module
    of that file, whatever module its objects are named as), so that the walk above leaves
    none out."""
    found: set[Path] = set()
    skipped: set[Path] = set()
    for name in MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as e:
            if _optional(e) is None:
                raise
            skipped.add(_file(name).resolve())
            continue
        found.update(Path(t.filename).resolve() for t in _doctests(module) if t.filename)
    with_examples = {
        p.resolve() for p in PACKAGE.rglob("*.py") if ">>> " in p.read_text(encoding="utf-8")
    }
    left_out = sorted(str(p.relative_to(PACKAGE)) for p in with_examples - found - skipped)
    assert not left_out, left_out


def test_a_missing_optional_dependency_skips_and_a_missing_module_of_ours_fails():
    def run(source):
        runner = _Runner()
        test = doctest.DocTestParser().get_doctest(source, {}, "example", __file__, 0)
        runner.run(test, out=lambda text: None)
        return runner

    needing = run(">>> import not_installed_anywhere\n>>> not_installed_anywhere.x\n1\n")
    assert (needing.missing, needing.problems) == ({"not_installed_anywhere"}, [])
    stale = run(">>> from fastcluster_metrics._catalogue import resolve\n>>> 1 + 1\n3\n")
    assert not stale.missing
    assert [p.splitlines()[1].strip() for p in stale.problems] == [
        "raised ModuleNotFoundError: No module named 'fastcluster_metrics._catalogue'",
        "expected: '3\\n'",
    ]
