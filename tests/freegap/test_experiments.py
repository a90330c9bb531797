"""Reproduce claims of Ding et al. (proofs/freegap/experiments.py): stand-in data, the
Section 7.2 simulations against the exact theory curves (with power), fast."""

from __future__ import annotations

import numpy as np

from kernels.freegap import mechanisms as fg
from proofs.freegap import experiments as ex


def test_standins_have_the_papers_sizes() -> None:
    # Section 7.1 table: records, unique items
    assert ex.DATASETS == {"BMS-POS": (515_597, 1_657), "kosarak": (990_002, 41_270),
                           "T40I10D100K": (100_000, 942)}
    c = ex.standin_counts("T40I10D100K")
    assert c.size == 942 and c[0] == 50_000 and c[1] == 25_000 and np.all(np.diff(c) <= 0)


def test_svt_measures_follow_section62_and_can_fail() -> None:
    counts = ex.standin_counts("T40I10D100K")
    r = ex.svt_measures_on_counts(counts, 5, 0.7, 3000, np.random.default_rng(0))
    assert abs(r["ratio"] - r["theory"]) <= ex.Z * r["se"]
    wrong = fg.svt_measure_ratio_printed(1, monotone=True)  # another k's theory: rejected
    assert abs(r["ratio"] - wrong) > ex.Z * r["se"]


def test_topk_measures_follow_corollary1_and_can_fail() -> None:
    r = ex.topk_measures_on_counts("BMS-POS", 5, 0.7, 3000, np.random.default_rng(1))
    assert abs(r["ratio"] - r["theory"]) <= ex.Z * r["se"]
    assert abs(r["ratio"] - fg.blue_variance_ratio(2, 1.0)) > ex.Z * r["se"]


def test_adaptive_rows_small() -> None:
    rows = ex._adaptive_rows("T40I10D100K", [2, 10], 300, 0, "printed")
    for r in rows:
        assert r["adaptive_answers"] >= r["svt_answers"] - 1e-9
        assert r["adaptive_answers"] <= r["max_adaptive_answers"]
        assert 0 < r["svt_f_measure"] <= 1 and 0 < r["adaptive_f_measure"] <= 1
