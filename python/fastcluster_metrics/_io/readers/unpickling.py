"""The guard against pickles in Arrow files: Parquet and Arrow IPC files are read only with a
pyarrow that does not unpickle the ``arrow.py_extension_type`` columns a file may hold
(14.0.1 or later, not told to by ``PyExtensionType.set_auto_load(True)``), and such a column is
refused (CVE-2023-47248)."""

from __future__ import annotations

import re
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from ..errors import MissingDependencyError, UnsafeFileError

__all__ = ["PICKLED", "refuse_pickled", "refuse_unpickling", "unpickling_refused_quietly"]


PICKLED = "arrow.py_extension_type"
"""pyarrow's extension type of pickled Python objects (CVE-2023-47248; gone in pyarrow 21)."""
_AUTO_LOAD = "_py_extension_type_auto_load"
"""pyarrow.lib's switch (14.0.1 to 20) that ``PyExtensionType.set_auto_load`` turns."""


def refuse_unpickling(pyarrow: Any, kind: str, extra: str, name: str) -> None:
    """Refuses a ``pyarrow`` that would unpickle the columns of a ``kind`` file (``name``)
    as it reads them: before 14.0.1, or set to (``extra`` installs a safe one)."""
    if _release(pyarrow.__version__) < (14, 0, 1):
        # pyarrow before 14.0.1 unpickles the metadata of a column of the extension type
        # arrow.py_extension_type as it reads the schema: code the file carries
        raise MissingDependencyError(
            f"reading {kind} files needs pyarrow 14.0.1 or later (pyarrow"
            f" {pyarrow.__version__} runs code a file can carry, CVE-2023-47248): pip"
            f" install 'fastcluster-metrics[{extra}]'"
        )
    if getattr(pyarrow.lib, _AUTO_LOAD, False):
        # pyarrow 14.0.1 to 20 unpickles them again once told to
        raise UnsafeFileError(
            f"{name}: pyarrow is set to unpickle the columns of the extension type"
            f" {PICKLED} a {kind} file may hold (pyarrow.PyExtensionType.set_auto_load"
            "(True)), which runs code the file can carry; refusing to read it"
        )


def refuse_pickled(name: str, column: str, arrow_type: Any) -> None:
    """Refuses a column (of the file ``name``) of the extension type of pickles."""
    if getattr(arrow_type, "extension_name", None) == PICKLED:
        raise UnsafeFileError(
            f"{name}: column {column!r} is of the extension type {PICKLED}, a pickle"
            " that could run code when decoded; refusing to read it"
        )


@contextmanager
def unpickling_refused_quietly() -> Iterator[None]:
    """pyarrow 14.0.1 to 20 warns, twice, each time it meets the type of a column of
    ``arrow.py_extension_type`` (which it no longer unpickles: an ``UnknownExtensionType``);
    the column is refused in one line of ours (:func:`refuse_pickled`) instead."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "pickle-based deserialization", RuntimeWarning)
        warnings.filterwarnings("ignore", "pyarrow.PyExtensionType is deprecated", FutureWarning)
        yield


def _release(version: str) -> tuple[int, ...]:
    """A version's first three numbers (``"14.0.1.dev2"``: ``(14, 0, 1)``)."""
    return tuple(int(n) for n in re.findall(r"\d+", version)[:3])
