"""The twin rule and the ``vacuous`` verdict (audit/falsifiability.py, audit/verdict_rules.py;
issue 42): each rule rejects a finding built to break it and accepts the honest variant, and
the Dick et al. accuracy checks that could not fail at n <= 4 now can (hand-worked beta)."""

from __future__ import annotations

import math
from fractions import Fraction

import pytest

from audit import falsifiability as fz
from audit.findings import Finding, Method, Verdict
from audit.report.markdown import render_markdown
from audit.report.writer import build_report
from audit.verdict_rules import VerdictRuleError


def _f(**kw) -> Finding:
    base = dict(id="toy.claim", claim="a claim", reference="Eq. (1)", method=Method.EXHAUSTIVE,
                verdict=Verdict.VERIFIED, scope="n <= 3, every case", evidence={"cases": 7},
                subject="paper:toy")
    base.update(kw)
    return Finding(**base)


REFUTED_TWIN = fz.twin("bound tightened to 1/2", "refuted", witness={"n": 2})


def test_verified_with_an_unrefuted_twin_is_rejected() -> None:
    for outcome in ("not-refuted", "inconclusive"):
        with pytest.raises(VerdictRuleError, match="verified-twin"):
            _f(evidence={"cases": 7, "twin": fz.twin("bound tightened", outcome)})
    with pytest.raises(VerdictRuleError, match="verified-twin"):
        _f(evidence={"cases": 7, "twin": {"outcome": "refuted"}})  # names no perturbation
    assert _f(evidence={"cases": 7, "twin": REFUTED_TWIN}).verdict is Verdict.VERIFIED


def test_converted_checks_need_a_twin() -> None:
    fid = fz.TWIN_REQUIRED[0]
    with pytest.raises(VerdictRuleError, match="verified-twin.*TWIN_REQUIRED"):
        _f(id=fid)
    _f(id=fid, evidence={"cases": 7, "twin": REFUTED_TWIN})
    assert fz.needs_twin(fid) and not fz.needs_twin("toy.claim")
    # patterns: every Liu release's exact loss, not its black-box test
    assert fz.needs_twin("release.mean.def1.exact-loss")
    assert not fz.needs_twin("release.mean.def1.blackbox")


def test_vacuous_states_its_reason() -> None:
    with pytest.raises(VerdictRuleError, match="vacuous"):
        _f(verdict=Verdict.VACUOUS)
    with pytest.raises(VerdictRuleError, match="vacuous"):
        _f(verdict=Verdict.VACUOUS, scope=" ", evidence={"vacuous_reason": "x"})
    f = _f(verdict=Verdict.VACUOUS, evidence={"vacuous_reason": "bound exceeds every error"})
    assert Finding.from_dict(f.to_dict()) == f


def test_tightened_twin_and_decide() -> None:
    tw = fz.tightened_bound_twin(Fraction(1), 1, at={"D": [0]}, what="loss")
    assert tw["outcome"] == "refuted"
    assert tw["margin"]["tightened_claim"] < 1 == tw["margin"]["attained"]
    assert fz.decide(True, tw, failed=Verdict.REFUTED, vacuous_reason="r") is Verdict.VERIFIED
    zero = fz.tightened_bound_twin(Fraction(0), 1, at=None, what="failure mass")
    assert zero["outcome"] == "not-refuted"
    assert fz.decide(True, zero, failed=Verdict.REFUTED, vacuous_reason="r") is Verdict.VACUOUS
    # the reason travels with the twin: a vacuous finding with that twin obeys the rules
    assert zero["vacuous_reason"] == "r" == fz.vacuous_reason({"twin": zero})
    _f(verdict=Verdict.VACUOUS, evidence={"twin": zero})
    assert fz.decide(False, zero, failed=Verdict.REFUTED, vacuous_reason="r") is \
        Verdict.REFUTED
    with pytest.raises(ValueError):
        fz.decide(True, zero, failed=Verdict.REFUTED, vacuous_reason=" ")
    with pytest.raises(ValueError):
        fz.twin("x", "verified")


def test_tally_and_reports_show_vacuous() -> None:
    fs = [_f(id="a", evidence={"cases": 1, "twin": REFUTED_TWIN}), _f(id="b"),
          _f(id="c", verdict=Verdict.VACUOUS, evidence={"vacuous_reason": "cannot fail"})]
    rep = build_report("prove", "paper:toy", 0, fs, {}, "2025-01-01T00:00:00Z", True)
    assert fz.tally(rep["findings"]) == {"verified": 2, "verified_with_twin": 1,
                                         "verified_without_twin": 1, "vacuous": 1}
    assert rep["summary"]["vacuous"] == 1 and rep["summary"]["verified"] == 2
    md = render_markdown(rep)
    assert "1 vacuous" in md and "— VACUOUS" in md and "cannot fail" in md


def test_dick_accuracy_old_scope_cannot_fail_new_scope_can() -> None:
    """Hand-worked: at eps = 1, alpha = 1/4, zeta = 1/2, beta = 2 ln 16 = 5.55 exceeds every
    rank error of a data set of size <= 4, so the failure mass is 0 there (the former
    'verified' was vacuous); at eps = 4 beta = ln(16)/2 = 1.39 < 2, so a data set of 4 equal
    points with r = 4 has positive failure mass."""
    from proofs.subset_optimal import claims as c

    assert 2 * math.log(16) > 4 and math.log(16) / 2 < 2
    old = c._alg2_failure_masses(4, (Fraction(1),))
    for rec in old.values():
        assert rec["max"] == 0 and rec["positive"] == 0 and rec["attained"] is None
    new = c._alg2_failure_masses(4, (Fraction(4),))
    for rec in new.values():
        assert 0 < rec["max"] <= 1 and rec["positive"] > 0


def test_decide_sampled_is_at_most_not_refuted() -> None:
    refuted_twin = fz.twin("a perturbation", "refuted")
    assert fz.decide_sampled(True, True, dict(refuted_twin), refuted=Verdict.REFUTED,
                             vacuous_reason="r") is Verdict.REFUTED
    assert fz.decide_sampled(False, True, dict(refuted_twin), refuted=Verdict.REFUTED,
                             vacuous_reason="r") is Verdict.NOT_REFUTED
    for exercised, outcome in ((False, "refuted"), (True, "not-refuted")):
        tw = fz.twin("a perturbation", outcome)
        assert fz.decide_sampled(False, exercised, tw, refuted=Verdict.REFUTED,
                                 vacuous_reason="could not fail") is Verdict.VACUOUS
        assert tw["vacuous_reason"] == "could not fail"
