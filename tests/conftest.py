"""Hypothesis profiles and the import path of the test helpers.

Profiles, chosen with the environment variable HYPOTHESIS_PROFILE:

* ``ci`` (default): 60 examples a test, no deadline (timings on shared CI machines vary);
* ``slow``: 2000 examples a test, for deep runs by hand.
"""

import os
import sys
import warnings
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

# When a hypothesis test fails, its pytest plugin imports hypothesis.extra._patching (and libcst,
# where installed) to suggest a patch; under filterwarnings = error a DeprecationWarning raised by
# that import turns the failure report into an INTERNALERROR. Import it once here, quietly.
with warnings.catch_warnings():
    warnings.simplefilter("ignore")
    try:
        import hypothesis.extra._patching  # noqa: F401
    except ImportError:
        pass
