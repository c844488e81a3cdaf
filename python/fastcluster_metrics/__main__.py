"""``python -m fastcluster_metrics``: the command line, as ``fastcluster-metrics``; with no
arguments, the built-in example (``_cli/demo.py``)."""

import sys

from fastcluster_metrics._cli.main import main

if __name__ == "__main__":
    sys.exit(main())
