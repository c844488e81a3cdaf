"""A tree of labels (a cell-type hierarchy: the Cell Ontology's is-a tree, an atlas's levels),
read from a parent map or a list of (child, parent) edges and checked once; and the measures of
two labelings placed in one tree, from their contingency table: hierarchical precision, recall
and F (Kiritchenko et al. 2005) and the mean tree distance.

Each label's ancestors are its path from its root; a label the tree does not name is a root of
its own. The roots are joined by a virtual root that no ancestor set counts, so labels in
different roots' trees share no ancestor and lie ``depth + 1`` edges from that virtual root.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from .._labels.codes import check_missing
from .._measures.contingency import Contingency
from .._utils.public import public

__all__ = ["Tree", "hierarchical_precision_recall_f", "mean_tree_distance", "read_tree"]


class Tree:
    """A forest of labels given by each label's parent; checked for cycles when made."""

    __slots__ = ("_paths", "parent")

    def __init__(self, parent: dict[Any, Any]) -> None:
        self.parent = parent
        """Each label with a parent, to its parent (roots are not keys)."""
        self._paths: dict[Any, tuple[Any, ...]] = {}
        self._check()

    def _check(self) -> None:
        """ValueError naming a label that is its own ancestor (a cycle of the parents)."""
        depth: dict[Any, int] = {}
        for start in self.parent:
            chain: list[Any] = []
            on_chain: set[Any] = set()
            x = start
            while x in self.parent and x not in depth:
                if x in on_chain:
                    cycle = [*chain[chain.index(x) :], x]
                    raise ValueError(
                        f"label {x!r} is its own ancestor: the parents have a cycle"
                        f" ({' -> '.join(repr(y) for y in cycle)})"
                    )
                on_chain.add(x)
                chain.append(x)
                x = self.parent[x]
            d = depth.get(x, 0)
            for y in reversed(chain):
                d += 1
                depth[y] = d

    def path(self, label: Any) -> tuple[Any, ...]:
        """The label's ancestors from its root down to the label itself (``Anc(label)``)."""
        found = self._paths.get(label)
        if found is None:
            up = [label]
            while up[-1] in self.parent:
                up.append(self.parent[up[-1]])
            found = tuple(reversed(up))
            self._paths[label] = found
        return found

    def depth(self, label: Any) -> int:
        """The number of edges from the label's root (0 for a root)."""
        return len(self.path(label)) - 1

    def at_depth(self, label: Any, depth: int) -> Any:
        """The label's ancestor at ``depth``; the label itself when it is no deeper."""
        path = self.path(label)
        return path[depth] if depth < len(path) else label


def _absent(value: Any) -> bool:
    """A missing parent (None, NaN, pd.NA): the child is a root."""
    if value is None or type(value).__name__ in ("NAType", "NaTType"):
        return True
    return isinstance(value, (float, np.floating)) and math.isnan(value)


def _edges(parents: Any) -> list[tuple[Any, Any]]:
    """(child, parent) pairs of a mapping, a pandas Series (index -> parent), a DataFrame of
    two columns or a 2-column array."""
    if hasattr(parents, "columns") and hasattr(parents, "iloc"):
        if len(parents.columns) != 2:
            raise ValueError(
                "parents as a DataFrame has two columns, (child, parent);"
                f" got {len(parents.columns)} columns: {list(parents.columns)}"
            )
        return list(zip(parents.iloc[:, 0].tolist(), parents.iloc[:, 1].tolist(), strict=True))
    if hasattr(parents, "items"):
        return [(child, parent) for child, parent in parents.items()]
    arr = parents if isinstance(parents, np.ndarray) else np.asarray(parents, dtype=object)
    if arr.ndim != 2 or arr.shape[1] != 2:
        raise ValueError(
            "parents is a mapping of child label -> parent label, or (child, parent) edges as"
            f" a DataFrame or an array of shape (n_edges, 2); got an array of shape {arr.shape}"
        )
    return [(child, parent) for child, parent in arr.tolist()]


def read_tree(parents: Any) -> Tree:
    """The tree of ``parents`` (see :func:`hierarchical_precision_recall_f`), checked: a label
    given two different parents, or its own ancestor, raises ``ValueError`` naming it."""
    if isinstance(parents, Tree):
        return parents
    parent: dict[Any, Any] = {}
    for child, up in _edges(parents):
        if _absent(up):
            continue
        if child in parent and parent[child] != up:
            raise ValueError(
                f"label {child!r} has two parents, {parent[child]!r} and {up!r}; a hierarchy"
                " gives each label one parent"
            )
        parent[child] = up
    return Tree(parent)


def _ancestors(tree: Tree, labels: list[Any], ids: dict[Any, int], depth: int) -> NDArray[Any]:
    """Each label's path from its root as node ids, one row per label, padded with -1."""
    out = np.full((len(labels), depth), -1, dtype=np.int64)
    for i, label in enumerate(labels):
        path = tree.path(label)
        out[i, : len(path)] = [ids.setdefault(x, len(ids)) for x in path]
    return out


def tree_sums(table: Contingency, tree: Tree) -> tuple[int, int, int, int]:
    """``(Σ |Anc(t) ∩ Anc(p)|, Σ |Anc(t)|, Σ |Anc(p)|, n)`` over the samples, exact: each
    non-zero cell adds its count times its pair of labels' sizes (no loop over samples)."""
    classes, clusters = table.classes.tolist(), table.clusters.tolist()
    paths = [len(tree.path(x)) for x in classes + clusters]
    depth = max(paths, default=0)
    ids: dict[Any, int] = {}
    true = _ancestors(tree, classes, ids, depth)
    pred = _ancestors(tree, clusters, ids, depth)
    rows, cols, counts = table.cells
    common = np.zeros(rows.shape[0], dtype=np.int64)
    alive = np.ones(rows.shape[0], dtype=bool)
    for d in range(depth):  # the length of the common prefix of the two paths
        t = true[rows, d]
        alive &= (t >= 0) & (t == pred[cols, d])
        common += alive
    sizes_true = np.asarray(paths[: len(classes)], dtype=np.int64)
    sizes_pred = np.asarray(paths[len(classes) :], dtype=np.int64)
    both = int(np.dot(counts, common))
    on_true = int(np.dot(table.class_sizes.astype(np.int64), sizes_true))
    on_pred = int(np.dot(table.cluster_sizes.astype(np.int64), sizes_pred))
    return both, on_true, on_pred, int(table.n)


def _table(func: str, labels_true: Any, labels_pred: Any, missing: str) -> Contingency:
    return Contingency._counted(func, labels_true, labels_pred, check_missing(func, missing))


@public
def hierarchical_precision_recall_f(
    labels_true: ArrayLike, labels_pred: ArrayLike, parents: Any, *, missing: str = "raise"
) -> tuple[float, float, float]:
    """Hierarchical precision, recall and F of two labelings in one tree of labels.

    Kiritchenko, Matwin & Famili (2005): each sample's label stands for its set of ancestors
    ``Anc(x)`` (the label and every label above it, to its root); then

    ``hP = Σ |Anc(true) ∩ Anc(pred)| / Σ |Anc(pred)|``,
    ``hR = Σ |Anc(true) ∩ Anc(pred)| / Σ |Anc(true)|``, ``hF = 2 hP hR / (hP + hR)``,

    the sums over the samples. A prediction one level too coarse (``"T cell"`` for a
    ``"CD8 T cell"``) loses recall, not precision; a sibling (``"CD4 T cell"``) keeps the
    shared ancestors. Computed from the contingency table, exactly (each non-zero cell counts
    its samples once), then divided once.

    Parameters
    ----------
    labels_true, labels_pred
        The two labelings (any label type the metrics take), whose labels are nodes of the
        same tree.
    parents
        The tree: a mapping of child label -> parent label (a pandas Series too), or the
        (child, parent) edges as a two-column DataFrame or an array of shape (n_edges, 2),
        of any depth. Roots are the labels with no parent (a parent of None or NaN says so);
        a label the tree does not name is a root of its own. A common root above the roots is
        implied and never counted. A label with two parents, or that is its own ancestor,
        raises ``ValueError`` naming it.
    missing
        ``"raise"`` (default), ``"drop"`` or ``"cluster"`` as every metric's ``missing=``;
        missing made a label is a root of its own.

    Returns
    -------
    (float, float, float)
        ``(hP, hR, hF)``; ``hF`` is 0 where both are 0, and all three are 1.0 for empty
        labelings.

    Examples
    --------
    >>> import fastcluster_metrics as fcm
    >>> parents = {"CD4 T": "T", "CD8 T": "T", "T": "lymphoid", "B": "lymphoid"}
    >>> truth = ["CD4 T", "CD8 T", "B", "B"]
    >>> fcm.hierarchical_precision_recall_f(truth, ["T", "T", "B", "B"], parents)
    (1.0, 0.8, 0.8888888888888888)
    >>> fcm.hierarchical_precision_recall_f(truth, ["CD8 T", "CD4 T", "B", "B"], parents)
    (0.8, 0.8, 0.8)
    """
    table = _table("hierarchical_precision_recall_f", labels_true, labels_pred, missing)
    both, on_true, on_pred, n = tree_sums(table, read_tree(parents))
    if n == 0:
        return 1.0, 1.0, 1.0
    # 2 hP hR / (hP + hR) is 2 Σ∩ / (Σ|Anc(true)| + Σ|Anc(pred)|): one exact division each.
    return both / on_pred, both / on_true, 2 * both / (on_true + on_pred)


@public
def mean_tree_distance(
    labels_true: ArrayLike, labels_pred: ArrayLike, parents: Any, *, missing: str = "raise"
) -> float:
    """The mean over the samples of the number of edges between the true and the predicted
    label in a tree of labels.

    0 when every sample is predicted its own label; 1 per step up or down the tree (a parent
    or a child), 2 to a sibling. Labels in different roots' trees are joined through a virtual
    root above the roots: ``depth(true) + depth(pred) + 2`` edges apart (a root is at depth 0).
    This is ``|Anc(true) Δ Anc(pred)|``, the ancestor sets of
    :func:`hierarchical_precision_recall_f`, and is computed, as they are, from the
    contingency table, exactly, then divided once.

    Parameters
    ----------
    labels_true, labels_pred
        The two labelings, whose labels are nodes of the same tree.
    parents
        The tree, as :func:`hierarchical_precision_recall_f` takes it.
    missing
        ``"raise"`` (default), ``"drop"`` or ``"cluster"`` as every metric's ``missing=``.

    Returns
    -------
    float
        The mean distance in edges (0.0 for empty labelings).

    Examples
    --------
    >>> import fastcluster_metrics as fcm
    >>> parents = {"CD4 T": "T", "CD8 T": "T", "T": "lymphoid", "B": "lymphoid"}
    >>> fcm.mean_tree_distance(["CD4 T", "CD8 T", "B", "B"], ["T", "CD4 T", "B", "B"], parents)
    0.75
    >>> fcm.mean_tree_distance(["B"], ["myeloid"], parents)  # through the virtual root
    3.0
    """
    table = _table("mean_tree_distance", labels_true, labels_pred, missing)
    both, on_true, on_pred, n = tree_sums(table, read_tree(parents))
    return (on_true + on_pred - 2 * both) / n if n else 0.0
