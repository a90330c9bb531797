"""The verdict rules (audit/verdict_rules.py) hold for every Finding, committed or new.

* each rule rejects a Finding built to break it, and accepts the honest variant (so the rule
  can fail and does not reject what it should pass);
* every finding of every committed example report under reports/examples/ passes the rules
  when read back (``Finding.from_dict`` re-runs them);
* a fast subset of registered claims runs through ``registry.run_claim`` (rules + every
  refutation has a replayer); ``pytest -m slow tests/engine/test_verdict_rules.py`` runs
  every registered claim of every subject the same way.
"""

from __future__ import annotations

import json
import math
from fractions import Fraction
from pathlib import Path

import pytest

from audit import registry, work_budget
from audit.findings import Finding, Method, Verdict, counterexample_document, from_jsonable
from audit.verdict_rules import AS_PRINTED, VerdictRuleError, bound_covered

EXAMPLES = Path(__file__).resolve().parents[2] / "reports" / "examples"
CX = counterexample_document("toy.check", "paper:toy", {"n": 2}, 1, 2, None)


def _f(**kw) -> Finding:
    base = dict(id="toy.claim", claim="a claim", reference="Eq. (1)", method=Method.EXHAUSTIVE,
                verdict=Verdict.VERIFIED, scope="n <= 3, every case", evidence={"cases": 7},
                subject="paper:toy")
    base.update(kw)
    return Finding(**base)


@pytest.mark.parametrize("method", ["empirical", "sampled", "timing", "grid-bound", "oracle"])
def test_non_verifying_methods_cannot_verify(method: str) -> None:
    with pytest.raises(VerdictRuleError, match="verified-method"):
        _f(method=method)
    assert _f(method=method, verdict=Verdict.NOT_REFUTED).verdict is Verdict.NOT_REFUTED


@pytest.mark.parametrize("method", ["proof", "symbolic", "smt", "exhaustive", "exact"])
def test_verifying_methods(method: str) -> None:
    assert _f(method=method).verdict is Verdict.VERIFIED


def test_verified_needs_scope_and_evidence() -> None:
    with pytest.raises(ValueError, match="scope"):
        _f(scope=" ")
    with pytest.raises(VerdictRuleError, match="empty evidence"):
        _f(evidence={})


def test_sampled_flag_forbids_verified() -> None:
    with pytest.raises(VerdictRuleError, match="verified-sampled"):
        _f(method=Method.CROSSCHECK, evidence={"sampled": True, "cases": 3})
    _f(method=Method.CROSSCHECK, evidence={"sampled": False, "cases": 3})


def test_certified_bound_above_claim_is_never_verified() -> None:
    """subset.alg1-privacy's former bound 1.0000000000000002 against eps = 1 (issue 42): no
    tolerance turns a bound above the claim into a proof of it."""
    over = 1.0000000000000002
    with pytest.raises(VerdictRuleError, match="verified-bound.*exceeds"):
        _f(method=Method.EXACT_LOSS, evidence={"claimed": 1.0, "worst_joint": over})
    with pytest.raises(VerdictRuleError, match="verified-bound"):
        _f(method=Method.EXACT_LOSS, evidence={"claimed": 1.0, "worst_joint": over},
           tolerance={"rtol": 1e-12})
    _f(method=Method.EXACT_LOSS, evidence={"claimed": 1.0, "worst_joint": 1.0})
    _f(method=Method.EXACT_LOSS, evidence={"claimed": Fraction(1), "worst_joint": Fraction(1)})
    # a bound far above is not covered by a tiny tolerance
    with pytest.raises(VerdictRuleError):
        _f(method=Method.EXACT_LOSS, evidence={"claimed": 1.0, "certified_bound": [1.5, {}]},
           tolerance={"atol": 1e-9})


def test_bound_covered_is_exact() -> None:
    assert bound_covered(Fraction(1), Fraction(1))
    assert bound_covered(1.0, Fraction(1))
    # one ulp above the claim is above it: no tolerance turns it into a proof (issue 42)
    assert not bound_covered(1.0 + 2**-52, 1.0)
    assert not bound_covered(1.0 + 2**-52, Fraction(1))
    # float(0.1) = 1/10 + 1/180143985094819840 exactly
    assert bound_covered(0.1, Fraction(1, 10) + Fraction(1, 10**17))
    assert not bound_covered(0.1, Fraction(1, 10))
    assert not bound_covered(math.nan, 1.0)
    assert not bound_covered(math.inf, 1.0)
    assert bound_covered(5.0, math.inf)


def test_refuted_paper_claim_states_reading_and_statement() -> None:
    with pytest.raises(VerdictRuleError, match="reading"):
        _f(verdict=Verdict.REFUTED, counterexample=CX)
    with pytest.raises(VerdictRuleError, match="reference"):
        _f(verdict=Verdict.REFUTED, counterexample=CX, reference="", reading=AS_PRINTED)
    f = _f(verdict=Verdict.REFUTED, counterexample=CX, reading=AS_PRINTED)
    assert f.to_dict()["reading"] == AS_PRINTED
    assert Finding.from_dict(f.to_dict()) == f
    # not a paper claim (a kernel or a data set): no reading needed
    _f(verdict=Verdict.REFUTED, counterexample=CX, subject="kernels:k")
    # an empty reading is not written (reports of other commands keep their bytes)
    assert "reading" not in _f().to_dict()


def test_refuted_under_reading_lists_the_readings() -> None:
    ok = {"eq. (1)": "refuted", "eq. (2)": "holds"}
    f = _f(verdict=Verdict.REFUTED_UNDER_READING, counterexample=CX, reading="eq. (1)",
           evidence={"readings": ok})
    assert f.verdict is Verdict.REFUTED_UNDER_READING
    for bad in ({}, {"eq. (1)": "refuted"}, {"eq. (1)": "holds", "eq. (2)": "holds"}):
        with pytest.raises(VerdictRuleError, match="reading-split"):
            _f(verdict=Verdict.REFUTED_UNDER_READING, counterexample=CX, reading="eq. (1)",
               evidence={"readings": bad})
    with pytest.raises(VerdictRuleError, match="reading-split"):
        _f(verdict=Verdict.REFUTED_UNDER_READING, counterexample=CX, reading="eq. (2)",
           evidence={"readings": ok})


def test_not_tight_needs_the_slack() -> None:
    with pytest.raises(VerdictRuleError, match="not-tight"):
        _f(verdict=Verdict.NOT_TIGHT)
    _f(verdict=Verdict.NOT_TIGHT, evidence={"slack": Fraction(1, 12)})


def _example_reports() -> list[Path]:
    return sorted(EXAMPLES.glob("*/report.json"))


def test_examples_exist() -> None:
    assert len(_example_reports()) >= 15


@pytest.mark.parametrize("path", _example_reports(), ids=lambda p: p.parent.name)
def test_every_committed_finding_obeys_the_rules(path: Path) -> None:
    # a report about confidential data keeps its whole findings (evidence, counterexamples)
    # in confidential/report.json; the public one is a stripped view of it
    whole = path.parent / "confidential" / "report.json"
    rep = json.loads((whole if whole.exists() else path).read_text(encoding="utf-8"))
    assert rep["findings"], path
    for d in rep["findings"]:
        Finding.from_dict(d)  # raises VerdictRuleError on any violation


def test_issue_findings_have_honest_verdicts() -> None:
    """The findings named in the verdict-rules issue, as committed now."""
    want = {
        ("search", "paper.complexity.alg1"): "not-refuted",
        ("search", "paper.complexity.alg2"): "not-refuted",
        ("search", "paper.def21.smooth-bound"): "not-refuted",
        ("search", "paper.eq23.upper-bound"): "not-refuted",
        ("search", "tight.ball-exhaustive"): "not-refuted",
        ("search-freegap", "freegap.lemma5.formula"): "not-refuted",
        ("search-subset-optimal", "subset.replace-one.alg3"): "not-refuted",
        ("reproduce-gini", "repro.sec2.gini-gs-example"): "refuted-under-reading",
        ("search-global-sensitivity", "gs.pooled-covariance.def2.tight"): "not-tight",
        ("search-global-sensitivity", "release.mean.truncation-redraw"): "refuted-under-reading",
    }
    for (run, fid), verdict in want.items():
        rep = json.loads((EXAMPLES / run / "report.json").read_text(encoding="utf-8"))
        got = {f["id"]: f for f in rep["findings"]}
        assert got[fid]["verdict"] == verdict, (run, fid, got[fid]["verdict"])
    # the not-tight slack is the exact gap printed - sup at its case (hand check: the report
    # states both; their difference must equal the slack)
    rep = json.loads((EXAMPLES / "search-global-sensitivity" / "report.json").read_text())
    f = Finding.from_dict(next(d for d in rep["findings"]
                               if d["id"] == "gs.pooled-covariance.def2.tight"))
    ev = f.evidence
    slack = ev["slack"]
    if isinstance(slack, Fraction):
        assert slack == Fraction(ev["printed_at"]) - ev["exact_sup_at"] > 0
    else:
        assert float(slack) > 0


def test_work_budget_is_a_pure_function_of_the_numbers() -> None:
    assert work_budget.cases(3000, math.inf, 10.0) == 3000
    assert work_budget.cases(3000, 10.0, 10.0) == 3000
    assert work_budget.cases(3000, 5.0, 10.0) == 1500
    assert work_budget.cases(3000, 0.0, 10.0, minimum=100) == 100
    assert work_budget.cases(50, 0.0, 10.0, minimum=100) == 50
    with pytest.raises(ValueError):
        work_budget.cases(10, -1.0, 10.0)


# --------------------------------------------------------------------- registered claims
FAST = [
    ("lan-reiter-2025", "repro.sec2-examples"),
    ("lan-reiter-2025", "complexity.printed"),
    ("lan-reiter-2025", "thm45.inequality"),
    ("liu-global-sensitivity", "release.bounding"),
    ("liu-global-sensitivity", "derivation.steps"),
    ("dick-et-al-subset-optimal", "subset.lemma1-oracle"),
    ("dick-et-al-subset-optimal", "subset.definitions"),
]


def _claim(subject: str, key: str) -> registry.Claim:
    registry.load_all([subject])
    return next(c for c in registry.CLAIMS if c.paper == subject and c.key == key)


@pytest.mark.parametrize("subject, key", FAST)
def test_fast_claims_obey_the_rules_and_replay(subject: str, key: str) -> None:
    found = registry.run_claim(_claim(subject, key), 5.0, 0)
    assert found
    for f in found:
        if f.verdict in (Verdict.REFUTED, Verdict.REFUTED_UNDER_READING):
            r = registry.replay(f.counterexample["check"],
                                from_jsonable(f.counterexample["inputs"]))
            assert r.still_fails, (f.id, r)


def _all_claims() -> list[tuple[str, str]]:
    registry.load_all()
    return [(c.paper, c.key) for c in registry.CLAIMS
            if c.paper in registry.subjects()]


@pytest.mark.slow
@pytest.mark.parametrize("subject, key", _all_claims())
def test_every_registered_claim_obeys_the_rules(subject: str, key: str) -> None:
    """Every claim of every installed subject at a small budget: the rules hold (a violating
    Finding cannot be built) and every refutation has a replayer."""
    assert registry.run_claim(_claim(subject, key), 5.0, 0) is not None
