"""The broken SVT variants' cores are the mechanisms they state (`dpaudit search --only
freegap.broken-cores`, issue 39 round 3): hand-worked reference outputs, the shipped cores
not refuted with the halt exercised, and a core that halts one answer late (the catalogue's
mutant ``broken.svt-loop-halt``) refuted with a replayable counterexample."""

from __future__ import annotations

from typing import Any

import pytest

from audit.findings import Verdict
from kernels.freegap import broken as fb
from proofs.freegap import broken_cores as BC

# q = (0.6, 1.0, 0.0, 1.0, 1.0), T = 0.5, eta = 0.2, nu = 0, c = 2 (worked by hand):
# classical SVT: 0.6 < 0.7 F, 1.0 T, 0.0 F, 1.0 T -> halts after the 2nd T (4 outputs)
_CASE = {"q": [0.6, 1.0, 0.0, 1.0, 1.0], "T": 0.5, "eta": 0.2, "nu": [0.0] * 5, "c": 2}


@pytest.mark.parametrize("variant, want", [
    ("svt_lee_clifton", [False, True, False, True]),
    ("svt_no_threshold_noise", [True, True]),  # eta = 0: 0.6 >= 0.5 is already a T
    ("svt_no_query_noise", [False, True, False, True]),
    ("svt_no_query_noise_no_halting", [False, True, False, True, True]),
    ("svt_no_halting", [False, True, False, True, True]),
    ("svt_release_value", [None, 1.0, None, 1.0]),
])
def test_reference_outputs_worked_by_hand(variant: str, want: list[Any]) -> None:
    assert BC.reference(variant, _CASE) == want
    assert list(BC.CORES[variant](_CASE)) == want  # the shipped cores agree


def test_the_shipped_cores_are_not_refuted_and_the_halt_is_exercised() -> None:
    f = BC.check_broken_cores(0)
    assert f.id == "freegap.broken-cores.svt"
    assert f.verdict is Verdict.NOT_REFUTED, f.evidence
    assert f.evidence["mismatches"] == 0
    assert f.evidence["halted_early"] >= BC.CASES // 4
    assert f.evidence["twin"]["outcome"] == "refuted"


def _late(q: Any, T: float, eta: float, nu: Any, c: int | None) -> list[bool]:
    out, count = [], 0
    for i in range(q.size):
        above = bool(q[i] + nu[i] >= T + eta)
        out.append(above)
        count += above
        if above and c is not None and count > c:  # one answer past the halt
            break
    return out


def test_a_core_halting_one_answer_late_is_refuted(monkeypatch: pytest.MonkeyPatch) -> None:
    with monkeypatch.context() as mp:
        mp.setattr(fb, "_svt_loop", _late)
        f = BC.check_broken_cores(0)
        assert f.verdict is Verdict.REFUTED
        cx = f.counterexample
        assert cx is not None
        stored = dict(cx["inputs"])
        assert stored["variant"] in BC.CORES
        assert BC.replay_broken_core(stored)[0] is True  # still fails under the mutant
    assert BC.replay_broken_core(stored)[0] is False  # the shipped core passes it
