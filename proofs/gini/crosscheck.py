"""Differential cross-checks of a kernel module against the exact reference and oracles.

Each :class:`CaseCheck` compares one protocol function with an independent truth on
generated inputs.  Inputs come from a hypothesis strategy (ties, zeros, L > 0, heavy tails,
n from 2 to thousands) plus fixed cases (the Section 3 toy and the built-in CPS sample);
``hypothesis.find`` searches for a failing input with a seeded ``random.Random`` and, when
one exists, shrinks it to a minimal one.  The failing input is then re-evaluated and stored
as a replayable counterexample (``dpaudit replay``).

Kinds of comparison (stated in every Finding's ``tolerance``):
* *optimum / value vs exact reference*: |actual - expected| <= atol + rtol |expected|;
* *bound vs oracle*: one-sided, actual >= expected (1 - 1e-12) (the oracle's value is the
  exact truth or an exact lower bound on it).

Only the report layer prints; checks return Findings.
"""

from __future__ import annotations

import hashlib
import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction
from types import ModuleType
from typing import Any

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


def _toy_and_real(ctx: Context) -> list[dict]:
    return [TOY, *_real_case(ctx)]


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
        t0 = time.perf_counter()
        seed = int(hashlib.sha256(f"{ctx.seed}:{self.id}".encode()).hexdigest()[:8], 16)
        missing = [n for n in self.needs if not callable(getattr(mod, n, None))]
        if missing:
            return self._finding(
                subject,
                Verdict.INCONCLUSIVE,
                f"not applicable: subject does not provide {', '.join(missing)}",
                {"missing": missing},
                None,
                seed,
                t0,
            )
        stats = {"cases": 0, "worst_err": 0.0}

        def fails(case: dict) -> bool:
            stats["cases"] += 1
            out = _safe_eval(self.evaluate, mod, case)
            if out.ok:
                stats["worst_err"] = max(stats["worst_err"], out.err)
            return not out.ok

        n_examples = ctx.examples(*self.examples)
        bad: dict | None = None
        try:  # search first: hypothesis shrinks what it finds to a minimal input
            bad = find(
                self.strategy(ctx),
                fails,
                settings=settings(
                    max_examples=n_examples,
                    database=None,
                    deadline=None,
                    suppress_health_check=list(HealthCheck),
                    phases=[Phase.generate, Phase.shrink],
                ),
                random=random.Random(seed),
            )
        except NoSuchExample:
            for case in self.fixed(ctx):  # pinned edge cases (paper examples)
                if fails(case):
                    bad = case
                    break
        domain = self.domain or (
            f"data sets n in 2..{ctx.big_n if ctx.max_n > 8 else 7} (grid data n <= 7 with "
            "ties/zeros/L/U, and seeded lognormal/Pareto/integer/mostly-zero/uniform data), "
            "k in 0..min(n, 40), L in {0, 1, 2.5, 100}"
        )
        scope = (
            f"{stats['cases']} inputs evaluated (hypothesis search budget {n_examples}, seed "
            f"{seed}, plus {len(self.fixed(ctx))} fixed: the Section 3 toy"
            f"{' and the built-in CPS sample' if len(self.fixed(ctx)) > 1 else ''}); {domain}"
            f"{'; ' + self.scope_note if self.scope_note else ''}"
        )
        evidence: dict[str, Any] = {
            "inputs_checked": stats["cases"],
            "worst_error_passing": _num(stats["worst_err"]),
        }
        if bad is None:
            return self._finding(subject, Verdict.VERIFIED, scope, evidence, None, seed, t0)
        out = _safe_eval(self.evaluate, mod, bad)
        evidence.update({"detail": out.detail, "error": _num(out.err)})
        cx = counterexample_document(
            self.id, subject, bad, out.expected, out.actual, self.tolerance, out.detail
        )
        return self._finding(subject, Verdict.REFUTED, scope, evidence, cx, seed, t0)

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
        return Outcome(False, "a value", f"{type(exc).__name__}: {exc}", "subject raised", math.inf)


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
        return Outcome(
            ok,
            expected,
            actual,
            f"{name}: |actual-expected| vs rtol {RTOL}",
            _relerr(actual, expected),
        )

    return ev


def _one_sided_eval(
    name: str, truth: Callable[[dict], Any], call: Callable[[ModuleType, dict], Any]
) -> Callable[[ModuleType, dict], Outcome]:
    def ev(mod: ModuleType, case: dict) -> Outcome:
        t = float(truth(case))
        a = float(call(mod, case))
        ok = math.isfinite(a) and a >= t * (1 - ONE_SIDED_SLACK)
        short = max(0.0, (t - a) / max(abs(t), 1e-300)) if math.isfinite(a) else math.inf
        return Outcome(ok, t, a, f"{name} must be >= exact truth {t!r}", short)

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


def _smooth_expected(case: dict) -> float:
    return ref.smooth_sensitivity(case["x"], case["L"], case["U"], _fr(case["beta"])).value_float


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


def _release_expected(case: dict) -> float:
    eps, g = _fr(case["epsilon"]), _fr(case["gamma"])
    beta = eps / (2 * (g + 1))
    alpha = eps / (4 * g)
    s = ref.smooth_sensitivity(case["x"], case["L"], case["U"], beta).value
    return float(s * alpha.denominator / alpha.numerator)


def _eval_no_mutation(mod: ModuleType, case: dict) -> Outcome:
    """Functions must not modify their input array, and must not depend on its order."""
    x = np.array(case["x"], dtype=np.float64)
    rng = np.random.default_rng(len(x))
    shuffled = x[rng.permutation(x.size)]
    before = shuffled.copy()
    problems = []
    for name in ("gini", "min_gini", "max_gini", "bound_A"):
        fn = getattr(mod, name, None)
        if fn is None:
            continue
        args = (shuffled,) if name == "gini" else (shuffled, int(case["k"]), case["L"], case["U"])
        val = float(fn(*args))
        if not np.array_equal(shuffled, before):
            problems.append(f"{name} modified its input")
            shuffled[:] = before
        sorted_args = (np.sort(x),) + args[1:]
        val_sorted = float(fn(*sorted_args))
        if not _close(val, val_sorted, 1e-12, 1e-15):
            problems.append(f"{name} depends on input order: {val!r} vs sorted {val_sorted!r}")
    return Outcome(
        not problems,
        "input unchanged, order-independent",
        problems or "ok",
        "; ".join(problems),
        0.0 if not problems else 1.0,
    )


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
                _value_eval(name, lambda c, f=name: _ref_ext(c)[f], _xkLU(name)),
                _cases,
            )
        )
        C.append(
            _mk(
                f"extremes.{name.replace('_', '-')}.vs-oracle",
                f"{name} equals the brute-force optimum over all replaced subsets (n <= 7)",
                f"Lan & Reiter 2025, {alg}",
                Method.EXHAUSTIVE,
                (name,),
                _value_eval(name, _oracle_extreme(name), _xkLU(name)),
                lambda ctx: _small_case(),
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
            _value_eval(
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
        )
    )
    C.append(
        _mk(
            "bound.thm44.vs-reference",
            "bound_A_iq(x, k, L, U) equals the Theorem 4.4-style bound (all four terms)",
            "Lan & Reiter 2025, Theorem 4.4, eq. (24)",
            Method.CROSSCHECK,
            ("bound_A_iq",),
            _value_eval(
                "bound_A_iq",
                lambda c: ref.bound_A_iq(
                    len(c["x"]), sum(_fr(v) for v in c["x"]), _fr(c["L"]), _fr(c["U"]), c["k"]
                ),
                _xkLU("bound_A_iq"),
            ),
            _cases,
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
            _value_eval(
                "smooth_sensitivity",
                _smooth_expected,
                lambda m, c: m.smooth_sensitivity(c["x"], c["L"], c["U"], c["beta"]),
            ),
            _smooth_case,
            examples=(25, 150),
            fixed=lambda ctx: [{**c, "beta": 0.5} for c in _toy_and_real(ctx)],
            scope_note="beta in {0.01, 0.05, 0.2, 1}; n capped at 1000; reference value "
            "certified by two mpmath precisions",
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
            "release_scale = S(X)/alpha with alpha = eps/(4 gamma), beta = eps/(2(gamma+1))",
            "Lan & Reiter 2025, eq. (9), Section 2.3, Algorithm 3",
            Method.CROSSCHECK,
            ("release_scale",),
            _value_eval(
                "release_scale",
                _release_expected,
                lambda m, c: m.release_scale(c["x"], c["L"], c["U"], c["epsilon"], c["gamma"]),
            ),
            _release_case,
            examples=(20, 100),
            fixed=lambda ctx: [{**c, "epsilon": 1.0, "gamma": 2.0} for c in _toy_and_real(ctx)],
            scope_note="epsilon in {0.25, 1, 2}, gamma in {1.5, 2, 4}, n capped at 1000",
        )
    )
    C.append(
        _mk(
            "input.no-mutation-order-free",
            "kernels neither modify their input nor depend on its order",
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
        f = c.run(mod, subject, ctx)
        out.append(f)
        if on_finding is not None:
            on_finding(i, len(selected), f)
        if stop_on_refute and f.verdict == Verdict.REFUTED:
            break
    return out
