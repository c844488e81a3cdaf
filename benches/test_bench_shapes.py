"""Shapes of the contingency table at n = 1e6: ours against scikit-learn, the floor and the peers.

Timing run:  pytest benches/test_bench_shapes.py --benchmark-only --benchmark-json=shapes.json
Report:      python benches/report.py shapes.json
Oracle file: python benches/test_bench_shapes.py   (rewrites sklearn_expected_shapes.json)

Groups, all on n = 1e6 int64 labels (``make_labels``):

- ``adjusted_rand_score`` on four shapes: ``20x30`` (20 classes x 30 clusters), ``1000x1000``,
  ``33x10000`` (33 cell types, 10,000 clusters) and ``singletons`` (20 classes, the prediction
  a permutation of ``arange(n)``: one sample per cluster). Cases: ``ours``, ``sklearn``,
  ``floor`` (NumPy reading both arrays once), ``genieclust``
  (``genieclust.compare_partitions.adjusted_rand_score``, a dense table) and ``permetrics``
  (``ClusteringMetric(y_true, y_pred).adjusted_rand_score()``, a dense table from
  ``np.unique`` and ``scipy.sparse.coo_matrix``). Both peers fit here: their dense tables for
  the singletons are 20 x 1e6 (160 MB), not 1e6 x 1e6.
- ``adjusted_mutual_info_score`` on ``33x60`` and ``33x10000``: ``ours``, ``sklearn``,
  ``floor``, ``genieclust`` (``compare_partitions.adjusted_mi_score``, the same AMI_sum).
- ``evaluate`` on ``20x30``: ``fcm.evaluate(t, p)`` (its default measures: scikit-learn's
  scores and purity) against ``sklearn`` calling each of those metrics in turn (purity from its
  ``contingency_matrix``, as conftest.py does).

Every case checks its value before it is timed (scikit-learn's own timed result after), against
scikit-learn's value, to 1e-10 relative (AMI 33x10000: 1e-9, see ``REL``). scikit-learn's values
come from ``sklearn_expected_shapes.json``, used only where the digest of the inputs matches,
otherwise from scikit-learn itself, once per session.

With FCM_BENCH_FULL=1 the slow pieces run too: scikit-learn's and genieclust's AMI with 10,000
clusters and genieclust's AMI with 60 (about 3 s each here); without it ``ours`` is checked
against the stored value.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import sys
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import sklearn
import sklearn.metrics.cluster as skm

import fastcluster_metrics as fcm

try:
    import genieclust
except ImportError:  # a peer, compared where installed
    genieclust = None
try:
    from permetrics import ClusteringMetric
except ImportError:
    ClusteringMetric = None

FULL = os.environ.get("FCM_BENCH_FULL", "") not in ("", "0")

N = 1_000_000
SEED = 20_250_105
EXPECTED_PATH = Path(__file__).with_name("sklearn_expected_shapes.json")

# shape -> (classes, clusters); clusters None: every sample its own cluster
SHAPES: dict[str, tuple[int, int | None]] = {
    "20x30": (20, 30),
    "1000x1000": (1000, 1000),
    "33x10000": (33, 10_000),
    "singletons": (20, None),
    "33x60": (33, 60),
}
GROUPS: dict[str, tuple[str, ...]] = {
    "adjusted_rand_score": ("20x30", "1000x1000", "33x10000", "singletons"),
    "adjusted_mutual_info_score": ("33x60", "33x10000"),
    "evaluate": ("20x30",),
}
SHORT = {"adjusted_rand_score": "ARI", "adjusted_mutual_info_score": "AMI", "evaluate": "evaluate"}

# Relative tolerance against scikit-learn. AMI with 10,000 clusters: scikit-learn's expected
# mutual information sums about 3e7 terms, each the exp of a sum of eight gammaln values near
# 1.3e7 (gammaln(1e6)), whose rounding (about 2e-9 each) leaves it 6e-11 relative from
# tests/reference.py's large_ami (a ratio recurrence summed with math.fsum); ours is within 2e-16
# of that reference, genieclust -6e-11 from it, so genieclust and scikit-learn differ by 1.2e-10.
# Hence 1e-9 for that group (33x60: all three within 3e-13 of the reference).
REL = 1e-10
REL_AMI_WIDE = 1e-9

# scikit-learn and the slow peers: benchmark.pedantic(rounds=R, iterations=1).
ROUNDS = {"adjusted_rand_score": 3, "adjusted_mutual_info_score": 2, "evaluate": 2}

Labels = tuple[np.ndarray, np.ndarray]


@functools.cache
def make_labels(shape: str) -> Labels:
    """``N`` int64 labels of one shape, read-only, from ``SEED`` and the shape's position.

    Correlated as in conftest.py: 70 % of the samples of class ``c`` go to one of the
    ``max(1, clusters // classes)`` clusters from ``c * clusters // classes`` on, the rest to a
    uniformly random cluster. ``singletons``: the prediction is a permutation of ``arange(N)``.
    """
    n_true, n_pred = SHAPES[shape]
    rng = np.random.default_rng([SEED, list(SHAPES).index(shape)])
    labels_true = rng.integers(0, n_true, N, dtype=np.int64)
    if n_pred is None:
        labels_pred = rng.permutation(N).astype(np.int64)
    else:
        span = max(1, n_pred // n_true)
        mapped = labels_true * n_pred // n_true + rng.integers(0, span, N, dtype=np.int64)
        noise = rng.integers(0, n_pred, N, dtype=np.int64)
        labels_pred = np.where(rng.random(N) < 0.7, np.minimum(mapped, n_pred - 1), noise)
    labels_true.flags.writeable = False
    labels_pred.flags.writeable = False
    return labels_true, labels_pred


@functools.cache
def digest(shape: str) -> str:
    h = hashlib.blake2b(digest_size=16)
    for a in make_labels(shape):
        h.update(f"{a.dtype.str}{a.shape}".encode())
        h.update(np.ascontiguousarray(a))
    return h.hexdigest()


def _purity(labels_true: np.ndarray, labels_pred: np.ndarray) -> float:
    c = skm.contingency_matrix(labels_true, labels_pred)
    return float(c.max(axis=0).sum() / c.sum())


# fcm.evaluate's default measures, each as scikit-learn computes it
SKLEARN_EVALUATE: dict[str, Callable[[np.ndarray, np.ndarray], Any]] = {
    "adjusted_rand_score": skm.adjusted_rand_score,
    "rand_score": skm.rand_score,
    "adjusted_mutual_info_score": skm.adjusted_mutual_info_score,
    "normalized_mutual_info_score": skm.normalized_mutual_info_score,
    "mutual_info_score": skm.mutual_info_score,
    "homogeneity_score": skm.homogeneity_score,
    "completeness_score": skm.completeness_score,
    "v_measure_score": skm.v_measure_score,
    "fowlkes_mallows_score": skm.fowlkes_mallows_score,
    "purity_score": _purity,
}


def sklearn_evaluate(labels_true: np.ndarray, labels_pred: np.ndarray) -> dict[str, float]:
    """The sum of scikit-learn's calls: each of ``evaluate``'s measures in turn."""
    return {name: float(f(labels_true, labels_pred)) for name, f in SKLEARN_EVALUATE.items()}


def ours_evaluate(labels_true: np.ndarray, labels_pred: np.ndarray) -> dict[str, float]:
    return {k: float(v) for k, v in fcm.evaluate(labels_true, labels_pred).to_dict().items()}


SKLEARN: dict[str, Callable[[np.ndarray, np.ndarray], Any]] = {
    "adjusted_rand_score": skm.adjusted_rand_score,
    "adjusted_mutual_info_score": skm.adjusted_mutual_info_score,
    "evaluate": sklearn_evaluate,
}


def run_sklearn(metric: str, labels: Labels) -> Any:
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*entropy", category=FutureWarning)
        return SKLEARN[metric](*labels)


def peer(metric: str, impl: str) -> Callable[[np.ndarray, np.ndarray], float] | None:
    """A peer's implementation of ``metric``, or None where it lacks it or is not installed."""
    if impl == "genieclust" and genieclust is not None:
        cp = genieclust.compare_partitions
        return {
            "adjusted_rand_score": cp.adjusted_rand_score,
            "adjusted_mutual_info_score": cp.adjusted_mi_score,
        }.get(metric)
    if impl == "permetrics" and ClusteringMetric is not None and metric == "adjusted_rand_score":
        return lambda t, p: ClusteringMetric(y_true=t, y_pred=p).adjusted_rand_score()
    return None


def floor(labels_true: np.ndarray, labels_pred: np.ndarray) -> tuple[int, int]:
    """NumPy reading every byte of both inputs once."""
    return int(np.add.reduce(labels_true)), int(np.add.reduce(labels_pred))


class Expected:
    """scikit-learn's value per (metric, shape): stored if the digest matches, else computed."""

    def __init__(self) -> None:
        self._stored: dict[str, Any] = {}
        if EXPECTED_PATH.exists():
            self._stored = json.loads(EXPECTED_PATH.read_text())["values"]
        self._cache: dict[str, Any] = {}

    def __call__(self, metric: str, shape: str) -> Any:
        key = f"{metric} {shape}"
        if key not in self._cache:
            stored = self._stored.get(key, {})
            if stored.get("digest") == digest(shape):
                self._cache[key] = stored["value"]
            else:
                self._cache[key] = run_sklearn(metric, make_labels(shape))
        return self._cache[key]


@pytest.fixture(scope="session")
def expected() -> Expected:
    return Expected()


def assert_close(got: Any, want: Any, rel: float, what: str) -> None:
    if isinstance(want, dict):
        assert isinstance(got, dict), f"{what}: {type(got).__name__}, want dict"
        assert sorted(got) == sorted(want), f"{what}: measures {sorted(got)}, want {sorted(want)}"
        for k in want:
            assert_close(got[k], want[k], rel, f"{what} {k}")
    else:
        assert got == pytest.approx(want, rel=rel, abs=0), f"{what}: {got!r}, want {want!r}"


def slow(metric: str, shape: str, impl: str) -> bool:
    """The cases that run only with FCM_BENCH_FULL=1 (about 3 s each)."""
    if metric != "adjusted_mutual_info_score":
        return False
    return impl == "genieclust" or (impl == "sklearn" and shape == "33x10000")


def cases() -> list[Any]:
    out = []
    for metric, shapes in GROUPS.items():
        impls = ["ours", "sklearn", "floor"]
        impls += [p for p in ("genieclust", "permetrics") if metric != "evaluate"]
        for shape in shapes:
            for impl in impls:
                marks = []
                if impl in ("genieclust", "permetrics") and peer(metric, impl) is None:
                    if metric == "adjusted_mutual_info_score" and impl == "permetrics":
                        continue  # permetrics has no AMI
                    marks.append(pytest.mark.skip(reason=f"{impl} is not installed"))
                if slow(metric, shape, impl) and not FULL:
                    marks.append(pytest.mark.skip(reason="needs FCM_BENCH_FULL=1"))
                out.append(
                    pytest.param(metric, shape, impl, marks=marks, id=f"{metric}-{shape}-{impl}")
                )
    return out


def test_evaluate_defaults_are_sklearns() -> None:
    """The sklearn side of the evaluate group computes exactly evaluate's default measures."""
    got = fcm.evaluate(np.array([0, 0, 1, 1]), np.array([0, 1, 1, 2])).to_dict()
    assert sorted(got) == sorted(SKLEARN_EVALUATE)


def test_shapes() -> None:
    """The inputs have the shapes their names promise."""
    for shape, (n_true, n_pred) in SHAPES.items():
        t, p = make_labels(shape)
        assert np.unique(t).size == n_true, shape
        assert np.unique(p).size == (N if n_pred is None else n_pred), shape


@pytest.mark.parametrize(("metric", "shape", "impl"), cases())
def test_bench_shape(
    benchmark: Any, expected: Expected, metric: str, shape: str, impl: str
) -> None:
    inputs = make_labels(shape)
    benchmark.group = f"{metric} {shape} n=1e6"
    benchmark.extra_info.update(metric=f"{SHORT[metric]} {shape}", size="1e6", n=N, impl=impl)
    rel = REL_AMI_WIDE if (metric, shape) == ("adjusted_mutual_info_score", "33x10000") else REL
    what = f"{impl} {metric} {shape}"

    if impl == "ours":
        f = ours_evaluate if metric == "evaluate" else getattr(fcm, metric)
        assert_close(f(*inputs), expected(metric, shape), rel, what)
        if metric == "evaluate":
            benchmark(fcm.evaluate, *inputs)
        else:
            benchmark(f, *inputs)
    elif impl == "floor":
        assert floor(*inputs) == tuple(int(a.sum()) for a in inputs), what
        benchmark(floor, *inputs)
    elif impl == "sklearn":
        got = benchmark.pedantic(
            run_sklearn, args=(metric, inputs), rounds=ROUNDS[metric], iterations=1
        )
        assert_close(got, expected(metric, shape), rel, what)
    else:
        f = peer(metric, impl)
        assert f is not None
        assert_close(float(f(*inputs)), expected(metric, shape), rel, what)
        if metric == "adjusted_mutual_info_score":  # ~3 s a call
            benchmark.pedantic(f, args=inputs, rounds=1, iterations=1)
        else:
            benchmark(f, *inputs)


def main() -> None:
    """Recompute scikit-learn's value for every group and store it with the inputs' digest."""
    values: dict[str, Any] = {}
    for metric, shapes in GROUPS.items():
        for shape in shapes:
            print(f"{metric} {shape}", flush=True)
            value = run_sklearn(metric, make_labels(shape))
            values[f"{metric} {shape}"] = {
                "digest": digest(shape),
                "value": value if isinstance(value, dict) else float(value),
            }
    out = {
        "about": "scikit-learn's values on benches/test_bench_shapes.py make_labels(); "
        "regenerate with `python benches/test_bench_shapes.py`",
        "sklearn": sklearn.__version__,
        "numpy": np.__version__,
        "n": N,
        "seed": SEED,
        "values": values,
    }
    EXPECTED_PATH.write_text(json.dumps(out, indent=1) + "\n")
    print(f"wrote {EXPECTED_PATH}")


if __name__ == "__main__":
    sys.exit(main())
