"""Fast, exact cluster-comparison metrics: scikit-learn's ``sklearn.metrics.cluster``
supervised scores, computed from a contingency table built in one Rust pass.

>>> import fastcluster_metrics as fcm
>>> fcm.adjusted_rand_score([0, 0, 1, 1], [1, 1, 0, 0])
1.0
"""

from ._embedding.approximate import approximate_silhouette_samples, approximate_silhouette_score
from ._embedding.bicluster import consensus_score
from ._embedding.dispersion import calinski_harabasz_score, davies_bouldin_score
from ._embedding.pcr import pcr_comparison, principal_component_regression
from ._embedding.scib import bras, isolated_labels, silhouette_batch, silhouette_label
from ._embedding.silhouette import silhouette_samples, silhouette_score
from ._graph import (
    clisi_knn,
    graph_connectivity,
    ilisi_knn,
    kbet,
    kbet_per_label,
    lisi_knn,
)
from ._io.anndata import (
    element_agreement_adata,
    element_consistency_adata,
    evaluate_adata,
    per_sample_adata,
    score_levels_adata,
    soft_scores_adata,
)
from ._io.anndata_embedding import lisi_adata, scib_scores_adata, silhouette_adata
from ._io.stream import ContingencyAccumulator, read_contingency
from ._many.compare import compare_many, pairwise
from ._many.consistency import element_agreement, element_consistency
from ._many.dendrogram import score_dendrogram
from ._many.dendrogram_pair import compare_dendrograms
from ._many.hierarchy import hierarchical_precision_recall_f, mean_tree_distance
from ._many.levels import score_levels
from ._many.uncertainty import (
    BootstrapResult,
    PermutationResult,
    bootstrap,
    group_tables,
    permutation_test,
)
from ._measures import functions as _functions
from ._measures.clusterings import nmi_ari_cluster_labels_kmeans, nmi_ari_cluster_labels_leiden
from ._measures.contingency import Contingency
from ._measures.evaluate import Evaluation, evaluate
from ._measures.expected import expected_mutual_information
from ._measures.functions import *  # noqa: F403  (the catalogue's functions: _functions.__all__)
from ._measures.listing import measures
from ._measures.matrices import contingency_matrix, pair_confusion_matrix
from ._measures.per_sample import per_sample_score
from ._measures.supervised import (
    adjusted_mutual_info_score,
    adjusted_rand_score,
    completeness_score,
    entropy,
    fowlkes_mallows_score,
    homogeneity_completeness_v_measure,
    homogeneity_score,
    mutual_info_score,
    normalized_mutual_info_score,
    purity_score,
    rand_score,
    v_measure_score,
)
from ._native import num_threads
from ._scib import BatchCorrection, BioConservation, scib_benchmark
from ._soft.covers import (
    extended_bcubed_precision_recall_f,
    omega_index,
    overlapping_normalized_mutual_info_score,
)
from ._soft.frobenius import frobenius_adjusted_rand_score, frobenius_rand_score
from ._soft.frobenius_stream import FrobeniusAccumulator
from ._utils.params import InvalidParameterError
from ._utils.versions import show_versions


def _keep_old_pickles_loading() -> None:
    """Pickles written before the modules were grouped by concern name the flat modules that
    defined their classes then (``fastcluster_metrics._contingency``); those names stay
    importable, as the modules that define the classes now. Newer pickles name the package
    itself (``_utils/public.py``)."""
    import sys

    from ._io import stream
    from ._many import uncertainty
    from ._measures import contingency, evaluate

    moved = {
        "_contingency": contingency,
        "_evaluate": evaluate,
        "_stream": stream,
        "_uncertainty": uncertainty,
    }
    for old, module in moved.items():
        sys.modules.setdefault(f"{__name__}.{old}", module)


_keep_old_pickles_loading()


def __getattr__(name: str) -> str:
    """``__version__``: the version pyproject.toml gives (its one place), as installed, read
    when first asked for (importlib.metadata takes some 20 ms to import); ``0+unknown`` when
    the sources are imported without being installed."""
    if name != "__version__":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib.metadata import PackageNotFoundError, version

    try:
        found = version("fastcluster-metrics")
    except PackageNotFoundError:
        found = "0+unknown"
    globals()["__version__"] = found
    return found


__all__ = [
    "BatchCorrection",
    "BioConservation",
    "BootstrapResult",
    "Contingency",
    "ContingencyAccumulator",
    "Evaluation",
    "FrobeniusAccumulator",
    "InvalidParameterError",
    "PermutationResult",
    "adjusted_mutual_info_score",
    "adjusted_rand_score",
    "approximate_silhouette_samples",
    "approximate_silhouette_score",
    "bootstrap",
    "bras",
    "calinski_harabasz_score",
    "clisi_knn",
    "compare_dendrograms",
    "compare_many",
    "completeness_score",
    "consensus_score",
    "contingency_matrix",
    "davies_bouldin_score",
    "element_agreement",
    "element_agreement_adata",
    "element_consistency",
    "element_consistency_adata",
    "entropy",
    "evaluate",
    "evaluate_adata",
    "expected_mutual_information",
    "extended_bcubed_precision_recall_f",
    "fowlkes_mallows_score",
    "frobenius_adjusted_rand_score",
    "frobenius_rand_score",
    "graph_connectivity",
    "group_tables",
    "hierarchical_precision_recall_f",
    "homogeneity_completeness_v_measure",
    "homogeneity_score",
    "ilisi_knn",
    "isolated_labels",
    "kbet",
    "kbet_per_label",
    "lisi_adata",
    "lisi_knn",
    "mean_tree_distance",
    "measures",
    "mutual_info_score",
    "nmi_ari_cluster_labels_kmeans",
    "nmi_ari_cluster_labels_leiden",
    "normalized_mutual_info_score",
    "num_threads",
    "omega_index",
    "overlapping_normalized_mutual_info_score",
    "pair_confusion_matrix",
    "pairwise",
    "pcr_comparison",
    "per_sample_adata",
    "per_sample_score",
    "permutation_test",
    "principal_component_regression",
    "purity_score",
    "rand_score",
    "read_contingency",
    "scib_benchmark",
    "scib_scores_adata",
    "score_dendrogram",
    "score_levels",
    "score_levels_adata",
    "show_versions",
    "silhouette_adata",
    "silhouette_batch",
    "silhouette_label",
    "silhouette_samples",
    "silhouette_score",
    "soft_scores_adata",
    "v_measure_score",
]
__all__ += _functions.__all__
