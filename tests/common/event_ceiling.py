"""The best lower bound any event-based tester can expect to certify, from exact output laws.

The test modelled: choose one event E (possibly randomised) for a pair (D, D'), draw n fresh
outputs on each data set, count E, and certify eps >= ln(p_L / p_U) with p_L the one-sided
Clopper-Pearson lower bound on P_D(E) and p_U the upper bound on P_D'(E), each at level
``alpha`` (two bounds at 5 %: a 90 % statement).  DP-Sniper (Bichsel et al. 2021, its final
estimate) and dpaudit's certification are of this form.

The *expected-count* bound of an event with P = P_D(E), Q = P_D'(E) is

    g(P, Q) = ln CP_lower(n P; n) - ln CP_upper(n Q; n),

the counts replaced by their expectations (real-valued: the Beta quantiles are continuous
in the count).  It is an approximation of the typical certified value, not a bound on it;
:func:`simulated_bounds` draws the binomial counts to give its spread.

g rises with P and falls with Q.  Every event's (Q, P) lies on or below the ROC curve of
the likelihood-ratio test (Neyman & Pearson 1933): the piecewise-linear curve through the
prefix unions of outputs sorted by decreasing p/q, whose points between vertices are the
randomised events "prefix plus a fraction of the next output".  So the maximum of g over
that curve, :func:`roc_ceiling`, is at least g of every event, deterministic or
randomised, on that output law (proof: for an event (Q, P), the curve point (Q, P*) has
P* >= P, so g(P*, Q) >= g(P, Q)).  :func:`prefix_ceiling` (deterministic prefix unions)
and :func:`single_ceiling` (one output) are attainable values below it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import optimize, special

ALPHA = 0.05


def cp_lower(k: np.ndarray | float, n: float, alpha: float = ALPHA) -> np.ndarray:
    """One-sided Clopper-Pearson lower bound for a (real-valued) count k of n: the alpha
    quantile of Beta(k, n - k + 1); 0 for k <= 0."""
    k = np.asarray(k, dtype=float)
    with np.errstate(all="ignore"):
        v = special.betaincinv(np.maximum(k, 1e-300), n - k + 1.0, alpha)
    return np.where(k > 0, v, 0.0)


def cp_upper(k: np.ndarray | float, n: float, alpha: float = ALPHA) -> np.ndarray:
    """One-sided Clopper-Pearson upper bound: the 1 - alpha quantile of Beta(k + 1, n - k)
    (via the complementary inverse, accurate for small values); 1 for k >= n."""
    k = np.asarray(k, dtype=float)
    with np.errstate(all="ignore"):
        v = special.betainccinv(k + 1.0, np.maximum(n - k, 1e-300), alpha)
    return np.where(k < n, v, 1.0)


def expected_bound(P: np.ndarray | float, Q: np.ndarray | float, n: float,
                   alpha: float = ALPHA) -> np.ndarray:
    """g(P, Q): the bound certified when the counts equal their expectations n P, n Q;
    -inf when P = 0."""
    P = np.clip(np.asarray(P, dtype=float), 0.0, 1.0)
    Q = np.clip(np.asarray(Q, dtype=float), 0.0, 1.0)
    lo = cp_lower(n * P, n, alpha)
    hi = cp_upper(n * Q, n, alpha)
    with np.errstate(divide="ignore"):
        return np.where(lo > 0, np.log(np.where(lo > 0, lo, 1.0)) - np.log(hi), -np.inf)


def roc_vertices(p: np.ndarray, q: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The outputs sorted by decreasing likelihood ratio p / q (q = 0 first, p = 0 last;
    outputs with p = q = 0 dropped) and the cumulative (P, Q) of the prefix unions,
    starting at (0, 0)."""
    p = np.asarray(p, dtype=float)
    q = np.asarray(q, dtype=float)
    keep = np.flatnonzero((p > 0) | (q > 0))
    with np.errstate(divide="ignore"):
        lr = np.log(p[keep]) - np.log(q[keep])
    order = keep[np.argsort(-lr, kind="stable")]
    cp = np.concatenate([[0.0], np.cumsum(p[order])])
    cq = np.concatenate([[0.0], np.cumsum(q[order])])
    return order, np.minimum(cp, 1.0), np.minimum(cq, 1.0)


def roc_curve(p: np.ndarray, q: np.ndarray, rtol: float = 1e-9
              ) -> tuple[np.ndarray, np.ndarray]:
    """The ROC vertices of :func:`roc_vertices` with runs of equal likelihood ratio
    (relative difference <= ``rtol``) merged into one segment: the same curve, as
    collinear segments are one segment."""
    p = np.asarray(p, dtype=float)
    q = np.asarray(q, dtype=float)
    order, cp, cq = roc_vertices(p, q)
    with np.errstate(divide="ignore"):
        lr = np.log(p[order]) - np.log(q[order])
    same = np.zeros(lr.size, dtype=bool)
    fin = np.isfinite(lr[1:]) & np.isfinite(lr[:-1])
    with np.errstate(invalid="ignore"):
        same[:-1] = np.where(fin, np.abs(lr[1:] - lr[:-1]) <= rtol * np.maximum(
            1.0, np.abs(lr[:-1])), lr[1:] == lr[:-1])
    # vertex k + 1 closes output k; drop it when output k + 1 has the same ratio
    keep = np.concatenate([[True], ~same])
    return cp[keep], cq[keep]


@dataclass(frozen=True)
class Ceiling:
    """The best expected-count bound and the event attaining it: P = P_D(E), Q = P_D'(E);
    ``size`` = whole outputs in the event and ``fraction`` of the next one (randomised)."""

    value: float
    P: float
    Q: float
    size: int
    fraction: float = 0.0


_NONE = Ceiling(-np.inf, 0.0, 0.0, 0)


def single_ceiling(p: np.ndarray, q: np.ndarray, n: float, alpha: float = ALPHA) -> Ceiling:
    """The best single-output event."""
    g = expected_bound(p, q, n, alpha)
    if g.size == 0:
        return _NONE
    i = int(np.argmax(g))
    return Ceiling(float(g[i]), float(p[i]), float(q[i]), 1)


def prefix_ceiling(p: np.ndarray, q: np.ndarray, n: float, alpha: float = ALPHA) -> Ceiling:
    """The best deterministic union of the top-k likelihood-ratio outputs (k >= 1)."""
    _, cp, cq = roc_vertices(p, q)
    g = expected_bound(cp[1:], cq[1:], n, alpha)
    if g.size == 0:
        return _NONE
    k = int(np.argmax(g))
    return Ceiling(float(g[k]), float(cp[k + 1]), float(cq[k + 1]), k + 1)


def roc_ceiling(p: np.ndarray, q: np.ndarray, n: float, alpha: float = ALPHA,
                steps: int = 64, chunk: int = 128, tol: float = 1e-7) -> Ceiling:
    """The maximum of g over the ROC curve (an upper bound on g of every event, see the
    module docstring).  A segment can beat the best point found so far only if its corner
    (P_k, Q_{k-1}) does (g is monotone, so the corner bounds g on the segment); segments
    are searched in decreasing order of their corner, ``chunk`` at a time, until no corner
    beats the best point by more than ``tol`` (so the result is within ``tol`` of the
    maximum).  On each, g is evaluated at ``steps`` + 1 equally spaced points;
    the best is refined by a bounded scalar search around it.  ``size`` in the result
    counts ROC segments (runs of equal ratio), not outputs."""
    cp, cq = roc_curve(p, q)
    if cp.size < 2:
        return _NONE
    gv = expected_bound(cp[1:], cq[1:], n, alpha)
    k = int(np.argmax(gv))
    best = Ceiling(float(gv[k]), float(cp[k + 1]), float(cq[k + 1]), k + 1)
    corner = expected_bound(cp[1:], cq[:-1], n, alpha)
    cand = np.flatnonzero(corner > best.value + tol)
    cand = cand[np.argsort(-corner[cand], kind="stable")]
    t = np.linspace(0.0, 1.0, steps + 1)
    seg, tj, gbest = -1, 0.0, best.value
    for start in range(0, cand.size, chunk):
        c = cand[start:start + chunk]
        c = c[corner[c] > gbest + tol]
        if c.size == 0:
            break
        P = cp[c, None] + t[None, :] * (cp[c + 1] - cp[c])[:, None]
        Q = cq[c, None] + t[None, :] * (cq[c + 1] - cq[c])[:, None]
        g = expected_bound(P, Q, n, alpha)
        i, j = np.unravel_index(int(np.argmax(g)), g.shape)
        if g[i, j] > gbest:
            seg, tj, gbest = int(c[i]), float(t[j]), float(g[i, j])
    if seg < 0:
        return best
    dp, dq = cp[seg + 1] - cp[seg], cq[seg + 1] - cq[seg]

    def neg(x: float) -> float:
        return -float(expected_bound(cp[seg] + x * dp, cq[seg] + x * dq, n, alpha))

    lo, hi = max(0.0, tj - 1.0 / steps), min(1.0, tj + 1.0 / steps)
    r = optimize.minimize_scalar(neg, bounds=(lo, hi), method="bounded",
                                 options={"xatol": 1e-10})
    x = float(r.x) if -r.fun > gbest else tj
    val = max(-float(r.fun), gbest)
    return Ceiling(val, float(cp[seg] + x * dp), float(cq[seg] + x * dq), seg, x)


def both_directions(fn, p: np.ndarray, q: np.ndarray, n: float, alpha: float = ALPHA
                    ) -> tuple[Ceiling, bool]:
    """``fn`` on (p, q) and on (q, p); the better one and whether it was the swapped one."""
    a, b = fn(p, q, n, alpha), fn(q, p, n, alpha)
    return (b, True) if b.value > a.value else (a, False)


def threshold_ceiling(p: np.ndarray, q: np.ndarray, n: float, alpha: float = ALPHA
                      ) -> Ceiling:
    """For cells of a scalar output in increasing order: the best event {y > t} or
    {y <= t} with t a cell edge (the family a threshold tester searches)."""
    best = _NONE
    for pp, qq in ((p[::-1], q[::-1]), (p, q)):
        g = expected_bound(np.cumsum(pp), np.cumsum(qq), n, alpha)
        k = int(np.argmax(g))
        if g[k] > best.value:
            best = Ceiling(float(g[k]), float(np.cumsum(pp)[k]), float(np.cumsum(qq)[k]),
                           k + 1)
    return best


def simulated_bounds(P: float, Q: float, n: int, reps: int, rng: np.random.Generator,
                     alpha: float = ALPHA) -> np.ndarray:
    """Certified bounds of the event (P, Q) over ``reps`` seeded draws of the binomial
    counts (integer counts, the same Clopper-Pearson bounds)."""
    x = rng.binomial(n, P, reps).astype(float)
    y = rng.binomial(n, Q, reps).astype(float)
    lo = cp_lower(x, n, alpha)
    hi = cp_upper(y, n, alpha)
    with np.errstate(divide="ignore"):
        return np.where(lo > 0, np.log(np.where(lo > 0, lo, 1.0)) - np.log(hi), -np.inf)


def n_needed(p: np.ndarray, q: np.ndarray, target: float, alpha: float = ALPHA,
             lo: float = 1e2, hi: float = 1e14) -> float:
    """The smallest n (to 0.1 % by bisection on log n) at which the ROC ceiling of (p, q),
    either direction, reaches ``target``; inf if not even at ``hi``."""
    def ok(n: float) -> bool:
        return both_directions(roc_ceiling, p, q, n, alpha)[0].value >= target

    if not ok(hi):
        return float("inf")
    if ok(lo):
        return lo
    a, b = np.log(lo), np.log(hi)
    while b - a > 1e-3:
        m = 0.5 * (a + b)
        if ok(float(np.exp(m))):
            b = m
        else:
            a = m
    return float(np.exp(b))


def n_needed_laws(laws: list[tuple[np.ndarray, np.ndarray]], target: float,
                  alpha: float = ALPHA, hi: float = 1e12, probe: float = 2e7) -> float:
    """min over pairs of :func:`n_needed`: the smallest n at which some pair's ROC ceiling
    reaches ``target``.  Pairs are tried in decreasing order of their ceiling at ``probe``;
    a pair is bisected only if it reaches the target at the best n found so far
    (otherwise its own n is larger)."""
    rank = [-both_directions(roc_ceiling, p, q, probe, alpha)[0].value for p, q in laws]
    best = float("inf")
    for i in np.argsort(rank, kind="stable"):
        p, q = laws[i]
        cap = min(best, hi)
        if both_directions(roc_ceiling, p, q, cap, alpha)[0].value < target:
            continue
        best = min(best, n_needed(p, q, target, alpha, hi=cap))
    return best
