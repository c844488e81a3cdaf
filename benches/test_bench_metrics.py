"""fastcluster_metrics against scikit-learn and the floor, one group per metric and size.

Timing run:  pytest benches --benchmark-only --benchmark-json=bench.json
Quick check: pytest benches --benchmark-disable   (each case runs once, as a test)

Each group ("<metric> n=<size>") holds three cases on the same labels: ``ours``,
``sklearn`` and ``floor`` (NumPy reading every byte of the inputs once). Every case
checks its result against scikit-learn's value (conftest.py, ``sklearn_expected``):
ours and the floor before timing; scikit-learn on the result of its own timed run, so
that it is not run once more only to be checked.

scikit-learn at n = 1e7 (~45 s in all, adjusted_mutual_info_score ~18 s) runs only
with FCM_BENCH_FULL=1; ours and the floor always run at both sizes.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import fastcluster_metrics as fcm

FULL = os.environ.get("FCM_BENCH_FULL", "") not in ("", "0")

SIZES = ("1e6", "1e7")

METRICS = (
    "contingency_matrix",
    "pair_confusion_matrix",
    "rand_score",
    "adjusted_rand_score",
    "mutual_info_score",
    "normalized_mutual_info_score",
    "adjusted_mutual_info_score",
    "homogeneity_score",
    "completeness_score",
    "v_measure_score",
    "homogeneity_completeness_v_measure",
    "fowlkes_mallows_score",
    "entropy",
    "purity_score",
)

# scikit-learn is timed with pedantic(rounds=R, iterations=1): one call takes 0.1-3 s,
# adjusted_mutual_info_score ~1.5 s at 1e6 and ~18 s at 1e7.
SKLEARN_ROUNDS = {"1e6": 5, "1e7": 3}
SKLEARN_ROUNDS_AMI = {"1e6": 3, "1e7": 1}

# sklearn.metrics.cluster.entropy is deprecated since 1.8 (FutureWarning); ours may say so too.
ENTROPY_WARNINGS = (
    pytest.mark.filterwarnings("ignore:.*entropy:FutureWarning"),
    pytest.mark.filterwarnings("ignore:.*entropy:DeprecationWarning"),
)

Labels = tuple[np.ndarray, np.ndarray]


def assert_same(got: Any, want: Any, what: str) -> None:
    """Arrays: same type, shape, dtype and values. Floats: equal to 1e-10 relative."""
    if isinstance(want, np.ndarray):
        assert isinstance(got, np.ndarray), f"{what}: {type(got).__name__}, want ndarray"
        assert got.shape == want.shape, f"{what}: shape {got.shape}, want {want.shape}"
        assert got.dtype == want.dtype, f"{what}: dtype {got.dtype}, want {want.dtype}"
        assert np.array_equal(got, want), f"{what}: values differ"
    elif isinstance(want, tuple):
        assert isinstance(got, tuple), f"{what}: {type(got).__name__}, want tuple"
        assert len(got) == len(want), f"{what}: {len(got)} values, want {len(want)}"
        for i, (g, w) in enumerate(zip(got, want, strict=True)):
            assert_same(g, w, f"{what}[{i}]")
    else:
        assert got == pytest.approx(want, rel=1e-10, abs=0), f"{what}: {got!r}, want {want!r}"


def ours(name: str) -> Callable[[np.ndarray, np.ndarray], Any]:
    f = getattr(fcm, name)
    if name == "entropy":
        return lambda labels_true, labels_pred: f(labels_true)
    return f


def floor(name: str) -> Callable[[np.ndarray, np.ndarray], Any]:
    """NumPy reading every byte of the metric's inputs once (entropy: labels_true only)."""
    if name == "entropy":
        return lambda labels_true, labels_pred: (int(np.add.reduce(labels_true)),)
    return lambda labels_true, labels_pred: (
        int(np.add.reduce(labels_true)),
        int(np.add.reduce(labels_pred)),
    )


def cases() -> list[Any]:
    out = []
    for size in SIZES:
        for name in METRICS:
            for impl in ("ours", "sklearn", "floor"):
                marks: list[Any] = list(ENTROPY_WARNINGS) if name == "entropy" else []
                if impl == "sklearn" and size == "1e7":
                    marks.append(pytest.mark.slow_sklearn)
                    if not FULL:
                        marks.append(pytest.mark.skip(reason="needs FCM_BENCH_FULL=1"))
                out.append(pytest.param(name, size, impl, marks=marks, id=f"{name}-{size}-{impl}"))
    return out


def test_every_metric_is_benchmarked(sklearn_metrics: list[str]) -> None:
    assert sorted(METRICS) == sorted(sklearn_metrics)
    missing = [name for name in METRICS if not callable(getattr(fcm, name, None))]
    assert not missing, f"fastcluster_metrics lacks {missing}"


@pytest.mark.parametrize(("name", "size", "impl"), cases())
def test_bench(
    benchmark: Any,
    labels: Callable[[str], Labels],
    sklearn_expected: Callable[[str, str], Any],
    sklearn_run: Callable[[str, Labels], Any],
    name: str,
    size: str,
    impl: str,
) -> None:
    inputs = labels(size)
    benchmark.group = f"{name} n={size}"
    benchmark.extra_info.update(metric=name, size=size, n=inputs[0].size, impl=impl)
    what = f"{impl} {name} n={size}"

    if impl == "ours":
        f = ours(name)
        assert_same(f(*inputs), sklearn_expected(name, size), what)
        benchmark(f, *inputs)
    elif impl == "floor":
        f = floor(name)
        got = f(*inputs)
        assert_same(got, tuple(int(a.sum()) for a in inputs[: len(got)]), what)
        benchmark(f, *inputs)
    else:
        rounds = (SKLEARN_ROUNDS_AMI if name == "adjusted_mutual_info_score" else SKLEARN_ROUNDS)[
            size
        ]
        got = benchmark.pedantic(sklearn_run, args=(name, inputs), rounds=rounds, iterations=1)
        assert_same(got, sklearn_expected(name, size), what)
