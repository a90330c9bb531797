"""Test configuration.

* Test helpers are imported as the package ``tests`` (``tests.common``): pytest puts the
  repository root on the path (``pythonpath`` in pyproject.toml); no test edits sys.path.
* Hypothesis runs derandomized (a fixed seed derived from each test), so the default test
  run — and CI — is reproducible; set DPAUDIT_HYPOTHESIS_RANDOM=1 to explore with fresh
  random seeds instead.
* BLAS runs single-threaded (``OPENBLAS_NUM_THREADS`` / ``OMP_NUM_THREADS`` = 1 unless set):
  the test run already spreads over every core (``-n logical``), and OpenBLAS threads on top
  of that only contend (measured on 2 cores: the Freegap tester's least-squares step took
  twice the CPU time with the default thread count, same results bit for bit).  Set here,
  before numpy loads, so xdist workers and CLI subprocesses inherit it.
"""

import os

import pytest
from hypothesis import settings

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

settings.register_profile("dpaudit-ci", derandomize=True, deadline=None, database=None)
settings.register_profile("dpaudit-explore", deadline=None)
settings.load_profile(
    "dpaudit-explore" if os.environ.get("DPAUDIT_HYPOTHESIS_RANDOM") else "dpaudit-ci"
)


@pytest.fixture
def toy_subject():
    """The toy subject of tests/common/toy_subject/ registered for one test."""
    from tests.common.toy import installed_toy

    with installed_toy() as subject:
        yield subject
