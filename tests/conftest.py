"""Test configuration.

* Makes the test-only exact oracles importable as ``exact``.
* Hypothesis runs derandomized (a fixed seed derived from each test), so the default test
  run — and CI — is reproducible; set DPAUDIT_HYPOTHESIS_RANDOM=1 to explore with fresh
  random seeds instead.
"""

import os
import sys
from pathlib import Path

from hypothesis import settings

sys.path.insert(0, str(Path(__file__).parent))

settings.register_profile("dpaudit-ci", derandomize=True, deadline=None, database=None)
settings.register_profile("dpaudit-explore", deadline=None)
settings.load_profile(
    "dpaudit-explore" if os.environ.get("DPAUDIT_HYPOTHESIS_RANDOM") else "dpaudit-ci"
)
