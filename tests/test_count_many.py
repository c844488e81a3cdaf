"""One truth against the columns of a 2-D array: the one-pass matrix path against separate calls."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pytest

from fastcluster_metrics._measures.contingency import Contingency
from fastcluster_metrics._table import count as _labels


def _tables_equal(a: Any, b: Any) -> None:
    for x, y in zip(a.cells(), b.cells(), strict=True):
        np.testing.assert_array_equal(x, y)
    np.testing.assert_array_equal(a.row_keys(), b.row_keys())
    np.testing.assert_array_equal(a.col_keys(), b.col_keys())
    assert a.n == b.n


def _separate(truth: Any, matrix: np.ndarray, missing: str = "raise") -> list[Any]:
    return [
        _labels.count_columns(truth, np.ascontiguousarray(matrix[:, j]), missing=missing)[0]
        for j in range(matrix.shape[1])
    ]


@pytest.mark.parametrize("dtype", [np.int8, np.uint16, np.int32, np.int64, np.uint64, bool])
@pytest.mark.parametrize("layout", ["C", "F", "strided"])
@pytest.mark.parametrize("n", [0, 7, 3000, 200_000])
def test_matrix_columns_equal_separate_counts(dtype: Any, layout: str, n: int) -> None:
    rng = np.random.default_rng(n)
    truth = np.array(["b", "a", "c"])[rng.integers(0, 3, n)]
    wide = rng.integers(0, 100, (n, 9)).astype(dtype)
    if dtype == np.uint64:
        wide[::5] += np.uint64(2**63)
    matrix = {"C": wide, "F": np.asfortranarray(wide), "strided": wide[:, ::2]}[layout]
    tables = _labels.count_many(truth, matrix)
    assert len(tables) == matrix.shape[1]
    for got, want in zip(tables, _separate(truth, matrix), strict=True):
        _tables_equal(got, want)


def test_matrix_of_many_columns_with_many_labels() -> None:
    rng = np.random.default_rng(3)
    n = 100_000
    truth = rng.integers(-(2**62), 2**62, 50)[rng.integers(0, 50, n)]
    matrix = rng.integers(0, 20_000, (n, 40))
    for got, want in zip(_labels.count_many(truth, matrix), _separate(truth, matrix), strict=True):
        _tables_equal(got, want)


def test_matrix_with_missing_truth() -> None:
    truth = pd.Categorical(["a", None, "b", "a", None, "b"])
    matrix = np.array([[0, 1], [1, 1], [0, 2], [0, 1], [2, 2], [1, 2]])
    with pytest.raises(ValueError, match="labels_true has missing labels: 2 of 6"):
        _labels.count_many(truth, matrix)
    for missing in ("drop", "cluster"):
        tables = _labels.count_many(truth, matrix, missing=missing)
        for got, want in zip(tables, _separate(truth, matrix, missing), strict=True):
            _tables_equal(got, want)
    dropped = Contingency.from_labels(["a", "b", "a", "b"], [0, 0, 0, 1])
    got = _labels.count_many(truth, matrix, missing="drop")[0]
    assert got.cells()[2].tolist() == dropped.cells[2].tolist()


def test_matrix_length_mismatch() -> None:
    with pytest.raises(ValueError, match=r"inconsistent numbers of samples: \[3, 2\]"):
        _labels.count_many([0, 1, 2], np.zeros((2, 4), dtype=np.int64))


def test_float_and_string_matrices_take_the_column_path() -> None:
    truth = [0, 0, 1, 1]
    floats = np.array([[0.0, 1.0], [0.0, 1.0], [1.0, 2.0], [1.0, 3.0]])
    strings = floats.astype(str)
    for matrix in (floats, strings):
        tables = _labels.count_many(truth, matrix)
        assert [t.pair_sums() for t in tables] == [
            _labels.count_columns(truth, matrix[:, j])[0].pair_sums() for j in range(2)
        ]
