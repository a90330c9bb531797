"""Test configuration.

* Test helpers are imported as the package ``tests`` (``tests.common``): pytest puts the
  repository root on the path (``pythonpath`` in pyproject.toml); no test edits sys.path.
* Hypothesis runs derandomized (a fixed seed derived from each test), so the default test
  run — and CI — is reproducible; set DPAUDIT_HYPOTHESIS_RANDOM=1 to explore with fresh
  random seeds instead.
* BLAS runs one thread per process (``OPENBLAS_NUM_THREADS`` / ``OMP_NUM_THREADS`` /
  ``MKL_NUM_THREADS`` = 1 unless set): the run already spreads over every core
  (``-n logical``), and OpenBLAS's spinning threads on top only contend (measured on the
  busy 2-core machine: a 40,000 x 180 least squares 10.4 CPU s vs 0.48 s on one thread;
  the Freegap tester's step twice the CPU, same results bit for bit).  Set before any
  xdist worker or CLI subprocess starts, so they inherit it.
"""

import os

import pytest
from hypothesis import settings

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")  # before any worker process imports numpy

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
