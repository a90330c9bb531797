"""python-dp adapter (audit/extra/pydp.py): PyDP's BoundedSum as a black-box mechanism.

PyDP draws from its own secure RNG: runs are not reproducible, so only a high-power check
runs by default: BoundedSum built with epsilon = 1 but audited against a claim of 0.1 (true
epsilon 10x the claim) must be flagged; with 20,000 outputs per data set and confidence 0.9
the miss rate is negligible: for D = [1], D' = [] and Laplace scale 1 the event
"output > 0.5" has probabilities 1 - e^-0.5 / 2 = 0.697 and e^-0.5 / 2 = 0.303, log-ratio
0.83, and 20,000 draws pin each probability to about +-0.01, so the certified bound is
near 0.7, far above the claim 0.1.  Needs the
``pydp`` extra, else skipped with the reason.
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("pydp", reason="python-dp not installed: pip install 'dpaudit[pydp]'")

from audit import test_mechanism  # noqa: E402
from audit.extra.pydp import algorithm_mechanism  # noqa: E402


def test_algorithm_mechanism_shape():
    m = algorithm_mechanism("BoundedSum", epsilon=1.0, lower_bound=0.0, upper_bound=1.0,
                            dtype="float")
    y = m(np.array([0.5, 0.25]))
    assert isinstance(y, float) and m.epsilon == 1.0 and m.relation == "add-remove"
    assert y != m(np.array([0.5, 0.25]))  # noisy, fresh randomness each call


def test_understated_claim_is_flagged():
    m = algorithm_mechanism("BoundedSum", epsilon=1.0, lower_bound=0.0, upper_bound=1.0,
                            dtype="float")
    r = test_mechanism(m, epsilon=0.1, lower=0.0, upper=1.0, relation="add-remove",
                       float_bits=False, n_select=20_000, n_certify=20_000, seed=3)
    assert r.outcome == "flagged"
