"""Where labels become the integer codes the core counts: NumPy arrays, lists, pandas
Categoricals, masked and nullable columns, strings and missing labels (``codes.py``); Arrow and
polars columns through their buffers (``arrow.py``); sample and class weights checked at the
edge (``weights.py``).

Imports ``_native`` and ``_utils`` only.
"""
