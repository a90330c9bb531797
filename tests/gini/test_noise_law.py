"""Density (10) of Lan & Reiter (2025) as a noise law (proofs.gini.noise_law.PowerLaw).

Truths: the exact reference density (proofs.gini.reference.powerlaw_pdf, mpmath, checked at
two precisions); the loss L(y) at |y| = 1e30 scales (60 digits) for the tail limits; a dense
grid of y for the semi-analytic sup-loss; the Cauchy pure-shift closed form
2 asinh(|d| / 2) for gamma = 2.
"""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest

from audit.privacy.exact_loss import noise_family, pair_loss
from audit.privacy.noise_laws import LAPLACE
from kernels.gini.noise import powerlaw_logpdf
from proofs.gini import reference
from proofs.gini.mechanisms import GiniRelease
from proofs.gini.noise_law import PowerLaw

Z = [-25.0, -2.5, -1.0, 0.0, 0.3, 1.7, 8.0]


@pytest.mark.parametrize("gamma", [1.5, 2.0, 3.0, 4.5])
def test_logpdf_float_and_mp_against_the_exact_reference(gamma: float) -> None:
    law = PowerLaw(gamma)
    want = np.array([float(mpmath.log(reference.powerlaw_pdf(z, gamma))) for z in Z])
    assert np.allclose(law.logpdf(np.array(Z)), want, rtol=1e-13, atol=1e-13)
    with mpmath.workdps(50):
        got = [law.logpdf_mp(mpmath.mpf(z)) for z in Z]
        ref = [mpmath.log(reference.powerlaw_pdf(z, gamma)) for z in Z]
        assert all(abs(g - r) < mpmath.mpf(10) ** -40 for g, r in zip(got, ref, strict=True))
    assert law.matches(lambda z: powerlaw_logpdf(z, gamma))  # the kernel agrees
    assert not law.matches(lambda z: powerlaw_logpdf(z, gamma + 0.01))


@pytest.mark.parametrize("gamma", [2.0, 3.0])
@pytest.mark.parametrize("a, b, a2, b2", [(0.0, 1.0, 0.4, 1.0), (0.0, 1.0, 0.0, 1.3),
                                          (0.1, 0.7, -0.2, 0.5)])
def test_tail_limits_against_far_evaluation(gamma: float, a: float, b: float, a2: float,
                                            b2: float) -> None:
    law = PowerLaw(gamma)
    with mpmath.workdps(60):
        up, down = law.tail_limits(mpmath.mpf(a), mpmath.mpf(b), mpmath.mpf(a2),
                                   mpmath.mpf(b2))
        for lim, y in ((up, mpmath.mpf(10) ** 30), (down, -mpmath.mpf(10) ** 30)):
            far = (law.logpdf_mp((y - a) / b) - mpmath.log(b)
                   - law.logpdf_mp((y - a2) / b2) + mpmath.log(b2))
            assert abs(far - lim) < 1e-20


@pytest.mark.parametrize("a, b, a2, b2", [(0.0, 1.0, 0.8, 1.0), (0.0, 1.0, 0.3, 1.2),
                                          (0.5, 2.0, 0.0, 1.5)])
def test_sup_loss_against_dense_grid(a: float, b: float, a2: float, b2: float) -> None:
    law = PowerLaw(2.5)
    got = law.sup_loss(a, b, a2, b2)
    assert got is not None
    y = np.concatenate([np.linspace(-50, 50, 400_001), np.geomspace(50, 1e9, 2000),
                        -np.geomspace(50, 1e9, 2000)])
    L = np.abs(law.logpdf((y - a) / b) - math.log(b) - law.logpdf((y - a2) / b2)
               + math.log(b2))
    assert L.max() <= got + 1e-9 and L.max() >= got - 1e-6


def test_the_gini_release_declares_its_law_and_the_tester_uses_it() -> None:
    m = GiniRelease(0.0, 1.0, 1.0)
    assert isinstance(m.noise_law, PowerLaw) and m.noise_law.gamma == 2.0
    assert noise_family(m) == ("powerlaw", 2.0)
    assert GiniRelease(0.0, 1.0, 1.0, variant="laplace-noise").noise_law is LAPLACE
    d = 0.6
    r = pair_loss(m, 0.0, 1.0, d, 1.0, grid=801)
    want = 2 * math.asinh(d / 2)  # gamma = 2 is the Cauchy density
    assert r.family == "powerlaw" and r.certified
    assert r.value_down <= want <= r.epsilon_up and r.analytic_check == pytest.approx(want)
