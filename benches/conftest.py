"""Inputs and the scikit-learn oracle for the benchmarks in this folder.

Every benchmark group times three things on the same labels: ``fastcluster_metrics``
("ours"), scikit-learn, and the floor (NumPy reading the inputs once).

Inputs: ``N_TRUE`` classes and ``N_PRED`` clusters of int64 labels from a fixed-seed
NumPy generator, correlated so that no score sits near zero (a near-zero score would
make a relative tolerance meaningless). Built once per session and per size.

Oracle: scikit-learn's value for each metric and size. Computing it at n = 1e7 takes
about 45 s (adjusted_mutual_info_score alone about 18 s), too slow for the quick CI
run, so the values are stored in ``sklearn_expected.json`` together with a digest of
the inputs they were computed from. A stored value is used only when the digest
matches the labels of this run; otherwise scikit-learn is run (once per session). The
scikit-learn benchmarks compare their own timed result with the stored value, so
every run checks the file against live scikit-learn (at n = 1e6 in CI; at both sizes
with ``FCM_BENCH_FULL=1``).

Regenerate the file after changing the inputs or upgrading scikit-learn::

    python benches/conftest.py

A plain ``pytest`` (the README's test command, and CI) runs each case once, as with
``--benchmark-disable``, and prints no timing tables, unless ``--benchmark-only`` (or
``--benchmark-enable``, ``--benchmark-json``, ``--benchmark-save``, ``--benchmark-autosave``)
asks for timings.
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import sklearn
import sklearn.metrics.cluster as skm

SEED = 20_240_917
N_TRUE = 20
N_PRED = 30
SIZES = {"1e6": 10**6, "1e7": 10**7}

EXPECTED_PATH = Path(__file__).with_name("sklearn_expected.json")

Labels = tuple[np.ndarray, np.ndarray]


def make_labels(n: int) -> Labels:
    """``N_TRUE`` classes x ``N_PRED`` clusters, int64, read-only, from ``SEED``.

    70 % of the samples go to one of the two clusters that class ``c`` maps to
    (``3c // 2`` or ``3c // 2 + 1``), the rest to a uniformly random cluster.
    """
    rng = np.random.default_rng(SEED)
    labels_true = rng.integers(0, N_TRUE, n, dtype=np.int64)
    mapped = labels_true * N_PRED // N_TRUE + rng.integers(0, 2, n, dtype=np.int64)
    noise = rng.integers(0, N_PRED, n, dtype=np.int64)
    labels_pred = np.where(rng.random(n) < 0.7, np.minimum(mapped, N_PRED - 1), noise)
    labels_true.flags.writeable = False
    labels_pred.flags.writeable = False
    return labels_true, labels_pred


def digest(labels: Labels) -> str:
    h = hashlib.blake2b(digest_size=16)
    for a in labels:
        h.update(f"{a.dtype.str}{a.shape}".encode())
        h.update(np.ascontiguousarray(a))
    return h.hexdigest()


def _purity(labels_true: np.ndarray, labels_pred: np.ndarray) -> float:
    # scikit-learn has no purity score: its contingency matrix, then the textbook
    # formula (sum over clusters of the largest class count, over n).
    c = skm.contingency_matrix(labels_true, labels_pred)
    return float(c.max(axis=0).sum() / c.sum())


def _two(f: Callable[..., Any]) -> Callable[[np.ndarray, np.ndarray], Any]:
    return lambda labels_true, labels_pred: f(labels_true, labels_pred)


# name -> scikit-learn's way to compute it from (labels_true, labels_pred).
# entropy takes labels_true only. sklearn.metrics.cluster.entropy is deprecated
# since 1.8 (FutureWarning); callers filter that warning.
SKLEARN: dict[str, Callable[[np.ndarray, np.ndarray], Any]] = {
    "contingency_matrix": _two(skm.contingency_matrix),
    "pair_confusion_matrix": _two(skm.pair_confusion_matrix),
    "rand_score": _two(skm.rand_score),
    "adjusted_rand_score": _two(skm.adjusted_rand_score),
    "mutual_info_score": _two(skm.mutual_info_score),
    "normalized_mutual_info_score": _two(skm.normalized_mutual_info_score),
    "adjusted_mutual_info_score": _two(skm.adjusted_mutual_info_score),
    "homogeneity_score": _two(skm.homogeneity_score),
    "completeness_score": _two(skm.completeness_score),
    "v_measure_score": _two(skm.v_measure_score),
    "homogeneity_completeness_v_measure": _two(skm.homogeneity_completeness_v_measure),
    "fowlkes_mallows_score": _two(skm.fowlkes_mallows_score),
    "entropy": lambda labels_true, labels_pred: skm.entropy(labels_true),
    "purity_score": _purity,
}


def run_sklearn(name: str, labels: Labels) -> Any:
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*entropy", category=FutureWarning)
        return SKLEARN[name](*labels)


def to_json(value: Any) -> Any:
    if isinstance(value, np.ndarray):
        return {"ndarray": value.tolist(), "dtype": value.dtype.str}
    if isinstance(value, tuple):
        return {"tuple": [to_json(v) for v in value]}
    return float(value)


def from_json(value: Any) -> Any:
    if isinstance(value, dict) and "ndarray" in value:
        return np.array(value["ndarray"], dtype=value["dtype"])
    if isinstance(value, dict) and "tuple" in value:
        return tuple(from_json(v) for v in value["tuple"])
    return value


class Expected:
    """scikit-learn's value per (metric, size): stored if the digest matches, else live."""

    def __init__(self, labels: Callable[[str], Labels]) -> None:
        self._labels = labels
        self._stored: dict[str, Any] = {}
        if EXPECTED_PATH.exists():
            self._stored = json.loads(EXPECTED_PATH.read_text())["inputs"]
        self._cache: dict[tuple[str, str], Any] = {}

    def __call__(self, name: str, size: str) -> Any:
        key = (name, size)
        if key not in self._cache:
            labels = self._labels(size)
            stored = self._stored.get(size, {})
            if stored.get("digest") == digest(labels) and name in stored["values"]:
                self._cache[key] = from_json(stored["values"][name])
            else:
                self._cache[key] = run_sklearn(name, labels)
        return self._cache[key]


@functools.cache
def _labels(size: str) -> Labels:
    return make_labels(SIZES[size])


@pytest.fixture(scope="session")
def labels() -> Callable[[str], Labels]:
    """``labels("1e6")`` -> ``(labels_true, labels_pred)``, built once per session."""
    return _labels


@pytest.fixture(scope="session")
def sklearn_run() -> Callable[[str, Labels], Any]:
    """``sklearn_run(name, labels)`` -> scikit-learn's value, computed now (for timing)."""
    return run_sklearn


@pytest.fixture(scope="session")
def sklearn_metrics() -> list[str]:
    """The names the oracle knows."""
    return list(SKLEARN)


@pytest.fixture(scope="session")
def sklearn_expected(labels: Callable[[str], Labels]) -> Expected:
    """``sklearn_expected(name, "1e6")`` -> scikit-learn's value, computed at most once."""
    return Expected(labels)


_TIMING_OPTIONS = (
    "benchmark_only",
    "benchmark_enable",
    "benchmark_json",
    "benchmark_save",
    "benchmark_autosave",
)


@pytest.hookimpl(tryfirst=True)  # before pytest-benchmark reads its options
def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "slow_sklearn: scikit-learn at n = 1e7; runs only with FCM_BENCH_FULL=1"
    )
    # A plain `pytest` (the README's test command, and CI) runs each case once as a test, as
    # with --benchmark-disable, and prints no timing tables, unless an option asks for timings.
    wants_timing = any(config.getoption(o, None) for o in _TIMING_OPTIONS)
    if not wants_timing and hasattr(config.option, "benchmark_disable"):
        config.option.benchmark_disable = True


def main() -> None:
    """Recompute every scikit-learn value at every size and store them."""
    out: dict[str, Any] = {
        "about": "scikit-learn's values on benches/conftest.py make_labels(); "
        "regenerate with `python benches/conftest.py`",
        "sklearn": sklearn.__version__,
        "numpy": np.__version__,
        "seed": SEED,
        "inputs": {},
    }
    for size in SIZES:
        labels = make_labels(SIZES[size])
        values = {}
        for name in SKLEARN:
            print(f"{size} {name}", flush=True)
            values[name] = to_json(run_sklearn(name, labels))
        out["inputs"][size] = {"n": SIZES[size], "digest": digest(labels), "values": values}
    text = json.dumps(out, indent=1)
    # one line per innermost list of numbers (a contingency-table row)
    text = re.sub(
        r"\[([-+\d.e,\s]*)\]",
        lambda m: "[" + ", ".join(x.strip() for x in m.group(1).split(",")) + "]",
        text,
    )
    EXPECTED_PATH.write_text(text + "\n")
    print(f"wrote {EXPECTED_PATH}")


if __name__ == "__main__":
    main()
