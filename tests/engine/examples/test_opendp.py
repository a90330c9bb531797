"""Worked example on a real library: OpenDP's Laplace measurement (bounded sum, records in
[0, 1], symmetric distance) audited through ``dpaudit test`` (glue:
audit/examples/opendp_laplace.py).

Needs the ``opendp`` extra (CI installs it: ``pip install '.[test,opendp]'``).  When opendp is
missing the tests FAIL with an install hint, unless DPAUDIT_NO_OPENDP=1 is set (then skip).

Truths: OpenDP's own privacy map gives the claim (``MEAS.map(1)`` = 1.0000000093: scale 1,
one record added or removed changes the clamped sum by <= 1, plus OpenDP's float-rounding
allowance); the broken twin divides the scale by 10, true epsilon ~10; the crashing twin
divides by len(data), which raises ZeroDivisionError on the empty data set (a neighbour of
every one-record data set).  OpenDP draws from its own CSPRNG, so runs are not reproducible:
the false-alarm rate of the correct run is <= 10 % by the tester's guarantee, not a fixed
seed outcome.
"""

from __future__ import annotations

import json
import os

import pytest

from audit.cli import main

try:
    import opendp  # noqa: F401

    HAVE_OPENDP = True
except ImportError:  # pragma: no cover - depends on the environment
    HAVE_OPENDP = False


@pytest.fixture(autouse=True)
def _need_opendp():
    if HAVE_OPENDP:
        return
    if os.environ.get("DPAUDIT_NO_OPENDP") == "1":
        pytest.skip("opendp not installed and DPAUDIT_NO_OPENDP=1")
    pytest.fail("opendp is not installed: pip install '.[opendp]' (CI installs "
                "'.[test,opendp]'), or set DPAUDIT_NO_OPENDP=1 to skip these tests")


REF = "audit.examples.opendp_laplace"


def _run(tmp_path, obj, *extra):
    from audit.examples.opendp_laplace import EPSILON

    run_id = obj
    code = main(["test", f"{REF}:{obj}", "--epsilon", repr(EPSILON), "--relation",
                 "add-remove", "--lower", "0", "--upper", "1", "--max-pairs", "3",
                 "--first-batch", "1000", "--max-samples", "16000", "--n-select", "16000",
                 "--no-progress", "--out", str(tmp_path), "--run-id", run_id, *extra])
    rep = json.loads((tmp_path / run_id / "report.json").read_text(encoding="utf-8"))
    return code, rep


# ~15-30 s each on OpenDP's own sampler; the adapter tests in tests/extra/ run by default
@pytest.mark.slow
def test_opendp_laplace_correct_is_not_flagged(tmp_path):
    code, rep = _run(tmp_path, "laplace_sum")
    bb = rep["findings"][0]
    assert code == 0 and rep["parameters"]["outcome"] == "not-flagged"
    assert bb["evidence"]["outcome"] == "not-refuted" and bb["verdict"] != "verified"
    assert bb["evidence"]["epsilon_lower"] <= 1.0000001
    assert rep["parameters"]["reproducible"] is False  # OpenDP's own CSPRNG


def test_opendp_laplace_scale_divided_by_10_is_flagged_early(tmp_path):
    code, rep = _run(tmp_path, "laplace_sum_broken", "--stop-at-flag")
    bb = rep["findings"][0]
    assert code == 1 and bb["verdict"] == "refuted"
    assert bb["evidence"]["epsilon_lower"] > 2.0  # true epsilon ~10
    # --stop-at-flag: the first look flags and ends the run (by default the remaining looks
    # would go on on the flagged pair, for the best bound)
    assert bb["evidence"]["stopped"] == "flagged" and bb["evidence"]["looks"] == 1
    assert bb["evidence"]["first_flag_look"] == 1
    assert rep["parameters"]["stop_at_flag"] is True
    assert (tmp_path / "laplace_sum_broken" / "counterexamples" / "user.blackbox.json").exists()


# ~15-30 s each on OpenDP's own sampler; the adapter tests in tests/extra/ run by default
@pytest.mark.slow
def test_opendp_mechanism_that_raises_is_reported_not_crashed(tmp_path, capsys):
    code, rep = _run(tmp_path, "laplace_mean_crashes", "--max-pairs", "12")
    crash = [f for f in rep["findings"] if f["id"].startswith("user.crash")]
    assert code == 1 and crash
    assert crash[0]["evidence"]["exception"] == "ZeroDivisionError"
    assert crash[0]["evidence"]["dataset"] == []
    cx = tmp_path / "laplace_mean_crashes" / "counterexamples" / f"{crash[0]['id']}.json"
    assert main(["replay", str(cx)]) == 1
    assert "ZeroDivisionError" in capsys.readouterr().out
