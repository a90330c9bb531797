"""The Gini regress suite's check table: one :class:`audit.checks.kernel.KernelCheck` per
property of a kernel module implementing :data:`kernels.gini.protocol.PROTOCOL`.

Each entry names the protocol functions it needs, the evaluator (expected = exact reference
or oracle, :mod:`.evaluators`) and the Hypothesis strategy and pinned cases
(:mod:`.cases`); the engine runner (:func:`audit.checks.kernel.run_check`) searches,
shrinks, classifies failures (:func:`failure_class`: the outcome's class and k = 0 / 1 /
>= 2) and stores replayable counterexamples.  Kinds of comparison (stated in every
Finding's ``tolerance``): value vs exact reference (|actual - expected| <= atol + rtol
|expected|); one-sided (bounds, sensitivities, noise scales: never below the exact value,
decided exactly; rtol above it); bound vs oracle (one-sided, actual >= expected (1 - 1e-12)).
Samples are generated, not exhaustive: a pass is ``not-refuted``.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable
from types import ModuleType
from typing import Any

from hypothesis import strategies as st

from audit.checks.kernel import Context, KernelCheck, Listed, Outcome, Search
from audit.findings import Method
from proofs.gini import reference as ref
from proofs.gini.regress.cases import (
    INVALID,
    NOISE_DOMAIN,
    REL_DATA,
    SMALL_DOMAIN,
    TOP_HEAVY,
    TOY,
    UB_CASES,
    constants_case,
    data_sets,
    describe_fixed,
    dkw_case,
    invalid_cases,
    loss_fn_case,
    neighbour_case,
    neighbour_ls_case,
    noise_case,
    posterior_case,
    release_case,
    release_sample_case,
    small_case,
    small_k01,
    smooth_case,
    snap_case,
    toy_and_real,
    upper_bound_case,
)
from proofs.gini.regress.evaluators import (
    ATOL,
    EXTREME_UNSAFE_RTOL,
    NO_MUTATION_FUNCS,
    ONE_SIDED_SLACK,
    ONE_SIDED_TOL,
    PPF_UNITS,
    RTOL,
    SNAP_MIN_HEADROOM_BITS,
    eval_constants,
    eval_dkw_sampler,
    eval_invalid,
    eval_loss_bound_fn,
    eval_no_mutation,
    eval_posterior,
    eval_release_sample,
    eval_rule,
    eval_smoothness,
    eval_snap,
    eval_upper_bound,
    extreme_eval,
    fr,
    ls_ball,
    neighbour_eval,
    noise_eval,
    one_sided_eval,
    oracle_extreme,
    ppf_cases,
    ppf_eval,
    ref_ext,
    release_clipped_eval,
    release_eval,
    smooth_expected,
    upper_eval,
    value_eval,
    xkLU,
)

__all__ = ["CHECKS", "check_by_id", "failure_class"]


def failure_class(case: Any, out: Outcome) -> str:
    """The class of a failure, for distinct counterexamples: the outcome's class (sign of
    the error, exception type) and, when the input has a k, k = 0 / 1 / >= 2."""
    base = out.cls or "mismatch"
    k = case.get("k") if isinstance(case, dict) else None
    if isinstance(k, int):
        base += "-k0" if k == 0 else ("-k1" if k == 1 else "-k2plus")
    return re.sub(r"[^a-z0-9._-]+", "-", base.lower()).strip("-") or "mismatch"


def _default_domain(ctx: Context) -> str:
    return (f"data sets n in 2..{ctx.big_n if ctx.max_n > 8 else 7} (grid data n <= 7 with "
            "ties/zeros/L/U, and seeded lognormal/Pareto/integer/mostly-zero/uniform data), "
            "k in 0..min(n, 40), L in {0, 1, 2.5, 100}")


def _mk(id_: str, claim: str, refstr: str, method: Method, needs: tuple[str, ...],
        ev: Callable[[ModuleType, dict], Outcome],
        strategy: Callable[[Context], st.SearchStrategy], *, examples: tuple[int, int] = (40, 300),
        tolerance: dict | None = None, fixed: Callable[[Context], list] = toy_and_real,
        scope_note: str = "", domain: str = "") -> KernelCheck:
    """One table entry: a KernelCheck searched by Hypothesis (budget ``examples``) plus the
    pinned ``fixed`` cases; the tolerance's keys say which side is safe."""
    tol = {"rtol": RTOL, "atol": ATOL} if tolerance is None else tolerance
    if "above_exact_allowed_rtol" in tol:
        side: str | None = "below"
    elif any(k.startswith("below_exact_allowed") or k.startswith("one_sided") for k in tol):
        side = "above"
    else:
        side = None
    dom: Callable[[Context], str] = (lambda ctx: domain) if domain else _default_domain
    return KernelCheck(id_, claim, refstr, method, needs, ev,
                       Search(strategy, examples, fixed, dom, describe_fixed), tol,
                       one_sided=side, scope=scope_note, classify=failure_class,
                       rounding_note="exact_allowed_rtol" in str(tol))


def _extreme_tol(name: str) -> dict:
    unsafe = "below" if name.startswith("max") else "above"
    return {f"{unsafe}_exact_allowed_rtol": EXTREME_UNSAFE_RTOL,
            f"rtol_{'above' if unsafe == 'below' else 'below'}": RTOL, "atol": ATOL}


#: the four extremes (protocol name, what it is)
EXTREMES = (("min_mean", "minimum mean"), ("max_mean", "maximum mean"),
            ("min_gini", "minimum eq.-(2) Gini"), ("max_gini", "maximum eq.-(2) Gini"))


def _extreme_checks(name: str, what: str) -> list[KernelCheck]:
    """The reference and brute-force-oracle checks of one extreme (Algorithms 1-3)."""
    alg = {"min_gini": "Algorithm 1 / eq. (60)", "max_gini": "Algorithm 2 / eq. (59)"}.get(
        name, "Algorithm 3 (MinAve/MaxAve)"
    )
    return [
        _mk(
            f"extremes.{name.replace('_', '-')}.vs-reference",
            f"{name}(x, k, L, U) is the {what} over data sets at replacement distance k",
            f"Lan & Reiter 2025, {alg}",
            Method.CROSSCHECK,
            (name,),
            extreme_eval(name, lambda c, f=name: ref_ext(c)[f], xkLU(name),
                          "above" if name.startswith("max") else "below"),
            data_sets,
            tolerance=_extreme_tol(name),
        ),
        _mk(
            f"extremes.{name.replace('_', '-')}.vs-oracle",
            f"{name} equals the brute-force optimum over all replaced subsets (n <= 7)",
            f"Lan & Reiter 2025, {alg}",
            Method.EXHAUSTIVE,
            (name,),
            extreme_eval(name, oracle_extreme(name), xkLU(name),
                          "above" if name.startswith("max") else "below"),
            lambda ctx: small_case(),
            tolerance=_extreme_tol(name),
            examples=(40, 200),
            domain=SMALL_DOMAIN,
            fixed=lambda ctx: [TOY],
        ),
    ]


def _oracle_bound_checks(name: str, thm: str) -> list[KernelCheck]:
    """The oracle check of one upper bound on A^(k) (Theorems 4.3, 4.4)."""
    return [
        _mk(
            f"bound.{'thm43' if name == 'bound_A' else 'thm44'}.vs-oracle",
            f"{name} is an upper bound on A^(k): >= exact LS (k = 0) and >= the exact LS "
            "of every data set in a grid of the 1-ball (k = 1)",
            f"Lan & Reiter 2025, {thm}",
            Method.EXHAUSTIVE,
            (name,),
            one_sided_eval(name, ls_ball, xkLU(name)),
            small_k01,
            examples=(40, 150),
            tolerance={"one_sided_rel_slack": ONE_SIDED_SLACK},
            fixed=lambda ctx: [TOY],
            domain="grid data sets n in 2..5, k in {0, 1}; truth: exact LS (k = 0), "
            "max exact LS over the 1-ball with values {L, U, (L+U)/2} and the data",
        ),
    ]


#: the check table, in report order
CHECKS: list[KernelCheck] = [
    _mk(
        "gini.eq2.vs-reference",
        "gini(x) equals eq. (2) exactly (to float rounding)",
        "Lan & Reiter 2025, eq. (2)",
        Method.CROSSCHECK,
        ("gini",),
        value_eval("gini", lambda c: ref.gini_eq2(c["x"]), lambda m, c: m.gini(c["x"])),
        data_sets,
    ),
    _mk(
        "gini.eq1.vs-reference",
        "gini_eq1(x) equals eq. (1)",
        "Lan & Reiter 2025, eq. (1)",
        Method.CROSSCHECK,
        ("gini_eq1",),
        value_eval(
            "gini_eq1", lambda c: ref.gini_eq1(c["x"]), lambda m, c: m.gini_eq1(c["x"])
        ),
        data_sets,
    ),
    *[c for name, what in EXTREMES for c in _extreme_checks(name, what)],
    _mk(
        "bound.thm43.vs-reference",
        "bound_A(x, k, L, U) equals eq. (23) (with (22) corrected) on the true extremes",
        "Lan & Reiter 2025, Theorem 4.3, eqs. (21)-(23)",
        Method.CROSSCHECK,
        ("bound_A",),
        upper_eval(
            "bound_A",
            lambda c: ref.bound_A(
                len(c["x"]),
                fr(c["L"]),
                fr(c["U"]),
                *(ref_ext(c)[f] for f in ("min_gini", "max_gini", "min_mean", "max_mean")),
            ),
            xkLU("bound_A"),
        ),
        data_sets,
        tolerance=ONE_SIDED_TOL
    ),
    _mk(
        "bound.thm44.vs-reference",
        "bound_A_iq(x, k, L, U) equals the Theorem 4.4-style bound (all four terms)",
        "Lan & Reiter 2025, Theorem 4.4, eq. (24)",
        Method.CROSSCHECK,
        ("bound_A_iq",),
        upper_eval(
            "bound_A_iq",
            lambda c: ref.bound_A_iq(
                len(c["x"]), sum(fr(v) for v in c["x"]), fr(c["L"]), fr(c["U"]), c["k"]
            ),
            xkLU("bound_A_iq"),
        ),
        data_sets,
        tolerance=ONE_SIDED_TOL
    ),
    _mk(
        "bound.tight.vs-reference",
        "bound_A_tight(x, k, L, U) equals A_tight^(k) (k = 0: the exact local "
        "sensitivity), never below the exact value",
        "kernels/gini/tight.py (issue 18); exact reference proofs/gini/reference."
        "bound_A_tight (Fractions)",
        Method.CROSSCHECK,
        ("bound_A_tight",),
        upper_eval(
            "bound_A_tight",
            lambda c: ref.bound_A_tight(c["x"], c["L"], c["U"], c["k"]),
            xkLU("bound_A_tight"),
        ),
        lambda ctx: data_sets(ctx).map(lambda c: {**c, "x": c["x"][:80],
                                               "k": min(c["k"], len(c["x"][:80]))}),
        examples=(30, 150),
        fixed=lambda ctx: [TOY, TOP_HEAVY, {**TOY, "k": 0}],
        scope_note="n capped at 80",
        tolerance=ONE_SIDED_TOL
    ),
    *[c for name, thm in (("bound_A", "Theorem 4.3"), ("bound_A_iq", "Theorem 4.4"))
      for c in _oracle_bound_checks(name, thm)],
    _mk(
        "smooth.vs-reference",
        "smooth_sensitivity = max_{k=0..n} e^{-beta k} A^(k) (eq. 8, Alg. 3), A^(k) eq. (23)",
        "Lan & Reiter 2025, eq. (8), Algorithm 3",
        Method.CROSSCHECK,
        ("smooth_sensitivity",),
        upper_eval(
            "smooth_sensitivity",
            smooth_expected,
            lambda m, c: m.smooth_sensitivity(c["x"], c["L"], c["U"], c["beta"]),
        ),
        smooth_case,
        examples=(25, 150),
        fixed=lambda ctx: [{**c, "beta": 0.5} for c in toy_and_real(ctx)],
        scope_note="beta in {0.01, 0.05, 0.2, 1}; n capped at 1000; reference value "
        "certified by two mpmath precisions",
        tolerance=ONE_SIDED_TOL
    ),
    _mk(
        "smooth.definition-2.1",
        "smooth_sensitivity is a beta-smooth upper bound: S >= LS and S(X) <= e^beta S(X')",
        "Lan & Reiter 2025, Definition 2.1",
        Method.EXHAUSTIVE,
        ("smooth_sensitivity",),
        eval_smoothness,
        neighbour_case,
        examples=(40, 200),
        domain="grid data sets n in 2..7 and a random replace-one neighbour, "
        "beta in {0.05, 0.5, 2}; LS exact",
        fixed=lambda ctx: [{**TOY, "pos": 0, "value": 10.0, "beta": 0.5}],
    ),
    _mk(
        "noise.pdf.vs-reference",
        "noise_pdf is density (10), normalised",
        "Lan & Reiter 2025, eq. (10)",
        Method.CROSSCHECK,
        ("noise_pdf",),
        noise_eval("noise_pdf", ref.powerlaw_pdf),
        noise_case,
        tolerance={"rtol": 1e-12, "atol": 0.0},
        fixed=lambda ctx: [{"z": 0.5, "gamma": 2.0}],
        domain=NOISE_DOMAIN,
    ),
    KernelCheck(
        "noise.ppf.vs-reference",
        "noise_ppf is the quantile function of density (10) to its documented accuracy "
        "(a few ulps times the condition number) over the whole range, tails included",
        "Lan & Reiter 2025, eq. (10); kernels/gini/noise.py powerlaw_ppf",
        Method.CROSSCHECK,
        ("noise_ppf",),
        ppf_eval,
        Listed(ppf_cases),
        tolerance={"units_of_2^-53_x_condition": PPF_UNITS},
        scope="q from 1e-300 to 1 - 2^-52 (25 points), gamma in {1.2, 2, 8} (full: also "
        "1.01, 3, 20); reference: 50-digit mpmath quantile (two precisions)",
    ),
    _mk(
        "noise.cdf.vs-reference",
        "noise_cdf is the cdf of density (10)",
        "Lan & Reiter 2025, eq. (10)",
        Method.CROSSCHECK,
        ("noise_cdf",),
        noise_eval("noise_cdf", ref.powerlaw_cdf),
        noise_case,
        tolerance={"rtol": 1e-12, "atol": 0.0},
        fixed=lambda ctx: [{"z": -3.0, "gamma": 2.0}],
        domain=NOISE_DOMAIN,
    ),
    _mk(
        "noise.sampler.dkw",
        "sample_noise draws from density (10) (Lan & Reiter eq. 10)",
        "Lan & Reiter 2025, eq. (10)",
        Method.EMPIRICAL,
        ("sample_noise",),
        eval_dkw_sampler,
        dkw_case,
        examples=(3, 8),
        tolerance={"dkw_level": 1e-6, "n": 200_000},
        fixed=lambda ctx: [{"gamma": 2.0, "seed": ctx.seed, "n": 200_000}],
        scope_note="false-alarm probability <= 1e-6 per sample set (DKW); misses a "
        "density whose cdf differs by < ~0.0066 anywhere",
        domain="gamma in {1.2, 2, 3, 8}, 200,000 draws per sample set, cdf compared at 199 "
        "reference quantiles (mpmath)",
    ),
    _mk(
        "release.scale.vs-reference",
        "release_scale = S(X)/alpha with the module's own (alpha, beta) (protocol "
        "noise_constants; default Alg. 3: alpha = eps/(4 gamma), beta = eps/(2(gamma+1))), "
        "never below the exact value",
        "Lan & Reiter 2025, eq. (9), Section 2.3, Algorithm 3",
        Method.CROSSCHECK,
        ("release_scale",),
        release_eval,
        release_case,
        examples=(20, 100),
        fixed=lambda ctx: [{**c, "epsilon": 1.0, "gamma": 2.0} for c in toy_and_real(ctx)],
        scope_note="epsilon in {0.25, 1, 2}, gamma in {1.5, 2, 4}, n capped at 1000",
        tolerance=ONE_SIDED_TOL
    ),
    _mk(
        "release.scale-clipped.vs-reference",
        "release_scale_clipped = S(clip(X))/alpha: records outside [L, U] are clipped to "
        "the bounds before the release (the path of the release with a DP upper bound), "
        "never below the exact value",
        "Lan & Reiter 2025, Section 2.2, eq. (9), Algorithm 3",
        Method.CROSSCHECK,
        ("release_scale_clipped",),
        release_clipped_eval,
        lambda ctx: st.tuples(release_case(ctx), st.integers(0, 10**6)).map(
            lambda t: {**t[0], "x": t[0]["x"][:300], "shift": t[1]}),
        examples=(10, 60),
        fixed=lambda ctx: [{**c, "x": c["x"][:300], "epsilon": 1.0, "gamma": 2.0,
                            "shift": 1} for c in toy_and_real(ctx)],
        scope_note="two records added above U (1.5 U + 1, 3 U + 2), order rotated; n "
        "capped at 302",
        tolerance=ONE_SIDED_TOL
    ),
    _mk(
        "constants.loss-bound",
        "the module's own (alpha, beta) (noise_constants) make the release epsilon-DP by "
        "bound (*): beta max(1, gamma-1) + alpha (gamma-1)^(1-1/gamma) <= epsilon, never above",
        "Lan & Reiter 2025, Section 2.3, Algorithm 3; kernels/gini/release.py bound (*)",
        Method.EXHAUSTIVE,
        ("noise_constants",),
        eval_constants,
        constants_case,
        examples=(48, 48),
        tolerance={"above_epsilon_allowed": 0},
        fixed=lambda ctx: [{"epsilon": 1.0, "gamma": 2.0}],
        domain="epsilon in {0.01, 0.1, 0.5, 1, 2, 8} x gamma in {1.01, 1.05, 1.5, 2, 3, 5, "
        "10, 20}; bound (*) at 50 digits (mpmath) on the constants' exact binary values",
    ),
    _mk(
        "constants.rule",
        "the module's (alpha, beta) are the rule it names (DPAUDIT_CONSTANTS_RULE: alg3, "
        "section23 or calibrated)",
        "Lan & Reiter 2025, Section 2.3, Algorithm 3 (alg3); kernels/gini/release.py",
        Method.EXHAUSTIVE,
        ("noise_constants",),
        eval_rule,
        constants_case,
        examples=(48, 48),
        tolerance={"rtol": 1e-15},
        fixed=lambda ctx: [{"epsilon": 1.0, "gamma": 2.0}],
        domain="epsilon in {0.01, 0.1, 0.5, 1, 2, 8} x gamma in {1.01, ..., 20}; rule "
        "formula at 50 digits",
        scope_note="passes trivially when the module names no rule",
    ),
    _mk(
        "release.sample.vs-declared",
        "the release adds the noise it declares: its draws, standardised by its declared "
        "(gini, scale), follow density (10), and the declared gini is eq. (2)",
        "Lan & Reiter 2025, eqs. (2), (9), (10)",
        Method.EMPIRICAL,
        ("release_sample",),
        eval_release_sample,
        release_sample_case,
        examples=(3, 8),
        tolerance={"dkw_level": 1e-6},
        fixed=lambda ctx: [{"x": REL_DATA[1], "L": 0.0, "U": 2.5 * max(REL_DATA[1]),
                            "epsilon": 1.0, "gamma": 2.0, "seed": ctx.seed,
                            "n": 100_000}],
        domain="the toy and a 30-record lognormal sample, epsilon in {0.5, 1, 4}, gamma in "
        "{1.5, 2, 4}; 100,000 draws per sample set (400,000 full)",
        scope_note="false-alarm probability <= 1e-6 per sample set (DKW); a noise scale "
        "off by a factor c moves the standardised cdf by far more than the band (~0.008)",
    ),
    _mk(
        "upper-bound.law-and-privacy",
        "the Section 5.1 DP upper bound (AboveThreshold) draws from the exact law of its "
        "specification, and that law is epsilon_threshold-DP on replace-one neighbours",
        "Lan & Reiter 2025, Section 5.1; Dwork & Roth 2014, Algorithm 1 (AboveThreshold)",
        Method.EMPIRICAL,
        ("dp_upper_bound",),
        eval_upper_bound,
        upper_bound_case,
        examples=(1, 4),
        tolerance={"binomial_family_level": 1e-6},
        fixed=lambda ctx: [{**UB_CASES[1], "seed": ctx.seed,
                            "n": 40_000 if ctx.mode == "quick" else 200_000},
                           {**UB_CASES[2], "seed": ctx.seed,
                            "n": 10_000 if ctx.mode == "quick" else 100_000}],
        domain="40 uniform records (epsilon 0.5 + 0.5), 60 lognormal records (the "
        "paper's 0.075 + 0.075) and 40 records tied at guesses 4, 16, 32 (epsilon 0.25 + "
        "1.5; 10,000 draws, 100,000 full), guesses 2^i; 40,000 draws (200,000 full); exact "
        "law by "
        "mpmath quadrature (20 digits)",
        scope_note="false-alarm probability <= 1e-6 per sample set",
    ),
    _mk(
        "constants.loss-bound-function",
        "loss_bound(alpha, beta, gamma) is bound (*) beta max(1, gamma-1) + alpha "
        "(gamma-1)^(1-1/gamma), never below it",
        "Lan & Reiter 2025, Section 2.3; kernels/gini/release.py bound (*)",
        Method.EXHAUSTIVE,
        ("loss_bound",),
        eval_loss_bound_fn,
        loss_fn_case,
        examples=(96, 96),
        tolerance={"below_exact_allowed": 0, "rtol_above": 1e-12},
        fixed=lambda ctx: [{"epsilon": 1.0, "gamma": g, "rule": "alg3"}
                           for g in (1.5, 2.0, 4.0)],
        domain="epsilon in {0.01, 0.1, 0.5, 1, 2, 8} x gamma in {1.01, ..., 20} x rule "
        "{alg3, section23} (alpha, beta as floats); bound (*) at 50 digits (mpmath)",
    ),
    _mk(
        "release.snap.grid-and-clamp",
        "the snapped release's grid follows its documented design (power-of-two clamp B "
        "in [1024/alpha, 2048/alpha), power-of-two step >= 2^12 ulp(B)) and snap returns "
        "the nearest grid point to the clamped value",
        "kernels/gini/release.snap_grid/snap (Mironov 2012, Section 5, adapted)",
        Method.CROSSCHECK,
        ("snap_grid", "snap"),
        eval_snap,
        snap_case,
        examples=(30, 150),
        tolerance={"min_headroom_bits": SNAP_MIN_HEADROOM_BITS, "snap_error": "step/2"},
        fixed=lambda ctx: [{"alpha": 0.125, "y": [2 / 9, 1 / 7, -1.5, 1.0, 2.0**-41]}],
        domain="alpha in {1e-3, 0.0625, 0.125, 0.3, 1, 2}; up to 12 values y B with y in "
        "[-3, 3] and tie points; exact rational comparison",
    ),
    _mk(
        "neighbour.fast-path.vs-reference",
        "the fast path that searches replace-one neighbours (protocol "
        "neighbour_location_scale) gives each neighbour's g(X') and S(X')/alpha",
        "Lan & Reiter 2025, eqs. (2), (8), (23); kernels/gini/neighbour.py",
        Method.CROSSCHECK,
        ("neighbour_location_scale",),
        neighbour_eval,
        neighbour_ls_case,
        examples=(20, 100),
        fixed=lambda ctx: [{**c, "x": c["x"][:300], "epsilon": 1.0, "gamma": 2.0,
                            "rank": r, "new_frac": f, "new_is_record": None}
                           for c in toy_and_real(ctx)[:2] for r, f in ((0, 0.0),
                                                                      (2, 1.0))],
        scope_note="neighbour = sorted x with one rank replaced by L, U, a point between "
        "or another record; n capped at 300",
    ),
    _mk(
        "release.posterior.interval",
        "posterior_interval(g~, s, gamma, level) is the central credible interval of g "
        "under a Uniform(0, 1) prior: its ends have posterior cdf (1 -+ level)/2",
        "Lan & Reiter 2025, eq. (11)",
        Method.CROSSCHECK,
        ("posterior_interval",),
        eval_posterior,
        posterior_case,
        examples=(8, 40),
        tolerance={"cdf_atol": 1e-6},
        fixed=lambda ctx: [{"g_tilde": 0.4, "scale": 0.1, "gamma": 2.0, "level": 0.95}],
        domain="g~ in {-0.2, 0.1, 0.3, 0.5, 0.8, 1.2}, s in {0.05, 0.2, 1}, gamma in {1.5, "
        "2, 4}, level in {0.5, 0.9, 0.95}; exact cdf by mpmath (30 digits)",
    ),
    _mk(
        "input.rejects-invalid",
        "every protocol function rejects invalid input with ValueError (InputError): "
        "negative / non-finite incomes, fewer than 2 records, zero mean, records outside "
        "[L, U], L >= U, k outside 0..n",
        "DESIGN.md (bad input rules); kernels/validate.py",
        Method.EXHAUSTIVE,
        ("gini",),
        eval_invalid,
        lambda ctx: st.sampled_from(invalid_cases(ctx)),
        examples=(len(INVALID), len(INVALID)),
        tolerance={"must_raise": "ValueError"},
        fixed=invalid_cases,
        domain=f"{len(INVALID)} pinned invalid inputs (each also drawn at random)",
    ),
    dataclasses.replace(_mk(
        "input.no-mutation-order-free",
        "no protocol function modifies its input; data functions do not depend on the "
        "records' order; the sampler, the release and the DP upper bound draw only from "
        "the generator they are given",
        "DESIGN.md, kernels are pure functions",
        Method.CROSSCHECK,
        NO_MUTATION_FUNCS,
        eval_no_mutation,
        data_sets,
        examples=(20, 100),
    ), needs_any=True),  # runs on whichever of these functions the module provides
]




def check_by_id(check_id: str) -> KernelCheck:
    for c in CHECKS:
        if c.id == check_id:
            return c
    raise KeyError(f"unknown check id {check_id!r}; known: {', '.join(c.id for c in CHECKS)}")
