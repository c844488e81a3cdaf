"""scikit-learn's ``expected_mutual_information`` of a given contingency table: the term
:func:`adjusted_mutual_info_score` subtracts, computed by the core from the table's margins
(``Table.expected_mutual_info``, the one EMI of the package)."""

from __future__ import annotations

from typing import Any

from .._table import given

__all__ = ["expected_mutual_information"]


def expected_mutual_information(contingency: Any, n_samples: int) -> float:
    """Expected mutual information of two labelings with the margins of ``contingency``.

    Same as :func:`sklearn.metrics.cluster.expected_mutual_information`: the mean mutual
    information, in nats, over all labelings with these class and cluster sizes (the
    permutation model [VEB10]_), the term :func:`adjusted_mutual_info_score` subtracts.
    Computed by the core from the table's margins (the one EMI of the package).

    Parameters
    ----------
    contingency : array-like or sparse matrix of shape (n_classes, n_clusters)
        A contingency table (counts cast to integers); only its margins are read.
    n_samples : int
        The number of samples, the table's total. A different number goes to
        scikit-learn's own function (imported then), which uses it as given.

    Returns
    -------
    emi : float

    Examples
    --------
    >>> from fastcluster_metrics import expected_mutual_information
    >>> round(expected_mutual_information([[2, 1], [1, 2]], 6), 6)
    0.120284
    """
    table = given.contingency_table(contingency)
    if int(n_samples) != table.n:
        from sklearn.metrics.cluster import expected_mutual_information as theirs

        return float(theirs(contingency, n_samples))
    if table.shape[0] == 1 or table.shape[1] == 1:
        return 0.0
    return float(table.expected_mutual_info())
