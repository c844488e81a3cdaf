"""plot_clustree: the nodes are each resolution's clusters, the edges the cells of consecutive
contingency tables; and plot_scores of score_dendrogram's scores."""

import doctest
import itertools
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

matplotlib = pytest.importorskip("matplotlib")
matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.collections import LineCollection, PathCollection  # noqa: E402

import fastcluster_metrics as fcm  # noqa: E402
from fastcluster_metrics.plot import (  # noqa: E402
    _clustree,
    plot_clustree,
    plot_scores,
)


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def _runs(n=3000, seed=0):
    """A truth of 12 classes and ten nested clusterings of it (2 to 40 clusters)."""
    hierarchy = pytest.importorskip("scipy.cluster.hierarchy")
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 12, n)
    x = rng.normal(size=(n, 4)) + np.eye(12)[truth][:, :4] * 3
    z = hierarchy.linkage(x, "ward")
    ks = [2, 4, 6, 9, 12, 16, 20, 26, 33, 40]
    resolutions = [0.1, 0.2, 0.3, 0.5, 0.7, 0.9, 1.1, 1.4, 1.7, 2.0]
    runs = {
        r: hierarchy.fcluster(z, k, criterion="maxclust")
        for r, k in zip(resolutions, ks, strict=True)
    }
    return truth, runs


def _nodes(ax):
    return [c for c in ax.collections if isinstance(c, PathCollection)]


def _edges(ax):
    found = [c for c in ax.collections if isinstance(c, LineCollection)]
    return found[0].get_segments() if found else []


@pytest.mark.parametrize("min_share", [0.0, 0.1, 0.5])
def test_edges_are_the_cells_of_consecutive_tables(min_share, tmp_path):
    truth, runs = _runs()
    ax = plot_clustree(runs, labels_true=truth, min_share=min_share)
    keys = sorted(runs)
    want = 0
    for upper, lower in itertools.pairwise(keys):
        table = fcm.Contingency.from_labels(runs[upper], runs[lower])
        _, cols, counts = table.cells
        want += int(np.sum(counts / table.cluster_sizes[cols] >= min_share))
    assert len(_edges(ax)) == want
    # One row of nodes per resolution, one node per cluster, area growing with size.
    nodes = _nodes(ax)
    assert [len(c.get_offsets()) for c in nodes] == [np.unique(runs[k]).size for k in keys]
    for c, k in zip(nodes, keys, strict=True):
        sizes = np.bincount(runs[k])[1:]
        assert np.all(np.diff(c.get_sizes()[np.argsort(sizes)]) >= 0)
    assert [t.get_text() for t in ax.get_yticklabels()] == [str(k) for k in keys]
    ax.figure.savefig(tmp_path / "tree.png", dpi=60)


def test_purity_colours_each_cluster_by_its_majority_share():
    truth, runs = _runs(seed=1)
    ax = plot_clustree(runs, labels_true=truth)
    for c, k in zip(_nodes(ax), sorted(runs), strict=True):
        table = pd.crosstab(truth, runs[k]).to_numpy()
        assert np.allclose(c.get_array(), table.max(axis=0) / table.sum(axis=0))
    assert ax.figure.axes[-1].get_ylabel() == "purity of the cluster"


def test_majority_legend_sorts_numbers_as_numbers():
    truth, runs = _runs(seed=2)
    names = np.array([f"type_{i}" for i in range(12)])[truth]
    ax = plot_clustree(runs, labels_true=names, color="majority")
    shown = [t.get_text() for t in ax.get_legend().get_texts()]
    assert shown == sorted(shown, key=lambda s: int(s.split("_")[1]))
    assert {"type_2", "type_10"} <= set(shown)


def test_adata_columns_by_pattern_sorted_by_resolution():
    truth, runs = _runs(seed=3)
    obs = pd.DataFrame({f"leiden_{r}": pd.Categorical(labels) for r, labels in runs.items()})
    obs = obs[list(obs.columns)[::-1]]  # written in the other order
    obs["cell_type"] = pd.Categorical(np.array(list("ABCDEFGHIJKL"))[truth])
    ax = plot_clustree(SimpleNamespace(obs=obs), "leiden_*", labels_true="cell_type")
    assert [t.get_text() for t in ax.get_yticklabels()] == [f"leiden_{r}" for r in sorted(runs)]
    alone = plot_clustree(obs, labels_true="cell_type")
    assert len(_nodes(alone)) == len(runs)


def test_without_a_truth_every_node_has_one_colour():
    _, runs = _runs(seed=4)
    ax = plot_clustree({str(k): v for k, v in runs.items()})
    for c in _nodes(ax):
        assert len({tuple(f) for f in c.get_facecolors()}) == 1
        assert c.get_array() is None


def test_bad_arguments():
    truth, runs = _runs(n=300)
    with pytest.raises(ValueError, match="color must be one of"):
        plot_clustree(runs, labels_true=truth, color="size")
    with pytest.raises(ValueError, match="min_share"):
        plot_clustree(runs, min_share=2)
    with pytest.raises(TypeError, match="labels_true="):
        plot_clustree(runs, truth)
    with pytest.raises(TypeError, match="mapping of resolution"):
        plot_clustree([1, 2, 3])
    with pytest.raises(ValueError, match="at least one"):
        plot_clustree({})
    with pytest.raises(KeyError, match="no column 'louvain_\\*'"):
        plot_clustree(pd.DataFrame({"leiden_1": [0, 1]}), "louvain_*")


def test_docstring_example():
    result = doctest.testmod(_clustree, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0
    assert result.failed == 0


def test_scores_of_every_cut_draw_measures_against_k_and_mark_the_best():
    hierarchy = pytest.importorskip("scipy.cluster.hierarchy")
    truth, _ = _runs(n=2000, seed=5)
    x = np.random.default_rng(5).normal(size=(2000, 3)) + truth[:, None]
    z = hierarchy.linkage(x, "average")
    scores = fcm.score_dendrogram(truth, z, metrics=["ARI", "NMI"])
    ax = plot_scores(scores)
    assert [line.get_label() for line in ax.get_lines()][:2] == ["ARI", "NMI"]
    best = int(scores["adjusted_rand_score"].idxmax())
    assert ax.get_title() == (f"best k = {best} by ARI ({scores['adjusted_rand_score'].max():.4g})")
    assert ax.get_xscale() == "log"
    assert ax.get_xlabel() == "k"
    assert ax.get_lines()[0].get_marker() in (None, "None", "")
    by_nmi = plot_scores(scores, best="NMI")
    assert by_nmi.get_title().endswith(
        f"by NMI ({scores['normalized_mutual_info_score'].max():.4g})"
    )
