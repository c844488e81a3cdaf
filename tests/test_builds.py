"""The core's builds (``FASTCLUSTER_METRICS_CPU``): each build this CPU runs gives every measure
to the last bit, a setting it cannot honour is one clear error at import, and
``show_versions`` says which build ran.

Each build runs in a child process of its own: the setting is read once, at import."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

import fastcluster_metrics as fcm
from fastcluster_metrics import _native

FEATURES, BEST, IN_USE = _native.cpu_info()
ORDER = ["baseline", "avx2", "avx512"]
BUILDS = ORDER[: ORDER.index(BEST) + 1]


def _run(script: str, build: str | None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != _native.CPU_VAR}
    if build is not None:
        env[_native.CPU_VAR] = build
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(script)],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
        check=False,
    )


# Every measure of the catalogue (and the embedding's and the graph's) on labels of every
# type and tables of every form the core counts: dense windows, wide partitions, one-row
# maps, singletons, weights; each value written as float.hex, so that the parent compares
# bits.
_MEASURES = """
import json, warnings
import numpy as np
import fastcluster_metrics as fcm
from fastcluster_metrics._measures.catalogue import MEASURES
warnings.simplefilter("ignore")
rng = np.random.default_rng(7)
out = {}
def put(key, value):
    if isinstance(value, float | int | np.floating | np.integer):
        out[key] = float(value).hex()
    else:
        out[key] = [float(v).hex() for v in np.ravel(np.asarray(value, dtype=float))]
n = 200_000
truth = rng.integers(0, 30, n)
cases = {
    "dense": (truth, (truth + rng.integers(0, 3, n)) % 40),
    "wide": (rng.integers(0, 70_000, n), rng.integers(0, 90_000, n)),
    "one-row": (truth, truth * 1000 + rng.integers(0, 1000, n)),
    "singletons": (truth, np.arange(n)),
    "strings": (np.array([f"c{v}" for v in truth[:20_000]]),
                np.array([f"k{v}" for v in (truth[:20_000] * 7) % 45])),
}
def every(case, table):
    for name, row in MEASURES.items():
        try:
            put(f"{case}/{name}", row(table))
        except Exception as e:  # a measure too costly for this table: the same in every build
            out[f"{case}/{name}"] = type(e).__name__
for case, (a, b) in cases.items():
    every(case, fcm.Contingency.from_labels(a, b))
w = rng.random(50_000) * 3
a, b = truth[:50_000], (truth[:50_000] * 3) % 17
every("weighted", fcm.Contingency.from_labels(a, b, sample_weight=w))
put("per_sample/ECS", fcm.per_sample_score(truth, (truth * 3) % 17, measure="ECS"))
x = rng.normal(size=(3000, 20))
labels = rng.integers(0, 12, 3000)
if hasattr(fcm, "silhouette_samples"):
    for metric in ("euclidean", "sqeuclidean", "cosine", "manhattan"):
        put(f"silhouette/{metric}", fcm.silhouette_samples(x, labels, metric=metric))
        put(f"silhouette32/{metric}",
            fcm.silhouette_samples(x.astype(np.float32), labels, metric=metric))
    # a sweep, its last block of 2,999 samples cut mid-tile (the columns' AVX2 path and the rest)
    sweep = np.stack([labels, labels % 5, labels % 2])[:, :2999]
    put("silhouette/sweep", fcm.silhouette_samples(x[:2999], sweep))
    put("silhouette32/sweep", fcm.silhouette_samples(x[:2999].astype(np.float32), sweep))
    put("calinski_harabasz", fcm.calinski_harabasz_score(x, labels))
    put("davies_bouldin", fcm.davies_bouldin_score(x, labels))
    batch = rng.integers(0, 3, 3000)
    put("bras", fcm.bras(x, labels, batch))
    put("silhouette_batch/furthest",
        fcm.silhouette_batch(x, labels, batch, between_cluster_distances="furthest"))
if hasattr(fcm, "lisi_knn"):
    # LISI's bisection runs its exponentials as vector code of each build
    m, k = 20_000, 30
    idx = rng.integers(0, m, (m, k))
    idx[:, 0] = np.arange(m)
    dist = np.sort(rng.random((m, k)) * rng.choice([0.01, 1.0, 300.0], (m, 1)), axis=1)
    dist[:, 0] = 0
    batches = rng.integers(0, 4, m)
    put("lisi", fcm.lisi_knn((idx, dist), batches))
    put("lisi32", fcm.lisi_knn((idx, dist.astype(np.float32)), batches, perplexity=7))
    put("kbet", fcm.kbet((idx, dist), batches)[1])
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def by_build() -> dict[str, dict[str, object]]:
    found = {}
    for build in BUILDS:
        done = _run(_MEASURES, build)
        assert done.returncode == 0, done.stderr
        found[build] = json.loads(done.stdout)
    return found


def test_every_measure_is_bit_identical_in_every_build(by_build):
    best = by_build[BEST]
    assert len(best) > 400
    for build, values in by_build.items():
        differ = [k for k in best if values[k] != best[k]]
        assert not differ, f"{build} differs from {BEST} in {differ[:10]}"


@pytest.mark.parametrize("build", BUILDS)
def test_a_build_is_in_use_when_asked_for(build):
    done = _run("import fastcluster_metrics._native as n; print(n.cpu_info()[2])", build)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == build


def test_unset_the_best_build_is_in_use():
    done = _run("import fastcluster_metrics._native as n; print(n.cpu_info()[2])", None)
    assert done.stdout.strip() == BEST


@pytest.mark.parametrize("value", ["sse9", "AVX-2", "native"])
def test_an_unknown_build_is_one_error_at_import(value):
    done = _run("import fastcluster_metrics", value)
    assert done.returncode != 0
    last = done.stderr.strip().splitlines()[-1]
    assert last.startswith("ValueError: FASTCLUSTER_METRICS_CPU="), done.stderr
    assert f"{value!r}".replace("'", '"') in last and "is not a build" in last
    assert "its features:" in last


@pytest.mark.skipif(BEST == "avx512", reason="this CPU runs every build")
def test_a_build_past_this_cpu_is_one_error_at_import_not_an_illegal_instruction():
    done = _run("import fastcluster_metrics", "avx512")
    assert done.returncode == 1, done.stderr  # an exception, not SIGILL
    last = done.stderr.strip().splitlines()[-1]
    assert "cannot run" in last and f"it runs {BEST} at most" in last
    assert " ".join(FEATURES) in last


def test_show_versions_names_the_build_the_threads_and_the_dependencies(capsys):
    fcm.show_versions()
    text = capsys.readouterr().out
    assert f"build in use: {IN_USE}" in text
    assert f"cpu features: {' '.join(FEATURES)}" in text
    assert f"threads: {fcm.num_threads()} (from " in text
    import numpy as np

    assert f"numpy: {np.__version__}" in text
    assert "fastcluster-metrics: " in text


def test_show_versions_says_where_a_capped_build_and_the_threads_came_from():
    script = "import fastcluster_metrics as fcm; fcm.show_versions()"
    env_threads = {**os.environ, "FASTCLUSTER_METRICS_NUM_THREADS": "1"}
    env_threads[_native.CPU_VAR] = "baseline"
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        env=env_threads,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert "build in use: baseline (capped by FASTCLUSTER_METRICS_CPU=baseline)" in done.stdout
    assert "threads: 1 (from FASTCLUSTER_METRICS_NUM_THREADS=1)" in done.stdout
