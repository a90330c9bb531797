"""``dpaudit regress`` on the Liu kernels: the shipped kernels pass every check; hand-made
broken twins (a less private release, a statistic computed wrongly) are refuted by the
check aimed at them.  Every twin is a monkeypatch of one kernel function, seen through the
shipped ``kernels.global_sensitivity.api`` (its wrappers call the kernel modules at call
time), exactly as a maintainer's bug would be."""

from __future__ import annotations

import json
import math
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from audit.checks.kernel import Context, run_check
from audit.cli import main
from audit.cli.outcomes import EXIT_FINDINGS, EXIT_OK
from kernels.global_sensitivity import api
from kernels.global_sensitivity import formulas as gsf
from kernels.global_sensitivity import releases as rel
from kernels.global_sensitivity import statistics as stt
from proofs.global_sensitivity import regress as R


def _verdicts(prefix: str) -> dict[str, str]:
    out = {}
    for c in R.CHECKS:
        if c.id.startswith(prefix):
            for f in run_check(c, api, "t", Context()):
                out[f.id] = f.verdict.value
    return out


def _committed_verdicts() -> dict[str, str]:
    """The verdicts of the committed example report (its command is in README)."""
    path = Path(__file__).resolve().parents[2] / "reports" / "examples"
    path = path / "regress-global-sensitivity"
    path = path / "report.json"
    return {f["id"]: f["verdict"] for f in json.loads(path.read_text())["findings"]}


def _refuted(prefix: str) -> list[str]:
    return [k for k, v in _verdicts(prefix).items() if v == "refuted"]


def test_shipped_kernels_pass_every_check_with_stated_verdicts() -> None:
    got = _verdicts("liu.")
    assert len(got) == len(R.CHECKS)
    assert got == _committed_verdicts()  # the committed example report regenerates
    for cid, v in got.items():
        # exhaustive grids with exact comparisons: verified; the sampled replay: not-refuted
        assert v == ("not-refuted" if cid == "liu.truncated.law" else "verified"), (cid, v)


def test_release_privacy_is_tight_on_the_grid_for_the_mean() -> None:
    (f,) = run_check(R.SUITE.check("liu.release.mean.def1"), api, "t", Context())
    # the loss attains epsilon up to the scale's upward rounding (a bound that could never
    # be reached would not show a halved scale)
    assert f.evidence["smallest_relative_gap"] < 1e-14
    assert f.evidence["below_exact"] == 0


def test_halved_release_scale_is_refuted(monkeypatch: pytest.MonkeyPatch) -> None:
    real = rel.laplace_scale
    monkeypatch.setattr(rel, "laplace_scale", lambda gs, e: 0.5 * real(gs, e))
    bad = _refuted("liu.release.")
    assert {f"liu.release.{s}.{d}" for s in R.STATS for d in ("def1", "def2")} <= set(bad)


def test_gs_too_small_for_one_statistic_is_refuted(monkeypatch: pytest.MonkeyPatch) -> None:
    real = gsf.exact_gs

    def low(stat: str, relation: str, **kw):  # Def-2 variance GS R^2/(n+1), exact R^2/n
        v = real(stat, relation, **kw)
        if stat == "variance" and relation == gsf.DEF2:
            r = Fraction(kw.get("hi", 1)) - Fraction(kw.get("lo", 0))
            return r * r / (kw["n"] + 1)
        return v

    monkeypatch.setattr(gsf, "exact_gs", low)
    assert _refuted("liu.release.variance.") == ["liu.release.variance.def2"]


def test_proportion_vector_def2_printed_gs_is_refuted(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(gsf, "exact_gs", gsf.printed_gs)  # prints 1/n for Def 2 (exact 2/n)
    assert "liu.release.proportion-vector.def2" in _refuted("liu.release.proportion-vector")


def test_scale_not_rounded_up_is_refuted(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rel, "laplace_scale", lambda gs, e: float(gs) / float(e))
    bad = _refuted("liu.")
    assert "liu.scale.rounded-up" in bad
    # round-to-nearest falls one ulp below GS/epsilon on some grid pair: the loss exceeds
    # epsilon by that ulp, and the exact comparison sees it
    assert any(b.startswith("liu.release.") for b in bad)


def test_covariance_centred_on_the_wrong_column_is_refuted(
        monkeypatch: pytest.MonkeyPatch) -> None:
    def wrong(pts):  # each variable centred on the other's mean (centring only one of
        # them on the wrong mean is an identity: sum (x - xbar) c = 0 for a constant c)
        mx = stt.mean([p[0] for p in pts])
        my = stt.mean([p[1] for p in pts])
        return sum(((p[0] - my) * (p[1] - mx) for p in pts), 0 * mx)

    monkeypatch.setattr(stt, "sum_of_products", wrong)
    bad = _refuted("liu.stat.")
    assert {"liu.stat.covariance", "liu.stat.pooled-covariance"} <= set(bad)


def test_pooled_variance_wrong_degrees_of_freedom_is_refuted(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(stt, "pooled_variance",
                        lambda cells: sum((stt.sum_of_squares(c) for c in cells), 0)
                        / sum(len(c) for c in cells))
    assert _refuted("liu.stat.pooled-variance") == ["liu.stat.pooled-variance"]


def test_truncation_with_wrong_law_is_refuted(monkeypatch: pytest.MonkeyPatch) -> None:
    def untruncated_then_clipped(value, scale, lo, hi, rng, size=1):
        u = rng.random(size)
        return np.clip(rel._lap_ppf(u, value, scale), lo, hi)  # BIT, not truncation

    monkeypatch.setattr(rel, "truncated_laplace", untruncated_then_clipped)
    assert _refuted("liu.truncated.law") == ["liu.truncated.law"]


def test_rescale_ignoring_negatives_is_refuted(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rel, "rescale_proportions",
                        lambda y: np.asarray(y, float) / np.sum(y, axis=-1, keepdims=True))
    assert _refuted("liu.rescale")[0] == "liu.rescale.vs-exact"


def test_counterexample_replays(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                capsys: pytest.CaptureFixture) -> None:
    real = rel.laplace_scale
    monkeypatch.setattr(rel, "laplace_scale", lambda gs, e: 0.5 * real(gs, e))
    (f,) = run_check(R.SUITE.check("liu.release.mean.def2"), api, "kernels:t", Context())
    assert f.verdict.value == "refuted"
    doc = f.counterexample
    still, lines = R.SUITE.replay(doc, api)
    assert still and any("exact loss" in ln for ln in lines)
    monkeypatch.setattr(rel, "laplace_scale", real)
    still, _ = R.SUITE.replay(doc, api)
    assert not still
    assert math.isfinite(float(doc["actual"]["exact_loss"]))


def test_cli_regress_liu(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    assert main(["regress", "--subject", "liu-global-sensitivity", "--out", str(tmp_path),
                 "--run-id", "ok", "--only", "liu.release.mean"]) == EXIT_OK
    capsys.readouterr()


def test_cli_regress_liu_refutes_a_halved_scale(tmp_path: Path, capsys: pytest.CaptureFixture,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    real = rel.laplace_scale
    monkeypatch.setattr(rel, "laplace_scale", lambda gs, e: 0.5 * real(gs, e))
    assert main(["regress", "--subject", "liu-global-sensitivity", "--out", str(tmp_path),
                 "--run-id", "bad", "--only", "liu.release.proportion."]) == EXIT_FINDINGS
    capsys.readouterr()
