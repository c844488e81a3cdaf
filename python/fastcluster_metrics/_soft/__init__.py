"""Soft and overlapping labelings: memberships and covers read and checked at the edge
(``memberships.py``); the Frobenius Rand and adjusted Rand indices of two membership matrices
from their k x k sums (``frobenius.py``), and those sums added up chunk by chunk
(``frobenius_stream.py``); the samples of two covers grouped by their pairs of label sets and
the subsets of those sets counted (``cover_groups.py``), and from them the Omega index
(``omega.py``), extended BCubed (``bcubed.py``) and overlapping NMI (``onmi.py``); the public
functions of covers gathered with the catalogue's kernels of one grouping (``covers.py``).

Imports ``_native``, ``_utils``, ``_labels`` and ``_table`` (labels merged by value).
"""
