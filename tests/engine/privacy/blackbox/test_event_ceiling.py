"""Tests of the exact suite output laws (tests/common/exact_outputs.py) and of the event
ceiling (tests/common/event_ceiling.py) against independent truths: brute force over every
event of tiny output spaces, closed-form epsilons, dpaudit's own Clopper-Pearson bounds (a
separate implementation), and seeded Monte Carlo from the suite's samplers.

Monte Carlo tests: 200,000 seeded outputs per law, every output with expected count >= 20
gets a z-score (count - n p) / sqrt(n p (1 - p)); pass iff max |z| < 5.  False-alarm rate
per test <= (number of outputs) x 5.7e-7 (<= 6e-4 for 1024 outputs, Bonferroni); each test
also checks that a wrong law (a different noise scale or mechanism) fails the same check
on the same draws.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from audit.privacy.blackbox.statistics import clopper_pearson_lower, clopper_pearson_upper
from tests.common import event_ceiling as ec
from tests.common import exact_outputs as eo
from tests.common import power_suite as ps

COVERED = ["laplace", "laplace-half-scale", "truncated-geometric",
           "truncated-geometric-alpha-squared", "histogram", "histogram-wrong-scale",
           "noisy-max-laplace", "noisy-max-exponential", "noisy-max-value-laplace",
           "noisy-max-value-exponential", "svt1", "svt2", "svt3", "svt4", "svt5", "svt6",
           "one-time-rappor", "rappor"]


@pytest.fixture(scope="module")
def truths() -> dict[str, float]:
    return {m.name: m.true_epsilon for m in ps.suite(exact=True)}


@pytest.fixture(scope="module")
def laws() -> dict[str, eo.MechanismLaws]:
    return {name: eo.suite_laws(name) for name in COVERED}


# ---------------------------------------------------------------- Clopper-Pearson


def test_cp_bounds_match_dpaudits_implementation_on_integer_counts():
    for n in (50, 10_000, 20_000_000):
        k = np.array([0, 1, 7, n // 3, n - 1, n], dtype=float)
        lo, hi = ec.cp_lower(k, n), ec.cp_upper(k, n)
        lo_a = np.asarray(clopper_pearson_lower(k, n, 0.05))
        hi_a = np.asarray(clopper_pearson_upper(k, n, 0.05))
        # dpaudit widens by 2^-36 relative; scipy's inverse alone is good to ~1e-9
        np.testing.assert_allclose(lo, lo_a, rtol=1e-8, atol=0)
        np.testing.assert_allclose(hi, hi_a, rtol=1e-8, atol=0)


# ---------------------------------------------------------------- brute-force oracle


def _brute(p: np.ndarray, q: np.ndarray, n: float) -> float:
    """max of g over every non-empty subset of outputs (2^m - 1 events)."""
    m = p.size
    masks = (np.arange(1, 2 ** m)[:, None] >> np.arange(m)[None, :]) & 1
    return float(np.max(ec.expected_bound(masks @ p, masks @ q, n)))


def _brute_randomised(p: np.ndarray, q: np.ndarray, n: float) -> float:
    """max of g over every subset plus a fraction (grid of 20) of one more output."""
    m = p.size
    masks = ((np.arange(0, 2 ** m)[:, None] >> np.arange(m)[None, :]) & 1).astype(float)
    best = -np.inf
    f = np.linspace(0.05, 0.95, 19)
    for j in range(m):
        sub = masks[masks[:, j] == 0]
        P = (sub @ p)[:, None] + f[None, :] * p[j]
        Q = (sub @ q)[:, None] + f[None, :] * q[j]
        best = max(best, float(np.max(ec.expected_bound(P, Q, n))))
    return best


def _random_law(rng: np.random.Generator, m: int) -> tuple[np.ndarray, np.ndarray]:
    p = rng.dirichlet(np.full(m, 0.5))
    q = p * np.exp(rng.normal(0, 0.4, m))
    if rng.random() < 0.3:
        q[rng.integers(m)] = 0.0  # an output impossible on D'
    return p, q / q.sum()


def test_roc_ceiling_bounds_every_event_and_prefix_is_a_subset():
    """Exhaustive over all events of 60 seeded random laws on 2..10 outputs at three n:
    prefix <= brute force <= ROC ceiling, and randomised events <= ROC ceiling."""
    rng = np.random.default_rng(0)
    for i in range(60):
        p, q = _random_law(rng, 2 + i % 9)
        for n in (100.0, 1e4, 1e6):
            b = _brute(p, q, n)
            pre = ec.prefix_ceiling(p, q, n).value
            roc = ec.roc_ceiling(p, q, n).value
            assert pre <= b + 1e-12
            assert b <= roc + 1e-9, (i, n, b, roc)
            if p.size <= 7:
                assert _brute_randomised(p, q, n) <= roc + 1e-9


def test_roc_ceiling_is_attained_by_its_randomised_event():
    rng = np.random.default_rng(1)
    for _ in range(20):
        p, q = _random_law(rng, 6)
        c = ec.roc_ceiling(p, q, 1e4)
        assert float(ec.expected_bound(c.P, c.Q, 1e4)) == pytest.approx(c.value, abs=1e-12)


def test_brute_force_check_catches_a_too_narrow_search():
    """Power of the oracle check: the best single output (a search that is too narrow) is
    below the brute-force best on some of the same seeded laws, so the check in
    test_roc_ceiling_bounds_every_event can fail."""
    rng = np.random.default_rng(0)
    misses = 0
    for i in range(60):
        p, q = _random_law(rng, 2 + i % 9)
        single = ec.both_directions(ec.single_ceiling, p, q, 1e4)[0].value
        misses += _brute(p, q, 1e4) > single + 1e-6
    assert misses >= 5


def test_prefix_search_equals_brute_force_on_random_laws():
    """Measured (not a theorem): on 200 seeded laws x 3 n the best likelihood-ratio prefix
    union equals the brute-force best event, and the ROC interior never beats a vertex
    (g along a segment is maximised at an end on all of them)."""
    rng = np.random.default_rng(123)
    for i in range(200):
        p, q = _random_law(rng, 2 + i % 9)
        for n in (30.0, 1e3, 1e6):
            pre = ec.prefix_ceiling(p, q, n).value
            assert _brute(p, q, n) == pytest.approx(pre, abs=1e-12)
            assert ec.roc_ceiling(p, q, n).value == pytest.approx(pre, abs=1e-9)


def test_laplace_roc_ceiling_equals_best_threshold(laws):
    """The Laplace likelihood ratio is monotone in y, so the ROC curve is the threshold
    family: two different searches must agree."""
    law = laws["laplace"].laws[0]
    for n in (1e5, 2e7):
        r = ec.roc_ceiling(law.p, law.q, n).value
        t = ec.threshold_ceiling(law.p, law.q, n).value
        assert r == pytest.approx(t, abs=1e-9)
        assert 0.0 < r < 0.1


# ---------------------------------------------------------------- exact laws


@pytest.mark.parametrize("name", COVERED)
def test_laws_sum_to_one(laws, name):
    tol = 1e-7
    for law in laws[name].laws:
        assert law.p.sum() == pytest.approx(1.0, abs=tol)
        assert law.q.sum() == pytest.approx(1.0, abs=tol)
        assert np.all(law.p >= 0) and np.all(law.q >= 0)


@pytest.mark.parametrize("name", COVERED)
def test_largest_log_ratio_is_the_suite_truth(laws, truths, name):
    """sup over outputs of |ln p/q| = the suite's true epsilon (SVT3: its skeleton value;
    SVT6 / SVT4: the suite's 2001 / 8001-point quadrature, whose own error is <= 3e-5)."""
    best = 0.0
    for law in laws[name].laws:
        m = (law.p > 0) | (law.q > 0)
        with np.errstate(divide="ignore"):
            best = max(best, float(np.max(np.abs(np.log(law.p[m]) - np.log(law.q[m])))))
    t = truths[name]
    if math.isinf(t):
        assert math.isinf(best)
    else:
        assert best == pytest.approx(t, abs=5e-5 if name.startswith("svt") else 1e-8)


def test_rappor_law_against_closed_forms():
    """Erlingsson et al. 2014: epsilon_inf = 2h ln((1 - f/2)/(f/2)) (one-time) and
    epsilon_1 = h ln(q*(1 - p*)/(p*(1 - q*))) (RAPPOR), h = 2."""
    law, keep = eo.rappor_law(0.95, None, None, 0, 1)
    assert keep.tolist() == [3, 5, 10, 18]
    assert law.p.size == 16
    assert float(np.max(np.log(law.p / law.q))) == pytest.approx(
        4 * math.log((1 - 0.475) / 0.475), rel=1e-12)


# ---------------------------------------------------------------- Monte Carlo


def _max_z(counts: np.ndarray, probs: np.ndarray, n: int) -> float:
    m = probs * n >= 20
    z = (counts[m] - n * probs[m]) / np.sqrt(n * probs[m] * (1 - probs[m]))
    return float(np.max(np.abs(z)))


def _assert_fits_law_not_twin(counts: np.ndarray, law: np.ndarray, wrong: np.ndarray) -> None:
    """The Monte Carlo counts (``N_MC`` draws) agree with ``law`` (max |z| < 5) and not
    with the ``wrong`` law (max |z| > 5): the check can fail."""
    assert _max_z(counts, law, N_MC) < 5
    assert _max_z(counts, wrong, N_MC) > 5


def _svt_index(y: np.ndarray, cutoff: bool) -> np.ndarray:
    above = y == 1.0
    if cutoff:
        first = np.where(above.any(axis=1), np.argmax(above, axis=1), y.shape[1])
        return first
    return (above.astype(int) << np.arange(y.shape[1])).sum(axis=1)


N_MC = 200_000


@pytest.mark.parametrize("name,cutoff,wrong", [
    ("svt1", True, (4 / ps.EPS, 4 / (3 * ps.EPS))),   # SVT4's scales as the wrong law
    ("svt4", True, (20.0, 40.0)),                      # SVT1's scales
    ("svt6", False, (20.0, 40.0)),                     # query noise doubled
])
def test_svt_laws_against_monte_carlo(laws, name, cutoff, wrong):
    m = next(x for x in ps.suite(exact=False) if x.name == name)
    rng = np.random.default_rng(7)
    pr = ps.pattern_pairs()[4]  # half-half
    law = next(x for x in laws[name].laws if x.label == "half-half")
    bad = eo.svt_laws(*wrong, cutoff, [pr])[0]
    for d, probs, bprobs in ((pr.first, law.p, bad.p), (pr.second, law.q, bad.q)):
        idx = _svt_index(m.sample(d, N_MC, rng), cutoff)
        counts = np.bincount(idx, minlength=probs.size).astype(float)
        _assert_fits_law_not_twin(counts, probs, bprobs)


def test_svt5_law_against_monte_carlo():
    m = next(x for x in ps.suite(exact=False) if x.name == "svt5")
    rng = np.random.default_rng(8)
    pr = ps.pattern_pairs()[0]
    laws = [eo.svt_no_noise_probs(20.0, d) for d in (pr.first, pr.second)]
    for d, probs, bad in ((pr.first, laws[0], laws[1]), (pr.second, laws[1], laws[0])):
        idx = _svt_index(m.sample(d, N_MC, rng), False)
        counts = np.bincount(idx, minlength=probs.size).astype(float)
        assert np.all(counts[probs == 0] == 0)
        _assert_fits_law_not_twin(counts, probs, bad)


@pytest.mark.parametrize("name", ["one-time-rappor", "rappor"])
def test_rappor_laws_against_monte_carlo(laws, name):
    m = next(x for x in ps.suite(exact=False) if x.name == name)
    rng = np.random.default_rng(9)
    law = laws[name].laws[0]
    other = laws["rappor" if name == "one-time-rappor" else "one-time-rappor"].laws[0]
    keep = np.array([3, 5, 10, 18])
    for d, probs, bad in ((np.array([0.0]), law.p, other.p),
                          (np.array([1.0]), law.q, other.q)):
        y = m.sample(d, N_MC, rng)[:, keep].astype(int)
        idx = (y << np.arange(4)).sum(axis=1)
        counts = np.bincount(idx, minlength=16).astype(float)
        _assert_fits_law_not_twin(counts, probs, bad)


@pytest.mark.parametrize("name", ["noisy-max-laplace", "truncated-geometric"])
def test_index_laws_against_monte_carlo(laws, name):
    m = next(x for x in ps.suite(exact=False) if x.name == name)
    rng = np.random.default_rng(10)
    law = laws[name].laws[-1]
    pr = m.pairs[-1]
    wrong = (ps.noisy_max_probs(1 / ps.EPS, "laplace", pr.first) if name.startswith("noisy")
             else eo.truncated_geometric_pmf(math.exp(-1.0), 5, 2))
    y = m.sample(pr.first, N_MC, rng).astype(int)
    counts = np.bincount(y, minlength=law.p.size).astype(float)
    _assert_fits_law_not_twin(counts, law.p, wrong)


def test_noisy_max_value_cells_against_monte_carlo(laws):
    """P(max <= 1) on all-above's first data set (ten answers 1, Laplace(10)) is 2^-10 in
    closed form; the cells and a Monte Carlo agree with it."""
    cdf, _ = eo.max_noise_cdf_sf(np.ones(10), 10.0, "laplace")
    assert float(cdf(np.array(1.0))) == pytest.approx(2.0 ** -10, rel=1e-12)
    m = next(x for x in ps.suite(exact=False) if x.name == "noisy-max-value-laplace")
    y = m.sample(np.ones(10), N_MC, np.random.default_rng(11))
    k = float(np.sum(y <= 1.0))
    z = (k - N_MC * 2.0 ** -10) / math.sqrt(N_MC * 2.0 ** -10)
    assert abs(z) < 5


@pytest.mark.parametrize("m_out", [2, 3, 4])
def test_brute_force_helper_enumerates_every_subset(m_out):
    """The oracle itself: 2^m - 1 events, checked against itertools on one law."""
    p = np.arange(1, m_out + 1, dtype=float)
    p /= p.sum()
    q = p[::-1].copy()
    best = max(float(ec.expected_bound(sum(p[list(s)]), sum(q[list(s)]), 1e3))
               for r in range(1, m_out + 1) for s in itertools.combinations(range(m_out), r))
    assert _brute(p, q, 1e3) == pytest.approx(best, abs=1e-12)


def test_laplace_loss_sum_law_by_hand():
    """k Laplace(b) releases moved by 1: the law of the binned loss sum sums to 1, its
    largest log-ratio is k / b (every column right of both answers), and that top cell has
    probability (e^{-1/b} / 2)^k on the unmoved side and (1/2)^k on the moved one
    (closed-form Laplace tails)."""
    k, b = 5, 3.0
    law = eo.laplace_loss_sum_law("t", k, b, steps=20)
    assert abs(law.p.sum() - 1) < 1e-12 and abs(law.q.sum() - 1) < 1e-12
    assert abs(np.max(np.log(law.q / law.p)) - k / b) < 1e-9
    assert abs(law.p[-1] - (0.5 * math.exp(-1 / b)) ** k) < 1e-15
    assert abs(law.q[-1] - 0.5 ** k) < 1e-15
