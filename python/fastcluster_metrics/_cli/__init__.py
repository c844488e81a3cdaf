"""The command line (``fastcluster-metrics``, ``python -m fastcluster_metrics``): its arguments
and entry point (``main.py``), which columns of which files it reads and counts (``plan.py``),
what it prints and draws (``render.py``), the scores of each row it writes
(``per_sample.py``), what it shares with the built-in example (``console.py``), and that
example (``demo.py``).

Imports anything of the package; nothing imports it but ``__main__``.
"""
