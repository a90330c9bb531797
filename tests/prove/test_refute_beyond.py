"""The refutation search beyond the proved sizes (audit/prove/proof.py ``_refute_beyond``,
audit/prove/refute.py ``threshold_pairs``): a program that is eps-DP only for small n ends
refuted with an exact witness whose epsilon matches a hand-derived closed form; a correct
program never reaches the search; when the bounded search finds nothing the verdict says
so.  Each proof here is a few seconds of CPU."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest

from audit.prove import proof
from audit.prove import refute as refute_mod
from audit.prove.benchmark import sparse_vector as sv
from audit.prove.proof import prove_mechanism


def _cdf_laplace_sum(z: mpmath.mpf, a: mpmath.mpf, b: mpmath.mpf) -> mpmath.mpf:
    """P(A + B < z) for independent A ~ Lap(a), B ~ Lap(b), a != b, by hand: the density of
    A + B is (a e^{-|x|/a} - b e^{-|x|/b}) / (2 (a^2 - b^2)) (convolution of the two
    Laplace densities), so for z <= 0 the CDF is (a^2 e^{z/a} - b^2 e^{z/b}) / (2 (a^2 - b^2))
    (1/2 at z = 0), and 1 - CDF(-z) for z > 0 by symmetry."""
    if z > 0:
        return 1 - _cdf_laplace_sum(-z, a, b)
    return (a**2 * mpmath.exp(z / a) - b**2 * mpmath.exp(z / b)) / (2 * (a**2 - b**2))


def test_closed_form_cdf_matches_numerical_convolution() -> None:
    """The hand-derived CDF above agrees with a numerical integral of the convolution (so the
    independent reference is itself checked, not assumed): P(A + B < z) =
    integral of f_B(y) F_A(z - y) dy with the Laplace CDF F_A."""
    a, b = mpmath.mpf(4), mpmath.mpf(2)

    def cdf_a(x: mpmath.mpf) -> mpmath.mpf:
        return mpmath.exp(x / a) / 2 if x < 0 else 1 - mpmath.exp(-x / a) / 2

    with mpmath.workdps(25):
        for z in (-5, -4, -1, 2):
            num = mpmath.quad(lambda y, z=z: mpmath.exp(-abs(y) / b) / (2 * b) * cdf_a(z - y),
                              [-mpmath.inf, min(0, z), max(0, z), mpmath.inf])
            assert abs(num - _cdf_laplace_sum(mpmath.mpf(z), a, b)) < mpmath.mpf(10) ** -18


def test_fresh_noise_svt_is_refuted_beyond_n_max_with_its_exact_epsilon() -> None:
    """svt_increasing_thresholds_fresh_noise is eps-DP for n <= 4 (the alignment proves it)
    but each ⊥ costs up to 1/4 at eps = 1: refuted at n = 5 = N + 1 by queries above their
    thresholds T_i = i.  Independent value: at eps = 1, rho_i ~ Lap(2), nu_i ~ Lap(4) per
    query, all independent, so P(output pattern) = prod_i P(nu_i - rho_i < i - q_i) (⊥) or
    1 - that (⊤), with the hand-derived CDF above."""
    v = prove_mechanism(sv.svt_increasing_thresholds_fresh_noise, n_max=4)
    assert v.status == "refuted"
    assert v.partial is not None and v.partial["proved_for_n_up_to"] == 4
    w = v.witness
    assert w is not None
    q = [Fraction(x) for x in w["q"]]
    qp = [Fraction(x) for x in w["q_prime"]]
    assert len(q) == 5  # found at N + 1 (the search goes up to N + 2)
    assert max(abs(a - b) for a, b in zip(q, qp, strict=True)) <= 1
    pattern = w["event"]["pattern"]
    assert w["event"]["index"] is None and all(isinstance(p, bool) for p in pattern)
    a, b = mpmath.mpf(4), mpmath.mpf(2)

    def prob(qs: list[Fraction]) -> mpmath.mpf:
        out = mpmath.mpf(1)
        for i, top in enumerate(pattern):
            z = i - qs[i]
            f = _cdf_laplace_sum(mpmath.mpf(z.numerator) / z.denominator, a, b)
            out *= (1 - f) if top else f
        return out

    with mpmath.workdps(50):
        expect = mpmath.log(prob(q) / prob(qp))
        assert expect > 1
        assert abs(mpmath.mpf(w["epsilon_witness"]) - expect) < mpmath.mpf(10) ** -30
        assert abs(mpmath.mpf(w["epsilon_witness_lower"]) - expect) < mpmath.mpf(10) ** -30
    # the document replays from scratch to the same certified violation
    again = refute_mod.replay_witness(w)
    assert again.refutes


def test_no_threshold_noise_still_refuted_at_five_queries() -> None:
    """svt_no_threshold_noise (nu ~ Lap(4) at eps = 1, threshold 0, no threshold noise):
    with q = 0 and q' = q + 1 every ⊥ has P(nu < 0) / P(nu < -1) = e^{1/4} exactly, so five
    ⊥ give 5/4; no pair at n = 5 can do better (each of the five entries costs at most 1/4)."""
    v = prove_mechanism(sv.svt_no_threshold_noise, n_max=4)
    assert v.status == "refuted"
    w = v.witness
    assert w is not None and len(w["q"]) == 5
    assert abs(mpmath.mpf(w["epsilon_witness"]) - mpmath.mpf(5) / 4) < mpmath.mpf(10) ** -30


def test_correct_program_never_reaches_the_beyond_search(monkeypatch: pytest.MonkeyPatch
                                                         ) -> None:
    """svt_lyu1 is proved for every n by the all-n step: the beyond-N search must not run
    (it would raise here) and the verdict is unchanged."""
    def boom(*_a: object, **_k: object) -> list[object]:
        raise AssertionError("the beyond-N search ran on a program proved for every n")

    monkeypatch.setattr(refute_mod, "threshold_pairs", boom)
    v = prove_mechanism(sv.svt_lyu1, n_max=4)
    assert v.status == "verified" and v.all_n
    assert v.witness is None


def test_nothing_found_within_the_bound_is_said_honestly(monkeypatch: pytest.MonkeyPatch
                                                         ) -> None:
    """With the bound cut to n = N + 1 and one pair (queries on their thresholds, all moving
    up: 0.894 < 1 at n = 5), the fresh-noise SVT stays verified for n <= 4 only, and the
    verdict names the failed all-n step, its cause and the size searched."""
    monkeypatch.setattr(proof, "EXTRA_REFUTE_N", 1)
    monkeypatch.setattr(proof, "BEYOND_PAIRS", 1)
    v = prove_mechanism(sv.svt_increasing_thresholds_fresh_noise, n_max=4)
    assert v.status == "verified" and not v.all_n and v.witness is None
    assert v.reason.startswith("verified for n <= 4; the all-n step failed because ")
    assert "grows with the number of queries" in v.reason
    assert v.reason.endswith("no witness found at n <= 5")
    assert any("1 neighbouring pairs" in n for n in v.notes)


def test_thresholds_are_read_from_the_comparisons() -> None:
    """T_i = T + i * step (increasing) and T - i * step (decreasing), with T = 0, step = 1;
    the largest noise scale is nu's 2c/eps2 = 4 at eps = 1."""
    thr, scale = refute_mod.query_thresholds(sv.svt_increasing_thresholds_fresh_noise, 6, 1)
    assert thr == {i: Fraction(i) for i in range(6)} and scale == 4
    thr, _ = refute_mod.query_thresholds(sv.svt_decreasing_thresholds, 4, 1)
    assert thr == {i: Fraction(-i) for i in range(4)}
    # a float parameter is taken exactly: T = 0.5, step = 2 gives 1/2 + 2 i
    thr, _ = refute_mod.query_thresholds(sv.svt_increasing_thresholds_fresh_noise, 3, 1,
                                         {"T": 0.5, "step": 2})
    assert thr == {i: Fraction(1, 2) + 2 * i for i in range(3)}


@pytest.mark.parametrize("relation", ["linf1", "monotone1", "onehot1"])
def test_threshold_pairs_are_neighbours_under_the_relation(relation: str) -> None:
    pairs = refute_mod.threshold_pairs(sv.svt_increasing_thresholds_fresh_noise, 5, 1,
                                       relation, max_pairs=40)
    assert 0 < len(pairs) <= 40 and len(set(pairs)) == len(pairs)
    for q, qp in pairs:
        d = [b - a for a, b in zip(q, qp, strict=True)]
        nz = [x for x in d if x]
        assert nz and all(abs(x) <= 1 for x in d)
        if relation == "monotone1":
            assert all(x > 0 for x in nz) or all(x < 0 for x in nz)
        if relation == "onehot1":
            assert len(nz) == 1
