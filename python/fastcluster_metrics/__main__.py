"""``python -m fastcluster_metrics``: the command line, as ``fastcluster-metrics``; with no
arguments, the built-in example (``_demo``)."""

import sys

from fastcluster_metrics._cli import main

if __name__ == "__main__":
    sys.exit(main())
