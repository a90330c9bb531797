"""l1 global sensitivities (GS) of Liu's supplement, Sections 1-5: as printed, and corrected.

Neighbour relations (supplement, first paragraph): ``"replace-one"`` = **Def 1** (same n, one
record differs in at least one attribute) and ``"add-remove-one"`` = **Def 2** (x has n records,
x' is x without one of them; ``n`` is always the size of the LARGER data set, as in the
supplement, and ``sizes`` its cell sizes).

:func:`printed_gs` returns the value the supplement prints; :func:`exact_gs` the exact supremum
sup |T(x) - T(x')| over neighbours (proved and checked in :mod:`proofs.global_sensitivity`;
the proof of each case is in :mod:`proofs.global_sensitivity.oracles`).  Where they differ:

* proportion vector, Def 2 (Section 1, last paragraph): printed ``1/n``; exact ``2/n``
  (removing the only record of a category moves that proportion by 1/n and all the others
  together by 1/n);
* pooled variance, Def 2, n = 2J (Section 4, display after eq. (4)): printed
  ``R^2 (n-1)/(n(n-2))``; exact ``R^2/n`` (the case-2 bound counts (n_1 - 1)/4 for the one
  record left in cell 1, whose sum of squares is 0; and n_j/4 is only attained for even n_j);
* pooled covariance, Def 2 (eq. (5) and the display after it): eq. (5) counts n_k/4 for every
  other cell (exact: floor(n_k^2/4)/n_k) and the final formula optimises over a real-valued
  n_1 = 2 sqrt(n-1-J): an upper bound, generally larger than the exact GS for the actual
  cell sizes;
* pooled statistics, Def 1: the supplement assumes the changed record stays in its cell.  If
  the cell label is one of the record's attributes (Def 1 allows any attribute to change),
  moving a record between cells gives larger changes (:func:`exact_gs` with
  ``label_change=True``); for the pooled covariance nearly twice the printed value.

Where a value uses a quantity computed from the data (n under Def 2, the cell sizes and
n_max), that quantity is private under the relation; see the claims
``gs.private-quantities``.  R = c1 - c0 (and R1, R2 for the two covariance variables).

Exact arithmetic: all values are ``Fraction`` except the printed final pooled-covariance GS
(Def 2), which has a square root and is returned as an ``mpmath.mpf`` at 50 digits.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import mpmath

from kernels.errors import InvalidBoundsError, InvalidParameterError, TooFewRecordsError

__all__ = [
    "DEF1",
    "DEF2",
    "RELATIONS",
    "STATISTICS",
    "exact_gs",
    "max_sum_of_squares",
    "printed_eq5",
    "printed_gs",
]

DEF1 = "replace-one"
DEF2 = "add-remove-one"
RELATIONS = (DEF1, DEF2)
STATISTICS = ("mean", "proportion", "histogram", "proportion-vector", "variance", "covariance",
              "pooled-variance", "pooled-covariance")
_POOLED = ("pooled-variance", "pooled-covariance")
_TWO_VAR = ("covariance", "pooled-covariance")


def _frac(v: Any, name: str) -> Fraction:
    if isinstance(v, bool):
        raise InvalidParameterError(f"{name} must be a number, got {v!r}")
    try:
        f = Fraction(v) if not isinstance(v, float) else Fraction(str(v))
    except (TypeError, ValueError) as exc:
        raise InvalidParameterError(f"{name} must be a finite number, got {v!r}") from exc
    return f


def _range(lo: Any, hi: Any, name: str) -> Fraction:
    a, b = _frac(lo, f"{name} lower bound"), _frac(hi, f"{name} upper bound")
    if not b > a:
        raise InvalidBoundsError(f"{name}: the upper bound {hi!r} must exceed the lower {lo!r}")
    return b - a


def max_sum_of_squares(m: int) -> Fraction:
    """max sum_i (x_i - xbar)^2 over m records in [0, 1]: floor(m^2/4)/m (0 for m <= 1).

    (Shiffler & Harsha 1980 as cited in Section 2 give the even-m value m/4; for odd m the
    maximum is (m^2 - 1)/(4m), attained with (m-1)/2 records at one bound.)"""
    if m <= 1:
        return Fraction(0)
    return Fraction(m * m // 4, m)


def _check(stat: str, relation: str, n: int | None, sizes: Sequence[int] | None,
           k: int | None) -> tuple[int, tuple[int, ...] | None]:
    if stat not in STATISTICS:
        raise InvalidParameterError(f"unknown statistic {stat!r}; one of {', '.join(STATISTICS)}")
    if relation not in RELATIONS:
        raise InvalidParameterError(f"unknown relation {relation!r}; one of {RELATIONS}")
    sz: tuple[int, ...] | None = None
    if stat in _POOLED:
        if sizes is None or len(sizes) < 1:
            raise InvalidParameterError(f"{stat} needs the cell sizes (sizes=...)")
        sz = tuple(int(s) for s in sizes)
        if any(s < 2 for s in sz):
            raise TooFewRecordsError(f"every cell needs >= 2 records (Section 4); got {sz}")
        n = sum(sz)
        if relation == DEF2 and n - 1 - len(sz) < 1:
            raise TooFewRecordsError(f"Def 2 needs n - 1 - J >= 1; got n = {n}, J = {len(sz)}")
    if n is None or isinstance(n, bool) or int(n) != n:
        raise InvalidParameterError(f"n must be an integer, got {n!r}")
    n = int(n)
    least = {"variance": 2, "covariance": 2}.get(stat, 1) + (1 if relation == DEF2 else 0)
    if n < least:
        raise TooFewRecordsError(f"{stat} under {relation} needs n >= {least}, got {n}")
    if stat in ("histogram", "proportion-vector") and (k is None or int(k) < 1):
        raise InvalidParameterError(f"{stat} needs the number of categories k >= 1, got {k!r}")
    return n, sz


def printed_gs(stat: str, relation: str, *, n: int | None = None, lo: Any = 0, hi: Any = 1,
               lo2: Any = 0, hi2: Any = 1, sizes: Sequence[int] | None = None,
               k: int | None = 2, approx: bool = False) -> Any:
    """The GS the supplement prints for ``stat`` under ``relation``.

    ``approx=True`` (pooled statistics): the printed approximation ``R^2/(n-J)`` (resp.
    ``R1 R2/(n-J)``) offered "if n_max is large or when n_max itself cannot be released"
    (Sections 4, 5).  Pooled covariance under Def 2 returns the final printed
    delta_COVp (after eq. (5)); its per-cell eq. (5) is :func:`printed_eq5`."""
    n, sz = _check(stat, relation, n, sizes, k)
    r = _range(lo, hi, "variable 1")
    rr = r * _range(lo2, hi2, "variable 2") if stat in _TWO_VAR else r * r
    if stat == "mean":  # Section 1, both displays
        return r / n
    if stat == "proportion":  # Section 1: "delta_1 of a single proportion is n^-1"
        return Fraction(1, n)
    if stat == "histogram":  # Section 1: Def 1 -> 2, Def 2 -> 1
        return Fraction(2) if relation == DEF1 else Fraction(1)
    if stat == "proportion-vector":  # Section 1: Def 1 -> 2/n, Def 2 -> 1/n
        return Fraction(2, n) if relation == DEF1 else Fraction(1, n)
    if stat in ("variance", "covariance"):  # Sections 2, 3: n^-1 R^2 under both
        return rr / n
    assert sz is not None
    J, nmax = len(sz), max(sz)
    if approx:
        if stat == "pooled-variance" and relation == DEF2 and n == 2 * J:
            return rr * Fraction(n - 1, n * (n - 2))
        return rr / (n - J)
    if relation == DEF1:  # Sections 4, 5, Def 1
        return rr * (1 - Fraction(1, nmax)) / (n - J)
    if stat == "pooled-variance":  # Section 4, Def 2, display after eq. (4)
        if n == 2 * J:
            return rr * Fraction(n - 1, n * (n - 2))
        return rr * (1 - Fraction(1, nmax)) / (n - J)
    # Section 5, Def 2, final display: R1R2/(n-J) (1 + n/(4(n-1-J)) - 1/sqrt(n-J-1))
    with mpmath.workdps(50):
        m = mpmath.mpf(n - 1 - J)
        return (mpmath.mpf(rr.numerator) / rr.denominator / (n - J)
                * (1 + mpmath.mpf(n) / (4 * m) - 1 / mpmath.sqrt(m)))


def printed_eq5(n1: int, n: int, J: int, rr: Any = 1) -> Fraction:
    """Eq. (5): max|Delta| when the removed record is in a cell of size n1 (Section 5, Def 2):
    (n-J)^-1 R1R2 (1 - 1/n1 + (n - n1)/(4(n-1-J)))."""
    return (Fraction(rr) / (n - J)
            * (1 - Fraction(1, n1) + Fraction(n - n1, 4 * (n - 1 - J))))


def exact_gs(stat: str, relation: str, *, n: int | None = None, lo: Any = 0, hi: Any = 1,
             lo2: Any = 0, hi2: Any = 1, sizes: Sequence[int] | None = None,
             k: int | None = 2, label_change: bool = False) -> Fraction:
    """The exact sup |T(x) - T(x')| over neighbours (proofs: :mod:`proofs.global_sensitivity`).

    Pooled statistics: the supremum for a data set with cell sizes ``sizes`` (Def 2: of the
    larger data set x, over removals from any cell); ``label_change=True`` (Def 1 only) also
    allows the changed record to move to another cell (every cell keeping >= 2 records)."""
    n, sz = _check(stat, relation, n, sizes, k)
    r = _range(lo, hi, "variable 1")
    rr = r * _range(lo2, hi2, "variable 2") if stat in _TWO_VAR else r * r
    if label_change and (stat not in _POOLED or relation != DEF1):
        raise InvalidParameterError("label_change applies to pooled statistics under Def 1")
    if stat == "mean":
        return r / n
    if stat == "proportion":
        return Fraction(1, n)
    if stat == "histogram":
        return Fraction(2 if relation == DEF1 else 1) if int(k or 0) >= 2 else Fraction(
            0 if relation == DEF1 else 1)
    if stat == "proportion-vector":
        if int(k or 0) < 2:
            return Fraction(0)
        return Fraction(2, n)  # both relations (Def 2: removing a singleton category)
    if stat == "variance":
        if relation == DEF1:
            return rr / n
        # |Delta| <= max((x1 - xbar_-)^2 / n, s'^2/(n-1)); both attained
        return rr * max(Fraction(1, n), max_sum_of_squares(n - 1) / ((n - 1) * (n - 2)))
    if stat == "covariance":
        return rr / n
    assert sz is not None
    J = len(sz)
    best = Fraction(0)
    for j, nj in enumerate(sz):
        others = sum((max_sum_of_squares(m) for i, m in enumerate(sz) if i != j), Fraction(0))
        if relation == DEF1:
            v = 1 - Fraction(1, nj)
        elif stat == "pooled-variance":
            v = max(1 - Fraction(1, nj),
                    (max_sum_of_squares(nj - 1) + others) / (n - 1 - J))
        else:
            v = 1 - Fraction(1, nj) + others / (n - 1 - J)
        best = max(best, v)
    if label_change:
        for a, na in enumerate(sz):
            if na < 3:
                continue
            for b, nb in enumerate(sz):
                if b == a:
                    continue
                out_a, in_b = 1 - Fraction(1, na), 1 - Fraction(1, nb + 1)
                v = max(out_a, in_b) if stat == "pooled-variance" else out_a + in_b
                best = max(best, v)
    return rr * best / (n - J)
