"""Many labelings at once: one truth against many predictions, and every pair
(``compare.py``); every cut of a dendrogram (``dendrogram.py``); bootstrap intervals and
permutation tests (``uncertainty.py``).

Imports ``_native``, ``_utils``, ``_labels``, ``_table`` and ``_measures``.
"""
