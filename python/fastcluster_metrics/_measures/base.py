"""What every family of measures reads of a :class:`Contingency` (the conventions are in the
package's docstring, ``_measures/__init__.py``; the exact arithmetic they share is
``exact.py``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from .._table.weighted import WeightedTable
from .diagnostics import Diagnostics

if TYPE_CHECKING:
    from .._table.weighted import AnyTable

__all__ = ["TableMeasures"]

_NAN = float("nan")


class TableMeasures(Diagnostics):
    """The base of the measure families: what they read of the table."""

    __slots__ = ()

    if TYPE_CHECKING:

        @property
        def _cells(self) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]: ...

        _native_table: AnyTable

        @property
        def n(self) -> int: ...
        @property
        def class_sizes(self) -> NDArray[np.int64]: ...
        @property
        def cluster_sizes(self) -> NDArray[np.int64]: ...
        def to_numpy(self) -> NDArray[np.int64]: ...
        def mutual_info_score(self) -> float: ...
        def entropy_true(self) -> float: ...
        def entropy_pred(self) -> float: ...

    def _counts_only(
        self,
        func: str,
        counts: str = "couples of distinct sample pairs (or quadruples of samples)",
    ) -> None:
        """``ValueError`` on a table of weighted samples that are not all whole numbers, for a
        measure that ``counts`` what only whole numbers of samples make."""
        table = self._native_table
        if isinstance(table, WeightedTable) and not table.integral:
            raise ValueError(
                f"{func} is defined for counts only: it counts {counts}, which weights that are"
                " not whole numbers do not define. Use whole-number sample_weight and"
                " class_weight (each sample then counts that many times)"
            )
