"""score_levels: a clustering against every level of a hierarchy, each level's table merged from
the finest one; the hierarchical precision, recall and F and the mean tree distance, against
brute force over the samples' ancestor sets and paths."""

import math
from collections import deque
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest

import fastcluster_metrics as fcm
from fastcluster_metrics._many import levels as _levels

METRICS = ["ARI", "AMI", "NMI", "homogeneity", "completeness", "purity", "VI", "jaccard", "FMI"]


def _same(a, b):
    """Equal to the last bit, NaN equal to NaN."""
    return a == b or (math.isnan(a) and math.isnan(b))


def _assert_evaluate(frame, levels, pred, metrics, **kw):
    """Each row of ``frame`` is evaluate() of that level's labels, exactly."""
    assert list(frame.index) == list(levels)
    for name, labels in levels.items():
        want = fcm.evaluate(labels, pred, metrics, **kw)
        assert list(frame.columns) == list(want)
        for m, value in want.items():
            assert _same(frame.loc[name, m], value), (name, m, frame.loc[name, m], value)


# --- random trees ----------------------------------------------------------------------------


def _random_tree(rng, n_roots=3, n_nodes=25):
    """A forest of string labels of uneven depth: each new node hangs under a random node."""
    parents = {}
    nodes = [f"r{i}" for i in range(n_roots)]
    for i in range(n_nodes):
        child = f"n{i}"
        parents[child] = nodes[rng.integers(len(nodes))]
        nodes.append(child)
    return parents, nodes


def _path(parents, label):
    """Root .. label, walked one parent at a time."""
    out = [label]
    while out[-1] in parents:
        out.append(parents[out[-1]])
    return out[::-1]


def _level_columns(fine, parents):
    """Each depth's labels, sample by sample: the ancestor there, or the label itself."""
    paths = [_path(parents, x) for x in fine]
    depth = max(len(p) for p in paths)
    return {
        d: np.array([p[d] if d < len(p) else p[-1] for p in paths], dtype=object)
        for d in range(depth)
    }


def _labelings(seed, n=400, extra=("stray",)):
    rng = np.random.default_rng(seed)
    parents, nodes = _random_tree(rng)
    vocabulary = [*nodes, *extra]  # internal nodes and labels outside the tree too
    fine = np.array(vocabulary, dtype=object)[rng.integers(0, len(vocabulary), n)]
    pred = rng.integers(0, 6, n)
    return parents, fine, pred


# --- the column form -------------------------------------------------------------------------


def test_each_level_equals_evaluate_of_its_labels():
    rng = np.random.default_rng(0)
    n = 2000
    fine = rng.integers(0, 60, n)
    levels = {"l1": fine // 20, "l2": fine // 5, "l3": fine}
    pred = np.where(rng.random(n) < 0.7, fine // 4, rng.integers(0, 15, n))
    for metrics in (None, METRICS, "all"):
        got = fcm.score_levels(levels, pred, metrics=metrics)
        _assert_evaluate(got, levels, pred, metrics)
    assert got.index.name == "level"


def test_string_and_categorical_levels_and_a_dataframe():
    rng = np.random.default_rng(1)
    n = 1500
    fine = rng.integers(0, 30, n)
    names = np.array([f"type {i}" for i in range(30)], dtype=object)
    frame = pd.DataFrame(
        {
            "celltype.l1": pd.Categorical(np.where(fine < 9, "lymphoid", "myeloid")),
            "celltype.l2": names[fine // 3],
            "celltype.l3": pd.Categorical(names[fine]),
        }
    )
    pred = pd.Categorical((fine // 2).astype(str))
    got = fcm.score_levels(frame, pred, metrics=METRICS)
    _assert_evaluate(got, {c: frame[c] for c in frame.columns}, pred, METRICS)


def test_parent_map_and_columns_give_the_same_values():
    for seed in range(6):
        parents, fine, pred = _labelings(seed)
        columns = _level_columns(fine, parents)
        by_tree = fcm.score_levels(fine, pred, parents=parents, metrics=METRICS)
        by_columns = fcm.score_levels(columns, pred, metrics=METRICS)
        assert list(by_tree.index) == list(range(len(columns)))
        pd.testing.assert_frame_equal(by_tree, by_columns, rtol=0, atol=0)
        _assert_evaluate(by_tree, columns, pred, METRICS)


def test_edges_as_a_dataframe_an_array_and_a_series():
    parents, fine, pred = _labelings(7)
    want = fcm.score_levels(fine, pred, parents=parents)
    edges = pd.DataFrame({"child": list(parents), "parent": list(parents.values())})
    roots = pd.DataFrame({"child": ["r0", "r1"], "parent": [None, np.nan]})  # roots said so
    for given in (
        edges,
        pd.concat([edges, roots, edges.head(3)]),  # a repeated edge is the same edge
        edges.to_numpy(),
        list(zip(edges["child"], edges["parent"], strict=True)),
        pd.Series(parents),
    ):
        pd.testing.assert_frame_equal(fcm.score_levels(fine, pred, parents=given), want)


def test_a_label_outside_the_tree_is_its_own_root_at_every_level():
    parents = {"CD4": "T", "CD8": "T", "T": "lymphoid"}
    fine = ["CD4", "CD8", "platelet", "platelet"]
    got = fcm.score_levels(fine, [0, 0, 1, 1], parents=parents, metrics=["purity", "ARI"])
    levels = {
        0: ["lymphoid", "lymphoid", "platelet", "platelet"],
        1: ["T", "T", "platelet", "platelet"],
        2: fine,
    }
    _assert_evaluate(got, levels, [0, 0, 1, 1], ["purity", "ARI"])
    assert got.loc[1, "adjusted_rand_score"] == 1.0
    assert got.loc[2, "adjusted_rand_score"] < 1.0


def test_the_levels_are_the_depths_of_the_labels_present():
    parents = {"a": "root", "b": "a", "c": "b"}  # c, at depth 3, is not among the labels
    got = fcm.score_levels(["a", "b", "root"], [0, 1, 2], parents=parents, metrics="ARI")
    assert list(got.index) == [0, 1, 2]
    assert got["adjusted_rand_score"].tolist() == [
        fcm.adjusted_rand_score(["root"] * 3, [0, 1, 2]),
        fcm.adjusted_rand_score(["a", "a", "root"], [0, 1, 2]),
        1.0,
    ]


def test_the_finest_table_is_counted_once(monkeypatch):
    calls = []
    count = _levels.count_pair

    def counting(true, pred, *args, **kw):
        calls.append(len(true))
        return count(true, pred, *args, **kw)

    monkeypatch.setattr(_levels, "count_pair", counting)
    parents, fine, pred = _labelings(8)
    fcm.score_levels(fine, pred, parents=parents)
    assert len(calls) == 1
    calls.clear()
    fcm.score_levels(fine, {"a": pred, "b": pred[::-1]}, parents=parents)
    assert len(calls) == 2
    calls.clear()
    columns = _level_columns(fine, parents)
    fcm.score_levels(columns, pred)
    assert len(calls) == len(columns)  # each pair of neighbouring levels, and the finest once


# --- many predictions ------------------------------------------------------------------------


def test_many_predictions_equal_one_at_a_time():
    parents, fine, pred = _labelings(9)
    rng = np.random.default_rng(9)
    runs = {"k6": pred, "k3": pred // 2, "noise": rng.integers(0, 4, fine.size)}
    for given in (runs, pd.DataFrame(runs), np.column_stack(list(runs.values()))):
        got = fcm.score_levels(fine, given, parents=parents, metrics=METRICS)
        assert got.index.names == ["prediction", "level"]
        names = list(runs) if not isinstance(given, np.ndarray) else list(range(3))
        assert list(got.index.get_level_values("prediction").unique()) == names
        for name, labels in zip(names, runs.values(), strict=True):
            one = fcm.score_levels(fine, labels, parents=parents, metrics=METRICS)
            pd.testing.assert_frame_equal(got.loc[name], one, rtol=0, atol=0)
    columns = _level_columns(fine, parents)
    by_columns = fcm.score_levels(columns, runs, metrics=METRICS)
    pd.testing.assert_frame_equal(by_columns, got.rename(index=dict(enumerate(runs)), level=0))


# --- missing labels --------------------------------------------------------------------------


def test_missing_labels_drop_and_cluster_as_evaluate():
    rng = np.random.default_rng(10)
    n = 600
    fine = rng.integers(0, 12, n).astype(object)
    coarse = (fine // 4).astype(object)
    gone = rng.random(n) < 0.1
    fine[gone] = None
    coarse[gone] = None  # missing at the same samples at every level
    pred = rng.integers(0, 5, n).astype(float)
    pred[rng.random(n) < 0.05] = np.nan
    levels = {"coarse": coarse, "fine": fine}
    for missing in ("drop", "cluster"):
        got = fcm.score_levels(levels, pred, metrics=METRICS, missing=missing)
        _assert_evaluate(got, levels, pred, METRICS, missing=missing)
    # with missing a label, a level may miss labels where a finer one has one label
    coarse_only = coarse.copy()
    coarse_only[fine == 3] = None
    levels = {"coarse": coarse_only, "fine": fine}
    got = fcm.score_levels(levels, pred, metrics=METRICS, missing="cluster")
    _assert_evaluate(got, levels, pred, METRICS, missing="cluster")


def test_missing_labels_with_a_tree_are_their_own_root():
    parents = {"CD4": "T", "CD8": "T"}
    fine = np.array(["CD4", "CD8", None, None, "CD8"], dtype=object)
    pred = [0, 0, 1, 1, 0]
    got = fcm.score_levels(fine, pred, parents=parents, metrics=["ARI"], missing="cluster")
    levels = {0: ["T", "T", None, None, "T"], 1: fine}
    _assert_evaluate(got, levels, pred, ["ARI"], missing="cluster")
    got = fcm.score_levels(fine, pred, parents=parents, metrics=["ARI"], missing="drop")
    _assert_evaluate(got, levels, pred, ["ARI"], missing="drop")


# --- errors ----------------------------------------------------------------------------------


def test_a_level_that_is_not_coarser_is_refused_naming_the_label():
    levels = {"l1": ["T", "T", "B", "B"], "l2": ["CD4", "CD8", "CD8", "B"]}
    with pytest.raises(ValueError, match=r"level 'l1' is not coarser than level 'l2': label"
                       r" 'CD8' of 'l2' lies under 2 labels of 'l1' \('B', 'T'\)"):  # fmt: skip
        fcm.score_levels(levels, [0, 0, 1, 1])
    # fine to coarse, the wrong way round
    with pytest.raises(ValueError, match="label 'T' of 'coarse' lies under 2 labels of 'fine'"):
        fcm.score_levels({"fine": [0, 1, 2, 2], "coarse": ["T", "T", "B", "B"]}, [0, 0, 1, 1])


def test_bad_trees_are_refused_naming_the_label():
    fine, pred = ["a", "b"], [0, 1]
    with pytest.raises(ValueError, match=r"label 'a' is its own ancestor: .*'a' -> 'b' -> 'a'"):
        fcm.score_levels(fine, pred, parents={"a": "b", "b": "a"})
    with pytest.raises(ValueError, match="label 'x' is its own ancestor"):
        fcm.score_levels(fine, pred, parents={"a": "x", "x": "y", "y": "x"})
    with pytest.raises(ValueError, match="label 'a' is its own ancestor"):
        fcm.score_levels(fine, pred, parents={"a": "a"})
    edges = pd.DataFrame({"child": ["a", "b", "a"], "parent": ["r", "r", "s"]})
    with pytest.raises(ValueError, match="label 'a' has two parents, 'r' and 's'"):
        fcm.score_levels(fine, pred, parents=edges)
    with pytest.raises(ValueError, match="label 'a' has two parents, 'r' and 's'"):
        fcm.score_levels(fine, pred, parents=edges.to_numpy())
    with pytest.raises(ValueError, match="label 'a' has two parents"):
        fcm.hierarchical_precision_recall_f(fine, fine, parents=edges)
    with pytest.raises(ValueError, match="two columns, \\(child, parent\\); got 3 columns"):
        fcm.score_levels(fine, pred, parents=edges.assign(extra=1))
    with pytest.raises(ValueError, match=r"array of shape \(n_edges, 2\); got .* \(3,\)"):
        fcm.score_levels(fine, pred, parents=["a", "b", "c"])


def test_bad_levels_and_predictions():
    levels = {"l1": ["T", "T", "B"], "l2": ["CD4", "CD8", "B"]}
    with pytest.raises(TypeError, match="with parents=, levels is the fine labels"):
        fcm.score_levels(levels, [0, 0, 1], parents={"CD4": "T"})
    with pytest.raises(TypeError, match="takes levels as a DataFrame"):
        fcm.score_levels(["T", "T", "B"], [0, 0, 1])
    with pytest.raises(ValueError, match="needs at least one level"):
        fcm.score_levels({}, [0, 0, 1])
    with pytest.raises(ValueError, match=r"inconsistent numbers of samples: \[3, 2\] \(level 'l2'"):
        fcm.score_levels({"l1": ["T", "T", "B"], "l2": ["a", "b"]}, [0, 0, 1])
    with pytest.raises(ValueError, match=r"\[3, 4\] \(prediction 'labels_pred'\)"):
        fcm.score_levels(levels, [0, 0, 1, 1])
    with pytest.raises(ValueError, match=r"\[3, 2\] \(prediction 'b'\)"):
        fcm.score_levels(levels, {"a": [0, 0, 1], "b": [0, 1]})
    with pytest.raises(ValueError, match="unknown metric 'nope' for score_levels"):
        fcm.score_levels(levels, [0, 0, 1], metrics=["nope"])
    with pytest.raises(ValueError, match="The 'missing' parameter of score_levels"):
        fcm.score_levels(levels, [0, 0, 1], missing="ignore")
    with pytest.raises(TypeError, match="labels_pred"):
        fcm.score_levels(levels, 3)


def test_missing_labels_errors_name_the_level_or_prediction():
    levels = {"l1": ["T", "T", None], "l2": ["CD4", "CD8", "B"]}
    with pytest.raises(ValueError, match="level 'l1' has missing labels: 1 of 3 labels"):
        fcm.score_levels(levels, [0, 0, 1])
    with pytest.raises(ValueError, match="prediction 'k' has missing labels: 1 of 3"):
        fcm.score_levels({"l": ["a", "a", "b"]}, {"k": [0, None, 1]})
    with pytest.raises(ValueError, match="level 'labels' has missing labels"):
        fcm.score_levels(["a", None, "b"], [0, 0, 1], parents={"a": "b"})
    # drop: levels must miss labels on the same samples
    with pytest.raises(ValueError, match=r"1 samples have a label in level 'l2' \('B'\) and none"
                       r" in level 'l1'"):  # fmt: skip
        fcm.score_levels(levels, [0, 0, 1], missing="drop")
    with pytest.raises(ValueError, match=r"label in level 'l1' \('B'\) and none in level 'l2'"):
        fcm.score_levels({"l1": ["T", "T", "B"], "l2": ["a", "b", None]}, [0, 0, 1], missing="drop")


# --- hierarchical precision, recall, F and the tree distance ---------------------------------


def _brute_prf(parents, true, pred):
    """Kiritchenko et al.'s sums, sample by sample, as Fractions."""
    both = on_true = on_pred = 0
    for t, p in zip(true, pred, strict=True):
        a, b = set(_path(parents, t)), set(_path(parents, p))
        both += len(a & b)
        on_true += len(a)
        on_pred += len(b)
    hp, hr = Fraction(both, on_pred), Fraction(both, on_true)
    return hp, hr, (2 * hp * hr / (hp + hr) if hp + hr else Fraction(0))


def _brute_distance(parents, true, pred):
    """The mean number of edges by breadth-first search, the roots joined by a virtual root."""
    graph = {}
    labels = set(true) | set(pred) | set(parents) | set(parents.values())
    for x in labels:
        up = parents.get(x, "<virtual root>")
        graph.setdefault(x, set()).add(up)
        graph.setdefault(up, set()).add(x)

    def bfs(a, b):
        seen, queue = {a: 0}, deque([a])
        while queue:
            x = queue.popleft()
            if x == b:
                return seen[x]
            for y in graph[x]:
                if y not in seen:
                    seen[y] = seen[x] + 1
                    queue.append(y)
        raise AssertionError("unreachable")

    return Fraction(sum(bfs(t, p) for t, p in zip(true, pred, strict=True)), len(true))


def test_hierarchical_prf_and_tree_distance_by_brute_force():
    for seed in range(8):
        rng = np.random.default_rng(100 + seed)
        parents, nodes = _random_tree(rng, n_roots=int(rng.integers(1, 4)), n_nodes=20)
        vocabulary = [*nodes, "stray", "other"]
        n = 300
        true = np.array(vocabulary, dtype=object)[rng.integers(0, len(vocabulary), n)]
        pred = true.copy()
        moved = rng.random(n) < 0.6
        pred[moved] = np.array(vocabulary, dtype=object)[rng.integers(0, len(vocabulary), n)][moved]
        got = fcm.hierarchical_precision_recall_f(true, pred, parents)
        want = _brute_prf(parents, true, pred)
        assert got == tuple(float(x) for x in want)
        assert all(isinstance(x, float) for x in got)
        assert fcm.mean_tree_distance(true, pred, parents) == float(
            _brute_distance(parents, true, pred)
        )


def test_hierarchical_measures_small_cases():
    parents = {"CD4": "T", "CD8": "T", "T": "lymphoid", "B": "lymphoid"}
    truth = ["CD4", "CD8", "B", "B"]
    assert fcm.hierarchical_precision_recall_f(truth, truth, parents) == (1.0, 1.0, 1.0)
    assert fcm.mean_tree_distance(truth, truth, parents) == 0.0
    # one level too coarse: precision kept, recall lost
    hp, hr, _ = fcm.hierarchical_precision_recall_f(truth, ["T", "T", "B", "B"], parents)
    assert (hp, hr) == (1.0, 0.8)
    # disjoint trees: nothing shared, the distance through the virtual root
    assert fcm.hierarchical_precision_recall_f(["x"], ["y"], {}) == (0.0, 0.0, 0.0)
    assert fcm.mean_tree_distance(["CD4"], ["y"], parents) == 4.0  # 2 + 0 + 2
    # empty labelings
    assert fcm.hierarchical_precision_recall_f([], [], parents) == (1.0, 1.0, 1.0)
    assert fcm.mean_tree_distance([], [], parents) == 0.0
    # the same from edges
    edges = np.array(list(parents.items()), dtype=object)
    assert fcm.mean_tree_distance(truth, ["B", "T", "B", "B"], edges) == 1.0  # (3 + 1) / 4
    with pytest.raises(ValueError, match="its own ancestor"):
        fcm.mean_tree_distance(truth, truth, {"T": "CD4", "CD4": "T"})
    with pytest.raises(ValueError, match="labels_true has missing labels"):
        fcm.mean_tree_distance(["CD4", None], ["CD4", "T"], parents)
    assert fcm.mean_tree_distance(["CD4", None], ["CD4", "T"], parents, missing="drop") == 0.0
    # missing as a label: a root of its own, 2 + depth(T) + 1 edges from T
    assert fcm.mean_tree_distance(["CD4", None], ["CD4", "T"], parents, missing="cluster") == 1.5


# --- AnnData ---------------------------------------------------------------------------------


def _obs():
    rng = np.random.default_rng(11)
    n = 800
    fine = rng.integers(0, 12, n)
    names = np.array([f"t{i}" for i in range(12)])
    return pd.DataFrame(
        {
            "celltype.l1": pd.Categorical(np.where(fine < 6, "lymphoid", "myeloid")),
            "celltype.l2": pd.Categorical(names[fine // 2 * 2]),
            "celltype.l3": pd.Categorical(names[fine]),
            "leiden_0.5": pd.Categorical((fine // 3).astype(str)),
            "leiden_1.0": pd.Categorical(rng.integers(0, 8, n).astype(str)),
        }
    )


LEVELS = ["celltype.l1", "celltype.l2", "celltype.l3"]


def test_score_levels_adata_one_column_and_a_pattern():
    obs = _obs()
    got = fcm.score_levels_adata(obs, LEVELS, "leiden_0.5", metrics=METRICS)
    want = fcm.score_levels({c: obs[c] for c in LEVELS}, obs["leiden_0.5"], metrics=METRICS)
    pd.testing.assert_frame_equal(got, want)
    assert list(got.index) == LEVELS
    many = fcm.score_levels_adata(obs, LEVELS, "leiden_*")
    assert many.index.names == ["prediction", "level"]
    assert list(many.index.get_level_values(0).unique()) == ["leiden_0.5", "leiden_1.0"]
    for name in ("leiden_0.5", "leiden_1.0"):
        pd.testing.assert_frame_equal(many.loc[name], fcm.score_levels_adata(obs, LEVELS, name))
    listed = fcm.score_levels_adata(obs, LEVELS, ["leiden_1.0"])
    assert listed.index.names == ["prediction", "level"]


def test_score_levels_adata_errors():
    obs = _obs()
    with pytest.raises(KeyError, match=r"no levels column 'celltype\.l4'; the columns are"):
        fcm.score_levels_adata(obs, ["celltype.l1", "celltype.l4"], "leiden_0.5")
    with pytest.raises(KeyError, match="no pred column 'louvain'"):
        fcm.score_levels_adata(obs, LEVELS, "louvain")
    with pytest.raises(TypeError, match="levels as a list of column names"):
        fcm.score_levels_adata(obs, "celltype.l1", "leiden_0.5")
    with pytest.raises(TypeError, match="takes an AnnData"):
        fcm.score_levels_adata([1, 2], LEVELS, "leiden_0.5")
    with pytest.raises(
        ValueError, match=r"'celltype\.l3' is not coarser than level 'celltype\.l2'"
    ):
        fcm.score_levels_adata(obs, LEVELS[::-1], "leiden_0.5")


def test_score_levels_adata_reads_an_h5ad_file(tmp_path):
    anndata = pytest.importorskip("anndata")
    obs = _obs()
    obs.index = [f"c{i}" for i in range(len(obs))]
    path = tmp_path / "cells.h5ad"
    anndata.AnnData(obs=obs).write_h5ad(path)
    got = fcm.score_levels_adata(path, LEVELS, "leiden_*", metrics=METRICS)
    pd.testing.assert_frame_equal(
        got, fcm.score_levels_adata(obs, LEVELS, "leiden_*", metrics=METRICS)
    )
    adata = anndata.AnnData(obs=obs)
    pd.testing.assert_frame_equal(
        fcm.score_levels_adata(adata, LEVELS, "leiden_0.5"),
        fcm.score_levels_adata(obs, LEVELS, "leiden_0.5"),
    )


# --- the plot --------------------------------------------------------------------------------


def test_plot_scores_draws_the_levels_in_order_under_their_names():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from fastcluster_metrics.plot import plot_scores

    obs = _obs()
    many = fcm.score_levels_adata(obs, LEVELS, "leiden_*", metrics=["ARI", "AMI", "VI"])
    ax = plot_scores(many.loc["leiden_0.5"])
    ax.figure.canvas.draw()
    bottom = ax.figure.axes[-1]
    assert [t.get_text() for t in bottom.get_xticklabels()] == LEVELS
    lines = [line for line in ax.get_lines() if line.get_label() in ("ARI", "AMI")]
    assert lines and all(line.get_linestyle() != "None" for line in lines)
    assert all(list(line.get_xdata()) == [0.0, 1.0, 2.0] for line in lines)  # not dodged
    best = many.loc["leiden_0.5", "adjusted_rand_score"].idxmax()
    assert ax.get_title().startswith(f"best level = {best} by ARI")
    plt.close(ax.figure)


# --- a million samples -----------------------------------------------------------------------


def test_a_million_samples_three_levels_against_evaluate():
    rng = np.random.default_rng(12)
    n = 1_000_000
    fine = rng.integers(0, 100, n)
    names = np.array([f"fine {i}" for i in range(100)], dtype=object)
    levels = {"l1": fine // 25, "l2": names[fine // 5 * 5], "l3": names[fine]}
    pred = np.where(rng.random(n) < 0.6, fine // 4, rng.integers(0, 40, n))
    got = fcm.score_levels(levels, pred)
    _assert_evaluate(got, levels, pred, None)
    parents = {names[i]: names[i // 5 * 5] for i in range(100) if i % 5}
    parents.update({names[i]: i // 25 for i in range(0, 100, 5)})
    by_tree = fcm.score_levels(levels["l3"], pred, parents=parents)
    assert by_tree.to_numpy().tolist() == got.to_numpy().tolist()
