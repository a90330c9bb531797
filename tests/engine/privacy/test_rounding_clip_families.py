"""The ``ulp-step`` and data ``clip`` neighbour families (audit/privacy/neighbour_search.py)
and the clipping plumbing of ``dpaudit test`` (audit/privacy/clip_pairs.py, plan_audit).

Truths, independent of the code under test:

* the float64 grid near ``M = 2^50`` has step ``ulp(M) = 2^-2`` (IEEE 754: 52 fraction
  bits), so the ``ulp-step`` values in ``[M, M + 1]`` are exactly the five grid points;
* a two-pass sum of squared deviations written here in plain Python (sequential sum, mean,
  sum of squares) has the real-number replace-one sensitivity ``(U - L)^2 (n - 1) / n``
  (Popoviciu / the one-moved-record identity); the same statistic computed *exactly* in
  rationals (:class:`fractions.Fraction`) never exceeds it on the family's pairs (the family
  raises no false alarm on a correct statistic), while the float version exceeds it on a
  family pair by far more than rounding of the output could explain (the published mean-
  rounding bug class, opendp issue 2923);
* a "clip a copy, sum the raw records" sum (smartnoise-sdk issue 622's pattern) moves by
  the excess of a record beyond the bound (1000 widths), far above ``U - L``; the correct
  clipper never exceeds ``U - L`` (checked exactly by the sensitivity check).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest

from audit.privacy.clip_pairs import beyond_rows, clips_of
from audit.privacy.neighbour_search import (
    SearchSpace,
    are_neighbours,
    data_pairs,
    neighbour_search,
    ulp_step_values,
)
from audit.privacy.sensitivity_check import check_sensitivity, exact_distance
from audit.privacy.tabular import table_from_rows
from audit.privacy.user_audit import plan_audit
from audit.protocols import REPLACE_ONE
from kernels.errors import InputError

M = 2.0 ** 50


def float_ssd(xs: np.ndarray) -> float:
    """Two-pass sum of squared deviations in float64, left to right."""
    s = 0.0
    for v in xs.tolist():
        s += v
    mean = s / len(xs)
    t = 0.0
    for v in xs.tolist():
        t += (v - mean) ** 2
    return t


def exact_ssd(xs: np.ndarray) -> Fraction:
    fr = [Fraction(v) for v in xs.tolist()]
    mean = sum(fr, Fraction(0)) / len(fr)
    return sum(((v - mean) ** 2 for v in fr), Fraction(0))


def test_ulp_step_values_are_the_float_grid_near_2_50():
    vals = ulp_step_values(M, M + 1.0)
    assert {v for v, _ in vals} == {M + k * 0.25 for k in range(5)}
    assert {s for _, s in vals} == {0.25}
    # a zero base has a subnormal ulp: skipped (no 5e-324 steps around 0)
    assert all(s >= 2.0 ** -60 for _, s in ulp_step_values(0.0, 1.0))


def test_ulp_step_pairs_are_neighbours_at_the_fixed_size():
    sp = SearchSpace(M, M + 1.0, REPLACE_ONE, n_max=64, size=64)
    fam = [p for p in neighbour_search(sp, ("ulp-step",))]
    assert fam and all(p.first.size == 64 and p.second.size == 64 for p in fam)
    for p in fam:
        assert np.sum(p.first != p.second) == 1  # one record differs, in place
        assert p.first.min() >= M and p.second.max() <= M + 1.0


def test_ulp_step_refutes_the_float_ssd_and_spares_the_exact_one():
    n = 1024
    claim = float(Fraction(n - 1, n))  # (U - L)^2 (n - 1) / n with U - L = 1
    sp = SearchSpace(M, M + 1.0, REPLACE_ONE, n_max=n, size=n)
    res = check_sensitivity(float_ssd, claim, sp, families=("ulp-step",))
    assert res.refuted and res.worst["family"] == "ulp-step"
    assert res.worst["distance"] > 10 * claim  # not a last-bit effect
    # the same pairs on the exact statistic: never above the real-number bound
    pairs = list(neighbour_search(sp, ("ulp-step",)))
    worst = max(abs(exact_ssd(p.first) - exact_ssd(p.second)) for p in pairs)
    assert worst <= Fraction(n - 1, n)
    # and the refuting pair's distance is the float statistic's, computed exactly
    w = res.witness_pair
    assert exact_distance(float_ssd(w.first), float_ssd(w.second), "l1") > Fraction(claim)


def raw_sum_after_clipping_a_copy(xs: np.ndarray) -> float:
    _clipped = np.clip(xs, 0.0, 1.0)  # the clipped copy is never used (the bug)
    return float(np.sum(xs))


def clipped_sum(xs: np.ndarray) -> float:
    return float(np.sum(np.clip(xs, 0.0, 1.0)))


def test_clip_pairs_from_data_catch_a_raw_sum_and_spare_the_clipper():
    data = np.random.default_rng(5).uniform(0.0, 1.0, 40)
    sp = SearchSpace(0.0, 1.0, REPLACE_ONE, n_max=64, clamps=True)
    pairs = [p for p in data_pairs(data, sp) if p.change["family"] == "clip"]
    assert pairs and any(p.second.max() > 1.0 or p.second.min() < 0.0 for p in pairs)
    assert all(are_neighbours(p.first, p.second, REPLACE_ONE) for p in pairs)
    bad = check_sensitivity(raw_sum_after_clipping_a_copy, 1.0, pairs=pairs)
    assert bad.refuted and bad.worst["distance"] >= 999.0
    good = check_sensitivity(clipped_sum, 1.0, pairs=pairs)
    assert not good.refuted and good.worst["distance"] <= 1.0
    # without clamps the search stays inside the bounds: the clipping bug is out of
    # reach (only np.sum's last-bit rounding, < 1.5, shows)
    inside = SearchSpace(0.0, 1.0, REPLACE_ONE, n_max=64)
    assert check_sensitivity(raw_sum_after_clipping_a_copy, 1.0, inside,
                             data=data).worst["distance"] < 1.5


def test_clips_flag_attribute_and_bad_value():
    class Lib:
        clips = True

    assert clips_of(Lib()) is True and clips_of(Lib(), False) is False
    assert clips_of(object()) is False
    with pytest.raises(InputError, match="True or False"):
        clips_of(object(), "yes")  # type: ignore[arg-type]


def test_beyond_rows_move_numeric_cells_only():
    t = table_from_rows([[0.5, "a"], [0.2, "b"]], ["x", "g"])
    rows = beyond_rows(t, 0.0, 1.0)
    assert [r[0] for r in rows] == [2.0, 1001.0, -1.0, -1000.0]
    assert all(r[1] == "a" for r in rows)
    assert beyond_rows(t, None, 1.0) == []


def mech(data, seed):  # a per-call mechanism for plan_audit (never called here)
    return float(np.sum(data)) + np.random.default_rng(seed).laplace()


def test_plan_accepts_outside_data_only_when_the_mechanism_clips():
    data = np.array([0.2, 0.7, 3.0])  # 3.0 beyond the upper bound
    with pytest.raises(InputError, match="outside|above|bound"):
        plan_audit(mech, epsilon=1.0, data=data, lower=0.0, upper=1.0)
    plan = plan_audit(mech, epsilon=1.0, data=np.array([0.2, 0.7, 0.4]), lower=0.0,
                      upper=1.0, clips=True, max_pairs=12)
    assert plan.space.clamps and plan.params["clips"] is True
    assert any(max(p.second.max(), p.first.max()) > 1.0 for p in plan.pairs)
    plan2 = plan_audit(mech, epsilon=1.0, data=data, lower=0.0, upper=1.0, clips=True)
    assert plan2.params["clips"] is True
