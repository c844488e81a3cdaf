"""The catalogue's measures as functions of two labelings, like scikit-learn's.

Each ``f(labels_true, labels_pred, *, missing="raise", ...)`` builds the
:class:`Contingency` of the labelings in one pass (:meth:`Contingency.from_labels`) and returns
the method of the same name, with the same keyword-only options and docstring. To compute
several measures, build the table once (or call :func:`evaluate`).

>>> import fastcluster_metrics as fcm
>>> fcm.jaccard_index([0, 0, 1, 1], [0, 0, 1, 2])
0.5
>>> fcm.variation_of_information([0, 0, 1, 1], [0, 0, 1, 2], base=2)
0.5
>>> fcm.pair_sets_index([0, 0, 1, 1], [0, 0, 1, 2], simplified=True)
0.25
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any, Protocol

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._labels.weights import with_weights_doc
from .._utils.public import public
from .contingency import Contingency

ClassWeight = str | dict[Any, float] | None

__all__ = [
    "adjusted_fowlkes_mallows_score",
    "bcubed_f_score",
    "bcubed_precision",
    "bcubed_recall",
    "best_match_f1_per_class",
    "best_match_f1_score",
    "chi_squared",
    "class_report",
    "cluster_report",
    "conditional_entropy_pred_given_true",
    "conditional_entropy_true_given_pred",
    "cramers_v",
    "dice_index",
    "element_centric_similarity",
    "frobenius_distance",
    "g_plus_index",
    "goodman_kruskal_gamma",
    "hubert_gamma",
    "hungarian_accuracy",
    "information_distance",
    "inverse_purity_score",
    "jaccard_index",
    "joint_entropy",
    "kendall_tau",
    "kulczynski_index",
    "mcnemar_index",
    "mirkin_metric",
    "modified_adjusted_rand_score",
    "normalized_clustering_accuracy",
    "normalized_information_distance",
    "normalized_mutual_info_score_joint",
    "normalized_pivoted_accuracy",
    "normalized_variation_of_information",
    "pair_counts",
    "pair_f_score",
    "pair_precision",
    "pair_recall",
    "pair_sets_index",
    "phi_index",
    "purity_f_score",
    "reduced_mutual_info_score",
    "rogers_tanimoto_index",
    "russel_rao_index",
    "sokal_sneath1_index",
    "sokal_sneath2_index",
    "standardized_mutual_info_score",
    "standardized_rand_score",
    "variation_of_information",
]


# The signatures, for type checkers (each function's ``__signature__`` says the same at run time).


class _Score(Protocol):
    def __call__(
        self,
        labels_true: ArrayLike,
        labels_pred: ArrayLike,
        *,
        missing: str = ...,
        sample_weight: ArrayLike | None = ...,
        class_weight: ClassWeight = ...,
    ) -> float: ...


class _ScoreInBase(Protocol):
    def __call__(
        self,
        labels_true: ArrayLike,
        labels_pred: ArrayLike,
        *,
        missing: str = ...,
        sample_weight: ArrayLike | None = ...,
        class_weight: ClassWeight = ...,
        base: float = ...,
    ) -> float: ...


class _ScoreWithBeta(Protocol):
    def __call__(
        self,
        labels_true: ArrayLike,
        labels_pred: ArrayLike,
        *,
        missing: str = ...,
        sample_weight: ArrayLike | None = ...,
        class_weight: ClassWeight = ...,
        beta: float = ...,
    ) -> float: ...


class _PairSetsIndex(Protocol):
    def __call__(
        self,
        labels_true: ArrayLike,
        labels_pred: ArrayLike,
        *,
        missing: str = ...,
        sample_weight: ArrayLike | None = ...,
        class_weight: ClassWeight = ...,
        simplified: bool = ...,
        clipped: bool = ...,
    ) -> float: ...


class _ReducedScore(Protocol):
    def __call__(
        self,
        labels_true: ArrayLike,
        labels_pred: ArrayLike,
        *,
        missing: str = ...,
        sample_weight: ArrayLike | None = ...,
        class_weight: ClassWeight = ...,
        variant: str = ...,
        normalization: str = ...,
    ) -> float: ...


class _ScoreWithAverage(Protocol):
    def __call__(
        self,
        labels_true: ArrayLike,
        labels_pred: ArrayLike,
        *,
        missing: str = ...,
        sample_weight: ArrayLike | None = ...,
        class_weight: ClassWeight = ...,
        average: str = ...,
    ) -> float: ...


class _Count(Protocol):
    def __call__(
        self,
        labels_true: ArrayLike,
        labels_pred: ArrayLike,
        *,
        missing: str = ...,
        sample_weight: ArrayLike | None = ...,
        class_weight: ClassWeight = ...,
    ) -> int: ...


class _PairCounts(Protocol):
    def __call__(
        self,
        labels_true: ArrayLike,
        labels_pred: ArrayLike,
        *,
        missing: str = ...,
        sample_weight: ArrayLike | None = ...,
        class_weight: ClassWeight = ...,
    ) -> dict[str, int]: ...


class _PerClass(Protocol):
    def __call__(
        self,
        labels_true: ArrayLike,
        labels_pred: ArrayLike,
        *,
        missing: str = ...,
        sample_weight: ArrayLike | None = ...,
        class_weight: ClassWeight = ...,
    ) -> NDArray[np.float64]: ...


class _Report(Protocol):
    def __call__(
        self,
        labels_true: ArrayLike,
        labels_pred: ArrayLike,
        *,
        missing: str = ...,
        sample_weight: ArrayLike | None = ...,
        class_weight: ClassWeight = ...,
    ) -> Any: ...


_LABELS = [
    inspect.Parameter("labels_true", inspect.Parameter.POSITIONAL_OR_KEYWORD),
    inspect.Parameter("labels_pred", inspect.Parameter.POSITIONAL_OR_KEYWORD),
    inspect.Parameter("missing", inspect.Parameter.KEYWORD_ONLY, default="raise"),
    inspect.Parameter("sample_weight", inspect.Parameter.KEYWORD_ONLY, default=None),
    inspect.Parameter("class_weight", inspect.Parameter.KEYWORD_ONLY, default=None),
]


def _from_method(name: str) -> Callable[..., Any]:
    """The function of two labelings computing the :class:`Contingency` method ``name``."""
    method = getattr(Contingency, name)
    options = [p for p in inspect.signature(method).parameters.values() if p.kind is p.KEYWORD_ONLY]

    def function(
        labels_true: ArrayLike,
        labels_pred: ArrayLike,
        *,
        missing: str = "raise",
        sample_weight: ArrayLike | None = None,
        class_weight: ClassWeight = None,
        **kwargs: Any,
    ) -> Any:
        table = Contingency._counted(
            name, labels_true, labels_pred, missing, sample_weight, class_weight
        )
        return getattr(table, name)(**kwargs)

    summary, _, details = inspect.getdoc(method).partition("\n")  # type: ignore[union-attr]
    function.__name__ = function.__qualname__ = name
    public(function)
    function.__doc__ = (
        f"{summary}\n\nFrom two labelings: the :class:`Contingency` method ``{name}`` of"
        " ``Contingency.from_labels(labels_true, labels_pred, missing=missing)``; ``missing``"
        f" is ``'raise'``, ``'drop'`` or ``'cluster'``, as for every metric.\n{details}"
    )
    with_weights_doc(function)
    function.__signature__ = inspect.Signature(  # type: ignore[attr-defined]
        [*_LABELS, *options], return_annotation=inspect.signature(method).return_annotation
    )
    return function


# pair counting
pair_counts: _PairCounts = _from_method("pair_counts")
jaccard_index: _Score = _from_method("jaccard_index")
pair_precision: _Score = _from_method("pair_precision")
pair_recall: _Score = _from_method("pair_recall")
pair_f_score: _ScoreWithBeta = _from_method("pair_f_score")
dice_index: _Score = _from_method("dice_index")
kulczynski_index: _Score = _from_method("kulczynski_index")
mirkin_metric: _Count = _from_method("mirkin_metric")
hubert_gamma: _Score = _from_method("hubert_gamma")
rogers_tanimoto_index: _Score = _from_method("rogers_tanimoto_index")
russel_rao_index: _Score = _from_method("russel_rao_index")
sokal_sneath1_index: _Score = _from_method("sokal_sneath1_index")
sokal_sneath2_index: _Score = _from_method("sokal_sneath2_index")
phi_index: _Score = _from_method("phi_index")
adjusted_fowlkes_mallows_score: _Score = _from_method("adjusted_fowlkes_mallows_score")
modified_adjusted_rand_score: _Score = _from_method("modified_adjusted_rand_score")
kendall_tau: _Score = _from_method("kendall_tau")
goodman_kruskal_gamma: _Score = _from_method("goodman_kruskal_gamma")
g_plus_index: _Score = _from_method("g_plus_index")
mcnemar_index: _Score = _from_method("mcnemar_index")
standardized_rand_score: _Score = _from_method("standardized_rand_score")

# information
joint_entropy: _ScoreInBase = _from_method("joint_entropy")
conditional_entropy_true_given_pred: _ScoreInBase = _from_method(
    "conditional_entropy_true_given_pred"
)
conditional_entropy_pred_given_true: _ScoreInBase = _from_method(
    "conditional_entropy_pred_given_true"
)
variation_of_information: _ScoreInBase = _from_method("variation_of_information")
normalized_variation_of_information: _Score = _from_method("normalized_variation_of_information")
information_distance: _ScoreInBase = _from_method("information_distance")
normalized_information_distance: _Score = _from_method("normalized_information_distance")
normalized_mutual_info_score_joint: _Score = _from_method("normalized_mutual_info_score_joint")
reduced_mutual_info_score: _ReducedScore = _from_method("reduced_mutual_info_score")
standardized_mutual_info_score: _Score = _from_method("standardized_mutual_info_score")
chi_squared: _Score = _from_method("chi_squared")
cramers_v: _Score = _from_method("cramers_v")
frobenius_distance: _Score = _from_method("frobenius_distance")

# set matching
inverse_purity_score: _Score = _from_method("inverse_purity_score")
purity_f_score: _Score = _from_method("purity_f_score")
bcubed_precision: _Score = _from_method("bcubed_precision")
bcubed_recall: _Score = _from_method("bcubed_recall")
bcubed_f_score: _Score = _from_method("bcubed_f_score")
element_centric_similarity: _Score = _from_method("element_centric_similarity")
hungarian_accuracy: _Score = _from_method("hungarian_accuracy")
normalized_pivoted_accuracy: _Score = _from_method("normalized_pivoted_accuracy")
normalized_clustering_accuracy: _Score = _from_method("normalized_clustering_accuracy")
pair_sets_index: _PairSetsIndex = _from_method("pair_sets_index")
best_match_f1_per_class: _PerClass = _from_method("best_match_f1_per_class")
best_match_f1_score: _ScoreWithAverage = _from_method("best_match_f1_score")

# diagnostics (pandas DataFrames)
class_report: _Report = _from_method("class_report")
cluster_report: _Report = _from_method("cluster_report")
