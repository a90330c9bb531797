"""Adapters read the claim from the library: OpenDP's output measure and map, Tumult's
privacy_function, diffprivlib's (epsilon, delta); on the current OpenDP zCDP Gaussian the
claim tester does not flag the correct measurement and flags one with sigma halved that
keeps the original claim (slow: OpenDP draws one output per call, ~1 ms each here)."""

from __future__ import annotations

import numpy as np
import pytest

from audit.privacy.claims import ZCDP, ApproxDP, PureDP


def _opendp():
    dp = pytest.importorskip("opendp.prelude", reason="opendp (libraries extra) missing")
    dp.enable_features("contrib")
    return dp


def _gaussian(dp, scale: float):
    space = dp.vector_domain(dp.atom_domain(bounds=(0.0, 1.0))), dp.symmetric_distance()
    return space >> dp.t.then_sum() >> dp.m.then_gaussian(scale=scale)


def test_opendp_claims_are_read_from_the_measure_and_map() -> None:
    from audit.extra.opendp import measurement_claim, measurement_mechanism

    dp = _opendp()
    g = _gaussian(dp, 1.0)
    c = measurement_claim(g, 1)
    assert isinstance(c, ZCDP) and c.rho == float(g.map(1)) and 0.5 <= c.rho < 0.5001
    space = dp.vector_domain(dp.atom_domain(bounds=(0.0, 1.0))), dp.symmetric_distance()
    lap = space >> dp.t.then_sum() >> dp.m.then_laplace(scale=2.0)
    c = measurement_claim(lap, 1)
    assert isinstance(c, PureDP) and c.eps == float(lap.map(1))
    approx = dp.c.make_fix_delta(dp.c.make_zCDP_to_approxDP(g), 1e-6)
    c = measurement_claim(approx, 1)
    assert isinstance(c, ApproxDP) and (c.eps, c.delta) == tuple(approx.map(1))
    m = measurement_mechanism(g)
    assert m.claim.spec() == ZCDP(float(g.map(1))).spec() and m.epsilon is None
    assert m.relation == "add-remove"


def test_diffprivlib_claim() -> None:
    pytest.importorskip("diffprivlib", reason="diffprivlib (libraries extra) missing")
    import diffprivlib.tools as tools

    from audit.extra.diffprivlib import tool_mechanism

    m = tool_mechanism(tools.mean, epsilon=0.5, bounds=(0, 1))
    assert isinstance(m.claim, PureDP) and m.claim.eps == 0.5


def test_tumult_claim() -> None:
    pytest.importorskip("tmlt.core", reason="Tumult Core cannot share this environment "
                        "(its pinned numpy/scipy versions conflict with the libraries extra)")
    from tmlt.core.measurements.noise_mechanisms import AddGeometricNoise

    from audit.extra.tumult import measurement_claim

    c = measurement_claim(AddGeometricNoise(alpha=2), 1)
    assert isinstance(c, PureDP) and c.eps == 0.5


@pytest.mark.slow
def test_opendp_zcdp_gaussian_audited_with_its_own_claim() -> None:
    """Seeded tester (OpenDP's own noise is from its CSPRNG: not reproducible); 5,000
    selection + 20,000 certification outputs per data set; sigma halved (true rho = 2,
    claimed 0.5) is flagged, the correct measurement is not (false alarm <= 10 % per run
    by the guarantee)."""
    from audit.extra.opendp import measurement_mechanism
    from audit.privacy.blackbox.settings import TesterSettings as Settings
    from audit.privacy.claims.certify import certify_claim
    from audit.privacy.user_mechanism import wrap_mechanism
    from audit.protocols import ADD_REMOVE_ONE, NeighbourPair

    dp = _opendp()
    right = measurement_mechanism(_gaussian(dp, 1.0))
    half = measurement_mechanism(_gaussian(dp, 0.5))
    pairs = [NeighbourPair(np.array([0.5, 0.5]), np.array([0.5, 0.5, 1.0]), ADD_REMOVE_ONE)]
    t = Settings(n_select=5_000, n_certify=20_000, chunk_size=20_000)
    for m, flagged in ((right, False), (half, True)):
        w = wrap_mechanism(m, epsilon=1.0, relation=ADD_REMOVE_ONE)
        r = certify_claim(right.claim, w, pairs, np.random.default_rng(0), t)
        assert r.refuted is flagged, r.verdict
