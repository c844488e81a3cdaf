"""Every measure from one pass over the labels."""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

import numpy as np

from . import _native
from . import _supervised as s
from ._contingency import Contingency
from ._labels import check_missing, count
from ._params import check_array_like

__all__ = ["ALL_METRICS", "METRICS", "Evaluation", "check_metrics", "evaluate"]

_Metric = Callable[[_native.Table], float]

_DEFAULT: dict[str, _Metric] = {
    "adjusted_rand_score": s._ari,
    "rand_score": s._rand,
    "adjusted_mutual_info_score": lambda t: s._ami(t, "arithmetic"),
    "normalized_mutual_info_score": lambda t: s._nmi(t, "arithmetic"),
    "mutual_info_score": lambda t: s._mi(t) if t.n else float("nan"),
    "homogeneity_score": lambda t: s._hcv(t, 1.0)[0],
    "completeness_score": lambda t: s._hcv(t, 1.0)[1],
    "v_measure_score": lambda t: s._hcv(t, 1.0)[2],
    "fowlkes_mallows_score": s._fowlkes_mallows,
    "purity_score": lambda t: t.purity(),
}

_cache = threading.local()


def _wrap(table: _native.Table) -> Contingency:
    """The native table as a :class:`Contingency` (rows and columns numbered), reused while the
    same table is asked for several measures in a row (one per thread)."""
    cached: tuple[_native.Table, Contingency] | None = getattr(_cache, "entry", None)
    if cached is not None and cached[0] is table:
        return cached[1]
    out = Contingency.__new__(Contingency)
    out._set(np.arange(table.shape[0]), np.arange(table.shape[1]), table)
    _cache.entry = (table, out)
    return out


class _MethodMetric:
    """A measure of the catalogue: the :class:`Contingency` method ``method`` with ``kwargs``;
    nan on an empty table where the method raises (as ``mutual_info_score`` above)."""

    def __init__(self, method: str, **kwargs: Any) -> None:
        self.method = method
        self.kwargs = kwargs

    def of(self, table: Contingency) -> float:
        try:
            return float(getattr(table, self.method)(**self.kwargs))
        except ValueError:
            if table.n == 0:
                return math.nan
            raise

    def __call__(self, table: _native.Table) -> float:
        return self.of(_wrap(table))


_method = _MethodMetric


def _ami(average_method: str) -> _Metric:
    return lambda t: s._ami(t, average_method)


def _nmi(average_method: str) -> _Metric:
    return lambda t: s._nmi(t, average_method)


_MORE: dict[str, _Metric] = {
    # information: the other normalisations of NMI and AMI (Vinh, Epps and Bailey 2010)
    "normalized_mutual_info_score_min": _nmi("min"),
    "normalized_mutual_info_score_geometric": _nmi("geometric"),
    "normalized_mutual_info_score_max": _nmi("max"),
    "normalized_mutual_info_score_joint": _method("normalized_mutual_info_score_joint"),
    "adjusted_mutual_info_score_min": _ami("min"),
    "adjusted_mutual_info_score_geometric": _ami("geometric"),
    "adjusted_mutual_info_score_max": _ami("max"),
    "entropy_true": _method("entropy_true"),
    "entropy_pred": _method("entropy_pred"),
    "joint_entropy": _method("joint_entropy"),
    "conditional_entropy_true_given_pred": _method("conditional_entropy_true_given_pred"),
    "conditional_entropy_pred_given_true": _method("conditional_entropy_pred_given_true"),
    "variation_of_information": _method("variation_of_information"),
    "normalized_variation_of_information": _method("normalized_variation_of_information"),
    "information_distance": _method("information_distance"),
    "normalized_information_distance": _method("normalized_information_distance"),
    "chi_squared": _method("chi_squared"),
    "cramers_v": _method("cramers_v"),
    "frobenius_distance": _method("frobenius_distance"),
    # pair counting
    "modified_adjusted_rand_score": _method("modified_adjusted_rand_score"),
    "adjusted_fowlkes_mallows_score": _method("adjusted_fowlkes_mallows_score"),
    "jaccard_index": _method("jaccard_index"),
    "pair_precision": _method("pair_precision"),
    "pair_recall": _method("pair_recall"),
    "pair_f_score": _method("pair_f_score"),
    "dice_index": _method("dice_index"),
    "kulczynski_index": _method("kulczynski_index"),
    "mirkin_metric": _method("mirkin_metric"),
    "hubert_gamma": _method("hubert_gamma"),
    "phi_index": _method("phi_index"),
    "kendall_tau": _method("kendall_tau"),
    "goodman_kruskal_gamma": _method("goodman_kruskal_gamma"),
    "g_plus_index": _method("g_plus_index"),
    "mcnemar_index": _method("mcnemar_index"),
    "rogers_tanimoto_index": _method("rogers_tanimoto_index"),
    "russel_rao_index": _method("russel_rao_index"),
    "sokal_sneath1_index": _method("sokal_sneath1_index"),
    "sokal_sneath2_index": _method("sokal_sneath2_index"),
    # set matching
    "inverse_purity_score": _method("inverse_purity_score"),
    "purity_f_score": _method("purity_f_score"),
    "bcubed_precision": _method("bcubed_precision"),
    "bcubed_recall": _method("bcubed_recall"),
    "bcubed_f_score": _method("bcubed_f_score"),
    "element_centric_similarity": _method("element_centric_similarity"),
    "hungarian_accuracy": _method("hungarian_accuracy"),
    "normalized_pivoted_accuracy": _method("normalized_pivoted_accuracy"),
    "normalized_clustering_accuracy": _method("normalized_clustering_accuracy"),
    "pair_sets_index": _method("pair_sets_index"),
    "pair_sets_index_simplified": _method("pair_sets_index", simplified=True),
    "best_match_f1_score": _method("best_match_f1_score"),
    "best_match_f1_score_macro": _method("best_match_f1_score", average="macro"),
}

ALL_METRICS: dict[str, _Metric] = {**_DEFAULT, **_MORE}
"""Every measure by name (``metrics="all"``): each is the function of that name, or the
function named before the last ``_`` with that option (``normalized_mutual_info_score_max`` is
``normalized_mutual_info_score(..., average_method="max")``, ``pair_sets_index_simplified`` is
``pair_sets_index(..., simplified=True)``, ``best_match_f1_score_macro`` is
``best_match_f1_score(..., average="macro")``), computed from the table."""


def contingency_metric(name: str) -> Callable[[Contingency], float]:
    """The measure ``name`` of :data:`ALL_METRICS` as a function of a :class:`Contingency`."""
    metric = ALL_METRICS[name]
    if isinstance(metric, _MethodMetric):
        return metric.of
    return lambda table: float(metric(table._native_table))


METRICS: dict[str, _Metric] = dict(_DEFAULT)
"""The measures :func:`evaluate` computes by default (scikit-learn's and purity), by the name of
the function that computes each alone; :data:`ALL_METRICS` has every other measure too."""


class Evaluation(Mapping[str, float]):
    """The scores of one comparison, by metric name (a read-only mapping)."""

    def __init__(self, scores: dict[str, float], n: int) -> None:
        self._scores = scores
        self.n = n
        """Number of samples compared."""

    def __getitem__(self, name: str) -> float:
        return self._scores[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._scores)

    def __len__(self) -> int:
        return len(self._scores)

    def to_dict(self) -> dict[str, float]:
        return dict(self._scores)

    def to_pandas(self) -> Any:
        """The scores as a pandas Series indexed by metric name."""
        import pandas as pd

        return pd.Series(self._scores, name="score", dtype=float)

    def __repr__(self) -> str:
        body = ", ".join(f"{k}={v:.6g}" for k, v in self._scores.items())
        return f"Evaluation(n={self.n}, {body})"


def check_metrics(metrics: Iterable[str] | str | None) -> list[str]:
    """The metric names asked for, refusing unknown ones.

    None gives the default set (:data:`METRICS`), ``"all"`` every measure
    (:data:`ALL_METRICS`), any other string that one measure.
    """
    if metrics is None:
        return list(METRICS)
    if isinstance(metrics, str):
        names = list(ALL_METRICS) if metrics == "all" else [metrics]
    else:
        names = list(metrics)
    unknown = [m for m in names if m not in ALL_METRICS]
    if unknown:
        raise ValueError(f"unknown metrics {unknown}; choose from {sorted(ALL_METRICS)} (or 'all')")
    return names


def evaluate(
    labels_true: Any,
    labels_pred: Any,
    metrics: Iterable[str] | str | None = None,
    *,
    missing: str = "raise",
) -> Evaluation:
    """Every measure (or the chosen ones) from one pass over the labels.

    By default, scikit-learn's scores and purity (:data:`METRICS`); ``metrics="all"`` gives
    every measure of the catalogue (:data:`ALL_METRICS`, some need scipy), or name the ones
    you want. Each value equals what the function (or :class:`Contingency` method) of the same
    name returns; a measure that raises on an empty labeling (``mutual_info_score``, the
    entropies) is NaN here instead.

    Examples
    --------
    >>> from fastcluster_metrics import evaluate
    >>> scores = evaluate([0, 0, 1, 1], [0, 0, 1, 2], metrics=["rand_score", "purity_score"])
    >>> scores.to_dict()
    {'rand_score': 0.8333333333333334, 'purity_score': 1.0}
    >>> every = evaluate([0, 0, 1, 1], [0, 0, 1, 2], metrics="all")
    >>> len(every) > 50, every["normalized_mutual_info_score_max"]
    (True, 0.6666666666666666)
    """
    check_array_like("evaluate", labels_true=labels_true, labels_pred=labels_pred)
    names = check_metrics(metrics)
    # scikit-learn's measures and purity need the table's sums alone, not its cells (without
    # them, all-singleton predictions are counted in a bit per cluster).
    cells = any(name not in _DEFAULT for name in names)
    table = count(labels_true, labels_pred, missing=check_missing("evaluate", missing), cells=cells)
    try:
        return Evaluation({name: float(ALL_METRICS[name](table)) for name in names}, table.n)
    finally:
        _cache.entry = None
