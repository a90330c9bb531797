"""Algorithm 5 (inverse sensitivity, Appendix C) and Algorithm 4 (monotone properties,
Section 4) of Dick et al., for the mean, a q-quantile and the median.

Values are handled in *grid units*: x = k * beta with integer k (Algorithm 4 line 1 quantises
to multiples of beta; Algorithm 5 line 1 outputs multiples of beta).

Properties (Definition 7 names the mean, median, quantiles and l_p minimisers):
* ``"mean"``: theta(D) = mean; len counts add/remove operations to reach mean exactly t,
  additions drawn from the grid points of the range (Appendix C: D' supported on Z).
* ``("quantile", q)``: theta(D) = x_(k), k = max(1, ceil(q n)) (lower q-quantile);
  ``"median"`` = ("quantile", 1/2).

len_theta(D, t) = min{d(D, D') : theta(D') = t} (Appendix C), computed exactly:
* quantile: with a = #{x < t}, e = #{x = t}, b = #{x > t}, an edit changes (a, e, b) by
  (da, de, db) at cost |da| + |de| + |db| (removing and adding in the same class is never
  better); D' works iff e' >= 1 and a' < k(n') <= a' + e'.  Additions below (above) t need a
  grid point below (above) t in the range.  Searched over costs 0, 1, 2, ... (first hit).
* mean: remove an i-subset (exact subset sums by size, dynamic programming) and add j grid
  points (any integer sum in [j lo, j hi] for j >= 1); min i + j with
  S - s_removed + s_added = t (n - i + j), n - i + j >= 1.

Algorithm 5 line 2 prints Pr(t) proportional to exp(-len_theta(D, t)) - no epsilon in the
exponent.  ``scale`` is the multiplier of len in the exponent: 1 reproduces the print;
Asi & Duchi's mechanism uses eps/2 for eps-DP.  The privacy checks measure both.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from kernels.errors import InvalidParameterError
from kernels.subset_optimal import thresholds as th
from kernels.validate import check_rng

__all__ = ["alg4_sample", "inv_sen_logits", "inv_sen_sample", "len_mean", "len_quantile",
           "property_value", "quantile_index"]


def quantile_index(n: int, q: float) -> int:
    return max(1, math.ceil(q * n))


def _prop(prop) -> tuple[str, float]:
    if prop == "mean":
        return ("mean", 0.0)
    if prop == "median":
        return ("quantile", 0.5)
    if isinstance(prop, tuple) and prop[0] == "quantile" and 0 < float(prop[1]) < 1:
        return ("quantile", float(prop[1]))
    raise InvalidParameterError(f"property must be 'mean', 'median' or ('quantile', q), "
                                f"got {prop!r}")


def property_value(ks: Sequence[int], prop) -> float:
    """theta(D) in grid units (mean may be fractional)."""
    kind, q = _prop(prop)
    xs = sorted(ks)
    if not xs:
        raise InvalidParameterError("theta is undefined on the empty data set")
    if kind == "mean":
        return sum(xs) / len(xs)
    return float(xs[quantile_index(len(xs), q) - 1])


def len_quantile(ks: Sequence[int], t: int, q: float, lo: int, hi: int) -> int:
    """len_theta(D, t) for the lower q-quantile (module docstring)."""
    a = sum(1 for x in ks if x < t)
    e = sum(1 for x in ks if x == t)
    b = sum(1 for x in ks if x > t)
    can_below, can_above = t > lo, t < hi
    for cost in range(0, 2 * (a + e + b) + 4):
        for de in range(-e, cost + 1):
            rest = cost - abs(de)
            if rest < 0:
                continue
            e2 = e + de
            if e2 < 1:
                continue
            for da in range(-min(a, rest), rest + 1):
                if da > 0 and not can_below:
                    continue
                db_abs = rest - abs(da)
                for db in {db_abs, -db_abs}:
                    if db > 0 and not can_above:
                        continue
                    if b + db < 0:
                        continue
                    a2, b2 = a + da, b + db
                    k = quantile_index(a2 + e2 + b2, q)
                    if a2 < k <= a2 + e2:
                        return cost
    raise AssertionError("no edit found")  # unreachable: adding t's always works eventually


def _subset_sums(ks: Sequence[int]) -> list[set[int]]:
    sums: list[set[int]] = [{0}] + [set() for _ in ks]
    for x in ks:
        for i in range(len(sums) - 1, 0, -1):
            sums[i] |= {s + x for s in sums[i - 1]}
    return sums


def len_mean(ks: Sequence[int], t: int, lo: int, hi: int,
             sums: list[set[int]] | None = None) -> int:
    """len_theta(D, t) for the mean (module docstring); exact for small n."""
    n = len(ks)
    S = sum(ks)
    sums = _subset_sums(ks) if sums is None else sums
    best = math.inf
    for i in range(n + 1):
        for j in range(0, n + 2):
            if i + j >= best:
                break
            n2 = n - i + j
            if n2 < 1:
                continue
            lo_s = S - t * n2 + (j * lo if j else 0)
            hi_s = S - t * n2 + (j * hi if j else 0)
            if any(lo_s <= s <= hi_s for s in sums[i]):
                best = i + j
                break
    if best is math.inf:
        raise AssertionError("no edit found")
    return int(best)


def inv_sen_logits(ks: Sequence[int], lo: int, hi: int, prop, scale: float) -> np.ndarray:
    """Algorithm 5 line 2: -scale * len_theta(D, t) for t = lo..hi (grid units)."""
    kind, q = _prop(prop)
    if lo > hi:
        raise InvalidParameterError(f"empty output grid [{lo}, {hi}]")
    if kind == "mean":
        sums = _subset_sums(list(ks))
        lens = [len_mean(list(ks), t, lo, hi, sums) for t in range(lo, hi + 1)]
    else:
        lens = [len_quantile(list(ks), t, q, lo, hi) for t in range(lo, hi + 1)]
    return -scale * np.asarray(lens, dtype=np.float64)


def inv_sen_sample(ks: Sequence[int], lo: int, hi: int, prop, scale: float, size: int,
                   rng: np.random.Generator) -> np.ndarray:
    """``size`` draws of Algorithm 5's output (grid units)."""
    rng = check_rng(rng)
    lg = inv_sen_logits(ks, lo, hi, prop, scale)
    p = np.exp(lg - lg.max())
    return lo + rng.choice(p.size, size=size, p=p / p.sum())


def alg4_core(ks: Sequence[int], r: float, l_hat: float, u_hat: float, beta: float
              ) -> list[int]:
    """Algorithm 4 lines 5-6 in grid units: shift the i <= 3r/2 smallest down by one step and
    the i >= n - 3r/2 largest up by one step (1-based i, as printed), keep [l-hat, u-hat]."""
    xs = sorted(ks)
    n = len(xs)
    ys = []
    for i, x in enumerate(xs, start=1):
        if i <= 1.5 * r:
            ys.append(x - 1)
        elif i >= n - 1.5 * r:
            ys.append(x + 1)
        else:
            ys.append(x)
    return [y for y in ys if l_hat <= y * beta <= u_hat]


def alg4_parameters(R: float, epsilon: float, beta: float, L: float, B: float) -> dict:
    """Algorithm 4 line 2: eta = L beta / B, r = 32 log(6R/(eta beta)) / eps."""
    eta = L * beta / B
    return {"eta": eta, "r": 32 * math.log(6 * R / (eta * beta)) / epsilon}


def alg4_sample(data: Sequence[float], R: float, epsilon: float, beta: float, prop,
                L: float, B: float, rng: np.random.Generator, *, scale: float | None = None,
                r: float | None = None, lower_target: float | None = None) -> float:
    """One draw of Algorithm 4 (lines 1-7), output in data units.

    ``scale``: InvSen's multiplier of len (None = the print, 1; Algorithm 4 line 7 asks for
    privacy parameter eps/2).  ``r``: override line 2's rank (for small experiments).
    ``lower_target``: override line 3's target r/4 (the proof of Theorem 3 uses 7r/4)."""
    rng = check_rng(rng)
    ks = [int(round(x / beta)) for x in data]                       # line 1
    par = alg4_parameters(R, epsilon, beta, L, B)                   # line 2
    rr = par["r"] if r is None else r
    n = len(ks)
    tl = rr / 4 if lower_target is None else lower_target
    q = [k * beta for k in ks]
    l_hat = float(th.sample(q, tl, -R, R, beta / 3, epsilon / 4, 1, rng)[0])       # line 3
    u_hat = float(th.sample(q, n - tl, -R, R, beta / 3, epsilon / 4, 1, rng)[0])   # line 4
    kept = alg4_core(ks, rr, l_hat, u_hat, beta)                     # lines 5-6
    lo, hi = math.ceil(l_hat / beta), math.floor(u_hat / beta)
    if lo > hi or not kept:
        return float("nan")  # paper: undefined (empty range or empty D_[l,u])
    s = 1.0 if scale is None else scale
    return float(inv_sen_sample(kept, lo, hi, prop, s, 1, rng)[0] * beta)      # line 7
