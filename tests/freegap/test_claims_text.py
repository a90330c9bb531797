"""Definition 6's noise families and Examples 1-3 (proofs/freegap/claims_text.py): hand-worked
values, verdicts with their readings, replayers."""

from __future__ import annotations

from fractions import Fraction as F

from proofs.freegap import claims_text as ct


def test_staircase_exponent_hand_worked() -> None:
    # delta = 1, gamma = 1/2: exponent 0 on [0, 1/2), 1 on [1/2, 1), 1 on [1, 3/2), 2 on ...
    assert [ct.staircase_exponent(F(v, 4), F(1, 2), F(1)) for v in range(0, 8)] == \
        [0, 0, 1, 1, 1, 1, 2, 2]
    assert ct.staircase_exponent(F(-3, 4), F(1, 2), F(1)) == 1  # symmetric
    # a jump of eps between 19/40 and 21/40: log ratio 1 > |x - y| / alpha = (1/20) / (1/10)
    assert ct.staircase_log_ratio(F(19, 40), F(21, 40), 1, F(1, 2), F(1)) == 1


def test_verdicts_and_replay() -> None:
    lap, stair = ct.noise_families(0, 0)
    assert lap.verdict == "verified"
    assert stair.verdict in ("refuted", "refuted-under-reading")
    assert set(stair.evidence["readings"].values()) == {"refuted", "holds"}
    still, bound, ratio, _ = ct.replay_families({"family": "staircase", "alpha": "1"})
    assert still and (bound, ratio) == ("1/4", "1")
    assert not ct.replay_families({"family": "laplace"})[0]


def test_examples() -> None:
    (f,) = ct.examples(0, 0)
    assert f.verdict == "verified" and f.evidence["pairs"] > 500
    # Example 2 with a neighbour that adds a salary of 100 and eta at the threshold: kept
    assert not ct.replay_examples({"example": 2, "D": [50], "Dp": [50, 100], "eta": "9950"})[0]
    # a broken alignment (eta - 100 for 'top') would not keep the output: D = (), D' = (100,)
    q, qp, eta = 0, 0, F(10000)
    assert q + eta >= 10000 and not (qp + eta - 100 >= 10000)
