"""scikit-learn's supervised cluster metrics, each computed from one contingency table.

The table is built by one Rust pass over the labels (``_table/count.py``); the
pair-counting scores finish in exact Python integers, the information scores in
Rust. Degenerate cases return what scikit-learn 1.9 returns.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from .._labels.codes import check_missing, prepare
from .._labels.weights import with_weights_doc
from .._table import given
from .._table.count import Table, count_labels, count_one
from .._utils.params import (
    InvalidParameterError,
    check_array_like,
    check_average_method,
    check_beta,
    check_random_model,
    is_array_like,
)
from . import scores as sc

ClassWeight = str | dict[Any, float] | None

_RANDOM_MODELS_DOC = """\
    ``random_model`` (keyword-only; Gates and Ahn 2017, "The impact of random models on
    clustering similarity", JMLR 18) says what "chance" is, with clusim's names:

    - ``"perm"`` (default, scikit-learn's): both labelings a random permutation of the
      samples with their cluster sizes; ``"perm1"``: the truth fixed and the prediction so
      drawn (the same expectation, the same value);
    - ``"num1"``: the truth fixed, the prediction uniform over all partitions of the samples
      with its number of clusters; ``"num"``: both drawn so, each with its number;
    - ``"all1"``: the truth fixed, the prediction uniform over all partitions; ``"all"``:
      both.

    When one fixed reference is compared with clusterings of different numbers of
    clusters (a resolution sweep), the one-sided ``"num1"`` or ``"all1"`` is the baseline
    each clustering is measured against. The partitions' block sizes come from Stirling
    numbers of the second kind (``num``) and Bell numbers (``all``), summed exactly in
    floating point (see ``rust/core/src/models``). Where ``n`` is below about ``k ln k`` for
    a side of ``k`` clusters drawn under ``"num1"``/``"num"`` (most clusters of one or two
    samples) and ``(k - 1)(n - k + 1)`` passes 2e8, the exact sum would take too long and a
    ``ValueError`` says so. Other models than ``"perm"`` need counts (whole-number
    weights)."""


def _with_random_models_doc(func: Any) -> Any:
    """``func`` with :data:`_RANDOM_MODELS_DOC` where its docstring says ``RANDOM_MODELS``."""
    func.__doc__ = (func.__doc__ or "").replace("    RANDOM_MODELS\n", _RANDOM_MODELS_DOC + "\n")
    return func


__all__ = [
    "adjusted_mutual_info_score",
    "adjusted_rand_score",
    "completeness_score",
    "entropy",
    "fowlkes_mallows_score",
    "homogeneity_completeness_v_measure",
    "homogeneity_score",
    "mutual_info_score",
    "normalized_mutual_info_score",
    "purity_score",
    "rand_score",
    "v_measure_score",
]


def _table(
    func: str,
    labels_true: Any,
    labels_pred: Any,
    missing: str,
    sample_weight: Any = None,
    class_weight: ClassWeight = None,
    *,
    margins: bool = False,
) -> Table:
    """The table of a measure's call: its sums are all the measure needs (all singletons are
    then counted without their cells). ``margins``: the measure reads only the margins and
    the sums of squares (the pair counts), so a wide table's cells need not be kept."""
    return count_labels(
        func,
        labels_true,
        labels_pred,
        missing,
        cells=False,
        margins=margins,
        sample_weight=sample_weight,
        class_weight=class_weight,
    )[0]


def _pairs_table(
    func: str,
    labels_true: ArrayLike,
    labels_pred: ArrayLike,
    missing: str,
    sample_weight: Any = None,
    class_weight: ClassWeight = None,
) -> Table:
    """The table of a pair-counting measure's call: its margins and sums of squares are all it
    reads (a wide table's cells are then not kept)."""
    return _table(
        func, labels_true, labels_pred, missing, sample_weight, class_weight, margins=True
    )


def rand_score(
    labels_true: ArrayLike,
    labels_pred: ArrayLike,
    *,
    missing: str = "raise",
    sample_weight: ArrayLike | None = None,
    class_weight: ClassWeight = None,
) -> float:
    """Rand index: the share of sample pairs on which two clusterings agree.

    Same as :func:`sklearn.metrics.rand_score`; 1.0 for fewer than two samples.
    The ratio of exact pair counts is rounded once (scikit-learn rounds both
    counts to float first, which differs in the last bit above ~9.5e7 samples).

    Examples
    --------
    >>> from fastcluster_metrics import rand_score
    >>> rand_score([0, 0, 1, 2], [0, 0, 1, 1])
    0.8333333333333334
    """
    return sc.rand(
        _pairs_table("rand_score", labels_true, labels_pred, missing, sample_weight, class_weight)
    )


@_with_random_models_doc
def adjusted_rand_score(
    labels_true: ArrayLike,
    labels_pred: ArrayLike,
    *,
    missing: str = "raise",
    sample_weight: ArrayLike | None = None,
    class_weight: ClassWeight = None,
    random_model: str = "perm",
) -> float:
    """Rand index adjusted for chance (Hubert and Arabie, 1985).

    Same as :func:`sklearn.metrics.adjusted_rand_score`: 1.0 for identical
    partitions (up to label names), close to 0.0 for random ones, bounded below
    by -0.5. Computed from exact integer pair counts with a single rounding, so
    it neither overflows nor loses precision at any n.

    Under every model the value is ``(RI - E[RI]) / (1 - E[RI])`` (for ``"perm"`` this is
    Hubert and Arabie's form). With ``p`` and ``q`` the probabilities that two samples share
    a class and share a cluster (observed for a side kept, expected for a side drawn),
    ``E[RI] = p q + (1 - p)(1 - q)``. Under models other than ``"perm"`` it is not bounded
    below by -0.5 (nor by -1) and is not symmetric for the one-sided ones.

    RANDOM_MODELS


    Examples
    --------
    >>> from fastcluster_metrics import adjusted_rand_score
    >>> adjusted_rand_score([0, 0, 1, 1], [1, 1, 0, 0])
    1.0
    >>> adjusted_rand_score([0, 0, 1, 2], [0, 0, 1, 1])
    0.5714285714285714
    >>> round(adjusted_rand_score([0, 0, 1, 2], [0, 0, 1, 1], random_model="num1"), 6)
    0.631579
    """
    func = "adjusted_rand_score"
    random_model = check_random_model(func, random_model)
    return sc.ari(
        _pairs_table(func, labels_true, labels_pred, missing, sample_weight, class_weight),
        random_model,
    )


def homogeneity_completeness_v_measure(
    labels_true: ArrayLike,
    labels_pred: ArrayLike,
    *,
    beta: float = 1.0,
    missing: str = "raise",
    sample_weight: ArrayLike | None = None,
    class_weight: ClassWeight = None,
) -> tuple[float, float, float]:
    """Homogeneity, completeness and V-measure (Rosenberg and Hirschberg, 2007) at once.

    Same as :func:`sklearn.metrics.homogeneity_completeness_v_measure`.
    V-measure is ``(1 + beta) * h * c / (beta * h + c)``.

    Examples
    --------
    >>> from fastcluster_metrics import homogeneity_completeness_v_measure
    >>> homogeneity_completeness_v_measure([0, 0, 1, 1], [0, 0, 1, 2])
    (0.9999999999999999, 0.6666666666666666, 0.7999999999999999)
    """
    func = "homogeneity_completeness_v_measure"
    beta = check_beta(func, beta)
    return sc.hcv(
        _table(func, labels_true, labels_pred, missing, sample_weight, class_weight), beta
    )


def homogeneity_score(
    labels_true: ArrayLike,
    labels_pred: ArrayLike,
    *,
    missing: str = "raise",
    sample_weight: ArrayLike | None = None,
    class_weight: ClassWeight = None,
) -> float:
    """Homogeneity: each cluster contains only members of a single class.

    Same as :func:`sklearn.metrics.homogeneity_score` (1.0 when the classes
    have zero entropy).

    Examples
    --------
    >>> from fastcluster_metrics import homogeneity_score
    >>> homogeneity_score([0, 0, 1, 1], [1, 1, 0, 0])
    1.0
    """
    return sc.hcv(
        _table("homogeneity_score", labels_true, labels_pred, missing, sample_weight, class_weight),
        1.0,
    )[0]


def completeness_score(
    labels_true: ArrayLike,
    labels_pred: ArrayLike,
    *,
    missing: str = "raise",
    sample_weight: ArrayLike | None = None,
    class_weight: ClassWeight = None,
) -> float:
    """Completeness: all members of a given class are assigned to the same cluster.

    Same as :func:`sklearn.metrics.completeness_score`.

    Examples
    --------
    >>> from fastcluster_metrics import completeness_score
    >>> completeness_score([0, 0, 1, 1], [0, 0, 0, 0])
    1.0
    """
    return sc.hcv(
        _table(
            "completeness_score", labels_true, labels_pred, missing, sample_weight, class_weight
        ),
        1.0,
    )[1]


def v_measure_score(
    labels_true: ArrayLike,
    labels_pred: ArrayLike,
    *,
    beta: float = 1.0,
    missing: str = "raise",
    sample_weight: ArrayLike | None = None,
    class_weight: ClassWeight = None,
) -> float:
    """V-measure: the weighted harmonic mean of homogeneity and completeness.

    Same as :func:`sklearn.metrics.v_measure_score`; equal to
    ``normalized_mutual_info_score`` with the arithmetic average when beta = 1.

    Examples
    --------
    >>> from fastcluster_metrics import v_measure_score
    >>> v_measure_score([0, 0, 1, 1], [0, 0, 1, 1])
    1.0
    """
    func = "v_measure_score"
    beta = check_beta(func, beta)
    return sc.hcv(
        _table(func, labels_true, labels_pred, missing, sample_weight, class_weight), beta
    )[2]


def mutual_info_score(
    labels_true: ArrayLike | None,
    labels_pred: ArrayLike | None,
    *,
    contingency: Any = None,
    missing: str = "raise",
    sample_weight: ArrayLike | None = None,
    class_weight: ClassWeight = None,
) -> float:
    """Mutual information between two clusterings, in nats.

    Same as :func:`sklearn.metrics.mutual_info_score`. With ``contingency``
    (a dense array or scipy sparse matrix; counts cast to integers), the labels
    are ignored.

    Unlike scikit-learn, an empty labeling (or an all-zero table) raises a
    ValueError that says so (scikit-learn's is "math domain error"), and a
    negative count raises instead of returning NaN.

    Examples
    --------
    >>> from fastcluster_metrics import mutual_info_score
    >>> round(mutual_info_score([0, 0, 1, 1], [0, 0, 1, 1]), 6)
    0.693147
    """
    func = "mutual_info_score"
    if contingency is None:
        table = count_labels(
            func,
            labels_true,
            labels_pred,
            missing,
            cells=False,
            allow_none=True,
            sample_weight=sample_weight,
            class_weight=class_weight,
        )[0]
    elif sample_weight is not None or class_weight is not None:
        raise ValueError(
            f"{func}: sample_weight and class_weight weigh labels; a given contingency table"
            " is used as it is"
        )
    else:
        if not (is_array_like(contingency) or hasattr(contingency, "tocoo")):
            raise InvalidParameterError(
                f"The 'contingency' parameter of {func} must be an array-like, a sparse array"
                f" or matrix or None. Got {contingency!r} instead."
            )
        table = given.contingency_table(contingency)
    return sc.mi(table)


def normalized_mutual_info_score(
    labels_true: ArrayLike,
    labels_pred: ArrayLike,
    *,
    average_method: str = "arithmetic",
    missing: str = "raise",
    sample_weight: ArrayLike | None = None,
    class_weight: ClassWeight = None,
) -> float:
    """Normalized Mutual Information between two clusterings.

    Same as :func:`sklearn.metrics.normalized_mutual_info_score`: MI divided by
    the ``average_method`` ('min', 'geometric', 'arithmetic' or 'max') of the
    two entropies; 1.0 when both labelings are a single cluster (or empty).

    Examples
    --------
    >>> from fastcluster_metrics import normalized_mutual_info_score
    >>> normalized_mutual_info_score([0, 0, 1, 1], [1, 1, 0, 0])
    1.0
    """
    func = "normalized_mutual_info_score"
    average_method = check_average_method(func, average_method)
    return sc.nmi(
        _table(func, labels_true, labels_pred, missing, sample_weight, class_weight), average_method
    )


@_with_random_models_doc
def adjusted_mutual_info_score(
    labels_true: ArrayLike,
    labels_pred: ArrayLike,
    *,
    average_method: str = "arithmetic",
    missing: str = "raise",
    sample_weight: ArrayLike | None = None,
    class_weight: ClassWeight = None,
    random_model: str = "perm",
) -> float:
    """Adjusted Mutual Information between two clusterings (Vinh, Epps and Bailey, 2010).

    Same as :func:`sklearn.metrics.adjusted_mutual_info_score`:
    ``(MI - E[MI]) / (avg(H(U), H(V)) - E[MI])``, with ``E[MI]`` the expectation under
    ``random_model`` (below) and ``H`` the observed entropies.

    Under a model that draws a side anew, ``E[MI]`` sums scikit-learn's per-pair terms over
    every pair of sizes, weighted by the expected number of blocks of each size (a block
    of ``b`` samples of a random partition is a uniformly random ``b``-subset, so its
    overlap with a class is hypergeometric). A one-sided model (``"num1"``, ``"all1"``)
    weighs the observed classes against a few thousand cluster sizes at a million
    samples (33 x 60 at n = 1e6: well under a second); the two-sided ``"num"`` and
    ``"all"`` weigh every pair of sizes of both sides, the square of that (seconds to
    minutes at n = 1e6). The special cases are scikit-learn's, and 0.0 where a side
    has one cluster only if the other side carries no expected information either. Under
    ``"all"`` and ``"all1"`` a drawn partition has about ``n / ln n`` clusters of about
    ``ln n`` samples, which tell much of any labeling: the expectation may pass the mean
    of the observed entropies, and the value then leaves [-1, 1] (the catalogue declares
    these scores unbounded).

    RANDOM_MODELS


    The expected mutual information sums each distinct (class size, cluster
    size) pair once, from the mode of its hypergeometric distribution outward,
    stopping where a tail bound shows the rest is below double precision: the
    same value as scikit-learn's full sum (to ~1e-12), in a small fraction of
    the time.

    Examples
    --------
    >>> from fastcluster_metrics import adjusted_mutual_info_score
    >>> adjusted_mutual_info_score([0, 0, 1, 1], [1, 1, 0, 0])
    1.0
    """
    func = "adjusted_mutual_info_score"
    average_method = check_average_method(func, average_method)
    random_model = check_random_model(func, random_model)
    return sc.ami(
        _table(func, labels_true, labels_pred, missing, sample_weight, class_weight),
        average_method,
        random_model,
    )


def fowlkes_mallows_score(
    labels_true: ArrayLike,
    labels_pred: ArrayLike,
    *,
    missing: str = "raise",
    sample_weight: ArrayLike | None = None,
    class_weight: ClassWeight = None,
) -> float:
    """Fowlkes-Mallows index: the geometric mean of pairwise precision and recall.

    Same as :func:`sklearn.metrics.fowlkes_mallows_score`, from exact pair
    counts (0.0 when no pair shares both a class and a cluster).

    Examples
    --------
    >>> from fastcluster_metrics import fowlkes_mallows_score
    >>> fowlkes_mallows_score([0, 0, 1, 1], [1, 1, 0, 0])
    1.0
    """
    return sc.fowlkes_mallows(
        _pairs_table(
            "fowlkes_mallows_score", labels_true, labels_pred, missing, sample_weight, class_weight
        )
    )


def entropy(
    labels: ArrayLike, *, missing: str = "raise", sample_weight: ArrayLike | None = None
) -> float:
    """Entropy of a labeling, in nats (1.0 for an empty labeling, as scikit-learn).

    Same as scikit-learn's ``entropy`` (deprecated there since 1.8; kept here).

    Examples
    --------
    >>> from fastcluster_metrics import entropy
    >>> round(entropy([0, 0, 1, 1]), 6)
    0.693147
    """
    check_array_like("entropy", labels=labels)
    missing = check_missing("entropy", missing)
    arr = prepare(labels, None).arr
    if arr is not None:
        labels = arr  # as count_one makes it (no copy of an array)
        if labels.ndim != 1:
            raise ValueError(f"labels must be 1D: shape is {labels.shape!r}")
    if sample_weight is not None:
        n = len(labels)  # type: ignore[arg-type]
        if n == 0:
            return 1.0
        table = count_labels(
            "entropy", labels, np.zeros(n, dtype=np.uint8), missing, sample_weight=sample_weight
        )[0]
        return table.entropy_rows()
    return count_one(labels, missing=missing).entropy_rows()


def purity_score(
    labels_true: ArrayLike,
    labels_pred: ArrayLike,
    *,
    missing: str = "raise",
    sample_weight: ArrayLike | None = None,
    class_weight: ClassWeight = None,
) -> float:
    """Purity: the share of samples that belong to the majority class of their cluster.

    ``(1/n) * sum_j max_i n_ij`` with rows the true classes and columns the
    predicted clusters. Not symmetric: splitting every sample into its own
    cluster gives 1.0. Defined as 1.0 for an empty labeling.

    Examples
    --------
    >>> from fastcluster_metrics import purity_score
    >>> purity_score([0, 0, 1, 1, 1, 2], [0, 0, 0, 1, 1, 1])
    0.6666666666666666
    """
    return _table(
        "purity_score", labels_true, labels_pred, missing, sample_weight, class_weight
    ).purity()


for _name in __all__:
    with_weights_doc(globals()[_name])
del _name
