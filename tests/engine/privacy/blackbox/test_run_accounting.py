"""Every black-box run re-counts its own confidence level exactly (issue 39): the recorded
per-bound levels summed as Fractions over the run's schedule must not exceed alpha, and every
certified Clopper-Pearson bound is re-derived from its counts by an independent binomial-tail
summation.  The check runs inside the tester, so ``dpaudit test``, ``certify`` and
``calibrate`` notice a miscounted level in the run itself (exit 4: a bug of dpaudit).

Truths: exact binomial tails as Fraction sums of math.comb terms (small n); the mutants are
the edits that survived ``calibrate --coverage`` at its default size: a Bonferroni factor
halved, alpha not split over the sequential looks, a bound computed at twice its level,
delta dropped from the log-ratio.  Each is refused on a seeded run that the unmutated tester
passes.
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest

from audit.privacy.blackbox import BlackBoxTester
from audit.privacy.blackbox import fixed as fixed_mod
from audit.privacy.blackbox import results as results_mod
from audit.privacy.blackbox import sequential as seq_mod
from audit.privacy.blackbox import tester as tester_mod
from audit.privacy.blackbox.accounting import (
    AlphaAccountingError,
    binomial_tail_ge,
    binomial_tail_le,
)
from audit.privacy.blackbox.sequential import Schedule
from audit.privacy.blackbox.statistics import bonferroni_level, clopper_pearson_lower
from audit.privacy.mechanisms import LaplaceMechanism
from audit.protocols import REPLACE_ONE, NeighbourPair

PAIR = NeighbourPair(np.array([0.0]), np.array([1.0]), REPLACE_ONE,
                     {"op": "replace", "rank": 0, "new": 1.0})
FIXED = {"n_select": 4000, "n_certify": 8000}
SEQ = {"sequential": True, "n_select": 4000, "n_certify": 16000, "seq_first": 1000,
       "seq_growth": 2}


def _exact_ge(k: int, n: int, p: Fraction) -> Fraction:
    return sum((math.comb(n, j) * p**j * (1 - p) ** (n - j) for j in range(k, n + 1)),
               Fraction(0))


@pytest.mark.parametrize("n", [1, 2, 7, 30, 61])
def test_binomial_tails_match_exact_fraction_sums(n: int) -> None:
    rng = np.random.default_rng(n)
    for _ in range(12):
        k = int(rng.integers(0, n + 1))
        p = Fraction(int(rng.integers(1, 999)) / 1000)  # the float's exact value
        ge = _exact_ge(k, n, p)
        le = 1 - _exact_ge(k + 1, n, p)
        assert abs(binomial_tail_ge(k, n, float(p)) - mpmath.mpf(ge.numerator) / ge.denominator
                   ) <= mpmath.mpf(10) ** -30 + 1e-15 * float(ge)
        assert abs(binomial_tail_le(k, n, float(p)) - mpmath.mpf(le.numerator) / le.denominator
                   ) <= mpmath.mpf(10) ** -30 + 1e-15 * float(le)


def test_tail_at_the_clopper_pearson_bound_is_its_level_at_large_n() -> None:
    # the exact CP lower bound has tail = alpha; the shipped one is shrunk (safe), so its
    # tail is at most alpha and close to it; twice the level is far above
    for k, n in [(300_000, 1_048_576), (5, 2_000_000), (999_000, 1_000_000)]:
        a = 0.025
        lo = float(clopper_pearson_lower(k, n, a))
        tail = binomial_tail_ge(k, n, lo)
        assert a * 0.999 <= tail <= a, (k, n, tail)
        assert binomial_tail_ge(k, n, float(clopper_pearson_lower(k, n, 2 * a))) > a


@pytest.mark.parametrize("kw", [FIXED, SEQ, {**FIXED, "certify": "per-direction"}])
def test_correct_runs_pass_their_own_accounting(kw: dict) -> None:
    res = BlackBoxTester(**kw).run(LaplaceMechanism(1.0), [PAIR], np.random.default_rng(0))
    acc = res.details["alpha_accounting"]
    assert acc["ok"] and acc["levels_within_alpha"] and acc["alpha_stated"] <= 0.1


def _half_factor(alpha: float, bounds: int) -> float:
    return bonferroni_level(alpha, max(1, bounds // 2))


def _alpha_every_look(self: Schedule, r: int) -> float:
    return float(self.alpha)


def _lower_at_twice(k, n, a):  # noqa: ANN001, ANN202 - same signature as the original
    return clopper_pearson_lower(k, n, 2 * a)


@pytest.mark.parametrize("target, name, repl, kw", [
    (fixed_mod, "bonferroni_level", _half_factor, FIXED),
    (Schedule, "alpha_at", _alpha_every_look, SEQ),
    (results_mod, "clopper_pearson_lower", _lower_at_twice, FIXED),
    (results_mod, "log_ratio", lambda lo, hi, d: math.log(lo / hi), {**FIXED, "delta": 1e-3}),
])
def test_a_miscounted_level_is_refused_in_the_run(target, name, repl, kw,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(target, name, repl)
    with pytest.raises(AlphaAccountingError, match="miscounted"):
        BlackBoxTester(**kw).run(LaplaceMechanism(1.0), [PAIR], np.random.default_rng(0))


def _short_schedule(first, growth, n_max, alpha, by_size=0.0):  # noqa: ANN001, ANN202
    s = real_schedule(first, growth, n_max, alpha, by_size)
    return Schedule(s.batches[:-1] if len(s.batches) > 2 else s.batches, s.alpha, s.by_size)


real_schedule = seq_mod.schedule


@pytest.mark.parametrize("name, repl", [
    ("schedule", _short_schedule),  # one round early: not the documented schedule
])
def test_a_schedule_other_than_documented_is_refused(name, repl,  # noqa: ANN001
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(seq_mod, name, repl)
    with pytest.raises(AlphaAccountingError, match="documented"):
        BlackBoxTester(**SEQ).run(LaplaceMechanism(1.0), [PAIR], np.random.default_rng(0))


def test_alpha_from_the_selection_confidence_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    # the looks split 1 - selection_confidence instead of 1 - confidence
    real = seq_mod.run_sequential

    def wrong(t, *a, **k):  # noqa: ANN001, ANN202
        res = real(t, *a, **k)
        res.details["alpha_total"] = 1.0 - float(t.selection_confidence)
        return res

    monkeypatch.setattr(tester_mod, "run_sequential", wrong)
    with pytest.raises(AlphaAccountingError, match="1 - confidence"):
        BlackBoxTester(**SEQ).run(LaplaceMechanism(1.0), [PAIR], np.random.default_rng(0))
