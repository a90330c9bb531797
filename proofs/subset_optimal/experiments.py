"""Accuracy claims (Table 1, Theorems 1, 4, 5, Corollary 2) and the black-box / replace-one
privacy runs of Dick, Kulesza, Sun & Suresh (subject ``dick-et-al-subset-optimal``).

Monte Carlo conventions: every run is seeded (the claim's ``seed``, mixed with a label by
``zlib.crc32``); a mean is compared with a bound through mean +- 4 standard errors (one-sided
false alarm ~3e-5 per comparison, normal approximation); slopes are least-squares fits of
log(mean error) on log n with a seeded bootstrap over data sets (the standard error is the
bootstrap s.d., the interval the 99 % percentile interval).

Public vs private quantities.  Algorithm 3's inputs R, eps, gamma are public; |D| is private
(Algorithm 3 line 1 computes alpha, zeta, beta, t_l, t_u from it).  The competitors below
treat n as public (as the papers they stand for do: fixed-size data sets).  The quantities
inside the bounds (M_k(p), sigma, mu(D), Delta(D) = mu(D \\ L_{1/eps}) - mu(D \\ U_{1/eps}))
are *analysis* quantities: they are computed from the data by this check, never released.

Competitors (Table 1's "prior work" column; simplified, each stated):

* ``gs-laplace``: Algorithm 1 on the public range [-R, R] (the global-sensitivity baseline
  behind R_1 >~ R/(n eps), Section 2.2).
* ``kv-style`` (stands for Karwa & Vadhan 2017, sub-Gaussian, known sigma): centre = private
  median by Algorithm 2 (public rank n/2, alpha = sigma, privacy eps), then Algorithm 1 at
  2 eps on [c - T, c + T], T = sigma (sqrt(ln(2n)) + 1).  KV use a private histogram for the
  centre; we use Algorithm 2.
* ``ksu-style`` (stands for Kamath, Singhal & Ullman 2020, 1-D, known m_k): the same centre
  (alpha = m_k^{1/k}), then Algorithm 1 at 2 eps on [c - T, c + T], T = 2 (m_k n eps)^{1/k}.
* Huang et al. 2021 (the N.A. row's prior work) is not implemented (not simple).

Every competitor spends 3 eps in total, Algorithm 3's claimed budget.
"""

from __future__ import annotations

import itertools
import math
import time
import zlib
from collections import Counter
from fractions import Fraction as F
from typing import Any

import mpmath
import numpy as np

from audit import falsifiability, verdict_rules
from audit.findings import Finding, Method, Verdict, counterexample_document
from audit.privacy.blackbox import BlackBoxTester
from audit.protocols import ADD_REMOVE_ONE, REPLACE_ONE, NeighbourPair
from audit.registry import replayer
from kernels.subset_optimal import mean as km
from kernels.subset_optimal import monotone as mo
from kernels.subset_optimal import thresholds as th
from proofs.subset_optimal import NAME, claim
from proofs.subset_optimal import mechanisms as mech
from proofs.subset_optimal import oracles as orc
from proofs.subset_optimal.privacy import alg2_loss, alg3_params_exact, float_down, float_up
from proofs.subset_optimal.reference import exact_pieces, mp

SUBJECT = f"paper:{NAME}"
REF = "Dick, Kulesza, Sun & Suresh (subset optimality)"
Z4 = 4.0  # mean +- 4 s.e.: one-sided false alarm ~3.2e-5 (normal approximation)


def _f(fid: str, text: str, where: str, method: Method, verdict: Verdict, scope: str,
       evidence: dict, t0: float, cx: dict | None = None, seed: int | None = None,
       reading: str = "") -> Finding:
    return Finding(id=fid, claim=text, reference=f"{REF}, {where}", method=method,
                   verdict=verdict, scope=scope, evidence=evidence, counterexample=cx,
                   seed=seed, duration_s=time.perf_counter() - t0, subject=SUBJECT,
        reading=verdict_rules.reading_for(verdict, reading))


def _rng(seed: int, label: str) -> np.random.Generator:
    return np.random.default_rng(zlib.crc32(f"{seed}:{label}".encode()))


# ============================================================== distribution families
def central_moment_exp(k: float) -> float:
    """M_k of Exp(1) - 1: int_0^1 u^k e^(u-1) du + k!/e (mpmath quad, 30 digits)."""
    with mpmath.workdps(30):
        a = mpmath.quad(lambda u: u**k * mpmath.exp(u - 1), [0, 1])
        return float(a + mpmath.gamma(k + 1) / mpmath.e)


class Family:
    """A distribution on [-R, R] (samples are clipped to [-R, R]; at the n used here the
    clip never binds: stated per family).  ``mu`` population mean, ``m2`` its M_2."""

    name: str = ""

    def sample(self, n: int, rng: np.random.Generator) -> np.ndarray:  # pragma: no cover
        raise NotImplementedError

    def mu(self, n: int) -> float:  # pragma: no cover
        raise NotImplementedError

    def m2(self, n: int) -> float:  # pragma: no cover
        raise NotImplementedError


class Gaussian(Family):
    """N(0, 1): sub-Gaussian with proxy sigma = sqrt(2) in the paper's definition
    P(|X - mu| >= t) <= 2 exp(-t^2 / sigma^2) (Section 5); P(|X| > 100) < 1e-2000."""

    name = "gaussian"
    sigma = math.sqrt(2.0)

    def sample(self, n: int, rng: np.random.Generator) -> np.ndarray:
        return rng.normal(0.0, 1.0, n)

    def mu(self, n: int) -> float:
        return 0.0

    def m2(self, n: int) -> float:
        return 1.0


class HardMoment(Family):
    """The bounded-moment family's hard member at size n: X = Delta w.p. q = 1/(n eps), else
    0, Delta = (m_k / q)^{1/k}; then M_k(p_n) <= q Delta^k = m_k (exact M_k in evidence).
    mu = q Delta = m_k^{1/k} (n eps)^{-(1-1/k)}: the privacy term of Table 1's row 2."""

    name = "bounded-moment-k3"

    def __init__(self, k: int = 3, mk: float = 1.0, eps: float = 1.0) -> None:
        self.k, self.mk, self.eps = k, mk, eps

    def q(self, n: int) -> float:
        return min(0.5, 1.0 / (n * self.eps))

    def delta(self, n: int) -> float:
        return (self.mk / self.q(n)) ** (1.0 / self.k)

    def sample(self, n: int, rng: np.random.Generator) -> np.ndarray:
        return np.where(rng.random(n) < self.q(n), self.delta(n), 0.0)

    def mu(self, n: int) -> float:
        return self.q(n) * self.delta(n)

    def moment(self, n: int, k: float) -> float:
        q, d = self.q(n), self.delta(n)
        return q * (d * (1 - q)) ** k + (1 - q) * (q * d) ** k

    def m2(self, n: int) -> float:
        return self.moment(n, 2)


class CentredExp(Family):
    """Exp(1) - 1: all moments finite, not sub-Gaussian (sigma_G = inf), so Table 1's N.A.
    row (this work) is finite and Huang et al.'s bound is vacuous; P(X > 99) = e^-100."""

    name = "centred-exponential"

    def sample(self, n: int, rng: np.random.Generator) -> np.ndarray:
        return rng.exponential(1.0, n) - 1.0

    def mu(self, n: int) -> float:
        return 0.0

    def m2(self, n: int) -> float:
        return 1.0


# ============================================================== estimators
def _centre_then_alg1(d: np.ndarray, half: float, alpha: float, R: float, eps: float,
                      size: int, rng: np.random.Generator) -> np.ndarray:
    xs = np.sort(d)
    c = th.sample(xs, xs.size / 2, -R, R, alpha, eps, size, rng)       # Algorithm 2, eps
    lo, hi = np.maximum(c - half, -R), np.minimum(c + half, R)
    return km.alg1_clipped_core(xs, lo, hi, 2 * eps, rng)               # Algorithm 1, 2 eps


def estimate(name: str, d: np.ndarray, fam: Family, R: float, eps: float, gamma: float,
             size: int, rng: np.random.Generator) -> np.ndarray:
    """``size`` draws of estimator ``name`` on data ``d`` (module docstring)."""
    n = d.size
    if name == "alg3":
        return km.alg3_sample(d, R, eps, gamma, size, rng)
    if name == "alg3-broken-twin":   # deliberately broken: extra noise of rate n^(-1/4)
        return km.alg3_sample(d, R, eps, gamma, size, rng) + rng.normal(0, n**-0.25, size)
    if name == "gs-laplace":
        return km.alg1_sample(d, -R, R, 3 * eps, size, rng)
    if name == "kv-style":
        s = getattr(fam, "sigma", 1.0)
        return _centre_then_alg1(d, s * (math.sqrt(math.log(2 * n)) + 1), s, R, eps, size,
                                 rng)
    if name == "ksu-style":
        k, mk = getattr(fam, "k", 3), getattr(fam, "mk", 1.0)
        return _centre_then_alg1(d, 2 * (mk * n * eps) ** (1 / k), mk ** (1 / k), R, eps,
                                 size, rng)
    raise ValueError(f"unknown estimator {name!r}")


def mc_errors(fam: Family, est: str, ns: list[int], n_data: int, draws: int, R: float,
              eps: float, gamma: float, rng: np.random.Generator
              ) -> tuple[np.ndarray, np.ndarray]:
    """Per-data-set mean |A(D) - mu| and |A(D) - mu(D)| (shape (len(ns), n_data))."""
    tot = np.empty((len(ns), n_data))
    exc = np.empty((len(ns), n_data))
    for i, n in enumerate(ns):
        for j in range(n_data):
            d = np.clip(fam.sample(n, rng), -R, R)
            y = estimate(est, d, fam, R, eps, gamma, draws, rng)
            tot[i, j] = np.abs(y - fam.mu(n)).mean()
            exc[i, j] = np.abs(y - d.mean()).mean()
    return tot, exc


def slope_fit(ns: list[int], err: np.ndarray, rate: np.ndarray, rng: np.random.Generator,
              n_boot: int = 400) -> dict[str, Any]:
    """OLS slope of log(mean err) on log n, and of log(mean err / rate) (the excess over
    the printed rate), with bootstrap over data sets (s.e. = bootstrap s.d.; 99 % interval)."""
    x = np.log(np.asarray(ns, dtype=float))
    xc = x - x.mean()

    def fit(m: np.ndarray) -> tuple[float, float]:
        y = np.log(m)
        s = float(np.dot(xc, y - y.mean()) / np.dot(xc, xc))
        y2 = y - np.log(rate)
        return s, float(np.dot(xc, y2 - y2.mean()) / np.dot(xc, xc))

    s, b = fit(err.mean(axis=1))
    k = err.shape[1]
    bs = np.array([fit(np.take_along_axis(err, rng.integers(0, k, err.shape), axis=1)
                       .mean(axis=1)) for _ in range(n_boot)])
    return {"slope": s, "slope_se": float(bs[:, 0].std(ddof=1)),
            "excess_slope": b, "excess_se": float(bs[:, 1].std(ddof=1)),
            "excess_ci99": [float(np.quantile(bs[:, 1], 0.005)),
                            float(np.quantile(bs[:, 1], 0.995))],
            "mean_err": [float(v) for v in err.mean(axis=1)],
            "se_err": [float(v) for v in err.std(axis=1, ddof=1) / math.sqrt(k)],
            "n_boot": n_boot}


# ============================================================== Table 1
def _rates(fam: Family, ns: list[int], eps: float) -> dict[str, np.ndarray]:
    n = np.asarray(ns, dtype=float)
    if isinstance(fam, Gaussian):
        s = fam.sigma
        r = s / np.sqrt(n) + s / (n * eps)
        return {"this-work": r, "prior-work": r, "exponent": -0.5}
    if isinstance(fam, HardMoment):
        m = fam.mk ** (1 / fam.k)
        r = m / np.sqrt(n) + m / (n * eps) ** (1 - 1 / fam.k)
        return {"this-work": r, "prior-work": r, "exponent": -(1 - 1 / fam.k)}
    mks = {k: central_moment_exp(k) for k in range(2, 41)}
    r = np.array([math.sqrt(1 / v) + min(mks[k] ** (1 / k) / (v * eps) ** (1 - 1 / k)
                                         for k in mks) for v in n])
    return {"this-work": r, "prior-work": np.full(n.size, np.inf), "exponent": None}


TABLE1_ROWS = (("N.A.", CentredExp, ["alg3", "gs-laplace"], None),
               ("SubGaussian", Gaussian, ["alg3", "kv-style", "gs-laplace"], "kv-style"),
               ("Bounded Moment (k=3, m_3=1)", HardMoment, ["alg3", "ksu-style",
                                                            "gs-laplace"], "ksu-style"))


def table1_run(seed: int, ns: list[int], n_data: int, draws: int, R: float = 100.0,
               eps: float = 1.0, gamma: float = 1.0) -> dict[str, Any]:
    """Monte Carlo slopes for every Table 1 row and estimator, plus the broken twin."""
    # polylog allowance: the log-slope of Algorithm 3's own log factor ln(2R^2 n^3 eps/gamma^2)
    # (Appendix B.3) at the smallest n: Otilde(rate) may decay this much slower than rate
    allow = 3 / math.log(2 * R**2 * min(ns) ** 3 * eps / gamma**2)
    out: dict[str, Any] = {"ns": ns, "n_data": n_data, "draws_per_data_set": draws, "R": R,
                           "epsilon": eps, "gamma": gamma, "polylog_allowance": allow,
                           "rows": {}}
    for row, cls, ests, _ in TABLE1_ROWS:
        fam = cls()
        rates = _rates(fam, ns, eps)
        rr: dict[str, Any] = {"family": fam.name, "printed_leading_exponent":
                              rates["exponent"], "rate_this_work": list(rates["this-work"])}
        for est in ests:
            rng = _rng(seed, f"table1:{row}:{est}")
            tot, exc = mc_errors(fam, est, ns, n_data, draws, R, eps, gamma, rng)
            fit = slope_fit(ns, tot, rates["this-work"], rng)
            fit["excess_over_empirical_mean"] = {
                "slope": slope_fit(ns, exc, rates["this-work"], rng, 200)["slope"],
                "mean": [float(v) for v in exc.mean(axis=1)]}
            rr[est] = fit
        if isinstance(fam, HardMoment):
            rr["M_3(p_n) exact"] = [fam.moment(n, 3) for n in ns]
        out["rows"][row] = rr
    fam = Gaussian()
    rng = _rng(seed, "table1:twin")
    tot, _ = mc_errors(fam, "alg3-broken-twin", ns, n_data, draws, R, eps, gamma, rng)
    out["broken_twin"] = {"family": fam.name, "estimator": "alg3 + N(0, n^-1/2) (rate "
                          "n^-1/4)", **slope_fit(ns, tot, _rates(fam, ns, eps)["this-work"],
                                                 rng)}
    return out


def _rate_verdict(fit: dict, allow: float) -> Verdict:
    return Verdict.NOT_REFUTED if fit["excess_ci99"][1] <= allow else Verdict.INCONCLUSIVE


@claim("subset.table1-rates", "Table 1: Monte Carlo slopes of log error vs log n for "
       "Algorithm 3 and the cited estimators on the families the table names", "reproduce",
       reference="Table 1; Section 5; Corollary 2")
def table1_rates(budget_s: float, seed: int) -> list[Finding]:
    t0 = time.perf_counter()
    big = budget_s >= 60
    ns = [500, 1000, 2000, 4000, 8000]
    n_data, draws = (120, 10) if big else (40, 10)
    run = table1_run(seed, ns, n_data, draws)
    allow = run["polylog_allowance"]
    twin = run["broken_twin"]
    twin_flag = twin["excess_ci99"][0] > allow
    power = {"broken_twin": {k: twin[k] for k in ("slope", "excess_slope", "excess_ci99")},
             "flagged": twin_flag,
             "rule": "a rate is flagged when the 99% bootstrap interval of the excess slope "
                     "(log(err/rate) vs log n) lies above the polylog allowance"}
    scope = (f"n in {ns}, {n_data} data sets x {draws} draws per n, R=100, eps=1, gamma=1; "
             f"seeded; slope s.e. by bootstrap over data sets (400 resamples), 99% intervals;"
             f" polylog allowance {allow:.3f} (log-slope of ln(2R^2 n^3 eps/gamma^2) at n=500)")
    out = []
    for row, cls, ests, prior in TABLE1_ROWS:
        rr = run["rows"][row]
        tag = cls.name
        v = _rate_verdict(rr["alg3"], allow)
        if not twin_flag and v is Verdict.NOT_REFUTED:
            v = Verdict.INCONCLUSIVE
        out.append(_f(f"subset.table1.{tag}.this-work",
                      f"Table 1, row {row}, this work: Algorithm 3's R(A, p) = Otilde(printed "
                      "rate)", "Table 1", Method.EMPIRICAL, v,
                      scope + f"; family {rr['family']}; competitors {ests[1:]}",
                      {**rr, "power": power, "polylog_allowance": allow,
                       "outcome": "not-refuted: no slower decay than rate x polylog on this "
                       "range (an asymptotic rate cannot be verified by sampling)"
                       if v is Verdict.NOT_REFUTED else "decay slower than printed rate x "
                       "polylog on this range, or no power; finite-range slopes cannot refute "
                       "an asymptotic rate"}, t0, seed=seed))
        if prior:
            vp = _rate_verdict(rr[prior], allow)
            if not twin_flag and vp is Verdict.NOT_REFUTED:
                vp = Verdict.INCONCLUSIVE
            out.append(_f(f"subset.table1.{tag}.prior-work",
                          f"Table 1, row {row}, prior work (cited rate), our simplified "
                          f"{prior} estimator", "Table 1", Method.EMPIRICAL, vp,
                          scope + f"; estimator {prior} (module docstring: simplified)",
                          {prior: rr[prior], "power": power}, t0, seed=seed))
    return out


# ============================================================== Theorem 4 / Corollary 2:
# a point mass makes every right-hand side 0
T4_CX = {"n": 200, "R": 1, "epsilon": 1, "gamma": 1, "c": "1/400"}


def point_mass_lower_bound(inp: dict) -> dict[str, Any]:
    """Certified lower bound on E|mu-hat - mu| for D = n zeros (p = point mass at 0):
    mu-hat lies in [min(l-hat, u-hat), max(l-hat, u-hat)] (Algorithm 1 line 5 clips to the
    interval), so E|mu-hat| >= c P(l-hat > c) P(u-hat > c) (independent draws), evaluated
    exactly (Algorithm 2's pieces, mpmath 30 and 60 digits, rounded down)."""
    n, R, eps, c = int(inp["n"]), F(inp["R"]), F(inp["epsilon"]), F(inp["c"])
    d = [F(0)] * n
    vals = []
    for dps in (30, 60):
        with mpmath.workdps(dps):
            p = alg3_params_exact(n, R, eps, F(inp["gamma"]))
            e = exact_pieces(d, -R, R, p["alpha"], (c,))
            vals.append(mp(c) * e.mass_above(c, p["t_l"], eps) * e.mass_above(c, p["t_u"], eps))
    with mpmath.workdps(60):
        if abs(vals[0] - vals[1]) > mpmath.mpf(10) ** -20:
            raise ArithmeticError("30- and 60-digit evaluations disagree")
        return {"E_abs_error_lower": float_down(vals[1] * (1 - mpmath.mpf(10) ** -15)),
                "alpha": float(p["alpha"]), "rhs": 0.0}


def _replay_point_mass(inputs: dict) -> tuple[bool, Any, Any, str]:
    r = point_mass_lower_bound(inputs)
    return (r["E_abs_error_lower"] > 0, 0.0, r["E_abs_error_lower"],
            "E|A(D) - mu| >= this > 0 = right-hand side (all terms vanish for a point mass)")


replayer("subset.theorem4")(_replay_point_mass)
replayer("subset.corollary2")(_replay_point_mass)
replayer("subset.table1.na-point-mass")(_replay_point_mass)


def repaired_bound(d: np.ndarray, R: float, eps: float, gamma: float) -> dict[str, float]:
    """Appendix B.3's own per-term bound on E|A(D) - mu(D)| in Delta (before Lemma 1):
    (3 + 2 + 4 beta eps) Delta + alpha (6/(eps n) + 2) + 2 * 2R zeta (G fails w.p. <= 2 zeta:
    two thresholds; the print has 2R zeta)."""
    n = d.size
    k = int(round(1 / eps))
    xs = np.sort(d)
    delta = float(xs[k:].mean() - xs[:n - k].mean())
    p = km.alg3_parameters(n, R, eps, gamma)
    add = p["alpha"] * (6 / (eps * n) + 2) + 4 * R * p["zeta"]
    return {"Delta": delta, "coef": 5 + 4 * p["beta"] * eps, "additive": add,
            "beta": p["beta"], "alpha": p["alpha"], "zeta": p["zeta"]}


def theorem4_mc(seed: int, n_list: list[int], n_data: int, draws: int, R: float = 100.0,
                eps: float = 1.0, gamma: float = 1.0, twin: bool = False) -> dict[str, Any]:
    """E|A - mu| vs E|mu(D) - mu| + coef E[Delta] + additive (Theorem 4 with B.3's constants
    and the additive term restored) and vs Corollary 2 with E.1's constants.  ``twin``: the
    broken twin (Algorithm 1 line 5 without '+ m') on N(R/2, 1)."""
    rows = []
    fams: list[tuple[Family, float]] = [(Gaussian(), 0.0), (CentredExp(), 0.0),
                                        (HardMoment(), 0.0)]
    if twin:
        fams = [(Gaussian(), R / 2)]
    for fam, shift in fams:
        for n in n_list:
            rng = _rng(seed, f"thm4:{fam.name}:{n}:{twin}")
            errs, emp, dels = [], [], []
            rb = None
            for _ in range(n_data):
                d = np.clip(fam.sample(n, rng) + shift, -R, R)
                if twin:
                    xs = np.sort(d)
                    lo, hi = km.alg3_thresholds(xs, R, eps, gamma, draws, rng)
                    a, b = np.minimum(lo, hi), np.maximum(lo, hi)
                    y = km.alg1_clipped_core(xs, a, b, eps, rng) - (a + b) / 2
                else:
                    y = km.alg3_sample(d, R, eps, gamma, draws, rng)
                errs.append(np.abs(y - (fam.mu(n) + shift)).mean())
                emp.append(abs(d.mean() - fam.mu(n) - shift))
                rb = repaired_bound(d, R, eps, gamma)
                dels.append(rb["Delta"])
            e, em, dl = np.array(errs), np.array(emp), np.array(dels)
            se = lambda v: float(v.std(ddof=1) / math.sqrt(v.size))  # noqa: E731
            assert rb is not None
            bound = em.mean() + rb["coef"] * dl.mean() + rb["additive"]
            bound_se = math.hypot(se(em), rb["coef"] * se(dl))
            row = {"family": fam.name + (f"+{shift:g}" if shift else ""), "n": n,
                   "E|A-mu|": float(e.mean()), "se": se(e), "E|mu(D)-mu|": float(em.mean()),
                   "E[Delta]": float(dl.mean()), "coef": rb["coef"],
                   "additive": rb["additive"], "bound": bound, "bound_se": bound_se,
                   "violated": bool(e.mean() - Z4 * se(e) > bound + Z4 * bound_se),
                   "ratio_err_to_bound": float(e.mean() / bound)}
            if not twin:
                row["corollary2_bound"] = _cor2_bound(fam, n, eps, rb)
                row["corollary2_violated"] = bool(e.mean() - Z4 * se(e)
                                                  > row["corollary2_bound"])
            rows.append(row)
    return {"rows": rows, "n_data": n_data, "draws": draws, "R": R, "epsilon": eps,
            "gamma": gamma}


def _cor2_bound(fam: Family, n: int, eps: float, rb: dict) -> float:
    """Corollary 2 with E.1's constants: sqrt(M2/n) + coef * min_k 4 (2 M_k^{1/k} +
    2 sqrt(M2/n)) / (n eps)^{1-1/k} + additive (Lemma 8 constant 4; E.1's triangle step)."""
    m2 = fam.m2(n)
    if isinstance(fam, HardMoment):
        mk = {k: fam.moment(n, k) for k in range(2, 41)}
    elif isinstance(fam, Gaussian):
        mk = {k: 2 ** (k / 2) * math.gamma((k + 1) / 2) / math.sqrt(math.pi)
              for k in range(2, 41)}
    else:
        mk = {k: central_moment_exp(k) for k in range(2, 41)}
    st = math.sqrt(m2 / n)
    best = min(4 * (2 * v ** (1 / k) + 2 * st) / (n * eps) ** (1 - 1 / k) for k, v in mk.items())
    return st + rb["coef"] * best + rb["additive"]


@claim("subset.theorem4-corollary2", "Theorem 4 and Corollary 2: R_SME(A, p) <= E|mu(D)-mu| "
       "+ C E[Delta], and the moment form", "search",
       reference="Theorem 4; Corollary 2; Appendix E.1; Table 1 N.A. row")
def theorem4_corollary2(budget_s: float, seed: int) -> list[Finding]:
    t0 = time.perf_counter()
    lb = point_mass_lower_bound(T4_CX)
    cx = {key: counterexample_document(
        key, SUBJECT, T4_CX, "E|A(D) - mu| <= 0 (right-hand side for p = point mass at 0)",
        lb["E_abs_error_lower"], None, "p = delta_0: E|mu(D)-mu| = 0, Delta = 0, M_k(p) = 0 for "
        "every k, so the right-hand side is 0 whatever C (or the Otilde's log factors) is; "
        "Algorithm 3's thresholds land in [-alpha, alpha] and mu-hat with them")
        for key in ("subset.theorem4", "subset.corollary2", "subset.table1.na-point-mass")}
    big = budget_s >= 20
    mc = theorem4_mc(seed, [500, 2000], 60 if big else 25, 10)
    tw = theorem4_mc(seed, [500], 10, 10, twin=True)
    twin_flag = any(r["violated"] for r in tw["rows"])
    viol4 = [r for r in mc["rows"] if r["violated"]]
    viol2 = [r for r in mc["rows"] if r["corollary2_violated"]]
    scope_pm = ("p = point mass at 0, n = 200, R = 1, eps = 1, gamma = 1 (Algorithm 3 "
                "line 1 as printed); exact Algorithm 2 pieces, mpmath 30/60 digits, "
                "rounded down")
    scope_mc = (f"Monte Carlo: families N(0,1), Exp(1)-1, bounded-moment hard member (k=3, "
                f"m_3=1), n in {{500, 2000}}, {mc['n_data']} data sets x {mc['draws']} draws, "
                "R=100, eps=1, gamma=1; violation iff mean - 4 s.e. > bound + 4 s.e. "
                "(false alarm ~3e-5 per row); power: broken twin (Algorithm 1 line 5 without "
                f"'+ m') on N(50, 1) {'flagged' if twin_flag else 'NOT flagged'}")
    public = ("read as public: R, eps, gamma (Algorithm 3's inputs); p's moments, mu, "
              "mu(D), Delta(D) are analysis quantities (never released)")
    out = []
    for key, name, viol in (("subset.theorem4", "Theorem 4", viol4),
                            ("subset.corollary2", "Corollary 2", viol2)):
        out.append(_f(key, f"{name} as printed (no additive term)", name, Method.EXACT_LOSS,
                      Verdict.REFUTED, scope_pm,
                      {"point_mass": lb, "public": public,
                       "repaired_form_monte_carlo": {
                           "verdict": ("refuted" if viol else
                                       ("not-refuted" if twin_flag else "inconclusive")),
                           "form": "E|mu(D)-mu| + (5 + 4 beta eps) E[Delta] + alpha(6/(eps n)"
                                   " + 2) + 4 R zeta" + (" ; Corollary 2: E.1 constants"
                                                         if key.endswith("2") else ""),
                           "scope": scope_mc, "violations": viol[:3], "rows": mc["rows"],
                           "broken_twin": tw["rows"]}},
                      t0, cx[key]))
    out.append(_f("subset.table1.na-point-mass", "Table 1 N.A. row (this work) for a point "
                  "mass: Otilde(sqrt(M_2/n) + min_k M_k^{1/k}/(n eps)^{1-1/k}) = 0",
                  "Table 1", Method.EXACT_LOSS, Verdict.REFUTED, scope_pm,
                  {"point_mass": lb}, t0, cx["subset.table1.na-point-mass"]))
    return out


# ============================================================== Theorem 1 accuracy
def stress_data(n: int, R: float, eps: float, gamma: float) -> np.ndarray:
    """m = round(1/eps + beta/2) records at -1, the rest at 0: Algorithm 3 clips all m (the
    rank target t_l = 1/eps + beta exceeds m) though Delta = 1/(n - 1/eps)."""
    p = km.alg3_parameters(n, R, eps, gamma)
    m = int(round(1 / eps + p["beta"] / 2))
    return np.concatenate([np.full(m, -1.0), np.zeros(n - m)])


def _alg3_draws(xs: np.ndarray, R: float, eps: float, gamma: float, draws: int,
                rng: np.random.Generator, twin: bool) -> np.ndarray:
    if not twin:
        return km.alg3_sample(xs, R, eps, gamma, draws, rng)
    # broken twin: Algorithm 1 line 5 without '+ m' (the centring is dropped)
    lo, hi = km.alg3_thresholds(xs, R, eps, gamma, draws, rng)
    a, b = np.minimum(lo, hi), np.maximum(lo, hi)
    return km.alg1_clipped_core(xs, a, b, eps, rng) - (a + b) / 2


def r_upper(xs: np.ndarray, eps: float, rng: np.random.Generator, draws: int = 20_000
            ) -> tuple[float, float]:
    """Two upper bounds on R(D, eps) (eq. (1)): the eps-DP benchmark Algorithm 1 on the fixed
    interval [min D, max D] (it may depend on D: R's inf is over algorithms chosen knowing D).
    (a) Lemma 2's bound 3w/((n - 1/eps) eps) for every subset; (b) Monte Carlo: the largest
    of its mean errors (+ 4 s.e.) on D, D minus its 1/eps smallest and D minus its 1/eps
    largest records (the subsets that move the mean most; (b) is statistical and assumes
    these are the worst subsets)."""
    n, k = xs.size, int(round(1 / eps))
    w = float(xs[-1] - xs[0])
    if w == 0:
        return 0.0, 0.0
    mc = 0.0
    for sub in (xs[k:], xs[:n - k], xs):
        z = np.abs(km.alg1_sample(sub, xs[0], xs[-1], eps, draws, rng) - sub.mean())
        mc = max(mc, float(z.mean() + Z4 * z.std(ddof=1) / math.sqrt(z.size)))
    return 3 * w / ((n - k) * eps), mc


def theorem1_rows(seed: int, n_list: list[int], draws: int, R: float = 1.0,
                  eps: float = 1.0, gamma: float = 1.0, twin: bool = False) -> list[dict]:
    """Measured E|mu-hat - mu(D)| (``draws`` draws) vs Appendix B.3's printed final display
    (56 + 44 ln(2R/(alpha zeta))) R(D, eps) + alpha (6/(eps|D|) + 1) + 2 R zeta with R(D, eps)
    bracketed: lower Delta/(2e^2) (Lemma 1), upper min of :func:`r_upper`.  ``twin``: the
    broken twin on N(0.5, 0.1^2) data."""
    rows = []
    k = int(round(1 / eps))
    for n in n_list:
        rng = _rng(seed, f"thm1:{n}:{twin}")
        if twin:
            data = [("N(0.5,0.1^2)", np.clip(rng.normal(0.5, 0.1, n), -R, R))]
        else:
            data = [("stress", stress_data(n, R, eps, gamma)), ("zeros", np.zeros(n)),
                    ("N(0.3,0.2^2)", np.clip(rng.normal(0.3, 0.2, n), -R, R))]
        for name, d in data:
            xs = np.sort(d)
            e = np.abs(_alg3_draws(xs, R, eps, gamma, draws, rng, twin) - xs.mean())
            m, se = float(e.mean()), float(e.std(ddof=1) / math.sqrt(e.size))
            delta = float(xs[k:].mean() - xs[:n - k].mean())
            up_l2, up_mc = r_upper(xs, eps, rng)
            p = km.alg3_parameters(n, R, eps, gamma)
            lg = math.log(2 * R / (p["alpha"] * p["zeta"]))
            extra = p["alpha"] * (6 / (eps * n) + 1) + 2 * R * p["zeta"]
            b_lo = (56 + 44 * lg) * delta / (2 * math.e**2) + extra
            b_hi = (56 + 44 * lg) * min(up_l2, up_mc) + extra
            rows.append({"data": name, "n": n, "E|mu_hat-mu(D)|": m, "se": se,
                         "Delta": delta, "R_lower": delta / (2 * math.e**2),
                         "R_upper_lemma2": up_l2, "R_upper_mc": up_mc,
                         "bound_at_R_lower": b_lo, "bound_at_R_upper": b_hi,
                         "can_refute": bool(b_hi < 2 * R),
                         "ratio_to_Delta": m / delta if delta > 0 else None,
                         "refutes": bool(m - Z4 * se > b_hi),
                         "clears": bool(m + Z4 * se <= b_lo)})
    return rows


@claim("subset.theorem1-accuracy", "Theorem 1 accuracy: E|mu-hat - mu(D)| within Appendix "
       "B.3's final display", "search", reference="Theorem 1; Appendix B.3")
def theorem1_accuracy(budget_s: float, seed: int) -> list[Finding]:
    t0 = time.perf_counter()
    draws = 100_000 if budget_s >= 10 else 20_000
    rows = theorem1_rows(seed, [200, 1000, 10_000], draws)
    twin_rows = theorem1_rows(seed, [10_000], 20_000, twin=True)
    twin_flag = any(r["refutes"] for r in twin_rows)
    ref = [r for r in rows if r["refutes"]]
    clear = all(r["clears"] for r in rows)
    if ref:
        v = Verdict.REFUTED
    elif clear and twin_flag:
        v = Verdict.NOT_REFUTED
    else:
        v = Verdict.INCONCLUSIVE
    stress = [r["ratio_to_Delta"] for r in rows if r["data"] == "stress"]
    return [_f("subset.theorem1-accuracy", "E|mu-hat - mu(D)| <= (56 + 44 ln(2R/(alpha "
               "zeta))) R(D,eps) + alpha(6/(eps|D|)+1) + 2R zeta (Theorem 1 with the proof's "
               "constants)", "Theorem 1; Appendix B.3", Method.EMPIRICAL, v,
               f"data: stress family (m = round(1/eps + beta/2) records at -1, the rest at 0),"
               f" n zeros, N(0.3, 0.2^2) clipped; n in {{200, 1000, 10000}}, R=1, eps=1, "
               f"gamma=1, {draws} draws each; R(D,eps) bracketed by Lemma 1 (lower) and an "
               "eps-DP benchmark (upper: Algorithm 1 on [min D, max D]); refute iff mean - "
               "4 s.e. > bound at R_upper, clear iff mean + 4 s.e. <= bound at R_lower "
               "(false alarm ~3e-5 per row)",
               {"rows": rows, "public": "read as public: R, eps, gamma; |D| is private "
                "(alpha, zeta, beta computed from it, as printed)",
                "stress_ratio_E_over_Delta": stress,
                "power": {"broken_twin": "Algorithm 1 line 5 without '+ m', data "
                          "N(0.5, 0.1^2), n = 10000", "rows": twin_rows,
                          "flagged": twin_flag,
                          "note": "the bound is (56 + 44 ln(2R/(alpha zeta))) x R(D,eps) "
                                  "(~800-1300 x R here): rows with can_refute = False "
                                  "(bound >= 2R, the largest possible error) have no power"},
                "theorem_form": "Theorem 1's O(R ln(R eps/gamma) + gamma/eps) hides its "
                                "constant; only the proof's explicit display is testable"},
               t0, seed=seed)]


# ============================================================== Theorem 5 (exact)
def omega(ks: list[int], k: int, lo: int, hi: int, prop) -> F:
    """omega_l(D, k) = max |theta(D) - theta(D')| over D' (grid values, any size >= 1) at
    add/remove distance <= k (brute force)."""
    t0 = F(mo.property_value(ks, prop)) if prop != "mean" else F(sum(ks), len(ks))
    best = F(0)
    grid = range(lo, hi + 1)
    for i in range(0, k + 1):
        for rem in set(itertools.combinations(sorted(ks), i)):
            base = list((Counter(ks) - Counter(rem)).elements())
            for j in range(0, k - i + 1):
                for add in itertools.combinations_with_replacement(grid, j):
                    d2 = base + list(add)
                    if not d2:
                        continue
                    t = (F(sum(d2), len(d2)) if prop == "mean"
                         else F(mo.property_value(d2, prop)))
                    best = max(best, abs(t - t0))
    return best


def theorem5_check(eps: F, scale_kind: str, R: int = 4, max_n: int = 3) -> dict[str, Any]:
    """E|A(D) - theta(D)| exactly (mpmath 30 digits) vs omega(D, 1/eps) + L beta, beta = 1,
    L = 1, B = 2R, on every multiset of the grid {-R..R} of size 1..max_n."""
    k = int(1 / eps)
    B = 2 * R
    worst = (mpmath.mpf(-1e9), None)
    count = 0
    with mpmath.workdps(30):
        if scale_kind == "theorem5":   # exp(-(eps'/2) len), eps' = 2 eps ln(2BR/beta)
            s = mp(eps) * mpmath.log(2 * B * R)
        else:                          # Algorithm 5 line 2 as printed: exp(-len)
            s = mpmath.mpf(1)
        for n in range(1, max_n + 1):
            for ks in itertools.combinations_with_replacement(range(-R, R + 1), n):
                ks = list(ks)
                for prop in ("mean", "median", ("quantile", 0.25)):
                    lens = [-int(v) for v in mo.inv_sen_logits(ks, -R, R, prop, 1.0)]
                    w = [mpmath.exp(-s * v) for v in lens]
                    z = mpmath.fsum(w)
                    th0 = (mp(F(sum(ks), n)) if prop == "mean"
                           else mp(mo.property_value(ks, prop)))
                    e = mpmath.fsum(wi * abs((-R + i) - th0) for i, wi in enumerate(w)) / z
                    rhs = mp(omega(ks, k, -R, R, prop)) + 1
                    count += 1
                    if e - rhs > worst[0]:
                        worst = (e - rhs, {"D": ks, "property": prop, "E": float(e),
                                           "omega+L beta": float(rhs)})
    return {"max E - (omega + L beta)": float(worst[0]), "at": worst[1], "checked": count,
            "holds": bool(worst[0] <= 0), "exponent_multiplier": float(s)}


T5_CX = {"epsilon": "1", "reading": "printed", "R": 4, "max_n": 3}


@replayer("subset.theorem5")
def replay_theorem5(inputs: dict) -> tuple[bool, Any, Any, str]:
    r = theorem5_check(F(inputs["epsilon"]), inputs["reading"], int(inputs["R"]),
                       int(inputs["max_n"]))
    return (not r["holds"], "E <= omega + L beta", r["at"], str(r["at"]))


@claim("subset.theorem5", "Theorem 5: inverse sensitivity at eps' = 2 eps log(2BR/beta) has "
       "E[l] <= omega(D, 1/eps) + L beta", "search", reference="Theorem 5; Algorithm 5; App. C")
def theorem5(budget_s: float, seed: int) -> list[Finding]:
    t0 = time.perf_counter()
    res = {}
    for e in (F(1), F(1, 2)):
        for kind in ("theorem5", "printed"):
            res[f"eps={e}, {kind}"] = theorem5_check(e, kind)
    th_ok = all(v["holds"] for k, v in res.items() if "theorem5" in k)
    pr_bad = [k for k, v in res.items() if "printed" in k and not v["holds"]]
    scope = ("exhaustive: every multiset on the grid {-4,...,4} (beta = 1, R = 4, B = 8, L = 1)"
             " of size 1..3, mean / median / 1/4-quantile, eps in {1, 1/2} (1/eps integer); "
             "E exact (mpmath 30 digits); omega over D' on the grid of any size >= 1 at "
             "add/remove distance <= 1/eps (brute force)")
    tw = falsifiability.twin(
        "Algorithm 5 as printed (exp(-len), no epsilon) in place of the eps' scaling: the same "
        "exhaustive check", "refuted" if pr_bad else "not-refuted",
        witness=res[pr_bad[0]]["at"] if pr_bad else None)
    out = [_f("subset.theorem5", "Theorem 5 with Pr(t) ~ exp(-(eps'/2) len(D,t)), eps' = 2 eps"
              " ln(2BR/beta) (Asi-Duchi scaling)", "Theorem 5", Method.EXHAUSTIVE,
              falsifiability.decide(th_ok, tw, failed=Verdict.REFUTED,
                                    vacuous_reason="the broken kernel passes too"), scope,
              {k: v for k, v in res.items() if "theorem5" in k} | {"twin": tw} | {
                  "public": "read as public: R, beta, B, L, eps (the grid T); len and "
                            "theta(D) are computed from the private D"}, t0,
              None if th_ok else counterexample_document(
                  "subset.theorem5", SUBJECT, {**T5_CX, "reading": "theorem5"},
                  "E <= omega + L beta", res, None))]
    cx = None
    if pr_bad:
        key = pr_bad[0]
        cx = counterexample_document("subset.theorem5-printed-alg5", SUBJECT,
                                     {**T5_CX, "epsilon": key.split(",")[0][4:]},
                                     "E <= omega + L beta", res[key]["at"], None,
                                     "Algorithm 5 as printed (exp(-len), no eps)")
    gaps = [v for k, v in res.items() if "printed" in k]
    top = max(gaps, key=lambda v: v["max E - (omega + L beta)"])
    tw_p = falsifiability.gap_twin(top["max E - (omega + L beta)"], at=top["at"],
                                   what="E - (omega + L beta)")
    out.append(_f("subset.theorem5-printed-alg5", "Theorem 5's accuracy for Algorithm 5 as "
                  "printed (exp(-len), no epsilon)", "Algorithm 5 line 2; Theorem 5",
                  Method.EXHAUSTIVE,
                  Verdict.REFUTED if pr_bad else falsifiability.decide(
                      True, tw_p, failed=Verdict.REFUTED, vacuous_reason="no case"), scope,
                  {k: v for k, v in res.items() if "printed" in k} | {"twin": tw_p}, t0, cx))
    return out


replayer("subset.theorem5-printed-alg5")(
    lambda inputs: replay_theorem5({**inputs, "reading": "printed"}))


# ============================================================== black-box Algorithm 3
BB_N = 200
BB_R = 100.0


def bb_data() -> np.ndarray:
    return np.linspace(-0.5, 0.5, BB_N)


def bb_pairs(relation: str = ADD_REMOVE_ONE) -> list[NeighbourPair]:
    d = bb_data()
    if relation == ADD_REMOVE_ONE:
        return [NeighbourPair(d, np.append(d, BB_R), relation, {"op": "add", "value": BB_R}),
                NeighbourPair(d, d[:-1], relation, {"op": "remove", "value": float(d[-1])})]
    d2 = d.copy()
    d2[-1] = BB_R
    return [NeighbourPair(d, d2, relation, {"op": "replace", "index": BB_N - 1,
                                            "new": BB_R})]


def bb_run(variant: str, seed: int, n_select: int, n_certify: int,
           relation: str = ADD_REMOVE_ONE) -> dict[str, Any]:
    """Black-box run of Algorithm 3 (claimed 3 eps) on :func:`bb_pairs`; ``variant``:
    ``literal`` (clip=False, alpha from |D|: the printed pseudo-code), ``public-n``
    (clip=True, alpha from the public n = 200) or ``public-n-literal`` (the broken twin:
    public n but clip=False)."""
    clip = variant == "public-n"
    n_pub = None if variant == "literal" else BB_N
    m = mech.Alg3Release(BB_R, 1.0, 1.0, clip=clip, n_public=n_pub,
                         name=f"dick-alg3-{variant}", relation=relation)
    tseed = zlib.crc32(f"{seed}:alg3-bb:{variant}:{relation}".encode())
    t = BlackBoxTester(n_select=n_select, n_certify=n_certify, confidence=0.9)
    res = t.run(m, bb_pairs(relation), np.random.default_rng(tseed))
    return {"mechanism": m.name, "variant": variant, "relation": relation,
            "claimed": m.claimed_epsilon, "epsilon_lower": res.epsilon_lower,
            "violates": bool(res.violates), "tester_seed": tseed, "n_select": n_select,
            "n_certify": n_certify, "witness_event": str(res.witness.get("event", "")),
            "witness_pair": str(res.witness.get("change", res.witness.get("pair", "")))}


@replayer("subset.alg3-blackbox")
def replay_bb(inputs: dict) -> tuple[bool, Any, Any, str]:
    r = bb_run(inputs["variant"], int(inputs["seed"]), int(inputs["n_select"]),
               int(inputs["n_certify"]), inputs.get("relation", ADD_REMOVE_ONE))
    return (r["violates"], r["claimed"], r["epsilon_lower"],
            f"certified epsilon_lower {r['epsilon_lower']} (90%) vs claimed {r['claimed']}")


@claim("subset.alg3-blackbox", "Black-box: Algorithm 3's mu-hat is 3 eps-DP (literal 'run on "
       "D' reading; public-n variant; broken twin)", "search",
       reference="Algorithm 3 lines 1-5; Theorem 1")
def alg3_blackbox(budget_s: float, seed: int) -> list[Finding]:
    t0 = time.perf_counter()
    ns, nc = (200_000, 400_000) if budget_s >= 8 else (50_000, 100_000)
    runs = {v: bb_run(v, seed, ns, nc) for v in ("literal", "public-n", "public-n-literal")}
    twin_flag = runs["public-n-literal"]["violates"]
    scope = (f"BlackBoxTester select-then-certify, 90% confidence, {ns} selection / {nc} "
             f"certification draws per data set; D = {BB_N} points linspace(-0.5, 0.5), "
             f"R = {BB_R:g}, eps = 1, gamma = 1; add/remove pairs: add R, remove the maximum")
    rates = ("false alarm <= 10% per run (90% confidence); power: broken twin (public n, "
             "clip=False) " + ("flagged" if twin_flag else "NOT flagged"))
    out = []
    lit = runs["literal"]
    cx = None if not lit["violates"] else counterexample_document(
        "subset.alg3-blackbox", f"mechanism:{lit['mechanism']}",
        {"variant": "literal", "seed": seed, "n_select": ns, "n_certify": nc,
         "relation": ADD_REMOVE_ONE, "D": f"linspace(-0.5, 0.5, {BB_N})", "added": BB_R},
        3.0, lit["epsilon_lower"], None,
        "line 4 runs Algorithm 1 on the unclipped D: the added record at R moves s by R "
        "while the noise scale is (u-hat - l-hat)/eps")
    out.append(_f("subset.alg3-blackbox.literal", "Algorithm 3 as printed (line 4 'run on D',"
                  " no clipping) is 3 eps-DP", "Algorithm 3 line 4", Method.EMPIRICAL,
                  Verdict.REFUTED if lit["violates"] else
                  (Verdict.NOT_REFUTED if twin_flag else Verdict.INCONCLUSIVE), scope,
                  {"run": lit, "rates": rates, "relation": ADD_REMOVE_ONE}, t0, cx, seed))
    pub = runs["public-n"]
    cxp = None if not pub["violates"] else counterexample_document(
        "subset.alg3-blackbox", f"mechanism:{pub['mechanism']}",
        {"variant": "public-n", "seed": seed, "n_select": ns, "n_certify": nc,
         "relation": ADD_REMOVE_ONE}, 3.0, pub["epsilon_lower"], None, "public-n variant")
    out.append(_f("subset.alg3-blackbox.public-n", "Algorithm 3 with alpha, zeta, beta from a "
                  "public n and clipping (our variant) is 3 eps-DP", "Algorithm 3; Theorem 1",
                  Method.EMPIRICAL, Verdict.REFUTED if pub["violates"] else
                  (Verdict.NOT_REFUTED if twin_flag else Verdict.INCONCLUSIVE), scope,
                  {"run": pub, "broken_twin": runs["public-n-literal"], "rates": rates,
                   "relation": ADD_REMOVE_ONE,
                   "outcome": "not a proof: these pairs and event families found nothing"},
                  t0, cxp, seed))
    return out


# ============================================================== replace-one sweep
def alg3_replace_bound(d1: list, d2: list, R: F, eps: F, gamma: F) -> dict[str, Any]:
    """Certified upper bound on Algorithm 3's replace-one loss: |D| = |D'| so line 1's
    parameters coincide; the joint (l-hat, u-hat, n-hat, s-hat) loses at most
    L(l-hat) + L(u-hat) + 0 (count) + eps (sum: |clip(x) - clip(x')| <= w, noise w/eps), and
    mu-hat is post-processing."""
    n = len(d1)

    def par(key: str):
        return lambda: alg3_params_exact(n, R, eps, gamma)[key]

    alpha = alg3_params_exact(n, R, eps, gamma)["alpha"]
    ll = alg2_loss(d1, par("t_l"), alpha, d2, par("t_l"), alpha, -R, R, eps)
    lu = alg2_loss(d1, par("t_u"), alpha, d2, par("t_u"), alpha, -R, R, eps)
    return {"l_hat": ll.epsilon_up, "u_hat": lu.epsilon_up, "alg1": float(eps),
            "total_up": float_up(mpmath.mpf(ll.epsilon_up) + lu.epsilon_up + float(eps))}


def _replace(d: list, i: int, v: Any) -> list:
    return sorted(d[:i] + d[i + 1:] + [v])


@claim("subset.replace-one", "Replace-one sweep (labelled: the paper's relation is "
       "add/remove) for Algorithms 3, 4 (line 7 given l, u) and 5", "search",
       reference="Section 2 (swap model: 'at most a factor of two'); Algorithms 3-5")
def replace_one(budget_s: float, seed: int) -> list[Finding]:
    t0 = time.perf_counter()
    out = []
    # Algorithm 3: exact, including the add/remove counterexample's data
    R, eps, gam = F(1), F(1), F(1, 100)
    worst3 = (-1.0, None)
    count3 = 0
    cases = [([F(0)] * 200, v) for v in (F(-1), F(1), F(1, 200), F(-1, 200))]
    for d in itertools.chain.from_iterable(
            itertools.combinations_with_replacement([F(0), F(1, 2), F(1)], n) for n in (2, 3)):
        for v in (F(-1), F(1, 4), F(1)):
            cases.append((list(d), v))
    for d, v in cases:
        for i in sorted({0, len(d) - 1}):
            d2 = _replace(d, i, v)
            r = alg3_replace_bound(d, d2, R, eps, gam)
            count3 += 1
            if r["total_up"] > worst3[0]:
                worst3 = (r["total_up"], {"D": d if len(d) < 10 else f"{len(d)} zeros",
                                          "replaced": i, "by": v, **r})
    ok3 = worst3[0] <= 3 * float(eps)
    out.append(_f("subset.replace-one.alg3", "Algorithm 3 (as printed, clipping reading) is "
                  "3 eps-DP under replace-one", "Algorithm 3; Theorem 1; Section 2",
                  Method.SAMPLED, Verdict.NOT_REFUTED if ok3 else Verdict.INCONCLUSIVE,
                  f"replace-one (labelled; not the paper's relation), {count3} hand-picked "
                  "pairs: D = 200 zeros (the add/remove counterexample's data) with the "
                  "min/max replaced by -1, 1, +-1/200, and every multiset on {0,1/2,1} "
                  "of size 2..3 with the "
                  "min/max replaced by -1, 1/4, 1; R=1, eps=1, gamma=1/100; certified upper "
                  "bound (exact Algorithm 2 losses, mpmath 30/60 digits, rounded up, + eps for "
                  "Algorithm 1's sum; count loss 0)",
                  {"relation": REPLACE_ONE, "worst_upper_bound": worst3, "claimed": 3.0,
                   "note": "|D| = |D'|, so line 1's parameters are equal on both sides: the "
                           "add/remove flaw (alpha from |D|) vanishes under replace-one"}, t0))
    # Algorithm 5: exact discrete loss under replace-one
    worst5 = {"printed": (0.0, None), "eps/2": (0.0, None)}
    count5 = 0
    for n in (1, 2, 3):
        for d in itertools.combinations_with_replacement(range(4), n):
            for i, v, p in itertools.product(range(n), range(4), ["mean", "median",
                                                                   ("quantile", 0.25)]):
                d2 = _replace(list(d), i, v)
                if d2 == list(d):
                    continue
                count5 += 1
                for key, sc in (("printed", F(1)), ("eps/2", F(1, 4))):
                    r = orc.alg5_loss(list(d), d2, 0, 3, p, sc)
                    if r["epsilon_up"] > worst5[key][0]:
                        worst5[key] = (r["epsilon_up"], {"D": list(d), "D'": d2,
                                                         "property": p, "t": r["output_t"]})
    out.append(_f("subset.replace-one.alg5", "Algorithm 5 under replace-one: printed "
                  "exp(-len) and exp(-(eps/2)/2 len) vs 2 x eps/2 (Section 2's factor two)",
                  "Algorithm 5; Section 2", Method.EXACT_LOSS,
                  Verdict.REFUTED if worst5["printed"][0] > 1.0 else Verdict.VERIFIED,
                  f"replace-one (labelled), exhaustive: multisets on {{0..3}} of size 1..3, "
                  f"every replacement on the grid ({count5} (pair, property) cases; mean, "
                  "median, 1/4-quantile), output grid {0..3}, eps = 1; exact discrete loss "
                  "(mpmath 30/60, rounded up)",
                  {"relation": REPLACE_ONE, "worst": worst5,
                   "claimed_replace_one": "2 x eps/2 = 1 (Section 2: swap model at most a "
                   "factor of two above add/remove)"}, t0,
                  counterexample_document("subset.replace-one.alg5", SUBJECT,
                                          {**worst5["printed"][1]}, 1.0,
                                          worst5["printed"][0], None,
                                          "printed exp(-len), replace-one")
                  if worst5["printed"][0] > 1.0 else None))
    # Algorithm 4 line 7 given (l, u): pruned sets and InvSen at eps/2
    worst4: tuple[float, Any] = (0.0, None)
    down4 = 0.0
    count4 = 0
    for n in (4, 5):
        for d in itertools.combinations_with_replacement(range(5), n):
            for i, v in itertools.product(range(n), range(5)):
                d2 = _replace(list(d), i, v)
                if d2 == list(d):
                    continue
                k1 = mo.alg4_core(list(d), 2, 0, 4, 1.0)
                k2 = mo.alg4_core(d2, 2, 0, 4, 1.0)
                if not k1 or not k2:
                    continue
                count4 += 1
                r = orc.alg5_loss(k1, k2, 0, 4, "median", F(1, 4))
                if r["epsilon_up"] > worst4[0]:
                    worst4 = (r["epsilon_up"], {"D": list(d), "D'": d2, "pruned": [k1, k2],
                                                "t": r["output_t"]})
                    down4 = r["value_down"]
    ok4 = F(worst4[0]) <= 1
    tw4 = falsifiability.tightened_bound_twin(F(down4) if worst4[1] else None, 1,
                                              at=worst4[1], what="the replace-one loss "
                                              "(certified lower value at the worst pair)")
    out.append(_f("subset.replace-one.alg4", "Algorithm 4 line 7 given (l, u) under "
                  "replace-one vs 2 x eps/2", "Algorithm 4 lines 5-7; Section 2",
                  Method.EXACT_LOSS,
                  falsifiability.decide(ok4, tw4, failed=Verdict.REFUTED if F(down4) > 1 else
                                        Verdict.INCONCLUSIVE,
                                        vacuous_reason="no pair has a positive loss"),
                  f"replace-one (labelled), exhaustive: multisets on {{0..4}} of size 4..5, "
                  f"every replacement on the grid ({count4} pairs), (l, u) = (0, 4), r = 2, "
                  "median, InvSen exp(-(eps/2)/2 len), eps = 1; exact discrete loss",
                  {"relation": REPLACE_ONE, "worst": worst4, "claimed_replace_one": 1.0,
                   "twin": tw4},
                  t0, None if F(down4) <= 1 else counterexample_document(
                      "subset.replace-one.alg4", SUBJECT, worst4[1], 1.0, worst4[0], None,
                      "replace-one, given (l, u)")))
    return out


@replayer("subset.replace-one.alg5")
def replay_rep5(inputs: dict) -> tuple[bool, Any, Any, str]:
    p = inputs["property"]
    p = tuple(p) if isinstance(p, list) else p
    r = orc.alg5_loss(list(inputs["D"]), list(inputs["D'"]), 0, 3, p, F(1))
    return r["epsilon_up"] > 1.0, 1.0, r["epsilon_up"], f"t = {r['output_t']}"


@replayer("subset.replace-one.alg4")
def replay_rep4(inputs: dict) -> tuple[bool, Any, Any, str]:
    k1 = mo.alg4_core(list(inputs["D"]), 2, 0, 4, 1.0)
    k2 = mo.alg4_core(list(inputs["D'"]), 2, 0, 4, 1.0)
    r = orc.alg5_loss(k1, k2, 0, 4, "median", F(1, 4))
    return r["epsilon_up"] > 1.0, 1.0, r["epsilon_up"], f"t = {r['output_t']}"
