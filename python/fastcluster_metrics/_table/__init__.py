"""The contingency table: two labelings' codes counted by the core in one pass, the one
prepare step of every call (``count.py``); tables of real-valued weights (``weighted.py``);
tables given by the user, checked (``given.py``); tables merged by label value (``merge.py``).

Imports ``_native``, ``_utils`` and ``_labels``.
"""
