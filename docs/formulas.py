"""The formula of every measure of the catalogue, in LaTeX, for the documentation's measures page.

Keyed by the catalogue's full name (``fastcluster_metrics._measures.catalogue.MEASURES``);
``tests/test_docs.py`` fails when a measure has no formula here, or a formula no measure. The
notation is :data:`NOTATION`'s: the contingency table ``n_ij`` (rows the true classes ``U``,
columns the predicted clusters ``V``), its margins, and the pair counts that the module
docstring of ``_measures/__init__.py`` defines.
"""

from __future__ import annotations

NOTATION = r"""
The table has one row per true class :math:`i` (the labeling :math:`U`, ``labels_true``) and one
column per predicted cluster :math:`j` (the labeling :math:`V`, ``labels_pred``):

.. math::

   n_{ij} = |U_i \cap V_j|, \qquad a_i = \sum_j n_{ij}, \qquad b_j = \sum_i n_{ij}, \qquad
   n = \sum_{ij} n_{ij},

with :math:`r` and :math:`c` the numbers of non-empty classes and clusters. Over the unordered
pairs of distinct samples,

.. math::

   T = \sum_{ij} \binom{n_{ij}}{2}, \qquad P = \sum_i \binom{a_i}{2}, \qquad
   Q = \sum_j \binom{b_j}{2}, \qquad N = \binom{n}{2}

count the pairs together in both labelings, together in :math:`U`, together in :math:`V`, and
all pairs. "Positive" means "in the same predicted cluster": :math:`tp = T`,
:math:`fp = Q - T`, :math:`fn = P - T`, :math:`tn = N - P - Q + T`; over couples of distinct
pairs, :math:`s^+ = tp \cdot tn` are concordant and :math:`s^- = fp \cdot fn` discordant.
Entropies are in nats (natural logarithms) unless ``base=`` says otherwise:

.. math::

   H(U) = -\sum_i \frac{a_i}{n} \ln \frac{a_i}{n}, \qquad
   H(V) = -\sum_j \frac{b_j}{n} \ln \frac{b_j}{n}, \qquad
   I(U, V) = \sum_{ij} \frac{n_{ij}}{n} \ln \frac{n \, n_{ij}}{a_i b_j}.

Under random models other than scikit-learn's (Gates and Ahn 2017), :math:`S(n, k)` is a
Stirling number of the second kind (the partitions of :math:`n` samples into :math:`k`
blocks) and :math:`B_n` a Bell number (all partitions of :math:`n` samples).

A one-to-one matching :math:`m` maps classes to distinct clusters (the table padded with empty
rows or columns to a square of side :math:`K = \max(r, c)`).
"""
"""The notation the formulas use, as reStructuredText."""

_EMI = (
    r"\mathbb{E}[I] = \sum_{ij} \sum_{k=\max(1,\, a_i + b_j - n)}^{\min(a_i,\, b_j)}"
    r" \frac{k}{n} \ln \frac{n k}{a_i b_j}"
    r" \frac{a_i! \, b_j! \, (n - a_i)! \, (n - b_j)!}"
    r"{n! \, k! \, (a_i - k)! \, (b_j - k)! \, (n - a_i - b_j + k)!}"
)
_MEANS = {
    "min": r"\min(H(U), H(V))",
    "geometric": r"\sqrt{H(U) \, H(V)}",
    "arithmetic": r"\tfrac{1}{2} \left( H(U) + H(V) \right)",
    "max": r"\max(H(U), H(V))",
}


def _nmi(mean: str) -> str:
    return rf"\mathrm{{NMI}}_{{\text{{{mean}}}}} = \frac{{I(U, V)}}{{{_MEANS[mean]}}}"


def _ami(mean: str) -> str:
    return (
        rf"\mathrm{{AMI}}_{{\text{{{mean}}}}} = \frac{{I(U, V) - \mathbb{{E}}[I]}}"
        rf"{{{_MEANS[mean]} - \mathbb{{E}}[I]}}, \qquad {_EMI}"
    )


_DM = (
    r"I(c; g) = \frac{H_{\mathrm{DM}}(g) - H_{\mathrm{DM}}(g \mid c)}{\ln 2}, \\"
    r" H_{\mathrm{DM}}(g) = \ln \frac{n!}{\prod_i a_i!} + \min_{\alpha} \left["
    r" \ln \binom{n + r\alpha - 1}{r\alpha - 1} - \sum_i \ln \binom{a_i + \alpha - 1}{\alpha - 1}"
    r" \right], \\"
    r" H_{\mathrm{DM}}(g \mid c) = \ln \frac{\prod_j b_j!}{\prod_{ij} n_{ij}!}"
    r" + \min_{\alpha} \left[ \sum_j \ln \binom{b_j + r\alpha - 1}{r\alpha - 1}"
    r" - \sum_{ij} \ln \binom{n_{ij} + \alpha - 1}{\alpha - 1} \right]"
)
_FLAT = (
    r"I(c; g) = \frac{1}{\ln 2} \left[ \ln \frac{n! \prod_{ij} n_{ij}!}{\prod_i a_i! \prod_j b_j!}"
    r" - \ln \hat\Omega(a, b) \right]"
)
_RMI_NOTE = (
    r" \\ I(g; g) \text{ is } I(c; g) \text{ of the table of } U \text{ against itself,"
    r" } \hat\Omega(a, b) \text{ the estimated number of tables with margins } a, b"
)

_HYPERGEOMETRIC = r"h(k; a, b) = \frac{\binom{a}{k} \binom{n - a}{b - k}}{\binom{n}{b}}"


def _ari_model(model: str) -> str:
    """ARI adjusted under a random model that draws one side (``num1``, ``all1``) or both."""
    p_observed = r"p = P / N"
    drawn = {
        "num": (r"p = \frac{S(n - 1, r)}{S(n, r)}", r"q = \frac{S(n - 1, c)}{S(n, c)}"),
        "all": (r"p = \frac{B_{n-1}}{B_n}", r"q = \frac{B_{n-1}}{B_n}"),
    }[model.rstrip("1")]
    p, q = (p_observed, drawn[1]) if model.endswith("1") else drawn
    return (
        rf"\mathrm{{ARI}}_{{\text{{{model}}}}} = "
        rf"\frac{{\mathrm{{RI}} - \mathbb{{E}}[\mathrm{{RI}}]}}{{1 - \mathbb{{E}}[\mathrm{{RI}}]}},"
        r" \qquad"
        rf" \mathbb{{E}}[\mathrm{{RI}}] = p q + (1 - p)(1 - q), \qquad {p}, \quad {q}"
    )


def _ami_model(model: str) -> str:
    """AMI (arithmetic mean) adjusted under a model that draws the prediction anew."""
    blocks = {
        "num1": r"\mathbb{E}[m_b] = \binom{n}{b} \frac{S(n - b, c - 1)}{S(n, c)}",
        "all1": r"\mathbb{E}[m_b] = \binom{n}{b} \frac{B_{n - b}}{B_n}",
    }[model]
    return (
        rf"\mathrm{{AMI}}_{{\text{{{model}}}}} = \frac{{I(U, V) - \mathbb{{E}}[I]}}"
        rf"{{{_MEANS['arithmetic']} - \mathbb{{E}}[I]}}, \\"
        r" \mathbb{E}[I] = \sum_{b=1}^{n} \mathbb{E}[m_b] \sum_i \sum_k \frac{k}{n}"
        r" \ln \frac{n k}{a_i b} \, h(k; a_i, b), \qquad "
        + blocks
        + r", \qquad "
        + _HYPERGEOMETRIC
        + r" \\ m_b \text{ the number of clusters of size } b \text{ of the drawn partition}"
    )


FORMULAS: dict[str, str] = {
    # scikit-learn's measures and purity
    "adjusted_rand_score": r"\mathrm{ARI} = \frac{T - P Q / N}{\tfrac{1}{2} (P + Q) - P Q / N}",
    "rand_score": r"\mathrm{RI} = \frac{tp + tn}{N} = \frac{N - P - Q + 2T}{N}",
    "adjusted_mutual_info_score": _ami("arithmetic"),
    "normalized_mutual_info_score": _nmi("arithmetic"),
    "mutual_info_score": r"I(U, V) = \sum_{ij} \frac{n_{ij}}{n} \ln \frac{n \, n_{ij}}{a_i b_j}",
    "homogeneity_score": r"h = 1 - \frac{H(U \mid V)}{H(U)} \quad (1 \text{ when } H(U) = 0)",
    "completeness_score": r"c = 1 - \frac{H(V \mid U)}{H(V)} \quad (1 \text{ when } H(V) = 0)",
    "v_measure_score": r"V_\beta = \frac{(1 + \beta) \, h \, c}{\beta \, h + c}, \quad \beta = 1",
    "fowlkes_mallows_score": r"\mathrm{FMI} = \frac{T}{\sqrt{P Q}}",
    "purity_score": r"\mathrm{purity} = \frac{1}{n} \sum_j \max_i n_{ij}",
    # information: the other normalisations of NMI and AMI
    "normalized_mutual_info_score_min": _nmi("min"),
    "normalized_mutual_info_score_geometric": _nmi("geometric"),
    "normalized_mutual_info_score_max": _nmi("max"),
    "normalized_mutual_info_score_joint": r"\mathrm{NMI}_{\text{joint}} = \frac{I(U, V)}{H(U, V)}",
    "adjusted_mutual_info_score_min": _ami("min"),
    "adjusted_mutual_info_score_geometric": _ami("geometric"),
    "adjusted_mutual_info_score_max": _ami("max"),
    # adjusted under the random models of Gates and Ahn (2017)
    "adjusted_mutual_info_score_num1": _ami_model("num1"),
    "adjusted_mutual_info_score_all1": _ami_model("all1"),
    "adjusted_rand_score_num1": _ari_model("num1"),
    "adjusted_rand_score_all1": _ari_model("all1"),
    "adjusted_rand_score_num": _ari_model("num"),
    "adjusted_rand_score_all": _ari_model("all"),
    "reduced_mutual_info_score": r"\mathrm{RMI} = \frac{I(c; g)}{I(g; g)}, \qquad "
    + _DM
    + _RMI_NOTE,
    "reduced_mutual_info_score_flat": r"\mathrm{RMI}_{\text{flat}} = \frac{I(c; g)}{I(g; g)},"
    r" \qquad " + _FLAT + _RMI_NOTE,
    "standardized_mutual_info_score": (
        r"\mathrm{SMI} = \frac{I(U, V) - \mathbb{E}[I]}{\sqrt{\operatorname{Var}(I)}}, \qquad"
        r" n I = S = \sum_{ij} g_{ij}(n_{ij}), \quad"
        r" g_{ij}(x) = x \ln \frac{x}{e_{ij}} - x + e_{ij}, \quad e_{ij} = \frac{a_i b_j}{n}, \\"
        r" \operatorname{Var}(S) = \sum_i \operatorname{Cov}\big(A_i,"
        r" \mathbb{E}[S \mid n_{i\cdot}]\big), \quad A_i = \sum_j g_{ij}(n_{ij})"
    ),
    "entropy_true": r"H(U) = -\sum_i \frac{a_i}{n} \ln \frac{a_i}{n}",
    "entropy_pred": r"H(V) = -\sum_j \frac{b_j}{n} \ln \frac{b_j}{n}",
    "joint_entropy": r"H(U, V) = -\sum_{ij} \frac{n_{ij}}{n} \ln \frac{n_{ij}}{n}",
    "conditional_entropy_true_given_pred": (
        r"H(U \mid V) = H(U, V) - H(V) = -\sum_{ij} \frac{n_{ij}}{n} \ln \frac{n_{ij}}{b_j}"
    ),
    "conditional_entropy_pred_given_true": (
        r"H(V \mid U) = H(U, V) - H(U) = -\sum_{ij} \frac{n_{ij}}{n} \ln \frac{n_{ij}}{a_i}"
    ),
    "variation_of_information": r"\mathrm{VI} = H(U \mid V) + H(V \mid U)",
    "normalized_variation_of_information": (
        r"\mathrm{NVI} = \frac{H(U \mid V) + H(V \mid U)}{H(U, V)}"
    ),
    "information_distance": (
        r"\mathrm{ID} = \max(H(U), H(V)) - I(U, V) = \max(H(U \mid V), H(V \mid U))"
    ),
    "normalized_information_distance": (r"\mathrm{NID} = 1 - \frac{I(U, V)}{\max(H(U), H(V))}"),
    "chi_squared": (
        r"\chi^2 = \sum_{ij} \frac{(n_{ij} - a_i b_j / n)^2}{a_i b_j / n}"
        r" = n \left( \sum_{ij} \frac{n_{ij}^2}{a_i b_j} - 1 \right)"
    ),
    "cramers_v": r"V = \sqrt{\frac{\chi^2}{n \, (\min(r, c) - 1)}}",
    "frobenius_distance": (
        r"\lVert M_U - M_V \rVert_F^2 = r + c - 2 \sum_{ij} \frac{n_{ij}^2}{a_i b_j}"
    ),
    # pair counting
    "modified_adjusted_rand_score": (
        r"\mathrm{MARI} = \frac{T - N \hat E}{\tfrac{1}{2} (P + Q) - N \hat E}, \qquad"
        r" 6 \binom{n}{4} \hat E = P Q - T - \Bigl( 2n + \sum_{ij} n_{ij} a_i b_j"
        r" - \sum_{ij} n_{ij}^2 - \sum_i a_i^2 - \sum_j b_j^2 \Bigr)"
    ),
    "adjusted_fowlkes_mallows_score": (
        r"\mathrm{AFMI} = \frac{\mathrm{FMI} - \mathbb{E}[\mathrm{FMI}]}"
        r"{1 - \mathbb{E}[\mathrm{FMI}]} = \frac{N T - P Q}{\sqrt{P Q} \, (N - \sqrt{P Q})}"
    ),
    "jaccard_index": r"J = \frac{T}{P + Q - T}",
    "pair_precision": r"\frac{T}{Q} = \frac{tp}{tp + fp}",
    "pair_recall": r"\frac{T}{P} = \frac{tp}{tp + fn}",
    "pair_f_score": r"F_\beta = \frac{(1 + \beta^2) \, T}{\beta^2 P + Q}, \quad \beta = 1",
    "dice_index": r"D = \frac{2T}{P + Q}",
    "kulczynski_index": r"K = \frac{1}{2} \left( \frac{T}{P} + \frac{T}{Q} \right)",
    "mirkin_metric": (r"M = \sum_i a_i^2 + \sum_j b_j^2 - 2 \sum_{ij} n_{ij}^2 = 2 (P + Q - 2T)"),
    "hubert_gamma": r"\Gamma = \frac{N T - P Q}{\sqrt{P Q (N - P) (N - Q)}}",
    "standardized_rand_score": (
        r"\mathrm{SRI} = \frac{2T - \mathbb{E}[2T]}{\sqrt{\operatorname{Var}(2T)}}, \qquad"
        r" \mathbb{E}[2T] = \frac{A_1 B_1}{n_{(2)}}, \\"
        r" \operatorname{Var}(2T) = \frac{2 A_1 B_1}{n_{(2)}}"
        r" + \frac{4 (A_3 - A_1)(B_3 - B_1)}{n_{(3)}}"
        r" + \frac{(A_1^2 + 2 A_1 - 4 A_3)(B_1^2 + 2 B_1 - 4 B_3)}{n_{(4)}}"
        r" - \mathbb{E}[2T]^2, \\"
        r" A_1 = \sum_i a_i (a_i - 1), \quad A_3 = \sum_i a_i (a_i - 1)^2, \quad"
        r" B_1 = \sum_j b_j (b_j - 1), \quad B_3 = \sum_j b_j (b_j - 1)^2, \quad"
        r" n_{(k)} = n (n - 1) \cdots (n - k + 1)"
    ),
    "phi_index": (
        r"\phi = \frac{tp \cdot tn - fp \cdot fn}"
        r"{\sqrt{(tp + fp)(tp + fn)(tn + fp)(tn + fn)}}"
    ),
    "kendall_tau": r"\tau_b = \frac{s^+ - s^-}{\sqrt{P (N - P) \, Q (N - Q)}}",
    "goodman_kruskal_gamma": r"\gamma = \frac{s^+ - s^-}{s^+ + s^-}",
    "g_plus_index": r"G_{+} = \frac{s^-}{\binom{N}{2}} = \frac{2 \, fp \cdot fn}{N (N - 1)}",
    "mcnemar_index": r"\frac{tn - fp}{\sqrt{tn + fp}}",
    "rogers_tanimoto_index": r"\frac{tp + tn}{tp + tn + 2 (fp + fn)}",
    "russel_rao_index": r"\frac{tp}{N}",
    "sokal_sneath1_index": r"\frac{tp}{tp + 2 (fp + fn)}",
    "sokal_sneath2_index": r"\frac{tp + tn}{tp + tn + \tfrac{1}{2} (fp + fn)}",
    # set matching
    "inverse_purity_score": r"\frac{1}{n} \sum_i \max_j n_{ij}",
    "purity_f_score": (
        r"\frac{2 \cdot \mathrm{purity} \cdot \mathrm{inverse\ purity}}"
        r"{\mathrm{purity} + \mathrm{inverse\ purity}}"
    ),
    "bcubed_precision": r"\frac{1}{n} \sum_{ij} \frac{n_{ij}^2}{b_j}",
    "bcubed_recall": r"\frac{1}{n} \sum_{ij} \frac{n_{ij}^2}{a_i}",
    "bcubed_f_score": (
        r"\frac{2 \cdot \text{precision} \cdot \text{recall}}{\text{precision} + \text{recall}}"
        r" \quad \text{(BCubed)}"
    ),
    "element_centric_similarity": r"\frac{1}{n} \sum_{ij} \frac{n_{ij}^2}{\max(a_i, b_j)}",
    "hungarian_accuracy": r"A = \frac{1}{n} \max_m \sum_i n_{i, m(i)}",
    "normalized_pivoted_accuracy": r"\mathrm{NPA} = \frac{A K - 1}{K - 1}",
    "normalized_clustering_accuracy": (
        r"\mathrm{NCA} = \frac{1}{r - 1} \left( \max_m \sum_i \frac{n_{i, m(i)}}{a_i} - 1 \right)"
    ),
    "pair_sets_index": (
        r"\mathrm{PSI} = \max\left(0, \frac{S - E}{K - E}\right), \quad"
        r" S = \max_m \sum_i \frac{n_{i, m(i)}}{\max(a_i, b_{m(i)})}, \quad"
        r" E = \frac{1}{n} \sum_k \min(a_{(k)}, b_{(k)})"
        r" \\ a_{(k)}, b_{(k)} \text{ the class and cluster sizes in decreasing order}"
    ),
    "pair_sets_index_simplified": (
        r"\mathrm{PSI}_{\text{simplified}} = \max\left(0, \frac{S - 1}{K - 1}\right), \quad"
        r" S = \max_m \sum_i \frac{n_{i, m(i)}}{\max(a_i, b_{m(i)})}"
    ),
    "best_match_f1_score": (r"\sum_i \frac{a_i}{n} \max_j \frac{2 \, n_{ij}}{a_i + b_j}"),
    "best_match_f1_score_macro": r"\frac{1}{r} \sum_i \max_j \frac{2 \, n_{ij}}{a_i + b_j}",
}
"""Each measure's formula, by the catalogue's full name, as LaTeX (a ``math`` directive's body;
``\\`` breaks lines)."""

PER_SAMPLE: dict[str, str] = {
    "bcubed_precision": r"\frac{n_{ij}}{b_j}",
    "bcubed_recall": r"\frac{n_{ij}}{a_i}",
    "bcubed_f_score": r"\frac{2 \, n_{ij}}{a_i + b_j}",
    "element_centric_similarity": r"\frac{n_{ij}}{\max(a_i, b_j)}",
}
"""The score of one sample of class :math:`i` and cluster :math:`j`, for each measure with a
per-sample form (:attr:`Measure.per_sample`), as LaTeX."""

OTHER_NOTATION: dict[str, str] = {
    "memberships": (
        r"Membership matrices :math:`P` (:math:`n \times k_1`) and :math:`Q` (:math:`n \times"
        r" k_2`), a row per sample; :math:`A = P P^\top` and :math:`B = Q Q^\top` their bonding"
        r" matrices, :math:`J` the matrix of ones, :math:`\langle X, Y \rangle = \sum_{st}"
        r" X_{st} Y_{st}` and :math:`N_A = \frac{\operatorname{sum} A}{\langle A, A \rangle}"
        r" A` (Andrews, Browne and Hvingelby 2022)."
    ),
    "covers": (
        r"Covers :math:`U` and :math:`V` give each sample :math:`s` a set of labels"
        r" :math:`U(s)`, :math:`V(s)`; over the :math:`M = \binom{n}{2}` pairs of samples,"
        r" :math:`t_j(U)` is the set of pairs that share exactly :math:`j` labels of"
        r" :math:`U`."
    ),
    "embedding": (
        r"Samples :math:`x_s` of an embedding in clusters :math:`C_1, \dots, C_k` with"
        r" centroids :math:`c_l`, :math:`c` the centroid of all, :math:`d` the distance of"
        r" ``metric=``; :math:`\mathrm{s}_s(y)` is sample :math:`s`'s silhouette under the"
        r" labels :math:`y`; for scIB's scores, :math:`C_c` holds the :math:`n_c` cells of"
        r" cell type :math:`c`, found in :math:`B_c` batches, and :math:`C'` the types of more"
        r" than one batch and fewer batches than cells; for PCR, :math:`X_c` is :math:`X`"
        r" centred, :math:`P_b` the projection on the batches (one-hot), :math:`R^2_j` and"
        r" :math:`\operatorname{var}_j` the share of principal component :math:`j` the batches"
        r" explain and its variance."
    ),
    "graph": (
        r"A neighbour graph: each cell :math:`i` has neighbours :math:`N(i)` at distances"
        r" :math:`d_{ij}`, labels :math:`y` (cell types, :math:`C` of them) and batches"
        r" (:math:`B`, a share :math:`f_b` of the cells each); :math:`G_c` is the graph of"
        r" label :math:`c`'s cells, :math:`c_{ib}` the neighbours of :math:`i` in batch"
        r" :math:`b`, :math:`Q` the regularised upper incomplete gamma function."
    ),
}
"""What the formulas of each kind of :data:`OTHER_FORMULAS` name, as reStructuredText."""

OTHER_FORMULAS: dict[str, str] = {
    "frobenius_rand_score": (
        r"\mathrm{FRI} = \frac{\langle N_A, N_B \rangle + \langle J - N_A, J - N_B \rangle - n}"
        r"{n (n - 1)}"
    ),
    "frobenius_adjusted_rand_score": (
        r"\mathrm{FARI} = \frac{\mathrm{FRI} - \mathbb{E}[\mathrm{FRI}]}"
        r"{1 - \mathbb{E}[\mathrm{FRI}]}, \qquad"
        r" \mathbb{E}\langle A, B \rangle = \frac{\operatorname{sum} A \operatorname{sum} B}{n^2}"
        r" + \frac{(\operatorname{tr} A - \operatorname{sum} A / n)"
        r" (\operatorname{tr} B - \operatorname{sum} B / n)}{n - 1}"
    ),
    "omega_index": (
        r"\omega = \frac{\omega_u - \omega_e}{1 - \omega_e}, \qquad"
        r" \omega_u = \frac{1}{M} \sum_j |t_j(U) \cap t_j(V)|, \qquad"
        r" \omega_e = \frac{1}{M^2} \sum_j |t_j(U)| \, |t_j(V)|"
    ),
    "overlapping_normalized_mutual_info_score": (
        r"\mathrm{ONMI} = \frac{\tfrac{1}{2} \left( H(U) - H(U \mid V) + H(V) - H(V \mid U)"
        r" \right)}{\max(H(U), H(V))}"
    ),
    "overlapping_normalized_mutual_info_score_lfk": (
        r"\mathrm{ONMI}_{LFK} = 1 - \tfrac{1}{2} \left( H(U \mid V)_{\mathrm{norm}}"
        r" + H(V \mid U)_{\mathrm{norm}} \right)"
    ),
    "extended_bcubed_precision": (
        r"P = \frac{1}{n} \sum_s \operatorname{avg}_{t: V(s) \cap V(t) \neq \emptyset}"
        r" \frac{\min(|U(s) \cap U(t)|, |V(s) \cap V(t)|)}{|V(s) \cap V(t)|}"
    ),
    "extended_bcubed_recall": (
        r"R = \frac{1}{n} \sum_s \operatorname{avg}_{t: U(s) \cap U(t) \neq \emptyset}"
        r" \frac{\min(|U(s) \cap U(t)|, |V(s) \cap V(t)|)}{|U(s) \cap U(t)|}"
    ),
    "extended_bcubed_f": r"F = \frac{2 P R}{P + R}",
    "silhouette_score": (
        r"\mathrm{ASW} = \frac{1}{n} \sum_s \frac{b_s - a_s}{\max(a_s, b_s)}, \qquad"
        r" a_s = \frac{1}{|C_{l(s)}| - 1} \sum_{t \in C_{l(s)}} d(x_s, x_t), \qquad"
        r" b_s = \min_{l \neq l(s)} \frac{1}{|C_l|} \sum_{t \in C_l} d(x_s, x_t)"
    ),
    "calinski_harabasz_score": (
        r"\mathrm{CH} = \frac{\sum_l |C_l| \, \lVert c_l - c \rVert^2 / (k - 1)}"
        r"{\sum_l \sum_{s \in C_l} \lVert x_s - c_l \rVert^2 / (n - k)}"
    ),
    "davies_bouldin_score": (
        r"\mathrm{DB} = \frac{1}{k} \sum_l \max_{m \neq l}"
        r" \frac{\sigma_l + \sigma_m}{\lVert c_l - c_m \rVert}, \qquad"
        r" \sigma_l = \frac{1}{|C_l|} \sum_{s \in C_l} \lVert x_s - c_l \rVert"
    ),
    "approximate_silhouette_score": (
        r"\frac{1}{n} \sum_s \frac{b_s - a_s}{\max(a_s, b_s)}, \qquad"
        r" a_s = D_s(C_{l(s)}), \ b_s = \min_{l \neq l(s)} D_s(C_l), \qquad"
        r" D_s(C) = \sqrt{\lVert x_s - c_C \rVert^2"
        r" + \tfrac{1}{|C|} \textstyle\sum_{t \in C} \lVert x_t - c_C \rVert^2}"
    ),
    "silhouette_label": r"\frac{\mathrm{ASW}(y) + 1}{2}",
    "silhouette_batch": (
        r"\frac{1}{|C'|} \sum_{c \in C'} \frac{1}{n_c} \sum_{s \in C_c}"
        r" \big( 1 - |\mathrm{s}_s(\text{batch} \mid C_c)| \big)"
    ),
    "bras": (
        r"\text{as batch ASW, with } d \text{ cosine and }"
        r" b_s = \frac{\sum_{t \in C_c,\, \text{batch}(t) \neq \text{batch}(s)} d(x_s, x_t)}"
        r"{|\{t \in C_c : \text{batch}(t) \neq \text{batch}(s)\}|}"
    ),
    "isolated_labels": (
        r"\frac{1}{|I|} \sum_{c \in I} \frac{1}{n_c} \sum_{s \in C_c}"
        r" \frac{\mathrm{s}_s(y) + 1}{2}, \qquad"
        r" I = \{c : B_c = \min_{c'} B_{c'}\}"
    ),
    "nmi_ari_cluster_labels_kmeans_nmi": (
        r"\mathrm{NMI}(y, \hat y), \qquad \hat y = \text{k-means of } X"
        r" \text{ into } C \text{ clusters (the best of 10 k-means++ starts)}"
    ),
    "nmi_ari_cluster_labels_kmeans_ari": (
        r"\mathrm{ARI}(y, \hat y), \qquad \hat y = \text{k-means of } X"
        r" \text{ into } C \text{ clusters}"
    ),
    "pcr_comparison": (
        r"\frac{\mathrm{PCR}(X_{\text{pre}}) - \mathrm{PCR}(X_{\text{post}})}"
        r"{\mathrm{PCR}(X_{\text{pre}})} \text{, set to 0 where negative}"
    ),
    "principal_component_regression": (
        r"\mathrm{PCR}(X) = \frac{\sum_j R^2_j \operatorname{var}_j}{\sum_j \operatorname{var}_j}"
        r" = \frac{\lVert P_b X_c \rVert^2}{\lVert X_c \rVert^2}"
    ),
    "ilisi_knn": (
        r"\mathrm{iLISI} = \frac{\operatorname{median}_i \mathrm{LISI}_i(\text{batch}) - 1}"
        r"{B - 1}, \qquad \mathrm{LISI}_i = \Big( \sum_l \big( \sum_{j \in N(i),\, y_j = l}"
        r" p_{ij} \big)^2 \Big)^{-1}, \qquad"
        r" p_{ij} \propto e^{-\beta_i d_{ij}} \ (j \neq i), \ H(p_i) = \ln u"
    ),
    "clisi_knn": (
        r"\mathrm{cLISI} = \frac{C - \operatorname{median}_i \mathrm{LISI}_i(\text{label})}"
        r"{C - 1}"
    ),
    "kbet": (
        r"\mathrm{kBET} = \frac{1}{n} \sum_i [p_i \geq \alpha], \qquad"
        r" p_i = Q\left(\tfrac{B - 1}{2}, \tfrac{\chi^2_i}{2}\right), \qquad"
        r" \chi^2_i = \sum_b \frac{(c_{ib} - k_i f_b)^2}{k_i f_b}"
    ),
    "kbet_per_label": (r"\frac{1}{|C'|} \sum_{c \in C'} \mathrm{kBET}(G_c)"),
    "graph_connectivity": (r"\mathrm{GC} = \frac{1}{|C|} \sum_c \frac{|\mathrm{LSCC}(G_c)|}{n_c}"),
    "nmi_ari_cluster_labels_leiden_nmi": (
        r"\max_{r \in \{0.2, 0.4, \ldots, 2\}} \mathrm{NMI}(y, \hat y_r), \qquad"
        r" \hat y_r = \text{Leiden clusters of } G \text{ at resolution } r"
    ),
    "nmi_ari_cluster_labels_leiden_ari": (
        r"\mathrm{ARI}(y, \hat y_{r^*}), \qquad r^* \text{ the resolution of highest NMI}"
    ),
}
"""The formula of each measure of another kind than a table (the catalogue's ``OTHERS``)."""
