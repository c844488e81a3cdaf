"""Every measure from one pass over the labels."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

from . import _native
from . import _supervised as s
from ._labels import check_missing, count
from ._params import check_array_like

__all__ = ["METRICS", "Evaluation", "check_metrics", "evaluate"]

METRICS: dict[str, Callable[[_native.Table], float]] = {
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
"""The measures :func:`evaluate` computes, by the name of the function that computes each alone."""


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


def check_metrics(metrics: Iterable[str] | None) -> list[str]:
    """The metric names asked for (all by default), refusing unknown ones."""
    names = list(METRICS) if metrics is None else list(metrics)
    unknown = [m for m in names if m not in METRICS]
    if unknown:
        raise ValueError(f"unknown metrics {unknown}; choose from {sorted(METRICS)}")
    return names


def evaluate(
    labels_true: Any,
    labels_pred: Any,
    metrics: Iterable[str] | None = None,
    *,
    missing: str = "raise",
) -> Evaluation:
    """Every measure (or the chosen ones) from one pass over the labels.

    Each value equals what the function of the same name returns (the
    ``mutual_info_score`` of an empty labeling is NaN here instead of an error).

    Examples
    --------
    >>> from fastcluster_metrics import evaluate
    >>> scores = evaluate([0, 0, 1, 1], [0, 0, 1, 2], metrics=["rand_score", "purity_score"])
    >>> scores.to_dict()
    {'rand_score': 0.8333333333333334, 'purity_score': 1.0}
    """
    check_array_like("evaluate", labels_true=labels_true, labels_pred=labels_pred)
    names = check_metrics(metrics)
    table = count(labels_true, labels_pred, missing=check_missing("evaluate", missing))
    return Evaluation({name: float(METRICS[name](table)) for name in names}, table.n)
