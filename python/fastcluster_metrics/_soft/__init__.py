"""Soft and overlapping labelings: memberships and covers read and checked at the edge
(``memberships.py``); the Frobenius Rand and adjusted Rand indices of two membership matrices
from their k x k sums, and those sums added up chunk by chunk (``frobenius.py``); the Omega
index, overlapping NMI and extended BCubed of two covers from their distinct groups of samples
(``covers.py``).

Imports ``_native``, ``_utils``, ``_labels`` and ``_table`` (labels merged by value).
"""
