"""The exact Gaussian verdict against hand-worked truths: mu = |a - a'| / (b s)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from audit.privacy.claims import parse_claim
from audit.privacy.claims.exact_gaussian import gaussian_claim_verdicts, gaussian_pair_verdict
from audit.protocols import NeighbourPair


class DeclaredGaussian:
    """sum(D) + sigma Z with its density declared (a LocationScaleMechanism)."""

    noise = "gaussian"
    relation = "replace-one"
    name = "declared gaussian"
    claimed_epsilon = 1.0

    def __init__(self, sigma: float) -> None:
        self.sigma = sigma

    def location_scale(self, d):
        return float(np.sum(d)), self.sigma

    def noise_logpdf(self, z):
        return -np.asarray(z) ** 2 / 2 - 0.5 * math.log(2 * math.pi)


PAIRS = [NeighbourPair([0.0, 0.0], [0.0, 1.0], "replace-one"),
         NeighbourPair([0.0, 0.0], [0.0, 0.5], "replace-one")]


@pytest.mark.parametrize("spec, sigma, status", [
    ("gdp:mu=1", 1.0, "holds"), ("gdp:mu=1", 0.9, "violates"),
    ("zcdp:rho=0.5", 1.0, "holds"), ("zcdp:rho=0.5", 0.95, "violates"),
    ("zcdp:rho=0.25", 1.0, "violates"),
    ("rdp:alpha=2:eps=1,alpha=8:eps=4", 1.0, "holds"),
    ("rdp:alpha=8:eps=1", 1.0, "violates"),
    ("approx:eps=1,delta=0.127", 1.0, "holds"),   # delta(1) of mu = 1 is 0.12693...
    ("approx:eps=1,delta=0.1269", 1.0, "violates"),
    ("pure:eps=10", 1.0, "violates"),
])
def test_declared_gaussian_verdicts(spec: str, sigma: float, status: str) -> None:
    assert gaussian_claim_verdicts(parse_claim(spec), DeclaredGaussian(sigma),
                                   PAIRS)["status"] == status


def test_exact_tie_is_decided_by_exact_arithmetic() -> None:
    v = gaussian_pair_verdict(parse_claim("gdp:mu=0.5"), 0.0, 1.0, 2.0)  # mu = 0.5 exactly
    assert v["status"] == "holds" and v["mu_up"] >= 0.5
    v = gaussian_pair_verdict(parse_claim("gdp:mu=0.1"), 0.0, 0.1, 1.0)  # double 0.1 > 1/10
    assert v["status"] == "violates"


def test_balle_wang_delta_by_hand() -> None:
    """delta(1) at mu = 1: Phi(-0.5) - e Phi(-1.5) = 0.308538 - 2.718282 * 0.066807."""
    from scipy.stats import norm

    d = norm.cdf(-0.5) - math.e * norm.cdf(-1.5)
    v = gaussian_pair_verdict(parse_claim("approx:eps=1,delta=0.5"), 0.0, 1.0, 1.0)
    assert v["checks"][0]["value_down"] == pytest.approx(d, rel=1e-12)
