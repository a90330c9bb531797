"""``dpaudit regress`` for the Liu subject: a kernel module implementing
:data:`kernels.global_sensitivity.protocol.PROTOCOL` (default
:mod:`kernels.global_sensitivity.api`) against exact references and the exact privacy loss
of its Laplace releases.

Checks (each on the engine runner, :mod:`audit.checks.kernel`):

* ``liu.stat.<statistic>`` - the statistic on Fraction records equals an independent exact
  formula (sums of powers: variance = (n S2 - S1^2)/(n(n-1)), each covariance variable
  centred on its own mean, pooled statistics cell by cell), exhaustively on small grids;
* ``liu.release.<statistic>.<def1|def2>`` - the heart: the shipped release of the statistic
  (``laplace_release`` of the kernel's value with the kernel's ``exact_gs``) is
  epsilon-DP on every neighbour pair of a finite grid under Def 1 (replace one) and Def 2
  (add/remove one).  The scale it really uses is *measured* by a scripted generator
  (:class:`audit.checks.probe.ScriptedGenerator`, z = 1 on value 0), so the exact loss of
  the pair is ||T(x) - T(x')||_1 / b (Laplace with a common scale; the sup over outputs is
  attained), with T the kernel's exact Fraction value; one-sided, decided exactly (any
  amount above epsilon refutes);
* ``liu.float.<statistic>`` - variance, covariance and the pooled statistics on float
  records shifted by a large offset are within the two-pass (centred) error bound of the
  exact value of those floats (Chan, Golub & LeVeque 1983; Higham 2002, Section 1.9): an
  uncentred or wrongly centred formula cancels catastrophically;
* ``liu.input.rejects-invalid`` - labels outside 0..k-1, k < 1, non-0/1 proportions and too
  few records are refused with ValueError (InputError);
* ``liu.scale.rounded-up`` - ``laplace_scale(gs, eps) >= gs/eps`` exactly (never one ulp
  below), at most 4 ulps above;
* ``liu.truncated.law`` - ``truncated_laplace`` draws are the inverse cdf of the Laplace law
  conditioned on [lo, hi] (mpmath) on the same uniforms, regenerated from the seed;
* ``liu.clip.vs-exact`` / ``liu.rescale.vs-exact`` - the bounding constraints.

Neighbours: Def 2 data sets x (n records) and x minus one record, n the larger size, as the
supplement states; n, the cell sizes and k are treated as public (the supplement's
convention; whether they may be is the subject's claim ``gs.private-quantities``).  Grid
scopes are finite: exhaustive, exact comparisons say ``verified`` for that scope only (the
supremum over real-valued records is the subject's proofs' job).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterator, Sequence
from fractions import Fraction as F
from typing import Any

import mpmath
import numpy as np

from audit.checks.kernel import KernelCheck, KernelSuite, Listed, Outcome
from audit.checks.probe import ScriptedGenerator
from audit.findings import Method
from kernels.global_sensitivity.protocol import PROTOCOL

__all__ = ["CHECKS", "SUITE"]

REF = "Liu, supplement (shared/papers/liu-laplace-bounding-constraints-supplement.md)"
DEF1, DEF2 = "replace-one", "add-remove-one"
RELATIONS = {"def1": DEF1, "def2": DEF2}
EPSILONS = (1.0, 0.3, 0.7)


# ------------------------------------------------------------------ exact references
def ref_mean(xs: Sequence[F]) -> F:
    return sum(xs, F(0)) / len(xs)


def ref_variance(xs: Sequence[F]) -> F:
    n = len(xs)
    s1, s2 = sum(xs, F(0)), sum((x * x for x in xs), F(0))
    return (n * s2 - s1 * s1) / (n * (n - 1))


def _cross(pts: Sequence[tuple[F, F]]) -> F:
    """n * sum(x y) - sum(x) sum(y): n times the centred sum of products."""
    n = len(pts)
    return (n * sum((x * y for x, y in pts), F(0))
            - sum((x for x, _ in pts), F(0)) * sum((y for _, y in pts), F(0)))


def ref_covariance(pts: Sequence[tuple[F, F]]) -> F:
    n = len(pts)
    return _cross(pts) / (n * (n - 1))


def ref_pooled_variance(cells: Sequence[Sequence[F]]) -> F:
    n, J = sum(len(c) for c in cells), len(cells)
    return sum((_cross([(x, x) for x in c]) / len(c) for c in cells), F(0)) / (n - J)


def ref_pooled_covariance(cells: Sequence[Sequence[tuple[F, F]]]) -> F:
    n, J = sum(len(c) for c in cells), len(cells)
    return sum((_cross(c) / len(c) for c in cells), F(0)) / (n - J)


def ref_histogram(labels: Sequence[int], k: int) -> list[int]:
    return [sum(1 for v in labels if v == j) for j in range(k)]


def ref_proportion_vector(labels: Sequence[int], k: int) -> list[F]:
    return [F(c, len(labels)) for c in ref_histogram(labels, k)]


# ------------------------------------------------------------------ statistic specs
class Stat:
    """How to call a statistic, its exact reference, and its data-set families."""

    def __init__(self, name: str, fn: str, ref: Callable[..., Any], vector: bool = False,
                 pooled: bool = False, labels: bool = False, pairs: bool = False,
                 bits: bool = False) -> None:
        self.name, self.fn, self.ref = name, fn, ref
        self.vector, self.pooled, self.labels, self.pairs = vector, pooled, labels, pairs
        self.bits = bits

    def call(self, mod: Any, data: Any, k: int | None) -> Any:
        f = getattr(mod, self.fn)
        return f(list(data), k) if self.labels else f(data)

    def truth(self, data: Any, k: int | None) -> Any:
        return self.ref(list(data), k) if self.labels else self.ref(data)


STATS: dict[str, Stat] = {s.name: s for s in (
    Stat("mean", "mean", ref_mean),
    Stat("proportion", "proportion", lambda b: F(sum(b), len(b)), bits=True),
    Stat("histogram", "histogram", ref_histogram, vector=True, labels=True),
    Stat("proportion-vector", "proportion_vector", ref_proportion_vector, vector=True,
         labels=True),
    Stat("variance", "variance", ref_variance),
    Stat("covariance", "covariance", ref_covariance, pairs=True),
    Stat("pooled-variance", "pooled_variance", ref_pooled_variance, pooled=True),
    Stat("pooled-covariance", "pooled_covariance", ref_pooled_covariance, pooled=True,
         pairs=True),
)}

#: the univariate grids (records at both bounds, the middle and a third)
RANGES: tuple[tuple[F, F], ...] = ((F(0), F(1)), (F(-1), F(2)))
PAIR_GRID = [(F(a), F(b)) for a in (0, F(1, 2), 1) for b in (0, 1)]
#: the pooled-covariance grid (the four corners)
CORNERS = [(F(0), F(0)), (F(1), F(1)), (F(1), F(0)), (F(0), F(1))]


def _grid(lo: F, hi: F) -> list[F]:
    return [lo, lo + (hi - lo) / 3, (lo + hi) / 2, hi]


def _multisets(values: Sequence[Any], n: int) -> Iterator[tuple]:
    return itertools.combinations_with_replacement(values, n)


def _families(stat: Stat) -> list[dict]:
    """The finite scopes: one case per (size / cell sizes, range, k)."""
    out: list[dict] = []
    if stat.pooled:
        for sizes in ((2, 2), (2, 3)):
            out.append({"sizes": list(sizes), "lo": F(0), "hi": F(1)})
    elif stat.labels:
        for k in (2, 3):
            for n in (2, 3, 4):
                out.append({"n": n, "k": k})
    elif stat.bits:
        for n in (2, 3, 4, 5):
            out.append({"n": n})
    elif stat.pairs:
        for n in (3, 4):
            out.append({"n": n, "lo": F(0), "hi": F(1)})
    else:
        for lo, hi in RANGES:
            for n in (3, 4):
                out.append({"n": n, "lo": lo, "hi": hi})
    return out


def _datasets(stat: Stat, fam: dict) -> Iterator[Any]:
    if stat.pooled:
        vals = _values(stat, fam)
        per_cell = [list(_multisets(vals, m)) for m in fam["sizes"]]
        for cells in itertools.product(*per_cell):
            yield [list(c) for c in cells]
    elif stat.labels:
        yield from _multisets(range(fam["k"]), fam["n"])
    elif stat.bits:
        yield from _multisets((0, 1), fam["n"])
    elif stat.pairs:
        yield from _multisets(PAIR_GRID, fam["n"])
    else:
        yield from _multisets(_grid(fam["lo"], fam["hi"]), fam["n"])


def _values(stat: Stat, fam: dict) -> list[Any]:
    if stat.pooled:
        return CORNERS if stat.pairs else [fam["lo"], (fam["lo"] + fam["hi"]) / 2, fam["hi"]]
    if stat.labels:
        return list(range(fam["k"]))
    if stat.bits:
        return [0, 1]
    if stat.pairs:
        return PAIR_GRID
    return _grid(fam["lo"], fam["hi"])


def _neighbours(stat: Stat, fam: dict, data: Any, relation: str) -> Iterator[Any]:
    """Def 1: one record replaced by a grid value (pooled: within its cell); Def 2: one
    record removed."""
    vals = _values(stat, fam)
    if stat.pooled:
        for j, cell in enumerate(data):
            for i in range(len(cell)):
                rest = cell[:i] + cell[i + 1:]
                if relation == DEF2:
                    yield [c if jj != j else rest for jj, c in enumerate(data)]
                else:
                    for v in vals:
                        yield [c if jj != j else [*rest, v] for jj, c in enumerate(data)]
        return
    d = list(data)
    for i in range(len(d)):
        rest = d[:i] + d[i + 1:]
        if relation == DEF2:
            yield rest
        else:
            for v in vals:
                yield [*rest, v]


def _l1(a: Any, b: Any) -> F:
    if isinstance(a, list):
        return sum((abs(F(x) - F(y)) for x, y in zip(a, b, strict=True)), F(0))
    return abs(F(a) - F(b))


def _gs_kwargs(stat: Stat, fam: dict) -> dict:
    kw: dict[str, Any] = {}
    if stat.pooled:
        kw["sizes"] = fam["sizes"]
    else:
        kw["n"] = fam["n"]
    if "lo" in fam:
        kw.update(lo=fam["lo"], hi=fam["hi"])
    if stat.pairs:
        kw.update(lo2=F(0), hi2=F(1))
    if stat.labels:
        kw["k"] = fam["k"]
    return kw


def _scales(mod: Any, gs: Any, eps: float, dim: int) -> list[float]:
    """The scale of every coordinate the release really uses: value 0, scripted z = 1."""
    zero: Any = 0.0 if dim == 0 else [0.0] * dim
    out = np.asarray(mod.laplace_release(zero, gs, eps, ScriptedGenerator(z=1.0), 1),
                     dtype=np.float64)
    return [float(v) for v in out.ravel()]


def _ev_release(stat: Stat, relation: str) -> Callable[[Any, dict], Outcome]:
    def ev(mod: Any, case: dict) -> Outcome:
        fam, eps = case["family"], case["epsilon"]
        k = fam.get("k")
        gs = mod.exact_gs(stat.name, relation, **_gs_kwargs(stat, fam))
        dim = fam["k"] if stat.vector else 0
        b = _scales(mod, gs, eps, dim)
        if any(not (math.isfinite(v) and v > 0) for v in b) or len(b) != max(1, dim):
            return Outcome(False, "one positive scale per coordinate", b, "bad scale", 1.0,
                           "scale")
        worst, at, sup = F(0), None, F(0)
        for data in _datasets(stat, fam):
            tx = stat.call(mod, data, k)
            for nb in _neighbours(stat, fam, data, relation):
                ty = stat.call(mod, nb, k)
                if stat.vector:
                    diffs = [abs(F(x) - F(y)) for x, y in zip(tx, ty, strict=True)]
                    loss = sum((d / F(bi) for d, bi in zip(diffs, b, strict=True)), F(0))
                    dist = sum(diffs, F(0))
                else:
                    dist = _l1(tx, ty)
                    loss = dist / F(b[0])
                sup = max(sup, dist)
                if loss > worst:
                    worst, at = loss, {"x": data, "x'": nb}
        e = F(eps)
        gap = float((e - worst) / e)
        exp = {"loss_at_most": eps}
        act = {"exact_loss": float(worst), "gs": str(gs), "grid_sup": str(sup),
               "scale": b[0], "worst_pair": str(at)}
        if worst > e:
            return Outcome(False, exp, act, f"exact loss {float(worst)!r} > epsilon {eps!r} on "
                           f"{at} (GS {gs}, grid sup {sup}, scale {b[0]!r})", float(-gap),
                           "above-epsilon" if F(gs) >= sup else "gs-below-sup", min(gap, -1e-300))
        return Outcome(True, exp, act, f"exact loss {float(worst):.6g} <= epsilon", 0.0, "", gap)

    return ev


def _release_cases(stat: Stat) -> Callable[[int, str], list]:
    def make(seed: int, mode: str) -> list:
        return [{"family": fam, "epsilon": e} for fam in _families(stat) for e in EPSILONS]

    return make


def _ev_stat(stat: Stat) -> Callable[[Any, dict], Outcome]:
    def ev(mod: Any, case: dict) -> Outcome:
        fam, k = case["family"], case["family"].get("k")
        for data in _datasets(stat, fam):
            for d in (data, *_neighbours(stat, fam, data, DEF2)):
                if (stat.name in ("variance", "covariance") and len(d) < 2) or (
                        stat.pooled and sum(map(len, d)) - len(d) < 1):
                    continue
                want, got = stat.truth(d, k), stat.call(mod, d, k)
                same = ([F(x) for x in got] == want if stat.vector
                        else isinstance(got, (int, F)) and F(got) == want)
                if not same:
                    return Outcome(False, str(want), str(got), f"{stat.name} of {d}", 1.0,
                                   "mismatch")
        return Outcome(True, None, None, "all equal")

    return ev


def _stat_cases(stat: Stat) -> Callable[[int, str], list]:
    def make(seed: int, mode: str) -> list:
        return [{"family": fam} for fam in _families(stat)]

    return make


# ------------------------------------------------------- float records, bad input
#: unit roundoff of binary64
U64 = F(1, 2**53)
#: the large common offsets of the float families (two-pass centring must absorb them)
OFFSETS = (1e8, -3e7, 12345.678)
FLOAT_GRID = (0.0, 1 / 3, 0.5, 0.7, 1.0)


def _gamma(k: int) -> F:
    """gamma_k = k u / (1 - k u) (Higham 2002, Lemma 3.1)."""
    return k * U64 / (1 - k * U64)


def _centred_tol(pts: Sequence[tuple[float, float]]) -> F:
    """Forward-error bound of the two-pass centred sum of products
    sum_i (x_i - xbar)(y_i - ybar) in binary64 (means by recursive summation, then n
    rounded subtractions, products and a recursive sum): with dx, dy bounds on the error of
    the computed means, gamma_{n+3} sum_i (|x_i - xbar| + dx)(|y_i - ybar| + dy) + n dx dy
    (the term n dx dy is exact: sum_i (x_i - xbar) = 0).  Chan, Golub & LeVeque 1983
    (two-pass algorithm); Higham 2002, Section 1.9 and Lemma 3.1."""
    n = len(pts)
    xs, ys = [F(x) for x, _ in pts], [F(y) for _, y in pts]
    mx, my = sum(xs, F(0)) / n, sum(ys, F(0)) / n
    dx = _gamma(n + 1) * max(abs(v) for v in xs)
    dy = _gamma(n + 1) * max(abs(v) for v in ys)
    spread = sum(((abs(x - mx) + dx) * (abs(y - my) + dy) for x, y in zip(xs, ys, strict=True)),
                 F(0))
    return _gamma(n + 3) * spread + n * dx * dy


def _float_families(stat: Stat) -> Iterator[tuple[Any, F, F]]:
    """(float data, exact value of the statistic on those floats, error bound) for the
    float family of ``stat``: small data sets shifted by a large offset."""
    for off in OFFSETS:
        if stat.name == "variance":
            for n in (3, 4):
                for d in _multisets(FLOAT_GRID, n):
                    xs = [off + v for v in d]
                    pts = [(x, x) for x in xs]
                    want = ref_variance([F(x) for x in xs])
                    yield xs, want, (_centred_tol(pts) / (n - 1) * (1 + 2 * U64)
                                     + 2 * U64 * abs(want))
        elif stat.name == "covariance":
            grid = [(a, b) for a in (0.0, 0.5, 1.0) for b in (0.1, 0.7)]
            for n in (3, 4):
                for d in _multisets(grid, n):
                    pts = [(a, off + b) for a, b in d]
                    want = ref_covariance([(F(a), F(b)) for a, b in pts])
                    yield pts, want, (_centred_tol(pts) / (n - 1) * (1 + 2 * U64)
                                    + 2 * U64 * abs(want))
        else:  # pooled: two cells (2, 3 records), each shifted by the offset
            cells_grid = list(_multisets(FLOAT_GRID[:4], 2)), list(_multisets(FLOAT_GRID[1:], 3))
            for c1 in cells_grid[0]:
                for c2 in cells_grid[1]:
                    if stat.pairs:
                        cells = [[(v, off + 1 - v) for v in c1], [(v, off + v) for v in c2]]
                    else:
                        cells = [[off + v for v in c1], [off + v for v in c2]]
                    pc = [c if stat.pairs else [(x, x) for x in c] for c in cells]
                    exact_cells = [[(F(a), F(b)) for a, b in c] for c in pc]
                    want = (ref_pooled_covariance(exact_cells) if stat.pairs else
                            ref_pooled_variance([[a for a, _ in c] for c in exact_cells]))
                    n, J = sum(map(len, cells)), len(cells)
                    tol = (sum((_centred_tol(c) for c in pc), F(0)) * (1 + _gamma(J + 1))
                           / (n - J) * (1 + 2 * U64) + 2 * U64 * abs(want))
                    yield cells, want, tol


def _ev_float(stat: Stat) -> Callable[[Any, dict], Outcome]:
    def ev(mod: Any, case: dict) -> Outcome:
        worst, at = F(0), None
        count = 0
        for data, want, tol in _float_families(stat):
            got = stat.call(mod, data, None)
            count += 1
            if not isinstance(got, float) or not math.isfinite(got):
                return Outcome(False, float(want), repr(got), f"{stat.name} of float records "
                               f"{data} is not a finite float", 1.0, "type")
            ratio = abs(F(got) - want) / tol if tol > 0 else (F(0) if F(got) == want
                                                              else F(10**9))
            if ratio > worst:
                worst, at = ratio, (data, float(want), got)
        ok = worst <= 1
        return Outcome(ok, "error <= the two-pass bound", {"worst_error_over_bound":
                                                            float(worst)},
                       f"{count} float data sets; worst error / bound = {float(worst):.3g}"
                       + ("" if ok else f" on {at[0]} (exact {at[1]!r}, kernel {at[2]!r})"),
                       float(worst), "" if ok else "inaccurate", float(1 - worst))

    return ev


#: (function, arguments) that every kernel must refuse with ValueError (InputError)
INVALID: tuple[tuple[str, tuple], ...] = (
    ("histogram", ([0, 1, 2], 2)),        # label k (one past the last category)
    ("histogram", ([0, -1], 2)),          # negative label
    ("histogram", ([0, 5], 3)),
    ("histogram", ([0], 0)),              # no category
    ("proportion_vector", ([0, 2], 2)),
    ("proportion_vector", ([1, 3, 0], 3)),
    ("proportion_vector", ([], 2)),       # no record
    ("proportion", ([0, 2],)),            # not 0/1
    ("mean", ([],)),
    ("variance", ([F(1)],)),              # divisor n - 1 = 0
    ("covariance", ([(F(0), F(1))],)),
    ("pooled_variance", ([[F(1)]],)),     # n - J = 0
    ("pooled_variance", ([],)),
    ("pooled_covariance", ([[(F(0), F(1))], [(F(1), F(0))]],)),
)


def _ev_invalid(mod: Any, case: dict) -> Outcome:
    fn, args = case["function"], case["args"]
    try:
        v = getattr(mod, fn)(*args)
    except ValueError:
        return Outcome(True, "ValueError", "ValueError", "rejected")
    except Exception as exc:  # noqa: BLE001 - the wrong exception is the finding
        return Outcome(False, "ValueError (InputError)", f"{type(exc).__name__}: {exc}",
                       f"{fn}{args!r} raised {type(exc).__name__}, not a clear input error",
                       1.0, "wrong-exception")
    return Outcome(False, "ValueError (InputError)", repr(v), f"{fn}{args!r} accepted",
                   1.0, "accepted")


def _invalid_cases(seed: int, mode: str) -> list:
    return [{"function": f, "args": a} for f, a in INVALID]


# --------------------------------------------------------------- scale, truncation
def _scale_cases(seed: int, mode: str) -> list:
    gss = [F(1, n) for n in range(1, 41)] + [F(2, 3), F(5, 7), F(3, 10), F(9, 4)]
    return [{"gs": g, "epsilon": e} for g in gss for e in (0.1, 0.3, 0.7, 1.0, 1.1, 3.0)]


def _ev_scale(mod: Any, case: dict) -> Outcome:
    gs, eps = F(case["gs"]), case["epsilon"]
    b = float(mod.laplace_scale(gs, eps))
    exact = gs / F(eps)
    if not math.isfinite(b):
        return Outcome(False, float(exact), b, "not finite", math.inf, "nonfinite", -math.inf)
    gap = float((F(b) - exact) / exact)
    if F(b) < exact:
        return Outcome(False, float(exact), b, f"scale BELOW GS/epsilon = {float(exact)!r} "
                       f"(relative {gap:.3g}): refuted however small", -gap, "below",
                       min(gap, -1e-300))
    ok = F(b) <= exact * (1 + F(4, 2**52))
    return Outcome(ok, float(exact), b, "never below GS/epsilon, at most 4 ulps above", gap,
                   "" if ok else "above", gap)


ROWS = 200


def _ev_truncated(mod: Any, case: dict) -> Outcome:
    mu, s, lo, hi = case["value"], case["scale"], case["lo"], case["hi"]
    out = np.asarray(mod.truncated_laplace(mu, s, lo, hi, np.random.default_rng(case["seed"]),
                                           ROWS), dtype=np.float64)
    u = np.random.default_rng(case["seed"]).random(ROWS)
    with mpmath.workdps(40):
        m, b = mpmath.mpf(mu), mpmath.mpf(s)

        def cdf(y: Any) -> Any:
            z = (y - m) / b
            return mpmath.exp(z) / 2 if z < 0 else 1 - mpmath.exp(-z) / 2

        def ppf(p: Any) -> Any:
            return m + b * mpmath.log(2 * p) if p < 0.5 else m - b * mpmath.log(2 * (1 - p))

        flo, fhi = cdf(mpmath.mpf(lo)), cdf(mpmath.mpf(hi))
        exp = [float(min(max(ppf(flo + (fhi - flo) * mpmath.mpf(float(ui))), lo), hi))
               for ui in u]
    if out.shape != (ROWS,):
        return Outcome(False, f"shape ({ROWS},)", f"shape {out.shape}", "output shape", 1.0,
                       "shape")
    tol = 1e-9 * (hi - lo)
    bad = [i for i in range(ROWS) if not abs(out[i] - exp[i]) <= tol]
    if bad:
        i = bad[0]
        return Outcome(False, exp[i], float(out[i]), f"{len(bad)} of {ROWS} draws differ from "
                       f"the conditioned inverse cdf (first: draw {i}, u = {u[i]!r})", 1.0,
                       "law")
    return Outcome(True, "all draws equal", "all draws equal", f"{ROWS} draws replayed")


def _trunc_cases(seed: int, mode: str) -> list:
    g = np.random.default_rng(seed + 41)
    return [{"value": v, "scale": s, "lo": 0.0, "hi": 1.0, "seed": int(g.integers(2**31))}
            for v in (0.2, 0.5, 1.3, -0.4) for s in (0.1, 1.0, 5.0)]


def _ev_clip(mod: Any, case: dict) -> Outcome:
    y, lo, hi = case["y"], case["lo"], case["hi"]
    got = [float(v) for v in np.asarray(mod.clip(np.array(y), lo, hi)).ravel()]
    want = [min(max(v, lo), hi) for v in y]
    return Outcome(got == want, want, got, "clip to [lo, hi]", 0.0 if got == want else 1.0)


def _clip_cases(seed: int, mode: str) -> list:
    ys = [-2.0, -1e-300, 0.0, 0.25, 1.0, 1.0 + 2**-52, 7.5]
    return [{"y": ys, "lo": lo, "hi": hi} for lo, hi in ((0.0, 1.0), (-1.0, 0.5), (0.25, 7.5))]


def _ev_rescale(mod: Any, case: dict) -> Outcome:
    y = case["y"]
    got = [float(v) for v in np.asarray(mod.rescale_proportions(np.array(y, dtype=float)))]
    pos = [max(F(v), F(0)) for v in y]
    tot = sum(pos, F(0))
    want = [p / tot for p in pos] if tot > 0 else [F(1, len(y))] * len(y)
    if not all(math.isfinite(g) for g in got):
        return Outcome(False, [float(w) for w in want], got, "non-finite proportion", 1.0,
                       "nonfinite")
    ok = len(got) == len(want) and all(abs(F(g) - w) <= F(1, 2**50) * max(w, F(1, 2**20))
                                       for g, w in zip(got, want, strict=False))
    return Outcome(ok, [float(w) for w in want], got, "negatives to 0, divided by the sum",
                   0.0 if ok else 1.0)


def _rescale_cases(seed: int, mode: str) -> list:
    vals = (-0.5, 0.0, 0.25, 0.5, 1.0)
    return [{"y": list(t)} for k in (1, 2, 3) for t in itertools.product(vals, repeat=k)]


# ------------------------------------------------------------------------ the table
def _scope(stat: Stat) -> str:
    if stat.pooled:
        what = ("cell sizes (2, 2), (2, 3); records on the corners of [0, 1]^2" if stat.pairs
                else "cell sizes (2, 2), (2, 3); records on {0, 1/2, 1}")
    elif stat.labels:
        what = "k in 2..3 categories, n in 2..4 labels"
    elif stat.bits:
        what = "0/1 records, n in 2..5"
    elif stat.pairs:
        what = "n in 3..4 points on {0, 1/2, 1} x {0, 1}"
    else:
        what = "n in 3..4 records on {lo, lo + R/3, (lo+hi)/2, hi}, [lo, hi] = [0, 1], [-1, 2]"
    return f"every data set on the grid: {what}"


def _build() -> list[KernelCheck]:
    C: list[KernelCheck] = []
    for stat in STATS.values():
        C.append(KernelCheck(
            f"liu.stat.{stat.name}",
            f"the kernel's {stat.name} is the supplement's statistic (exact on Fractions)",
            f"{REF}, Sections 1-5", Method.EXHAUSTIVE, (stat.fn,), _ev_stat(stat),
            Listed(_stat_cases(stat), exhaustive=True), {"exact": True},
            scope=_scope(stat) + " and each of their one-record removals; exact Fractions vs "
            "an independent formula (sums of powers, each variable centred on its own mean)",
            must_hold=True))
    for name in ("variance", "covariance", "pooled-variance", "pooled-covariance"):
        stat = STATS[name]
        C.append(KernelCheck(
            f"liu.float.{name}",
            f"the kernel's {name} on float records is accurate to the two-pass (centred) "
            "error bound of the exact value, also with a large common offset",
            "Chan, Golub & LeVeque 1983 (two-pass algorithm); Higham 2002, Accuracy and "
            f"Stability of Numerical Algorithms, Section 1.9, Lemma 3.1; {REF}, Sections 2-5",
            Method.EXHAUSTIVE, (stat.fn,), _ev_float(stat),
            Listed(lambda seed, mode: [{}], exhaustive=True), {"bound": "two-pass, gamma_n"},
            scope="every data set of 3..4 records on a 5-value grid (pooled: cells of 2 and "
            "3), shifted by 1e8, -3e7 and 12345.678 (covariance: the second variable only); "
            "exact value of the float inputs in Fractions; error bound per data set",
            must_hold=True))
    C.append(KernelCheck(
        "liu.input.rejects-invalid",
        "every statistic rejects invalid input with ValueError (InputError): labels outside "
        "0..k-1 (k itself, negative), k < 1, non-0/1 proportions, too few records",
        f"DESIGN.md (bad input rules); {REF}, Section 1 (categories 0..K-1)",
        Method.EXHAUSTIVE, ("histogram", "proportion_vector", "proportion", "mean",
                            "variance", "covariance", "pooled_variance", "pooled_covariance"),
        _ev_invalid, Listed(_invalid_cases, exhaustive=True), {"must_raise": "ValueError"},
        scope=f"{len(INVALID)} pinned invalid inputs", must_hold=True))
    for stat in STATS.values():
        for tag, rel in RELATIONS.items():
            C.append(KernelCheck(
                f"liu.release.{stat.name}.{tag}",
                f"the shipped Laplace release of the {stat.name} (kernel statistic, kernel "
                f"exact_gs, laplace_release) is epsilon-DP under {tag.replace('def', 'Def ')} "
                f"({rel})",
                f"{REF}, Sections 1-5 and title (Laplace mechanism with l1 GS)",
                Method.EXACT_LOSS, (stat.fn, "exact_gs", "laplace_release"),
                _ev_release(stat, rel), Listed(_release_cases(stat), exhaustive=True),
                {"loss_above_epsilon_allowed": 0}, one_sided="below",
                scope=_scope(stat) + f", every {tag.replace('def', 'Def ')} neighbour on the "
                f"grid, epsilon in {{{', '.join(map(str, EPSILONS))}}}; scale measured with a "
                "scripted generator (z = 1); exact loss ||T(x) - T(x')||_1 / b in Fractions; n, "
                "cell sizes and k public",
                must_hold=True, bound_name="epsilon", report_tightest=True))
    C.append(KernelCheck(
        "liu.scale.rounded-up",
        "laplace_scale(gs, epsilon) is never below GS/epsilon (rounded up), at most 4 ulps "
        "above", f"{REF}, Laplace mechanism scale GS/epsilon; kernels/global_sensitivity/"
        "releases.laplace_scale", Method.EXHAUSTIVE, ("laplace_scale",), _ev_scale,
        Listed(_scale_cases, exhaustive=True), {"below_exact_allowed": 0, "ulps_above": 4},
        one_sided="above", scope="GS in {1/1, ..., 1/40, 2/3, 5/7, 3/10, 9/4} x epsilon in "
        "{0.1, 0.3, 0.7, 1, 1.1, 3}; exact rational comparison", must_hold=True))
    C.append(KernelCheck(
        "liu.truncated.law",
        "truncated_laplace draws T + Lap(scale) conditioned on [lo, hi] (inverse cdf of the "
        "conditioned law on the generator's uniforms)",
        f"{REF}, Section 6 (truncation; procedure as assumed in kernels/global_sensitivity/"
        "releases.py)", Method.CROSSCHECK, ("truncated_laplace",), _ev_truncated,
        Listed(_trunc_cases), {"atol": "1e-9 (hi - lo)"},
        scope=f"{ROWS} draws per case, T in {{0.2, 0.5, 1.3, -0.4}}, scale in {{0.1, 1, 5}}, "
        "[0, 1]; uniforms regenerated from the seed; exact law by mpmath (40 digits)",
        must_hold=True))
    C.append(KernelCheck(
        "liu.clip.vs-exact", "clip sets values outside [lo, hi] to the nearer bound (BIT)",
        f"{REF}, Section 6 (as assumed in releases.py)", Method.EXHAUSTIVE, ("clip",),
        _ev_clip, Listed(_clip_cases, exhaustive=True), {"exact": True},
        scope="7 values incl. bounds and one-ulp neighbours, 3 intervals", must_hold=True))
    C.append(KernelCheck(
        "liu.rescale.vs-exact",
        "rescale_proportions sets negatives to 0 and divides by the sum (all <= 0: uniform)",
        f"{REF}, Section 6 'rescaling approach' (as assumed in releases.py)",
        Method.EXHAUSTIVE, ("rescale_proportions",), _ev_rescale,
        Listed(_rescale_cases, exhaustive=True), {"rtol": 2**-50},
        scope="every vector of length 1..3 on {-0.5, 0, 0.25, 0.5, 1}; exact Fractions",
        must_hold=True))
    return C


CHECKS: list[KernelCheck] = _build()

SUITE = KernelSuite(protocol=PROTOCOL, default_kernels="kernels.global_sensitivity.api",
                    checks=CHECKS)
