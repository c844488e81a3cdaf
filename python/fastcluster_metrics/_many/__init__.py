"""Many labelings at once: one truth against many predictions, and every pair
(``compare.py``); every cut of a dendrogram (``dendrogram.py``); bootstrap intervals and
permutation tests (``uncertainty.py``); each sample's agreement and consistency across
labelings (``consistency.py``); a clustering against every level of a hierarchy
(``levels.py``) and the measures of labels in one tree (``hierarchy.py``).

Imports ``_native``, ``_utils``, ``_labels``, ``_table`` and ``_measures``.
"""
