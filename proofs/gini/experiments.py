"""Re-running the experiments of Lan & Reiter (2025), Sections 2-6 - ``dpaudit reproduce``.

Each claim re-runs what the paper reports and puts our numbers beside the paper's stated
ones (``evidence["figures"]``, drawn by ``report.html``):

* ``repro.fig1``  Section 5.1 / Figure 1: the DP Gini on income data with a DP upper bound U.
  The paper's data (CPS ASEC 2024, PTOTVAL, n = 115,777) is **not available**; we run the
  same procedure on the two bundled CPS samples (:mod:`audit.datasets`), say so, and check
  the paper's distribution-free statements ("averages centred at g(Z)", "variances shrink").
* ``repro.fig2``  Figure 2 / eq. (11): the posterior under a Uniform(0, 1) prior, sampled by
  Section 3's self-normalised importance resampling, against the closed form.
* ``repro.sec51-upper-bound``  Section 5.1's private upper bound U = 2.5 x~ (noisy count +
  AboveThreshold after Durfee 2023): its privacy (black-box tester, with power shown on a
  broken twin), how U compares with the data's maximum, and the text's literal description.
* ``repro.sec52-iq``  Section 5.2.1: the minimum IQ(X) for g in {0.2, 0.5, 0.7} (Prop. 5.1)
  and "inf{IQ : g = 0.5} = 2".
* ``repro.fig3``  Figure 3: the simulation grid g x n x epsilon with the Theorem 4.4 bounds.
* ``repro.fig4``  Figure 4: RMSE against IQ(X) from 2 to 100 (g = 0.5, n = 100,000).
* ``repro.sec2-examples``  Section 2.2's worked examples (GS of the mean; the Gini's GS = 1).

Settings the paper does not state, and what we use (each Finding repeats it):
the noise shape gamma = 2 (stated for Section 5.1; assumed for 5.2); alpha = eps/(4 gamma)
(Section 2.3); beta: the paper gives two rules, eps/gamma (Section 2.3, Theorem 4.5) and
eps/(2(gamma + 1)) (Algorithm 3).  We report both; the default ("thm45") is the one
Theorem 4.5 uses with the bound (24) the experiments use.  A^(k): Theorem 4.4 as
implemented by :func:`kernels.gini.sensitivity.bound_thm44` (the printed (24) plus the three
terms it drops; proved >= the true A^(k)), k from 0; the printed (24) is reported beside it.

Sizes.  The paper draws 1,000,000 releases per setting.  By default these claims run a
reduced size that fits the time budget; with the environment variable ``DPAUDIT_FULL=1``
they run at the paper's size (much slower).  Every Finding states which size it ran.

Monte-Carlo tolerance: a simulated number "agrees" with its exact value when it is within 4
standard errors (two-sided false alarm ~6e-5 per comparison under the model).
"""

from __future__ import annotations

import math
import os
import time
from fractions import Fraction
from typing import Any

import numpy as np

from audit import falsifiability, verdict_rules
from audit.datasets import load_sample
from audit.findings import Finding, Method, Verdict, counterexample_document
from audit.privacy.blackbox import BlackBoxTester
from audit.protocols import NeighbourPair
from audit.registry import replayer
from kernels.gini.index import gini_sorted
from kernels.gini.noise import powerlaw
from kernels.gini.printed import bound_eq24_printed
from kernels.gini.release import posterior_exact, posterior_importance
from kernels.gini.sensitivity import bound_thm44
from proofs.gini import claim

SUBJECT = "paper:lan-reiter-2025"
REF = "Lan & Reiter (2025)"
Z = 4.0  # standard errors allowed between a simulated number and its exact value
GAMMA = 2.0
EPS_51 = (0.25, 0.5, 1.0, 1.5, 2.0)  # Section 5.1
GRID_G = (0.2, 0.5, 0.7)  # Section 5.2
GRID_N = (10_000, 100_000, 1_000_000)
GRID_EPS = (0.5, 1.0, 2.0)
IQ_FIG4 = (2.0, 5.0, 10.0, 20.0, 50.0, 100.0)
SAMPLES = ("cpssw8_earnings", "cps91_faminc")
PAPER_DRAWS = 1_000_000


def full_mode() -> bool:
    """True when ``DPAUDIT_FULL=1``: run the paper's sizes instead of the reduced ones."""
    return os.environ.get("DPAUDIT_FULL", "") == "1"


def _size_note(n: int, paper: int = PAPER_DRAWS) -> str:
    mode = "FULL size (DPAUDIT_FULL=1)" if full_mode() else "REDUCED size (set DPAUDIT_FULL=1)"
    return f"{mode}: {n:,} draws per setting (paper: {paper:,})"


def _finding(fid: str, text: str, ref: str, method: Method, verdict: Verdict, scope: str,
             evidence: dict, seed: int | None, t0: float, cx: dict | None = None,
       reading: str = "") -> Finding:
    return Finding(id=fid, claim=text, reference=f"{REF}, {ref}", method=method,
                   verdict=verdict, scope=scope, evidence=evidence, counterexample=cx,
                   seed=seed, duration_s=time.perf_counter() - t0, subject=SUBJECT,
        reading=verdict_rules.reading_for(verdict, reading))


def _line(fid: str, title: str, xlabel: str, ylabel: str, caption: str,
          series: list[tuple[str, list, list]], logy: bool = False) -> dict[str, Any]:
    fig = {"id": fid, "title": title, "kind": "line", "xlabel": xlabel, "ylabel": ylabel,
           "caption": caption,
           "series": [{"label": lab, "x": list(x), "y": list(y)} for lab, x, y in series]}
    if logy:
        fig["logy"] = True
    return fig


# ------------------------------------------------------------------ the noise scale S/alpha
def constants(epsilon: float, rule: str, gamma: float = GAMMA) -> tuple[float, float]:
    """(alpha, beta): alpha = eps/(4 gamma) (Sec. 2.3); beta = eps/gamma (``"thm45"``,
    Sec. 2.3 / Thm. 4.5) or eps/(2(gamma + 1)) (``"alg3"``, Algorithm 3 line 1)."""
    alpha = epsilon / (4.0 * gamma)
    if rule == "thm45":
        return alpha, epsilon / gamma
    if rule == "alg3":
        return alpha, epsilon / (2.0 * (gamma + 1.0))
    raise ValueError(f"rule must be 'thm45' or 'alg3', got {rule!r}")


def smooth_bound_thm44(n: int, total: float, lower: float, upper: float,
                       beta: float) -> tuple[float, int]:
    """S = max_{k >= 0} e^{-beta k} A^(k), A^(k) = :func:`bound_thm44` (needs only n, the
    total, L, U).  The scan stops at the first k with e^{-beta k} <= the current maximum
    (every later term is below it since A^(k) <= 1; Section 4.4).  Returns (S, argmax k)."""
    best, kbest, k0, width = -1.0, 0, 0, 256
    while k0 <= n:
        ks = np.arange(k0, min(n, k0 + width - 1) + 1)
        terms = np.exp(-beta * ks) * bound_thm44(n, total, lower, upper, ks)
        i = int(np.argmax(terms))
        if terms[i] > best:
            best, kbest = float(terms[i]), int(ks[i])
        if np.any(np.nextafter(np.exp(-beta * ks), np.inf) <= best):
            break
        k0, width = int(ks[-1]) + 1, 2 * width
    return best, kbest


def smooth_bound_printed24(n: int, iq: float, beta: float) -> float:
    """The same scan with the printed (24) (L = 0, mean 1, U = IQ), k from 1 (Thm. 4.5)."""
    best, k = -1.0, 1
    while k <= n:
        a = bound_eq24_printed(n, 1.0, 0.0, iq, k)
        best = max(best, math.exp(-beta * k) * a)
        if math.exp(-beta * k) <= best:
            break
        k += 1
    return best


def iq_min(g: float) -> float:
    """Proposition 5.1, eq. (31): inf{IQ(X) : g(X) = g}."""
    return 4.0 * g if g <= 0.5 else 1.0 / (1.0 - g)


def noise_scale_iq(n: int, iq: float, epsilon: float, rule: str = "thm45") -> float:
    """S/alpha for data with mean 1, L = 0, U = IQ (the Gini and A^(k) are scale-free)."""
    alpha, beta = constants(epsilon, rule)
    s, _ = smooth_bound_thm44(n, float(n), 0.0, iq, beta)
    return s / alpha


def abs_noise_quantile(p: float | np.ndarray, gamma: float = GAMMA) -> np.ndarray:
    """Exact p-quantile of |Z|, Z ~ density (10): F^{-1}((1 + p)/2)."""
    return np.asarray(powerlaw(gamma).ppf((1.0 + np.asarray(p)) / 2.0), dtype=np.float64)


def quantile_se(p: float, n: int, gamma: float = GAMMA) -> float:
    """Asymptotic standard error of the sample p-quantile of |Z| from n draws:
    sqrt(p(1-p)/n) / f_{|Z|}(q), f_{|Z|} = 2 p_Z."""
    q = float(abs_noise_quantile(p, gamma))
    return math.sqrt(p * (1 - p) / n) / (2.0 * float(powerlaw(gamma).pdf(q)))


# ======================================================================= Section 5.2.1
@claim("repro.sec52-iq", "Section 5.2.1: minimum IQ(X) for g in {0.2, 0.5, 0.7}; "
       "inf{IQ : g = 0.5} = 2", "reproduce", reference="Sec. 5.2.1, Prop. 5.1, Fig. 4 text")
def sec52_iq(budget_s: float, seed: int) -> list[Finding]:
    t0 = time.perf_counter()
    exact = {g: (4 * Fraction(g).limit_denominator(10) if g <= 0.5
                 else 1 / (1 - Fraction(g).limit_denominator(10))) for g in GRID_G}
    increasing = exact[0.2] < exact[0.5] < exact[0.7]
    ok = exact[0.5] == 2 and increasing
    tw = falsifiability.twin("inf{IQ : g = 0.5} = 16/7 (the printed 2 times 8/7): the same "
                             "exact comparison", "refuted" if exact[0.5] != Fraction(16, 7)
                             else "not-refuted", witness={"g": 0.5})
    ev = {"min_iq": {str(g): exact[g] for g in GRID_G},
          "printed": "inf{IQ(X) : g(X) = 0.5} = 2 when n = 100000 (Sec. 5.2.2); the minimum "
                     "IQ bound increases with g(X) (Sec. 5.2.2)",
          "note": "Eq. (31) itself is checked by the prove claim deriv.prop51; here its values "
                  "at the simulation grid, in exact rationals.  The infimum does not depend "
                  "on n (the paper's 'when n = 100000' is harmless)."}
    return [_finding("repro.sec52.min-iq", "the arithmetic of eq. (31) at the Section 5.2 grid: "
                     "its value is 4/5, 2, 10/3 for g = 0.2, 0.5, 0.7 (increasing in g).  Not "
                     "the Section 5.2 statement that these are the minima of IQ (eq. (31) "
                     "itself is refuted by prove, paper.eq31.prop51-*)",
                     "Sec. 5.2", Method.SYMBOLIC,
                     falsifiability.decide(ok, tw, failed=Verdict.REFUTED,
                                           vacuous_reason="the nudged value also matches"),
                     "exact rational evaluation of eq. (31) at g in {0.2, 0.5, 0.7}",
                     {**ev, "twin": tw}, seed, t0)]


# ======================================================================= Figure 3
@claim("repro.fig3", "Figure 3: |g~ - g| over the grid g x n x eps (Theorem 4.4 bounds)",
       "reproduce", reference="Sec. 5.2.2, Figure 3")
def fig3(budget_s: float, seed: int) -> list[Finding]:
    t0 = time.perf_counter()
    draws = PAPER_DRAWS if full_mode() else int(min(200_000, max(20_000, budget_s * 20_000)))
    rng = np.random.default_rng([seed, 3])
    noise = powerlaw(GAMMA)
    rows, worst_dev = [], 0.0
    for g in GRID_G:
        iq = iq_min(g)
        for n in GRID_N:
            for eps in GRID_EPS:
                s = noise_scale_iq(n, iq, eps, "thm45")
                s_alg3 = noise_scale_iq(n, iq, eps, "alg3")
                alpha, beta = constants(eps, "thm45")
                s_printed = smooth_bound_printed24(n, iq, beta) / alpha
                err = np.abs(s * noise.sample(rng, draws))
                med, p99 = np.quantile(err, [0.5, 0.99])
                ex_med, ex_p99 = s * abs_noise_quantile(np.array([0.5, 0.99]))
                dev = max(abs(med - ex_med) / (s * quantile_se(0.5, draws)),
                          abs(p99 - ex_p99) / (s * quantile_se(0.99, draws)))
                worst_dev = max(worst_dev, dev)
                rows.append({"g": g, "n": n, "epsilon": eps, "iq": iq, "scale": s,
                             "scale_alg3_beta": s_alg3, "scale_printed_24": s_printed,
                             "median_abs_err": float(med), "exact_median": float(ex_med),
                             "p99_abs_err": float(p99), "exact_p99": float(ex_p99),
                             "max_abs_err": float(err.max())})
    by = {(r["g"], r["n"], r["epsilon"]): r["scale"] for r in rows}
    dec_n = all(by[(g, GRID_N[i], e)] > by[(g, GRID_N[i + 1], e)]
                for g in GRID_G for e in GRID_EPS for i in range(2))
    dec_e = all(by[(g, n, GRID_EPS[i])] > by[(g, n, GRID_EPS[i + 1])]
                for g in GRID_G for n in GRID_N for i in range(2))
    inc_g = all(by[(0.2, n, e)] < by[(0.5, n, e)] < by[(0.7, n, e)]
                for n in GRID_N for e in GRID_EPS)
    mc_ok = worst_dev <= Z
    ok = dec_n and dec_e and inc_g and mc_ok
    worst = max(rows, key=lambda r: r["scale"])
    text = ("Figure 3: the absolute errors decrease as n and eps increase and are largest at "
            "g = 0.7 (min IQ); they are 'typically small, even when eps = 0.5'")
    scope = (f"27 cells g x n x eps of Sec. 5.2, IQ = Prop. 5.1 minimum, gamma = 2, "
             f"alpha = eps/8, beta = eps/2 (Thm. 4.5); A^(k) = Thm. 4.4 (bound_thm44), k >= 0. "
             f"Orderings exact (the error is scale x |Z|, so every quantile is ordered as the "
             f"scale); Monte Carlo medians and 99th percentiles within {Z:g} SE of the exact "
             f"quantiles. {_size_note(draws)}")
    ev = {"rows": rows, "orderings": {"decreasing_in_n": dec_n, "decreasing_in_eps": dec_e,
                                      "increasing_in_g": inc_g},
          "mc_worst_deviation_se": worst_dev,
          "largest_cell": {k: worst[k] for k in ("g", "n", "epsilon", "median_abs_err",
                                                 "p99_abs_err", "max_abs_err")},
          "paper_numbers": "none in the text: Figure 3's plotted values are not stated, so only "
                           "the stated orderings can be compared",
          "note": ("gamma = 2 makes Z a standard Cauchy: median |Z| = 1, 99th percentile "
                   "tan(0.495 pi) = 63.7, and the maximum of 10^6 draws is ~10^5-10^6, so the "
                   "'largest errors among the remaining 1%' printed on top of each plot are "
                   "scale x 10^5 or more (see max_abs_err)."),
          "figures": [_line(
              "lan-reiter-fig3-median", "Figure 3 (ours): median |g~ - g| by cell",
              "n (log10)", "median |g~ - g|",
              "One line per (g, eps); exact median = scale (median |Z| = 1 for gamma = 2).",
              [(f"g={g}, eps={e}", [math.log10(n) for n in GRID_N],
                [by[(g, n, e)] * float(abs_noise_quantile(0.5)) for n in GRID_N])
               for g in GRID_G for e in GRID_EPS], logy=True)]}
    return [_finding("repro.fig3.grid", text, "Sec. 5.2.2, Fig. 3", Method.EMPIRICAL,
                     Verdict.NOT_REFUTED if ok else Verdict.REFUTED, scope, ev, seed, t0)]


# ======================================================================= Figure 4
def sample_rmse(scale: float, draws: int, seed: int, gamma: float = GAMMA) -> float:
    """Sample RMSE of ``draws`` releases g~ - g = scale * Z (Z ~ density (10))."""
    z = powerlaw(gamma).sample(np.random.default_rng(seed), draws)
    return float(scale * math.sqrt(np.mean(z * z)))


@replayer("repro.fig4.rmse-finite")
def replay_rmse(inputs: dict) -> tuple[bool, Any, Any, str]:
    vals = [sample_rmse(1.0, int(inputs["draws"]), int(s), float(inputs["gamma"]))
            for s in inputs["seeds"]]
    spread = max(vals) / min(vals)
    return (spread > float(inputs["max_spread_if_finite"]), inputs["max_spread_if_finite"],
            spread, f"sample RMSE of {inputs['draws']} unit-scale draws over seeds "
            f"{inputs['seeds']}: {[round(v, 3) for v in vals]} (max/min {spread:.2f})")


@claim("repro.fig4", "Figure 4: RMSE against IQ(X) from 2 to 100 (g = 0.5, n = 100,000)",
       "reproduce", reference="Sec. 5.2.2, Figure 4")
def fig4(budget_s: float, seed: int) -> list[Finding]:
    t0 = time.perf_counter()
    n = 100_000
    scales = {e: [noise_scale_iq(n, iq, e, "thm45") for iq in IQ_FIG4] for e in GRID_EPS}
    inc_iq = all(all(a < b for a, b in zip(v, v[1:], strict=False)) for v in scales.values())
    dec_e = all(scales[GRID_EPS[i]][j] > scales[GRID_EPS[i + 1]][j]
                for i in range(2) for j in range(len(IQ_FIG4)))
    # the twin (issue 42): the claim with its eps ordering reversed ("rises with eps"), the
    # same comparisons of the exact scales
    tw = falsifiability.twin("the error rises with eps (the eps ordering reversed): the same "
                             "comparisons", "refuted" if not all(
                                 scales[GRID_EPS[i]][j] < scales[GRID_EPS[i + 1]][j]
                                 for i in range(2) for j in range(len(IQ_FIG4)))
                             else "not-refuted")
    f1 = _finding(
        "repro.fig4.scale-monotone",
        "Figure 4: the error grows steadily with IQ(X) and falls with eps",
        "Sec. 5.2.2, Fig. 4", Method.EXHAUSTIVE,
        falsifiability.decide(inc_iq and dec_e, tw, failed=Verdict.REFUTED,
                              vacuous_reason="the reversed ordering also holds"),
        f"noise scale S/alpha (Thm. 4.4 bound, alpha = eps/8, beta = eps/2) at IQ in "
        f"{list(IQ_FIG4)}, eps in {list(GRID_EPS)}, n = {n}: every error quantile is the "
        "scale times a fixed |Z| quantile, so the ordering of the scales is the ordering of "
        "any error quantile (exact, no sampling)",
        {"scales": {str(e): v for e, v in scales.items()}, "iq": list(IQ_FIG4), "twin": tw,
         "figures": [_line("lan-reiter-fig4-scale", "Figure 4 (ours): noise scale S/alpha vs "
                           "IQ(X)", "IQ(X)", "S/alpha (median |g~ - g|)",
                           "g = 0.5, n = 100,000; one line per eps",
                           [(f"eps={e}", list(IQ_FIG4), v) for e, v in scales.items()],
                           logy=True)]},
        seed, t0)
    # the RMSE itself: E Z^2 = int z^2/(pi (1 + z^2)) dz diverges for gamma = 2
    t1 = time.perf_counter()
    draws = PAPER_DRAWS if full_mode() else 100_000
    seeds = [seed * 100 + i for i in range(10)]
    rm = [sample_rmse(1.0, draws, s) for s in seeds]
    rm_small = [sample_rmse(1.0, draws // 100, s) for s in seeds]
    spread = max(rm) / min(rm)
    growth = float(np.median(rm) / np.median(rm_small))
    max_spread_if_finite = 1.5
    refuted = spread > max_spread_if_finite
    inputs = {"draws": draws, "seeds": seeds, "gamma": GAMMA,
              "max_spread_if_finite": max_spread_if_finite}
    cx = counterexample_document(
        "repro.fig4.rmse-finite", SUBJECT, inputs, f"max/min <= {max_spread_if_finite}",
        spread, None,
        "For gamma = 2 the noise (10) is a standard Cauchy: E Z^2 = int z^2/(pi(1+z^2)) dz = "
        "inf (the integrand tends to 1/pi), so the RMSE of g~ is infinite for every IQ and "
        "eps; a sample RMSE does not converge - it grows like sqrt(draws) and jumps between "
        "seeds.") if refuted else None
    f2 = _finding(
        "repro.fig4.rmse-finite",
        "Figure 4 plots the root mean squared error of g~ as a (finite) function of IQ(X)",
        "Sec. 5.2.2, Fig. 4", Method.EMPIRICAL,
        Verdict.REFUTED if refuted else Verdict.INCONCLUSIVE,
        f"gamma = 2 (Sec. 5.1's choice; Sec. 5.2 does not restate gamma).  Exact: E Z^2 = inf "
        f"(integrand z^2/(pi(1+z^2)) -> 1/pi).  Demonstration: unit-scale sample RMSE over "
        f"{len(seeds)} seeds, {draws:,} and {draws // 100:,} draws. {_size_note(draws)}",
        {"sample_rmse_unit_scale": rm, f"sample_rmse_{draws // 100}_draws": rm_small,
         "max_over_min_across_seeds": spread,
         "median_growth_100x_draws": growth,
         "expected_growth_if_infinite_variance": "about sqrt(100) = 10 (Cauchy: sample mean of "
                                                 "Z^2 grows like the number of draws)",
         "what_holds": "any error quantile, e.g. the median |g~ - g| (finding "
                       "repro.fig4.scale-monotone), behaves as the figure says; a finite-"
                       "variance choice is gamma > 3 in (10)"},
        seed, t1, cx)
    return [f1, f2]


# ======================================================================= Section 2 examples
#: the two plausible readings of "g(Z)" in the Section 2.2 example: eq. (1) (the definition)
#: and eq. (2) (the representation the paper works with from then on)
GS_EXAMPLE_READINGS = {
    "eq1": "g(Z) by eq. (1), sum |z_i - z_j| / (2 n^2 zbar)",
    "eq2": "g(Z) by eq. (2), sum (2i - n - 1) x_i / (n xbar (n - 1)); the all-zero data set "
           "(0/0 in both) taken as 0, the value the sentence gives it",
}


def _gs_example_g(n: int, reading: str) -> Fraction:
    x = [Fraction(0)] * (n - 1) + [Fraction(1)]
    return _gini_exact(x) if reading == "eq1" else _gini_eq2_exact(x)


@replayer("repro.sec2.gini-gs-example")
def replay_gs(inputs: dict) -> tuple[bool, Any, Any, str]:
    """Both readings are recomputed; ``still_fails`` is that of the reading in ``inputs``
    (eq. (1) for documents written before readings were recorded)."""
    n = int(inputs["n"])
    reading = str(inputs.get("reading", "eq1"))
    g = {r: _gs_example_g(n, r) for r in GS_EXAMPLE_READINGS}
    return (g[reading] != 1, 1, g[reading],
            f"g(0,...,0,1) with n = {n}: {g['eq1']} by eq. (1), {g['eq2']} by eq. (2); "
            f"reading {reading} {'fails' if g[reading] != 1 else 'holds'}; zeroing the last "
            "record leaves the all-zero data set (0/0 in both, 0 by the sentence)")


def _gini_eq2_exact(x: list[Fraction]) -> Fraction:
    xs = sorted(x)
    n = len(xs)
    return sum((2 * i - n - 1) * v for i, v in enumerate(xs, 1)) / (sum(xs) * (n - 1))


def _gini_exact(x: list[Fraction]) -> Fraction:
    n = len(x)
    return sum(abs(a - b) for a in x for b in x) / (2 * n * n * (sum(x) / n))


@claim("repro.sec2-examples", "Section 2.2 examples: GS of the mean = 1/n; the Gini's GS = 1 "
       "('from 1 to 0')", "reproduce", reference="Sec. 2.2")
def sec2_examples(budget_s: float, seed: int) -> list[Finding]:
    t0 = time.perf_counter()
    # GS of the mean over [0, 1]^n, replace one: |Delta mean| = |z - z'|/n <= 1/n, attained
    mean_rows = []
    for n in range(2, 7):
        x = [Fraction(0)] * n
        y = [Fraction(1)] + [Fraction(0)] * (n - 1)
        mean_rows.append({"n": n, "attained": sum(y) / n - sum(x) / n, "claimed": Fraction(1, n)})
    ok_mean = all(r["attained"] == r["claimed"] for r in mean_rows)
    tw = falsifiability.twin("GS = 8/(7n) (the constant nudged): the same exact comparison with "
                             "the attained difference", "refuted" if any(
                                 r["attained"] != r["claimed"] * Fraction(8, 7)
                                 for r in mean_rows) else "not-refuted", witness={"n": 2})
    f1 = _finding("repro.sec2.mean-gs", "GS of the sample mean of n values in [0, 1] (same-n "
                  "neighbours) is 1/n", "Sec. 2.2", Method.SYMBOLIC,
                  falsifiability.decide(ok_mean, tw, failed=Verdict.REFUTED,
                                        vacuous_reason="the nudged constant also matches"),
                  "exact: |mean(D) - mean(D')| = |z - z'|/n <= 1/n for any replaced record, "
                  "attained by z = 0 -> 1 (checked in Fractions for n = 2..6)",
                  {"rows": mean_rows, "twin": tw}, seed, t0)
    t1 = time.perf_counter()
    ns = (2, 3, 5, 10, 100)
    rows = [{"n": n, **{f"g_{r}": _gs_example_g(n, r) for r in GS_EXAMPLE_READINGS}}
            for n in ns]
    outcome = {r: "holds" if all(row[f"g_{r}"] == 1 for row in rows) else "refuted"
               for r in GS_EXAMPLE_READINGS}
    failing = [r for r in GS_EXAMPLE_READINGS if outcome[r] == "refuted"]
    if not failing:
        verdict, reading, cx = Verdict.VERIFIED, "", None
    else:
        reading = failing[0]
        verdict = (Verdict.REFUTED if len(failing) == len(GS_EXAMPLE_READINGS)
                   else Verdict.REFUTED_UNDER_READING)
        cx = counterexample_document(
            "repro.sec2.gini-gs-example", SUBJECT, {"n": 2, "reading": reading}, 1,
            _gs_example_g(2, reading), None,
            f"X = (0, 1): one person holds all the income; g = {_gs_example_g(2, 'eq1')} by "
            f"(1), {_gs_example_g(2, 'eq2')} by (2); changing that person to 0 gives the "
            "all-zero data set, where (1) and (2) are 0/0")
    f2 = _finding(
        "repro.sec2.gini-gs-example",
        "'Consider ... a single individual holds all the income.  Removing that individual or "
        "changing them to have zero income reduces g(Z) from 1 to 0', hence GS = 1",
        "Sec. 2.2, eqs. (1) and (2)", Method.SYMBOLIC, verdict,
        f"exact Fractions, both readings of g: eq. (1) and eq. (2), n in {set(ns)}",
        {"rows": rows, "readings": {GS_EXAMPLE_READINGS[r]: o for r, o in outcome.items()},
         "what_holds": "by eq. (2), the paper's working Gini, g(0,...,0,1) = 1 exactly for "
                       "every n, so the sentence holds (the 'to 0' end is the all-zero data "
                       "set, 0/0 in both formulas, which the sentence takes as 0); by eq. (1) "
                       "g(0,...,0,1) = (n-1)/n < 1, reaching 1 only as n -> infinity.  The "
                       "paper's conclusion (GS is too large for the Laplace mechanism) holds "
                       "under both."},
        seed, t1, cx, reading=GS_EXAMPLE_READINGS[reading] if reading else "")
    return [f1, f2]


# ======================================================================= Section 5.1: U
def _guesses(start: float = 1.0, ratio: float = 1.001, max_guess: float = 1e15) -> np.ndarray:
    """The guess ladder of :func:`kernels.gini.release.dp_upper_bound` (same formula)."""
    m = int(math.floor(math.log(max_guess / start) / math.log(ratio))) + 1
    return start * ratio ** np.arange(m, dtype=np.float64)


def sample_upper_index(xs: np.ndarray, size: int, rng: np.random.Generator, *,
                       epsilon_count: float = 0.075, epsilon_threshold: float = 0.075,
                       literal: bool = False, guesses: np.ndarray | None = None) -> np.ndarray:
    """``size`` draws of the stopping index i of Section 5.1's AboveThreshold (x~ = guesses[i]),
    exactly in distribution as :func:`kernels.gini.release.dp_upper_bound`, but vectorised.

    The count q_i = #{x <= t_i} is constant on runs ("segments") of the guess ladder; within
    a segment of length len with count c the first noisy pass is geometric with success
    probability p = P(Lap(4/eps_t) >= T^ - c), so the segment is hit with probability
    1 - (1 - p)^len and the offset is a truncated geometric (inverse cdf).  Same model as the
    kernel: n~ = n + Lap(1/eps_c), T^ = n~ + Lap(2/eps_t); no pass -> the last guess.
    ``literal=True`` is the paper's text read literally: the query counts observations that
    *exceed* the guess (#{x > t_i}) and the algorithm stops when that noisy count exceeds n~.
    """
    xs = np.sort(np.asarray(xs, dtype=np.float64))
    g = _guesses() if guesses is None else guesses
    cnt = np.searchsorted(xs, g, side="right")
    if literal:
        cnt = xs.size - cnt
    starts = np.concatenate([[0], np.flatnonzero(np.diff(cnt)) + 1])
    lens = np.diff(np.concatenate([starts, [g.size]])).astype(np.float64)
    cs = cnt[starts].astype(np.float64)
    b = 4.0 / epsilon_threshold
    t_hat = (xs.size + rng.laplace(0.0, 1.0 / epsilon_count, size)
             + rng.laplace(0.0, 2.0 / epsilon_threshold, size))
    out = np.full(size, g.size - 1, dtype=np.int64)
    for lo in range(0, size, 256):
        th = t_hat[lo:lo + 256, None]
        d = th - cs[None, :]
        # p = P(Lap(b) >= d), in logs for the far tail
        logp = np.where(d > 0, math.log(0.5) - d / b,
                        np.log1p(-0.5 * np.exp(np.minimum(d, 0.0) / b)))
        p = np.exp(logp)
        log_miss = lens[None, :] * np.log1p(-np.minimum(p, 1 - 1e-300))
        p_hit = -np.expm1(log_miss)
        u = rng.random(p_hit.shape)
        hit = u < p_hit
        has = hit.any(axis=1)
        s = np.argmax(hit, axis=1)
        rows = np.flatnonzero(has)
        if rows.size:
            ps = p[rows, s[rows]]
            ph = p_hit[rows, s[rows]]
            v = rng.random(rows.size)
            # offset j >= 0: P(J <= j) = (1 - (1-p)^(j+1)) / p_hit
            with np.errstate(divide="ignore", invalid="ignore"):
                j = np.ceil(np.log1p(-v * ph) / np.log1p(-np.minimum(ps, 1 - 1e-16))) - 1
            j = np.where(ps >= 1 - 1e-16, 0, np.clip(j, 0, lens[s[rows]] - 1))
            out[lo + rows] = starts[s[rows]] + j.astype(np.int64)
    return out


class UpperBoundMechanism:
    """Section 5.1's x~ (as the index of its guess: a bijection, so the same privacy) for the
    black-box tester.  ``scale_factor`` < 1 shrinks every noise scale: the broken twin."""

    relation = "add-remove-one"

    def __init__(self, name: str, claimed_epsilon: float = 0.15, scale_factor: float = 1.0,
                 guesses: np.ndarray | None = None) -> None:
        self.name = name
        self.claimed_epsilon = claimed_epsilon
        self.scale_factor = scale_factor
        self.guesses = _guesses(ratio=1.01, max_guess=1e6) if guesses is None else guesses

    def sample(self, dataset: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        e = 0.075 / self.scale_factor
        return sample_upper_index(np.asarray(dataset, dtype=np.float64), size, rng,
                                  epsilon_count=e, epsilon_threshold=e,
                                  guesses=self.guesses).astype(np.float64)


UB_PAIRS = (((2.0, 5.0, 9.0), (2.0, 5.0)), ((2.0, 5.0, 9.0), (2.0, 5.0, 9.0, 400.0)),
            ((1.0, 1.0, 1.0), (1.0, 1.0, 1.0, 1.0)))


def _ub_pairs(relation: str) -> list[NeighbourPair]:
    return [NeighbourPair(np.array(a), np.array(b), relation, {"op": "add/remove one record"})
            for a, b in UB_PAIRS]


@replayer("repro.sec51.upper-bound-literal")
def replay_literal(inputs: dict) -> tuple[bool, Any, Any, str]:
    xs = load_sample(inputs["sample"])
    g = _guesses()
    idx = sample_upper_index(xs, int(inputs["runs"]), np.random.default_rng(int(inputs["seed"])),
                             literal=True)
    u = 2.5 * g[idx]
    frac = float(np.mean(u < xs.max()))
    return (frac > 0.5, "U > max(X) in most runs", frac,
            f"literal reading on {inputs['sample']}: median U = {np.median(u):.4g}, max(X) = "
            f"{xs.max():.4g}; U < max(X) in {100 * frac:.1f}% of runs")


@claim("repro.sec51-upper-bound", "Section 5.1: the DP upper bound U = 2.5 x~ (privacy; U vs "
       "max(X); the text's description)", "reproduce", reference="Sec. 5.1")
def sec51_upper_bound(budget_s: float, seed: int) -> list[Finding]:
    out = []
    # 1. privacy, black-box
    t0 = time.perf_counter()
    n_sel = 400_000 if full_mode() else int(min(200_000, max(50_000, budget_s * 4000)))
    n_cert = 4 * n_sel
    tester = BlackBoxTester(n_select=n_sel, n_certify=n_cert, confidence=0.9, name="blackbox")
    good = UpperBoundMechanism("sec51-upper-bound")
    twin = UpperBoundMechanism("sec51-upper-bound-noise-div10", scale_factor=0.1)
    r_good = tester.run(good, _ub_pairs(good.relation), np.random.default_rng([seed, 51, 1]))
    r_twin = tester.run(twin, _ub_pairs(twin.relation), np.random.default_rng([seed, 51, 2]))
    power = bool(r_twin.violates)
    verdict = (Verdict.REFUTED if r_good.violates else
               Verdict.NOT_REFUTED if power else Verdict.INCONCLUSIVE)
    out.append(_finding(
        "repro.sec51.upper-bound-privacy",
        "Section 5.1: the noisy count (eps1 = 0.075) + AboveThreshold (eps2 = 0.075) estimate "
        "x~ of max(X) is 0.15-DP, so U = 2.5 x~ costs 'an additional 0.15 of privacy budget'",
        "Sec. 5.1", Method.EMPIRICAL, verdict,
        f"black-box select-then-certify tester (90% confidence, Clopper-Pearson, Bonferroni 2), "
        f"{n_sel:,} selection + {n_cert:,} certification draws per data set, add/remove-one "
        f"pairs {[list(map(list, p)) for p in UB_PAIRS]}, guess ladder 1.01^i (coarser than "
        "the release's 1.001^i so the pairs' counts differ on a few guesses); a sampled test: "
        "no violation found is not a proof.  Power: the same mechanism with every noise "
        f"scale divided by 10 (true eps up to 1.5) {'WAS' if power else 'was NOT'} flagged "
        f"(eps_lower {r_twin.epsilon_lower:.3g} > 0.15)",
        {"correct": {"epsilon_lower": r_good.epsilon_lower, "violates": r_good.violates,
                     "witness_event": r_good.witness.get("event")},
         "broken_twin": {"epsilon_lower": r_twin.epsilon_lower, "violates": r_twin.violates,
                         "witness_event": r_twin.witness.get("event")},
         "sampler": "proofs.gini.experiments.sample_upper_index: exact in distribution as "
                    "kernels.gini.release.dp_upper_bound (tests/gini/test_experiments.py "
                    "compares the two)"},
        seed, t0))
    # 2. U against max(X) on the bundled samples (the paper's data is not available)
    t1 = time.perf_counter()
    runs = 1_000_000 if full_mode() else int(min(50_000, max(5_000, budget_s * 500)))
    g = _guesses()
    rows = []
    for name in SAMPLES:
        xs = np.sort(load_sample(name))
        idx = sample_upper_index(xs, runs, np.random.default_rng([seed, 51, 3]))
        u = 2.5 * g[idx]
        x_tilde = g[idx]
        below = int(np.sum(u <= xs[-1]))
        rows.append({"sample": name, "n": xs.size, "max_x": float(xs[-1]), "runs": runs,
                     "runs_U_not_above_max": below,
                     "runs_x_tilde_below_max": int(np.sum(x_tilde < xs[-1])),
                     "runs_x_tilde_below_40pct_of_max": int(np.sum(x_tilde < 0.4 * xs[-1])),
                     "U_over_max_quantiles_1_50_99": list(np.quantile(u / xs[-1],
                                                                      [0.01, 0.5, 0.99])),
                     "max_U_over_max": float(u.max() / xs[-1])})
    ok = all(r["runs_U_not_above_max"] == 0 for r in rows)
    out.append(_finding(
        "repro.sec51.upper-bound-vs-max",
        "Section 5.1: 'Across all of our simulation runs, 2.5 x~_n always exceeds x_n' and x~ is "
        "'highly unlikely to underestimate x_n by 60%'",
        "Sec. 5.1", Method.EMPIRICAL, Verdict.NOT_REFUTED if ok else Verdict.REFUTED,
        f"the paper's CPS 2024 PTOTVAL file (n = 115,777, x_n = 2,108,379) is NOT available; run "
        f"on the bundled CPS samples {list(SAMPLES)} with the paper's settings (eps 0.075 + "
        f"0.075, U = 2.5 x~, guesses 1.001^i from 1), {runs:,} runs each "
        f"({'FULL' if full_mode() else 'REDUCED'} size; paper: one per simulation run, "
        f"5 x 1,000,000).  Verified = no run with U <= max(X) on these samples",
        {"rows": rows,
         "paper": {"max_U": 3_640_000, "x_n": 2_108_379, "max_U_over_x_n": 3_640_000 / 2_108_379,
                   "implied_max_x_tilde_over_x_n": 3_640_000 / 2.5 / 2_108_379},
         "note": "The paper's own numbers imply x~ < 0.70 x_n in every run (max U / 2.5 = "
                 "1,456,000): AboveThreshold stops below the maximum, at about the rank where "
                 "the noisy count first reaches n~; the factor 2.5 is what keeps U above x_n.  "
                 "Our samples show the same pattern (runs_x_tilde_below_max)."},
        seed, t1))
    # 3. the text's literal description
    t2 = time.perf_counter()
    lit_rows = []
    for name in SAMPLES:
        xs = np.sort(load_sample(name))
        idx = sample_upper_index(xs, 2000, np.random.default_rng([seed, 51, 4]), literal=True)
        u = 2.5 * g[idx]
        lit_rows.append({"sample": name, "max_x": float(xs[-1]),
                         "median_U_literal": float(np.median(u)),
                         "fraction_U_below_max": float(np.mean(u < xs[-1]))})
    refuted = any(r["fraction_U_below_max"] > 0.5 for r in lit_rows)
    cx = counterexample_document(
        "repro.sec51.upper-bound-literal", SUBJECT,
        {"sample": SAMPLES[0], "runs": 2000, "seed": seed}, "U > max(X) in most runs",
        lit_rows[0]["fraction_U_below_max"], None,
        "Read literally ('counts the number of observations in X that exceed that guess ... "
        "stops at the first instance the noisy count exceeds n~'), the count starts at ~n and "
        "only decreases, so the algorithm stops within the first guesses or never") \
        if refuted else None
    out.append(_finding(
        "repro.sec51.upper-bound-literal",
        "Section 5.1's description of the modified AboveThreshold: count the observations that "
        "exceed the guess; stop when the noisy count exceeds n~",
        "Sec. 5.1", Method.EMPIRICAL, Verdict.REFUTED if refuted else Verdict.VERIFIED,
        "the description read literally (query #{x > t}, stop when noisy >= T^), 2,000 runs per "
        "bundled sample; our kernel and the other findings use the reading that works (#{x <= "
        "t}, Durfee 2023), see kernels.gini.release.dp_upper_bound",
        {"rows": lit_rows}, seed, t2, cx))
    return out


# ======================================================================= Figures 1 and 2
def cps_releases(name: str, eps_values: tuple[float, ...], n_upper: int, per_upper: int,
                 seed: int, rule: str = "thm45") -> dict[str, Any]:
    """Section 5.1's procedure on a bundled sample: per run U = 2.5 x~ (AboveThreshold,
    :func:`sample_upper_index`), records clipped to [0, U], S = Thm. 4.4 smooth bound with
    (L, U) = (0, U), then ``per_upper`` releases g~ = g + (S/alpha) Z per U (gamma = 2).
    The same U draws serve every eps (common random numbers).  Returns the errors
    g~ - g(X) per eps and the per-run scales."""
    xs = np.sort(load_sample(name))
    n, g0 = xs.size, float(gini_sorted(xs))
    rng = np.random.default_rng([seed, 1, sum(map(ord, name))])
    u = 2.5 * _guesses()[sample_upper_index(xs, n_upper, rng)]
    csum = np.concatenate([[0.0], np.cumsum(xs)])
    noise = powerlaw(GAMMA)
    errors, scales = {}, {}
    for eps in eps_values:
        alpha, beta = constants(eps, rule)
        sc = np.empty(n_upper)
        gu = np.empty(n_upper)
        for i, ui in enumerate(u):
            j = int(np.searchsorted(xs, ui, side="right"))  # records <= U kept as they are
            total = csum[j] + (n - j) * ui
            sc[i] = smooth_bound_thm44(n, float(total), 0.0, float(ui), beta)[0] / alpha
            gu[i] = g0 if j == n else float(gini_sorted(np.minimum(xs, ui)))
        z = noise.sample(rng, (n_upper, per_upper))
        errors[eps] = ((gu[:, None] + sc[:, None] * z) - g0).ravel()
        scales[eps] = sc
    return {"sample": name, "n": n, "gini": g0, "max_x": float(xs[-1]), "upper": u,
            "errors": errors, "scales": scales}


@replayer("repro.fig1.moments")
def replay_moments(inputs: dict) -> tuple[bool, Any, Any, str]:
    ratio = _block_iqr_ratio(float(inputs["scale"]), int(inputs["blocks"]),
                             int(inputs["block_size"]), int(inputs["seed"]))
    return (ratio > float(inputs["threshold"]), f"<= {inputs['threshold']}", ratio,
            f"IQR of {inputs['blocks']} block means of {inputs['block_size']} releases / IQR "
            f"of single releases = {ratio:.3f} (finite variance would give ~"
            f"{1 / math.sqrt(int(inputs['block_size'])):.3f})")


def _block_iqr_ratio(scale: float, blocks: int, block_size: int, seed: int) -> float:
    z = scale * powerlaw(GAMMA).sample(np.random.default_rng(seed), (blocks, block_size))
    iqr = np.subtract(*np.quantile(z.ravel(), [0.75, 0.25]))
    means = z.mean(axis=1)
    return float(np.subtract(*np.quantile(means, [0.75, 0.25])) / iqr)


@claim("repro.fig1", "Figure 1 / Section 5.1: DP Gini on income data at eps 0.25..2 with a DP "
       "upper bound", "reproduce", reference="Sec. 5.1, Figure 1")
def fig1(budget_s: float, seed: int) -> list[Finding]:
    t0 = time.perf_counter()
    n_upper, per = (100_000, 10) if full_mode() else (int(min(2000, max(300, budget_s * 40))), 50)
    res = [cps_releases(name, EPS_51, n_upper, per, seed) for name in SAMPLES]
    rows, series = [], []
    for r in res:
        iqrs = []
        for eps in EPS_51:
            e = r["errors"][eps]
            q = np.quantile(e, [0.01, 0.25, 0.5, 0.75, 0.99])
            iqrs.append(float(q[3] - q[1]))
            rows.append({"sample": r["sample"], "epsilon": eps, "quantiles_1_25_50_75_99": list(q),
                         "median_scale": float(np.median(r["scales"][eps])),
                         "p_within_0.03": float(np.mean(np.abs(e) <= 0.03)),
                         "sample_mean_error": float(e.mean()), "draws": e.size})
        series.append((f"{r['sample']} (n={r['n']:,}) IQR of g~ - g", list(EPS_51), iqrs))
    ev = {"rows": rows,
          "samples": [{"sample": r["sample"], "n": r["n"], "gini": r["gini"],
                       "max_x": r["max_x"]} for r in res],
          "paper": {"data": "CPS ASEC 2024 PTOTVAL, age >= 16", "n": 115_777, "gini": 0.574,
                    "x_n": 2_108_379, "draws_per_eps": 1_000_000},
          "figures": [_line("lan-reiter-fig1-iqr", "Figure 1 (ours, bundled CPS samples): "
                            "spread of g~ - g by eps", "eps", "interquartile range of g~ - g",
                            "Box-plot widths of Figure 1 on our stand-in data; the paper's data "
                            "is not available", series, logy=True)]}
    f_data = _finding(
        "repro.fig1.paper-data",
        "Figure 1: box plots of 1,000,000 DP Gini releases per eps on the CPS 2024 data "
        "(n = 115,777, g(Z) = 0.574, x_n = 2,108,379); 'even at eps = 0.25 ... within just a few "
        "points of g(Z)'",
        "Sec. 5.1, Fig. 1", Method.EMPIRICAL, Verdict.INCONCLUSIVE,
        f"MISSING: the paper's data set (CPS ASEC 2024 person file restricted to age >= 16) is "
        f"not bundled and the text states neither its mean nor any plotted value, so Figure 1 "
        f"cannot be compared number by number.  Our stand-in: the same procedure on the bundled "
        f"CPS samples {list(SAMPLES)} (U = 2.5 x~ per run, Thm. 4.4 bound, gamma = 2, alpha = "
        f"eps/8, beta = eps/2). {_size_note(n_upper * per)} ({n_upper:,} U runs x {per} "
        f"releases)", ev, seed, t0)
    # the text's moment statements
    t1 = time.perf_counter()
    shrink = all(all(a > b for a, b in zip(s[2], s[2][1:], strict=False)) for s in series)
    med_ok = []
    for r in res:
        for eps in EPS_51:
            e = r["errors"][eps]
            s_med = float(np.median(r["scales"][eps]))
            se = math.sqrt(0.25 / e.size) * math.pi * s_med  # 1/(2 f(0)), f(0) ~ 1/(pi s)
            med_ok.append(abs(float(np.median(e))) <= Z * se * 1.5)  # 1.5: scale mixture slack
    blocks, bsize = 200, 1000
    ratio = _block_iqr_ratio(1.0, blocks, bsize, seed)
    threshold = 0.2  # finite variance: ~1/sqrt(1000) = 0.03
    refuted = ratio > threshold
    cx = counterexample_document(
        "repro.fig1.moments", SUBJECT, {"scale": 1.0, "blocks": blocks, "block_size": bsize,
                                        "seed": seed, "threshold": threshold},
        f"<= {threshold}", ratio, None,
        "gamma = 2: Z is standard Cauchy, E|Z| = inf, so g~ has no mean and no variance; the "
        "average of N releases has the same spread as one release") if refuted else None
    f_mom = _finding(
        "repro.fig1.moments",
        "Section 5.1: 'the DP Gini index is approximately unbiased, as the averages of the draws "
        "of g~(Z) are centered at g(Z)' and 'as eps increases, the variances of g~(Z) shrink'",
        "Sec. 5.1, Fig. 1", Method.EMPIRICAL, Verdict.REFUTED if refuted else Verdict.VERIFIED,
        "exact: with gamma = 2 (the paper's choice) density (10) is the standard Cauchy, "
        "int |z|/(pi(1+z^2)) dz = inf, so E g~ and Var g~ do not exist (unbiasedness and "
        "variances are undefined); demonstration: IQR of 200 averages of 1,000 unit-scale "
        "releases vs IQR of single releases (finite variance: ~0.03).  What holds (checked on "
        "the bundled samples): the median of g~ - g is 0 within MC error and the IQR shrinks "
        "as eps grows",
        {"block_mean_iqr_over_single_iqr": ratio, "threshold": threshold,
         "median_centered_all": all(med_ok), "iqr_shrinks_with_eps_all": shrink,
         "sample_mean_errors": {f"{r['sample']}@{eps}": float(r["errors"][eps].mean())
                                for r in res for eps in EPS_51}},
        seed, t1, cx)
    return [f_data, f_mom]


@claim("repro.fig2", "Figure 2 / eq. (11): posterior of g given g~ = 0.574 at eps = 2 "
       "(importance resampling)", "reproduce", reference="Sec. 3 eq. (11), Sec. 5.1, Figure 2")
def fig2(budget_s: float, seed: int) -> list[Finding]:
    t0 = time.perf_counter()
    g_tilde, eps = 0.574, 2.0
    reps = 40 if full_mode() else 20
    n_prop = 200_000 if full_mode() else 50_000
    noise = powerlaw(GAMMA)
    rows = []
    worst = 0.0
    for name in SAMPLES:
        r = cps_releases(name, (eps,), 200, 1, seed)
        s = float(np.median(r["scales"][eps]))
        ex = posterior_exact(g_tilde, s, noise)
        draws = [posterior_importance(g_tilde, s, noise, np.random.default_rng([seed, 2, i]),
                                      n_proposals=n_prop, n_draws=n_prop // 2)
                 for i in range(reps)]
        lo = np.array([d.interval[0] for d in draws])
        hi = np.array([d.interval[1] for d in draws])
        mean = np.array([d.mean for d in draws])
        in01 = all(float(d.draws.min()) >= 0 and float(d.draws.max()) <= 1 for d in draws)
        devs = [abs(a.mean() - b) / max(a.std(ddof=1) / math.sqrt(reps), 1e-12)
                for a, b in ((lo, ex.interval[0]), (hi, ex.interval[1]), (mean, ex.mean))]
        worst = max(worst, *devs)
        rows.append({"sample": name, "scale": s, "exact_interval": list(ex.interval),
                     "exact_mean": ex.mean, "sir_interval_mean": [float(lo.mean()),
                                                                  float(hi.mean())],
                     "sir_mean_mean": float(mean.mean()), "deviation_se": devs,
                     "draws_in_0_1": in01})
    ok = worst <= Z and all(r["draws_in_0_1"] for r in rows)
    grid = np.linspace(0, 1, 401)
    figs = [_line("lan-reiter-fig2-posterior", "Figure 2 (ours): posterior p(g | g~ = 0.574), "
                  "eps = 2", "g", "posterior density",
                  "Closed-form posterior (Uniform prior, eq. 11) at the median noise scale of "
                  "each bundled sample; the paper's scale (its data) is unknown",
                  [(f"{r['sample']} (scale {r['scale']:.2g})", list(grid),
                    list(_post_density(g_tilde, r["scale"], grid))) for r in rows])]
    f1 = _finding(
        "repro.fig2.sir-vs-exact",
        "Section 3 / eq. (11): self-normalised importance resampling with Uniform(0, 1) "
        "proposals samples the posterior p(g | g~), and its support is [0, 1]",
        "Sec. 3, eq. (11), Sec. 5.1", Method.EMPIRICAL,
        Verdict.NOT_REFUTED if ok else Verdict.REFUTED,
        f"g~ = 0.574, eps = 2, gamma = 2; {reps} SIR runs of {n_prop:,} proposals per sample "
        f"scale vs the closed form (kernels.gini.release.posterior_exact); 95% interval ends and "
        f"mean within {Z:g} SE (SE from the spread of the runs) "
        f"({'FULL' if full_mode() else 'REDUCED'} size)",
        {"rows": rows, "worst_deviation_se": worst, "figures": figs}, seed, t0)
    f2 = _finding(
        "repro.fig2.values",
        "Figure 2: the posterior and its central 95% credible interval for g~ = 0.574 at eps = 2 "
        "on the CPS 2024 data",
        "Sec. 5.1, Fig. 2", Method.EMPIRICAL, Verdict.INCONCLUSIVE,
        "MISSING: the interval's end points are only drawn (not stated) and the noise scale "
        "S/alpha depends on the paper's data (n = 115,777 and its mean, not stated) and on the "
        "DP U of that run; our posteriors at the bundled samples' scales are in "
        "repro.fig2.sir-vs-exact.  Note: the paper's g~ = 0.574 equals its g(Z) = 0.574 to "
        "three digits - a draw with (almost) zero noise, or the figure was drawn at g~ = g(Z)",
        {"paper": {"g_tilde": 0.574, "epsilon": 2.0}}, seed, time.perf_counter())
    return [f1, f2]


def _post_density(g_tilde: float, scale: float, grid: np.ndarray) -> np.ndarray:
    noise = powerlaw(GAMMA)
    w = np.asarray(noise.pdf((g_tilde - grid) / scale)) / scale
    mass = float(noise.cdf(g_tilde / scale) - noise.cdf((g_tilde - 1.0) / scale))
    return w / mass
