"""fastcluster_metrics against scikit-learn and the floor, one group per metric and size.

Timing run:  pytest benches --benchmark-only --benchmark-json=bench.json
Quick check: pytest benches --benchmark-disable   (each case runs once, as a test)

Every case checks its result against scikit-learn's value (conftest.Expected): ours and
the floor before timing, scikit-learn on the result of its own timed run, so that
scikit-learn is not run once more just to be checked. scikit-learn at n = 1e7 needs
FCM_BENCH_FULL=1.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import fastcluster_metrics as fcm

from conftest import FULL, SIZES, SKLEARN, Labels, assert_same, run_sklearn  # noqa: I001

METRICS = [
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
]

# scikit-learn is timed with pedantic(rounds=R, iterations=1): a call takes 0.1-3 s
# (adjusted_mutual_info_score: ~1.5 s at 1e6, ~36 s at 1e7).
SKLEARN_ROUNDS = {"1e6": 5, "1e7": 3}
SKLEARN_ROUNDS_AMI = {"1e6": 3, "1e7": 1}

# sklearn.metrics.cluster.entropy is deprecated (FutureWarning); ours may mirror that.
_ENTROPY_WARNINGS = [
    pytest.mark.filterwarnings("ignore:.*entropy:FutureWarning"),
    pytest.mark.filterwarnings("ignore:.*entropy:DeprecationWarning"),
]


def _ours(name: str) -> Callable[[np.ndarray, np.ndarray], Any]:
    f = getattr(fcm, name)
    if name == "entropy":
        return lambda labels_true, labels_pred: f(labels_true)
    return f


def _floor(name: str) -> Callable[[np.ndarray, np.ndarray], Any]:
    """NumPy reading every byte of the metric's inputs once (entropy: labels_true only)."""
    if name == "entropy":
        return lambda labels_true, labels_pred: int(np.add.reduce(labels_true))
    return lambda labels_true, labels_pred: (
        int(np.add.reduce(labels_true)),
        int(np.add.reduce(labels_pred)),
    )


def _cases() -> list[Any]:
    cases = []
    for size in SIZES:
        for name in METRICS:
            marks = list(_ENTROPY_WARNINGS) if name == "entropy" else []
            for impl in ("ours", "sklearn", "floor"):
                m = list(marks)
                if impl == "sklearn" and size == "1e7":
                    m.append(pytest.mark.slow_sklearn)
                    if not FULL:
                        m.append(pytest.mark.skip(reason="scikit-learn at 1e7: FCM_BENCH_FULL=1"))
                cases.append(pytest.param(name, size, impl, marks=m, id=f"{name}-{size}-{impl}"))
    return cases


def test_every_metric_is_benchmarked() -> None:
    assert sorted(METRICS) == sorted(SKLEARN)
    missing = [name for name in METRICS if not hasattr(fcm, name)]
    assert not missing, f"fastcluster_metrics lacks {missing}"


@pytest.mark.parametrize(("name", "size", "impl"), _cases())
def test_bench(
    benchmark: Any,
    labels: Callable[[str], Labels],
    sklearn_expected: Callable[[str, str], Any],
    name: str,
    size: str,
    impl: str,
) -> None:
    benchmark.group = f"{name} n={size}"
    benchmark.extra_info.update(metric=name, size=size, n=SIZES[size], impl=impl)
    inputs = labels(size)
    what = f"{impl} {name} n={size}"

    if impl == "ours":
        f = _ours(name)
        assert_same(f(*inputs), sklearn_expected(name, size), what)
        benchmark(f, *inputs)
    elif impl == "floor":
        f = _floor(name)
        want = f(*inputs)
        assert_same(np.array(f(*inputs)), np.array(want), what)
        benchmark(f, *inputs)
    else:
        rounds = (SKLEARN_ROUNDS_AMI if name == "adjusted_mutual_info_score" else SKLEARN_ROUNDS)[
            size
        ]
        got = benchmark.pedantic(run_sklearn, args=(name, inputs), rounds=rounds, iterations=1)
        assert_same(got, sklearn_expected(name, size), what)
