"""Textbook versions of the measures of ``Contingency``'s ``Measures`` mixin, the test oracle.

Written from the definitions, independently of the package (which is not imported):

* pair-counting measures count every unordered pair of samples (``itertools.combinations``);
  Kendall's tau, Gamma and G(+) compare every couple of pairs, and MARI's expected index counts
  the ordered couples of pairs that share no sample (a pair-by-pair disjointness matrix);
* information measures sum ``p log p`` over the dense joint distribution;
* set-matching measures loop over samples, and the best matching tries every permutation.

Every function takes the two labelings as sequences. Degenerate cases (a zero denominator) follow
the conventions of ``_measures/__init__.py``: 1.0 for a symmetric similarity that is undefined
only for identical labelings, nan for an undefined ratio or correlation.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from fractions import Fraction

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


# --- pairs of pairs: MARI, Kendall's tau-b, Goodman-Kruskal gamma, G(+) --------------------------


def _pair_indicators(u, v):
    """All unordered pairs of samples (i < j) with their two 'together' indicators."""
    pairs = list(itertools.combinations(range(len(u)), 2))
    x = np.array([u[i] == u[j] for i, j in pairs], dtype=np.int64)
    y = np.array([v[i] == v[j] for i, j in pairs], dtype=np.int64)
    return pairs, x, y


def mari_expected_share(u, v):
    """Sundqvist et al. (2023): over ordered couples (pair1, pair2) of pairs sharing no sample,
    the share with pair1 together in u and pair2 together in v (a Fraction); None if n < 4.

    Enumerates the couples explicitly (a pair-by-pair disjointness matrix)."""
    pairs, x, y = _pair_indicators(u, v)
    if len(u) < 4:
        return None
    p = np.array(pairs)
    a, b = p[:, 0], p[:, 1]
    disjoint = (
        (a[:, None] != a[None, :])
        & (a[:, None] != b[None, :])
        & (b[:, None] != a[None, :])
        & (b[:, None] != b[None, :])
    )
    couples = int(disjoint.sum())
    n = len(u)
    assert couples == n * (n - 1) * (n - 2) * (n - 3) // 4  # 6 C(n, 4)
    together = int(x @ disjoint.astype(np.int64) @ y)
    return Fraction(together, couples)


def modified_adjusted_rand_score(u, v):
    """MARI = (T/N - E) / ((P + Q) / (2N) - E), E the disjoint-couples share above."""
    tp, fp, fn, tn = _counts(u, v)
    if fp == fn == 0:
        return 1.0
    expected = mari_expected_share(u, v)
    if expected is None:
        return NAN
    n_pairs = tp + fp + fn + tn
    t, p, q = Fraction(tp, n_pairs), Fraction(tp + fn, n_pairs), Fraction(tp + fp, n_pairs)
    den = (p + q) / 2 - expected
    return NAN if den == 0 else float((t - expected) / den)


def _couples(u, v):
    """Over all unordered couples of distinct pairs of samples: concordant, discordant, untied in
    u, untied in v, and all couples (by comparing every couple's indicators)."""
    _, x, y = _pair_indicators(u, v)
    dx = np.sign(x[:, None] - x[None, :])
    dy = np.sign(y[:, None] - y[None, :])
    upper = np.triu(np.ones(dx.shape, dtype=bool), k=1)
    prod = (dx * dy)[upper]
    return (
        int((prod > 0).sum()),
        int((prod < 0).sum()),
        int((dx[upper] != 0).sum()),
        int((dy[upper] != 0).sum()),
        int(upper.sum()),
    )


def kendall_tau(u, v):
    concordant, discordant, untied_x, untied_y, _ = _couples(u, v)
    if untied_x == 0 or untied_y == 0:
        return NAN
    return (concordant - discordant) / math.sqrt(untied_x * untied_y)


def goodman_kruskal_gamma(u, v):
    concordant, discordant, _, _, _ = _couples(u, v)
    return _div(concordant - discordant, concordant + discordant, NAN)


def g_plus_index(u, v):
    _, discordant, _, _, total = _couples(u, v)
    return _div(discordant, total, NAN)


def mcnemar_index(u, v):
    _, fp, _, tn = _counts(u, v)
    return NAN if tn + fp == 0 else (tn - fp) / math.sqrt(tn + fp)


def adjusted_fowlkes_mallows_score(u, v):
    """(FM - E[FM]) / (1 - E[FM]) with E[FM] = E[T] / sqrt(P Q) = sqrt(P Q) / N (Hubert and
    Arabie 1985, eq. 4)."""
    tp, fp, fn, tn = _counts(u, v)
    if fp == fn == 0:
        return 1.0
    p, q, n_pairs = tp + fn, tp + fp, tp + fp + fn + tn
    if p == 0 or q == 0:
        return NAN
    fm = tp / math.sqrt(p * q)
    expected = math.sqrt(p * q) / n_pairs
    return (fm - expected) / (1 - expected)


# --- more information ----------------------------------------------------------------------------


def normalized_mutual_info_score_joint(u, v):
    joint = joint_entropy(u, v)
    return 1.0 if joint == 0 else mutual_info(u, v) / joint


def frobenius_distance(u, v):
    """||M_u - M_v||_F^2 with M_ab = 1/|block| when a and b share a block (n x n matrices)."""
    u, v = np.asarray(u), np.asarray(v)
    same_u = (u[:, None] == u[None, :]).astype(float)
    same_v = (v[:, None] == v[None, :]).astype(float)
    m_u = same_u / same_u.sum(axis=1, keepdims=True)
    m_v = same_v / same_v.sum(axis=1, keepdims=True)
    return float(((m_u - m_v) ** 2).sum())


# --- more set matching ---------------------------------------------------------------------------


def _dense(u, v):
    classes, clusters = sorted(set(u)), sorted(set(v))
    table = np.zeros((len(classes), len(clusters)), dtype=np.int64)
    for x, y in zip(u, v, strict=True):
        table[classes.index(x), clusters.index(y)] += 1
    return table


def _padded(table):
    k = max(table.shape)
    out = np.zeros((k, k), dtype=table.dtype)
    out[: table.shape[0], : table.shape[1]] = table
    return out


def normalized_pivoted_accuracy(u, v):
    """(best diagonal over column permutations of the zero-padded square table / n - 1/K)
    / (1 - 1/K), every permutation tried."""
    table = _padded(_dense(u, v))
    k = table.shape[0]
    if k == 1:
        return 1.0
    best = max(sum(table[i, p[i]] for i in range(k)) for p in itertools.permutations(range(k)))
    accuracy = best / len(u)
    return (accuracy - 1 / k) / (1 - 1 / k)


def normalized_clustering_accuracy(u, v):
    """max over injective maps m of classes to clusters (a missing cluster is an empty one) of
    (1/r) sum_i (n_{i,m(i)}/a_i - 1/r) / (1 - 1/r)."""
    table = _dense(u, v)
    r, c = table.shape
    if r == 1:
        return 1.0 if c == 1 else NAN
    if c < r:
        table = np.hstack([table, np.zeros((r, r - c), dtype=table.dtype)])
    sizes = table.sum(axis=1)
    best = max(
        sum(table[i, p[i]] / sizes[i] for i in range(r))
        for p in itertools.permutations(range(table.shape[1]), r)
    )
    return (best / r - 1 / r) / (1 - 1 / r)


def pair_sets_index(u, v, simplified=False, clipped=True):
    """Rezaei and Franti (2016): S = best matching of s_ij = n_ij / max(a_i, b_j) (padded square),
    E = sum_k min of the k-th largest class and cluster sizes / n; (S - E) / (K - E)."""
    table = _dense(u, v)
    a, b = table.sum(axis=1), table.sum(axis=0)
    sim = _padded(table / np.maximum(a[:, None], b[None, :]))
    k = sim.shape[0]
    if k == 1:
        return 1.0
    s = max(sum(sim[i, p[i]] for i in range(k)) for p in itertools.permutations(range(k)))
    if simplified:
        value = (s - 1) / (k - 1)
    else:
        sa, sb = sorted(a, reverse=True), sorted(b, reverse=True)
        e = sum(min(x, y) for x, y in zip(sa, sb, strict=False)) / len(u)
        value = (s - e) / (k - e)
    return max(0.0, value) if clipped else value


def best_match_f1_per_class(u, v):
    """Per class in sorted order: max over clusters of the F1 of (class, cluster) as sets."""
    out = []
    for x in sorted(set(u)):
        members = {k for k in range(len(u)) if u[k] == x}
        best = 0.0
        for y in sorted(set(v)):
            cluster = {k for k in range(len(v)) if v[k] == y}
            both = len(members & cluster)
            precision, recall = both / len(cluster), both / len(members)
            if both:
                best = max(best, 2 * precision * recall / (precision + recall))
        out.append(best)
    return out


def best_match_f1_score(u, v, average="weighted"):
    f1 = best_match_f1_per_class(u, v)
    if average == "macro":
        return sum(f1) / len(f1)
    sizes = [sum(1 for x in u if x == c) for c in sorted(set(u))]
    return sum(f * s for f, s in zip(f1, sizes, strict=True)) / len(u)
