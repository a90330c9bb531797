"""The broken-kernel twin of an exhaustive kernel check (audit/checks/kernel_twin.py, issue 42):
an exact check is verified with a twin refuted at the mildest nudge; a check whose comparison
cannot tell a broken kernel from the real one (a tolerance wider than any nudge, a comparison
that ignores the value) is vacuous, never verified; a privacy check whose twin needs the
parameter scaled names it; the nudge itself is checked against hand-worked values."""

from __future__ import annotations

from fractions import Fraction
from types import SimpleNamespace

import numpy as np
import pytest

from audit import falsifiability as fz
from audit.checks.kernel import KernelCheck, Listed, Outcome, run_check
from audit.checks.kernel_twin import kernel_twin, negate, nudge
from audit.findings import Method, Verdict
from audit.verdict_rules import VerdictRuleError


def test_nudge_hand_worked() -> None:
    assert nudge(Fraction(3), 1, -1) == Fraction(3, 2)          # 3 - 3/2
    assert nudge(Fraction(0), 2, 1) == Fraction(1, 4)           # a zero moves by 2^-k
    assert nudge(1.0, 2, -1) == 0.75
    assert nudge(7, 40, -1) == 6 and nudge(7, 40, 1) == 8       # an integer by one
    assert nudge(True, 1, -1) is True and nudge("a", 1, 1) == "a"
    got = nudge([1.0, (2.0, 0.0)], 1, 1)
    assert got == [1.5, (3.0, 0.5)]
    arr = nudge(np.array([4.0, 0.0, np.inf]), 2, -1)
    assert arr.tolist() == [3.0, -0.25, np.inf]
    assert nudge(np.array([1, 2]), 3, 1).tolist() == [2, 3]
    assert nudge({"a": 2.0}, 1, -1) == {"a": 1.0}
    assert negate([True, (False,)]) == [False, (True,)]


def _square_module() -> SimpleNamespace:
    def square(x: int) -> int:
        if x < 0:
            raise ValueError(f"x must be >= 0, got {x}")
        return x * x
    return SimpleNamespace(__name__="toy", square=square)


def _check(evaluate, cases, **kw) -> KernelCheck:
    return KernelCheck("toy.square", "square(x) = x^2", "hand", Method.EXHAUSTIVE, ("square",),
                       evaluate, Listed(lambda seed, mode: cases, exhaustive=True), **kw)


def test_exact_check_is_verified_with_a_refuted_twin() -> None:
    mod = _square_module()
    chk = _check(lambda m, x: Outcome(m.square(x) == x * x, x * x, m.square(x)), [0, 1, 2, 3])
    (f,) = run_check(chk, mod, "kernels:toy", _ctx())
    assert f.verdict is Verdict.VERIFIED
    tw = f.evidence["twin"]
    assert tw["outcome"] == "refuted" and "2^-40" in tw["perturbation"]
    assert tw["witness"] == {"case_index": 0, "of": 4}   # square(0) = 0 moved to -1


def test_a_tolerance_wider_than_every_nudge_is_vacuous() -> None:
    """|got - want| <= 1000: off-by-one and relative 2^-8 errors pass on x in 0..3, so the
    check cannot fail in its scope -- vacuous, with the reason, never verified."""
    mod = _square_module()
    chk = _check(lambda m, c: Outcome(abs(m.square(c["x"]) - c["x"] ** 2) <= 1000, c["x"] ** 2,
                                      m.square(c["x"])), [{"x": v} for v in range(4)])
    (f,) = run_check(chk, mod, "kernels:toy", _ctx())
    assert f.verdict is Verdict.VACUOUS
    assert f.evidence["twin"]["outcome"] == "not-refuted"
    assert "cannot tell" in fz.vacuous_reason(f.evidence)
    # the same with a real defect is still refuted (the vacuous verdict is only for a pass)
    broken = SimpleNamespace(__name__="bad", square=lambda x: x * x + 5000)
    (g,) = run_check(chk, broken, "kernels:bad", _ctx())
    assert g.verdict is Verdict.REFUTED


def test_rejects_invalid_twin_is_the_accepting_kernel() -> None:
    mod = _square_module()

    def rejects(m, x):
        try:
            m.square(x)
        except ValueError:
            return Outcome(True, "ValueError", "ValueError")
        return Outcome(False, "ValueError", "accepted")

    (f,) = run_check(_check(rejects, [-1, -5]), mod, "kernels:toy", _ctx())
    assert f.verdict is Verdict.VERIFIED
    assert "refused input accepted" in f.evidence["twin"]["perturbation"]


def test_privacy_parameter_twin_is_tried_first() -> None:
    """A loss check "eps * |x - y| <= eps on neighbours |x - y| <= 1" is blind to a uniform
    nudge of a ratio but refutes the kernel run at eps (1 + 2^-40) on the attaining pair."""
    mod = SimpleNamespace(__name__="lap", loss=lambda x, y, eps: eps * abs(x - y))

    def ev(m, c):
        got = m.loss(c[0], c[1], 1.0) / max(m.loss(0, 1, 1.0), 1e-300)  # scale-free ratio
        return Outcome(m.loss(c[0], c[1], 1.0) <= 1.0 and got <= 1.0, 1.0, got)

    tw = kernel_twin(ev, mod, ("loss",), [(0, 1), (1, 1)], twin_arg=("loss", 2))
    assert tw["outcome"] == "refuted" and "argument 2" in tw["perturbation"]
    assert "1 + 2^-40" in tw["perturbation"]


def test_all_of_needs_every_part_refuted() -> None:
    r, n = fz.twin("a", "refuted", witness=1), fz.twin("b", "not-refuted")
    assert fz.all_of(r, r)["outcome"] == "refuted"
    assert fz.all_of(r, n)["outcome"] == "not-refuted"
    assert fz.all_of(r, fz.twin("c", "inconclusive"))["outcome"] == "inconclusive"
    assert "witness" not in fz.all_of(n, n)
    with pytest.raises(ValueError):
        fz.all_of()


def test_regress_ids_are_bound_by_the_rule() -> None:
    from audit.findings import Finding

    for fid in ("liu.stat.mean", "dick.alg2.privacy", "gs.smt.mean.def1", "derivation.eq4"):
        assert fz.needs_twin(fid)
        with pytest.raises(VerdictRuleError, match="verified-twin"):
            Finding(id=fid, claim="c", reference="r", method=Method.EXHAUSTIVE,
                    verdict=Verdict.VERIFIED, scope="s", evidence={"cases": 1}, subject="x")


def _ctx():
    from audit.checks.kernel import Context

    return Context(seed=0, mode="quick")
