"""Reach and power in words (audit/privacy/reach.py), output atoms / point masses
(audit/privacy/output_atoms.py), the randomness probe (audit/privacy/randomness_probe.py).

Truths: scipy's Beta quantiles for the exact Clopper-Pearson bounds (an independent
implementation: the lower bound for k = n is Beta(n, 1).ppf(alpha), the upper bound for k = 0
is Beta(1, n).ppf(1 - alpha)); hand-made output arrays; mechanisms whose randomness source is
known by construction.
"""

from __future__ import annotations

import math
import random
import secrets

import numpy as np
import pytest
from scipy import stats

from audit.privacy.output_atoms import atoms, point_mass, point_mass_sentence
from audit.privacy.randomness_probe import probe_randomness
from audit.privacy.reach import power_words, reach


@pytest.mark.parametrize("n,alpha", [(10, 0.05), (1000, 0.01), (500_000, 0.025)])
def test_reach_matches_beta_quantiles(n, alpha):
    lo = stats.beta.ppf(alpha, n, 1)
    hi = stats.beta.ppf(1 - alpha, 1, n)
    assert reach(n, alpha) == pytest.approx(math.log(lo / hi), rel=1e-9)


def test_epsilon_20_with_5e5_samples_is_said_to_be_above_reach():
    r = reach(500_000, 0.05)
    assert 11.5 < r < 12.5  # ln(5e5 / ln 20) = 12.02
    text = power_words(claimed=20.0, n=500_000, alpha=0.05, counts=None, detectable=None)
    assert "ABOVE this run's reach" in text and "12" in text
    ok = power_words(claimed=1.0, n=500_000, alpha=0.05,
                     counts={"first": 250, "second": 100, "n": 500_000}, detectable=1.4)
    assert "ABOVE" not in ok and "P(D) = 0.0005" in ok and ">= 1.4" in ok
    rare = power_words(claimed=1.0, n=1000, alpha=0.05,
                       counts={"first": 0, "second": 0, "n": 1000}, detectable=math.inf)
    assert "too rare" in rare


def test_point_mass_named():
    noisy = np.random.default_rng(0).laplace(size=100)
    assert point_mass(noisy) is None
    assert point_mass(np.full(50, 3.5)) == 3.5
    s = point_mass_sentence(noisy, np.full(50, 3.5))
    assert s == "under D' the output is a point mass at 3.5: zero noise"
    assert point_mass_sentence(noisy, noisy) is None
    assert atoms(np.array([1.0, 2.0, 2.0, 2.0, 5.0, 5.0, 5.0, 5.0])) == [(5.0, 4), (2.0, 3)]
    assert point_mass(np.array([[1.0, 2.0], [1.0, 2.0]])) == [1.0, 2.0]


def test_randomness_probe_by_construction():
    assert probe_randomness(lambda d: sum(d) + np.random.laplace(), [1.0]) == "global"  # noqa: NPY002
    assert probe_randomness(lambda d: sum(d) + random.gauss(0, 1), [1.0]) == "global"
    assert probe_randomness(lambda d: sum(d) + secrets.randbits(30) / 2**30, [1.0]) == "none"
    assert probe_randomness(lambda d: sum(d), [1.0]) == "constant"
    state = np.random.get_state()[1][:4].tolist()  # noqa: NPY002
    probe_randomness(lambda d: np.random.random(), [0.0])  # noqa: NPY002
    assert np.random.get_state()[1][:4].tolist() == state  # noqa: NPY002 - restored
