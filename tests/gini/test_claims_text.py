"""Section 3 running-text rules on the minimum Gini after k replacements: hand-worked values,
the exact brute-force oracle, the verdicts (one verified, one refuted under every reading) and
the replayers."""

from __future__ import annotations

from fractions import Fraction as Q

from audit.findings import from_jsonable
from proofs.gini import claims_text as ct


def test_rule_min_hand_worked() -> None:
    x = [Q(1), Q(2), Q(2), Q(3)]
    # replace (1, 2) by 3 -> (2, 3, 3, 3): eq. (2) = (-6 - 3 + 3 + 9) / (4 * 2.75 * 3) = 1/11
    assert ct.rule_min(x, 2, "consecutive") == Q(1, 11)
    # the true minimum replaces 1 and 3 by 2: (2, 2, 2, 2), Gini 0
    assert ct._true_min(x, 2) == 0


def test_k1_rule_on_the_toy_example() -> None:
    # Section 3: X'_1(7) = (7, 6, 7, 7.5) gives 0.054 (eq. (2): 4.5 / 82.5 = 3/55)
    toy = [Q(3), Q(6), Q(7), Q(15, 2)]
    assert ct.at_a_point_min(toy) == Q(3, 55) == ct._true_min(toy, 1)


def test_verdicts_and_replay() -> None:
    k1, k2 = ct.min_rules(0, 0)
    assert k1.verdict == "verified" and k1.counterexample is None
    assert k2.verdict == "refuted"
    for w in ("consecutive", "window", "any"):
        assert k2.evidence[f"{w}_reading_violations"], w
    still, expected, actual, _ = ct.replay_largest(from_jsonable(k2.counterexample["inputs"]))
    assert still and expected != actual
    # the smallest window-reading witness, by hand: (1, 1, 2, 2, 3), k = 2: keeping (2, 2, 3)
    # and setting both replaced records to 2 gives 1/11; to 3 (the largest kept) gives 3/26
    still, expected, actual, _ = ct.replay_largest({"data": ["1", "1", "2", "2", "3"], "k": 2,
                                                    "windows": "window"})
    assert still and expected == "1/11" and actual == "1/9"


def test_a_k_equals_1_readings() -> None:
    (f,) = ct.a_k_equals_1(0, 0)
    ev = f.evidence
    # (d, d, d, 7.5) at d = 1/100: eq. (2) = (-3d - d + d + 22.5) / (3 (3d + 7.5)) = 749/753
    assert ev["eq2_at_d_1_over_100"] == "749/753"
    assert ev["eq2_limit"] == "1" and ev["eq1_limit"] == "3/4"
    assert set(ev["readings"].values()) == {"holds", "refuted"}
    assert ct.replay_a_k({})[0]
