"""Textbook versions of the measures of ``Contingency``'s ``Measures`` mixin, the test oracle.

Written from the definitions, independently of the package (which is not imported):

* pair-counting measures count every unordered pair of samples (``itertools.combinations``);
* information measures sum ``p log p`` over the dense joint distribution;
* set-matching measures loop over samples, and the best matching tries every permutation.

Every function takes the two labelings as sequences. Degenerate cases (a zero denominator) follow
the conventions documented in ``_measures.py``: 1.0 for a symmetric similarity that is undefined
only for identical labelings, nan for an undefined ratio or correlation.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter

import numpy as np

NAN = float("nan")


# --- pair counting -------------------------------------------------------------------------------


def pair_counts(labels_true, labels_pred) -> dict[str, int]:
    """Unordered pairs: tp together in both, fp only in pred, fn only in true, tn apart in both."""
    out = {"tp": 0, "fp": 0, "fn": 0, "tn": 0}
    for i, j in itertools.combinations(range(len(labels_true)), 2):
        same_true = labels_true[i] == labels_true[j]
        same_pred = labels_pred[i] == labels_pred[j]
        key = ("t" if same_true == same_pred else "f") + ("p" if same_pred else "n")
        out[key] += 1
    return out


def _div(num, den, degenerate):
    return degenerate if den == 0 else num / den


def _counts(u, v):
    c = pair_counts(u, v)
    return c["tp"], c["fp"], c["fn"], c["tn"]


def jaccard_index(u, v):
    tp, fp, fn, _ = _counts(u, v)
    return _div(tp, tp + fp + fn, 1.0)


def pair_precision(u, v):
    tp, fp, _, _ = _counts(u, v)
    return _div(tp, tp + fp, NAN)


def pair_recall(u, v):
    tp, _, fn, _ = _counts(u, v)
    return _div(tp, tp + fn, NAN)


def pair_f_score(u, v, beta=1.0):
    tp, fp, fn, _ = _counts(u, v)
    if tp + fp == 0 and tp + fn == 0:
        return 1.0
    if tp == 0:
        return 0.0
    precision, recall = tp / (tp + fp), tp / (tp + fn)
    return (1 + beta**2) * precision * recall / (beta**2 * precision + recall)


def dice_index(u, v):
    tp, fp, fn, _ = _counts(u, v)
    return _div(2 * tp, 2 * tp + fp + fn, 1.0)


def kulczynski_index(u, v):
    tp, fp, fn, _ = _counts(u, v)
    if tp + fp == 0 or tp + fn == 0:
        return NAN
    return (tp / (tp + fp) + tp / (tp + fn)) / 2


def mirkin_metric(u, v):
    """Ordered pairs (i, j), i != j, on which the labelings disagree."""
    n = len(u)
    return sum((u[i] == u[j]) != (v[i] == v[j]) for i in range(n) for j in range(n) if i != j)


def _correlation(tp, fp, fn, tn):
    den = (tp + fp) * (tp + fn) * (tn + fp) * (tn + fn)
    if den == 0:
        return NAN
    return (tp * tn - fp * fn) / math.sqrt(den)


def hubert_gamma(u, v):
    """Pearson correlation of the two 0/1 'same cluster' indicators over all unordered pairs."""
    pairs = list(itertools.combinations(range(len(u)), 2))
    x = np.array([u[i] == u[j] for i, j in pairs], dtype=float)
    y = np.array([v[i] == v[j] for i, j in pairs], dtype=float)
    if len(pairs) == 0 or x.std() == 0 or y.std() == 0:
        return NAN
    return float(np.mean((x - x.mean()) * (y - y.mean())) / (x.std() * y.std()))


def rogers_tanimoto_index(u, v):
    tp, fp, fn, tn = _counts(u, v)
    return _div(tp + tn, tp + tn + 2 * (fp + fn), 1.0)


def russel_rao_index(u, v):
    tp, fp, fn, tn = _counts(u, v)
    return _div(tp, tp + fp + fn + tn, NAN)


def sokal_sneath1_index(u, v):
    tp, fp, fn, _ = _counts(u, v)
    return _div(tp, tp + 2 * (fp + fn), 1.0)


def sokal_sneath2_index(u, v):
    tp, fp, fn, tn = _counts(u, v)
    return _div(tp + tn, tp + tn + (fp + fn) / 2, 1.0)


def phi_index(u, v):
    return _correlation(*_counts(u, v))


def rand_index(u, v):
    tp, fp, fn, tn = _counts(u, v)
    return _div(tp + tn, tp + fp + fn + tn, 1.0)


# --- information ---------------------------------------------------------------------------------


def _joint(u, v):
    """Dense joint distribution p_ij and its margins."""
    classes, clusters = sorted(set(u)), sorted(set(v))
    p = np.zeros((len(classes), len(clusters)))
    for x, y in zip(u, v, strict=True):
        p[classes.index(x), clusters.index(y)] += 1
    p /= len(u)
    return p, p.sum(axis=1), p.sum(axis=0)


def _h(p):
    p = np.asarray(p, dtype=float).ravel()
    p = p[p > 0]
    return float(-np.sum(p * np.log(p)))


def entropy_true(u, v):
    return _h(_joint(u, v)[1])


def entropy_pred(u, v):
    return _h(_joint(u, v)[2])


def joint_entropy(u, v, base=math.e):
    return _h(_joint(u, v)[0]) / math.log(base)


def mutual_info(u, v):
    p, pu, pv = _joint(u, v)
    i, j = np.nonzero(p)
    return float(np.sum(p[i, j] * np.log(p[i, j] / (pu[i] * pv[j]))))


def conditional_entropy_true_given_pred(u, v, base=math.e):
    """H(U|V) = sum_j p(v_j) H(U | V = v_j)."""
    p, _, pv = _joint(u, v)
    return sum(pv[j] * _h(p[:, j] / pv[j]) for j in range(len(pv))) / math.log(base)


def conditional_entropy_pred_given_true(u, v, base=math.e):
    p, pu, _ = _joint(u, v)
    return sum(pu[i] * _h(p[i, :] / pu[i]) for i in range(len(pu))) / math.log(base)


def variation_of_information(u, v, base=math.e):
    """Meila's VI = H(U) + H(V) - 2 MI."""
    return (entropy_true(u, v) + entropy_pred(u, v) - 2 * mutual_info(u, v)) / math.log(base)


def normalized_variation_of_information(u, v):
    joint = joint_entropy(u, v)
    return 0.0 if joint == 0 else variation_of_information(u, v) / joint


def information_distance(u, v, base=math.e):
    return (max(entropy_true(u, v), entropy_pred(u, v)) - mutual_info(u, v)) / math.log(base)


def normalized_information_distance(u, v):
    h_max = max(entropy_true(u, v), entropy_pred(u, v))
    return 0.0 if h_max == 0 else 1 - mutual_info(u, v) / h_max


def chi_squared(u, v):
    """sum over all cells of (observed - expected)^2 / expected."""
    p, pu, pv = _joint(u, v)
    n = len(u)
    observed, expected = p * n, np.outer(pu, pv) * n
    return float(np.sum((observed - expected) ** 2 / expected))


def cramers_v(u, v):
    k = min(len(set(u)), len(set(v))) - 1
    if k == 0:
        return NAN
    return math.sqrt(chi_squared(u, v) / (len(u) * k))


# --- set matching --------------------------------------------------------------------------------


def purity(u, v):
    """(1/n) sum over clusters of the size of their largest class."""
    return sum(
        max(Counter(x for x, y in zip(u, v, strict=True) if y == c).values()) for c in set(v)
    ) / len(u)


def inverse_purity_score(u, v):
    return purity(v, u)


def purity_f_score(u, v):
    p, ip = purity(u, v), inverse_purity_score(u, v)
    return 2 * p * ip / (p + ip)


def _bcubed(u, v):
    """Per sample: precision = share of its cluster in its class, recall = share of its class
    in its cluster; then averaged."""
    n = len(u)
    precision = recall = 0.0
    for k in range(n):
        cluster = [m for m in range(n) if v[m] == v[k]]
        klass = [m for m in range(n) if u[m] == u[k]]
        both = [m for m in cluster if u[m] == u[k]]
        precision += len(both) / len(cluster)
        recall += len(both) / len(klass)
    return precision / n, recall / n


def bcubed_precision(u, v):
    return _bcubed(u, v)[0]


def bcubed_recall(u, v):
    return _bcubed(u, v)[1]


def bcubed_f_score(u, v):
    p, r = _bcubed(u, v)
    return 2 * p * r / (p + r)


def element_centric_similarity(u, v):
    """Mean over samples of 1 - L1/2 between the uniform distributions over its class and over
    its cluster (Gates et al. 2019, flat partitions)."""
    n = len(u)
    total = 0.0
    for k in range(n):
        a = np.array([u[m] == u[k] for m in range(n)], dtype=float)
        b = np.array([v[m] == v[k] for m in range(n)], dtype=float)
        total += 1 - 0.5 * np.abs(a / a.sum() - b / b.sum()).sum()
    return total / n


def hungarian_accuracy(u, v):
    """Best injective matching of the smaller label set into the larger, by brute force."""
    classes, clusters = sorted(set(u)), sorted(set(v))
    pairs = Counter(zip(u, v, strict=True))
    if len(classes) <= len(clusters):
        best = max(
            sum(pairs[(x, y)] for x, y in zip(classes, perm, strict=True))
            for perm in itertools.permutations(clusters, len(classes))
        )
    else:
        best = max(
            sum(pairs[(x, y)] for x, y in zip(perm, clusters, strict=True))
            for perm in itertools.permutations(classes, len(clusters))
        )
    return best / len(u)
