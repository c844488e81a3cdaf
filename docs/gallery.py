"""The gallery: one PNG per picture of ``fastcluster_metrics.plot`` and the command line's
figure, each at its default size, drawn from code (no downloads, no scikit-learn).

    PYTHONPATH=python python docs/gallery.py [OUT]     (default: docs/gallery/)

Regenerate them after a change to a picture and look at each before committing: they are
small (80 dpi) on purpose.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import numpy as np

import fastcluster_metrics as fcm
from fastcluster_metrics import plot
from fastcluster_metrics._cli import render as cli_render
from fastcluster_metrics._cli.demo import example

DPI = 80


def noise_clusters(n: int = 20_000, seed: int = 0) -> tuple[Any, Any]:
    """Ten cell types, each in its own cluster, and 31 % of the cells in ten clusters of noise
    (about 3 % of the cells each, from every type): purity 0.74, ARI 0.60."""
    rng = np.random.default_rng(seed)
    types = rng.integers(0, 10, n)
    truth = np.array([f"celltype_{t}" for t in types], dtype=object)
    pred = np.array([f"c{t}" for t in types], dtype=object)
    noise = rng.random(n) < 0.31
    pred[noise] = [f"noise_{k}" for k in rng.integers(0, 10, int(noise.sum()))]
    return truth, pred


def resolution_sweep(n: int = 6_000, seed: int = 1) -> tuple[Any, dict[float, Any]]:
    """Twelve classes, and a clustering at each resolution: classes merged in fours, threes,
    pairs, then found, then split in two and three, with 8 % of the samples misplaced."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 12, n)
    steps = {0.2: ("merge", 4), 0.4: ("merge", 3), 0.6: ("merge", 2), 1.0: ("split", 1),
             1.4: ("split", 2), 2.0: ("split", 3)}  # fmt: skip
    runs = {}
    for resolution, (how, m) in steps.items():
        pred = truth // m if how == "merge" else truth * m + rng.integers(0, m, n)
        wrong = rng.random(n) < 0.08
        pred[wrong] = rng.integers(0, int(pred.max()) + 1, int(wrong.sum()))
        runs[resolution] = pred
    return truth, runs


def embedding_blobs(n: int = 50_000, seed: int = 2) -> tuple[Any, Any, Any]:
    """A 2-D embedding of seven cell types in Gaussian blobs of unequal sizes, their type as the
    truth, and a clustering that merges NK cells into the CD8 T cells, splits the B cells in
    two, and puts 3 % of the cells into a random other cluster: positions, types, clusters."""
    rng = np.random.default_rng(seed)
    names = np.array(["CD4 T", "CD8 T", "NK", "B", "monocyte", "DC", "platelet"], dtype=object)
    centres = np.array([[0.0, 0.0], [4.2, 1.2], [5.6, 4.4], [-5.5, 5.0], [-5.0, -4.5],
                        [1.5, -6.0], [8.0, -4.0]])  # fmt: skip
    spreads = np.array([1.2, 0.9, 0.7, 1.1, 1.2, 0.6, 0.4])
    shares = np.array([0.30, 0.16, 0.09, 0.17, 0.18, 0.06, 0.04])
    types = rng.choice(len(names), size=n, p=shares)
    coords = centres[types] + rng.normal(size=(n, 2)) * spreads[types, None]
    # cluster = type, but NK (2) joins CD8 T (1), and the B cells (3) split in two by height
    clusters = types.copy()
    clusters[types == 2] = 1
    clusters[(types == 3) & (coords[:, 1] > centres[3, 1] + 0.3)] = len(names)
    wrong = rng.random(n) < 0.03
    clusters[wrong] = rng.integers(0, len(names) + 1, int(wrong.sum()))
    return coords, names[types], clusters


def main(out: Path) -> list[Path]:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out.mkdir(parents=True, exist_ok=True)
    written = []

    def save(figure: Any, name: str) -> None:
        path = out / name
        figure.savefig(path, dpi=DPI)
        plt.close(figure)
        written.append(path)

    truth, pred = noise_clusters()
    save(plot.plot_contingency(truth, pred).figure, "contingency_noise.png")

    cells, clusterings = example(100_000)
    table = fcm.Contingency.from_labels(cells, clusterings["leiden_mid"])
    save(plot.plot_contingency(table).figure, "contingency_demo.png")
    save(plot.plot_pair_confusion(table).figure, "pair_confusion.png")
    save(plot.plot_scores(fcm.compare_many(cells, clusterings)).figure, "scores_compare_many.png")

    truth, runs = resolution_sweep()
    scores = fcm.compare_many(truth, runs)
    scores.index.name = "resolution"
    save(plot.plot_scores(scores).figure, "scores_resolution_sweep.png")
    save(plot.plot_clustree(runs, labels_true=truth).figure, "clustree.png")

    save(bk_figure().figure, "bk_curve.png")

    coords, types, clusters = embedding_blobs()
    save(embedding_figure(coords, types, clusters).figure, "embedding_ecs.png")
    few = slice(0, 20_000)  # the exact silhouette: n^2 distances
    save(plot.plot_silhouette(coords[few], clusters[few]).figure, "silhouette.png")

    names = np.array([f"celltype_{t}" for t in range(33)], dtype=object)
    tables = [fcm.Contingency.from_labels(names[cells], p) for p in clusterings.values()]
    figure = cli_render.summary_figure(
        "cell_type", list(clusterings), cli_render.resolve_metrics(None), tables
    )
    save(figure, "cli_figure.png")
    return written


def bk_figure() -> Any:
    """B_k of the Ward and the average linkage of 400 points in blobs; returns the Axes."""
    from scipy.cluster.hierarchy import linkage

    rng = np.random.default_rng(4)
    centres = rng.normal(scale=6, size=(8, 2))
    x = centres[rng.integers(0, 8, 400)] + rng.normal(size=(400, 2))
    return plot.plot_bk(
        linkage(x, "ward"), linkage(x, "average"), title="Ward against average linkage"
    )


def embedding_figure(coords: Any, types: Any, clusters: Any) -> Any:
    """The embedding coloured by each cell's element-centric similarity, each type named at its
    centre; returns the Axes."""
    scores = fcm.per_sample_score(types, clusters)
    ax = plot.plot_embedding(
        coords, scores, label="element-centric similarity",
        title=f"ECS per cell: NK merged into CD8 T, B split (mean {scores.mean():.2f})",
    )  # fmt: skip
    from matplotlib import patheffects

    halo = [patheffects.withStroke(linewidth=2.5, foreground="white")]
    for name in np.unique(types):
        at = np.median(coords[types == name], axis=0)
        ax.annotate(str(name), at, ha="center", va="center", fontsize=8, path_effects=halo)
    return ax


if __name__ == "__main__":
    target = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).parent / "gallery"
    for path in main(target):
        print(f"{path} ({path.stat().st_size // 1024} KiB)")
