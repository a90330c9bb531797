"""Certified lower bounds on Renyi divergences from histograms, for zCDP and RDP claims.

A single event keeps only a Bernoulli pair, whose Renyi divergences are far below the
mechanism's (the Gaussian with mu = 1.11, true rho = 0.62: at most ~0.52 from events of
probability >= 1e-3).  A partition of the outputs into k bins keeps much more, and for a
Gaussian, whose D_alpha / alpha = mu^2 / 2 at every alpha, an order close to 1 puts the
weight on well-populated bins.  Data processing (van Erven & Harremoes 2014, Theorem 9):
D_alpha(P_k || Q_k) <= D_alpha(M(D) || M(D')), P_k, Q_k the bin laws.

Bound.  With one-sided Clopper-Pearson bounds p_i >= pL_i and q_i <= qU_i for every bin
(2k bounds, Bonferroni), every term p_i^alpha q_i^(1 - alpha) (alpha > 1) is at least
pL_i^alpha qU_i^(1 - alpha), so

    D_alpha(P || Q) >= log(sum_i pL_i^alpha qU_i^(1 - alpha)) / (alpha - 1)

with probability >= 1 - level (no simplex constraint is used: a valid, slightly loose
bound).  The bins (quantiles of the pooled selection outputs), the direction and the order
alpha are chosen on selection outputs; the counts are fresh.  The sum is evaluated in
mpmath and rounded down.  One-column outputs only.  Nothing here prints or writes files.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any

import mpmath
import numpy as np

from audit.privacy.blackbox.sampling import rng_record
from audit.privacy.blackbox.settings import TesterSettings
from audit.privacy.blackbox.statistics import (
    bonferroni_level,
    clopper_pearson_lower,
    clopper_pearson_upper,
)
from audit.privacy.claims import mp
from audit.privacy.claims.base import Claim
from audit.privacy.claims.rdp import RenyiDP
from audit.privacy.claims.zcdp import ZCDP
from audit.protocols import Mechanism, NeighbourPair
from kernels.errors import InvalidParameterError

__all__ = ["BINS", "HistogramResult", "certify_histogram", "recount_histogram",
           "renyi_lower_float"]

#: bins of the partition (quantiles of the pooled selection outputs)
BINS = 100
#: orders tried for a zCDP claim (an RDP claim uses its own orders)
ZCDP_ORDERS = np.array([1.05, 1.1, 1.2, 1.35, 1.5, 1.75, 2.0, 2.5, 3.0, 4.0, 6.0])


def renyi_lower_float(kp: np.ndarray, kq: np.ndarray, n: int, level: float,
                      alpha: float) -> float:
    """log(sum pL^alpha qU^(1-alpha)) / (alpha - 1) in float64 (for choosing only)."""
    pl = np.asarray(clopper_pearson_lower(kp, n, level))
    qu = np.asarray(clopper_pearson_upper(kq, n, level))
    with np.errstate(divide="ignore"):
        t = alpha * np.log(np.where(pl > 0, pl, 1.0)) + (1 - alpha) * np.log(qu)
    t = np.where(pl > 0, t, -np.inf)
    m = float(np.max(t))
    if not math.isfinite(m):
        return -math.inf
    return (m + math.log(float(np.sum(np.exp(t - m))))) / (alpha - 1)


def _renyi_lower_mp(pl: np.ndarray, qu: np.ndarray, alpha: float) -> float:
    with mp.workprec():
        a = mp.exact(alpha)
        s = mpmath.fsum(mp.exact(p) ** a * mp.exact(q) ** (1 - a)
                        for p, q in zip(pl.tolist(), qu.tolist(), strict=True) if p > 0)
        if s <= 0:
            return -math.inf
        return mp.down(mpmath.log(s) / (a - 1))


@dataclass
class HistogramResult:
    """The histogram certificate: the refuted flag, the strongest refuted parameters (as
    :class:`~audit.privacy.claims.base.CornerVerdict`'s), the choice and the counts."""

    claim: str
    refuted: bool
    strongest: dict[str, float]
    pair_index: int
    direction: int
    alpha: float
    edges: list[float] = field(repr=False)
    counts: dict[str, list[int]] = field(repr=False)
    n: int = 0
    level_per_bound: float = 0.0
    samples_total: int = 0
    seconds: float = 0.0
    #: the generator state before the certification counts (replay)
    rng_state: dict[str, Any] = field(default_factory=dict, repr=False)
    #: the certified divergence and every bin's two bounds (the run's level accounting,
    #: :mod:`audit.privacy.claims.accounting`, re-derives them)
    divergence: float = -math.inf
    p_lower: list[float] = field(default_factory=list, repr=False)
    q_upper: list[float] = field(default_factory=list, repr=False)


def _orders(claim: Claim) -> tuple[np.ndarray, np.ndarray]:
    """(orders, the claim's bound on D_alpha at each)."""
    if isinstance(claim, ZCDP):
        return ZCDP_ORDERS, ZCDP_ORDERS * claim.rho
    if isinstance(claim, RenyiDP):
        al = np.array([a for a, _ in claim.orders])
        return al, np.array([e for _, e in claim.orders])
    raise InvalidParameterError(f"the histogram certificate decides zCDP and RDP claims, "
                                f"not {claim.spec()}")


def _bin_counts(t: TesterSettings, mech: Mechanism, ds: Any, edges: np.ndarray, n: int,
                rng: np.random.Generator) -> np.ndarray:
    out = np.zeros(edges.size + 1, dtype=np.int64)
    done = 0
    while done < n:
        m = min(int(t.chunk_size), n - done)
        y = t.draw_chunked(mech, ds, m, rng, 1)[:, 0]
        out += np.bincount(np.searchsorted(edges, y[np.isfinite(y)]),
                           minlength=edges.size + 1)
        out[-1] += int(np.count_nonzero(~np.isfinite(y)))  # non-finite: one more bin
        done += m
    return out


def certify_histogram(claim: Claim, mechanism: Mechanism, pairs: list[NeighbourPair],
                      rng: np.random.Generator, t: TesterSettings | None = None
                      ) -> HistogramResult:
    """Choose (pair, direction, order) on ``t.n_select`` outputs per data set, certify the
    Renyi lower bound on ``t.certify_samples`` fresh ones (module docstring)."""
    t = t if t is not None else TesterSettings()
    t0 = time.perf_counter()
    orders, bounds = _orders(claim)
    n_sel, n_cert = int(t.n_select), int(t.certify_samples)
    level = bonferroni_level(1.0 - float(t.confidence), 2 * (BINS + 1))
    best: tuple[float, int, int, int, np.ndarray] | None = None
    for idx, pair in enumerate(pairs):
        ya, yb = t.draw_pair(mechanism, pair, n_sel, rng, None)
        if ya.shape[1] != 1:
            raise InvalidParameterError("the histogram certificate needs one output column")
        pooled = np.concatenate([ya[:, 0], yb[:, 0]])
        pooled = pooled[np.isfinite(pooled)]
        edges = np.unique(np.quantile(pooled, np.linspace(0, 1, BINS + 1)[1:-1]))
        ka = np.bincount(np.searchsorted(edges, ya[:, 0]), minlength=edges.size + 1)
        kb = np.bincount(np.searchsorted(edges, yb[:, 0]), minlength=edges.size + 1)
        for direction, (kp, kq) in enumerate(((ka, kb), (kb, ka))):
            # the expected certification counts, at the certification level
            ep, eq = np.floor(kp / n_sel * n_cert), np.ceil(kq / n_sel * n_cert)
            for j, (al, bd) in enumerate(zip(orders, bounds, strict=True)):
                score = renyi_lower_float(ep, np.minimum(eq, n_cert), n_cert, level,
                                          float(al)) / bd
                if best is None or score > best[0]:
                    best = (score, idx, direction, j, edges)
    assert best is not None
    _, idx, direction, j, edges = best
    pair = pairs[idx]
    state = rng_record(rng)
    ca = _bin_counts(t, mechanism, pair.first, edges, n_cert, rng)
    cb = _bin_counts(t, mechanism, pair.second, edges, n_cert, rng)
    al = float(orders[j])
    refuted, strongest, d, pl, qu = _decide(claim, ca, cb, direction, al, n_cert, level)
    return HistogramResult(claim.spec(), refuted, strongest, idx, direction, al,
                           edges.tolist(), {"first": ca.tolist(), "second": cb.tolist()},
                           n_cert, level, 2 * n_sel * len(pairs) + 2 * n_cert,
                           time.perf_counter() - t0, state, d, pl.tolist(), qu.tolist())


def _decide(claim: Claim, ca: np.ndarray, cb: np.ndarray, direction: int, alpha: float,
            n: int, level: float
            ) -> tuple[bool, dict[str, float], float, np.ndarray, np.ndarray]:
    """The certified bound from fresh bin counts and whether it refutes the claim:
    (refuted, strongest refuted parameters, certified divergence, the bins' lower bounds
    on P, upper bounds on Q)."""
    kp, kq = (ca, cb) if direction == 0 else (cb, ca)
    pl = np.asarray(clopper_pearson_lower(kp, n, level), dtype=np.float64)
    qu = np.asarray(clopper_pearson_upper(kq, n, level), dtype=np.float64)
    d = _renyi_lower_mp(pl, qu, alpha)
    if isinstance(claim, ZCDP):
        with mp.workprec():
            rho = mp.down(mpmath.mpf(d) / mp.exact(alpha)) if math.isfinite(d) else 0.0
        return (bool(mpmath.mpf(rho) > mp.param(claim.rho)), {"rho": max(0.0, rho)}, d, pl,
                qu)
    bound = dict(claim.orders)[alpha] if isinstance(claim, RenyiDP) else math.inf
    return (bool(mpmath.mpf(d) > mp.param(bound)), {f"eps@alpha={alpha:g}": max(0.0, d)},
            d, pl, qu)


def recount_histogram(claim: Claim, mechanism: Mechanism, first: Any, second: Any,
                      edges: list[float], direction: int, alpha: float, n: int,
                      level: float, rng: np.random.Generator, chunk_size: int
                      ) -> tuple[bool, dict[str, float], dict[str, list[int]]]:
    """Replay a certificate: recount the bins on ``n`` outputs per data set from ``rng``
    and re-decide (the refuted flag, the strongest parameters, the counts)."""
    t = TesterSettings(n_select=10, n_certify=n, chunk_size=chunk_size)
    e = np.asarray(edges, dtype=np.float64)
    ca = _bin_counts(t, mechanism, first, e, n, rng)
    cb = _bin_counts(t, mechanism, second, e, n, rng)
    refuted, strongest, _, _, _ = _decide(claim, ca, cb, direction, alpha, n, level)
    return refuted, strongest, {"first": ca.tolist(), "second": cb.tolist()}
