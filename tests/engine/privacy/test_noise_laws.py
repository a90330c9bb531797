"""Noise laws as plug-ins of the exact-loss tester (audit.privacy.noise_laws).

Truths: scipy.stats densities (a different code path from the laws' formulas); the loss
L(y) evaluated at |y| = 1e30 scales at 60 digits for the tail limits; a dense grid of y for
closed-form sup-losses; for a Cauchy law defined here (a law the engine does not own), the
pure-shift closed form sup |L| = 2 asinh(|d| / 2) (|d| = shift / scale).
"""

from __future__ import annotations

import ast
import math
from pathlib import Path
from typing import Any

import mpmath
import numpy as np
import pytest
from scipy import stats

from audit.privacy import exact_loss
from audit.privacy.exact_loss import noise_family, pair_loss
from audit.privacy.mechanisms import LaplaceMechanism
from audit.privacy.noise_laws import LAPLACE, Gaussian, NoiseLaw, noise_law

Z = np.array([-40.0, -3.3, -1.0, -0.2, 0.0, 0.7, 2.0, 9.5])


def _L_mp(law: NoiseLaw, y: Any, a: Any, b: Any, a2: Any, b2: Any) -> Any:
    return (law.logpdf_mp((y - a) / b) - mpmath.log(b)
            - law.logpdf_mp((y - a2) / b2) + mpmath.log(b2))


@pytest.mark.parametrize("law, ref", [
    (LAPLACE, stats.laplace(scale=1.0)),
    (Gaussian(1.7), stats.norm(scale=1.7)),
    (Gaussian(math.sqrt(2.0)), stats.norm(scale=math.sqrt(2.0))),
])
def test_logpdf_float_and_mp_against_scipy(law: NoiseLaw, ref: Any) -> None:
    want = ref.logpdf(Z)
    assert np.allclose(law.logpdf(Z), want, rtol=1e-13, atol=1e-13)
    with mpmath.workdps(40):
        got = [float(law.logpdf_mp(mpmath.mpf(float(z)))) for z in Z]
    assert np.allclose(got, want, rtol=1e-13, atol=1e-13)


@pytest.mark.parametrize("law", [LAPLACE, Gaussian(1.3)])
@pytest.mark.parametrize("a, b, a2, b2", [(0.0, 1.0, 0.5, 1.0), (0.2, 1.0, 0.2, 1.0),
                                          (0.0, 1.0, 0.0, 1.25), (0.0, 1.1, 0.3, 0.9)])
def test_tail_limits_against_far_evaluation(law: NoiseLaw, a: float, b: float, a2: float,
                                            b2: float) -> None:
    with mpmath.workdps(60):
        up, down = law.tail_limits(mpmath.mpf(a), mpmath.mpf(b), mpmath.mpf(a2),
                                   mpmath.mpf(b2))
        for lim, y in ((up, mpmath.mpf(10) ** 30), (down, -mpmath.mpf(10) ** 30)):
            far = _L_mp(law, y, a, b, a2, b2)
            if mpmath.isinf(lim):
                assert abs(far) > 1e20 and mpmath.sign(far) == mpmath.sign(lim)
            else:
                assert abs(far - lim) < 1e-20


@pytest.mark.parametrize("law", [LAPLACE, Gaussian(0.8)])
@pytest.mark.parametrize("a, b, a2, b2", [(0.0, 1.0, 0.7, 1.0), (1.0, 2.0, 1.0, 2.0),
                                          (0.0, 1.0, 0.1, 1.5)])
def test_closed_form_sup_loss_against_dense_grid(law: NoiseLaw, a: float, b: float,
                                                 a2: float, b2: float) -> None:
    got = law.sup_loss(a, b, a2, b2)
    assert got is not None
    y = np.linspace(-60, 60, 240_001)
    L = np.abs(law.logpdf((y - a) / b) - math.log(b) - law.logpdf((y - a2) / b2)
               + math.log(b2))
    if math.isinf(got):
        # grows without bound: the maximum keeps rising from |y| <= 30 to |y| <= 60
        assert L.max() > L[np.abs(y) <= 30].max() + 5.0
    else:
        assert L.max() <= got + 1e-12 and L.max() >= got - 1e-9


def test_matches_rejects_the_wrong_density_and_a_failing_one() -> None:
    assert LAPLACE.matches(lambda z: -math.log(2.0) - np.abs(z))
    assert not LAPLACE.matches(stats.norm(scale=math.sqrt(2)).logpdf)
    assert not Gaussian(1.0).matches(stats.norm(scale=1.0001).logpdf)

    def boom(z: Any) -> Any:
        raise RuntimeError("no")

    assert not LAPLACE.matches(boom) and Gaussian.fit(boom) is None


class Cauchy(NoiseLaw):
    """Standard Cauchy: a law the engine does not own (what a subject would declare)."""

    name = "cauchy-test"

    def logpdf(self, z: np.ndarray) -> np.ndarray:
        return -math.log(math.pi) - np.log1p(np.asarray(z) ** 2)

    def logpdf_mp(self, z: Any) -> Any:
        return -mpmath.log(mpmath.pi) - mpmath.log1p(mpmath.mpf(z) ** 2)

    def tail_limits(self, a: Any, b: Any, a2: Any, b2: Any) -> tuple[Any, Any]:
        v = mpmath.log(b / b2)  # log(1 + z'^2) - log(1 + z^2) -> 2 log(b/b'), + log(b'/b)
        return v, v


class CauchyShift:
    """y = f(D) + Z, Z standard Cauchy, declared through ``noise_law``."""

    name = "cauchy-shift"
    claimed_epsilon = 1.0
    relation = "replace-one"

    def __init__(self, law: NoiseLaw | None = None) -> None:
        self.noise_law = law or Cauchy()

    def location_scale(self, dataset: Any) -> tuple[float, float]:
        return float(np.sum(dataset)), 1.0

    def noise_logpdf(self, z: np.ndarray) -> np.ndarray:
        return np.asarray(stats.cauchy.logpdf(z))

    def noise_logpdf_mp(self, z: Any) -> Any:
        return Cauchy().logpdf_mp(z)


@pytest.mark.parametrize("d", [0.3, 1.0, 4.0])
def test_a_declared_law_of_a_subject_drives_the_exact_tester(d: float) -> None:
    m = CauchyShift()
    assert noise_family(m) == ("cauchy-test", None)
    r = pair_loss(m, 0.0, 1.0, d, 1.0, grid=801)
    want = 2 * math.asinh(d / 2)
    assert r.family == "cauchy-test" and r.certified
    assert r.value_down <= want <= r.epsilon_up and r.epsilon_up == pytest.approx(want, rel=1e-12)
    assert r.analytic_check is None  # the law sets no cross_check


def test_a_declared_law_that_does_not_match_the_density_is_not_trusted() -> None:
    m = CauchyShift(law=LAPLACE)
    assert noise_law(m) is None and noise_family(m) == ("unknown", None)
    assert not pair_loss(m, 0.0, 1.0, 1.0, 1.0, grid=401).certified


def test_engine_names_map_to_engine_laws() -> None:
    assert noise_law(LaplaceMechanism(1.0)) is LAPLACE
    g = noise_law(LaplaceMechanism(1.0, noise="gaussian"))
    assert isinstance(g, Gaussian) and g.sigma == pytest.approx(math.sqrt(2.0), rel=1e-14)

    class Named:
        noise = "no-such-law"

        def noise_logpdf(self, z: Any) -> Any:
            return -math.log(2.0) - np.abs(z)

    assert noise_law(Named()) is None


def test_exact_loss_names_no_law() -> None:
    """The tester dispatches through the protocol: no law's name in its code."""
    tree = ast.parse(Path(exact_loss.__file__).read_text(encoding="utf-8"))
    names = {"laplace", "gaussian", "powerlaw", "cauchy-test"}
    hits = [n.value for n in ast.walk(tree)
            if isinstance(n, ast.Constant) and isinstance(n.value, str)
            and n.value.strip().lower() in names]
    assert hits == []
