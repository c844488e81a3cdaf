"""Every cut of a dendrogram: ``score_dendrogram`` against cutting with scipy's ``fcluster`` and
scoring each cut on its own (issue: all n - 1 cuts of a 20,000-sample dendrogram, ARI and NMI,
in less time than 40 single cuts; n = 1e6 in seconds).

Timing run:  pytest benches/test_bench_dendrogram.py --benchmark-only --benchmark-json=tree.json
Report:      python benches/report.py tree.json

The tree is random (each level pairs the clusters alive at random), written as a scipy linkage
matrix whose heights are the merge order; the truth has 20 classes (33 at 1e6). Groups:

- ``dendrogram 1e3``, ``2e4``, ``1e5``: ``all cuts`` (``score_dendrogram`` of ARI and NMI for
  k = 1..n) and ``40 cuts`` (``fcluster`` at 40 values of k, each scored with ARI and NMI).
- ``dendrogram 1e6``: ``all cuts`` of ARI and NMI, one round.
- ``two dendrograms 2e4``, ``1e5``: ``every k`` (``compare_dendrograms`` of two random trees:
  B_k and its null moments for k = 1..n) and ``40 cut pairs`` (``fcluster`` of both trees at
  40 values of k, each pair scored with ``fowlkes_mallows_score``); ``two dendrograms 1e6``:
  ``every k``, one round.

Each case checks its values first, against ``fcluster`` and ``evaluate`` at a few k.
"""

from __future__ import annotations

import functools
import math

import numpy as np
import pytest

import fastcluster_metrics as fcm

hierarchy = pytest.importorskip("scipy.cluster.hierarchy")
pytest.importorskip("pandas")

METRICS = ["adjusted_rand_score", "normalized_mutual_info_score"]


@functools.cache
def _tree(n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """(truth, linkage) of a random tree over n samples."""
    rng = np.random.default_rng(n + seed)
    alive, formed, rows = rng.permutation(n), n, []
    while alive.size > 1:
        half = alive.size // 2
        rows.append(np.stack([alive[:half], alive[half : 2 * half]], axis=1))
        alive = rng.permutation(
            np.concatenate([np.arange(formed, formed + half), alive[2 * half :]])
        )
        formed += half
    children = np.concatenate(rows)
    size = np.ones(2 * n - 1)
    for m, (a, b) in enumerate(children):
        size[n + m] = size[a] + size[b]
    z = np.column_stack([children, np.arange(1, n, dtype=np.float64), size[n:]])
    return rng.integers(0, 20 if n < 10**5 else 33, n), z.astype(np.float64)


def _check(truth: np.ndarray, z: np.ndarray, scores, ks) -> None:
    for k in ks:
        want = fcm.evaluate(truth, hierarchy.fcluster(z, k, criterion="maxclust"), metrics=METRICS)
        for name, value in want.items():
            assert math.isclose(scores.loc[k, name], value, rel_tol=1e-11, abs_tol=1e-12)


def _forty_cuts(truth: np.ndarray, z: np.ndarray) -> None:
    for k in np.linspace(2, truth.size, 40).astype(int):
        cut = hierarchy.fcluster(z, k, criterion="maxclust")
        fcm.adjusted_rand_score(truth, cut)
        fcm.normalized_mutual_info_score(truth, cut)


@pytest.mark.parametrize("n", [1_000, 20_000, 100_000])
@pytest.mark.parametrize("case", ["all cuts", "40 cuts"])
def test_dendrogram(benchmark, case, n):
    truth, z = _tree(n)
    benchmark.group = f"dendrogram {n:.0e}"
    if case == "40 cuts":
        benchmark.pedantic(_forty_cuts, args=(truth, z), rounds=3 if n > 20_000 else 5)
        return
    _check(truth, z, fcm.score_dendrogram(truth, z, metrics=METRICS), [1, 2, 20, 700, n])
    benchmark.pedantic(fcm.score_dendrogram, args=(truth, z), kwargs={"metrics": METRICS}, rounds=3)


def test_dendrogram_million(benchmark):
    truth, z = _tree(10**6)
    benchmark.group = "dendrogram 1e6"
    benchmark.extra_info["case"] = "all cuts"
    scores = benchmark.pedantic(
        fcm.score_dendrogram, args=(truth, z), kwargs={"metrics": METRICS}, rounds=1
    )
    _check(truth, z, scores, [1, 33, 5000, 10**6])


def _forty_pairs(z1: np.ndarray, z2: np.ndarray) -> None:
    for k in np.linspace(2, z1.shape[0] + 1, 40).astype(int):
        fcm.fowlkes_mallows_score(
            hierarchy.fcluster(z1, k, criterion="maxclust"),
            hierarchy.fcluster(z2, k, criterion="maxclust"),
        )


def _check_pair(z1: np.ndarray, z2: np.ndarray, scores, ks) -> None:
    for k in ks:
        a = hierarchy.fcluster(z1, k, criterion="maxclust")
        b = hierarchy.fcluster(z2, k, criterion="maxclust")
        assert scores.loc[k, "fowlkes_mallows_score"] == fcm.fowlkes_mallows_score(a, b)


@pytest.mark.parametrize("n", [20_000, 100_000])
@pytest.mark.parametrize("case", ["every k", "40 cut pairs"])
def test_two_dendrograms(benchmark, case, n):
    (_, z1), (_, z2) = _tree(n), _tree(n, seed=1)
    benchmark.group = f"two dendrograms {n:.0e}"
    if case == "40 cut pairs":
        benchmark.pedantic(_forty_pairs, args=(z1, z2), rounds=3)
        return
    _check_pair(z1, z2, fcm.compare_dendrograms(z1, z2), [1, 2, 20, 700, n])
    benchmark.pedantic(fcm.compare_dendrograms, args=(z1, z2), rounds=3)


def test_two_dendrograms_million(benchmark):
    (_, z1), (_, z2) = _tree(10**6), _tree(10**6, seed=1)
    benchmark.group = "two dendrograms 1e6"
    benchmark.extra_info["case"] = "every k"
    scores = benchmark.pedantic(fcm.compare_dendrograms, args=(z1, z2), rounds=1)
    _check_pair(z1, z2, scores, [1, 33, 5000, 10**6])
