"""Evaluators of the Gini regress checks: ``evaluate(module, case) -> Outcome`` with the
expected value from the exact reference (:mod:`proofs.gini.reference`, Fractions and
certified mpmath) or an oracle (:mod:`proofs.gini.oracles`, brute force), the actual value
from the kernel module.

Kinds of comparison: values (:func:`value_eval`, rtol :data:`RTOL` + atol :data:`ATOL`);
one-sided upper bounds, sensitivities and noise scales (:func:`upper_eval`: below the exact
value by any amount is refuted, decided exactly; at most rtol above); extremes used to build
an upper bound (:func:`extreme_eval`: the unsafe side allows float rounding
:data:`EXTREME_UNSAFE_RTOL` only); bounds vs oracles (:func:`one_sided_eval`); and the
evaluators of single properties (smoothness, constants, snapping, the release's noise law
and the Section 5.1 upper bound's law and privacy, purity of the kernel functions).

Cited: Lan & Reiter (2025), eqs. (1), (2), (8)-(11), (21)-(24), Definition 2.1, Algorithm 3,
Section 5.1; Dwork & Roth (2014), Algorithm 1; Mironov (2012), Section 5.
"""

from __future__ import annotations

import functools
import math
import re
import sys
import traceback
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from types import ModuleType
from typing import Any

import mpmath
import numpy as np
from scipy import stats

from audit.checks.kernel import Outcome
from proofs.gini import oracles
from proofs.gini import reference as ref
from proofs.gini.mechanisms import above_threshold_law, above_threshold_max_log_ratio

RTOL = 1e-9


ATOL = 1e-12


ONE_SIDED_SLACK = 1e-12


#: tolerance of the one-sided checks: nothing below the exact value, rtol above it
ONE_SIDED_TOL = {"below_exact_allowed": 0, "rtol_above": RTOL, "atol_above": ATOL}


def _close(actual: float, expected: float, rtol: float = RTOL, atol: float = ATOL) -> bool:
    a, e = float(actual), float(expected)
    return math.isfinite(a) and abs(a - e) <= atol + rtol * abs(e)


def _relerr(actual: float, expected: float) -> float:
    a, e = float(actual), float(expected)
    if not math.isfinite(a):
        return math.inf
    return abs(a - e) / max(abs(e), 1e-300)


def fr(v: Any) -> Fraction:
    return Fraction(v)


def ref_ext(case: dict) -> dict:
    return ref.extremes(case["x"], case["L"], case["U"], k_max=case["k"])[case["k"]]


def value_eval(
    name: str, compute_expected: Callable[[dict], Any], call: Callable[[ModuleType, dict], Any]
) -> Callable[[ModuleType, dict], Outcome]:
    def ev(mod: ModuleType, case: dict) -> Outcome:
        expected = float(compute_expected(case))
        actual = float(call(mod, case))
        ok = _close(actual, expected)
        cls = "" if ok else ("nonfinite" if not math.isfinite(actual) else
                             ("above" if actual > expected else "below"))
        return Outcome(
            ok,
            expected,
            actual,
            f"{name}: |actual-expected| vs rtol {RTOL}",
            _relerr(actual, expected),
            cls,
        )

    return ev


def _below_exact(actual: float, exact: Any) -> bool:
    """actual < exact, decided exactly (the float's binary value vs a Fraction, or vs a
    certified mpmath value)."""
    if isinstance(exact, Fraction):
        return Fraction(actual) < exact
    with mpmath.workdps(60):
        return mpmath.mpf(actual) < exact


def upper_eval(
    name: str, exact: Callable[[dict], Any], call: Callable[[ModuleType, dict], Any],
    rtol: float = RTOL,
) -> Callable[[ModuleType, dict], Outcome]:
    """One-sided comparison for a quantity whose safety has a direction (an upper bound, a
    sensitivity, a noise scale): refuted when the value is below the exact value by any
    amount (exact comparison), or above it by more than ``rtol`` (relative)."""

    def ev(mod: ModuleType, case: dict) -> Outcome:
        t = exact(case)
        tf = float(t)
        a = float(call(mod, case))
        if not math.isfinite(a):
            return Outcome(False, tf, a, f"{name} is not finite", math.inf, "nonfinite", -math.inf)
        with mpmath.workdps(60):
            tm = (mpmath.mpf(t.numerator) / t.denominator if isinstance(t, Fraction)
                  else mpmath.mpf(t))
            gap = float((mpmath.mpf(a) - tm) / max(abs(tm), mpmath.mpf(1e-300)))
        if _below_exact(a, t):
            return Outcome(False, tf, a, f"{name} is BELOW the exact value (unsafe side; "
                           f"relative gap {gap:.3g}): refuted however small the gap",
                           abs(gap), "below", min(gap, -1e-300))
        ok = a <= tf * (1 + rtol) + ATOL
        return Outcome(ok, tf, a, f"{name}: never below the exact value, at most rtol {rtol:g} "
                       "above", gap, "" if ok else "above", gap)

    return ev


#: extremes (min/max Gini and mean) are intermediate values, correctly rounded from an exact
#: long-double computation: their unsafe side may hold float rounding (measured: < 1.1e-16
#: relative, about half the time) but never more than this; every bound built on them adds a
#: relative 2^-36 margin (kernels/gini/sensitivity.SAFE_MARGIN), which absorbs 2^-46
EXTREME_UNSAFE_RTOL = 2.0**-46


def extreme_eval(
    name: str, exact: Callable[[dict], Any], call: Callable[[ModuleType, dict], Any],
    safe: str,
) -> Callable[[ModuleType, dict], Outcome]:
    """Directional comparison of an extreme used to build an upper bound on the sensitivity:
    a *max* (Gini or mean) must never be below the exact value and a *min* never above it
    (``safe``: "above" / "below" is the safe side), beyond float rounding
    (:data:`EXTREME_UNSAFE_RTOL`, relative); the safe side keeps rtol :data:`RTOL`.
    ``gap`` is the signed relative gap towards the safe side (negative = unsafe)."""

    def ev(mod: ModuleType, case: dict) -> Outcome:
        t = exact(case)
        tf = float(t)
        a = float(call(mod, case))
        if not math.isfinite(a):
            return Outcome(False, tf, a, f"{name} is not finite", math.inf, "nonfinite",
                           -math.inf)
        tq = Fraction(t) if not isinstance(t, Fraction) else t
        diff = Fraction(a) - tq  # exact
        scale = abs(tq)
        towards_safe = diff if safe == "above" else -diff
        gap = float(towards_safe / scale) if scale else (0.0 if diff == 0 else
                                                         math.copysign(math.inf,
                                                                       float(towards_safe)))
        unsafe = "below" if safe == "above" else "above"
        if towards_safe < 0 and -towards_safe > Fraction(EXTREME_UNSAFE_RTOL) * scale:
            return Outcome(False, tf, a, f"{name} is {unsafe.upper()} the exact value (unsafe "
                           f"side; relative gap {abs(gap):.3g} > float rounding "
                           f"{EXTREME_UNSAFE_RTOL:.3g}): refuted", abs(gap), unsafe, gap)
        ok = abs(diff) <= ATOL + RTOL * scale
        return Outcome(ok, tf, a, f"{name}: never {unsafe} the exact value beyond float "
                       f"rounding ({EXTREME_UNSAFE_RTOL:.3g} relative), at most rtol {RTOL:g} "
                       f"{safe}", abs(gap), "" if ok else f"far-{safe}", max(gap, 0.0))

    return ev


def one_sided_eval(
    name: str, truth: Callable[[dict], Any], call: Callable[[ModuleType, dict], Any]
) -> Callable[[ModuleType, dict], Outcome]:
    def ev(mod: ModuleType, case: dict) -> Outcome:
        t = float(truth(case))
        a = float(call(mod, case))
        ok = math.isfinite(a) and a >= t * (1 - ONE_SIDED_SLACK)
        short = max(0.0, (t - a) / max(abs(t), 1e-300)) if math.isfinite(a) else math.inf
        return Outcome(ok, t, a, f"{name} must be >= exact truth {t!r}", short,
                       "" if ok else "below")

    return ev


def xkLU(name: str) -> Callable[[ModuleType, dict], Any]:
    return lambda m, c: getattr(m, name)(list(c["x"]), int(c["k"]), c["L"], c["U"])


def ls_ball(case: dict) -> Fraction:
    x = [fr(v) for v in case["x"]]
    L, U = fr(case["L"]), fr(case["U"])
    k = case["k"]
    if k == 0:
        return oracles.local_sensitivity(x, L, U)
    values = sorted({L, U, (L + U) / 2} | set(x))
    return oracles.ball_lower_bound_A(x, L, U, k, values)[0]


def oracle_extreme(field_: str) -> Callable[[dict], Fraction]:
    idx = {"min_mean": 0, "max_mean": 1, "min_gini": 2, "max_gini": 3}[field_]

    def truth(case: dict) -> Fraction:
        x = [fr(v) for v in case["x"]]
        return oracles.extremes_bruteforce(x, fr(case["L"]), fr(case["U"]), case["k"])[idx]

    return truth


def smooth_expected(case: dict) -> Any:
    """Exact S(X) (mpmath, certified to 30 digits) at the float beta, converted exactly."""
    return ref.smooth_sensitivity(case["x"], case["L"], case["U"], fr(case["beta"])).value


def eval_smoothness(mod: ModuleType, case: dict) -> Outcome:
    """Definition 2.1: S(X) >= LS(X) (exact) and S(X) <= e^beta S(X') for the neighbour."""
    x = list(case["x"])
    y = list(x)
    y[case["pos"]] = case["value"]
    if sum(y) == 0:
        return Outcome(True, None, None, "neighbour has total 0: skipped")
    b = case["beta"]
    sx = float(mod.smooth_sensitivity(x, case["L"], case["U"], b))
    sy = float(mod.smooth_sensitivity(y, case["L"], case["U"], b))
    ls = float(oracles.local_sensitivity([fr(v) for v in x], fr(case["L"]), fr(case["U"])))
    c1 = sx >= ls * (1 - ONE_SIDED_SLACK)
    c2 = sx <= math.exp(b) * sy * (1 + 1e-12) and sy <= math.exp(b) * sx * (1 + 1e-12)
    detail = f"S(X)={sx!r}, S(X')={sy!r}, LS(X)={ls!r}, e^beta={math.exp(b)!r}"
    return Outcome(
        c1 and c2,
        {"LS(X)": ls, "e^beta": math.exp(b)},
        {"S(X)": sx, "S(X')": sy},
        detail,
        0.0 if (c1 and c2) else 1.0,
    )


def noise_eval(name: str, fn: Callable[..., Any]) -> Callable[[ModuleType, dict], Outcome]:
    def ev(mod: ModuleType, case: dict) -> Outcome:
        exp = float(fn(case["z"], case["gamma"]))
        act = float(np.asarray(getattr(mod, name)(np.array([case["z"]]), case["gamma"])).ravel()[0])
        ok = _close(act, exp, 1e-12, 0.0)
        return Outcome(ok, exp, act, f"{name} vs mpmath (rtol 1e-12)", _relerr(act, exp))

    return ev


def alg3_constants(epsilon: float, gamma: float) -> tuple[float, float]:
    """Algorithm 3's (alpha, beta) = (eps/(4 gamma), eps/(2(gamma + 1))) in float64, the
    constants assumed for a module that does not declare ``noise_constants``."""
    return epsilon / (4 * gamma), epsilon / (2 * (gamma + 1))


def module_constants(mod: ModuleType, epsilon: float, gamma: float) -> tuple[float, float]:
    """The (alpha, beta) the module declares (protocol ``noise_constants``), else Alg. 3's."""
    fn = getattr(mod, "noise_constants", None)
    if callable(fn):
        a, b = fn(epsilon, gamma)
        return float(a), float(b)
    return alg3_constants(epsilon, gamma)


def release_eval(mod: ModuleType, case: dict) -> Outcome:
    """release_scale vs the exact S(X)/alpha with the module's own (alpha, beta), both
    converted exactly: one-sided (a scale below the exact one adds too little noise)."""
    alpha, beta = module_constants(mod, case["epsilon"], case["gamma"])

    def exact(c: dict) -> Any:
        with mpmath.workdps(60):
            s = ref.smooth_sensitivity(c["x"], c["L"], c["U"], fr(beta)).value
            return s / mpmath.mpf(alpha)

    return upper_eval(
        "release_scale", exact,
        lambda m, c: m.release_scale(c["x"], c["L"], c["U"], c["epsilon"], c["gamma"]),
    )(mod, case)


def neighbour_eval(mod: ModuleType, case: dict) -> Outcome:
    """The module's neighbour fast path vs the exact reference on the materialised
    neighbour: g(X') (eq. 2, Fractions) and S(X')/alpha (mpmath, 60 digits), rtol 1e-9 each
    (two-sided: the fast path only steers certify's search - every certified pair is
    recomputed by the release - so its error has no safe side, only a size)."""
    xs = sorted(case["x"])
    r = case["rank"] % len(xs)
    new = case["new_frac"] * case["L"] + (1 - case["new_frac"]) * case["U"]
    if case.get("new_is_record"):
        new = xs[case["new_is_record"] % len(xs)]
    y = sorted([*xs[:r], new, *xs[r + 1:]])
    if not sum(y) > 0:
        return Outcome(True, None, None, "neighbour has total 0 (Gini undefined): skipped")
    alpha, beta = module_constants(mod, case["epsilon"], case["gamma"])
    g_exact = ref.gini_eq2(y)
    with mpmath.workdps(60):
        s_exact = ref.smooth_sensitivity(y, case["L"], case["U"], fr(beta)).value / mpmath.mpf(
            alpha)
    g, sc = (float(v) for v in mod.neighbour_location_scale(
        list(case["x"]), case["L"], case["U"], case["epsilon"], case["gamma"], r, new))
    eg, es = _relerr(g, float(g_exact)), _relerr(sc, float(s_exact))
    ok = _close(g, float(g_exact)) and _close(sc, float(s_exact))
    cls = "" if ok else ("gini" if not _close(g, float(g_exact)) else "scale")
    return Outcome(ok, {"gini": float(g_exact), "scale": float(s_exact)},
                   {"gini": g, "scale": sc},
                   f"neighbour rank {r} -> {new!r}: relative errors gini {eg:.3g}, scale "
                   f"{es:.3g} (rtol {RTOL})", max(eg, es), cls)


def _posterior_cdf_mp(t: Any, gt: Any, sc: Any, gamma: float) -> Any:
    """P(g <= t | g~) = [F(g~/s) - F((g~-t)/s)] / [F(g~/s) - F((g~-1)/s)] (eq. 11 with a
    Uniform(0, 1) prior; F the cdf of density (10), mpmath at 30 digits)."""
    with mpmath.workdps(30):
        F = lambda z: ref.powerlaw_cdf(z, gamma, dps=30)  # noqa: E731
        top = F(gt / sc)
        return (top - F((gt - t) / sc)) / (top - F((gt - 1) / sc))


def eval_posterior(mod: ModuleType, case: dict) -> Outcome:
    """The credible interval's ends have posterior cdf (1 - level)/2 and (1 + level)/2
    (absolute tolerance 1e-6 on the cdf; exact cdf by mpmath), and lo <= hi in [0, 1]."""
    gt, sc, g, lv = case["g_tilde"], case["scale"], case["gamma"], case["level"]
    lo, hi = (float(v) for v in mod.posterior_interval(gt, sc, g, lv))
    if not (0.0 <= lo <= hi <= 1.0):
        return Outcome(False, "0 <= lo <= hi <= 1", (lo, hi), "interval out of order", 1.0,
                       "order")
    with mpmath.workdps(30):
        c_lo = _posterior_cdf_mp(mpmath.mpf(lo), mpmath.mpf(gt), mpmath.mpf(sc), g)
        c_hi = _posterior_cdf_mp(mpmath.mpf(hi), mpmath.mpf(gt), mpmath.mpf(sc), g)
    want = ((1 - lv) / 2, (1 + lv) / 2)
    err = max(abs(float(c_lo) - want[0]), abs(float(c_hi) - want[1]))
    ok = err <= 1e-6
    return Outcome(ok, {"cdf_at_ends": list(want)}, {"cdf_at_ends": [float(c_lo), float(c_hi)],
                                                     "interval": [lo, hi]},
                   f"posterior cdf at the interval's ends vs (1 -+ level)/2: max error "
                   f"{err:.3g} (tolerance 1e-6)", err, "" if ok else "level")


def release_clipped_eval(mod: ModuleType, case: dict) -> Outcome:
    """release_scale_clipped on the data with records added above U (and the order
    shuffled) vs the exact S(clip(X))/alpha: one-sided, as release.scale.vs-reference."""
    alpha, beta = module_constants(mod, case["epsilon"], case["gamma"])
    U, L = case["U"], case["L"]
    raw = [*case["x"], 1.5 * U + 1.0, 3.0 * U + 2.0]
    raw = raw[case["shift"] % len(raw):] + raw[: case["shift"] % len(raw)]
    clipped = [min(max(v, L), U) for v in raw]

    def exact(c: dict) -> Any:
        with mpmath.workdps(60):
            s = ref.smooth_sensitivity(clipped, L, U, fr(beta)).value
            return s / mpmath.mpf(alpha)

    return upper_eval(
        "release_scale_clipped", exact,
        lambda m, c: m.release_scale_clipped(raw, L, U, c["epsilon"], c["gamma"]),
    )(mod, case)


_DATA_FUNCS = ("gini", "gini_eq1", "min_mean", "max_mean", "min_gini", "max_gini", "bound_A",
               "bound_A_iq", "smooth_sensitivity", "release_scale")


#: every function eval_no_mutation checks (the check runs on those the module provides)
NO_MUTATION_FUNCS = (*_DATA_FUNCS, "noise_pdf", "noise_cdf", "sample_noise", "dp_upper_bound",
                     "release_sample")
#: marks a call that raised (eval_no_mutation goes on with the other functions)
_RAISED = object()


def _data_args(name: str, xs: np.ndarray, case: dict) -> tuple:
    if name in ("gini", "gini_eq1"):
        return (xs,)
    if name == "smooth_sensitivity":
        return (xs, case["L"], case["U"], 0.2)
    if name == "release_scale":
        return (xs, case["L"], case["U"], 1.0, 2.0)
    return (xs, int(case["k"]), case["L"], case["U"])


def eval_no_mutation(mod: ModuleType, case: dict) -> Outcome:
    """Every protocol function the module provides, each on its own: must not modify its
    input array; data functions must not depend on the order of the records; the sampler,
    the release and the DP upper bound must draw only from the generator they are given
    (same seed -> same draws, whatever numpy's global state).  A function that raises on
    the case is left out of this check (its raise is the other checks' finding, not a
    mutation) and named in the detail; the others are still checked."""
    x = np.array(case["x"][:1000], dtype=np.float64)
    rng = np.random.default_rng(len(x))
    shuffled = x[rng.permutation(x.size)]
    before = shuffled.copy()
    problems: list[str] = []
    raised: dict[str, str] = {}
    first: list[tuple[str, str]] = []  # the first raise: (exception type, place)
    checked: list[str] = []

    def attempt(name: str, thunk: Callable[[], Any]) -> Any:
        try:
            return thunk()
        except Exception as exc:  # noqa: BLE001 - per function: the others go on
            raised.setdefault(name, f"{type(exc).__name__}: {exc}")
            if not first:
                tb = traceback.extract_tb(exc.__traceback__)
                first.append((type(exc).__name__, f"{Path(tb[-1].filename).name}:"
                              f"{tb[-1].lineno} in {tb[-1].name}" if tb else ""))
            return _RAISED

    for name in _DATA_FUNCS:
        fn = getattr(mod, name, None)
        if not callable(fn):
            continue
        args = _data_args(name, shuffled, case)
        val = attempt(name, lambda fn=fn, args=args: float(fn(*args)))
        if not np.array_equal(shuffled, before):
            problems.append(f"{name} modified its input")
            shuffled[:] = before
        if val is _RAISED:
            continue
        val_sorted = attempt(name, lambda fn=fn, args=args: float(
            fn(*((np.sort(x),) + args[1:]))))
        if val_sorted is _RAISED:
            continue
        checked.append(name)
        if not _close(val, val_sorted, 1e-12, 1e-15):
            problems.append(f"{name} depends on input order: {val!r} vs sorted {val_sorted!r}")
    z = np.array([-3.0, -0.5, 0.0, 0.25, 7.0])
    for name in ("noise_pdf", "noise_cdf"):
        fn = getattr(mod, name, None)
        if callable(fn):
            zz = z.copy()
            if attempt(name, lambda fn=fn, zz=zz: fn(zz, 2.0)) is not _RAISED:
                checked.append(name)
            if not np.array_equal(zz, z):
                problems.append(f"{name} modified its input")
    draws: list[dict[str, np.ndarray]] = []
    for gseed in (1, 2):  # numpy's legacy global state must not matter
        np.random.seed(gseed)
        got: dict[str, np.ndarray] = {}
        if callable(getattr(mod, "sample_noise", None)):
            v = attempt("sample_noise", lambda: np.asarray(
                mod.sample_noise(np.random.default_rng(5), 2.0, 64)))
            if v is not _RAISED:
                got["sample_noise"] = v
        if callable(getattr(mod, "dp_upper_bound", None)):
            xx = shuffled.copy()
            u = attempt("dp_upper_bound", lambda xx=xx: [
                mod.dp_upper_bound(xx, np.random.default_rng(5 + j), 0.5, 0.5, 1.0, 2.0,
                                   2.0**20) for j in range(8)])
            if not np.array_equal(xx, shuffled):
                problems.append("dp_upper_bound modified its input")
            us = attempt("dp_upper_bound", lambda: [
                mod.dp_upper_bound(np.sort(x), np.random.default_rng(5 + j), 0.5, 0.5, 1.0,
                                   2.0, 2.0**20) for j in range(8)])
            if u is not _RAISED and us is not _RAISED:
                if u != us:
                    problems.append("dp_upper_bound depends on input order")
                got["dp_upper_bound"] = np.asarray(u, dtype=np.float64)
        if callable(getattr(mod, "release_sample", None)):
            xx = shuffled.copy()
            r = attempt("release_sample", lambda xx=xx: mod.release_sample(
                xx, case["L"], case["U"], 1.0, 2.0, np.random.default_rng(5), 16))
            if not np.array_equal(xx, shuffled):
                problems.append("release_sample modified its input")
            if r is not _RAISED:
                got["release_sample"] = np.asarray(r[0])
        draws.append(got)
    np.random.seed(None)
    for name in sorted(set(draws[0]) & set(draws[1])):
        checked.append(name)
        if not np.array_equal(draws[0][name], draws[1][name], equal_nan=True):
            problems.append(f"{name}: same generator seed, different draws (it uses "
                            "randomness other than the generator it is given)")
    notes = ([f"not checked (raised on this case): "
              f"{', '.join(f'{k} ({v})' for k, v in raised.items())}"] if raised else [])
    if not checked and not problems:  # nothing could be checked: never a pass; the raise
        exc, where = first[0]  # is the finding (grouped with the other checks' by cause)
        return Outcome(False, "a value", next(iter(raised.values())), "; ".join(notes),
                       math.inf, f"raised-{exc}", where=where)
    return Outcome(
        not problems,
        "inputs unchanged, order-independent, randomness only from the given generator",
        problems or "ok",
        "; ".join(problems + notes),
        0.0 if not problems else 1.0,
        "" if not problems else re.sub(r"[^a-z_]+", "-", problems[0].split(":")[0].split(" ")[0]),
    )


# ------------------------------------------------------------ constants, release samples
_RULES = ("alg3", "section23", "calibrated")


def _loss_bound_mp(alpha: float, beta: float, gamma: float) -> Any:
    """Bound (*) of kernels/gini/release.py, beta max(1, g-1) + alpha (g-1)^(1-1/g), at 50
    digits on the floats' exact values."""
    with mpmath.workdps(50):
        g = mpmath.mpf(gamma)
        return mpmath.mpf(beta) * max(mpmath.mpf(1), g - 1) + mpmath.mpf(alpha) * (
            (g - 1) ** (1 - 1 / g))


def eval_constants(mod: ModuleType, case: dict) -> Outcome:
    """The module's own (alpha, beta) make the release epsilon-DP by bound (*): one-sided,
    bound <= epsilon exactly (mpmath, 50 digits)."""
    eps, g = case["epsilon"], case["gamma"]
    alpha, beta = (float(v) for v in mod.noise_constants(eps, g))
    if not (alpha > 0 and beta > 0 and math.isfinite(alpha) and math.isfinite(beta)):
        return Outcome(False, "alpha, beta > 0", (alpha, beta), "non-positive constant", 1.0,
                       "nonpositive")
    lb = _loss_bound_mp(alpha, beta, g)
    ok = lb <= mpmath.mpf(eps)
    gap = float((lb - eps) / eps)
    return Outcome(ok, {"loss_bound_at_most": eps}, {"alpha": alpha, "beta": beta,
                                                     "loss_bound": float(lb)},
                   f"bound (*) = {float(lb)!r} vs epsilon {eps!r}", max(gap, 0.0),
                   "" if ok else "above-epsilon")


def _rule_value(rule: str, eps: float, g: float) -> tuple[Any, Any]:
    with mpmath.workdps(50):
        e, gm = mpmath.mpf(eps), mpmath.mpf(g)
        if rule == "alg3":
            return e / (4 * gm), e / (2 * (gm + 1))
        if rule == "section23":
            return e / (4 * gm), e / gm
        half = mpmath.mpf(0.5) * e * (1 - mpmath.mpf(1e-9))
        return half / (gm - 1) ** (1 - 1 / gm), half / max(mpmath.mpf(1), gm - 1)


def eval_rule(mod: ModuleType, case: dict) -> Outcome:
    """The declared constants follow the rule the module names (DPAUDIT_CONSTANTS_RULE),
    within 4 ulps (relative 1e-15)."""
    rule = getattr(mod, "DPAUDIT_CONSTANTS_RULE", None)
    if rule is None:
        return Outcome(True, None, None, "module names no rule (own constants)")
    if rule not in _RULES:
        return Outcome(False, f"one of {_RULES}", rule, "unknown rule", 1.0, "unknown-rule")
    eps, g = case["epsilon"], case["gamma"]
    alpha, beta = (float(v) for v in mod.noise_constants(eps, g))
    ea, eb = _rule_value(rule, eps, g)
    ra = float(abs(mpmath.mpf(alpha) - ea) / ea)
    rb = float(abs(mpmath.mpf(beta) - eb) / eb)
    ok = ra <= 1e-15 and rb <= 1e-15
    cls = "" if ok else ("alpha" if ra > 1e-15 else "beta")
    return Outcome(ok, {"alpha": float(ea), "beta": float(eb)}, {"alpha": alpha, "beta": beta},
                   f"rule {rule}: relative errors alpha {ra:.3g}, beta {rb:.3g}", max(ra, rb), cls)


def eval_loss_bound_fn(mod: ModuleType, case: dict) -> Outcome:
    """The module's loss_bound(alpha, beta, gamma) is bound (*) computed exactly (mpmath, 50
    digits, on the floats' binary values): never below it (unsafe side, refuted however
    small the gap), at most rtol 1e-12 above (the kernel nudges up by 2 ulps)."""
    eps, g = case["epsilon"], case["gamma"]
    ea, eb = _rule_value(case.get("rule", "alg3"), eps, g)
    alpha, beta = float(ea), float(eb)
    exact = _loss_bound_mp(alpha, beta, g)
    a = float(mod.loss_bound(alpha, beta, g))
    if not math.isfinite(a):
        return Outcome(False, float(exact), a, "loss_bound not finite", math.inf, "nonfinite",
                       -math.inf)
    with mpmath.workdps(50):
        gap = float((mpmath.mpf(a) - exact) / exact)
        below = mpmath.mpf(a) < exact
    if below:
        return Outcome(False, float(exact), a, f"loss_bound BELOW bound (*) (unsafe side; "
                       f"relative gap {gap:.3g}): refuted however small", abs(gap), "below",
                       min(gap, -1e-300))
    ok = gap <= 1e-12
    return Outcome(ok, float(exact), a, f"loss_bound(alpha={alpha!r}, beta={beta!r}, gamma={g!r})"
                   " vs bound (*) at 50 digits: never below, at most rtol 1e-12 above", gap,
                   "" if ok else "above", gap)


#: the snapping mitigation's documented design (kernels/gini/release.snap_grid): a clamp B, a
#: power of two with 1024/alpha <= B < 2048/alpha, and a grid step, a power of two with at
#: least 12 bits of headroom over the float resolution at the clamp (step >= 2^12 ulp(B)):
#: the float errors of g + s Z move a cell boundary by ~2 ulp(B), so they stay below
#: step/2048 only with that headroom (Mironov 2012, Section 5)
SNAP_MIN_HEADROOM_BITS = 12


def _is_pow2(v: float) -> bool:
    return v > 0 and math.isfinite(v) and math.frexp(v)[0] == 0.5


def eval_snap(mod: ModuleType, case: dict) -> Outcome:
    """snap_grid(alpha) follows the documented design (power-of-two clamp in
    [1024/alpha, 2048/alpha), power-of-two step with >= 12 bits of headroom over ulp(B)),
    and snap(y, B, step) returns, for every y, a multiple of step within [-B, B] nearest to
    clip(y, -B, B) (exact rational comparison)."""
    alpha = float(case["alpha"])
    clamp, step = (float(v) for v in mod.snap_grid(alpha))
    if not (_is_pow2(clamp) and Fraction(1024) / Fraction(alpha) <= Fraction(clamp)
            < Fraction(2048) / Fraction(alpha)):
        return Outcome(False, "power of two in [1024/alpha, 2048/alpha)", clamp,
                       f"clamp B = {clamp!r} for alpha = {alpha!r}", 1.0, "clamp")
    if not _is_pow2(step) or step < math.ulp(clamp) * 2.0**SNAP_MIN_HEADROOM_BITS:
        bits = math.log2(step / math.ulp(clamp)) if step > 0 else -math.inf
        return Outcome(False, f"power of two >= 2^{SNAP_MIN_HEADROOM_BITS} ulp(B)", step,
                       f"grid step {step!r} = 2^{bits:.3g} ulp(B): headroom below "
                       f"{SNAP_MIN_HEADROOM_BITS} bits (snapping ineffective)", 1.0, "headroom")
    ys = np.asarray(case["y"], dtype=np.float64) * clamp
    out = np.asarray(mod.snap(ys, clamp, step), dtype=np.float64)
    if out.shape != ys.shape:
        return Outcome(False, ys.shape, out.shape, "snap changed the shape", 1.0, "shape")
    fs, fb = Fraction(step), Fraction(clamp)
    for y, v in zip(ys.tolist(), out.tolist(), strict=True):
        fv = Fraction(v)
        fy = min(max(Fraction(y), -fb), fb)
        q = fv / fs
        if q.denominator != 1 or abs(fv) > fb or abs(fv - fy) > fs / 2:
            return Outcome(False, "nearest multiple of step in [-B, B]", v,
                           f"snap({y!r}) = {v!r} (B = {clamp!r}, step = {step!r})", 1.0,
                           "off-grid")
    return Outcome(True, None, None, f"alpha {alpha!r}: B = {clamp!r}, step = {step!r}, "
                   f"{len(ys)} values on the grid")


def eval_invalid(mod: ModuleType, case: dict) -> Outcome:
    """Invalid input must raise ValueError (dpaudit's InputError family derives from it):
    a kernel that silently computes on it returns a number with no privacy meaning."""
    fn = getattr(mod, case["fn"], None)
    if not callable(fn):
        return Outcome(True, None, None, f"{case['fn']} not provided")
    args = tuple(list(a) if isinstance(a, list) else a for a in case["args"])
    try:
        v = fn(*args)
    except ValueError:
        return Outcome(True, "ValueError", "ValueError", "rejected")
    return Outcome(False, "ValueError (InputError)", repr(v) if not isinstance(v, float) else v,
                   f"{case['fn']}{args!r} with {case['why']} was accepted", 1.0,
                   f"accepted-{case['fn']}")


def _dkw_bound(n: int, level: float = 1e-6) -> float:
    return math.sqrt(math.log(2 / level) / (2 * n))


def eval_release_sample(mod: ModuleType, case: dict) -> Outcome:
    """Draws of the shipped release, standardised by its *declared* (gini, scale), follow
    density (10) (DKW band at level 1e-6), and the declared gini is eq. (2) exactly (rtol
    1e-9): the release adds the noise it declares."""
    eps, g, n = case["epsilon"], case["gamma"], case["n"]
    vals, gini, scale = mod.release_sample(list(case["x"]), case["L"], case["U"], eps, g,
                                           np.random.default_rng(case["seed"]), n)
    vals = np.asarray(vals, dtype=np.float64)
    g_exact = float(ref.gini_eq2(case["x"]))
    if vals.shape != (n,) or not np.all(np.isfinite(vals)):
        return Outcome(False, f"{n} finite draws", f"shape {vals.shape}", "bad sample", 1.0,
                       "shape")
    if not _close(gini, g_exact):
        return Outcome(False, g_exact, gini, "declared gini is not eq. (2)", _relerr(gini, g_exact),
                       "gini")
    z = np.sort((vals - gini) / scale)
    qs = np.linspace(0.005, 0.995, 199)
    pts = np.array([float(ref.powerlaw_ppf(q, g)) for q in qs])
    # the released value may be clamped (snapping, post-processing): compare the cdf only
    # strictly inside the range of the draws, where clamping does not move it
    inside = (pts > z[0]) & (pts < z[-1])
    qs, pts = qs[inside], pts[inside]
    emp = np.searchsorted(z, pts, side="right") / n
    dev = float(np.max(np.abs(emp - qs)))
    t = _dkw_bound(n)
    return Outcome(dev <= t, f"sup |F_n - F| <= {t:.5f} (DKW, level 1e-6)", dev,
                   f"standardised draws vs density (10): max cdf deviation {dev:.5f}", dev / t,
                   "" if dev <= t else "noise-law")


def _ub_law(case: dict, x: list[float] | None = None, n: int | None = None) -> dict:
    return _ub_law_cached(tuple(x if x is not None else case["x"]), case["epsilon_count"],
                          case["epsilon_threshold"], case["start"], case["ratio"],
                          case["max_guess"], n)


@functools.lru_cache(maxsize=64)
def _ub_law_cached(x: tuple, e1: float, e2: float, start: float, ratio: float, mg: float,
                   n: int | None) -> dict:
    return above_threshold_law(list(x), e1, e2, start=start, ratio=ratio, max_guess=mg, n=n,
                               dps=20)


def eval_upper_bound(mod: ModuleType, case: dict) -> Outcome:
    """The shipped DP upper bound's output law equals the exact AboveThreshold law (every
    output's frequency within an exact two-sided binomial test, Bonferroni, family level
    1e-6; an output outside the support refutes), and that law is private: on replace-one
    neighbours (the largest record set to 0, the smallest to the largest guess) the exact
    max |log P(u) - log P'(u)| <= epsilon_threshold (n is public under replace-one)."""
    law = _ub_law(case)
    rng = np.random.default_rng(case["seed"])
    N = case["n"]
    draws = np.array([float(mod.dp_upper_bound(list(case["x"]), rng, case["epsilon_count"],
                                               case["epsilon_threshold"], case["start"],
                                               case["ratio"], case["max_guess"]))
                      for _ in range(N)])
    support = np.array(sorted(law))
    outside = ~np.isin(draws, support)
    if outside.any():
        return Outcome(False, "outputs in the support of the exact law",
                       float(draws[outside][0]), "output outside the support", 1.0, "support")
    level = 1e-6 / len(support)
    worst_p, worst_u = 1.0, None
    for u in support:
        c = int(np.count_nonzero(draws == u))
        p = float(law[float(u)])
        pv = float(stats.binomtest(c, N, min(max(p, 1e-300), 1.0)).pvalue)
        if pv < worst_p:
            worst_p, worst_u = pv, (float(u), c, p)
    if worst_p < level:
        return Outcome(False, {"U": worst_u[0], "probability": worst_u[2]},
                       {"frequency": worst_u[1] / N}, f"output law differs from the exact "
                       f"AboveThreshold law (binomial p = {worst_p:.3g} < {level:.3g})",
                       1.0 / max(worst_p, 1e-300), "law")
    xs = sorted(case["x"])
    eps_t = case["epsilon_threshold"]
    worst = 0.0
    for y in ([0.0, *xs[:-1]], [*xs[1:], float(case["max_guess"])]):
        worst = max(worst, above_threshold_max_log_ratio(law, _ub_law(case, y)))
    ok = worst <= eps_t
    return Outcome(ok, {"max_log_ratio_at_most": eps_t}, {"max_log_ratio": worst},
                   f"law matches (min binomial p {worst_p:.3g}); exact loss {worst:.4g} on "
                   "replace-one neighbours", worst / eps_t, "" if ok else "reference-loss")


def eval_dkw_sampler(mod: ModuleType, case: dict) -> Outcome:
    """Sampler goodness of fit by the Dvoretzky-Kiefer-Wolfowitz band (any n, exact level
    1e-6): draws of ``sample_noise`` vs density (10)'s exact quantiles."""
    g, n = case["gamma"], case["n"]
    draws = np.sort(np.asarray(mod.sample_noise(np.random.default_rng(case["seed"]), g, n)))
    qs = np.linspace(0.005, 0.995, 199)
    pts = np.array([float(ref.powerlaw_ppf(q, g)) for q in qs])  # exact quantiles
    emp = np.searchsorted(draws, pts, side="right") / n
    dev = float(np.max(np.abs(emp - qs)))
    t = math.sqrt(math.log(2 / 1e-6) / (2 * n))
    return Outcome(dev <= t, f"sup |F_n - F| <= {t:.5f} (DKW, level 1e-6)", dev,
                   f"max deviation {dev:.5f} at 199 reference quantiles", dev / t)


#: the quantile grid of ``noise.ppf.vs-reference``: the whole range, tails included
PPF_QS = (1e-300, 1e-200, 1e-100, 1e-50, 1e-20, 1e-10, 1e-5, 1e-3, 0.01, 0.1, 0.25, 0.4,
          0.49, 0.499999, 0.5, 0.500001, 0.51, 0.6, 0.75, 0.9, 0.99, 0.999, 1 - 1e-5,
          1 - 1e-10, 1 - 2.0**-52)
#: allowed error of the kernel quantile, in units of 2^-53 times the condition number
#: max(1, m / (|z| p(z))), m = min(q, 1 - q) (kernels/gini/noise.py documents <= 5 such
#: units measured; measured here on the grid: <= 3.1)
PPF_UNITS = 8.0


def ppf_cases(seed: int, mode: str) -> list[dict]:
    """Every (q, gamma) of the grid; ``full`` mode adds gamma 1.01, 3 and 20."""
    gammas = (1.2, 2.0, 8.0) if mode != "full" else (1.01, 1.2, 2.0, 3.0, 8.0, 20.0)
    return [{"q": q, "gamma": g} for g in gammas for q in PPF_QS]


def ppf_eval(mod: ModuleType, case: dict) -> Outcome:
    """The kernel's quantile against the 50-digit reference: within PPF_UNITS x 2^-53 x the
    condition number relative, or the right infinity where |quantile| > DBL_MAX."""
    q, g = case["q"], case["gamma"]
    exp = ref.powerlaw_ppf(q, g)
    act = float(np.asarray(mod.noise_ppf(np.array([q]), g)).ravel()[0])
    if abs(exp) > mpmath.mpf(sys.float_info.max):
        ok = math.isinf(act) and (act > 0) == (exp > 0)
        return Outcome(ok, f"{mpmath.nstr(exp, 6)} (beyond DBL_MAX: +-inf)", act,
                       "noise_ppf beyond the largest double", 0.0 if ok else math.inf)
    m = min(mpmath.mpf(q), 1 - mpmath.mpf(q))
    cond = (max(mpmath.mpf(1), m / (abs(exp) * ref.powerlaw_pdf(exp, g))) if exp != 0
            else mpmath.mpf(1))
    err = abs(mpmath.mpf(act) - exp) / (abs(exp) if exp != 0 else 1)
    units = float(err / (cond * mpmath.mpf(2) ** -53))
    return Outcome(units <= PPF_UNITS, float(exp), act,
                   f"noise_ppf vs mpmath: {units:.2g} units of 2^-53 x condition "
                   f"{float(cond):.3g} (allowed {PPF_UNITS:g})", units)
