"""Running-text claims of Liu's supplement (proofs/global_sensitivity/claims_text.py): hand-
worked values, each verdict with its readings, and the replayers."""

from __future__ import annotations

from fractions import Fraction as F

from audit.findings import from_jsonable
from proofs.global_sensitivity import claims_text as ct


def _replay(fn, finding):
    return fn(from_jsonable(finding.counterexample["inputs"]))


def test_max_variance_hand_worked() -> None:
    # 3 records in [0, 1]: (0, 0, 1) has mean 1/3, SS 2/3, variance 1/3; printed (n-1)/(4(n-2))
    # at n = 4 is 3/8.  4 records: (0, 0, 1, 1): SS 1, variance 1/3 = printed 4/12 at n = 5
    assert ct.max_variance(3) == F(1, 3) and F(3, 8) > F(1, 3)
    assert ct.max_variance(4) == F(1, 3) == F(5 - 1, 4 * (5 - 2))


def test_var_cases_verdicts() -> None:
    case1, case2 = ct.var_cases(0, 0)
    assert case1.verdict in ("refuted", "refuted-under-reading")
    assert set(case1.evidence["readings"].values()) == {"refuted", "holds"}
    still, printed, exact, _ = _replay(ct.replay_var, case1)
    assert still and (printed, exact) == ("3/8", "1/3")  # n = 4
    assert case2.verdict == "verified"


def test_case_lines_hand_worked_and_verdicts() -> None:
    # case (1,1), n = 3, rest = ((0,0), (0,0)): x = ((1,1), (0,0), (0,0)), cov = 1/3; x' has
    # cov 0, so s12 - s12' = 1/3 = 1/n; the printed first line gives -(2)(2)/(3*4) = -1/3
    n, k = F(3), (F(0), F(0), F(0))
    assert ct.first_line((1, 1), n, *k) == F(-1, 3)
    assert ct.bullet((1, 1), n, F(0), full=False) == F(1, 3)
    first, bullets = ct.cov_case_lines(0, 0)
    assert first.verdict == "refuted" and bullets.verdict == "verified"
    assert first.evidence["mismatches_per_case"]["(0, 0)"] == 0
    assert first.evidence["mismatches_per_case"]["(1, 1)"] > 0
    still, truth, got, _ = _replay(ct.replay_case_line, first)
    assert still and truth != got


def test_maximisers_and_same_gs_and_index() -> None:
    (m,) = ct.cov_maximisers(0, 0)
    assert m.evidence["missing_from_printed"] == [(1, 1, 0, 0)]
    assert set(m.evidence["readings"].values()) == {"refuted", "holds"}
    assert _replay(ct.replay_maximisers, m)[0]
    # a list that is the image of the transformed one replays as fixed
    assert not ct.replay_maximisers({"printed": [list(c) for c in ct.TRANSFORMED]})[0]
    (s,) = ct.same_gs(0, 0)
    table = s.evidence["table"]
    assert table["histogram n=3"]["def1"] == "2" and table["histogram n=3"]["def2"] == "1"
    assert table["proportion-vector n=4"]["def1"] == table["proportion-vector n=4"]["def2"] \
        == "1/2"
    assert all(table[f"mean n={n}"]["same"] == "True" for n in (3, 4, 5))
    assert _replay(ct.replay_same, s)[0]
    (ix,) = ct.mean_index(0, 0)
    assert set(ix.evidence["readings"].values()) == {"refuted", "holds"}
    assert _replay(ct.replay_mean_index, ix)[0]


def test_pooled_cov_lines() -> None:
    d1, d2 = ct.pooled_cov(0, 0)
    for f in (d1, d2):
        assert set(f.evidence["readings"].values()) == {"refuted", "holds"}
        assert _replay(ct.replay_pooled_cov, f)[0]
    # n = 10, J = 2, n1 = 4: a = 3/32; lower end 3/32 + 6/(4*8*5) = 21/160, upper end
    # 3/32 + 6/(4*8*7) = 27/224 = eq. (5) at these sizes: (1 - 1/4 + 6/28)/8
    assert d2.evidence["lower_at_n10_J2_n1_4"] == "21/160"
    assert d2.evidence["upper_at_n10_J2_n1_4"] == "27/224" == str(
        (1 - F(1, 4) + F(6, 28)) / 8)
    # n1 = 2: the two ends agree, nothing to replay
    assert not ct.replay_pooled_cov({"part": "def2", "n": 10, "J": 2, "n1": 2})[0]
    # ranges >= 1: the printed (too large) factor is still an upper bound
    assert not ct.replay_pooled_cov({"part": "def1", "R1": "2", "R2": "3"})[0]
