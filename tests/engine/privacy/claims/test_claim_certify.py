"""The claim tester on mechanisms of known truth (Gaussian mu = Delta / sigma, Laplace
eps = Delta / b): correct claims not refuted, broken twins refuted, certified parameters
below the truth.

Seeded runs, 2 x 10^4 selection + 10^5 certification outputs per data set (GDP tightness:
4 x 10^5).  Error rates: a correct claim is refuted with probability <= 1 - confidence =
10 % per run by the Clopper-Pearson/Bonferroni guarantee (measured: 1 of 40 seeds for
gdp:mu=1, 0 of 40 for zcdp:rho=0.5 at these sizes; the Gaussian's threshold events lie
exactly on G_1, so a GDP false alarm is a real ~alpha event), so "at most 2 of 10 seeds"
fails for a correct tester with probability <= 7 % (binomial tail) — fixed seeds make it
deterministic; the broken twins (sigma 30 % too small, Laplace at twice the claimed
epsilon, zCDP off by 2, RDP at the wrong order) must be refuted at >= 9 of 10 seeds."""

from __future__ import annotations

import numpy as np
import pytest

from audit.privacy.blackbox.settings import TesterSettings as Settings
from audit.privacy.claims import parse_claim
from audit.privacy.claims.certify import certify_claim as run_claim_test
from audit.privacy.claims.references import ShiftedNoise
from audit.protocols import NeighbourPair

PAIRS = [NeighbourPair([0.0], [1.0], "replace-one")]
T = Settings(n_select=20_000, n_certify=100_000, chunk_size=100_000)
T_BIG = Settings(n_select=100_000, n_certify=400_000, chunk_size=400_000)
SEEDS = range(10)


def _run(spec: str, mech: ShiftedNoise, seed: int, t: Settings = T):
    return run_claim_test(parse_claim(spec), mech, PAIRS, np.random.default_rng(seed), t)


def _refuted(spec: str, mech: ShiftedNoise) -> int:
    return sum(_run(spec, mech, seed).refuted for seed in SEEDS)


@pytest.mark.parametrize("spec", ["gdp:mu=1", "zcdp:rho=0.5",
                                  "rdp:alpha=2:eps=1,alpha=8:eps=4"])
def test_correct_gaussian_claims_are_not_refuted_and_bounds_stay_below_truth(spec) -> None:
    truth = {"mu": 1.0, "rho": 0.5, "eps@alpha=2": 1.0, "eps@alpha=8": 4.0}
    above = refuted = 0
    for seed in SEEDS:
        r = _run(spec, ShiftedNoise("gaussian", 1.0), seed)
        refuted += r.refuted
        above += any(v > truth[k] for k, v in r.verdict.strongest.items())
    assert refuted <= 2 and above <= 2, (spec, refuted, above)


def test_gdp_bound_is_tight_on_the_correct_mechanism() -> None:
    """At 4e5 certification outputs the certified mu is >= 0.9 (true 1) at seeds 0-2."""
    for seed in range(3):
        assert _run("gdp:mu=1", ShiftedNoise("gaussian", 1.0), seed,
                    T_BIG).verdict.strongest["mu"] >= 0.9


@pytest.mark.parametrize("spec", ["gdp:mu=1", "zcdp:rho=0.5",
                                  "rdp:alpha=2:eps=1,alpha=8:eps=4",
                                  "approx:eps=2,delta=1e-3"])
def test_broken_twin_sigma_30_percent_small_is_refuted(spec) -> None:
    """sigma = 0.7: mu = 1.43, rho = 1.02, RDP alpha mu^2 / 2 = 2.04 at alpha 2."""
    assert _refuted(spec, ShiftedNoise("gaussian", 0.7)) >= 9


def test_wrong_order_rdp_claim_is_refuted() -> None:
    """The Gaussian mechanism's alpha = 2 value (1.0) claimed at alpha = 8 (true 4)."""
    assert _refuted("rdp:alpha=8:eps=1", ShiftedNoise("gaussian", 1.0)) >= 9


def test_zcdp_claim_off_by_two_is_refuted() -> None:
    assert _refuted("zcdp:rho=0.25", ShiftedNoise("gaussian", 1.0)) >= 9


def test_laplace_pure_claims() -> None:
    lap = ShiftedNoise("laplace", 1.0)  # eps = 1 exactly
    assert _refuted("pure:eps=1", lap) <= 2
    assert _refuted("pure:eps=0.5", lap) >= 9


def test_explicit_fdp_curve_of_the_true_mechanism_is_not_refuted() -> None:
    """The pure eps-DP curve as an explicit f-DP claim, three points (0, 1),
    (1 / (e^eps + 1), 1 / (e^eps + 1)), (1, 0) (exactly piecewise linear): Laplace with
    eps = 1 satisfies it at eps = 1 and violates it at eps = 0.5."""
    import math

    def spec(eps: float) -> str:
        v = 1.0 / (math.exp(eps) + 1.0)
        return f"fdp:0:1,{v!r}:{math.nextafter(v, 0.0)!r},1:0"

    assert _refuted(spec(1.0), ShiftedNoise("laplace", 1.0)) <= 2
    assert _refuted(spec(0.5), ShiftedNoise("laplace", 1.0)) >= 9
