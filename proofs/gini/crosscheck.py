"""Differential cross-checks of a kernel module against the exact reference and oracles.

Each :class:`CaseCheck` compares one protocol function with an independent truth on
generated inputs.  Inputs come from a hypothesis strategy (ties, zeros, L > 0, heavy tails,
n from 2 to thousands) plus fixed cases (the Section 3 toy and the built-in CPS sample);
``hypothesis.find`` searches for a failing input with a seeded ``random.Random`` and, when
one exists, shrinks it to a minimal one.  The failing input is then re-evaluated and stored
as a replayable counterexample (``dpaudit replay``).

Kinds of comparison (stated in every Finding's ``tolerance``):
* *optimum / value vs exact reference*: |actual - expected| <= atol + rtol |expected|;
* *one-sided (safety has a direction)*: upper bounds A^(k), the smooth sensitivity, the
  release's noise scale must never be below the exact value - compared exactly (Fraction or
  certified mpmath vs the float's exact binary value), so one ulp below is refuted - and at
  most rtol above it (the safe side keeps its tolerance).  The Finding states "never below
  the exact value: 0 of N below; largest gap above ...";
* *bound vs oracle*: one-sided, actual >= expected (1 - 1e-12) (the oracle's value is the
  exact truth or an exact lower bound on it).

Several counterexamples per check: after the first (shrunk) failure, the search is repeated
for failures of a *different class* (sign of the error, exception type, k = 0 / 1 / >= 2),
up to :data:`MAX_CLASSES` per check, so a trivial failure (e.g. a function that raises for
k = 0) does not mask another defect.  The first keeps the check's id; the others get
``<check id>.<class>``; every counterexample document names the check, so each replays.

Only the report layer prints; checks return Findings.
"""

from __future__ import annotations

import functools
import hashlib
import math
import random
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from types import ModuleType
from typing import Any

import mpmath
import numpy as np
from hypothesis import HealthCheck, Phase, find, settings
from hypothesis import strategies as st
from hypothesis.errors import NoSuchExample

from audit.findings import Finding, Method, Verdict, counterexample_document
from proofs.gini import oracles
from proofs.gini import reference as ref

__all__ = ["Context", "Outcome", "CaseCheck", "CHECKS", "check_by_id", "run_checks"]

RTOL = 1e-9
ATOL = 1e-12
ONE_SIDED_SLACK = 1e-12
#: most distinct failure classes (counterexamples) reported per check
MAX_CLASSES = 4
#: tolerance of the one-sided checks: nothing below the exact value, rtol above it
ONE_SIDED_TOL = {"below_exact_allowed": 0, "rtol_above": RTOL, "atol_above": ATOL}


@dataclass(frozen=True)
class Context:
    seed: int = 0
    mode: str = "quick"  # quick | full
    max_n: int = 3000  # subject's limit (DPAUDIT_MAX_N) or the default

    def examples(self, quick: int, full: int) -> int:
        return quick if self.mode == "quick" else full

    @property
    def big_n(self) -> int:
        return min(self.max_n, 200 if self.mode == "quick" else 3000)


@dataclass
class Outcome:
    ok: bool
    expected: Any
    actual: Any
    detail: str = ""
    err: float = 0.0  # relative error or one-sided shortfall (evidence)
    cls: str = ""  # failure class: below / above / mismatch / raised-<exception> ...
    gap: float | None = None  # one-sided checks: signed relative gap (actual - exact)/|exact|


def failure_class(case: dict, out: Outcome) -> str:
    """The class of a failure, for distinct counterexamples: the outcome's class (sign of
    the error, exception type) and, when the input has a k, k = 0 / 1 / >= 2."""
    base = out.cls or "mismatch"
    k = case.get("k") if isinstance(case, dict) else None
    if isinstance(k, int):
        base += "-k0" if k == 0 else ("-k1" if k == 1 else "-k2plus")
    return re.sub(r"[^a-z0-9._-]+", "-", base.lower()).strip("-") or "mismatch"


def _close(actual: float, expected: float, rtol: float = RTOL, atol: float = ATOL) -> bool:
    a, e = float(actual), float(expected)
    return math.isfinite(a) and abs(a - e) <= atol + rtol * abs(e)


def _relerr(actual: float, expected: float) -> float:
    a, e = float(actual), float(expected)
    if not math.isfinite(a):
        return math.inf
    return abs(a - e) / max(abs(e), 1e-300)


# ----------------------------------------------------------------------------- inputs


def _small_case() -> st.SearchStrategy[dict]:
    """n <= 7 on a grid: ties, zeros, L and U themselves, L > 0."""

    @st.composite
    def build(draw) -> dict:
        L = draw(st.sampled_from([0.0, 0.0, 1.0, 2.5]))
        width = draw(st.sampled_from([1.0, 3.0, 10.0]))
        n = draw(st.integers(2, 7))
        x = draw(st.lists(st.integers(0, 8), min_size=n, max_size=n))
        xs = [L + width * v / 8 for v in x]
        if sum(xs) == 0:
            xs[-1] = L + width
        k = draw(st.integers(0, n))
        return {"x": xs, "L": L, "U": L + width, "k": k}

    return build()


def _big_case(ctx: Context) -> st.SearchStrategy[dict]:
    """n up to ctx.big_n from seeded numpy families (heavy tails, ties, zeros)."""

    @st.composite
    def build(draw) -> dict:
        n = draw(st.integers(2, max(2, ctx.big_n)))
        family = draw(st.sampled_from(["lognormal", "pareto", "ints", "zeros", "uniform"]))
        s = draw(st.integers(0, 2**31 - 1))
        L = draw(st.sampled_from([0.0, 0.0, 100.0]))
        factor = draw(st.sampled_from([1.0, 1.5, 2.5]))
        g = np.random.default_rng(s)
        if family == "lognormal":
            v = g.lognormal(8, 1.2, n)
        elif family == "pareto":
            v = (g.pareto(1.3, n) + 1) * 1000
        elif family == "ints":
            v = g.integers(0, 20, n).astype(float) * 500
        elif family == "zeros":
            v = np.where(g.random(n) < 0.7, 0.0, g.lognormal(8, 1, n))
        else:
            v = g.uniform(0, 5000, n)
        v = np.round(v, 2) + L
        if v.sum() == 0:
            v[-1] = L + 1.0
        U = float(L + factor * (v.max() - L)) if v.max() > L else L + 1.0
        k = draw(st.integers(0, min(n, 40)))
        return {"x": [float(t) for t in v], "L": L, "U": U, "k": k}

    return build()


def _cases(ctx: Context, small_only: bool = False) -> st.SearchStrategy[dict]:
    if small_only or ctx.max_n <= 8:
        return _small_case()
    return st.one_of(_small_case(), _big_case(ctx))


TOY = {"x": [3.0, 6.0, 7.0, 7.5], "L": 0.0, "U": 10.0, "k": 1}


def _real_case(ctx: Context) -> list[dict]:
    """The built-in real CPS earnings sample (first 5,000 records in quick mode, all 61,395
    in full mode; never more than the subject's DPAUDIT_MAX_N), U = 2.5 max, k = 3."""
    from audit.datasets import load_sample

    x = load_sample()
    m = min(x.size, 5000 if ctx.mode == "quick" else x.size, ctx.max_n)
    if m < 2 or ctx.max_n <= 8:
        return []
    xs = [float(v) for v in x[:m]]
    return [{"x": xs, "L": 0.0, "U": 2.5 * max(xs), "k": 3}]


#: a pinned case where the second term of eq. (21) decides the bound: k = 0, the data at
#: the top of [L, U] - exact eq.-(21) term 0.5; with the factor 2 of that term dropped the
#: bound falls to 0.262 (a bug random data rarely exposes: elsewhere another term dominates)
TOP_HEAVY = {"x": [10.0, 10.0, 10.0, 10.0, 9.0], "L": 0.0, "U": 10.0, "k": 0}


def _describe_fixed(cases: list[dict]) -> str:
    names = []
    for c in cases:
        x = c.get("x") if isinstance(c, dict) else None
        if x == TOY["x"]:
            names.append("the Section 3 toy")
        elif x == TOP_HEAVY["x"]:
            names.append("the top-heavy eq.-(21) case")
        elif isinstance(x, list) and len(x) > 100:
            names.append("the built-in CPS sample")
        else:
            names.append("a pinned case")
    return ", ".join(names) or "none"


def _toy_and_real(ctx: Context) -> list[dict]:
    return [TOY, TOP_HEAVY, *_real_case(ctx)]


# ----------------------------------------------------------------------------- checks


@dataclass(frozen=True)
class CaseCheck:
    """A property of one or more protocol functions, checked on many inputs."""

    id: str
    claim: str
    reference: str
    method: Method
    needs: tuple[str, ...]
    evaluate: Callable[[ModuleType, dict], Outcome]
    strategy: Callable[[Context], st.SearchStrategy[dict]]
    examples: tuple[int, int] = (40, 300)
    tolerance: dict = field(default_factory=lambda: {"rtol": RTOL, "atol": ATOL})
    fixed: Callable[[Context], list[dict]] = _toy_and_real
    scope_note: str = ""
    domain: str = ""  # description of the input space; default: the data-set strategies

    def run(self, mod: ModuleType, subject: str, ctx: Context) -> Finding:
        """The check's main Finding (the first of :meth:`run_all`)."""
        return self.run_all(mod, subject, ctx)[0]

    def run_all(self, mod: ModuleType, subject: str, ctx: Context) -> list[Finding]:
        """One Finding if nothing fails; otherwise one per failure class (up to
        :data:`MAX_CLASSES`), the first with the check's own id."""
        t0 = time.perf_counter()
        seed = int(hashlib.sha256(f"{ctx.seed}:{self.id}".encode()).hexdigest()[:8], 16)
        missing = [n for n in self.needs if not callable(getattr(mod, n, None))]
        if missing:
            return [self._finding(
                subject,
                Verdict.INCONCLUSIVE,
                f"not applicable: subject does not provide {', '.join(missing)}",
                {"missing": missing},
                None,
                seed,
                t0,
            )]
        stats = {"cases": 0, "worst_err": 0.0, "sided": 0, "below": 0, "max_above": 0.0}

        def evaluate(case: dict) -> Outcome:
            stats["cases"] += 1
            out = _safe_eval(self.evaluate, mod, case)
            if out.ok:
                stats["worst_err"] = max(stats["worst_err"], out.err)
            if out.gap is not None:
                stats["sided"] += 1
                if out.gap < 0 or out.cls == "below":
                    stats["below"] += 1
                elif math.isfinite(out.gap):
                    stats["max_above"] = max(stats["max_above"], out.gap)
            return out

        n_examples = ctx.examples(*self.examples)
        found: dict[str, dict] = {}  # failure class -> first (shrunk) failing input

        def search(seen: frozenset[str], rnd: int) -> dict | None:
            def fails(case: dict) -> bool:
                out = evaluate(case)
                return (not out.ok) and failure_class(case, out) not in seen

            try:  # hypothesis shrinks what it finds to a minimal input
                return find(
                    self.strategy(ctx),
                    fails,
                    settings=settings(
                        max_examples=n_examples,
                        database=None,
                        deadline=None,
                        suppress_health_check=list(HealthCheck),
                        phases=[Phase.generate, Phase.shrink],
                    ),
                    random=random.Random(seed + rnd),
                )
            except NoSuchExample:
                return None

        first = search(frozenset(), 0)
        if first is not None:
            found[failure_class(first, _safe_eval(self.evaluate, mod, first))] = first
            for rnd in range(1, MAX_CLASSES):  # look for failures of other classes
                more = search(frozenset(found), rnd)
                if more is None:
                    break
                found.setdefault(failure_class(more, _safe_eval(self.evaluate, mod, more)), more)
        for case in self.fixed(ctx):  # pinned edge cases (paper examples)
            if len(found) >= MAX_CLASSES:
                break
            out = evaluate(case)
            if not out.ok:
                found.setdefault(failure_class(case, out), case)
        fixed = self.fixed(ctx)
        domain = self.domain or (
            f"data sets n in 2..{ctx.big_n if ctx.max_n > 8 else 7} (grid data n <= 7 with "
            "ties/zeros/L/U, and seeded lognormal/Pareto/integer/mostly-zero/uniform data), "
            "k in 0..min(n, 40), L in {0, 1, 2.5, 100}"
        )
        scope = (
            f"{stats['cases']} inputs evaluated (hypothesis search budget {n_examples}, seed "
            f"{seed}, plus {len(fixed)} fixed: {_describe_fixed(fixed)}); {domain}"
            f"{'; ' + self.scope_note if self.scope_note else ''}"
        )
        rounding = " beyond float rounding" if "exact_allowed_rtol" in str(self.tolerance) else ""
        evidence: dict[str, Any] = {
            "inputs_checked": stats["cases"],
            "worst_error_passing": _num(stats["worst_err"]),
        }
        if stats["sided"]:
            uns, saf = (("above", "below") if "above_exact_allowed_rtol" in self.tolerance
                        else ("below", "above"))
            evidence["one_sided"] = (
                f"never {uns} the exact value: {stats['below']} of {stats['sided']} {uns}"
                f"{rounding}; "
                f"largest gap {saf} {stats['max_above']:.3g} (relative)"
            )
            evidence["below_exact"] = stats["below"]
            evidence["largest_relative_gap_above"] = _num(stats["max_above"])
        if not found:
            # generated inputs (hypothesis + fixed cases), not an exhaustive search: a pass
            # is "not-refuted" over the inputs evaluated, never "verified"
            return [self._finding(subject, Verdict.NOT_REFUTED, scope, evidence, None, seed,
                                  t0)]
        evidence["failure_classes"] = sorted(found)
        out_findings = []
        for j, (cls, bad) in enumerate(found.items()):
            out = _safe_eval(self.evaluate, mod, bad)
            ev = {**evidence, "failure_class": cls, "detail": out.detail, "error": _num(out.err)}
            cx = counterexample_document(
                self.id, subject, bad, out.expected, out.actual, self.tolerance,
                f"failure class {cls}" + (f"; {out.detail}" if out.detail else ""),
            )
            f = self._finding(subject, Verdict.REFUTED, scope, ev, cx, seed, t0)
            if j:
                f.id = f"{self.id}.{cls}"
            out_findings.append(f)
        return out_findings

    def _finding(self, subject, verdict, scope, evidence, cx, seed, t0) -> Finding:
        return Finding(
            id=self.id,
            claim=self.claim,
            reference=self.reference,
            method=self.method,
            verdict=verdict,
            scope=scope,
            evidence=evidence,
            counterexample=cx,
            seed=seed,
            duration_s=time.perf_counter() - t0,
            subject=subject,
            tolerance=self.tolerance,
        )


def _num(v: float) -> float | str:
    return v if math.isfinite(v) else ("inf" if v > 0 else "-inf")


def _safe_eval(fn: Callable[[ModuleType, dict], Outcome], mod: ModuleType, case: dict) -> Outcome:
    try:
        return fn(mod, case)
    except Exception as exc:  # the subject raised on valid input: that is a failure
        return Outcome(False, "a value", f"{type(exc).__name__}: {exc}", "subject raised",
                       math.inf, f"raised-{type(exc).__name__}")


# --- evaluators (expected = exact reference or oracle; actual = subject) -------------


def _fr(v: Any) -> Fraction:
    return Fraction(v)


def _ref_ext(case: dict) -> dict:
    return ref.extremes(case["x"], case["L"], case["U"], k_max=case["k"])[case["k"]]


def _value_eval(
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


def _upper_eval(
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


def _extreme_eval(
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


def _one_sided_eval(
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


def _xkLU(name: str) -> Callable[[ModuleType, dict], Any]:
    return lambda m, c: getattr(m, name)(list(c["x"]), int(c["k"]), c["L"], c["U"])


def _ls_ball(case: dict) -> Fraction:
    x = [_fr(v) for v in case["x"]]
    L, U = _fr(case["L"]), _fr(case["U"])
    k = case["k"]
    if k == 0:
        return oracles.local_sensitivity(x, L, U)
    values = sorted({L, U, (L + U) / 2} | set(x))
    return oracles.ball_lower_bound_A(x, L, U, k, values)[0]


def _small_k01(ctx: Context) -> st.SearchStrategy[dict]:
    """Small data, k in {0, 1} (oracle cost grows fast with k)."""

    def cut(c: dict) -> dict:
        x = c["x"][:5]
        if sum(x) == 0:  # truncation may leave an all-zero (invalid) data set
            x[-1] = c["U"]
        return {**c, "k": min(c["k"], 1), "x": x}

    return _small_case().map(cut)


def _oracle_extreme(field_: str) -> Callable[[dict], Fraction]:
    idx = {"min_mean": 0, "max_mean": 1, "min_gini": 2, "max_gini": 3}[field_]

    def truth(case: dict) -> Fraction:
        x = [_fr(v) for v in case["x"]]
        return oracles.extremes_bruteforce(x, _fr(case["L"]), _fr(case["U"]), case["k"])[idx]

    return truth


def _smooth_case(ctx: Context) -> st.SearchStrategy[dict]:
    return st.tuples(_cases(ctx), st.sampled_from([0.01, 0.05, 0.2, 1.0])).map(
        lambda t: {**t[0], "beta": t[1], "x": t[0]["x"][: min(len(t[0]["x"]), 1000)]}
    )


def _smooth_expected(case: dict) -> Any:
    """Exact S(X) (mpmath, certified to 30 digits) at the float beta, converted exactly."""
    return ref.smooth_sensitivity(case["x"], case["L"], case["U"], _fr(case["beta"])).value


def _neighbour_case(ctx: Context) -> st.SearchStrategy[dict]:
    @st.composite
    def build(draw) -> dict:
        c = draw(_small_case())
        i = draw(st.integers(0, len(c["x"]) - 1))
        v = c["L"] + (c["U"] - c["L"]) * draw(st.integers(0, 8)) / 8
        beta = draw(st.sampled_from([0.05, 0.5, 2.0]))
        return {**c, "pos": i, "value": v, "beta": beta}

    return build()


def _eval_smoothness(mod: ModuleType, case: dict) -> Outcome:
    """Definition 2.1: S(X) >= LS(X) (exact) and S(X) <= e^beta S(X') for the neighbour."""
    x = list(case["x"])
    y = list(x)
    y[case["pos"]] = case["value"]
    if sum(y) == 0:
        return Outcome(True, None, None, "neighbour has total 0: skipped")
    b = case["beta"]
    sx = float(mod.smooth_sensitivity(x, case["L"], case["U"], b))
    sy = float(mod.smooth_sensitivity(y, case["L"], case["U"], b))
    ls = float(oracles.local_sensitivity([_fr(v) for v in x], _fr(case["L"]), _fr(case["U"])))
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


SMALL_DOMAIN = "grid data sets n in 2..7 (ties, zeros, L and U as values), L in {0, 1, 2.5}, all k"
NOISE_DOMAIN = (
    "z in [-50, 50] and {0, +-1e-8, +-0.3, 7, +-1e3, +-1e8}, "
    "gamma in {1.05, 1.5, 2, 3, 5, 10, 20}; truth: mpmath, two precisions"
)


def _noise_case(ctx: Context) -> st.SearchStrategy[dict]:
    z = st.one_of(
        st.floats(-50, 50, allow_nan=False),
        st.sampled_from([0.0, 1e-8, -1e-8, 1e3, -1e3, 1e8, -1e8, 7.0, -0.3]),
    )
    gamma = st.sampled_from([1.05, 1.5, 2.0, 3.0, 5.0, 10.0, 20.0])
    return st.tuples(z, gamma).map(lambda t: {"z": t[0], "gamma": t[1]})


def _noise_eval(name: str, fn: Callable[..., Any]) -> Callable[[ModuleType, dict], Outcome]:
    def ev(mod: ModuleType, case: dict) -> Outcome:
        exp = float(fn(case["z"], case["gamma"]))
        act = float(np.asarray(getattr(mod, name)(np.array([case["z"]]), case["gamma"])).ravel()[0])
        ok = _close(act, exp, 1e-12, 0.0)
        return Outcome(ok, exp, act, f"{name} vs mpmath (rtol 1e-12)", _relerr(act, exp))

    return ev


def _release_case(ctx: Context) -> st.SearchStrategy[dict]:
    return st.tuples(
        _cases(ctx), st.sampled_from([0.25, 1.0, 2.0]), st.sampled_from([1.5, 2.0, 4.0])
    ).map(
        lambda t: {
            **t[0],
            "epsilon": t[1],
            "gamma": t[2],
            "x": t[0]["x"][: min(len(t[0]["x"]), 1000)],
        }
    )


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


def _release_eval(mod: ModuleType, case: dict) -> Outcome:
    """release_scale vs the exact S(X)/alpha with the module's own (alpha, beta), both
    converted exactly: one-sided (a scale below the exact one adds too little noise)."""
    alpha, beta = module_constants(mod, case["epsilon"], case["gamma"])

    def exact(c: dict) -> Any:
        with mpmath.workdps(60):
            s = ref.smooth_sensitivity(c["x"], c["L"], c["U"], _fr(beta)).value
            return s / mpmath.mpf(alpha)

    return _upper_eval(
        "release_scale", exact,
        lambda m, c: m.release_scale(c["x"], c["L"], c["U"], c["epsilon"], c["gamma"]),
    )(mod, case)


def _neighbour_eval(mod: ModuleType, case: dict) -> Outcome:
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
        s_exact = ref.smooth_sensitivity(y, case["L"], case["U"], _fr(beta)).value / mpmath.mpf(
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


def _neighbour_ls_case(ctx: Context) -> st.SearchStrategy[dict]:
    return st.tuples(_release_case(ctx), st.integers(0, 10**6),
                     st.sampled_from([0.0, 1.0, 0.5, 0.25, 0.9]),
                     st.one_of(st.none(), st.integers(1, 10**6))).map(
        lambda t: {**t[0], "x": t[0]["x"][:300], "rank": t[1], "new_frac": t[2],
                   "new_is_record": t[3]})


def _posterior_cdf_mp(t: Any, gt: Any, sc: Any, gamma: float) -> Any:
    """P(g <= t | g~) = [F(g~/s) - F((g~-t)/s)] / [F(g~/s) - F((g~-1)/s)] (eq. 11 with a
    Uniform(0, 1) prior; F the cdf of density (10), mpmath at 30 digits)."""
    with mpmath.workdps(30):
        F = lambda z: ref.powerlaw_cdf(z, gamma, dps=30)  # noqa: E731
        top = F(gt / sc)
        return (top - F((gt - t) / sc)) / (top - F((gt - 1) / sc))


def _eval_posterior(mod: ModuleType, case: dict) -> Outcome:
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


def _posterior_case(ctx: Context) -> st.SearchStrategy[dict]:
    return st.tuples(st.sampled_from([0.1, 0.3, 0.5, 0.8, 1.2, -0.2]),
                     st.sampled_from([0.05, 0.2, 1.0]), st.sampled_from([1.5, 2.0, 4.0]),
                     st.sampled_from([0.5, 0.9, 0.95])).map(
        lambda t: {"g_tilde": t[0], "scale": t[1], "gamma": t[2], "level": t[3]})


def _release_clipped_eval(mod: ModuleType, case: dict) -> Outcome:
    """release_scale_clipped on the data with records added above U (and the order
    shuffled) vs the exact S(clip(X))/alpha: one-sided, as release.scale.vs-reference."""
    alpha, beta = module_constants(mod, case["epsilon"], case["gamma"])
    U, L = case["U"], case["L"]
    raw = [*case["x"], 1.5 * U + 1.0, 3.0 * U + 2.0]
    raw = raw[case["shift"] % len(raw):] + raw[: case["shift"] % len(raw)]
    clipped = [min(max(v, L), U) for v in raw]

    def exact(c: dict) -> Any:
        with mpmath.workdps(60):
            s = ref.smooth_sensitivity(clipped, L, U, _fr(beta)).value
            return s / mpmath.mpf(alpha)

    return _upper_eval(
        "release_scale_clipped", exact,
        lambda m, c: m.release_scale_clipped(raw, L, U, c["epsilon"], c["gamma"]),
    )(mod, case)


_DATA_FUNCS = ("gini", "gini_eq1", "min_mean", "max_mean", "min_gini", "max_gini", "bound_A",
               "bound_A_iq", "smooth_sensitivity", "release_scale")


def _data_args(name: str, xs: np.ndarray, case: dict) -> tuple:
    if name in ("gini", "gini_eq1"):
        return (xs,)
    if name == "smooth_sensitivity":
        return (xs, case["L"], case["U"], 0.2)
    if name == "release_scale":
        return (xs, case["L"], case["U"], 1.0, 2.0)
    return (xs, int(case["k"]), case["L"], case["U"])


def _eval_no_mutation(mod: ModuleType, case: dict) -> Outcome:
    """Every protocol function: must not modify its input array; data functions must not
    depend on the order of the records; the sampler and the DP upper bound must draw only
    from the generator they are given (same seed -> same draws, whatever numpy's global
    state)."""
    x = np.array(case["x"][:1000], dtype=np.float64)
    rng = np.random.default_rng(len(x))
    shuffled = x[rng.permutation(x.size)]
    before = shuffled.copy()
    problems = []
    for name in _DATA_FUNCS:
        fn = getattr(mod, name, None)
        if not callable(fn):
            continue
        args = _data_args(name, shuffled, case)
        val = float(fn(*args))
        if not np.array_equal(shuffled, before):
            problems.append(f"{name} modified its input")
            shuffled[:] = before
        val_sorted = float(fn(*((np.sort(x),) + args[1:])))
        if not _close(val, val_sorted, 1e-12, 1e-15):
            problems.append(f"{name} depends on input order: {val!r} vs sorted {val_sorted!r}")
    z = np.array([-3.0, -0.5, 0.0, 0.25, 7.0])
    for name in ("noise_pdf", "noise_cdf"):
        fn = getattr(mod, name, None)
        if callable(fn):
            zz = z.copy()
            fn(zz, 2.0)
            if not np.array_equal(zz, z):
                problems.append(f"{name} modified its input")
    draws = []
    for gseed in (1, 2):  # numpy's legacy global state must not matter
        np.random.seed(gseed)
        if callable(getattr(mod, "sample_noise", None)):
            draws.append(("sample_noise",
                          np.asarray(mod.sample_noise(np.random.default_rng(5), 2.0, 64))))
        if callable(getattr(mod, "dp_upper_bound", None)):
            xx = shuffled.copy()
            u = [mod.dp_upper_bound(xx, np.random.default_rng(5 + j), 0.5, 0.5, 1.0, 2.0, 2.0**20)
                 for j in range(8)]
            if not np.array_equal(xx, shuffled):
                problems.append("dp_upper_bound modified its input")
            us = [mod.dp_upper_bound(np.sort(x), np.random.default_rng(5 + j), 0.5, 0.5, 1.0,
                                     2.0, 2.0**20) for j in range(8)]
            if u != us:
                problems.append("dp_upper_bound depends on input order")
            draws.append(("dp_upper_bound", np.asarray(u, dtype=np.float64)))
        if callable(getattr(mod, "release_sample", None)):
            xx = shuffled.copy()
            v, _, _ = mod.release_sample(xx, case["L"], case["U"], 1.0, 2.0,
                                         np.random.default_rng(5), 16)
            if not np.array_equal(xx, shuffled):
                problems.append("release_sample modified its input")
            draws.append(("release_sample", np.asarray(v)))
    np.random.seed(None)
    half = len(draws) // 2
    for (name, d1), (_, d2) in zip(draws[:half], draws[half:], strict=True):
        if not np.array_equal(d1, d2, equal_nan=True):
            problems.append(f"{name}: same generator seed, different draws (it uses "
                            "randomness other than the generator it is given)")
    return Outcome(
        not problems,
        "inputs unchanged, order-independent, randomness only from the given generator",
        problems or "ok",
        "; ".join(problems),
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


def _eval_constants(mod: ModuleType, case: dict) -> Outcome:
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


def _eval_rule(mod: ModuleType, case: dict) -> Outcome:
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


def _eval_loss_bound_fn(mod: ModuleType, case: dict) -> Outcome:
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


def _loss_fn_case(ctx: Context) -> st.SearchStrategy[dict]:
    return st.tuples(_constants_case(ctx), st.sampled_from(["alg3", "section23"])).map(
        lambda t: {**t[0], "rule": t[1]})


#: the snapping mitigation's documented design (kernels/gini/release.snap_grid): a clamp B, a
#: power of two with 1024/alpha <= B < 2048/alpha, and a grid step, a power of two with at
#: least 12 bits of headroom over the float resolution at the clamp (step >= 2^12 ulp(B)):
#: the float errors of g + s Z move a cell boundary by ~2 ulp(B), so they stay below
#: step/2048 only with that headroom (Mironov 2012, Section 5)
SNAP_MIN_HEADROOM_BITS = 12


def _is_pow2(v: float) -> bool:
    return v > 0 and math.isfinite(v) and math.frexp(v)[0] == 0.5


def _eval_snap(mod: ModuleType, case: dict) -> Outcome:
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


def _snap_case(ctx: Context) -> st.SearchStrategy[dict]:
    ys = st.lists(st.one_of(st.floats(-3.0, 3.0, allow_nan=False),
                            st.sampled_from([0.0, 1.0, -1.0, 2.0**-40, 1.5 * 2.0**-40,
                                             0.5 * 2.0**-40, 1 / 9, 2 / 9, 1 / 7])),
                  min_size=1, max_size=12)
    return st.tuples(st.sampled_from([1e-3, 0.0625, 0.125, 0.3, 1.0, 2.0]), ys).map(
        lambda t: {"alpha": t[0], "y": t[1]})


_INVALID: list[tuple[str, tuple, str]] = [
    ("gini", ([-0.5, 1.0, 2.0],), "a negative income"),
    ("gini", ([1.0, -1e-300, 2.0],), "a tiny negative income"),
    ("gini", ([-3.0, 1.0, 4.0],), "a negative income below -1"),
    ("gini", ([float("nan"), 1.0, 2.0],), "NaN"),
    ("gini", ([float("inf"), 1.0],), "infinity"),
    ("gini", ([5.0],), "a single record"),
    ("gini", ([0.0, 0.0, 0.0],), "all-zero data (mean 0)"),
    ("gini_eq1", ([-0.5, 1.0, 2.0],), "a negative income"),
    ("min_mean", ([1.0, 2.0, 11.0], 1, 0.0, 10.0), "a record above U"),
    ("max_gini", ([1.0, 2.0, 10.5], 1, 0.0, 10.0), "a record above U"),
    ("bound_A", ([1.0, 2.0, 12.0], 1, 0.0, 10.0), "a record above U"),
    ("bound_A", ([1.0, 2.0, 19.0], 0, 0.0, 10.0), "a record above U (below 2U)"),
    ("bound_A", ([0.5, 2.0, 3.0], 1, 1.0, 10.0), "a record below L"),
    ("bound_A", ([1.0, 2.0, 3.0], 1, 5.0, 5.0), "L = U"),
    ("bound_A", ([1.0, 2.0, 3.0], 4, 0.0, 10.0), "k > n"),
    ("bound_A", ([1.0, 2.0, 3.0], -1, 0.0, 10.0), "k < 0"),
    ("smooth_sensitivity", ([1.0, 2.0, 15.0], 0.0, 10.0, 0.5), "a record above U"),
    ("release_scale", ([1.0, 2.0, 15.0], 0.0, 10.0, 1.0, 2.0), "a record above U"),
]


def _eval_invalid(mod: ModuleType, case: dict) -> Outcome:
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


def _invalid_cases(ctx: Context) -> list[dict]:
    return [{"fn": f, "args": a, "why": w} for f, a, w in _INVALID]


def _constants_case(ctx: Context) -> st.SearchStrategy[dict]:
    return st.tuples(st.sampled_from([0.01, 0.1, 0.5, 1.0, 2.0, 8.0]),
                     st.sampled_from([1.01, 1.05, 1.5, 2.0, 3.0, 5.0, 10.0, 20.0])).map(
        lambda t: {"epsilon": t[0], "gamma": t[1]})


def _dkw_bound(n: int, level: float = 1e-6) -> float:
    return math.sqrt(math.log(2 / level) / (2 * n))


def _eval_release_sample(mod: ModuleType, case: dict) -> Outcome:
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


_REL_DATA = [[3.0, 6.0, 7.0, 7.5], [float(v) for v in np.round(
    np.random.default_rng(11).lognormal(3, 1, 30), 2)]]


def _release_sample_case(ctx: Context) -> st.SearchStrategy[dict]:
    n = 100_000 if ctx.mode == "quick" else 400_000
    return st.tuples(st.sampled_from([0, 1]), st.sampled_from([0.5, 1.0, 4.0]),
                     st.sampled_from([1.5, 2.0, 4.0]), st.integers(0, 2**31 - 1)).map(
        lambda t: {"x": _REL_DATA[t[0]], "L": 0.0, "U": 10.0 if t[0] == 0 else
                   2.5 * max(_REL_DATA[1]), "epsilon": t[1], "gamma": t[2], "seed": t[3],
                   "n": n})


# ---------------------------------------------------------------- Section 5.1 upper bound
_UB_CASES = [
    {"x": [float(v) for v in np.round(np.random.default_rng(1).uniform(0, 100, 40), 2)],
     "epsilon_count": 0.5, "epsilon_threshold": 0.5, "start": 1.0, "ratio": 2.0,
     "max_guess": 4096.0},
    {"x": [float(v) for v in np.round(np.random.default_rng(2).lognormal(3, 1, 60), 2)],
     "epsilon_count": 0.075, "epsilon_threshold": 0.075, "start": 1.0, "ratio": 2.0,
     "max_guess": 2.0**20},
    # records equal to guesses start ratio^i: "records <= guess" vs "< guess" differ by whole
    # blocks of ties (a count-side bug random data never exposes)
    # (unequal budgets, so that swapping the count and threshold budgets changes the law)
    {"x": [4.0] * 10 + [16.0] * 20 + [32.0] * 10,
     "epsilon_count": 0.25, "epsilon_threshold": 1.5, "start": 1.0, "ratio": 2.0,
     "max_guess": 1024.0},
]


def _ub_law(case: dict, x: list[float] | None = None, n: int | None = None) -> dict:
    return _ub_law_cached(tuple(x if x is not None else case["x"]), case["epsilon_count"],
                          case["epsilon_threshold"], case["start"], case["ratio"],
                          case["max_guess"], n)


@functools.lru_cache(maxsize=64)
def _ub_law_cached(x: tuple, e1: float, e2: float, start: float, ratio: float, mg: float,
                   n: int | None) -> dict:
    from proofs.gini.mechanisms import above_threshold_law

    return above_threshold_law(list(x), e1, e2, start=start, ratio=ratio, max_guess=mg, n=n,
                               dps=20)


def _eval_upper_bound(mod: ModuleType, case: dict) -> Outcome:
    """The shipped DP upper bound's output law equals the exact AboveThreshold law (every
    output's frequency within an exact two-sided binomial test, Bonferroni, family level
    1e-6; an output outside the support refutes), and that law is private: on replace-one
    neighbours (the largest record set to 0, the smallest to the largest guess) the exact
    max |log P(u) - log P'(u)| <= epsilon_threshold (n is public under replace-one)."""
    from scipy import stats

    from proofs.gini.mechanisms import above_threshold_max_log_ratio

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


def _upper_bound_case(ctx: Context) -> st.SearchStrategy[dict]:
    n = 40_000 if ctx.mode == "quick" else 200_000
    return st.tuples(st.sampled_from([0, 1]), st.integers(0, 2**31 - 1)).map(
        lambda t: {**_UB_CASES[t[0]], "seed": t[1], "n": n})


def _dkw_check() -> CaseCheck:
    """Sampler goodness of fit by the Dvoretzky-Kiefer-Wolfowitz band (any n, exact level)."""

    def ev(mod: ModuleType, case: dict) -> Outcome:
        g, n = case["gamma"], case["n"]
        draws = np.sort(np.asarray(mod.sample_noise(np.random.default_rng(case["seed"]), g, n)))
        qs = np.linspace(0.005, 0.995, 199)
        pts = np.array([float(ref.powerlaw_ppf(q, g)) for q in qs])  # exact quantiles
        emp = np.searchsorted(draws, pts, side="right") / n
        dev = float(np.max(np.abs(emp - qs)))
        t = math.sqrt(math.log(2 / 1e-6) / (2 * n))
        return Outcome(
            dev <= t,
            f"sup |F_n - F| <= {t:.5f} (DKW, level 1e-6)",
            dev,
            f"max deviation {dev:.5f} at 199 reference quantiles",
            dev / t,
        )

    strat = st.tuples(st.sampled_from([1.2, 2.0, 3.0, 8.0]), st.integers(0, 2**31 - 1)).map(
        lambda t: {"gamma": t[0], "seed": t[1], "n": 200_000}
    )
    return CaseCheck(
        id="noise.sampler.dkw",
        claim="sample_noise draws from density (10) (Lan & Reiter eq. 10)",
        reference="Lan & Reiter 2025, eq. (10)",
        method=Method.EMPIRICAL,
        needs=("sample_noise",),
        evaluate=ev,
        strategy=lambda ctx: strat,
        examples=(3, 8),
        tolerance={"dkw_level": 1e-6, "n": 200_000},
        fixed=lambda ctx: [{"gamma": 2.0, "seed": ctx.seed, "n": 200_000}],
        scope_note="false-alarm probability <= 1e-6 per sample set (DKW); misses a "
        "density whose cdf differs by < ~0.0066 anywhere",
        domain="gamma in {1.2, 2, 3, 8}, 200,000 draws per sample set, cdf compared at 199 "
        "reference quantiles (mpmath)",
    )


def _mk(
    id_: str,
    claim: str,
    refstr: str,
    method: Method,
    needs: tuple[str, ...],
    ev: Callable[[ModuleType, dict], Outcome],
    strategy,
    **kw,
) -> CaseCheck:
    return CaseCheck(id_, claim, refstr, method, needs, ev, strategy, **kw)


def _extreme_tol(name: str) -> dict:
    unsafe = "below" if name.startswith("max") else "above"
    return {f"{unsafe}_exact_allowed_rtol": EXTREME_UNSAFE_RTOL,
            f"rtol_{'above' if unsafe == 'below' else 'below'}": RTOL, "atol": ATOL}


def _build_checks() -> list[CaseCheck]:
    C: list[CaseCheck] = []
    C.append(
        _mk(
            "gini.eq2.vs-reference",
            "gini(x) equals eq. (2) exactly (to float rounding)",
            "Lan & Reiter 2025, eq. (2)",
            Method.CROSSCHECK,
            ("gini",),
            _value_eval("gini", lambda c: ref.gini_eq2(c["x"]), lambda m, c: m.gini(c["x"])),
            _cases,
        )
    )
    C.append(
        _mk(
            "gini.eq1.vs-reference",
            "gini_eq1(x) equals eq. (1)",
            "Lan & Reiter 2025, eq. (1)",
            Method.CROSSCHECK,
            ("gini_eq1",),
            _value_eval(
                "gini_eq1", lambda c: ref.gini_eq1(c["x"]), lambda m, c: m.gini_eq1(c["x"])
            ),
            _cases,
        )
    )
    for name, what in (
        ("min_mean", "minimum mean"),
        ("max_mean", "maximum mean"),
        ("min_gini", "minimum eq.-(2) Gini"),
        ("max_gini", "maximum eq.-(2) Gini"),
    ):
        alg = {"min_gini": "Algorithm 1 / eq. (60)", "max_gini": "Algorithm 2 / eq. (59)"}.get(
            name, "Algorithm 3 (MinAve/MaxAve)"
        )
        C.append(
            _mk(
                f"extremes.{name.replace('_', '-')}.vs-reference",
                f"{name}(x, k, L, U) is the {what} over data sets at replacement distance k",
                f"Lan & Reiter 2025, {alg}",
                Method.CROSSCHECK,
                (name,),
                _extreme_eval(name, lambda c, f=name: _ref_ext(c)[f], _xkLU(name),
                              "above" if name.startswith("max") else "below"),
                _cases,
                tolerance=_extreme_tol(name),
            )
        )
        C.append(
            _mk(
                f"extremes.{name.replace('_', '-')}.vs-oracle",
                f"{name} equals the brute-force optimum over all replaced subsets (n <= 7)",
                f"Lan & Reiter 2025, {alg}",
                Method.EXHAUSTIVE,
                (name,),
                _extreme_eval(name, _oracle_extreme(name), _xkLU(name),
                              "above" if name.startswith("max") else "below"),
                lambda ctx: _small_case(),
                tolerance=_extreme_tol(name),
                examples=(40, 200),
                domain=SMALL_DOMAIN,
                fixed=lambda ctx: [TOY],
            )
        )
    C.append(
        _mk(
            "bound.thm43.vs-reference",
            "bound_A(x, k, L, U) equals eq. (23) (with (22) corrected) on the true extremes",
            "Lan & Reiter 2025, Theorem 4.3, eqs. (21)-(23)",
            Method.CROSSCHECK,
            ("bound_A",),
            _upper_eval(
                "bound_A",
                lambda c: ref.bound_A(
                    len(c["x"]),
                    _fr(c["L"]),
                    _fr(c["U"]),
                    *(_ref_ext(c)[f] for f in ("min_gini", "max_gini", "min_mean", "max_mean")),
                ),
                _xkLU("bound_A"),
            ),
            _cases,
            tolerance=ONE_SIDED_TOL
        )
    )
    C.append(
        _mk(
            "bound.thm44.vs-reference",
            "bound_A_iq(x, k, L, U) equals the Theorem 4.4-style bound (all four terms)",
            "Lan & Reiter 2025, Theorem 4.4, eq. (24)",
            Method.CROSSCHECK,
            ("bound_A_iq",),
            _upper_eval(
                "bound_A_iq",
                lambda c: ref.bound_A_iq(
                    len(c["x"]), sum(_fr(v) for v in c["x"]), _fr(c["L"]), _fr(c["U"]), c["k"]
                ),
                _xkLU("bound_A_iq"),
            ),
            _cases,
            tolerance=ONE_SIDED_TOL
        )
    )
    C.append(
        _mk(
            "bound.tight.vs-reference",
            "bound_A_tight(x, k, L, U) equals A_tight^(k) (k = 0: the exact local "
            "sensitivity), never below the exact value",
            "kernels/gini/tight.py (issue 18); exact reference proofs/gini/reference."
            "bound_A_tight (Fractions)",
            Method.CROSSCHECK,
            ("bound_A_tight",),
            _upper_eval(
                "bound_A_tight",
                lambda c: ref.bound_A_tight(c["x"], c["L"], c["U"], c["k"]),
                _xkLU("bound_A_tight"),
            ),
            lambda ctx: _cases(ctx).map(lambda c: {**c, "x": c["x"][:80],
                                                   "k": min(c["k"], len(c["x"][:80]))}),
            examples=(30, 150),
            fixed=lambda ctx: [TOY, TOP_HEAVY, {**TOY, "k": 0}],
            scope_note="n capped at 80",
            tolerance=ONE_SIDED_TOL
        )
    )
    for name, thm in (("bound_A", "Theorem 4.3"), ("bound_A_iq", "Theorem 4.4")):
        C.append(
            _mk(
                f"bound.{'thm43' if name == 'bound_A' else 'thm44'}.vs-oracle",
                f"{name} is an upper bound on A^(k): >= exact LS (k = 0) and >= the exact LS "
                "of every data set in a grid of the 1-ball (k = 1)",
                f"Lan & Reiter 2025, {thm}",
                Method.EXHAUSTIVE,
                (name,),
                _one_sided_eval(name, _ls_ball, _xkLU(name)),
                _small_k01,
                examples=(40, 150),
                tolerance={"one_sided_rel_slack": ONE_SIDED_SLACK},
                fixed=lambda ctx: [TOY],
                domain="grid data sets n in 2..5, k in {0, 1}; truth: exact LS (k = 0), "
                "max exact LS over the 1-ball with values {L, U, (L+U)/2} and the data",
            )
        )
    C.append(
        _mk(
            "smooth.vs-reference",
            "smooth_sensitivity = max_{k=0..n} e^{-beta k} A^(k) (eq. 8, Alg. 3), A^(k) eq. (23)",
            "Lan & Reiter 2025, eq. (8), Algorithm 3",
            Method.CROSSCHECK,
            ("smooth_sensitivity",),
            _upper_eval(
                "smooth_sensitivity",
                _smooth_expected,
                lambda m, c: m.smooth_sensitivity(c["x"], c["L"], c["U"], c["beta"]),
            ),
            _smooth_case,
            examples=(25, 150),
            fixed=lambda ctx: [{**c, "beta": 0.5} for c in _toy_and_real(ctx)],
            scope_note="beta in {0.01, 0.05, 0.2, 1}; n capped at 1000; reference value "
            "certified by two mpmath precisions",
            tolerance=ONE_SIDED_TOL
        )
    )
    C.append(
        _mk(
            "smooth.definition-2.1",
            "smooth_sensitivity is a beta-smooth upper bound: S >= LS and S(X) <= e^beta S(X')",
            "Lan & Reiter 2025, Definition 2.1",
            Method.EXHAUSTIVE,
            ("smooth_sensitivity",),
            _eval_smoothness,
            _neighbour_case,
            examples=(40, 200),
            domain="grid data sets n in 2..7 and a random replace-one neighbour, "
            "beta in {0.05, 0.5, 2}; LS exact",
            fixed=lambda ctx: [{**TOY, "pos": 0, "value": 10.0, "beta": 0.5}],
        )
    )
    C.append(
        _mk(
            "noise.pdf.vs-reference",
            "noise_pdf is density (10), normalised",
            "Lan & Reiter 2025, eq. (10)",
            Method.CROSSCHECK,
            ("noise_pdf",),
            _noise_eval("noise_pdf", ref.powerlaw_pdf),
            _noise_case,
            tolerance={"rtol": 1e-12, "atol": 0.0},
            fixed=lambda ctx: [{"z": 0.5, "gamma": 2.0}],
            domain=NOISE_DOMAIN,
        )
    )
    C.append(
        _mk(
            "noise.cdf.vs-reference",
            "noise_cdf is the cdf of density (10)",
            "Lan & Reiter 2025, eq. (10)",
            Method.CROSSCHECK,
            ("noise_cdf",),
            _noise_eval("noise_cdf", ref.powerlaw_cdf),
            _noise_case,
            tolerance={"rtol": 1e-12, "atol": 0.0},
            fixed=lambda ctx: [{"z": -3.0, "gamma": 2.0}],
            domain=NOISE_DOMAIN,
        )
    )
    C.append(_dkw_check())
    C.append(
        _mk(
            "release.scale.vs-reference",
            "release_scale = S(X)/alpha with the module's own (alpha, beta) (protocol "
            "noise_constants; default Alg. 3: alpha = eps/(4 gamma), beta = eps/(2(gamma+1))), "
            "never below the exact value",
            "Lan & Reiter 2025, eq. (9), Section 2.3, Algorithm 3",
            Method.CROSSCHECK,
            ("release_scale",),
            _release_eval,
            _release_case,
            examples=(20, 100),
            fixed=lambda ctx: [{**c, "epsilon": 1.0, "gamma": 2.0} for c in _toy_and_real(ctx)],
            scope_note="epsilon in {0.25, 1, 2}, gamma in {1.5, 2, 4}, n capped at 1000",
            tolerance=ONE_SIDED_TOL
        )
    )
    C.append(
        _mk(
            "release.scale-clipped.vs-reference",
            "release_scale_clipped = S(clip(X))/alpha: records outside [L, U] are clipped to "
            "the bounds before the release (the path of the release with a DP upper bound), "
            "never below the exact value",
            "Lan & Reiter 2025, Section 2.2, eq. (9), Algorithm 3",
            Method.CROSSCHECK,
            ("release_scale_clipped",),
            _release_clipped_eval,
            lambda ctx: st.tuples(_release_case(ctx), st.integers(0, 10**6)).map(
                lambda t: {**t[0], "x": t[0]["x"][:300], "shift": t[1]}),
            examples=(10, 60),
            fixed=lambda ctx: [{**c, "x": c["x"][:300], "epsilon": 1.0, "gamma": 2.0,
                                "shift": 1} for c in _toy_and_real(ctx)],
            scope_note="two records added above U (1.5 U + 1, 3 U + 2), order rotated; n "
            "capped at 302",
            tolerance=ONE_SIDED_TOL
        )
    )
    C.append(
        _mk(
            "constants.loss-bound",
            "the module's own (alpha, beta) (noise_constants) make the release epsilon-DP by "
            "bound (*): beta max(1, gamma-1) + alpha (gamma-1)^(1-1/gamma) <= epsilon, never above",
            "Lan & Reiter 2025, Section 2.3, Algorithm 3; kernels/gini/release.py bound (*)",
            Method.EXHAUSTIVE,
            ("noise_constants",),
            _eval_constants,
            _constants_case,
            examples=(48, 48),
            tolerance={"above_epsilon_allowed": 0},
            fixed=lambda ctx: [{"epsilon": 1.0, "gamma": 2.0}],
            domain="epsilon in {0.01, 0.1, 0.5, 1, 2, 8} x gamma in {1.01, 1.05, 1.5, 2, 3, 5, "
            "10, 20}; bound (*) at 50 digits (mpmath) on the constants' exact binary values",
        )
    )
    C.append(
        _mk(
            "constants.rule",
            "the module's (alpha, beta) are the rule it names (DPAUDIT_CONSTANTS_RULE: alg3, "
            "section23 or calibrated)",
            "Lan & Reiter 2025, Section 2.3, Algorithm 3 (alg3); kernels/gini/release.py",
            Method.EXHAUSTIVE,
            ("noise_constants",),
            _eval_rule,
            _constants_case,
            examples=(48, 48),
            tolerance={"rtol": 1e-15},
            fixed=lambda ctx: [{"epsilon": 1.0, "gamma": 2.0}],
            domain="epsilon in {0.01, 0.1, 0.5, 1, 2, 8} x gamma in {1.01, ..., 20}; rule "
            "formula at 50 digits",
            scope_note="passes trivially when the module names no rule",
        )
    )
    C.append(
        _mk(
            "release.sample.vs-declared",
            "the release adds the noise it declares: its draws, standardised by its declared "
            "(gini, scale), follow density (10), and the declared gini is eq. (2)",
            "Lan & Reiter 2025, eqs. (2), (9), (10)",
            Method.EMPIRICAL,
            ("release_sample",),
            _eval_release_sample,
            _release_sample_case,
            examples=(3, 8),
            tolerance={"dkw_level": 1e-6},
            fixed=lambda ctx: [{"x": _REL_DATA[1], "L": 0.0, "U": 2.5 * max(_REL_DATA[1]),
                                "epsilon": 1.0, "gamma": 2.0, "seed": ctx.seed,
                                "n": 100_000}],
            domain="the toy and a 30-record lognormal sample, epsilon in {0.5, 1, 4}, gamma in "
            "{1.5, 2, 4}; 100,000 draws per sample set (400,000 full)",
            scope_note="false-alarm probability <= 1e-6 per sample set (DKW); a noise scale "
            "off by a factor c moves the standardised cdf by far more than the band (~0.008)",
        )
    )
    C.append(
        _mk(
            "upper-bound.law-and-privacy",
            "the Section 5.1 DP upper bound (AboveThreshold) draws from the exact law of its "
            "specification, and that law is epsilon_threshold-DP on replace-one neighbours",
            "Lan & Reiter 2025, Section 5.1; Dwork & Roth 2014, Algorithm 1 (AboveThreshold)",
            Method.EMPIRICAL,
            ("dp_upper_bound",),
            _eval_upper_bound,
            _upper_bound_case,
            examples=(1, 4),
            tolerance={"binomial_family_level": 1e-6},
            fixed=lambda ctx: [{**_UB_CASES[1], "seed": ctx.seed,
                                "n": 40_000 if ctx.mode == "quick" else 200_000},
                               {**_UB_CASES[2], "seed": ctx.seed,
                                "n": 10_000 if ctx.mode == "quick" else 100_000}],
            domain="40 uniform records (epsilon 0.5 + 0.5), 60 lognormal records (the "
            "paper's 0.075 + 0.075) and 40 records tied at guesses 4, 16, 32 (epsilon 0.25 + "
            "1.5; 10,000 draws, 100,000 full), guesses 2^i; 40,000 draws (200,000 full); exact "
            "law by "
            "mpmath quadrature (20 digits)",
            scope_note="false-alarm probability <= 1e-6 per sample set",
        )
    )
    C.append(
        _mk(
            "constants.loss-bound-function",
            "loss_bound(alpha, beta, gamma) is bound (*) beta max(1, gamma-1) + alpha "
            "(gamma-1)^(1-1/gamma), never below it",
            "Lan & Reiter 2025, Section 2.3; kernels/gini/release.py bound (*)",
            Method.EXHAUSTIVE,
            ("loss_bound",),
            _eval_loss_bound_fn,
            _loss_fn_case,
            examples=(96, 96),
            tolerance={"below_exact_allowed": 0, "rtol_above": 1e-12},
            fixed=lambda ctx: [{"epsilon": 1.0, "gamma": g, "rule": "alg3"}
                               for g in (1.5, 2.0, 4.0)],
            domain="epsilon in {0.01, 0.1, 0.5, 1, 2, 8} x gamma in {1.01, ..., 20} x rule "
            "{alg3, section23} (alpha, beta as floats); bound (*) at 50 digits (mpmath)",
        )
    )
    C.append(
        _mk(
            "release.snap.grid-and-clamp",
            "the snapped release's grid follows its documented design (power-of-two clamp B "
            "in [1024/alpha, 2048/alpha), power-of-two step >= 2^12 ulp(B)) and snap returns "
            "the nearest grid point to the clamped value",
            "kernels/gini/release.snap_grid/snap (Mironov 2012, Section 5, adapted)",
            Method.CROSSCHECK,
            ("snap_grid", "snap"),
            _eval_snap,
            _snap_case,
            examples=(30, 150),
            tolerance={"min_headroom_bits": SNAP_MIN_HEADROOM_BITS, "snap_error": "step/2"},
            fixed=lambda ctx: [{"alpha": 0.125, "y": [2 / 9, 1 / 7, -1.5, 1.0, 2.0**-41]}],
            domain="alpha in {1e-3, 0.0625, 0.125, 0.3, 1, 2}; up to 12 values y B with y in "
            "[-3, 3] and tie points; exact rational comparison",
        )
    )
    C.append(
        _mk(
            "neighbour.fast-path.vs-reference",
            "the fast path that searches replace-one neighbours (protocol "
            "neighbour_location_scale) gives each neighbour's g(X') and S(X')/alpha",
            "Lan & Reiter 2025, eqs. (2), (8), (23); kernels/gini/neighbour.py",
            Method.CROSSCHECK,
            ("neighbour_location_scale",),
            _neighbour_eval,
            _neighbour_ls_case,
            examples=(20, 100),
            fixed=lambda ctx: [{**c, "x": c["x"][:300], "epsilon": 1.0, "gamma": 2.0,
                                "rank": r, "new_frac": f, "new_is_record": None}
                               for c in _toy_and_real(ctx)[:2] for r, f in ((0, 0.0),
                                                                          (2, 1.0))],
            scope_note="neighbour = sorted x with one rank replaced by L, U, a point between "
            "or another record; n capped at 300",
        )
    )
    C.append(
        _mk(
            "release.posterior.interval",
            "posterior_interval(g~, s, gamma, level) is the central credible interval of g "
            "under a Uniform(0, 1) prior: its ends have posterior cdf (1 -+ level)/2",
            "Lan & Reiter 2025, eq. (11)",
            Method.CROSSCHECK,
            ("posterior_interval",),
            _eval_posterior,
            _posterior_case,
            examples=(8, 40),
            tolerance={"cdf_atol": 1e-6},
            fixed=lambda ctx: [{"g_tilde": 0.4, "scale": 0.1, "gamma": 2.0, "level": 0.95}],
            domain="g~ in {-0.2, 0.1, 0.3, 0.5, 0.8, 1.2}, s in {0.05, 0.2, 1}, gamma in {1.5, "
            "2, 4}, level in {0.5, 0.9, 0.95}; exact cdf by mpmath (30 digits)",
        )
    )
    C.append(
        _mk(
            "input.rejects-invalid",
            "every protocol function rejects invalid input with ValueError (InputError): "
            "negative / non-finite incomes, fewer than 2 records, zero mean, records outside "
            "[L, U], L >= U, k outside 0..n",
            "DESIGN.md (bad input rules); kernels/validate.py",
            Method.EXHAUSTIVE,
            ("gini",),
            _eval_invalid,
            lambda ctx: st.sampled_from(_invalid_cases(ctx)),
            examples=(len(_INVALID), len(_INVALID)),
            tolerance={"must_raise": "ValueError"},
            fixed=_invalid_cases,
            domain=f"{len(_INVALID)} pinned invalid inputs (each also drawn at random)",
        )
    )
    C.append(
        _mk(
            "input.no-mutation-order-free",
            "no protocol function modifies its input; data functions do not depend on the "
            "records' order; the sampler, the release and the DP upper bound draw only from "
            "the generator they are given",
            "DESIGN.md, kernels are pure functions",
            Method.CROSSCHECK,
            ("gini",),
            _eval_no_mutation,
            _cases,
            examples=(20, 100),
        )
    )
    return C


CHECKS: list[CaseCheck] = _build_checks()


def check_by_id(check_id: str) -> CaseCheck:
    for c in CHECKS:
        if c.id == check_id:
            return c
    raise KeyError(f"unknown check id {check_id!r}; known: {', '.join(c.id for c in CHECKS)}")


def run_checks(
    mod: ModuleType,
    subject: str,
    ctx: Context,
    *,
    only: Callable[[CaseCheck], bool] | None = None,
    on_finding: Callable[[int, int, Finding], None] | None = None,
    stop_on_refute: bool = False,
) -> list[Finding]:
    """Run every (selected) check; ``on_finding(i, total, finding)`` after each one."""
    selected = [c for c in CHECKS if only is None or only(c)]
    out: list[Finding] = []
    for i, c in enumerate(selected, 1):
        got = c.run_all(mod, subject, ctx)
        out.extend(got)
        if on_finding is not None:
            for f in got:
                on_finding(i, len(selected), f)
        if stop_on_refute and any(f.verdict == Verdict.REFUTED for f in got):
            break
    return out
