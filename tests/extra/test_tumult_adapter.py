"""Tumult Core adapter (audit/extra/tumult.py): the claim read from the measurement, the
measurement run by the black-box tester.

Truths: the Laplace mechanism with scale b on an aggregate of sensitivity d is
(d / b)-DP (Dwork, McSherry, Nissim & Smith 2006, Prop. 1), so Tumult's own
``privacy_function`` must give 0.5 for b = 2, d = 1 and 1.5 for d = 3; ``NoisyQuantile``
built with epsilon = 1 states 1 under ``SymmetricDifference`` (add/remove one record).
Black-box runs are seeded (Tumult's generator seeded by dpaudit: reproducible); a correct
mechanism is flagged with probability <= 0.1 (the tester's confidence); the broken twin
(a sum clamped to [0, 3] declared with sensitivity 1: true epsilon 3x the claim) is
flagged.  Needs the ``tumult`` extra (tmlt.core), else skipped with the reason.
"""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("tmlt.core", reason="tmlt.core not installed: pip install "
                    "'dpaudit[tumult]' (it pins numpy < 2 and pyspark: use its own venv)")

from tmlt.core.domains.numpy_domains import NumpyFloatDomain  # noqa: E402
from tmlt.core.domains.pandas_domains import PandasSeriesDomain  # noqa: E402
from tmlt.core.measurements.noise_mechanisms import AddLaplaceNoise  # noqa: E402
from tmlt.core.measurements.pandas_measurements.series import NoisyQuantile  # noqa: E402
from tmlt.core.measures import PureDP  # noqa: E402

from audit import test_mechanism  # noqa: E402
from audit.extra.tumult import measurement_mechanism  # noqa: E402
from audit.findings import Verdict  # noqa: E402

SMALL = {"n_select": 2000, "n_certify": 2000, "first_batch": 1000, "max_pairs": 4, "seed": 0,
         "float_bits": False}


def _clamped_sum(hi):
    return lambda x: float(np.sum(np.clip(x, 0.0, hi)))


def test_claim_read_from_privacy_function():
    lap = AddLaplaceNoise(NumpyFloatDomain(), scale=2)
    m1 = measurement_mechanism(lap, query=_clamped_sum(1.0), d_in=1, relation="add-remove")
    m3 = measurement_mechanism(lap, query=_clamped_sum(3.0), d_in=3, relation="add-remove")
    assert (m1.epsilon, m3.epsilon) == (0.5, 1.5)
    q = measurement_mechanism(NoisyQuantile(PandasSeriesDomain(NumpyFloatDomain()),
                                            output_measure=PureDP(), quantile=0.5,
                                            lower=0.0, upper=1.0, epsilon=1))
    assert (q.epsilon, q.relation) == (1.0, "add-remove")
    # the quantile's public bounds are its data domain; a measurement on a number has none
    assert (q.lower, q.upper) == (0.0, 1.0) and not hasattr(m1, "lower")
    with pytest.raises(ValueError, match="query"):
        measurement_mechanism(lap)


def test_seeded_runs_are_reproducible():
    m = measurement_mechanism(AddLaplaceNoise(NumpyFloatDomain(), scale=1),
                              query=_clamped_sum(1.0), d_in=1, relation="add-remove")
    x = np.array([0.5, 0.25])
    assert m(x, 7) == m(x, 7) and m(x, 7) != m(x, 8)


def test_quantile_not_refuted_and_understated_sensitivity_flagged():
    q = measurement_mechanism(NoisyQuantile(PandasSeriesDomain(NumpyFloatDomain()),
                                            output_measure=PureDP(), quantile=0.5,
                                            lower=0.0, upper=1.0, epsilon=1))
    with pytest.raises(ValueError, match="upper"):  # a flag contradicting the library
        test_mechanism(q, lower=0.0, upper=2.0, **SMALL)
    r = test_mechanism(q, **SMALL)  # the bounds are read from the measurement
    assert {"lower", "upper"} <= set(r.parameters["read_from_library"])
    bb = {f.id: f for f in r.findings}
    assert bb["user.blackbox"].verdict is Verdict.NOT_REFUTED
    assert r.parameters["reproducible"] is True
    bad = measurement_mechanism(AddLaplaceNoise(NumpyFloatDomain(), scale=1),
                                query=_clamped_sum(3.0), d_in=1, relation="add-remove")
    r = test_mechanism(bad, lower=0.0, upper=3.0, **SMALL)
    assert {f.id: f for f in r.findings}["user.blackbox"].verdict is Verdict.REFUTED


def _gauss_sum(sigma_squared):
    from tmlt.core.measurements.noise_mechanisms import AddGaussianNoise

    m = AddGaussianNoise(NumpyFloatDomain(), sigma_squared=sigma_squared)
    return measurement_mechanism(m, query=_clamped_sum(1.0), d_in=1, relation="replace-one")


@pytest.mark.slow
def test_zcdp_gaussian_audited_with_the_claim_tumult_states():
    """Tumult's AddGaussianNoise (sigma^2 = 1) states rho = 1/2 through privacy_function
    (RhoZCDP), read without hand translation.  The event tester (5,000 selection + 20,000
    certification outputs per data set) and the Gaussian family tester (the same sizes) at
    90 %: the correct measurement is not flagged (false alarm <= 10 % per run), the one with
    sigma halved (true rho = 2) against the same claim is flagged.  Seeded: Tumult's
    generator is seeded by dpaudit.  About 1 min in the tumult venv (0.24 ms per call)."""
    from audit.privacy.blackbox.settings import TesterSettings
    from audit.privacy.claims import ZCDP
    from audit.privacy.claims.certify import certify_claim
    from audit.privacy.claims.gaussian_findings import run_under_family
    from audit.privacy.user_mechanism import wrap_mechanism
    from audit.protocols import NeighbourPair

    right, half = _gauss_sum(1), _gauss_sum("1/4")
    assert isinstance(right.claim, ZCDP) and right.claim.rho == 0.5
    pairs = [NeighbourPair(np.array([0.0]), np.array([1.0]), "replace-one")]
    t = TesterSettings(n_select=5_000, n_certify=20_000, chunk_size=20_000)
    for m, flagged in ((right, False), (half, True)):
        w = wrap_mechanism(m, epsilon=1.0, relation="replace-one")
        r = certify_claim(right.claim, w, pairs, np.random.default_rng(0), t)
        assert r.refuted is flagged, r.verdict
        f = run_under_family(right.claim, w, pairs, np.random.default_rng(1), 5_000,
                             20_000, 0.1, chunk_size=20_000)
        assert not f.gof["rejected"] and f.refuted is flagged, (f.fit, f.gof["reasons"])
