"""The engine's samplers draw from the laws they declare (issue 39, "numerics of the
samplers"): ``engine.sampler-fit`` in ``dpaudit calibrate`` and ``dpaudit regress``.

Truths: the Kolmogorov distance is compared with scipy's one-sample KS statistic
(continuous law) and with a brute force over every point (discrete law); the declared cdfs
with scipy.stats' laws.  The check is seeded: false-alarm probability <= 1e-6 per sampler
(DKW-Massart); it passes the shipped samplers (seed 0) and refutes each of four broken
samplers (a maintainer's slips: sd b instead of b sqrt 2, one-sided noise, the geometric's
parameter swapped, the discrete Gaussian's proposal shifted by one).
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest
from scipy import stats

from audit.findings import Verdict
from audit.privacy import sampler_fit as SF


def _by_name() -> dict[str, SF.Sampler]:
    return {s.name: s for s in SF.samplers()}


def test_distance_matches_scipy_ks_for_a_continuous_law() -> None:
    s = _by_name()["ShiftedNoise(laplace, 1)"]
    x = np.random.default_rng(5).laplace(0.0, 1.2, 3000)
    assert SF.kolmogorov_distance(x, s) == pytest.approx(
        stats.kstest(x, stats.laplace(0.0, 1.0).cdf).statistic, abs=1e-12)


def test_distance_matches_brute_force_for_a_discrete_law() -> None:
    s = _by_name()["GeometricMechanism(0.5)"]
    x = np.random.default_rng(6).integers(-3, 4, 500).astype(float)
    pts = np.arange(-60.0, 61.0)
    probes = np.concatenate([pts, pts + 0.5, pts - 1e-9])
    brute = max(abs(np.mean(x <= u) - float(s.cdf(np.array([u]))[0])) for u in probes)
    assert SF.kolmogorov_distance(x, s) == pytest.approx(brute, abs=1e-12)


def test_declared_laws_match_scipy() -> None:
    by = _by_name()
    z = np.linspace(-6.0, 6.0, 49)
    assert np.allclose(by["ShiftedNoise(gaussian, 1)"].cdf(z), stats.norm.cdf(z), atol=1e-15)
    assert np.allclose(by["LaplaceMechanism(gaussian)"].cdf(0.7 + z),
                       stats.norm(0.7, math.sqrt(2.0)).cdf(0.7 + z), atol=1e-15)
    q = math.exp(-0.5)
    k = np.arange(-5.0, 6.0)
    geo = by["GeometricMechanism(0.5)"].cdf(k)
    exact = np.cumsum((1 - q) / (1 + q) * q ** np.abs(np.arange(-400, 6)))[-11:]
    assert np.allclose(geo, exact, atol=1e-14)


def test_shipped_samplers_pass_and_the_twin_is_refuted() -> None:
    f = SF.check_sampler_fit(seed=0)
    assert f.id == "engine.sampler-fit"
    assert f.verdict is Verdict.NOT_REFUTED, f.evidence
    assert len(f.evidence["samplers"]) == 6
    assert f.evidence["twin"]["outcome"] == "refuted"


def _broken(name: str) -> SF.Sampler:
    s = _by_name()[name]

    def draw(r: np.random.Generator, n: int) -> np.ndarray:
        if name == "LaplaceMechanism(gaussian)":
            return 0.7 + r.normal(0.0, 1.0, n)  # sd b, not b sqrt 2
        if name == "LaplaceMechanism(laplace)":
            return 0.7 + r.exponential(1.0, n)  # one sign only
        if name == "GeometricMechanism(0.5)":
            q = math.exp(-0.5)
            return (r.geometric(q, n) - r.geometric(q, n)).astype(float)  # q for 1 - q
        t = 2  # the discrete Gaussian's discrete-Laplace proposal, g1 shifted by one
        g = r.geometric(1 - math.exp(-1 / t), 2 * n) - r.geometric(1 - math.exp(-1 / t), 2 * n)
        y = (g + 1).astype(float)
        acc = r.random(2 * n) < np.exp(-((np.abs(y) - 1.5**2 / t) ** 2) / (2 * 1.5**2))
        return y[acc][:n]
    return replace(s, draw=draw)


@pytest.mark.parametrize("name", ["LaplaceMechanism(gaussian)", "LaplaceMechanism(laplace)",
                                  "GeometricMechanism(0.5)",
                                  "ShiftedNoise(discrete-gaussian, 1.5)"])
def test_a_broken_sampler_is_outside_the_band(name: str) -> None:
    s = _broken(name)
    x = s.draw(np.random.default_rng(0), SF.N_DRAWS)
    assert SF.kolmogorov_distance(x, s) > SF.dkw_band(x.size)


def test_the_check_refutes_a_broken_sampler(monkeypatch: pytest.MonkeyPatch) -> None:
    shipped = SF.samplers()
    broken = _broken("GeometricMechanism(0.5)")
    monkeypatch.setattr(SF, "samplers", lambda: [
        broken if s.name == broken.name else s for s in shipped])
    f = SF.check_sampler_fit(seed=0)
    assert f.verdict is Verdict.REFUTED and f.counterexample is not None
    bad = [r["sampler"] for r in f.evidence["samplers"] if not r["ok"]]
    assert bad == ["GeometricMechanism(0.5)"]
