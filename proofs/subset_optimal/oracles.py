"""Brute-force oracles (small n): the subset risk R(D, eps) by linear programming (Lemma 1),
Lemma 6, Lemma 8, Definition 7 (monotonicity), and the exact privacy loss of Algorithm 5.

Subset-risk LP.  R(D, eps) (eq. (1)) is an inf over eps-DP algorithms of the worst expected
loss over subsets D' of D with |D'| >= |D| - 1/eps.  Restricting the DP constraints to
pairs of those subsets (neighbours differ by one record) can only lower the inf, so the LP
value R_sub <= R(D, eps).  Outputs may be restricted to the targets {mu(D')}: between two
consecutive targets the loss vector is linear in the output, so splitting an output into
its two neighbouring targets keeps every expected loss and, being post-processing, DP.
The LP is solved by scipy's HiGHS (float; we report its value and use a 1e-9 margin).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from fractions import Fraction

import mpmath
import numpy as np
from scipy.optimize import linprog

from kernels.subset_optimal import monotone as mo
from proofs.subset_optimal.privacy import float_down, float_up
from proofs.subset_optimal.reference import mp

__all__ = ["alg5_loss", "lemma1_bound", "lemma6_holds", "lemma8_ratio", "subset_risk_lp",
           "dominates"]


def _mean(xs: Sequence[Fraction]) -> Fraction:
    return sum(xs, Fraction(0)) / len(xs)


def lemma1_bound(data: Sequence[Fraction], k: int) -> Fraction:
    """(mu(D \\ L_k) - mu(D \\ U_k)) / (2 e^2) numerator: returns mu(D\\L_k) - mu(D\\U_k)."""
    xs = sorted(data)
    return _mean(xs[k:]) - _mean(xs[:len(xs) - k])


def subset_risk_lp(data: Sequence[Fraction], epsilon: Fraction) -> float:
    """R_sub(D, eps) <= R(D, eps) (module docstring); 1/eps must be an integer k."""
    k = int(1 / epsilon)
    xs = sorted(data)
    n = len(xs)
    subs = set()
    for size in range(max(1, n - k), n + 1):
        for c in itertools.combinations(range(n), size):
            subs.add(tuple(xs[i] for i in c))
    subs = sorted(subs)
    targets = sorted({_mean(s) for s in subs})
    S, T = len(subs), len(targets)
    nv = S * T + 1  # p[s, t], then the objective bound z
    A, bvec = [], []
    e = math.exp(float(epsilon))
    idx = {s: i for i, s in enumerate(subs)}
    for s in subs:  # neighbours: remove one record
        for j in range(len(s)):
            s2 = s[:j] + s[j + 1:]
            if s2 in idx:
                for a_, b_ in ((idx[s], idx[s2]), (idx[s2], idx[s])):
                    for t in range(T):
                        row = np.zeros(nv)
                        row[a_ * T + t] = 1.0
                        row[b_ * T + t] = -e
                        A.append(row)
                        bvec.append(0.0)
    for s in subs:
        row = np.zeros(nv)
        mu = _mean(s)
        for t in range(T):
            row[idx[s] * T + t] = float(abs(targets[t] - mu))
        row[-1] = -1.0
        A.append(row)
        bvec.append(0.0)
    Aeq = np.zeros((S, nv))
    for i in range(S):
        Aeq[i, i * T:(i + 1) * T] = 1.0
    c = np.zeros(nv)
    c[-1] = 1.0
    res = linprog(c, A_ub=np.array(A), b_ub=np.array(bvec), A_eq=Aeq, b_eq=np.ones(S),
                  bounds=[(0, None)] * nv, method="highs")
    if res.status != 0:
        raise ArithmeticError(f"LP failed: {res.message}")
    return float(res.fun)


def lemma6_holds(data: Sequence[Fraction], n1: int, n2: int,
                 scale: Fraction = Fraction(1)) -> tuple[bool, bool]:
    """Both inequalities of Lemma 6 exactly (Fractions); needs 1 <= n1 <= n2 <= n/2.
    ``scale`` multiplies the constant 2 n2/n1 (1: the lemma; < 1: a tightened twin)."""
    xs = sorted(data)
    n = len(xs)
    mu = _mean(xs)
    c = scale * Fraction(2 * n2, n1)
    first = _mean(xs[n2:]) - mu <= c * (_mean(xs[n1:]) - mu)
    second = mu - _mean(xs[:n - n2]) <= c * (mu - _mean(xs[:n - n1]))
    return first, second


def lemma8_ratio(data: Sequence[Fraction], k_removed: int, k: int) -> Fraction | float:
    """LHS / (M_hat_k^{1/k} / (n eps)^{1-1/k}) of Lemma 8 with 1/eps = k_removed; the proof
    gives <= 4 (for n >= 2/eps).  mpmath at 50 digits for the k-th root."""
    xs = sorted(data)
    n = len(xs)
    lhs = abs(_mean(xs[k_removed:]) - _mean(xs[:n - k_removed]))
    mu = _mean(xs)
    mk = sum((abs(x - mu) ** k for x in xs), Fraction(0)) / n
    if mk == 0:
        return Fraction(0) if lhs == 0 else math.inf
    with mpmath.workdps(50):
        den = mp(mk) ** (mpmath.mpf(1) / k) / (mpmath.mpf(n) / k_removed) ** (1 - mpmath.mpf(1) / k)
        return float_up(mp(lhs) / den)


def dominates(d2: Sequence[Fraction], d1: Sequence[Fraction]) -> bool:
    """Definition 6: D2 dominates D1 iff CDF_D2(v) <= CDF_D1(v) for all v (checked at data
    points, where the empirical CDFs jump)."""
    pts = sorted(set(d1) | set(d2))
    return all(Fraction(sum(1 for x in d2 if x <= v), len(d2))
               <= Fraction(sum(1 for x in d1 if x <= v), len(d1)) for v in pts)


def alg5_loss(ks1: Sequence[int], ks2: Sequence[int], lo: int, hi: int, prop,
              scale: Fraction) -> dict:
    """Exact sup_t |log P_D(t) / P_D'(t)| of Algorithm 5 with exponent -scale * len
    (integer lens from :mod:`kernels.subset_optimal.monotone`, which are recomputed here
    by the same exact search; mpmath at 30 and 60 digits, rounded up)."""
    l1 = [-int(v) for v in mo.inv_sen_logits(ks1, lo, hi, prop, 1.0)]
    l2 = [-int(v) for v in mo.inv_sen_logits(ks2, lo, hi, prop, 1.0)]
    out = []
    for dps in (30, 60):
        with mpmath.workdps(dps):
            s = mp(Fraction(scale))
            z1 = mpmath.fsum(mpmath.exp(-s * v) for v in l1)
            z2 = mpmath.fsum(mpmath.exp(-s * v) for v in l2)
            vals = [(-s * (a - b) - mpmath.log(z1) + mpmath.log(z2)) for a, b in zip(l1, l2,
                                                                                   strict=True)]
            i = max(range(len(vals)), key=lambda j: abs(vals[j]))
            out.append((abs(vals[i]), i))
    with mpmath.workdps(60):
        v = out[1][0]
        if abs(out[0][0] - v) > mpmath.mpf(10) ** -20 * max(1, v):
            raise ArithmeticError("precisions disagree")
        tol = mpmath.mpf(10) ** -20 * max(1, v)
        return {"epsilon_up": float_up(v + tol), "value_down": float_down(v - tol),
                "output_t": lo + out[1][1], "len_first": l1, "len_second": l2}
