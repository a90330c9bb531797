"""Calibration suite of published DP mechanisms and their known-broken variants, at claimed
epsilon = 0.1, on the pattern input pairs of StatDP (Ding et al., CCS 2018), for measuring
a black-box tester's power (tests/bench/power_suite.py) and for seeded tests.

Every entry states its true epsilon on the tested pairs and how that value is known:

* ``exact`` - derived in closed form here (docstring of the builder), or
* ``exact-quadrature`` - computed by :func:`svt_exact_epsilon` / :func:`noisy_max_exact`:
  the output space is finite, so the pure-DP epsilon on a pair is the largest |log ratio|
  of the two output probabilities, each a 1-D integral evaluated on a fine grid (error
  ~1e-6 relative, far below the tester's margins),
* ``lower`` - a lower bound (the exact epsilon of a post-processing of the output),
* ``upper`` - only the paper's proof (<= claim); the exact value on the pairs is unknown.

Mechanisms, with the paper each one is written from:

* Laplace mechanism (Dwork et al. 2006) and its half-scale twin;
* truncated geometric mechanism (Ghosh, Roughgarden & Sundararajan 2009) and a twin with
  alpha = e^{-2 epsilon};
* noisy histogram (Dwork et al. 2006) with scale 1/epsilon and with the wrong scale epsilon;
* Report Noisy Max (Dwork & Roth 2014, Claim 3.9): index with Laplace(2/epsilon) noise,
  index with exponential(2/epsilon) noise, and the broken variants that release the noisy
  maximum *value* (Laplace(1/epsilon), exponential(1/epsilon)), as in StatDP;
* the six Sparse Vector variants of Lyu, Su & Li (2017), Figure 1 (Algorithms 1-6) with
  c = 1 (cut-off after the first "above"), T = 1, 10 queries; "above" = 1, "below" = 0,
  after the cut-off NaN; SVT3 writes "below" as the code -1000;
* one-time RAPPOR and RAPPOR (Erlingsson, Pihur & Korolova 2014), k = 20 bits, h = 2;
* a composition of 20 Laplace(20/epsilon) releases of one query (DP-Sniper's
  "LaplaceParallel" shape);
* PrefixSum (Wang et al. 2019): the prefix sums of noisy answers, scale N/epsilon (private
  for answers that each move by <= 1) and scale 1/epsilon (not);
* a numerical SVT built by composition: SVT1 at epsilon/2 plus a fresh Laplace(2/epsilon)
  release of each "above" answer (private by sequential composition).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from audit.privacy.relation import QUERY_LINF_1
from audit.protocols import REPLACE_ONE, NeighbourPair

EPS = 0.1
N_QUERIES = 10
THRESHOLD = 1.0
SNAP = 256.0
#: the relation of the query-answer pairs: every answer moves by at most 1
LINF1 = QUERY_LINF_1.name


def pattern_pairs(n: int = N_QUERIES) -> list[NeighbourPair]:
    """StatDP's pattern pairs (Ding et al. 2018, Table 2 shapes) for n query answers, each
    answer moving by at most 1 (``linf:1``, the relation the SVT and Noisy Max proofs
    use)."""
    h = n // 2
    ones = [1.0] * n
    shapes = {
        "one-above": (ones, [2.0] + [1.0] * (n - 1)),
        "one-below": (ones, [0.0] + [1.0] * (n - 1)),
        "one-above-rest-below": (ones, [2.0] + [0.0] * (n - 1)),
        "one-below-rest-above": (ones, [0.0] + [2.0] * (n - 1)),
        "half-half": (ones, [0.0] * h + [2.0] * (n - h)),
        "all-above": (ones, [2.0] * n),
        "all-below": (ones, [0.0] * n),
        "x-shape": ([1.0] * h + [0.0] * (n - h), [0.0] * h + [1.0] * (n - h)),
    }
    return [NeighbourPair(np.array(a), np.array(b), LINF1, {"pattern": k})
            for k, (a, b) in shapes.items()]


def single_bin_pairs(n: int = N_QUERIES) -> list[NeighbourPair]:
    """Histogram pairs: one bin moves by 1 (add or remove one record)."""
    base = np.full(n, 5.0)
    up, down = base.copy(), base.copy()
    up[0] += 1
    down[0] -= 1
    return [NeighbourPair(base, up, LINF1, {"bin": 0, "op": "add"}),
            NeighbourPair(base, down, LINF1, {"bin": 0, "op": "remove"})]


def scalar_pairs() -> list[NeighbourPair]:
    return [NeighbourPair(np.array([0.0]), np.array([1.0]), LINF1, {"query": "0 -> 1"})]


@dataclass
class SuiteMechanism:
    """One suite entry (a :class:`audit.protocols.Mechanism`) with its truth."""

    name: str
    sampler: Callable[[np.ndarray, int, np.random.Generator], np.ndarray]
    pairs: list[NeighbourPair]
    true_epsilon: float
    known: str  # "exact", "exact-quadrature", "lower", "upper"
    claimed_epsilon: float = EPS
    relation: str = LINF1
    cites: str = ""
    tags: tuple[str, ...] = field(default_factory=tuple)

    @property
    def violates(self) -> bool:
        """A known violation: the true epsilon (or its lower bound) exceeds the claim."""
        return self.known in ("exact", "exact-quadrature", "lower") and (
            self.true_epsilon > self.claimed_epsilon * 1.0001)

    def sample(self, dataset: np.ndarray, size: int, rng: np.random.Generator) -> np.ndarray:
        """``size`` outputs, snapped to the grid 2^-8 (exact float operations; codes, NaN
        and integers unchanged).  Snapping is post-processing of the real-number
        mechanism, so it cannot raise epsilon, and it removes the float64 low-bit leaks
        (Mironov 2012) that would otherwise make every continuous entry non-private at the
        bit level: the suite measures the real-number mechanism.  The closed-form truths
        stay exact: their supremum ratios are attained on grid cells away from the kinks."""
        y = self.sampler(np.asarray(dataset, dtype=np.float64), size, rng)
        return np.round(y * SNAP) / SNAP


# ---------------------------------------------------------------- scalar mechanisms


def _laplace(scale: float):
    def s(d, size, rng):
        return d[0] + rng.laplace(0.0, scale, size)
    return s


def _two_sided_geometric(alpha: float, size: int, rng: np.random.Generator) -> np.ndarray:
    p = 1.0 - alpha
    return (rng.geometric(p, size) - rng.geometric(p, size)).astype(np.float64)


def _truncated_geometric(alpha: float, m: int):
    def s(d, size, rng):
        return np.clip(d[0] + _two_sided_geometric(alpha, size, rng), 0, m)
    return s


def truncated_geometric_epsilon(alpha: float, m: int, q: int, q2: int) -> float:
    """Exact epsilon of the truncated geometric mechanism on counts q vs q2 (pmf below)."""
    def pmf(c: int) -> np.ndarray:
        y = np.arange(m + 1)
        p = (1 - alpha) / (1 + alpha) * alpha ** np.abs(y - c)
        p[0] = alpha ** c / (1 + alpha)          # P(c + Z <= 0)
        p[m] = alpha ** (m - c) / (1 + alpha)    # P(c + Z >= m)
        return p
    return float(np.max(np.abs(np.log(pmf(q)) - np.log(pmf(q2)))))


# ---------------------------------------------------------------- vector mechanisms


def _histogram(scale: float):
    def s(d, size, rng):
        return d[None, :] + rng.laplace(0.0, scale, (size, d.size))
    return s


def _noisy_max_index(noise: str, scale: float):
    def s(d, size, rng):
        z = rng.laplace(0.0, scale, (size, d.size)) if noise == "laplace" else \
            rng.exponential(scale, (size, d.size))
        return np.argmax(d[None, :] + z, axis=1).astype(np.float64)
    return s


def _noisy_max_value(noise: str, scale: float):
    def s(d, size, rng):
        z = rng.laplace(0.0, scale, (size, d.size)) if noise == "laplace" else \
            rng.exponential(scale, (size, d.size))
        return np.max(d[None, :] + z, axis=1)
    return s


def _svt(rho_scale: float, nu_scale: float, cutoff: bool, numeric: bool = False,
         below_code: float = 0.0):
    """Lyu et al. (2017) Figure 1 with c = 1: rho ~ Lap(rho_scale), nu_i ~ Lap(nu_scale)
    (0 if nu_scale == 0); above iff q_i + nu_i >= T + rho; with ``cutoff`` everything after
    the first above is NaN; ``numeric`` releases q_i + nu_i for an above answer."""
    def s(d, size, rng):
        rho = rng.laplace(0.0, rho_scale, (size, 1))
        nu = rng.laplace(0.0, nu_scale, (size, d.size)) if nu_scale > 0 else 0.0
        noisy = d[None, :] + nu
        above = noisy >= THRESHOLD + rho
        out = np.where(above, np.asarray(noisy if numeric else 1.0, dtype=float)
                       * np.ones_like(above, dtype=float), below_code)
        if cutoff:
            seen = np.cumsum(above, axis=1) - above  # aboves strictly before i
            out[seen >= 1] = np.nan
        return out
    return s


def _rappor(f: float, p: float | None, q: float | None, k: int = 20):
    def s(d, size, rng):
        bloom = np.zeros(k)
        v = int(d[0])
        bloom[[(7 * v + 3) % k, (13 * v + 5) % k]] = 1.0
        r = rng.random((size, k))
        prr = np.where(r < f / 2, 1.0, np.where(r < f, 0.0, bloom[None, :]))
        if p is None:
            return prr
        u = rng.random((size, k))
        return (u < np.where(prr == 1.0, q, p)).astype(np.float64)
    return s


def _composition(copies: int, scale: float):
    def s(d, size, rng):
        return d[0] + rng.laplace(0.0, scale, (size, copies))
    return s


def _prefix_sum(scale: float):
    def s(d, size, rng):
        return np.cumsum(d[None, :] + rng.laplace(0.0, scale, (size, d.size)), axis=1)
    return s


def _numerical_svt(eps: float):
    svt = _svt(2.0 / (eps / 2), 4.0 / (eps / 2), cutoff=True)  # SVT1 at eps/2

    def s(d, size, rng):
        top = svt(d, size, rng)
        vals = d[None, :] + rng.laplace(0.0, 2.0 / eps, (size, d.size))
        return np.where(top == 1.0, vals, top)
    return s


# ---------------------------------------------------------------- exact epsilons


def _lap_cdf(x: np.ndarray, b: float) -> np.ndarray:
    left = 0.5 * np.exp(np.minimum(x, 0) / b)
    return np.where(x < 0, left, 1 - 0.5 * np.exp(-np.maximum(x, 0) / b))


def _lap_logsf_cdf(x: np.ndarray, b: float) -> tuple[np.ndarray, np.ndarray]:
    """log P(nu >= x), log P(nu < x) for nu ~ Lap(b), stable in both tails."""
    up = np.log1p(-0.5 * np.exp(np.minimum(x, 0) / b))
    dn = np.log1p(-0.5 * np.exp(-np.maximum(x, 0) / b))
    lo = np.where(x < 0, up, math.log(0.5) - x / b)
    lc = np.where(x < 0, math.log(0.5) + x / b, dn)
    return lo, lc


def svt_output_logprobs(rho_scale: float, nu_scale: float, cutoff: bool, d: np.ndarray,
                        grid: int = 8_001) -> np.ndarray:
    """Log-probability of every output of the above/below SVT on answers ``d`` (``_svt``
    with ``nu_scale > 0``), by quadrature over rho: each output's probability is
    int f_rho(z) prod_i P(answer_i | z) dz, a Riemann sum in log space on ``grid`` points
    over +-60 rho scales (the mass outside is < e^-60).

    Output order: with ``cutoff``, index k < N is "first above at position k" (below
    before, NaN after) and index N is "all below"; without, index o has answer i = bit i
    of o (1 = above)."""
    z = np.linspace(-60 * rho_scale, 60 * rho_scale, grid)
    logf = -np.abs(z) / rho_scale - math.log(2 * rho_scale) + math.log(z[1] - z[0])
    d = np.asarray(d)
    n = d.size
    l_up, l_dn = _lap_logsf_cdf(THRESHOLD + z[None, :] - d[:, None], nu_scale)
    if cutoff:
        rows = []
        for k in range(n + 1):
            acc = l_dn[:k].sum(axis=0)
            if k < n:
                acc = acc + l_up[k]
            rows.append(acc)
        lp = np.array(rows)
    else:
        o = ((np.arange(2 ** n)[:, None] >> np.arange(n)[None, :]) & 1).astype(float)
        lp = o @ l_up + (1 - o) @ l_dn
    t = lp + logf[None, :]
    mx = t.max(axis=1, keepdims=True)
    return mx[:, 0] + np.log(np.exp(t - mx).sum(axis=1))


def svt_exact_epsilon(rho_scale: float, nu_scale: float, cutoff: bool,
                      pairs: list[NeighbourPair], grid: int = 8_001) -> float:
    """Exact epsilon (up to quadrature) of the above/below SVT on ``pairs``: the output
    space is finite (N + 1 outputs with the cut-off, 2^N without), so epsilon is the largest
    |log ratio| of :func:`svt_output_logprobs` on the two sides of a pair."""
    if not cutoff:
        grid = min(grid, 2_001)  # 2^N outputs: 2001 points agree with 8001 to 3e-5
    best = 0.0
    for pr in pairs:
        logs = [svt_output_logprobs(rho_scale, nu_scale, cutoff, np.asarray(d), grid)
                for d in (pr.first, pr.second)]
        best = max(best, float(np.max(np.abs(logs[0] - logs[1]))))
    return best


def noisy_max_probs(scale: float, noise: str, d: np.ndarray, grid: int = 20_001) -> np.ndarray:
    """P(argmax = i) for Report Noisy Max (index output) on answers ``d`` with Laplace or
    exponential (``noise`` = "exp") noise of ``scale``, by the trapezoid rule on ``grid``
    points: P(argmax = i) = int f(x - q_i) prod_{j != i} F(x - q_j) dx."""
    d = np.asarray(d)
    x = np.linspace(-60 * scale, 60 * scale + 3, grid)
    u = x[None, :] - d[:, None]
    if noise == "laplace":
        f = np.exp(-np.abs(u) / scale) / (2 * scale)
        cdf = _lap_cdf(u, scale)
    else:
        f = np.where(u >= 0, np.exp(-np.maximum(u, 0) / scale) / scale, 0.0)
        cdf = np.where(u >= 0, 1 - np.exp(-np.maximum(u, 0) / scale), 0.0)
    logc = np.log(np.maximum(cdf, 1e-300))
    tot = logc.sum(axis=0)
    return np.array([np.trapezoid(f[i] * np.exp(tot - logc[i]), x) for i in range(d.size)])


def noisy_max_exact(scale: float, noise: str, pairs: list[NeighbourPair],
                    grid: int = 20_001) -> float:
    """Exact epsilon (up to quadrature) of Report Noisy Max (index output) on ``pairs``: the
    largest |log ratio| of :func:`noisy_max_probs` on the two sides of a pair."""
    best = 0.0
    for pr in pairs:
        probs = [noisy_max_probs(scale, noise, d, grid) for d in (pr.first, pr.second)]
        best = max(best, float(np.max(np.abs(np.log(probs[0]) - np.log(probs[1])))))
    return best


# ---------------------------------------------------------------- the suite


def suite(exact: bool = True) -> list[SuiteMechanism]:
    """The suite.  ``exact=False`` skips the quadratures (their truths are then NaN)."""
    e, n = EPS, N_QUERIES
    pp = pattern_pairs(n)
    e1 = e2 = e / 2

    def q(f: Callable[[], float]) -> float:
        return f() if exact else math.nan

    rappor_f, rp, rq = 0.5, 0.5, 0.75
    qs = 0.5 * rappor_f * (rp + rq) + (1 - rappor_f) * rq
    ps = 0.5 * rappor_f * (rp + rq) + (1 - rappor_f) * rp
    nm_pairs = pp
    out = [
        SuiteMechanism("laplace", _laplace(1 / e), scalar_pairs(), e, "exact",
                       cites="Dwork et al. 2006"),
        SuiteMechanism("laplace-half-scale", _laplace(0.5 / e), scalar_pairs(), 2 * e, "exact"),
        SuiteMechanism("truncated-geometric", _truncated_geometric(math.exp(-e), 5),
                       [NeighbourPair(np.array([2.0]), np.array([3.0]), LINF1, {})],
                       truncated_geometric_epsilon(math.exp(-e), 5, 2, 3), "exact",
                       cites="Ghosh et al. 2009"),
        SuiteMechanism("truncated-geometric-alpha-squared",
                       _truncated_geometric(math.exp(-2 * e), 5),
                       [NeighbourPair(np.array([2.0]), np.array([3.0]), LINF1, {})],
                       truncated_geometric_epsilon(math.exp(-2 * e), 5, 2, 3), "exact"),
        SuiteMechanism("histogram", _histogram(1 / e), single_bin_pairs(n), e, "exact"),
        SuiteMechanism("histogram-wrong-scale", _histogram(e), single_bin_pairs(n), 1 / e,
                       "exact", cites="StatDP's wrong-scale histogram: scale epsilon"),
        SuiteMechanism("noisy-max-laplace", _noisy_max_index("laplace", 2 / e), nm_pairs,
                       q(lambda: noisy_max_exact(2 / e, "laplace", nm_pairs)),
                       "exact-quadrature", cites="Dwork & Roth 2014, Claim 3.9"),
        SuiteMechanism("noisy-max-exponential", _noisy_max_index("exp", 2 / e), nm_pairs,
                       q(lambda: noisy_max_exact(2 / e, "exp", nm_pairs)),
                       "exact-quadrature"),
        SuiteMechanism("noisy-max-value-laplace", _noisy_max_value("laplace", 1 / e), nm_pairs,
                       n * e, "exact", cites="StatDP iReportNoisyMax3"),
        SuiteMechanism("noisy-max-value-exponential", _noisy_max_value("exp", 1 / e), nm_pairs,
                       math.inf, "exact", cites="StatDP iReportNoisyMax4"),
        SuiteMechanism("svt1", _svt(1 / e1, 2 / e2, True), pp,
                       q(lambda: svt_exact_epsilon(1 / e1, 2 / e2, True, pp)),
                       "exact-quadrature", cites="Lyu et al. 2017, Alg. 1"),
        SuiteMechanism("svt2", _svt(1 / e1, 2 / e2, True), pp,
                       q(lambda: svt_exact_epsilon(1 / e1, 2 / e2, True, pp)),
                       "exact-quadrature", cites="Lyu et al. 2017, Alg. 2 (c = 1)"),
        SuiteMechanism("svt3", _svt(1 / e1, 1 / e2, True, numeric=True, below_code=-1000.0),
                       pp, q(lambda: svt_exact_epsilon(1 / e1, 1 / e2, True, pp)), "lower",
                       cites="Lyu et al. 2017, Alg. 3"),
        SuiteMechanism("svt4", _svt(1 / (e / 4), 1 / (3 * e / 4), True), pp,
                       q(lambda: svt_exact_epsilon(4 / e, 4 / (3 * e), True, pp)),
                       "exact-quadrature", cites="Lyu et al. 2017, Alg. 4"),
        SuiteMechanism("svt5", _svt(1 / e1, 0.0, False), pp, math.inf, "exact",
                       cites="Lyu et al. 2017, Alg. 5"),
        SuiteMechanism("svt6", _svt(1 / e1, 1 / e2, False), pp,
                       q(lambda: svt_exact_epsilon(1 / e1, 1 / e2, False, pp)),
                       "exact-quadrature", cites="Lyu et al. 2017, Alg. 6"),
        SuiteMechanism("one-time-rappor", _rappor(0.95, None, None), [
            NeighbourPair(np.array([0.0]), np.array([1.0]), REPLACE_ONE, {})],
            4 * math.log((1 - 0.95 / 2) / (0.95 / 2)), "exact", relation=REPLACE_ONE,
            cites="Erlingsson et al. 2014, epsilon_inf = 2h ln((1 - f/2)/(f/2))"),
        SuiteMechanism("rappor", _rappor(rappor_f, rp, rq), [
            NeighbourPair(np.array([0.0]), np.array([1.0]), REPLACE_ONE, {})],
            2 * math.log(qs * (1 - ps) / (ps * (1 - qs))), "exact", relation=REPLACE_ONE,
            cites="Erlingsson et al. 2014, epsilon_1 = h ln(q*(1-p*)/(p*(1-q*)))"),
        SuiteMechanism("laplace-composition-20", _composition(20, 20 / e), scalar_pairs(), e,
                       "exact", cites="DP-Sniper's LaplaceParallel shape"),
        SuiteMechanism("prefix-sum", _prefix_sum(n / e), pp, e, "exact",
                       cites="Wang et al. 2019"),
        SuiteMechanism("prefix-sum-unscaled", _prefix_sum(1 / e), pp, n * e, "exact"),
        SuiteMechanism("numerical-svt", _numerical_svt(e), pp, e, "upper",
                       cites="composition of SVT1 and Laplace"),
    ]
    return out
