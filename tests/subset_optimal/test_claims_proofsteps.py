"""Appendix B.3 proof steps of Dick et al. checked themselves
(proofs/subset_optimal/claims_proofsteps.py): hand-worked values, verdicts with refuted twins,
the steps refuted as printed (with the reading under which they hold), replayers."""

from __future__ import annotations

from fractions import Fraction as F

import pytest

from audit.falsifiability import needs_twin, twin_problem
from proofs.subset_optimal import claims_proofsteps as cp


@pytest.fixture(scope="module")
def findings() -> dict:
    return {f.id: f for f in cp.b3_proof_steps(0, 0)}


def test_hand_worked() -> None:
    assert cp.clip(F(5), F(0), F(3)) == 3 and cp.clip(F(-1), F(0), F(3)) == 0
    # Lemma 6's display: D = (0, 1), n' = 1: |1/2 - 1| = 1/2, printed n (1 - 1/2) = 1
    assert not cp._lemma6_printed({"D": [F(0), F(1)], "n1": 1, "n2": 1})
    # the middle step: D = (0, 1, 1, 1, 1, 1), 1/eps = 3, l' = 1, q = 1:
    # mu(D \ L_1) - mu(D) = 1 - 5/6 = 1/6 > (2/3)(mu(D \ L_3) - mu(D)) = 1/9
    c = {"D": [F(0)] + [F(1)] * 5, "k": 3, "l'": F(1), "q": 1, "beta": F(0)}
    assert cp._delete(c, 1) == F(1, 6) and F(2, 3) * cp._delete(c, 3) == F(1, 9)
    assert not cp._middle_printed(c)
    assert cp.ONE_SIDED_Q_STEPS[0][1](c)  # the chain's conclusion still holds there
    # the lower bound's last step with u^ - l^ < 2 alpha: -2/(2 - 1) < 0/2 - 2/2
    assert not cp._last_line({"D": [F(0), F(0)], "k": 1, "alpha": F(1), "l^": F(-1),
                              "u^": F(-1)})


def test_verdicts_twins_and_replay(findings: dict) -> None:
    for name in cp.FAMILIES:
        f = findings[cp.family_id(name)]
        assert f.verdict == "verified", name
        assert needs_twin(f.id) and twin_problem(f.evidence) == "", name
        assert all(p["outcome"] == "refuted" for p in f.evidence["twins"].values()), name
    for fid in ("text.subset.b3-lower-bound-last-step", "text.subset.b3-lemma6-middle-step",
                "text.subset.lemma6-proof-display"):
        f = findings[fid]
        assert f.verdict in ("refuted", "refuted-under-reading"), fid
        assert set(f.evidence["readings"].values()) == {"holds", "refuted"}, fid
        still, *_ = cp.replay_printed(
            next(p[3] for p in cp._PRINTED if p[0] == fid))(f.counterexample["inputs"])
        assert still, fid
    ok, *_ = cp.replay_family("lemma6")({"D": ["0", "1", "1", "1"], "n1": "1", "n2": "2"})
    assert not ok
