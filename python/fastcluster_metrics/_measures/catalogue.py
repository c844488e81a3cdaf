"""The catalogue of measures: one row per public measure, whatever it reads, and every list of
measures derived from it.

Each :class:`Measure` row says what a measure reads (its :attr:`~Measure.kind`: the
contingency table of two hard labelings, two membership matrices, two covers, an embedding
with labels, a neighbour graph with labels), how it is computed from the prepared form of that
input (its kernel, with fixed options), what it is called (its full name and short names), and
what a caller needs to know of it: its family, whether it is symmetric, whether it needs the
table's cells or only its sums, its range or unit, which direction is better, whether it is
adjusted for chance. :data:`CATALOGUE` holds every row; :data:`MEASURES` is its rows of a
table, the measures :func:`evaluate` (its defaults and ``"all"``), :func:`compare_many`,
:func:`pairwise`, :func:`bootstrap`, :func:`permutation_test`, the command line and the plots
take; the soft command line, the AnnData helpers and :func:`~fastcluster_metrics.measures`
take the others from here. ``tests/test_catalogue.py`` checks that the public functions,
``__all__``, the :class:`Contingency` methods and the README's table agree with it.

Adding a measure of a table is its kernel (a :class:`Contingency` method, or any function of
one) plus one row in :data:`MEASURES`; a measure of another kind is its public function plus
one row in :data:`OTHERS`.

Its names are looked up in ``lookup.py`` (``resolve``, for every entry point that takes
names); ``listing.py`` shows it to users (:func:`~fastcluster_metrics.measures`, the README's
table).

>>> CATALOGUE["omega_index"].kind
'covers'
"""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable, Mapping
from dataclasses import KW_ONLY, dataclass, field
from typing import Any

from .._embedding.approximate import approximate_silhouette_score
from .._embedding.dispersion import calinski_harabasz_score, davies_bouldin_score
from .._embedding.pcr import pcr_comparison, principal_component_regression
from .._embedding.scib import bras, isolated_labels, silhouette_batch, silhouette_label
from .._embedding.silhouette import silhouette_score
from .._graph import clisi_knn, graph_connectivity, ilisi_knn, kbet, kbet_per_label
from .._soft import covers
from .._soft.frobenius import FrobeniusSums
from .._utils.params import InvalidParameterError
from .clusterings import nmi_ari_cluster_labels_kmeans, nmi_ari_cluster_labels_leiden
from .contingency import Contingency
from .matching import (
    PerSample,
    bcubed_f_cells,
    bcubed_precision_cells,
    bcubed_recall_cells,
    ecs_cells,
)

__all__ = [
    "CATALOGUE",
    "KINDS",
    "MEASURES",
    "OTHERS",
    "Measure",
    "of_kind",
]

PAIRS = "pair counting"
INFORMATION = "information"
MATCHING = "set matching"
FAMILIES = (PAIRS, INFORMATION, MATCHING)
"""The families of the measures of a table (the measures of other kinds use these too)."""
SILHOUETTE = "silhouette"
DISPERSION = "dispersion"
NEIGHBOURHOOD = "neighbourhood"
VARIANCE = "variance explained"
OTHER_FAMILIES = (SILHOUETTE, DISPERSION, NEIGHBOURHOOD, VARIANCE)
"""The families of an embedding's measures (the silhouettes; the ratios of the clusters'
spreads and separations; the share of its variance that batches explain) and of a graph's
(how the neighbourhoods mix labels). The NMI and ARI of an embedding's clusterings are of
the table's families."""

TABLE = "table"
MEMBERSHIPS = "memberships"
COVERS = "covers"
EMBEDDING = "embedding"
GRAPH = "graph"
KINDS: dict[str, str] = {
    TABLE: "two hard labelings, through their contingency table",
    MEMBERSHIPS: "two soft labelings: membership matrices (a row per sample)",
    COVERS: "two covers: a set of labels per sample (overlapping clusterings)",
    EMBEDDING: "an embedding (a matrix of samples by features) and a labeling of its samples",
    GRAPH: "a neighbour graph of the samples and a labeling of them",
}
"""What a measure reads, by kind, and in words: the prepared form its kernel is called on is
a :class:`Contingency` (table), a :class:`FrobeniusSums` (memberships), a
:class:`covers.Groups` (covers); for an embedding or a graph, the kernel is the public
function itself."""

UNIT_INTERVAL = (0.0, 1.0)
SIGNED = (-1.0, 1.0)
BELOW_ONE = (-math.inf, 1.0)
"""At most 1 (identical labelings), unbounded below: the Rand index adjusted under a random
model that draws a labeling anew, whose expectation may pass the observed labelings' own."""
UNBOUNDED_SCORE = (-math.inf, math.inf)
"""The mutual information adjusted under a random model that draws a labeling anew: its
expectation may pass the mean of the observed entropies (the denominator's sign flips)."""


@dataclass(frozen=True)
class Measure:
    """One measure of the catalogue."""

    name: str
    """Its full name: the function (or :class:`Contingency` method) of that name, or a variant
    of :attr:`function` with :attr:`options`."""
    kernel: Callable[..., Any]
    """Computes it from a :class:`Contingency`, called as ``kernel(table, **options)``."""
    family: str
    """``"pair counting"``, ``"information"`` or ``"set matching"``."""
    short: tuple[str, ...] = ()
    """Short names, the first one shown in tables and plots (``ARI``, ``AMI``, ``purity``)."""
    _: KW_ONLY
    symmetric: bool = False
    """The value does not change when the two labelings swap roles."""
    cells: bool = True
    """It needs the table's cells; False when its margins and sums of squares are enough (all
    singletons are then counted without their cells)."""
    range: tuple[float, float] | None = UNIT_INTERVAL
    """The interval its values lie in, or None when unbounded (then see :attr:`unit`)."""
    unit: str = ""
    """What an unbounded value counts: ``"nats"``, ``"pairs"``, ... (empty for scores)."""
    greater_is_better: bool = True
    """Higher values mean closer labelings (False for distances and entropies)."""
    adjusted: bool = False
    """Adjusted for chance under a random model (0 in expectation for random labelings)."""
    counts: bool = False
    """Defined for tables of counts only (the expected mutual information; the couples of
    distinct sample pairs that MARI and G+ count): with weights that make some cell
    non-integral its function raises ``ValueError``, and :func:`evaluate`,
    :func:`compare_many` and the tools built on them give NaN."""
    default: bool = False
    """Computed by :func:`evaluate` when no measures are named."""
    in_sklearn: bool = False
    """scikit-learn has it too, under the same name (``sklearn.metrics.cluster``)."""
    merges: bool = False
    """A function of the sums that :func:`score_dendrogram` keeps merge by merge (pair counts,
    entropies, mutual information, its expectation, purity): read for every cut of a
    dendrogram from them, where the others are computed on each cut's table. Its kernel is
    written in ``exact.py``'s primitives and so runs once on arrays of every cut's sums."""
    in_scib: bool = False
    """In scIB's table of an integration's scores, as :func:`scib_scores_adata` and the
    command line's ``--embedding`` and ``--graph`` report it."""
    scib_column: str = ""
    """Its column in scib-metrics' ``Benchmarker`` table (the name ``metric_name_cleaner``
    gives it), as :func:`scib_benchmark` gives it; empty where that table has none."""
    scib_neighbors: int = 0
    """The neighbours of each cell (the cell itself counted) it reads in
    :func:`scib_benchmark`: the first of one search, as ``Benchmarker.prepare`` subsets them;
    0 for a measure of the embedding."""
    plotted: bool = False
    """Drawn by :func:`~fastcluster_metrics.plot.plot_scores` when it scores labels itself."""
    per_sample: PerSample | None = None
    """Its value for each sample, from the sample's cell alone (the cell's count, its class's
    and its cluster's sizes), as :func:`per_sample_score` gives it; its mean over the samples
    is the measure (but for BCubed F, the harmonic mean of each sample's precision and
    recall). None where a sample has no value of its own."""
    options: Mapping[str, Any] = field(default_factory=dict)
    """Fixed keyword options of :attr:`kernel` (and of :attr:`function`)."""
    function: str | None = ""
    """The public function of two labelings computing it with :attr:`options` (its own name
    when empty; None when only the :class:`Contingency` method exists)."""
    kind: str = TABLE
    """What it reads: a key of :data:`KINDS`. Its :attr:`kernel` is called on that kind's
    prepared form."""

    @property
    def label(self) -> str:
        """The name shown in tables and plots: the first short name."""
        return self.short[0] if self.short else self.name

    @property
    def parameters(self) -> dict[str, Any]:
        """The keyword options the kernel takes (``beta``, ``average_method``, ``base``, ...),
        with their defaults; those in :attr:`options` fixed to this row's values."""
        signature = inspect.signature(self.kernel)
        found = {
            p.name: p.default for p in signature.parameters.values() if p.kind is p.KEYWORD_ONLY
        }
        return {**found, **self.options}

    @property
    def pairs(self) -> bool:
        """It is read from the pair counts alone (the margins and the sum of the squared
        cells): a pair-counting measure that :func:`score_dendrogram` reads from the sums it
        keeps. Its :attr:`cells` are then not needed either, and a table counted for such
        measures alone keeps no cells of a wide table."""
        return self.family == PAIRS and self.merges

    @property
    def function_name(self) -> str | None:
        """The public function computing it (with :attr:`options`), if any."""
        return self.name if self.function == "" else self.function

    def __call__(self, table: Contingency) -> float:
        """Its value on a table, as a float; NaN on an empty table where the kernel refuses
        one, and on a table of real cells for a measure of counts (as :meth:`exact`, without
        its call: evaluate's defaults on small inputs)."""
        if self.counts and table.weighted:
            return math.nan
        try:
            return float(self.kernel(table, **self.options) if self.options else self.kernel(table))
        except ValueError:
            if table.n == 0:
                return math.nan
            raise

    def exact(self, table: Contingency) -> Any:
        """Its value as the kernel gives it (an exact ``int`` for counts such as Mirkin's);
        NaN on an empty table where the kernel refuses one, and on a table of real cells for
        a measure of counts."""
        if self.counts and table.weighted:
            return math.nan
        try:
            return self.kernel(table, **self.options)
        except ValueError:
            if table.n == 0:
                return math.nan
            raise


def _rows(*rows: Measure) -> dict[str, Measure]:
    return {row.name: row for row in rows}


_C = Contingency
_SK: dict[str, Any] = {"default": True, "in_sklearn": True, "cells": False, "merges": True}
"""scikit-learn's measures: evaluate's defaults, from the table's sums alone."""
_M: dict[str, Any] = {"merges": True}
"""Read from the sums a dendrogram's merges keep (:attr:`Measure.merges`)."""
_SYM: dict[str, Any] = {"symmetric": True}
_NATS: dict[str, Any] = {"range": None, "unit": "nats"}
_DISTANCE: dict[str, Any] = {"greater_is_better": False}

# fmt: off
MEASURES: dict[str, Measure] = _rows(
    # scikit-learn's measures and purity: evaluate's defaults, from the table's sums alone
    Measure("adjusted_rand_score", _C.adjusted_rand_score, PAIRS, ("ARI",), **_SK, **_SYM,
            range=SIGNED, adjusted=True, plotted=True),
    Measure("rand_score", _C.rand_score, PAIRS, ("Rand", "RI"), **_SK, **_SYM),
    Measure("adjusted_mutual_info_score", _C.adjusted_mutual_info_score, INFORMATION,
            ("AMI",), **_SK, **_SYM, range=SIGNED, adjusted=True, counts=True, plotted=True),
    Measure("normalized_mutual_info_score", _C.normalized_mutual_info_score, INFORMATION,
            ("NMI",), **_SK, **_SYM, plotted=True),
    Measure("mutual_info_score", _C.mutual_info_score, INFORMATION, ("MI",), **_SK, **_SYM,
            **_NATS),
    Measure("homogeneity_score", _C.homogeneity_score, INFORMATION, ("homogeneity", "hom"),
            **_SK, plotted=True),
    Measure("completeness_score", _C.completeness_score, INFORMATION, ("completeness", "com"),
            **_SK, plotted=True),
    Measure("v_measure_score", _C.v_measure_score, INFORMATION, ("V-measure", "V"), **_SK,
            **_SYM),
    Measure("fowlkes_mallows_score", _C.fowlkes_mallows_score, PAIRS, ("FMI", "FM"), **_SK,
            **_SYM, plotted=True),
    Measure("purity_score", _C.purity_score, MATCHING, ("purity",), cells=False, default=True,
            plotted=True, **_M),
    # information: the other normalisations of NMI and AMI (Vinh, Epps and Bailey 2010)
    *(
        Measure(f"normalized_mutual_info_score_{m}", _C.normalized_mutual_info_score,
                INFORMATION, (f"NMI_{m}",), **_SYM, options={"average_method": m},
                function="normalized_mutual_info_score", **_M)
        for m in ("min", "geometric", "max")
    ),
    Measure("normalized_mutual_info_score_joint", _C.normalized_mutual_info_score_joint,
            INFORMATION, ("NMI_joint",), **_SYM),
    *(
        Measure(f"adjusted_mutual_info_score_{m}", _C.adjusted_mutual_info_score, INFORMATION,
                (f"AMI_{m}",), **_SYM, range=SIGNED, adjusted=True,
                counts=True, options={"average_method": m},
                function="adjusted_mutual_info_score", **_M)
        for m in ("min", "geometric", "max")
    ),
    # information and pair counting: adjusted under the other random models (Gates and Ahn
    # 2017): the truth fixed and the prediction drawn with its number of clusters (num1) or
    # any number (all1), or both drawn (num, all; the two-sided AMI is left to the function:
    # it weighs every pair of both sides' sizes)
    *(
        Measure(f"adjusted_mutual_info_score_{m}", _C.adjusted_mutual_info_score, INFORMATION,
                (f"AMI_{m}",), range=UNBOUNDED_SCORE, adjusted=True, counts=True,
                options={"random_model": m}, function="adjusted_mutual_info_score")
        for m in ("num1", "all1")
    ),
    *(
        Measure(f"adjusted_rand_score_{m}", _C.adjusted_rand_score, PAIRS, (f"ARI_{m}",),
                symmetric=m in ("num", "all"), range=BELOW_ONE, adjusted=True, counts=True,
                options={"random_model": m}, function="adjusted_rand_score")
        for m in ("num1", "all1", "num", "all")
    ),
    Measure("reduced_mutual_info_score", _C.reduced_mutual_info_score, INFORMATION, ("RMI",),
            range=SIGNED, counts=True),
    Measure("reduced_mutual_info_score_flat", _C.reduced_mutual_info_score, INFORMATION,
            ("RMI_flat",), range=SIGNED, counts=True, options={"variant": "flat"},
            function="reduced_mutual_info_score"),
    Measure("standardized_mutual_info_score", _C.standardized_mutual_info_score, INFORMATION,
            ("SMI",), **_SYM, range=None, unit="standard deviations", adjusted=True,
            counts=True),
    Measure("entropy_true", _C.entropy_true, INFORMATION, ("H_true",), **_NATS, function=None,
            **_M),
    Measure("entropy_pred", _C.entropy_pred, INFORMATION, ("H_pred",), **_NATS, function=None,
            **_M),
    Measure("joint_entropy", _C.joint_entropy, INFORMATION, ("H_joint",), **_SYM, **_NATS),
    Measure("conditional_entropy_true_given_pred", _C.conditional_entropy_true_given_pred,
            INFORMATION, ("H_true_given_pred",), **_NATS, **_DISTANCE),
    Measure("conditional_entropy_pred_given_true", _C.conditional_entropy_pred_given_true,
            INFORMATION, ("H_pred_given_true",), **_NATS, **_DISTANCE),
    Measure("variation_of_information", _C.variation_of_information, INFORMATION, ("VI",),
            **_SYM, **_NATS, **_DISTANCE),
    Measure("normalized_variation_of_information", _C.normalized_variation_of_information,
            INFORMATION, ("NVI",), **_SYM, **_DISTANCE),
    Measure("information_distance", _C.information_distance, INFORMATION, ("ID",), **_SYM,
            **_NATS, **_DISTANCE),
    Measure("normalized_information_distance", _C.normalized_information_distance,
            INFORMATION, ("NID",), **_SYM, **_DISTANCE),
    Measure("chi_squared", _C.chi_squared, INFORMATION, ("chi2",), **_SYM, range=None,
            unit="chi-squared"),
    Measure("cramers_v", _C.cramers_v, INFORMATION, ("Cramer's V",), **_SYM),
    Measure("frobenius_distance", _C.frobenius_distance, INFORMATION, ("Frobenius",),
            range=None, unit="squared distance", **_DISTANCE),
    # pair counting
    Measure("modified_adjusted_rand_score", _C.modified_adjusted_rand_score, PAIRS, ("MARI",),
            range=SIGNED, adjusted=True, counts=True),
    Measure("standardized_rand_score", _C.standardized_rand_score, PAIRS, ("SRI",), **_SYM,
            range=None, unit="standard deviations", adjusted=True, counts=True),
    Measure("adjusted_fowlkes_mallows_score", _C.adjusted_fowlkes_mallows_score, PAIRS,
            ("AFMI",), range=SIGNED, adjusted=True, **_M),
    Measure("jaccard_index", _C.jaccard_index, PAIRS, ("Jaccard",), **_SYM, **_M),
    Measure("pair_precision", _C.pair_precision, PAIRS, ("pair precision",), **_M),
    Measure("pair_recall", _C.pair_recall, PAIRS, ("pair recall",), **_M),
    Measure("pair_f_score", _C.pair_f_score, PAIRS, ("pair F1",), **_SYM, **_M),
    Measure("dice_index", _C.dice_index, PAIRS, ("Dice",), **_SYM, **_M),
    Measure("kulczynski_index", _C.kulczynski_index, PAIRS, ("Kulczynski",), **_SYM, **_M),
    Measure("mirkin_metric", _C.mirkin_metric, PAIRS, ("Mirkin",), **_SYM, range=None,
            unit="ordered pairs", **_DISTANCE, **_M),
    Measure("hubert_gamma", _C.hubert_gamma, PAIRS, ("Hubert gamma",), **_SYM, range=SIGNED,
            **_M),
    Measure("phi_index", _C.phi_index, PAIRS, ("phi",), **_SYM, range=SIGNED, **_M),
    Measure("kendall_tau", _C.kendall_tau, PAIRS, ("Kendall tau",), range=SIGNED, **_M),
    Measure("goodman_kruskal_gamma", _C.goodman_kruskal_gamma, PAIRS, ("GK gamma",),
            range=SIGNED, **_M),
    Measure("g_plus_index", _C.g_plus_index, PAIRS, ("G+",), **_DISTANCE, counts=True, **_M),
    Measure("mcnemar_index", _C.mcnemar_index, PAIRS, ("McNemar",), range=None,
            unit="z statistic", **_M),
    Measure("rogers_tanimoto_index", _C.rogers_tanimoto_index, PAIRS, ("Rogers-Tanimoto",),
            **_SYM, **_M),
    Measure("russel_rao_index", _C.russel_rao_index, PAIRS, ("Russel-Rao",), **_SYM, **_M),
    Measure("sokal_sneath1_index", _C.sokal_sneath1_index, PAIRS, ("Sokal-Sneath 1",), **_SYM,
            **_M),
    Measure("sokal_sneath2_index", _C.sokal_sneath2_index, PAIRS, ("Sokal-Sneath 2",), **_SYM,
            **_M),
    # set matching
    Measure("inverse_purity_score", _C.inverse_purity_score, MATCHING, ("inverse purity",)),
    Measure("purity_f_score", _C.purity_f_score, MATCHING, ("purity F",), **_SYM),
    Measure("bcubed_precision", _C.bcubed_precision, MATCHING, ("BCubed precision",),
            per_sample=bcubed_precision_cells),
    Measure("bcubed_recall", _C.bcubed_recall, MATCHING, ("BCubed recall",),
            per_sample=bcubed_recall_cells),
    Measure("bcubed_f_score", _C.bcubed_f_score, MATCHING, ("BCubed F",), **_SYM,
            per_sample=bcubed_f_cells),
    Measure("element_centric_similarity", _C.element_centric_similarity, MATCHING, ("ECS",),
            **_SYM, per_sample=ecs_cells),
    Measure("hungarian_accuracy", _C.hungarian_accuracy, MATCHING, ("Hungarian accuracy",),
            **_SYM),
    Measure("normalized_pivoted_accuracy", _C.normalized_pivoted_accuracy, MATCHING, ("NPA",)),
    Measure("normalized_clustering_accuracy", _C.normalized_clustering_accuracy, MATCHING,
            ("NCA",), range=SIGNED),
    Measure("pair_sets_index", _C.pair_sets_index, MATCHING, ("PSI",)),
    Measure("pair_sets_index_simplified", _C.pair_sets_index, MATCHING, ("PSI_simplified",),
            options={"simplified": True}, function="pair_sets_index"),
    Measure("best_match_f1_score", _C.best_match_f1_score, MATCHING, ("best-match F1",)),
    Measure("best_match_f1_score_macro", _C.best_match_f1_score, MATCHING,
            ("best-match F1 macro",), options={"average": "macro"},
            function="best_match_f1_score"),
)
# fmt: on
"""Every measure by full name, in the order ``evaluate(..., metrics="all")`` gives them."""

_F = FrobeniusSums
_SOFT: dict[str, Any] = {"function": "", "cells": False}
_COVER: dict[str, Any] = {"kind": COVERS, "cells": False}


def _part(function: Callable[..., dict[str, float]], key: str) -> Callable[..., float]:
    """The kernel of one score of ``function``'s dict (``"nmi"`` of
    :func:`nmi_ari_cluster_labels_kmeans`): the function, and that score of what it gives."""

    def kernel(*args: Any, **kwargs: Any) -> float:
        return function(*args, **kwargs)[key]

    kernel.__name__ = kernel.__qualname__ = f"{function.__name__}_{key}"
    kernel.__doc__ = f"The {key.upper()} of ``{function.__name__}``.\n\n{function.__doc__}"
    return kernel


_EMBEDDING: dict[str, Any] = {"kind": EMBEDDING, "cells": False}
_GRAPH: dict[str, Any] = {"kind": GRAPH, "cells": False}

# fmt: off
OTHERS: dict[str, Measure] = _rows(
    # two soft labelings (membership matrices), from one pass's sums
    Measure("frobenius_rand_score", _F.rand, PAIRS, ("FRI",), **_SOFT, **_SYM,
            kind=MEMBERSHIPS),
    Measure("frobenius_adjusted_rand_score", _F.adjusted_rand, PAIRS, ("FARI",), **_SOFT,
            **_SYM, kind=MEMBERSHIPS, range=SIGNED, adjusted=True),
    # two covers, from one grouping of their samples
    Measure("omega_index", covers.omega_of, PAIRS, ("Omega",), **_COVER, **_SYM,
            range=SIGNED, adjusted=True),
    Measure("overlapping_normalized_mutual_info_score", covers.onmi_of, INFORMATION,
            ("ONMI",), **_COVER, **_SYM, options={"variant": "MGH"}, function=""),
    Measure("overlapping_normalized_mutual_info_score_lfk", covers.onmi_of, INFORMATION,
            ("ONMI-LFK",), **_COVER, **_SYM, options={"variant": "LFK"},
            function="overlapping_normalized_mutual_info_score"),
    Measure("extended_bcubed_precision", covers.bcubed_precision_of, MATCHING,
            ("xBCubed-P",), **_COVER, function="extended_bcubed_precision_recall_f"),
    Measure("extended_bcubed_recall", covers.bcubed_recall_of, MATCHING, ("xBCubed-R",),
            **_COVER, function="extended_bcubed_precision_recall_f"),
    Measure("extended_bcubed_f", covers.bcubed_f_of, MATCHING, ("xBCubed-F",), **_COVER,
            **_SYM, function="extended_bcubed_precision_recall_f"),
    # an embedding and a labeling of its samples: the kernel is the public function
    Measure("silhouette_score", silhouette_score, SILHOUETTE, ("ASW", "silhouette"),
            **_EMBEDDING, range=SIGNED),
    Measure("calinski_harabasz_score", calinski_harabasz_score, DISPERSION,
            ("CH", "Calinski-Harabasz"), **_EMBEDDING, range=(0.0, math.inf)),
    Measure("davies_bouldin_score", davies_bouldin_score, DISPERSION, ("DB", "Davies-Bouldin"),
            **_EMBEDDING, range=(0.0, math.inf), **_DISTANCE),
    Measure("approximate_silhouette_score", approximate_silhouette_score, SILHOUETTE,
            ("approximate ASW",), **_EMBEDDING, range=SIGNED),
    # scIB's silhouettes of an embedding, its cell types and batches (rescaled to [0, 1])
    Measure("silhouette_label", silhouette_label, SILHOUETTE, ("cell-type ASW",),
            **_EMBEDDING, in_scib=True, scib_column="Silhouette label"),
    Measure("silhouette_batch", silhouette_batch, SILHOUETTE, ("batch ASW",), **_EMBEDDING,
            in_scib=True, scib_column="Silhouette batch"),
    Measure("bras", bras, SILHOUETTE, ("BRAS",), **_EMBEDDING, in_scib=True,
            scib_column="BRAS"),
    Measure("isolated_labels", isolated_labels, SILHOUETTE, ("isolated labels",),
            **_EMBEDDING, in_scib=True, scib_column="Isolated labels"),
    # scIB's scores of an embedding's k-means clusters (two of one function's dict), and how
    # much of its variance the batches explain, before and after integration
    Measure("nmi_ari_cluster_labels_kmeans_nmi", _part(nmi_ari_cluster_labels_kmeans, "nmi"),
            INFORMATION, ("KMeans NMI",), **_EMBEDDING,
            function="nmi_ari_cluster_labels_kmeans", scib_column="KMeans NMI"),
    Measure("nmi_ari_cluster_labels_kmeans_ari", _part(nmi_ari_cluster_labels_kmeans, "ari"),
            PAIRS, ("KMeans ARI",), **_EMBEDDING, range=SIGNED, adjusted=True,
            function="nmi_ari_cluster_labels_kmeans", scib_column="KMeans ARI"),
    Measure("pcr_comparison", pcr_comparison, VARIANCE, ("PCR comparison",), **_EMBEDDING,
            scib_column="PCR comparison"),
    Measure("principal_component_regression", principal_component_regression, VARIANCE,
            ("PCR",), **_EMBEDDING, **_DISTANCE),
    # a neighbour graph and labels of its cells (scIB's): the kernel is the public function
    Measure("ilisi_knn", ilisi_knn, NEIGHBOURHOOD, ("iLISI",), **_GRAPH, in_scib=True,
            scib_column="iLISI", scib_neighbors=90),
    Measure("clisi_knn", clisi_knn, NEIGHBOURHOOD, ("cLISI",), **_GRAPH, in_scib=True,
            scib_column="cLISI", scib_neighbors=90),
    Measure("kbet", kbet, NEIGHBOURHOOD, ("kBET",), **_GRAPH, in_scib=True),
    Measure("kbet_per_label", kbet_per_label, NEIGHBOURHOOD, ("kBET per label",), **_GRAPH,
            scib_column="KBET", scib_neighbors=50),
    Measure("graph_connectivity", graph_connectivity, NEIGHBOURHOOD,
            ("GC", "graph connectivity"), **_GRAPH, in_scib=True,
            scib_column="Graph connectivity", scib_neighbors=15),
    # the NMI and ARI of the graph's Leiden clusters (two of one function's dict)
    Measure("nmi_ari_cluster_labels_leiden_nmi", _part(nmi_ari_cluster_labels_leiden, "nmi"),
            INFORMATION, ("Leiden NMI",), **_GRAPH,
            function="nmi_ari_cluster_labels_leiden", scib_column="Leiden NMI",
            scib_neighbors=15),
    Measure("nmi_ari_cluster_labels_leiden_ari", _part(nmi_ari_cluster_labels_leiden, "ari"),
            PAIRS, ("Leiden ARI",), **_GRAPH, range=SIGNED, adjusted=True,
            function="nmi_ari_cluster_labels_leiden", scib_column="Leiden ARI",
            scib_neighbors=15),
)
# fmt: on
"""The measures of the other kinds (:data:`KINDS`), by full name."""

CATALOGUE: dict[str, Measure] = {**MEASURES, **OTHERS}
"""Every public measure, whatever it reads, by full name: :data:`MEASURES` then
:data:`OTHERS`."""


def of_kind(kind: str) -> list[Measure]:
    """The rows of one kind, in the catalogue's order."""
    if kind not in KINDS:
        among = ", ".join(repr(k) for k in KINDS)
        raise InvalidParameterError(
            f"The 'kind' parameter of measures must be a str among {among}. Got {kind!r} instead."
        )
    return [row for row in CATALOGUE.values() if row.kind == kind]
