"""The built-in example: ``python -m fastcluster_metrics`` (or ``fastcluster-metrics``) with no
arguments, or ``fastcluster-metrics demo``.

With no arguments (or ``demo``), two parts, then pictures:

1. model selection: k-means (scikit-learn) at k = 2..16 on scikit-learn's digits, every
   measure for every k in one pass each, the k that agrees best with the digits (by AMI),
   the k of the highest silhouette (no digits needed; every k in one call), and the time
   scikit-learn takes for the same scores;
2. speed: a simulated single-cell annotation (a million cells, 33 cell types) and three
   clusterings of it, scored with every measure, and each measure timed against
   scikit-learn;
3. plots (scores against k, contingency heatmaps, pair counts) and the digits clusterings as
   a CSV file for the command line, in ``--out`` (default ``./fastcluster_metrics_example``).

The measures it lists come from the catalogue: every default measure, and those of them that
scikit-learn has too for its timings.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

import fastcluster_metrics as fcm
from fastcluster_metrics._cli.console import CliError, Parser, format_table
from fastcluster_metrics._measures.catalogue import MEASURES
from fastcluster_metrics._measures.lookup import default_names, label

__all__ = ["demo", "digits_points", "digits_runs", "example", "sklearn_names"]


def sklearn_names() -> list[str]:
    """The default measures that scikit-learn has too (all of :func:`fcm.evaluate`'s but
    purity), by the catalogue."""
    return [name for name in default_names() if MEASURES[name].in_sklearn]


SELECT_BY = "adjusted_mutual_info_score"
"""The measure that chooses k."""


def example(n: int, seed: int = 0) -> tuple[NDArray[np.int64], dict[str, NDArray[np.int64]]]:
    """Cell types with skewed sizes, and clusterings that split and mislabel them."""
    rng = np.random.default_rng(seed)
    sizes = rng.dirichlet(np.full(33, 0.7))
    truth = rng.choice(33, size=n, p=sizes).astype(np.int64)
    clusterings = {}
    for name, noise in [("leiden_fine", 0.05), ("leiden_mid", 0.2), ("kmeans_poor", 0.5)]:
        pred = truth * 2 + rng.integers(0, 2, size=n)  # each type split in two clusters
        wrong = rng.random(n) < noise
        pred[wrong] = rng.integers(0, 66, size=int(wrong.sum()))
        clusterings[name] = pred
    return truth, clusterings


def digits_points(seed: int = 0) -> tuple[NDArray[Any], NDArray[Any]]:
    """scikit-learn's digits (1,797 images of 8x8 pixels) on their 20 principal components,
    and the digits."""
    from sklearn.datasets import load_digits
    from sklearn.decomposition import PCA

    images, digits = load_digits(return_X_y=True)
    return PCA(n_components=20, random_state=seed).fit_transform(images), digits


def digits_runs(ks: Sequence[int], seed: int = 0) -> tuple[NDArray[Any], dict[int, NDArray[Any]]]:
    """The digits and a k-means clustering of :func:`digits_points` at each k (one
    initialisation each: a few seconds in all)."""
    from sklearn.cluster import KMeans

    points, digits = digits_points(seed)
    runs = {k: KMeans(n_clusters=k, n_init=1, random_state=seed).fit_predict(points) for k in ks}
    return digits, runs


def _timed(function: Callable[[], Any]) -> tuple[Any, float]:
    start = time.perf_counter()
    value = function()
    return value, time.perf_counter() - start


def _fmt(value: float) -> str:
    return f"{value:.4f}"


def _seconds(value: float) -> str:
    return f"{value:.4f} s" if value < 0.1 else f"{value:.2f} s"


def _sklearn() -> Any:
    try:
        from sklearn.metrics import cluster
    except ImportError:
        return None
    return cluster


def model_selection(ks: Sequence[int], time_sklearn: bool) -> tuple[Any, dict[int, Any], Any, int]:
    """Part 1; returns (digits, runs, scores per k, chosen k)."""
    print(f"1. Model selection: k-means on scikit-learn's digits, k = {ks[0]}..{ks[-1]}")
    (digits, runs), fit_time = _timed(lambda: digits_runs(ks))
    print(f"   {digits.size:,} images of 10 digits; k-means (scikit-learn) in {fit_time:.1f} s\n")
    scores, ours = _timed(lambda: fcm.compare_many(digits, runs))
    scores.index.name = "k"
    metrics = list(scores.columns)
    rows = [(str(k), [_fmt(v) for v in scores.loc[k]]) for k in scores.index]
    table = format_table("k", [label(m) for m in metrics], rows)
    print("   " + table.replace("\n", "\n   "))
    chosen = int(scores[SELECT_BY].idxmax())
    by_ari = int(scores["adjusted_rand_score"].idxmax())
    print(
        f"\n   chosen k = {chosen}: highest {label(SELECT_BY)}"
        f" ({scores.loc[chosen, SELECT_BY]:.4f}); highest ARI at k = {by_ari}"
    )
    print(
        f"   all {len(metrics)} measures for {len(runs)} clusterings:"
        f" {_seconds(ours)} with fastcluster_metrics"
    )
    points, _ = digits_points()
    silhouettes, t_sil = _timed(lambda: fcm.silhouette_score(points, list(runs.values())))
    by_silhouette = list(runs)[int(np.argmax(silhouettes))]
    print(
        f"   silhouette against the 20 principal components (no digits needed): highest at"
        f" k = {by_silhouette} ({np.max(silhouettes):.4f})\n"
        f"   the {len(runs)} clusterings' silhouettes in one call: {_seconds(t_sil)}"
        f" with fastcluster_metrics"
    )
    sk = _sklearn() if time_sklearn else None
    if sk is not None:
        _, theirs = _timed(
            lambda: [
                getattr(sk, m)(digits, pred) for pred in runs.values() for m in sklearn_names()
            ]
        )
        _, ours9 = _timed(lambda: fcm.compare_many(digits, runs, sklearn_names()))
        print(
            f"   the {len(sklearn_names())} measures scikit-learn has: {_seconds(theirs)} with"
            f" scikit-learn, {_seconds(ours9)} with fastcluster_metrics"
            f" ({theirs / ours9:.0f}x faster)"
        )
    return digits, runs, scores, chosen


def speed(n: int, time_sklearn: bool) -> tuple[Any, dict[str, Any]]:
    """Part 2; returns (truth, clusterings)."""
    print(f"\n2. Speed: {n:,} simulated cells, 33 cell types, three clusterings")
    truth, clusterings = example(n)
    scores, ours = _timed(lambda: fcm.compare_many(truth, clusterings))
    rows = [(label(m), [_fmt(scores.loc[c, m]) for c in clusterings]) for m in scores.columns]
    print("   " + format_table("metric", list(clusterings), rows).replace("\n", "\n   "))
    print(
        f"\n   all {scores.size} scores: {_seconds(ours)} with fastcluster_metrics"
        f" ({fcm.num_threads()} threads)"
    )
    sk = _sklearn() if time_sklearn else None
    if sk is None:
        if time_sklearn:
            print(
                "   (install scikit-learn to compare: pip install 'fastcluster-metrics[examples]')"
            )
        return truth, clusterings
    pred = clusterings["leiden_mid"]
    print("   each measure alone on leiden_mid, against scikit-learn:\n")
    timing = []
    total_theirs = total_ours = 0.0
    for name in sklearn_names():
        theirs, t_theirs = _timed(partial(getattr(sk, name), truth, pred))
        mine, t_ours = _timed(partial(getattr(fcm, name), truth, pred))
        total_theirs += t_theirs
        total_ours += t_ours
        timing.append(
            (
                label(name),
                [
                    f"{t_theirs:.3f}",
                    f"{t_ours:.4f}",
                    f"{t_theirs / t_ours:.0f}x",
                    f"{abs(theirs - mine):.1e}",
                ],
            )
        )
    columns = ["sklearn (s)", "ours (s)", "faster", "|difference|"]
    print("   " + format_table("metric", columns, timing).replace("\n", "\n   "))
    print(
        f"\n   in all: {total_theirs:.2f} s with scikit-learn, {total_ours:.3f} s with"
        f" fastcluster_metrics ({total_theirs / total_ours:.0f}x faster)"
    )
    return truth, clusterings


def plots(
    out: Path,
    digits_part: tuple[Any, dict[int, Any], Any, int] | None,
    cells: tuple[Any, dict[str, Any]],
) -> list[Path]:
    """Part 3: the pictures, each a PNG file in ``out``."""
    from matplotlib.figure import Figure

    from fastcluster_metrics.plot import plot_contingency, plot_pair_confusion, plot_scores

    written = []

    def save(figure: Any, name: str) -> None:
        path = out / name
        figure.savefig(path, dpi=110)
        written.append(path)

    if digits_part is not None:
        digits, runs, scores, chosen = digits_part
        figure = Figure(figsize=(8, 5), layout="constrained")
        plot_scores(
            scores[[m for m in scores.columns if MEASURES[m].plotted]],
            best=SELECT_BY,
            xlabel="k",
            ax=figure.subplots(),
        )
        save(figure, "digits_scores_vs_k.png")
        figure = Figure(figsize=(8, 6), layout="constrained")
        plot_contingency(
            digits,
            runs[chosen],
            xlabel=f"k-means cluster (k = {chosen})",
            ylabel="digit",
            title=f"digits against k-means at k = {chosen}, row-normalised",
            ax=figure.subplots(),
        )
        save(figure, f"digits_contingency_k{chosen}.png")
        figure = Figure(figsize=(5.5, 4.5), layout="constrained")
        plot_pair_confusion(digits, runs[chosen], ax=figure.subplots())
        save(figure, f"digits_pair_confusion_k{chosen}.png")
    truth, clusterings = cells
    figure = Figure(figsize=(14, 8), layout="constrained")
    plot_contingency(
        fcm.Contingency.from_labels(truth, clusterings["leiden_mid"]),
        xlabel="leiden_mid cluster",
        ylabel="cell type",
        title=f"{truth.size:,} simulated cells: cell types against leiden_mid",
        ax=figure.subplots(),
    )
    save(figure, "cells_contingency_leiden_mid.png")
    return written


def demo(argv: Sequence[str] = ()) -> int:
    """The built-in example; returns the exit status."""
    parser = Parser(
        prog="fastcluster-metrics demo",
        description="The built-in example: k-means on scikit-learn's digits scored at each k,"
        " a million simulated cells scored and timed against scikit-learn, and plots.",
    )
    parser.add_argument(
        "--out",
        default="fastcluster_metrics_example",
        metavar="DIR",
        help="where the plots and the example CSV go (default ./fastcluster_metrics_example)",
    )
    parser.add_argument(
        "-n", type=int, default=1_000_000, help="number of simulated cells (default 1000000)"
    )
    parser.add_argument(
        "--k-max", type=int, default=16, metavar="K", help="largest k of k-means (default 16)"
    )
    parser.add_argument("--no-sklearn", action="store_true", help="skip the timings of sklearn")
    parser.add_argument("--no-plots", action="store_true", help="draw nothing")
    parser.add_argument(
        "--debug",
        action="store_true",
        help="on an error, show Python's traceback (to report a bug) instead of one line",
    )
    args = parser.parse_args(argv)
    if args.n < 2 or args.k_max < 2:
        raise CliError("-n and --k-max must be at least 2", 2)
    try:
        import pandas  # noqa: F401
    except ImportError as e:
        raise CliError(
            f"the example needs pandas, scikit-learn and matplotlib: pip install"
            f" 'fastcluster-metrics[examples]' ({e})"
        ) from e
    out = Path(args.out)
    start = time.perf_counter()
    print(f"fastcluster_metrics {fcm.__version__}: the built-in example\n")

    digits_part = None
    if _sklearn() is not None:
        digits_part = model_selection(list(range(2, args.k_max + 1)), not args.no_sklearn)
    else:
        print("1. (skipped: k-means on digits needs scikit-learn: pip install scikit-learn)")
    cells = speed(args.n, not args.no_sklearn)

    if not args.no_plots:
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            print("\n3. (no plots: they need matplotlib: pip install matplotlib)")
        else:
            out.mkdir(parents=True, exist_ok=True)
            print(f"\n3. Plots, in {out}{'/' if not str(out).endswith('/') else ''}:")
            for path in plots(out, digits_part, cells):
                print(f"   {path.name}")
    if digits_part is not None:
        out.mkdir(parents=True, exist_ok=True)
        digits, runs, _, chosen = digits_part
        import pandas as pd

        csv_path = out / "digits_kmeans.csv"
        frame = pd.DataFrame({"image": np.arange(digits.size), "digit": digits})
        for k, labels in runs.items():
            frame[f"k{k}"] = labels
        frame.to_csv(csv_path, index=False)
        near = [k for k in (chosen - 1, chosen, chosen + 1) if k in runs]
        preds = " ".join(f"--pred k{k}" for k in near)
        print(
            f"\nThe digits clusterings are in {csv_path}; score them from the command line:\n"
            f"   fastcluster-metrics {csv_path} --truth digit {preds} --plot k.png"
        )
    print(f"\ndone in {time.perf_counter() - start:.1f} s")
    return 0
