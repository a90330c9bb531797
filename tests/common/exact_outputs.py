"""Exact output distributions of the calibration-suite mechanisms (tests/common/power_suite.py)
on their tested pairs: for each pair, the probability of every output on each data set.

Finite output spaces are given output by output; continuous scalar outputs are cut into
fine cells whose probabilities are exact differences of the closed-form CDF (a cell is a
coarsening of the output, i.e. post-processing, so every event on cells is an event on
the output).  How each entry is known:

* Sparse Vector with Laplace query noise (SVT1, SVT2, SVT4, SVT6; SVT3's above/below
  skeleton): quadrature over the threshold noise rho, :func:`power_suite.svt_output_logprobs`
  (Lyu, Su & Li 2017, Figure 1);
* SVT5 (no query noise): closed form, the output is a step function of rho, each output's
  probability is the Laplace mass of an interval of rho;
* Report Noisy Max, index output: quadrature, :func:`power_suite.noisy_max_probs`
  (Dwork & Roth 2014, Claim 3.9);
* truncated geometric: closed-form pmf (Ghosh, Roughgarden & Sundararajan 2009);
* one-time RAPPOR and RAPPOR: the reported bits are independent (Erlingsson, Pihur &
  Korolova 2014, Section 3), so an output's probability is a product; only the bits whose
  law differs between the two values are kept (the others have the same law on both
  sides and are independent of the kept ones: a fair coin for an event, nothing more);
* Laplace, noisy histogram (bin 0, the only bin that moves; the others are independent
  and identically distributed on both sides) and the noisy maximum value: exact CDFs of
  Laplace / exponential noise, cells of width scale / 200 between +-30 scales around the
  answers plus the two tails.

* Laplace composition and prefix sums: the law of the privacy-loss statistic
  :func:`laplace_loss_sum_law`.  The prefix sum is a bijection of its increments
  d_i + Lap(b), so both are k independent Laplace releases, k = the number of answers the
  pair moves (by exactly 1 each); the loss of column i, (|y_i - d_i| - |y_i - d'_i|) / b,
  is -1/b left of the two answers, +1/b right of them and linear between, so the sum of
  the k losses with the between-part cut into ``steps`` cells is a post-processing of the
  output and (up to that cut) the sufficient statistic of the pair: every event on it is
  an output event, and its ceiling is, up to the cut, the ceiling over all output events.

Not covered: SVT3's released values and the numerical SVT.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from tests.common import power_suite as ps


@dataclass(frozen=True)
class PairLaw:
    """The output law of one mechanism on both data sets of one pair.

    ``p[i]``, ``q[i]``: probability of output (or cell) ``i`` on the first / second data
    set; ``kind`` is "outputs" (a finite output space, one entry per output) or "cells"
    (a continuous scalar output cut into consecutive cells, in increasing order)."""

    label: str
    p: np.ndarray
    q: np.ndarray
    kind: str


@dataclass(frozen=True)
class MechanismLaws:
    name: str
    laws: list[PairLaw]
    scope: str


# ---------------------------------------------------------------- finite output spaces


def svt_laws(rho_scale: float, nu_scale: float, cutoff: bool,
             pairs: list, grid: int | None = None) -> list[PairLaw]:
    """Every output's probability of the above/below SVT on each pair (output order of
    :func:`power_suite.svt_output_logprobs`).

    The Riemann sum there has error c h^2 + O(h^3) in the spacing h (the rho density has a
    kink on a grid point: Euler-Maclaurin), up to 3e-4 of the total with 2001 points;
    Richardson extrapolation of the sums on ``grid`` and ``2 grid - 1`` points (the same
    end points, half the spacing), (4 R(h/2) - R(h)) / 3, removes the h^2 term: the
    probabilities then sum to 1 within 1e-8 and agree with the next finer extrapolation
    to 1e-8 (cut-off, 8001) and 3e-6 (no cut-off, 4001) relative, output by output."""
    g = grid if grid is not None else (8_001 if cutoff else 4_001)
    out = []
    for pr in pairs:
        side = []
        for d in (pr.first, pr.second):
            r1 = np.exp(ps.svt_output_logprobs(rho_scale, nu_scale, cutoff, np.asarray(d), g))
            r2 = np.exp(ps.svt_output_logprobs(rho_scale, nu_scale, cutoff, np.asarray(d),
                                               2 * g - 1))
            side.append(np.maximum((4 * r2 - r1) / 3, 0.0))
        out.append(PairLaw(_pattern(pr), side[0], side[1], "outputs"))
    return out


def svt_no_noise_probs(rho_scale: float, d: np.ndarray) -> np.ndarray:
    """SVT without query noise (SVT5, no cut-off): answer i is "above" iff
    d_i >= T + rho iff rho <= d_i - T, so the output is a step function of rho ~
    Lap(rho_scale); output o (answer i = bit i of o) has the Laplace mass of the rho
    intervals on which it is produced.  Exact (closed-form CDF)."""
    d = np.asarray(d, dtype=float)
    n = d.size
    cuts = np.unique(d - ps.THRESHOLD)
    edges = np.concatenate([[-np.inf], cuts, [np.inf]])
    probs = np.zeros(2 ** n)
    for lo, hi in zip(edges[:-1], edges[1:], strict=True):
        # rho in (lo, hi]: answer i above iff rho <= d_i - T iff hi <= d_i - T
        o = int(np.sum((hi <= d - ps.THRESHOLD) << np.arange(n)))
        probs[o] += _lap_cdf_scalar(hi, rho_scale) - _lap_cdf_scalar(lo, rho_scale)
    return probs


def _lap_cdf_scalar(x: float, b: float) -> float:
    if x == math.inf:
        return 1.0
    if x == -math.inf:
        return 0.0
    return 0.5 * math.exp(x / b) if x < 0 else 1.0 - 0.5 * math.exp(-x / b)


def truncated_geometric_pmf(alpha: float, m: int, c: int) -> np.ndarray:
    """pmf of clip(c + Z, 0, m), Z two-sided geometric with P(Z = z) =
    (1 - alpha) / (1 + alpha) alpha^|z| (Ghosh et al. 2009): interior points keep that
    mass, the ends collect the tails P(Z <= -c) = alpha^c / (1 + alpha) and
    P(Z >= m - c) = alpha^(m - c) / (1 + alpha)."""
    y = np.arange(m + 1)
    p = (1 - alpha) / (1 + alpha) * alpha ** np.abs(y - c)
    p[0] = alpha ** c / (1 + alpha)
    p[m] = alpha ** (m - c) / (1 + alpha)
    return p


#: the suite's RAPPOR parameters (power_suite.suite: one-time f = 0.95; RAPPOR f = 0.5,
#: p = 0.5, q = 0.75; k = 20 bits, two hash positions (7v + 3) mod k, (13v + 5) mod k)
RAPPOR_K = 20


def rappor_bit_probs(value: int, f: float, p: float | None, q: float | None,
                     k: int = RAPPOR_K) -> np.ndarray:
    """P(reported bit j = 1) for every bit j: the permanent response keeps the Bloom bit
    with probability 1 - f and is a fair coin otherwise; RAPPOR's instantaneous response
    then reports 1 with probability q if the permanent bit is 1, p if it is 0."""
    bloom = np.zeros(k)
    bloom[[(7 * value + 3) % k, (13 * value + 5) % k]] = 1.0
    prr = f / 2 + (1 - f) * bloom
    if p is None or q is None:
        return prr
    return q * prr + p * (1 - prr)


def rappor_law(f: float, p: float | None, q: float | None, v1: int, v2: int,
               k: int = RAPPOR_K) -> tuple[PairLaw, np.ndarray]:
    """The law of the bits that differ between values v1 and v2 (output o: kept bit i =
    bit i of o), and the positions of those bits."""
    a, b = rappor_bit_probs(v1, f, p, q, k), rappor_bit_probs(v2, f, p, q, k)
    keep = np.flatnonzero(a != b)
    m = keep.size
    o = (np.arange(2 ** m)[:, None] >> np.arange(m)[None, :]) & 1
    pa = np.prod(np.where(o == 1, a[keep], 1 - a[keep]), axis=1)
    pb = np.prod(np.where(o == 1, b[keep], 1 - b[keep]), axis=1)
    return PairLaw(f"{v1} vs {v2}", pa, pb, "outputs"), keep


# ---------------------------------------------------------------- continuous scalar outputs


def _cells(cdf: Callable[[np.ndarray], np.ndarray], sf: Callable[[np.ndarray], np.ndarray],
           edges: np.ndarray) -> np.ndarray:
    """Probabilities of (-inf, e0], (e0, e1], ..., (e_last, inf): differences of the CDF
    where it is below 1/2, of the survival function elsewhere (no cancellation)."""
    e = np.concatenate([[-np.inf], edges, [np.inf]])
    with np.errstate(over="ignore", invalid="ignore"):
        c, s = cdf(e), sf(e)
    lo_c, hi_c, lo_s, hi_s = c[:-1], c[1:], s[:-1], s[1:]
    return np.where(hi_c <= 0.5, hi_c - lo_c, lo_s - hi_s)


def _lap_log_cdf(u: np.ndarray, b: float) -> np.ndarray:
    return np.where(u < 0, math.log(0.5) + np.minimum(u, 0) / b,
                    np.log1p(-0.5 * np.exp(-np.maximum(u, 0) / b)))


def _lap_log_sf(u: np.ndarray, b: float) -> np.ndarray:
    return _lap_log_cdf(-u, b)


def _exp_log_cdf(u: np.ndarray, b: float) -> np.ndarray:
    with np.errstate(divide="ignore"):
        return np.where(u > 0, np.log(-np.expm1(-np.maximum(u, 0) / b)), -np.inf)


def max_noise_cdf_sf(d: np.ndarray, b: float, noise: str
                     ) -> tuple[Callable[[np.ndarray], np.ndarray],
                                Callable[[np.ndarray], np.ndarray]]:
    """CDF and survival function of max_j (d_j + Z_j), Z_j iid Laplace(b) or exponential(b):
    P(max <= x) = prod_j F(x - d_j).  A single answer (``d`` of size 1) is the Laplace
    mechanism."""
    d = np.asarray(d, dtype=float)
    logf = _lap_log_cdf if noise == "laplace" else _exp_log_cdf

    def log_cdf(x: np.ndarray) -> np.ndarray:
        x = np.asarray(x, dtype=float)
        fin = np.where(np.isfinite(x), x, 0.0)
        v = logf(fin[..., None] - d, b).sum(axis=-1)
        return np.where(x == np.inf, 0.0, np.where(x == -np.inf, -np.inf, v))

    def cdf(x: np.ndarray) -> np.ndarray:
        return np.exp(log_cdf(x))

    def sf(x: np.ndarray) -> np.ndarray:
        return -np.expm1(log_cdf(x))

    if d.size == 1 and noise == "laplace":
        def sf(x: np.ndarray) -> np.ndarray:  # noqa: F811 - exact in the far right tail
            x = np.asarray(x, dtype=float)
            fin = np.where(np.isfinite(x), x, 0.0)
            v = np.exp(_lap_log_sf(fin - d[0], b))
            return np.where(x == np.inf, 0.0, np.where(x == -np.inf, 1.0, v))
    return cdf, sf


def scalar_cells_law(label: str, d1: np.ndarray, d2: np.ndarray, b: float, noise: str,
                     per_scale: int = 200, span: float = 30.0) -> PairLaw:
    """Cells of width b / ``per_scale`` over [min - span b, max + span b] of the answers,
    plus the two tails, for max_j (d_j + Z_j) on both data sets (the Laplace mechanism
    when each has one answer).  Cells empty on both sides are dropped."""
    both = np.concatenate([np.ravel(d1), np.ravel(d2)])
    lo, hi = float(both.min()) - span * b, float(both.max()) + span * b
    edges = lo + (b / per_scale) * np.arange(int(math.ceil((hi - lo) * per_scale / b)) + 1)
    p = _cells(*max_noise_cdf_sf(d1, b, noise), edges)
    q = _cells(*max_noise_cdf_sf(d2, b, noise), edges)
    keep = (p > 0) | (q > 0)
    return PairLaw(label, np.maximum(p[keep], 0.0), np.maximum(q[keep], 0.0), "cells")


# ---------------------------------------------------------------- the suite


def laplace_loss_sum_law(label: str, k: int, b: float, steps: int = 100) -> PairLaw:
    """Law of sum_i cell(loss_i) over k independent releases y_i = d_i + Lap(b) whose
    answers move by 1 (module docstring), on both sides; cell index 0 = loss -1/b,
    steps + 1 = loss +1/b, 1..steps = the between-part in equal cells of y.  Exact Laplace
    CDF differences, then a k-fold convolution (``numpy.convolve``)."""
    def cell_masses(mu: float) -> np.ndarray:
        edges = np.linspace(0.0, 1.0, steps + 1)
        cdf = np.array([_lap_cdf_scalar(x - mu, b) for x in edges])
        return np.concatenate([[cdf[0]], np.diff(cdf), [1.0 - cdf[-1]]])

    m1, m2 = cell_masses(0.0), cell_masses(1.0)
    p, q = np.ones(1), np.ones(1)
    for _ in range(k):
        p, q = np.convolve(p, m1), np.convolve(q, m2)
    return PairLaw(label, p, q, "outputs")


def _pattern(pr) -> str:
    return str(pr.change.get("pattern", pr.change.get("op", pr.change.get("query", ""))))


def suite_laws(name: str) -> MechanismLaws | None:
    """The exact laws of suite mechanism ``name`` on its tested pairs, or None if it is not
    covered (see the module docstring)."""
    e, n = ps.EPS, ps.N_QUERIES
    e1 = e2 = e / 2
    pp = ps.pattern_pairs(n)
    if name in ("laplace", "laplace-half-scale"):
        b = 1 / e if name == "laplace" else 0.5 / e
        laws = [scalar_cells_law(_pattern(pr), pr.first, pr.second, b, "laplace")
                for pr in ps.scalar_pairs()]
        return MechanismLaws(name, laws, "exact Laplace CDF, cells of scale/200")
    if name in ("histogram", "histogram-wrong-scale"):
        b = 1 / e if name == "histogram" else e
        laws = [scalar_cells_law(_pattern(pr), pr.first[:1], pr.second[:1], b, "laplace")
                for pr in ps.single_bin_pairs(n)]
        return MechanismLaws(name, laws, "bin 0 (the only bin that moves), exact Laplace CDF, "
                                         "cells of scale/200")
    if name in ("noisy-max-value-laplace", "noisy-max-value-exponential"):
        noise = "laplace" if name.endswith("laplace") else "exp"
        laws = [scalar_cells_law(_pattern(pr), pr.first, pr.second, 1 / e, noise) for pr in pp]
        return MechanismLaws(name, laws, "exact CDF of the maximum, cells of scale/200")
    if name.startswith("truncated-geometric"):
        alpha = math.exp(-e) if name == "truncated-geometric" else math.exp(-2 * e)
        law = PairLaw("2 vs 3", truncated_geometric_pmf(alpha, 5, 2),
                      truncated_geometric_pmf(alpha, 5, 3), "outputs")
        return MechanismLaws(name, [law], "closed-form pmf, 6 outputs")
    if name in ("noisy-max-laplace", "noisy-max-exponential"):
        noise = "laplace" if name == "noisy-max-laplace" else "exp"
        laws = [PairLaw(_pattern(pr), ps.noisy_max_probs(2 / e, noise, pr.first),
                        ps.noisy_max_probs(2 / e, noise, pr.second), "outputs") for pr in pp]
        return MechanismLaws(name, laws, "quadrature, 10 outputs")
    if name in ("svt1", "svt2"):
        return MechanismLaws(name, svt_laws(1 / e1, 2 / e2, True, pp),
                             "quadrature, 11 outputs")
    if name == "svt3":
        return MechanismLaws(name, svt_laws(1 / e1, 1 / e2, True, pp),
                             "above/below SKELETON only (11 outputs): not a ceiling for "
                             "SVT3's full output, which also releases the noisy answer")
    if name == "svt4":
        return MechanismLaws(name, svt_laws(4 / e, 4 / (3 * e), True, pp),
                             "quadrature, 11 outputs")
    if name == "svt5":
        laws = [PairLaw(_pattern(pr), svt_no_noise_probs(1 / e1, pr.first),
                        svt_no_noise_probs(1 / e1, pr.second), "outputs") for pr in pp]
        return MechanismLaws(name, laws, "closed form, 1024 outputs")
    if name == "svt6":
        return MechanismLaws(name, svt_laws(1 / e1, 1 / e2, False, pp),
                             "quadrature, 1024 outputs")
    if name == "laplace-composition-20":
        law = laplace_loss_sum_law("0 -> 1", 20, 20 / e)
        return MechanismLaws(name, [law], "privacy-loss sum of 20 Laplace releases, "
                                          "between-part in 100 cells")
    if name in ("prefix-sum", "prefix-sum-unscaled"):
        b = n / e if name == "prefix-sum" else 1 / e
        ks = sorted({int(np.count_nonzero(pr.first != pr.second)) for pr in pp})
        laws = [laplace_loss_sum_law(f"{k} answers move", k, b) for k in ks if k > 0]
        return MechanismLaws(name, laws, "privacy-loss sum of the moved increments, "
                                         "between-part in 100 cells")
    if name == "one-time-rappor":
        law, _ = rappor_law(0.95, None, None, 0, 1)
        return MechanismLaws(name, [law], "product of independent bits, the 4 that differ")
    if name == "rappor":
        law, _ = rappor_law(0.5, 0.5, 0.75, 0, 1)
        return MechanismLaws(name, [law], "product of independent bits, the 4 that differ")
    return None
