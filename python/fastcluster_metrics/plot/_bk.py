"""Fowlkes & Mallows' B_k curve of two dendrograms with its band under independence
(:func:`plot_bk`, re-exported by :mod:`fastcluster_metrics.plot`), as their 1983 paper and R's
dendextend ``Bk_plot`` draw it. matplotlib is imported when :func:`plot_bk` is first called.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from matplotlib.axes import Axes

__all__ = ["plot_bk"]

_LOG_FROM = 200
"""Curves over more values of k than this get a logarithmic k axis: the small k, where two
trees differ most visibly, would otherwise be squeezed against the left edge."""


def plot_bk(
    comparison: Any,
    linkage2: Any = None,
    *,
    ks: Any = None,
    band: float = 2.0,
    ax: Axes | None = None,
    title: str | None = None,
) -> Axes:
    """Draw B_k against k for two dendrograms, with its expectation and a band of ``band``
    standard deviations around it under Fowlkes & Mallows' null (independent trees).

    ``comparison`` is :func:`~fastcluster_metrics.compare_dendrograms`' DataFrame, or the first
    of two linkages (``linkage2`` the second; ``ks`` as that function takes it). The k of the
    cuts with fewer clusters than k (ties) are drawn as the others are; the k where a cut is
    all single samples (no pairs, B_k 0 by convention) are left out. B_k above the band says
    the trees agree at that k more than chance does. Returns the Axes.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np
    >>> from scipy.cluster.hierarchy import linkage
    >>> from fastcluster_metrics import plot
    >>> x = np.random.default_rng(0).normal(size=(40, 2))
    >>> ax = plot.plot_bk(linkage(x, "single"), linkage(x, "complete"))
    >>> ax.get_xlabel(), ax.get_ylabel()
    ('number of clusters k', 'Fowlkes-Mallows B_k')
    >>> import matplotlib.pyplot as plt
    >>> plt.close("all")
    """
    import matplotlib.pyplot as plt

    from .._many.dendrogram_pair import compare_dendrograms

    if linkage2 is not None:
        frame = compare_dendrograms(comparison, linkage2, ks=ks)
    elif hasattr(comparison, "columns") and "fowlkes_mallows_variance" in comparison.columns:
        frame = comparison
    else:
        raise TypeError(
            "plot_bk takes compare_dendrograms' DataFrame, or two linkages (linkage1, linkage2)"
        )
    if not np.isfinite(band) or band < 0:
        raise ValueError(f"band must be a number of standard deviations >= 0; got {band!r}")
    # A cut of single samples has no pairs: B_k is 0 by convention, not a comparison.
    paired = frame["fowlkes_mallows_expected"].to_numpy(dtype=np.float64) > 0
    frame = frame[paired]
    k = np.asarray(frame.index, dtype=np.float64)
    bk = frame["fowlkes_mallows_score"].to_numpy(dtype=np.float64)
    mean = frame["fowlkes_mallows_expected"].to_numpy(dtype=np.float64)
    spread = band * np.sqrt(frame["fowlkes_mallows_variance"].to_numpy(dtype=np.float64))
    if ax is None:
        _, ax = plt.subplots(figsize=(6.4, 4.2), layout="constrained")
    many = k.size > 60
    ax.fill_between(
        k,
        np.clip(mean - spread, 0, 1),
        np.clip(mean + spread, 0, 1),
        color="0.82",
        linewidth=0,
        label=f"expected ± {band:g} sd under independence",
    )
    ax.plot(k, mean, color="0.35", linestyle="--", linewidth=1.2, label="expected")
    ax.plot(
        k,
        bk,
        color="C0",
        linewidth=1.6,
        marker=None if many else "o",
        markersize=4,
        label="B_k",
    )
    if k.size and k.max() - k.min() + 1 > _LOG_FROM and k.min() > 0:
        ax.set_xscale("log")
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlabel("number of clusters k")
    ax.set_ylabel("Fowlkes-Mallows B_k")
    ax.grid(True, color="0.92")
    # Below the axes: B_k wanders over the whole height, and any corner would hide some of it.
    ax.legend(
        loc="upper center",
        bbox_to_anchor=(0.5, -0.13),
        ncols=3,
        frameon=False,
        fontsize="small",
    )
    if title is not None:
        ax.set_title(title)
    return ax
