"""Small inputs, where the Python layer is most of the time: 100 int64 labels (3 classes x 3
clusters), ours against scikit-learn in the same group, for three of scikit-learn's measures,
evaluate's defaults, evaluate("all"), a catalogue function and a Contingency built from labels.

Timing run:  pytest benches/test_bench_small.py --benchmark-only --benchmark-json=small.json
"""

from __future__ import annotations

import functools
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from sklearn.metrics import cluster as sk

import fastcluster_metrics as fcm
from fastcluster_metrics._measures.catalogue import MEASURES

N = 100


@functools.cache
def inputs() -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(5)
    truth = rng.integers(0, 3, N)
    pred = np.where(rng.random(N) < 0.8, truth, rng.integers(0, 3, N))
    return truth, pred


def _sklearn_defaults(t: np.ndarray, p: np.ndarray) -> dict[str, float]:
    names = [n for n in fcm.evaluate([0], [0]) if n != "purity_score"]
    out = {n: float(getattr(sk, n)(t, p)) for n in names}
    c = sk.contingency_matrix(t, p)
    out["purity_score"] = float(c.max(axis=0).sum() / c.sum())
    return out


def _sklearn_jaccard(t: np.ndarray, p: np.ndarray) -> float:
    (_, fp), (fn, tp) = sk.pair_confusion_matrix(t, p).tolist()
    return float(tp / (tp + fp + fn))


def _ours_defaults(t: np.ndarray, p: np.ndarray) -> dict[str, float]:
    return fcm.evaluate(t, p).to_dict()


# case -> (ours, scikit-learn's way, or None where scikit-learn has nothing comparable)
CASES: dict[str, tuple[Callable[..., Any], Callable[..., Any] | None]] = {
    "adjusted_rand_score": (fcm.adjusted_rand_score, sk.adjusted_rand_score),
    "normalized_mutual_info_score": (
        fcm.normalized_mutual_info_score,
        sk.normalized_mutual_info_score,
    ),
    "adjusted_mutual_info_score": (fcm.adjusted_mutual_info_score, sk.adjusted_mutual_info_score),
    "evaluate (defaults)": (_ours_defaults, _sklearn_defaults),
    "jaccard_index": (fcm.jaccard_index, _sklearn_jaccard),
    "evaluate (all)": (lambda t, p: fcm.evaluate(t, p, metrics="all").to_dict(), None),
    "Contingency.from_labels": (fcm.Contingency.from_labels, None),
}


def _close(a: Any, b: Any) -> bool:
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_close(a[k], b[k]) for k in a)
    return bool(a == pytest.approx(b, rel=1e-10))


PAIRS = [(c, "ours") for c in CASES] + [(c, "sklearn") for c, (_, sk_) in CASES.items() if sk_]


@pytest.mark.parametrize(("case", "impl"), PAIRS)
def test_bench_small(benchmark: Any, case: str, impl: str) -> None:
    truth, pred = inputs()
    ours, theirs = CASES[case]
    benchmark.group = f"{case} n=100"
    benchmark.extra_info.update(metric=case, size="100", impl=impl)
    if impl == "sklearn":
        assert theirs is not None
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            got = benchmark(theirs, truth, pred)
        assert _close(ours(truth, pred), got)
        return
    value = ours(truth, pred)
    if case == "Contingency.from_labels":
        assert value.to_numpy().tolist() == sk.contingency_matrix(truth, pred).tolist()
    elif case == "evaluate (all)":
        assert len(value) == len(MEASURES)
        assert value["jaccard_index"] == fcm.jaccard_index(truth, pred)
    benchmark(ours, truth, pred)
