"""proofs.gini.certify.chain: the certificate chain on small data (exact answers known), the float
sampler link against the closed-form tail asymptotics, and keyed data identity."""

from __future__ import annotations

import math
import sys

import numpy as np
import pytest

from audit.fingerprint import data_fingerprint
from proofs.gini.certify.context import CertifyConfig, CertifyContext
from proofs.gini.certify.links import FLOAT_DELTA_NEGLIGIBLE, float_sampler

_KEY = bytes(range(32))


def _ctx(x: np.ndarray, **kw: object) -> CertifyContext:
    cfg = CertifyConfig(np.asarray(x, float), {"test": True}, **kw)  # type: ignore[arg-type]
    xs = np.sort(np.asarray(x, float))
    return CertifyContext(cfg, xs, data_fingerprint(_KEY, xs), "data:test",
                          np.random.default_rng(0))


def test_keyed_fingerprint_is_order_independent_value_and_key_sensitive() -> None:
    x = np.array([3.0, 1.0, 2.0])
    fp = data_fingerprint(_KEY, x)
    assert fp == data_fingerprint(_KEY, np.array([1.0, 2.0, 3.0]))
    assert fp != data_fingerprint(_KEY, np.array([1.0, 2.0, np.nextafter(3.0, 4)]))
    assert fp != data_fingerprint(bytes(32), x)


@pytest.mark.parametrize("gamma", [1.01, 1.02, 1.05])
def test_float_sampler_mass_matches_tail_asymptotics(gamma: float) -> None:
    """P(|Z| > t) = 2 S(t) ~ 2 c t^(1-gamma)/(gamma-1) for t -> inf, c = gamma sin(pi/gamma)
    /(2 pi) (density (10)); at t = DBL_MAX the next term is O(t^(1-2 gamma)), negligible."""
    ctx = _ctx([1.0, 2.0, 3.0, 4.0], lower=0.0, upper=5.0, epsilon=1.0, gamma=gamma)
    ctx.shared["scale"] = 0.5  # scale <= 1: no overflow term
    (f,) = float_sampler(ctx)
    c = gamma * math.sin(math.pi / gamma) / (2 * math.pi)
    t = sys.float_info.max
    expect = 2 * c * math.exp((1 - gamma) * math.log(t)) / (gamma - 1)
    got = f.evidence["mass_redrawn_P(|Z|>DBL_MAX)_rounded_up"]
    assert got >= expect * (1 - 1e-9) and got <= expect * (1 + 1e-6)
    assert f.verdict.value == "inconclusive"  # far above 2^-64: pure DP only up to delta


def test_float_sampler_negligible_at_gamma_2() -> None:
    ctx = _ctx([1.0, 2.0, 3.0, 4.0], lower=0.0, upper=5.0, epsilon=1.0, gamma=2.0)
    ctx.shared["scale"] = 8.0
    (f,) = float_sampler(ctx)
    assert f.verdict.value == "verified"
    # Cauchy: P(|Z| > t) = 1 - 2 atan(t)/pi ~ 2/(pi t); overflow at t = DBL_MAX / 8
    expect = 2 / (math.pi * (sys.float_info.max / 8))
    got = f.confidential["mass_overflow_P(|scale*Z|>DBL_MAX)_rounded_up"]
    assert 0 < got <= FLOAT_DELTA_NEGLIGIBLE
    assert abs(got / expect - 1) < 1e-9


def test_replayers_recompute_certify_counterexamples() -> None:
    """Each certify replayer recomputes from scratch: a fabricated admissibility witness
    for section23 at gamma = 10 still fails (independently: loss_at at 60 digits), the same
    point under alg3's smaller (alpha, beta) is rejected as inadmissible, and a subsample
    bound document for correct kernels passes."""
    from fractions import Fraction

    from audit.registry import REPLAYERS, load_all

    load_all()
    doc = {"epsilon": 1.0, "gamma": 10.0, "choice": "section23", "lam": -0.1,
           "delta": 0.02262093545089899, "z": 1.459483097089526}
    still, _, actual, _ = REPLAYERS["certify.admissibility"](doc)
    assert still and float(actual) > 1.03
    still, _, _, detail = REPLAYERS["certify.admissibility"]({**doc, "choice": "alg3"})
    assert not still and "False" in detail
    bdoc = {"x": [Fraction(2), Fraction(2), Fraction(3)], "k": 1, "lower": Fraction(1),
            "upper": Fraction(3), "bound": "thm43"}
    still, truth, got, _ = REPLAYERS["certify.bounds-subsamples"](bdoc)
    assert not still and got >= float(truth)
    # the printed paper's eq. (24) bound can be negative (README): the same replayer logic
    # with the paper's kernel would fail; here the truth is the exact LS ball bound > 0
    assert truth > 0


def test_release_link_audits_the_shipped_release_and_catches_half_noise() -> None:
    """certify.release goes through the release function (any callable with
    release_gini's signature): the shipped one passes; one that adds half the noise it
    declares, or declares a scale one ulp below the exact value, is refuted."""
    import dataclasses
    import math

    from kernels.gini.release import release_gini
    from proofs.gini.certify.chain import _release_link

    xs = np.sort(np.random.default_rng(4).lognormal(3, 1, 200))
    cfg = CertifyConfig(xs, {"sample": "test"}, 0.0, float(3 * xs.max()), 1.0, quick=True)

    def run(fn):
        c = CertifyContext(dataclasses.replace(cfg, release=fn), xs,
                           data_fingerprint(_KEY, xs), "t", np.random.default_rng(0))
        return _release_link(c)[0]

    assert run(None).verdict.value == "not-refuted"

    def half_noise(*a, **k):
        r = release_gini(*a, **k)
        return dataclasses.replace(r, value=r.gini + (r.value - r.gini) / 2)

    def ulp_below(*a, **k):
        # the largest double strictly below the exact S(X)/alpha (exact reference, mpmath)
        import mpmath

        from proofs.gini import reference

        r = release_gini(*a, **k)
        with mpmath.workdps(60):
            exact = reference.smooth_sensitivity(xs, cfg.lower, cfg.upper,
                                                 r.constants.beta).value / r.constants.alpha
            f = float(exact)
            if mpmath.mpf(f) >= exact:
                f = math.nextafter(f, 0.0)
        return dataclasses.replace(r, scale=f)

    bad = run(half_noise)
    assert bad.verdict.value == "refuted" and bad.counterexample is not None
    assert any("noise law" in p for p in bad.confidential["problems"])
    below = run(ulp_below)
    assert below.verdict.value == "refuted"
    assert any("BELOW" in p for p in below.confidential["problems"])
