"""Hypothesis profiles and the import path of the test helpers.

Profiles, chosen with the environment variable HYPOTHESIS_PROFILE:

* ``ci`` (default): 60 examples a test, no deadline (timings on shared CI machines vary);
* ``slow``: 2000 examples a test, for deep runs by hand.
"""

import os
import sys
from pathlib import Path

from hypothesis import HealthCheck, settings

# `import reference` and `import helpers` from the test modules, whatever pytest's import mode.
sys.path.insert(0, str(Path(__file__).parent))

settings.register_profile(
    "ci",
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile(
    "slow",
    max_examples=2000,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
