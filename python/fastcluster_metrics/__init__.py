"""Fast, exact cluster-comparison metrics: scikit-learn's ``sklearn.metrics.cluster``
supervised scores, computed from a contingency table built in one Rust pass.

>>> import fastcluster_metrics as fcm
>>> fcm.adjusted_rand_score([0, 0, 1, 1], [1, 1, 0, 0])
1.0
"""

from ._contingency import Contingency
from ._evaluate import Evaluation, evaluate
from ._many import compare_many
from ._native import num_threads
from ._params import InvalidParameterError
from ._supervised import (
    adjusted_mutual_info_score,
    adjusted_rand_score,
    completeness_score,
    contingency_matrix,
    entropy,
    fowlkes_mallows_score,
    homogeneity_completeness_v_measure,
    homogeneity_score,
    mutual_info_score,
    normalized_mutual_info_score,
    pair_confusion_matrix,
    purity_score,
    rand_score,
    v_measure_score,
)

__version__ = "0.1.0"

__all__ = [
    "Contingency",
    "Evaluation",
    "InvalidParameterError",
    "adjusted_mutual_info_score",
    "adjusted_rand_score",
    "compare_many",
    "completeness_score",
    "contingency_matrix",
    "entropy",
    "evaluate",
    "fowlkes_mallows_score",
    "homogeneity_completeness_v_measure",
    "homogeneity_score",
    "mutual_info_score",
    "normalized_mutual_info_score",
    "num_threads",
    "pair_confusion_matrix",
    "purity_score",
    "rand_score",
    "v_measure_score",
]
