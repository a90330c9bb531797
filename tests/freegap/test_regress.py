"""``dpaudit regress`` on the free-gap kernels: ours verified; the failure modes the
black-box pairs miss (halting one answer late, stopping one cost unit late, a wrong
threshold/query budget split, query noise not scaled by c) are each refuted."""

from __future__ import annotations

import types
from pathlib import Path

import numpy as np
import pytest

from audit.cli import EXIT_FINDINGS, EXIT_OK, main
from kernels.freegap import api
from kernels.freegap import mechanisms as fg
from proofs.freegap import regress as fr


def _refuted(mod: types.ModuleType, only: str) -> list[str]:
    out = []
    for c in fr.CHECKS:
        if only in c.id:
            out += [f.id for f in fr._run_check(c, mod, "t", 0, "quick")
                    if f.verdict.value == "refuted"]
    return out


def _variant(**funcs) -> types.ModuleType:
    m = types.ModuleType("variant")
    for name in fr.PROTOCOL:
        setattr(m, name, getattr(api, name))
    for k, v in funcs.items():
        setattr(m, k, v)
    return m


def test_ours_verified_with_must_hold_marker() -> None:
    for c in fr.CHECKS:
        if c.id.endswith(".exact"):
            continue  # covered by the CLI run below
        (f,) = fr._run_check(c, api, "t", 0, "quick")
        assert f.verdict.value == "not-refuted", (f.id, f.evidence)
        assert f.evidence["must_hold"] is True


def test_cli_regress_freegap_exit_codes(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    assert main(["regress", "--subject", "ding-et-al-free-gap", "--out", str(tmp_path),
                 "--run-id", "ok", "--only", "svt"]) == EXIT_OK
    capsys.readouterr()


def test_halting_one_answer_late_is_refuted() -> None:
    def late_core(q, T, eta, nu, c):
        return fg.sparse_vector_core(q, T, eta, nu, c + 1)

    def late_sampler(q, T, epsilon, c, rng, size, theta=None):
        th = fg.recommended_theta(c) if theta is None else theta
        eta = rng.laplace(0.0, 1.0 / (th * epsilon), size=size)
        nu = rng.laplace(0.0, 2.0 * c / ((1 - th) * epsilon), size=(size, len(q)))
        return fg.svt_pattern_from_noise(np.asarray(q, float), T, eta, nu, c + 1)

    assert "freegap.svt.core" in _refuted(_variant(sparse_vector_core=late_core), "svt.core")
    bad = _refuted(_variant(sample_sparse_vector=late_sampler), "svt")
    assert "freegap.svt.replay" in bad and "freegap.svt.exact" in bad


def test_query_noise_not_scaled_by_c_and_wrong_split_are_refuted() -> None:
    def unscaled(q, T, epsilon, c, rng, size, theta=None):
        th = fg.recommended_theta(c)
        eta = rng.laplace(0.0, 1.0 / (th * epsilon), size=size)
        nu = rng.laplace(0.0, 2.0 / ((1 - th) * epsilon), size=(size, len(q)))
        return fg.svt_pattern_from_noise(np.asarray(q, float), T, eta, nu, c)

    def swapped(q, T, epsilon, c, rng, size, theta=None):
        th = 1 - fg.recommended_theta(c)
        return fg.sample_sparse_vector(q, T, epsilon, c, rng, size, theta=th)

    assert "freegap.svt.replay" in _refuted(_variant(sample_sparse_vector=unscaled), "svt.replay")
    assert "freegap.svt.replay" in _refuted(_variant(sample_sparse_vector=swapped), "svt.replay")


def test_stopping_one_cost_unit_late_is_refuted() -> None:
    def late(q, T, epsilon, k, rng, size, theta=None, adaptive=True):
        th = fg.recommended_theta(k) if theta is None else theta
        b = fg.adaptive_budgets(epsilon, k, th)
        n = len(q)
        eta = rng.laplace(0.0, 1.0 / b.eps0, size=size)
        xi = rng.laplace(0.0, 2.0 / b.eps2, size=(size, n))
        eq = rng.laplace(0.0, 2.0 / b.eps1, size=(size, n))
        return fg.adaptive_from_noise(np.asarray(q, float), T, eta, xi, eq, k,
                                      b.sigma if adaptive else np.inf, max_units=2 * k - 1)

    assert "freegap.adaptive.replay" in _refuted(
        _variant(sample_adaptive_svt_with_gap=late), "adaptive.replay")


def test_every_subject_runs_without_kernels(tmp_path: Path, capsys: pytest.CaptureFixture,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    """``dpaudit regress`` with no --kernels runs each subject's suite; a refuted check of
    ours makes it exit non-zero."""
    monkeypatch.setattr(api, "noisy_max_core", lambda q, eta: 0)
    code = main(["regress", "--out", str(tmp_path), "--run-id", "all", "--only", "core"])
    capsys.readouterr()
    assert code == EXIT_FINDINGS
    import json
    rep = json.loads((tmp_path / "all" / "report.json").read_text())
    ids = {f["id"]: f["verdict"] for f in rep["findings"]}
    assert ids["freegap.noisy-max.core"] == "refuted"
    assert ids["freegap.svt.core"] == "not-refuted"
