"""Liu releases: the privacy verdict compares an exact loss with epsilon exactly (issue 42).

Before, ``release.<stat>.<def>.exact-loss`` was verified with a certified float bound of
1.0000000000000002 against epsilon = 1 (the bound rounded up; only its rounded-down twin was
compared).  Now the loss of a same-scale Laplace pair is computed exactly, sum |a - a'| / b
in Fractions, and compared with epsilon as a Fraction."""

from __future__ import annotations

from fractions import Fraction

from audit.findings import Verdict
from kernels.global_sensitivity import formulas as fo
from proofs.global_sensitivity import privacy as P
from proofs.global_sensitivity.mechanisms import GSRelease


def test_exact_laplace_loss_hand_worked() -> None:
    # mean, Def 1, n = 3 on [0, 1]: printed GS 1/3, eps = 1, b = 1/3; replacing 0 by 1 moves
    # the mean by 1/3, so the loss is (1/3) / (1/3) = 1 exactly
    mech = GSRelease("mean", fo.DEF1, 1.0, n=3)
    got = P.exact_laplace_loss(mech, [Fraction(0), Fraction(0), Fraction(0)],
                               [Fraction(1), Fraction(0), Fraction(0)])
    assert got == 1
    got_half = P.exact_laplace_loss(mech, [Fraction(0)] * 3,
                                    [Fraction(1, 2), Fraction(0), Fraction(0)])
    assert got_half == Fraction(1, 2)


def test_verified_by_the_exact_loss_not_by_the_rounded_bound() -> None:
    f = P.loss_finding("mean", fo.DEF1)
    ev = f.evidence
    assert f.verdict is Verdict.VERIFIED
    assert ev["exact_loss"] == 1 == ev["claimed"]
    assert ev["epsilon_up"] > 1  # the certified float alone could not verify it
    assert ev["twin"]["outcome"] == "refuted"
    # a release whose exact loss exceeds epsilon stays refuted (printed GS half the truth)
    g = P.loss_finding("proportion-vector", fo.DEF2)
    assert g.verdict is Verdict.REFUTED and g.evidence["exact_loss"] == 2
