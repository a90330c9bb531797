"""`dpaudit search --only bounds.as-printed` (issue 39 round 3): the printed module computes
bounds (21)-(23) as the paper prints them.  Hand-worked values of the transcription, the
shipped module not refuted, and a module with eq. (22) silently repaired (the catalogue's
mutant ``printed.eq22-fixed``) refuted with a replayable counterexample."""

from __future__ import annotations

from fractions import Fraction as Q

import pytest

from audit.findings import Verdict, from_jsonable
from kernels.gini import printed
from proofs.gini import printed_formulas as PF


def test_transcription_worked_by_hand() -> None:
    # n = 10, [0, 1], min g = 1/4, max g = 1/2, min xbar = 1/2, max xbar = 3/4:
    # (21): max(1 (3/4) / (5 + 1), 2 (7.5 - 0) / (5 * 9)) = max(1/8, 1/3) = 1/3
    # (22): den = 5 - 1 = 4: max((1/2 + 1 - 2/9) / 4, 20 (1/2) / (4 * 9)) = max(23/72, 20/72)
    # (23): max(1/3, 23/72) = 1/3 <= 1
    args = (10, Q(0), Q(1))
    assert PF.c1(*args, Q(1, 4), Q(1, 2), Q(3, 4)) == Q(1, 3)
    assert PF.c2(*args, Q(1, 2), Q(1, 2)) == Q(23, 72)
    assert PF.c2(*args, Q(1, 2), Q(1, 2), drop=True) == Q(27, 72)  # (3/2) / 4
    assert PF.eq23(*args, Q(1, 4), Q(1, 2), Q(1, 2), Q(3, 4)) == Q(1, 3)
    # n min xbar - (U - L) <= 0: (23) is 1 as printed
    assert PF.eq23(2, Q(0), Q(1), Q(0), Q(1), Q(1, 2), Q(1, 2)) == 1


def test_the_printed_module_is_not_refuted() -> None:
    f = PF.check_printed_formulas(printed, 0)
    assert f.verdict is Verdict.NOT_REFUTED, f.evidence
    assert f.evidence["mismatches"] == 0 and f.evidence["eq22_defined"] >= PF.CASES // 2
    assert f.evidence["twin"]["outcome"] == "refuted"


def test_a_silently_repaired_eq22_is_refuted(monkeypatch: pytest.MonkeyPatch) -> None:
    def repaired(n: int, L: float, U: float, max_g: float, min_x: float) -> float:
        den = n * min_x - (U - L)
        return max((U - L) * (max_g + 1) / den, 2 * n * (U - min_x) / (den * (n - 1)))

    with monkeypatch.context() as mp:
        mp.setattr(printed, "bound_eq22", repaired)
        f = PF.check_printed_formulas(printed, 0)
        assert f.verdict is Verdict.REFUTED and f.evidence["must_hold"]  # the command fails
        cx = f.counterexample
        assert cx is not None and cx["inputs"]["formula"] in ("eq22", "eq23")
        stored = from_jsonable(cx["inputs"])  # as `dpaudit replay` decodes it
        assert PF.replay_printed_formula(stored)[0] is True
    assert PF.replay_printed_formula(stored)[0] is False
