"""`dpaudit test` with the neighbour search and the exact sensitivity check wired in.

Truths: the float-sum examples (audit/examples/float_sums.py) whose claims are wrong
(NaiveFloatSum: left-to-right float sum claiming U - L) or right (IntegerSum) by
construction; a permutation of three distinct records differs in every position, so it is
not a replace-one neighbour of the sequence the mechanism sees.  Black-box parts are seeded
(seed 0); the sensitivity check is deterministic.
"""

from __future__ import annotations

import json

import pytest

from audit import test_mechanism
from audit.cli import main
from audit.examples.float_sums import IntegerSum, NaiveFloatSum
from audit.findings import Verdict
from audit.privacy.user_audit import pairs_from_list
from kernels.errors import InvalidParameterError

SMALL = {"n_select": 4000, "n_certify": 4000, "first_batch": 2000, "float_bits": False,
         "seed": 0}


def test_pair_differing_in_every_position_is_not_replace_one():
    with pytest.raises(InvalidParameterError, match="not neighbours"):
        pairs_from_list([[[1.0, 2.0, 3.0], [3.0, 1.0, 2.0]]], "replace-one")
    assert len(pairs_from_list([[[1.0, 2.0, 3.0], [1.0, 2.0, 0.0]]], "replace-one")) == 1


def test_bounds_alone_use_the_neighbour_search_families():
    r = test_mechanism(IntegerSum, lower=0.0, upper=1.0, n=256, **SMALL)
    assert "neighbour search" in r.parameters["pairs_source"]
    assert "binade-straddle" in r.parameters["pairs_source"]
    sens = next(f for f in r.findings if f.id == "user.sensitivity")
    assert sens.verdict == Verdict.NOT_REFUTED


def test_declared_aggregate_gets_the_exact_check_and_is_flagged():
    r = test_mechanism(NaiveFloatSum, lower=0.0, upper=1.0, n=4096, **SMALL)
    sens = next(f for f in r.findings if f.id == "user.sensitivity")
    assert sens.verdict == Verdict.REFUTED and r.outcome == "flagged"
    assert sens.evidence["worst"]["distance"] > 1.0


def test_cli_n_flag_and_replay(tmp_path, capsys):
    out = tmp_path / "rep"
    code = main(["test", "audit.examples.float_sums:NaiveFloatSum", "--lower", "0",
                 "--upper", "1", "--n", "8192", "--out", str(out), "--max-samples", "4000",
                 "--first-batch", "2000", "--no-float-bits", "--no-progress"])
    assert code == 1
    rep = json.loads(next(out.rglob("report.json")).read_text())
    ids = {f["id"]: f["verdict"] for f in rep["findings"]}
    assert ids["user.sensitivity"] == "refuted"
    cx = next(out.rglob("user.sensitivity.json"))
    capsys.readouterr()
    assert main(["replay", str(cx)]) == 1  # the refutation reproduces


def test_power_in_words_says_a_claim_above_reach_plainly():
    import numpy as np

    def noisy(data, size, rng):
        return float(np.sum(data)) + rng.laplace(0.0, 1.0, size)

    r = test_mechanism(noisy, epsilon=20.0, relation="add-remove", lower=0.0, upper=1.0,
                       **SMALL)
    words = r.findings[0].evidence["power"]["in_words"]
    assert "ABOVE this run's reach" in words and "P(D) =" in words
    r1 = test_mechanism(noisy, epsilon=1.0, relation="add-remove", lower=0.0, upper=1.0,
                        **SMALL)
    assert "ABOVE" not in r1.findings[0].evidence["power"]["in_words"]


def test_replay_imports_the_glue_only_from_trusted_places(tmp_path, monkeypatch, capsys):
    """The counterexample records what ran (MODULE:OBJECT and package versions), never
    where from: replayed from the glue's folder it still fails; from elsewhere the module is
    not found (exit 2); an import_path outside the file's folder needs --trust-code."""
    import sys

    glue = tmp_path / "glue"
    glue.mkdir()
    (glue / "myglue_issue_replay.py").write_text(
        "def mean_crashes(data, size, rng):\n"
        "    return sum(data) / len(data) + rng.laplace(0.0, 1.0, size)\n")
    monkeypatch.chdir(glue)
    out = tmp_path / "rep"
    code = main(["test", "myglue_issue_replay:mean_crashes", "--epsilon", "1", "--relation",
                 "add-remove", "--lower", "0", "--upper", "1", "--out", str(out),
                 "--max-samples", "4000", "--first-batch", "2000", "--no-float-bits",
                 "--no-progress"])
    assert code == 1
    cx = next(out.rglob("user.crash.1.json"))
    doc = json.loads(cx.read_text())
    assert "import_path" not in doc["inputs"] and "numpy" in doc["inputs"]["environment"]
    # a fresh interpreter state: the module is not imported and the glue folder not on the path
    monkeypatch.delitem(sys.modules, "myglue_issue_replay")
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p not in ("", str(glue),
                                                                         str(glue.resolve()))])
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")
    capsys.readouterr()
    assert main(["replay", str(cx)]) == 2
    assert "no module 'myglue_issue_replay'" in capsys.readouterr().err
    doc["inputs"]["import_path"] = str(glue)  # an older file naming a folder elsewhere
    cx.write_text(json.dumps(doc))
    assert main(["replay", str(cx)]) == 2
    assert "--trust-code" in capsys.readouterr().err
    assert main(["replay", str(cx), "--trust-code"]) == 1
    out_text = capsys.readouterr().out
    assert "ZeroDivisionError" in out_text and "imports   mechanism module" in out_text
    monkeypatch.delitem(sys.modules, "myglue_issue_replay")
    monkeypatch.chdir(glue)
    assert main(["replay", str(cx)]) == 1  # an import_path that is the current folder


def test_global_rng_detected_and_run_reproducible():
    import numpy as np

    def uses_global(data):
        return float(np.sum(data)) + np.random.laplace(0.0, 1.0)  # noqa: NPY002

    kw = {**SMALL, "n_select": 2000, "n_certify": 2000}
    r = test_mechanism(uses_global, epsilon=1.0, lower=0.0, upper=1.0, **kw)
    assert r.parameters["randomness_probe"] == "global"
    assert r.parameters["reproducible"] is True
    r2 = test_mechanism(uses_global, epsilon=1.0, lower=0.0, upper=1.0, **kw)
    assert r.findings[0].evidence["counts"] == r2.findings[0].evidence["counts"]
