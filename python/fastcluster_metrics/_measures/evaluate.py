"""Every measure from one pass over the labels."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from .._table.count import count_labels
from .._utils.public import public
from .catalogue import Measure
from .contingency import Contingency
from .lookup import resolve_all

__all__ = ["Evaluation", "evaluate", "scores"]


@public
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


def scores(table: Contingency, measures: Sequence[Measure]) -> Evaluation:
    """The measures' values on one table."""
    return Evaluation({m.name: m(table) for m in measures}, table.n)


def evaluate(
    labels_true: Any,
    labels_pred: Any,
    metrics: Iterable[str] | str | None = None,
    *,
    missing: str = "raise",
    sample_weight: Any = None,
    class_weight: str | dict[Any, float] | None = None,
) -> Evaluation:
    """Every measure (or the chosen ones) from one pass over the labels.

    By default, scikit-learn's scores and purity; ``metrics="all"`` gives every measure of the
    catalogue (some need scipy), or name the ones you want, by full name or short name in any
    case (``"ARI"``, ``"nmi_max"``, ``"purity"``). Each value equals what the function (or
    :class:`Contingency` method) of the same name returns; a measure that raises on an empty
    labeling (``mutual_info_score``, the entropies) is NaN here instead. The result is keyed
    by full name. ``sample_weight`` and ``class_weight`` weigh the samples as in every measure
    (:meth:`Contingency.from_labels`); ``n`` is then their total.

    Examples
    --------
    >>> from fastcluster_metrics import evaluate
    >>> scores = evaluate([0, 0, 1, 1], [0, 0, 1, 2], metrics=["rand_score", "purity_score"])
    >>> scores.to_dict()
    {'rand_score': 0.8333333333333334, 'purity_score': 1.0}
    >>> every = evaluate([0, 0, 1, 1], [0, 0, 1, 2], metrics="all")
    >>> len(every) > 50, every["normalized_mutual_info_score_max"]
    (True, 0.6666666666666666)
    >>> evaluate([0, 0, 1, 1], [0, 0, 1, 2], metrics=["ARI", "nmi_max"])
    Evaluation(n=4, adjusted_rand_score=0.571429, normalized_mutual_info_score_max=0.666667)
    """
    measures = resolve_all(metrics, "evaluate")
    # Measures that need only the table's sums (scikit-learn's and purity) let all-singleton
    # predictions be counted in a bit per cluster, without their cells; measures of the pair
    # counts alone, a wide table without its cells.
    cells = any(m.cells and not m.pairs for m in measures)
    table = count_labels(
        "evaluate",
        labels_true,
        labels_pred,
        missing,
        cells=cells,
        margins=all(m.pairs for m in measures),
        sample_weight=sample_weight,
        class_weight=class_weight,
    )[0]
    return scores(Contingency._of(table), measures)
