"""The printed algorithms (kernels.gini.printed) are transcribed faithfully, and the first
disagreements with the truth they exhibit are pinned (hand-worked values, pages cited).

These tests check the *transcription*, against values worked by hand from the printed
formulas; the audit of which printed statements are wrong belongs to ``dpaudit prove``.
"""

from __future__ import annotations

from fractions import Fraction as Q

import pytest

from kernels.gini import printed as paper
from kernels.gini.extremes import extremes
from tests.common.exact import ball_lower_bound_A, gini2

TOY = [3, 6, 7, 7.5]  # Section 3, L = 0, U = 10


def test_eq59_is_n_minus_1_times_gini() -> None:
    """Eq. (59) at s = 2, j = 1, k = 1 on the toy: the data set (0, 3, 6, 7.5) whose eq.-(2)
    Gini is 17/33; the printed expression has no 1/(n-1), so it returns 3 * 17/33."""
    assert gini2([Q(0), Q(3), Q(6), Q(15, 2)]) == Q(17, 33)
    assert paper.eq59(TOY, 1, 2, 1, 0, 10) == pytest.approx(3 * 17 / 33, rel=1e-14)


def test_eq60_is_n_minus_1_times_gini() -> None:
    """Eq. (60), k = 1, i = 1 (block x_2..x_4), j = 3 (copy x_3 = 7): data (6, 7, 7, 7.5),
    Gini 3/55; printed expression returns 3 * 3/55."""
    assert gini2([Q(6), Q(7), Q(7), Q(15, 2)]) == Q(3, 55)
    assert paper.eq60(TOY, 1, 1, 3) == pytest.approx(3 * 3 / 55, rel=1e-14)


def test_algorithm2_divides_by_n_not_n_minus_1() -> None:
    """Algorithm 2 returns N/(nD): (n-1)/n times the eq.-(2) maximum, i.e. the eq.-(1)
    Gini of the maximiser (toy, k = 1: 3/4 * 17/33)."""
    assert paper.fast_max_g(TOY, 1, 0, 10) == pytest.approx(3 / 4 * 17 / 33, rel=1e-14)
    assert paper.fast_max_g(TOY, 4, 0, 10) == float("-inf")  # empty s-loop when k = n


def test_algorithm2_loop_from_s1_misses_the_optimum() -> None:
    """Found by search (L > 0): x = (10.5, 10.5, 11.75, 11.75, 18), L = 8, U = 18, k = 4.
    True max (eq. 2) = 1/4, attained by replacing the 4 smallest (s = 0) by 3 x L and 1 x U:
    (8, 8, 8, 18, 18).  The printed loop starts at s = 1 and returns 0.24 * 4/5."""
    x = [10.5, 10.5, 11.75, 11.75, 18]
    assert gini2([Q(8), Q(8), Q(8), Q(18), Q(18)]) == Q(1, 4)
    assert extremes(x, 8, 18).max_gini[4] == pytest.approx(0.25, rel=1e-14)
    printed = paper.fast_max_g(x, 4, 8, 18) * 5 / 4  # undo the n vs n-1 denominator
    assert printed == pytest.approx(0.24, rel=1e-12)
    assert printed < 0.25


def test_algorithm1_readings() -> None:
    """Algorithm 1 with the bracket moved (charitable reading) gives (n-1)/n * 3/55 on the
    toy at k = 1; the literal bracket gives a dimensionally meaningless value."""
    charitable = paper.fast_min_g(TOY, 1, reading="charitable")
    assert charitable == pytest.approx(3 / 4 * 3 / 55, rel=1e-14)
    literal = paper.fast_min_g(TOY, 1, reading="literal")
    assert literal != pytest.approx(charitable, rel=1e-3)


def test_find_min_index_verbatim() -> None:
    vals = {1: 5.0, 2: 4.0, 3: 3.0, 4: 2.0, 5: 1.0, 6: 2.0, 7: 3.0, 8: 4.0}
    assert paper.find_min_index(1, 8, vals.__getitem__) == 5
    with pytest.raises(paper.PrintedAlgorithmUndefined):
        paper.find_min_index(3, 2, vals.__getitem__)


def test_eq24_printed_returns_a_negative_bound() -> None:
    """Theorem 4.4 as printed: x = (0, 1/4, 7/4), L = 0, U = 2, k = 1.  IQ = 3,
    n(1/IQ - k/n) - 1 = -1, so the value is 2/(-1) = -2; both printed conditions hold
    (1/(IQ - k/n) = 3/8 <= (U-L)/L = inf and -2 < 1), so (24) returns -2 — while the
    true A^(1) is at least 2/3 (exact local sensitivity of a data set in the 1-ball)."""
    x = [Q(0), Q(1, 4), Q(7, 4)]
    got = paper.bound_eq24_printed(3, 2 / 3, 0.0, 2.0, 1)
    assert got == pytest.approx(-2.0, rel=1e-12)
    truth, _ = ball_lower_bound_A(x, Q(0), Q(2), 1, [Q(0), Q(1, 4), Q(1), Q(7, 4), Q(2)])
    assert truth >= Q(2, 3)


def test_constants() -> None:
    assert paper.constants_section23(1.0, 2.0) == (1 / 8, 1 / 2)
    assert paper.beta_alg3(1.0, 2.0) == pytest.approx(1 / 6)


def test_algorithm3_k_max_reaches_n_where_printed_subroutines_are_undefined() -> None:
    """Algorithm 3: k_max = min(n, ceil(-ln(ls_0)/beta)) equals n for small epsilon
    (here eps = 0.01, beta = 0.01/6, n = 4), but FastMinG at k = n has an empty block
    (L = i+1 > R = i): the printed algorithm is undefined there.  On the toy with
    eps = 1 (k_max = 2) it runs."""
    with pytest.raises(paper.PrintedAlgorithmUndefined):
        paper.smooth_sensitivity_alg3(TOY, 0, 10, 0.01, 2.0, reading="charitable")
    assert 0 < paper.smooth_sensitivity_alg3(TOY, 0, 10, 1.0, 2.0, reading="charitable") <= 1
