# The measures of a contingency table: scikit-learn's as functions of the table (scores.py) and
# its public functions (supervised.py; its two matrices, matrices.py); the catalogue's measures
# by family, methods of Contingency (pairs.py, information.py, matching.py, on base.py), and
# its reports (diagnostics.py); Contingency itself (contingency.py); the NMI and ARI of an
# embedding's k-means and a graph's Leiden clusterings (clusterings.py); the one registry of
# measures (catalogue.py), its names looked up (lookup.py), its listings for users
# (listing.py), its functions of two labelings (functions.py) and evaluate (evaluate.py).
# Imports _native, _utils, _labels, _table, _embedding, _graph and _soft. The docstring below
# is the measures page's "Conventions and references" (docs/measures.rst).
"""The measures beyond scikit-learn's are methods of :class:`Contingency`.

Notation used in the docstrings: ``n_ij`` is the table, ``a_i`` the class sizes (row sums),
``b_j`` the cluster sizes (column sums), ``n`` the number of samples, and over *unordered* pairs
of distinct samples

* ``T = sum C(n_ij, 2)`` pairs together in both labelings,
* ``P = sum C(a_i, 2)`` pairs together in ``labels_true``,
* ``Q = sum C(b_j, 2)`` pairs together in ``labels_pred``,
* ``N = C(n, 2)`` all pairs.

"Positive" means "in the same predicted cluster": ``tp = T``, ``fp = Q - T``, ``fn = P - T``,
``tn = N - P - Q + T``. scikit-learn's :func:`pair_confusion_matrix` counts ordered pairs, which
is twice these counts.

Some measures look at *couples* of distinct pairs of samples (each pair an observation with two
binary variables, together in ``labels_true`` and together in ``labels_pred``): ``s+ = tp tn``
couples are concordant, ``s- = fp fn`` discordant, out of ``C(N, 2)``; MARI looks at couples of
pairs that share no sample.

Pair-counting measures are computed from these exact integers and rounded to float once (or
twice where a square root is taken). When a denominator is zero no measure raises: a symmetric
similarity whose denominator vanishes only when the two labelings are identical (both all
singletons, or fewer than two samples) is 1.0, as :func:`rand_score` is; an undefined ratio
(precision without predicted pairs, a correlation with a constant margin) is ``nan``.

Information measures are in nats unless ``base=`` says otherwise; the entropies, distances and
chi-squared raise ``ValueError`` on an empty table, as :func:`mutual_info_score` (the joint NMI
is then 1.0, as :func:`normalized_mutual_info_score`, and the Frobenius distance 0).
Set-matching measures are 1.0 on an empty table, as :func:`purity_score`; those that match
classes to clusters one-to-one (Hungarian accuracy, NPA, NCA, PSI) need scipy.

References
----------
.. [HA85] L. Hubert, P. Arabie (1985). Comparing partitions. J. Classification 2, 193-218.
.. [Mi96] B. Mirkin (1996). Mathematical Classification and Clustering. Kluwer.
.. [Me07] M. Meila (2007). Comparing clusterings - an information based distance.
   J. Multivariate Analysis 98(5), 873-895.
.. [VEB10] N. X. Vinh, J. Epps, J. Bailey (2010). Information theoretic measures for clusterings
   comparison. JMLR 11, 2837-2854.
.. [De13] B. Desgraupes (2013). Clustering indices (R package clusterCrit), section on external
   criteria; also M. Halkidi, Y. Batistakis, M. Vazirgiannis (2001). On clustering validation
   techniques. J. Intelligent Information Systems 17, 107-145.
.. [AGAV09] E. Amigo, J. Gonzalo, J. Artiles, F. Verdejo (2009). A comparison of extrinsic
   clustering evaluation metrics based on formal constraints. Information Retrieval 12, 461-486.
.. [GWJA19] A. J. Gates, I. B. Wood, W. P. Hetrick, Y.-Y. Ahn (2019). Element-centric
   clustering comparison unifies overlaps and hierarchy. Scientific Reports 9, 8574.
.. [Cr46] H. Cramer (1946). Mathematical Methods of Statistics. Princeton, section 21.9.
.. [SCR23] L. Sundqvist, J. Chiquet, G. Rigaill (2023). Adjusting the adjusted Rand index: a
   multinomial story. Computational Statistics 38, 327-347 (R package aricode, ``MARI``).
.. [Ke38] M. G. Kendall (1938). A new measure of rank correlation. Biometrika 30, 81-93; tau-b
   with ties: M. G. Kendall (1945), Biometrika 33, 239-251.
.. [GK54] L. A. Goodman, W. H. Kruskal (1954). Measures of association for cross
   classifications. JASA 49, 732-764; as Baker-Hubert Gamma in [De13]_.
.. [Ro74] F. J. Rohlf (1974). Methods of comparing classifications. Annual Review of Ecology and
   Systematics 5, 101-113 (the G(+) index, as in [De13]_).
.. [Mc47] Q. McNemar (1947). Note on the sampling error of the difference between correlated
   proportions or percentages. Psychometrika 12, 153-157 (as in [De13]_).
.. [Ga25] M. Gagolewski (2025). Normalised clustering accuracy: an asymmetric external cluster
   validity measure. J. Classification 42, 2-30 (also NPA; Python/R package genieclust).
.. [RF16] M. Rezaei, P. Franti (2016). Set matching measures for external cluster validity.
   IEEE Trans. Knowledge and Data Engineering 28(8), 2173-2186.
.. [LA99] B. Larsen, C. Aone (1999). Fast and effective text mining using linear-time document
   clustering. KDD '99, 16-22 (the best-match F-measure).
.. [LBA14] R. Lajugie, F. Bach, S. Arlot (2014). Large-margin metric learning for constrained
   partitioning problems. ICML (the Frobenius distance; R package aricode, ``Frobenius``).
.. [NCY20] M. E. J. Newman, G. T. Cantwell, J.-G. Young (2020). Improved mutual information
   measure for clustering, classification, and community detection. Phys. Rev. E 101, 042304
   (the flat reduction); the number of tables estimated as in M. Jerdee, A. Kirkley,
   M. E. J. Newman (2023), Efficient estimation of the number of contingency tables, J. Stat.
   Mech.
.. [JKN24] M. Jerdee, A. Kirkley, M. E. J. Newman (2024). Normalized mutual information is a
   biased measure for classification and community detection. arXiv:2307.01282 (the
   asymmetric normalisation) and Mutual information and the encoding of contingency tables,
   arXiv:2405.05393 (the Dirichlet-multinomial reduction); Python package clustering-mi.
.. [RBNV14] S. Romano, J. Bailey, N. X. Vinh, K. Verspoor (2014). Standardized mutual
   information for clustering comparisons: one step further in adjustment for chance.
   ICML 2014, PMLR 32(2):1143-1151.
.. [RBNV16] S. Romano, N. X. Vinh, J. Bailey, K. Verspoor (2016). Adjusting for chance
   clustering comparison measures. JMLR 17(134), 1-32.
.. [Ma67] N. Mantel (1967). The detection of disease clustering and a generalized regression
   approach. Cancer Research 27, 209-220 (the variance of a permuted sum of products).
"""
