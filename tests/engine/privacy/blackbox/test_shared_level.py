"""Levels shared across a ``dpaudit test`` run, re-counted in the run (issue 39):

* the real-number and float-bit kinds share the confidence (union bound): their stated
  alphas summed as Fractions must not exceed 1 - confidence (the float split
  ``1 - (1 - c) / 2`` overspent by an ulp at the default 0.9: now
  :func:`~audit.privacy.blackbox.accounting.confidence_share`);
* a sequential look's flag/clear decision rests on four bounds at the look's per-bound
  level, re-derived like the certificate's;
* ``--growth`` sets the sequential schedule (b_r = first x growth^r), which the run's
  accounting checks against the documented rule.

Truths: Fraction arithmetic; the schedule worked by hand (2000 x 3^r up to 18000); the
miscounts are injected as the catalogue's mutants make them, each refused on a seeded run the
unmutated tester passes (exit 4: a bug of dpaudit).
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from audit.cli import main
from audit.privacy import user_audit
from audit.privacy.blackbox import BlackBoxTester
from audit.privacy.blackbox import sequential as seq_mod
from audit.privacy.blackbox.accounting import AlphaAccountingError, confidence_share
from audit.privacy.mechanisms import LaplaceMechanism
from audit.protocols import REPLACE_ONE, NeighbourPair

MOD = __name__
PAIR = NeighbourPair(np.array([0.0]), np.array([1.0]), REPLACE_ONE,
                     {"op": "replace", "rank": 0, "new": 1.0})


def sum_lap(data, size, rng):  # noqa: ANN001, ANN201 - a correct user mechanism
    return float(np.sum(data)) + rng.laplace(0.0, 1.0, size)


@pytest.mark.parametrize("parts", [1, 2, 3, 4])
def test_confidence_share_never_overspends(parts: int) -> None:
    old = 1.0 - (1.0 - 0.9) / 2
    assert 2 * Fraction(1.0 - old) > Fraction(1.0 - 0.9)  # what the float split did
    for conf in [0.9, 0.95, 0.99, *np.linspace(0.5, 0.9999, 499).tolist()]:
        c = confidence_share(conf, parts)
        assert parts * Fraction(1.0 - c) <= Fraction(1.0 - conf)
        assert parts * (1.0 - c) >= (1.0 - conf) - parts * 2.0**-52  # all but an ulp of c


def _test(tmp_path: Path, run_id: str, *extra: str) -> int:
    pairs = tmp_path / "pairs.json"
    pairs.write_text(json.dumps([[[0.0], [1.0]]]))
    return main(["test", f"{MOD}:sum_lap", "--pairs", str(pairs), "--epsilon", "1",
                 "--no-exact", "--n-select", "4000", "--no-progress", "--out",
                 str(tmp_path / "r"), "--run-id", run_id, *extra])


def test_growth_sets_the_documented_schedule(tmp_path: Path) -> None:
    # (numpy's float64 Laplace is flagged by the float-bit events: real-number kind only)
    assert _test(tmp_path, "g3", "--first-batch", "2000", "--growth", "3", "--max-samples",
                 "18000", "--no-float-bits") == 0
    rep = json.loads((tmp_path / "r" / "g3" / "report.json").read_text())
    assert rep["parameters"]["growth"] == 3
    ev = next(f for f in rep["findings"] if f["id"] == "user.blackbox")["evidence"]
    assert ev["schedule"] == [2000, 6000, 18000]  # 2000 x 3^r <= 18000
    assert sum(map(Fraction, ev["alpha_per_look"])) <= Fraction(1.0 - 0.9)
    assert len(ev["alpha_per_look"]) == 2
    assert main(["test", f"{MOD}:sum_lap", "--growth", "1", "--epsilon", "1"]) == 2


def test_both_kinds_share_the_level_exactly(tmp_path: Path) -> None:
    # numpy's float64 Laplace is flagged by the float-bit events only: exit 5, never 4
    assert _test(tmp_path, "ok", "--fixed", "--max-samples", "4000") == 5
    rep = json.loads((tmp_path / "r" / "ok" / "report.json").read_text())
    c = rep["parameters"]["confidence_per_kind"]
    assert rep["parameters"]["verdict_kinds"] == ["real-number", "float-bits"]
    assert 2 * Fraction(1.0 - c) <= Fraction(1.0 - 0.9) < 2 * Fraction(1.0 - c) + 2**-50


def _old_split(conf: float, parts: int) -> float:
    return 1.0 - (1.0 - conf) / parts


@pytest.mark.parametrize("repl", [lambda conf, parts: conf, _old_split])
def test_kinds_that_overspend_the_shared_level_exit_4(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        repl) -> None:  # noqa: ANN001
    monkeypatch.setattr(user_audit, "confidence_share", repl)
    assert _test(tmp_path, "bug", "--fixed", "--max-samples", "4000") == 4
    assert "testers spend" in capsys.readouterr().err


def test_a_decision_at_twice_its_level_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    real = seq_mod.decide

    def at_full_level(k_fav, k_oth, n, alpha_look, claimed, delta=0.0):  # noqa: ANN001, ANN202
        return real(k_fav, k_oth, n, 2 * alpha_look, claimed, delta)

    t = BlackBoxTester(sequential=True, n_select=4000, n_certify=16000, seq_first=1000)
    res = t.run(LaplaceMechanism(1.0), [PAIR], np.random.default_rng(0))
    assert all(c["decision_bounds"] for c in res.details["looks"])  # recorded, accounted
    monkeypatch.setattr(seq_mod, "decide", at_full_level)
    with pytest.raises(AlphaAccountingError, match="decision's"):
        t.run(LaplaceMechanism(1.0), [PAIR], np.random.default_rng(0))
