"""The metrics of scib-metrics' ``Benchmarker`` (its 0.5 line), in one place: which run by
default, in what order, under which group and column name, and what each reads of an
embedding.

:class:`BioConservation` and :class:`BatchCorrection` have the fields, defaults and order of
scib-metrics' dataclasses of the same names (each a metric, ``True``/``False`` or a dict of its
keyword arguments); scib-metrics' own instances, and mappings of the same names, are read the
same way (:func:`selected`). The table's rows follow that order, group by group.

>>> import fastcluster_metrics as fcm
>>> [name for name, _ in selected(fcm.BioConservation(clisi_knn=False), fcm.BioConservation)]
['isolated_labels', 'nmi_ari_cluster_labels_kmeans', 'silhouette_label']
>>> selected({"bras": {"metric": "euclidean"}}, fcm.BatchCorrection)[0]
('bras', {'metric': 'euclidean'})
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .._measures.catalogue import CATALOGUE
from .._utils.public import public

__all__ = [
    "BATCH_CORRECTION",
    "BIO_CONSERVATION",
    "CLEAN_NAMES",
    "GRAPH_NEIGHBORS",
    "MAX_NEIGHBORS",
    "BatchCorrection",
    "BioConservation",
    "selected",
]

MetricType = bool | dict[str, Any]

BIO_CONSERVATION = "Bio conservation"
BATCH_CORRECTION = "Batch correction"


@public
@dataclass(frozen=True)
class BioConservation:
    """The bio-conservation metrics of :func:`scib_benchmark`, as scib-metrics'
    ``BioConservation``: each ``True`` (run), ``False`` (left out) or a dict of its keyword
    arguments (run with them)."""

    isolated_labels: MetricType = True
    nmi_ari_cluster_labels_leiden: MetricType = False
    nmi_ari_cluster_labels_kmeans: MetricType = True
    silhouette_label: MetricType = True
    clisi_knn: MetricType = True


@public
@dataclass(frozen=True)
class BatchCorrection:
    """The batch-correction metrics of :func:`scib_benchmark`, as scib-metrics'
    ``BatchCorrection``: each ``True``, ``False`` or a dict of its keyword arguments."""

    bras: MetricType = True
    ilisi_knn: MetricType = True
    kbet_per_label: MetricType = True
    graph_connectivity: MetricType = True
    pcr_comparison: MetricType = True


CLEAN_NAMES: dict[str, str] = {
    row.name: row.scib_column for row in CATALOGUE.values() if row.scib_column
}
"""scib-metrics' column names (``metric_name_cleaner``), from the catalogue: the rows of two
scores (NMI and ARI) are the metric's name and ``_nmi`` or ``_ari``."""

GRAPH_NEIGHBORS: dict[str, int] = {
    str(row.function_name): row.scib_neighbors for row in CATALOGUE.values() if row.scib_neighbors
}
"""The neighbours each graph metric reads (the cell itself counted), the first of one search
of :data:`MAX_NEIGHBORS`, as ``Benchmarker.prepare`` subsets them; from the catalogue."""

MAX_NEIGHBORS = max(GRAPH_NEIGHBORS.values())


def selected(spec: Any, group: type) -> list[tuple[str, dict[str, Any]]]:
    """The metrics ``spec`` runs, in the group's order, each with its keyword arguments:
    ``spec`` an instance of :class:`BioConservation` or :class:`BatchCorrection`,
    scib-metrics' dataclass of that name, or a mapping of metric names to ``True``,
    ``False`` or a dict (the names not given take the group's defaults)."""
    names = [f.name for f in dataclasses.fields(group)]
    if isinstance(spec, Mapping):
        unknown = [k for k in spec if k not in names]
        if unknown:
            raise ValueError(
                f"{group.__name__} has no metric {unknown[0]!r}; its metrics: {', '.join(names)}"
            )
        values = {**dataclasses.asdict(group()), **spec}
    elif dataclasses.is_dataclass(spec) and not isinstance(spec, type):
        fields = [f.name for f in dataclasses.fields(spec)]
        unknown = [k for k in fields if k not in names]
        if unknown:
            raise ValueError(
                f"{group.__name__} has no metric {unknown[0]!r}; its metrics: {', '.join(names)}"
            )
        values = {**dict.fromkeys(names, False), **{k: getattr(spec, k) for k in fields}}
    else:
        raise TypeError(
            f"the {group.__name__} metrics are a {group.__name__}, scib-metrics' dataclass of"
            f" that name, a mapping of metric names, or None; got {type(spec).__name__}"
        )
    found = []
    for name in names:
        value = values[name]
        if isinstance(value, Mapping):
            if value:  # an empty dict is left out, as Benchmarker leaves it (it is falsy)
                found.append((name, dict(value)))
        elif value is True or value is False:
            if value:
                found.append((name, {}))
        else:
            raise TypeError(
                f"{group.__name__}.{name} is True, False or a dict of keyword arguments; got"
                f" {value!r}"
            )
    return found
