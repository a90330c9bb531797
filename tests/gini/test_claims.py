"""Paper claims checked by `dpaudit search` (proofs/claims.py): verdicts, genuine and
replayable counterexamples, and the CLI."""

from __future__ import annotations

import json
from fractions import Fraction as Q
from pathlib import Path

import pytest

from audit.cli import main
from audit.cli.outcomes import EXIT_FINDINGS, EXIT_OK
from audit.findings import Verdict, from_jsonable
from audit.registry import REPLAYERS, load_all
from proofs.gini import claims, oracles


def _by_id(findings) -> dict:
    return {f.id: f for f in findings}


def _replays(f) -> None:
    doc = f.counterexample
    assert doc is not None
    still, expected, actual, _ = REPLAYERS[doc["check"]](from_jsonable(doc["inputs"]))
    assert still, f.id


def test_toy_numbers() -> None:
    fs = _by_id(claims.toy_numbers(30, 0))
    assert fs["paper.sec3.toy-witnesses-optimal"].verdict == Verdict.VERIFIED
    assert fs["paper.sec42.subset-example"].verdict == Verdict.VERIFIED
    f = fs["paper.sec3.toy-numbers"]
    assert f.verdict == Verdict.REFUTED
    # 0.054 (3/55) and 0.809 (17/21) are truncations, not roundings; everything else rounds
    assert sorted(f.evidence["not_rounded"]) == ["k1-min-x1-7", "k2-max-23-0"]
    assert f.evidence["all_match_eq2_rounded_or_truncated"] is True
    assert oracles.gini2([Q(3), Q(0), Q(0), Q(15, 2)]) == Q(17, 21)
    _replays(f)


def test_sec43_example_difference_not_reproduced() -> None:
    f = claims.sec43_example(10, 0)[0]
    assert f.verdict == Verdict.REFUTED
    assert all(r["eq23_printed"] == 1.0 and r["eq24_printed"] == 1.0 for r in f.evidence["rows"])


def test_printed_bounds() -> None:
    fs = _by_id(claims.printed_bounds(8, 0))
    # drawn data and a grid lower bound on A^(1) as the truth: at most not-refuted
    f23 = fs["paper.eq23.upper-bound"]
    assert f23.verdict == Verdict.NOT_REFUTED and f23.method.value == "grid-bound"
    # the scope is pinned in work: 3000 pairs for a 10 s share, 8 s buys 8/10 of them
    assert f23.evidence["pairs_checked"] == 2400
    f = fs["paper.eq24.upper-bound"]
    assert f.verdict == Verdict.REFUTED
    _replays(f)
    inp = from_jsonable(f.counterexample["inputs"])
    # genuine: exact LS of a data set in the ball exceeds the printed value
    truth = claims._truth_A(inp["x"], inp["L"], inp["U"], inp["k"])
    assert float(truth) > f.counterexample["actual"]


def test_definition_21_variants() -> None:
    fs = _by_id(claims.definition21(8, 0))
    # (23), k from 0: random pairs found no violation -> not-refuted, never verified
    assert fs["paper.def21.smooth-bound"].verdict == Verdict.NOT_REFUTED
    assert fs["paper.def21.smooth-bound"].evidence["pairs_checked"] == 1500
    for v in ("eq23-k1", "eq24-k0", "eq24-k1"):
        f = fs[f"paper.def21.smooth-bound.{v}"]
        assert f.verdict == Verdict.REFUTED, v
        _replays(f)


def test_theorem_45_fails_with_positive_lower_bound_only() -> None:
    fs = claims.theorem45(30, 0)
    assert [f.verdict for f in fs] == [Verdict.REFUTED, Verdict.REFUTED]
    for f in fs:
        assert from_jsonable(f.counterexample["inputs"])["L"] > 0
        _replays(f)


def test_algorithms_12_printed() -> None:
    fs = _by_id(claims.algorithms12(6, 0))
    f = fs["paper.alg2.max-gini"]
    assert f.verdict == Verdict.REFUTED
    inp = from_jsonable(f.counterexample["inputs"])
    assert len(inp["x"]) == 2  # shrunk to the smallest size
    _replays(f)


def test_search_cli_report_and_replay(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    code = main(["search", "--budget", "6", "--only", "alg12", "--out", str(tmp_path),
                 "--run-id", "s"])
    assert code == EXIT_OK
    rep = json.loads((tmp_path / "s" / "report.json").read_text())
    assert rep["finished"] and {f["id"] for f in rep["findings"]} >= {"paper.alg2.max-gini"}
    cx = tmp_path / "s" / "counterexamples" / "paper.alg2.max-gini.json"
    assert main(["replay", str(cx)]) == EXIT_FINDINGS
    assert "STILL FAILS" in capsys.readouterr().out


def test_complexity_by_operation_counts() -> None:
    """Algorithm 2's inner body runs exactly (n-k)(k+1) times (hand count of the printed
    loops: s = 1..n-k, i = 0..k); the claim is asymptotic, so at most not-refuted."""
    assert claims.count_alg2_body([1.0, 2.0, 3.0, 4.0, 5.0], 2, 0.0, 10.0) == 3 * 3
    assert claims.count_alg2_body([1.0, 2.0, 3.0], 0, 0.0, 10.0) == 3
    fs = _by_id(claims.complexity(1.0, 0))
    for fid in ("paper.complexity.alg1", "paper.complexity.alg2"):
        assert fs[fid].verdict == Verdict.NOT_REFUTED and fs[fid].method.value == "exact"
    assert fs["paper.complexity.alg2"].evidence["alg2_counts_equal_formula"]


def test_registry_lists_claims() -> None:
    keys = {c.key for c in load_all()}
    assert {"sec3.toy-numbers", "bounds.printed", "def21.smooth", "thm45.inequality"} <= keys
