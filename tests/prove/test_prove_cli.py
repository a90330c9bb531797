"""``dpaudit prove MODULE:OBJECT`` end to end (audit/cli/commands/prove.py through audit.cli.main):
exit codes, the report, bad input; and a DSL program through ``dpaudit test``."""

from __future__ import annotations

import json
import textwrap

import pytest

from audit.cli import main

SVT = "audit.examples.dsl_mechanisms:sparse_vector"


def _report(root, run_id):
    return json.loads((root / run_id / "report.json").read_text())


def test_correct_program_is_proved_with_its_scope_and_sketch(tmp_path, capsys):
    rc = main(["prove", SVT, "--n-max", "3", "--out", str(tmp_path), "--run-id", "svt"])
    out = capsys.readouterr().out
    assert rc == 0
    assert out.startswith("PROVED")
    assert "rho (laplace, scale 2/eps, at most once per run): eta = 1" in out
    rep = _report(tmp_path, "svt")
    (f,) = rep["findings"]
    assert f["verdict"] == "verified" and f["method"] == "smt"
    # the example's loop is one the all-n step handles (tests/prove/test_induction.py)
    assert "every number of queries n >= 1" in f["scope"] and "n <= 3" in f["scope"]
    assert "every eps > 0" in f["scope"]
    assert f["evidence"]["paths_per_n"] == {"1": 2, "2": 3, "3": 4}
    assert rep["outcome"]["word"] == "PROVED"


def test_broken_twin_is_refuted_exactly(tmp_path, capsys):
    rc = main(["prove", "audit.examples.dsl_mechanisms:noisy_max_half_noise", "--n-max", "2",
               "--out", str(tmp_path), "--run-id", "nm"])
    out = capsys.readouterr().out
    assert rc == 1 and out.startswith("REFUTED")
    (f,) = _report(tmp_path, "nm")["findings"]
    assert f["verdict"] == "refuted"
    w = f["evidence"]["witness"]
    # n = 2, q = (0, 0) vs (1, -1) or a mirror: the exact loss is 2 eps - ln(1 + eps) at
    # eps = 1 (by hand: P(Z > 0) / P(Z > 2) for Z a difference of two Lap(1) variables)
    assert float(w["epsilon_witness_lower"]) > 1.0
    assert f["evidence"]["failing_draw_sites"] == ["best_val", "v"]  # first answer, others
    # by hand: with Z a difference of two Lap(1), P(Z > t) = e^-t (2 + t) / 4 (t >= 0), so
    # the log-ratio of an index event between q and q' (gap moved by <= 2) is below
    # sup_t ln(P(Z > t) / P(Z > t + 2)) = 2; on (0, 0) vs (-1, 1) it is
    # ln((1/2) / e^-2) = 2 - ln 2 = 1.30685
    value = float(w["epsilon_witness"])
    assert 1 < value < 2
    if sorted([w["q"], w["q_prime"]]) == [["-1", "1"], ["0", "0"]]:
        assert abs(value - (2 - 0.6931471805599453)) < 1e-9
    # the counterexample replays: the exact probabilities are recomputed, it still fails
    cx = tmp_path / "nm" / "counterexamples" / "prove.alignment.json"
    assert main(["replay", str(cx)]) == 1
    assert "STILL FAILS" in capsys.readouterr().out


def test_no_refute_gives_inconclusive_with_the_z3_counterexample(tmp_path, capsys):
    rc = main(["prove", "audit.examples.dsl_mechanisms:sparse_vector_small_noise",
               "--no-refute", "--out", str(tmp_path), "--run-id", "svt-bad"])
    out = capsys.readouterr().out
    assert rc == 3 and out.startswith("INCONCLUSIVE")
    assert "draw site(s) whose template had no solution: nu" in out
    (f,) = _report(tmp_path, "svt-bad")["findings"]
    assert f["verdict"] == "inconclusive"
    cx = f["evidence"]["z3_counterexample"]
    assert cx["kind"] in ("output", "cost") and len(cx["d"]) == cx["n"]


def test_bad_input_writes_nothing(tmp_path, capsys, monkeypatch):
    rc = main(["prove", "audit.examples.exact_laplace:ClampedMeanLaplace", "--out",
               str(tmp_path)])
    assert rc == 2
    assert "not a DSL mechanism" in capsys.readouterr().err
    monkeypatch.chdir(tmp_path)
    (tmp_path / "dsl_outside_prog.py").write_text(textwrap.dedent("""
        from audit.dsl import laplace, mechanism

        @mechanism(outputs="number")
        def square(q, eps):
            x = q[0] + laplace(1 / eps)
            return x * x
    """))
    rc = main(["prove", "dsl_outside_prog:square", "--out", str(tmp_path / "r")])
    err = capsys.readouterr().err
    assert rc == 2
    assert "dsl_outside_prog.py:7" in err and "multiplying two noisy" in err
    assert not (tmp_path / "r").exists()


def test_paper_claims_prove_is_unchanged(capsys):
    assert main(["prove", "--list"]) == 0


@pytest.fixture
def broken_concrete(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "dsl_concrete_prog.py").write_text(textwrap.dedent("""
        from audit.dsl import laplace, mechanism

        @mechanism(outputs="number")
        def tiny_noise(q, eps):
            return q[0] + laplace(0.05 / eps)   # 20x too little noise
    """))
    (tmp_path / "pairs.json").write_text("[[[0.0], [1.0]]]")
    return tmp_path


def test_dsl_program_runs_through_dpaudit_test(broken_concrete, capsys):
    # seeded black-box runs (deterministic); the broken one's true epsilon is 20, so it is
    # flagged on the first batch; the correct SVT on one pair is not (its true loss <= 1)
    root = broken_concrete
    common = ["--pairs", str(root / "pairs.json"), "--max-samples", "4000", "--n-select",
              "4000", "--first-batch", "2000", "--no-progress", "--no-float-bits"]
    rc = main(["test", "dsl_concrete_prog:tiny_noise", "--out", str(root / "a"), *common])
    assert rc == 1, capsys.readouterr()
    (root / "pairs3.json").write_text("[[[0.0, 0.0, 0.0], [1.0, 0.0, 0.0]]]")
    common[1] = str(root / "pairs3.json")
    rc = main(["test", SVT, "--out", str(root / "b"), *common])
    assert rc == 0, capsys.readouterr()
