"""``dpaudit regress`` for the Dick et al. subject: a kernel module implementing
:data:`kernels.subset_optimal.protocol.PROTOCOL` (default :mod:`kernels.subset_optimal.api`)
against exact references and the exact privacy loss of its mechanisms under the paper's
relation, add/remove one record (Section 2).

Checks (each on the engine runner, :mod:`audit.checks.kernel`):

* ranks - ``dick.rank-interval`` / ``dick.rank-error`` / ``dick.window-loss`` /
  ``dick.approx-threshold``: Definitions 3-5 and Algorithm 2 line 1 against brute force by
  definition (:mod:`proofs.subset_optimal.reference`), exhaustively on a grid;
* Algorithm 2 - ``dick.alg2.pieces`` (the density's pieces, losses and probabilities vs the
  exact pieces in Fractions / mpmath), ``dick.alg2.privacy`` (the heart: the exact privacy
  loss of the kernel's own density on every add/remove pair of a grid, one-sided <= eps),
  ``dick.alg2.sampler.replay`` (the sampler is the inverse cdf of those pieces on the
  generator's uniforms, regenerated from the seed);
* Algorithm 1 - ``dick.alg1.location`` (with scripted zero noise the output is the exact
  clipped mean), ``dick.alg1.privacy`` (the centre and the count and sum noise scales the
  sampler really uses, measured with a scripted generator, give an exact loss
  1/b_n + max|v - m|/b_s <= eps on the worst add/remove pair - Lemma 2's accounting,
  one-sided);
* Algorithm 3 - ``dick.alg3.parameters`` (line 1 vs mpmath), ``dick.alg3.sampler.replay``
  (two Algorithm-2 draws at eps each and Algorithm 1 at eps, replayed through the exact
  references on the same draws);
* Algorithms 4-5 - ``dick.alg5.logits`` (-scale len_theta(D, t) vs a breadth-first search
  over add/remove edits), ``dick.alg5.privacy`` (exact loss of the kernel's discrete law <=
  2 scale on every add/remove pair: len_theta moves by at most 1), ``dick.alg5.sampler.
  replay``, ``dick.alg4.core`` / ``dick.alg4.parameters`` (lines 2, 5-6),
  ``dick.alg4.threshold-laws`` (lines 3-4: the l-hat and u-hat draws, steered by scripted
  uniforms to every piece of Algorithm 2's exact law at eps/4, land in that piece) and
  ``dick.alg4.sampler.replay`` (the whole of Algorithm 4, its budget split eps/4 + eps/4 +
  eps/2 included).

Finite grids compared exactly say ``verified`` for that scope only; replays of random draws
say ``not-refuted``.  Every Finding is about the subject's own kernels (``must_hold``).
"""

from __future__ import annotations

import bisect
import hashlib
import itertools
import math
from collections.abc import Callable, Sequence
from fractions import Fraction as F
from typing import Any

import mpmath
import numpy as np

from audit.checks.kernel import KernelCheck, KernelSuite, Listed, Outcome
from audit.checks.probe import ScriptedGenerator
from audit.findings import Method
from kernels.subset_optimal.protocol import PROTOCOL
from proofs.subset_optimal.reference import (
    exact_pieces,
    mp,
    ranks_exact,
    window_loss_exact,
)

__all__ = ["CHECKS", "SUITE"]

REF = "Dick, Kulesza, Sun & Suresh, Subset-based instance optimality in private estimation"
GRID = (F(0), F(1, 2), F(1))
TAUS = (F(-1, 2), F(0), F(1, 4), F(1, 2), F(3, 4), F(1), F(3, 2))
ROWS = 400


def _multisets(values: Sequence[Any], sizes: Sequence[int]) -> list[tuple]:
    return [d for n in sizes for d in itertools.combinations_with_replacement(values, n)]


def _fl(v: Sequence[F]) -> list[float]:
    return [float(x) for x in v]


def _seed(seed: int, key: str) -> int:
    return int(hashlib.sha256(f"{seed}:{key}".encode()).hexdigest()[:8], 16)


# ---------------------------------------------------------------------------- ranks
def _rank_cases(seed: int, mode: str) -> list[dict]:
    return [{"D": list(d), "tau": t} for d in _multisets(GRID, (1, 2, 3, 4)) for t in TAUS]


def _ev_rank_interval(mod: Any, c: dict) -> Outcome:
    rs = ranks_exact(c["tau"], c["D"])
    want = (rs[0], rs[-1])
    got = tuple(int(v) for v in mod.rank_interval(float(c["tau"]), _fl(c["D"])))
    return Outcome(got == want, list(want), list(got), "(#{x < tau}, #{x <= tau})")


def _rank_error_cases(seed: int, mode: str) -> list[dict]:
    rs = [F(k, 2) for k in range(0, 11)]
    return [{**c, "r": r} for c in _rank_cases(seed, mode) for r in rs]


def _ev_rank_error(mod: Any, c: dict) -> Outcome:
    rs = ranks_exact(c["tau"], c["D"])
    r = c["r"]
    # Definition 4 for integer r (min over the integer ranks); for a non-integer r the
    # kernel's stated reading, the distance to the real interval [min rank, max rank]
    want = (min(abs(r - x) for x in rs) if r.denominator == 1
            else max(F(0), rs[0] - r, r - rs[-1]))
    got = float(mod.rank_error(float(c["tau"]), float(r), _fl(c["D"])))
    return Outcome(F(got) == want, float(want), got, "Definition 4 distance",
                   cls="" if F(got) == want else ("above" if F(got) > want else "below"))


def _window_cases(seed: int, mode: str) -> list[dict]:
    out = []
    for d in _multisets(GRID, (1, 2, 3)):
        for t in TAUS:
            for r in range(0, len(d) + 2):
                for a in (F(1, 4), F(1, 2)):
                    out.append({"D": list(d), "tau": t, "r": r, "alpha": a})
    return out


def _ev_window(mod: Any, c: dict) -> Outcome:
    want = window_loss_exact(c["tau"], c["r"], c["alpha"], c["D"])
    got = float(np.asarray(mod.window_loss(np.array([float(c["tau"])]), float(c["r"]),
                                           float(c["alpha"]), _fl(c["D"]))).ravel()[0])
    ok = F(got) == want
    return Outcome(ok, float(want), got, "min rank error over [tau - alpha, tau + alpha]",
                   cls="" if ok else ("above" if F(got) > want else "below"))


def _ev_approx(mod: Any, c: dict) -> Outcome:
    out = []
    for beta in (F(0), F(1, 2), F(1)):
        want = window_loss_exact(c["tau"], c["r"], c["alpha"], c["D"]) <= beta
        got = bool(mod.approx_threshold(float(c["tau"]), float(c["r"]), float(c["alpha"]),
                                        float(beta), _fl(c["D"])))
        if got != want:
            return Outcome(False, want, got, f"Definition 5 at beta = {beta}")
        out.append(got)
    return Outcome(True, out, out, "beta in {0, 1/2, 1}")


# ------------------------------------------------------------------------ Algorithm 2
def _pieces_cases(seed: int, mode: str) -> list[dict]:
    out = []
    for d in _multisets(GRID, (1, 2, 3)):
        for r in [*range(0, len(d) + 2), F(3, 2)]:
            for a in (F(1, 4), F(1, 2)):
                for ab in ((-1, 1), (-10, 10)):
                    for eps in (F(1), F(1, 2)):
                        out.append({"D": list(d), "r": F(r), "alpha": a, "a": F(ab[0]),
                                    "b": F(ab[1]), "epsilon": eps})
    return out


def _ev_pieces(mod: Any, c: dict) -> Outcome:
    ex = exact_pieces(c["D"], c["a"], c["b"], c["alpha"])
    edges, loss, prob = (np.asarray(v, dtype=np.float64) for v in mod.threshold_pieces(
        _fl(c["D"]), float(c["r"]), float(c["a"]), float(c["b"]), float(c["alpha"]),
        float(c["epsilon"])))
    want_edges = [*ex.lo, ex.hi[-1]]
    if [F(v) for v in edges] != want_edges:
        return Outcome(False, _fl(want_edges), edges.tolist(), "breakpoints {x +- alpha} u "
                       "{a, b}", 1.0, "edges")
    want_loss = ex.losses(c["r"])
    if [F(v) for v in loss] != want_loss:
        return Outcome(False, _fl(want_loss), loss.tolist(), "window losses", 1.0, "loss")
    with mpmath.workdps(30):
        want_p = ex.probabilities(c["r"], c["epsilon"])
        err = max(float(abs(mpmath.mpf(float(p)) - q) / q) for p, q in
                  zip(prob, want_p, strict=True))
    ok = err <= 1e-12
    return Outcome(ok, [float(q) for q in want_p], prob.tolist(),
                   f"piece probabilities width exp(-eps/2 l)/Z: relative error {err:.3g}",
                   err, "" if ok else "probability")


def _kernel_density(mod: Any, d: Sequence[F], r: F, a: F, b: F, alpha: F, eps: F
                    ) -> tuple[list[F], list[Any]]:
    edges, _, prob = mod.threshold_pieces(_fl(d), float(r), float(a), float(b),
                                          float(alpha), float(eps))
    e = [F(float(v)) for v in edges]
    dens = [mpmath.mpf(float(p)) / mp(e[i + 1] - e[i]) for i, p in enumerate(prob)]
    return e, dens


def _alg2_pairs(seed: int, mode: str) -> list[dict]:
    out = []
    for d in _multisets(GRID, (1, 2, 3)):
        for v in (F(-1), F(0), F(1, 4), F(1, 2), F(1)):
            for r in range(0, len(d) + 2):
                for a in (F(1, 4), F(1, 2)):
                    for ab in ((-1, 1), (-10, 10)):
                        out.append({"D": list(d), "added": v, "r": F(r), "alpha": a,
                                    "a": F(ab[0]), "b": F(ab[1]), "epsilon": F(1)})
    return out


def _ev_alg2_privacy(mod: Any, c: dict) -> Outcome:
    d1 = list(c["D"])
    d2 = sorted([*d1, c["added"]])
    with mpmath.workdps(30):
        e1, f1 = _kernel_density(mod, d1, c["r"], c["a"], c["b"], c["alpha"], c["epsilon"])
        e2, f2 = _kernel_density(mod, d2, c["r"], c["a"], c["b"], c["alpha"], c["epsilon"])
        if e1[0] != e2[0] or e1[-1] != e2[-1]:
            return Outcome(False, "the same support [a, b]", [float(e1[0]), float(e1[-1]),
                                                               float(e2[0]), float(e2[-1])],
                           "supports differ", 1.0, "support")
        merged = sorted(set(e1) | set(e2))
        worst, at = mpmath.mpf(0), None
        for lo, hi in zip(merged, merged[1:], strict=False):
            mid = (lo + hi) / 2
            i = bisect.bisect_right(e1, mid) - 1
            j = bisect.bisect_right(e2, mid) - 1
            if f1[i] <= 0 or f2[j] <= 0:
                return Outcome(False, "positive density", 0.0, f"zero density on "
                               f"[{float(lo)}, {float(hi)}]", math.inf, "zero-density",
                               -math.inf)
            loss = abs(mpmath.log(f1[i]) - mpmath.log(f2[j]))
            if loss > worst:
                worst, at = loss, [float(lo), float(hi)]
        eps = mp(c["epsilon"])
        gap = float((eps - worst) / eps)
        ok = worst <= eps
    return Outcome(ok, {"loss_at_most": float(eps)}, {"exact_loss": float(worst),
                                                       "output_event": at},
                   f"sup |log f_D - log f_D'| = {float(worst):.6g} on tau-hat in {at}",
                   0.0 if ok else -gap, "" if ok else "above-epsilon",
                   gap if ok else min(gap, -1e-300))


def _replay_pieces(d: Sequence[F], r: Any, a: F, b: F, alpha: F, eps: F, u1: np.ndarray,
                   u2: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Inverse cdf of the exact pieces on uniforms u1 (piece) and u2 (position); the second
    array marks rows whose u1 is within 1e-9 of a cdf boundary (ambiguous in float)."""
    ex = exact_pieces(d, a, b, alpha)
    with mpmath.workdps(30):
        p = ex.probabilities(r, eps)
        cdf = np.array([float(v) for v in itertools.accumulate(p)])
    k = np.minimum(np.searchsorted(cdf, u1, "right"), len(cdf) - 1)
    lo = np.array([float(v) for v in ex.lo])[k]
    hi = np.array([float(v) for v in ex.hi])[k]
    amb = np.min(np.abs(u1[:, None] - cdf[None, :-1]), axis=1) < 1e-9 if len(cdf) > 1 else (
        np.zeros(u1.size, dtype=bool))
    return lo + (hi - lo) * u2, amb


def _alg2_replay_cases(seed: int, mode: str) -> list[dict]:
    g = np.random.default_rng(_seed(seed, "alg2-replay"))
    out = []
    for _ in range(12 if mode == "quick" else 40):
        n = int(g.integers(1, 7))
        d = sorted(F(int(v), 4) for v in g.integers(-4, 5, n))
        out.append({"D": d, "r": F(int(g.integers(0, n + 2))), "alpha": F(int(g.integers(1, 4)),
                                                                          8),
                    "a": F(-2), "b": F(2), "epsilon": F(int(g.integers(1, 5)), 2),
                    "seed": int(g.integers(0, 2**31 - 1))})
    return out


def _ev_alg2_replay(mod: Any, c: dict) -> Outcome:
    out = np.asarray(mod.threshold_sample(_fl(c["D"]), float(c["r"]), float(c["a"]),
                                          float(c["b"]), float(c["alpha"]),
                                          float(c["epsilon"]), ROWS,
                                          np.random.default_rng(c["seed"])), dtype=np.float64)
    g = np.random.default_rng(c["seed"])
    u1, u2 = g.random(ROWS), g.random(ROWS)
    exp, amb = _replay_pieces(c["D"], c["r"], c["a"], c["b"], c["alpha"], c["epsilon"], u1, u2)
    return _cmp(out, exp, amb, 1e-12 * float(c["b"] - c["a"]))


def _cmp(out: np.ndarray, exp: np.ndarray, amb: np.ndarray, atol: float) -> Outcome:
    if out.shape != exp.shape:
        return Outcome(False, f"shape {exp.shape}", f"shape {out.shape}", "output shape", 1.0,
                       "shape")
    bad = np.flatnonzero(~(np.isclose(out, exp, rtol=0.0, atol=atol) | amb))
    if bad.size:
        i = int(bad[0])
        return Outcome(False, float(exp[i]), float(out[i]),
                       f"{bad.size} of {out.size} draws differ from the replay through the "
                       f"exact reference (first: draw {i})", 1.0, "law")
    return Outcome(True, "all draws equal", "all draws equal",
                   f"{out.size - int(amb.sum())} draws replayed ({int(amb.sum())} on a cdf "
                   "boundary skipped)")


# ------------------------------------------------------------------------ Algorithm 1
def _alg1_location_cases(seed: int, mode: str) -> list[dict]:
    vals = (F(0), F(1, 4), F(1, 2), F(1))
    ivs = [(lo, hi) for lo in (F(0), F(1, 4), F(1, 2)) for hi in (F(1, 2), F(3, 4), F(1))
           if lo < hi]
    return [{"D": list(d), "lo": lo, "hi": hi, "epsilon": 1.0}
            for d in _multisets(vals, (1, 2, 3, 4)) for lo, hi in ivs]


def _ev_alg1_location(mod: Any, c: dict) -> Outcome:
    """Scripted zero noise: Algorithm 1 lines 1-5 give the exact mean of clip(D, [lo, hi])
    (line 5's clip to [-w/2, w/2] is inactive: that mean lies in [lo, hi])."""
    d, lo, hi = c["D"], c["lo"], c["hi"]
    want = sum((min(max(x, lo), hi) for x in d), F(0)) / len(d)
    got = float(np.asarray(mod.alg1_clipped_core(_fl(sorted(d)), [float(lo)], [float(hi)],
                                                 c["epsilon"], ScriptedGenerator(z=0.0)))[0])
    err = abs(F(got) - want)
    ok = err <= F(1, 2**50)
    return Outcome(ok, float(want), got, "exact mean of the clipped data (scripted zero "
                   "noise)", float(err), "" if ok else ("above" if F(got) > want else "below"))


def _alg1_privacy_cases(seed: int, mode: str) -> list[dict]:
    return [{"lower": lo, "upper": hi, "epsilon": e}
            for lo, hi in ((0.0, 1.0), (-2.0, 6.0)) for e in (0.5, 1.0, 2.0)]


#: scripted z of the sum noise when its scale is measured (small: line 5's clip inactive)
ZS = 2.0**-6


#: scripted count noise that makes n-hat huge: mu-hat -> the centre m the kernel uses
ZBIG = 2.0**60


def _measured(mod: Any, lo: float, hi: float, eps: float) -> dict[str, float]:
    """What the sampler really uses (protocol order: count draw, then sum draw): the centre
    m_k (n-hat huge: mu-hat = m_k), the sum scale b_s (D = [m], z = (0, ZS)) and the count
    scale b_n (D = [hi], z = (1, 0))."""
    def run(d: list[float], z: list[float]) -> float:
        return float(np.asarray(mod.alg1_sample(d, lo, hi, eps, 1, ScriptedGenerator(z=z)))[0])

    m = (lo + hi) / 2
    m_k = run([hi], [ZBIG, 0.0])
    b_s = (run([m], [0.0, ZS]) - run([m], [0.0, 0.0])) / ZS
    out_n = run([hi], [1.0, 0.0])
    s_k = hi - m_k  # D = [hi]: s = sum(x - m_k)
    b_n = (s_k / (out_n - m_k) - 1.0) if out_n != m_k else math.inf
    return {"m": m_k, "b_s": b_s, "b_n": b_n}


def _ev_alg1_privacy(mod: Any, c: dict) -> Outcome:
    """Lemma 2's accounting with the measured quantities: adding one record v in [l, u]
    moves n by 1 and s = sum(x - m_k) by v - m_k, at most max(u - m_k, m_k - l) (w/2 for the
    paper's centre), so the pair (n-hat, s-hat), from which mu-hat is computed, has exact
    loss 1/b_n + max|v - m_k|/b_s; it must be <= eps."""
    lo, hi, eps = c["lower"], c["upper"], c["epsilon"]
    got = _measured(mod, lo, hi, eps)
    b_n, b_s, m_k = got["b_n"], got["b_s"], got["m"]
    if not (b_n > 0 and b_s > 0 and math.isfinite(b_n) and math.isfinite(b_s)):
        return Outcome(False, "positive finite scales", got, "a noise scale is not positive",
                       math.inf, "scale", -math.inf)
    ds = max(hi - m_k, m_k - lo)
    loss = 1.0 / b_n + ds / b_s
    gap = (eps - loss) / eps
    ok = gap >= -1e-12  # the count scale is recovered by a float division
    return Outcome(ok, {"loss_at_most": eps, "b_n": 2 / eps, "b_s": (hi - lo) / eps,
                        "m": (lo + hi) / 2},
                   {"exact_loss": loss, **got},
                   f"loss 1/b_n + max|v - m|/b_s = {loss:.6g} (count {1 / b_n:.4g}, sum "
                   f"{ds / b_s:.4g})", 0.0 if ok else -gap,
                   "" if ok else "above-epsilon", gap if ok else min(gap, -1e-300))


# ------------------------------------------------------------------------ Algorithm 3
def _alg3_exact(n: int, R: F, eps: F, gamma: F) -> dict[str, Any]:
    alpha = gamma / n
    zeta = alpha / (R * n * eps)
    beta = 2 / mp(eps) * mpmath.log(mp(2 * R / (alpha * zeta)))
    return {"alpha": mp(alpha), "zeta": mp(zeta), "beta": beta, "t_l": 1 / mp(eps) + beta,
            "t_u": n - 1 / mp(eps) - beta}


def _alg3_param_cases(seed: int, mode: str) -> list[dict]:
    return [{"n": n, "R": R, "epsilon": e, "gamma": g} for n in (1, 5, 50, 1000)
            for R in (F(1), F(10)) for e in (F(1, 2), F(1)) for g in (F(1, 10), F(1))]


def _ev_alg3_params(mod: Any, c: dict) -> Outcome:
    with mpmath.workdps(40):
        want = _alg3_exact(c["n"], c["R"], c["epsilon"], c["gamma"])
        got = mod.alg3_parameters(c["n"], float(c["R"]), float(c["epsilon"]),
                                  float(c["gamma"]))
        errs = {k: float(abs(mpmath.mpf(float(got[k])) - v) / max(abs(v), mpmath.mpf(1)))
                for k, v in want.items()}
    bad = [k for k, e in errs.items() if not e <= 1e-12]
    return Outcome(not bad, {k: float(v) for k, v in want.items()},
                   {k: float(got[k]) for k in want}, f"relative errors {errs}",
                   max(errs.values()), f"wrong-{bad[0]}" if bad else "")


def _alg3_replay_cases(seed: int, mode: str) -> list[dict]:
    g = np.random.default_rng(_seed(seed, "alg3-replay"))
    out = []
    for _ in range(6 if mode == "quick" else 20):
        n = int(g.integers(3, 12))
        out.append({"D": sorted(F(int(v), 4) for v in g.integers(-8, 9, n)), "R": F(2),
                    "epsilon": F(int(g.integers(2, 9)), 2), "gamma": F(1, 2),
                    "seed": int(g.integers(0, 2**31 - 1))})
    return out


def _ev_alg3_replay(mod: Any, c: dict) -> Outcome:
    d, R, eps, n = c["D"], c["R"], c["epsilon"], len(c["D"])
    out = np.asarray(mod.alg3_sample(_fl(d), float(R), float(eps), float(c["gamma"]), ROWS,
                                     np.random.default_rng(c["seed"])), dtype=np.float64)
    with mpmath.workdps(30):
        par = _alg3_exact(n, R, eps, c["gamma"])
    alpha = c["gamma"] / n
    g = np.random.default_rng(c["seed"])
    u = [g.random(ROWS) for _ in range(4)]
    lo, amb1 = _replay_pieces(d, par["t_l"], -R, R, alpha, eps, u[0], u[1])
    hi, amb2 = _replay_pieces(d, par["t_u"], -R, R, alpha, eps, u[2], u[3])
    a, b = np.minimum(lo, hi), np.maximum(lo, hi)
    zn = g.laplace(0.0, 2.0 / float(eps), ROWS)
    zs = g.laplace(0.0, 1.0, ROWS)
    xs = np.array(_fl(d))
    total = np.clip(xs[None, :], a[:, None], b[:, None]).sum(axis=1)
    w, m = b - a, (a + b) / 2
    s_hat = total - n * m + zs * (w / float(eps))
    n_hat = n + zn
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.where(n_hat != 0, s_hat / n_hat, 0.0)
    exp = np.clip(ratio, -w / 2, w / 2) + m
    return _cmp(out, exp, amb1 | amb2, 1e-9 * float(R))


# ------------------------------------------------------------------- Algorithms 4, 5
PROPS: tuple[Any, ...] = ("mean", "median", ("quantile", 0.25))


def _theta(state: tuple[int, ...], prop: Any) -> F | None:
    if not state:
        return None
    if prop == "mean":
        return F(sum(state), len(state))
    q = F(1, 2) if prop == "median" else F(prop[1])
    k = max(1, math.ceil(q * len(state)))
    return F(sorted(state)[k - 1])


def len_bfs(d: Sequence[int], t: int, lo: int, hi: int, prop: Any) -> int:
    """len_theta(D, t): fewest add/remove edits (additions on the grid lo..hi) to reach a
    data set with theta = t, by breadth-first search over multisets."""
    start = tuple(sorted(d))
    seen, level, dist = {start}, [start], 0
    while level:
        if any(_theta(s, prop) == t for s in level):
            return dist
        nxt = []
        for s in level:
            moves = [s[:i] + s[i + 1:] for i in range(len(s)) if i == 0 or s[i] != s[i - 1]]
            moves += [tuple(sorted((*s, v))) for v in range(lo, hi + 1)]
            for m in moves:
                if m not in seen:
                    seen.add(m)
                    nxt.append(m)
        level, dist = nxt, dist + 1
    raise AssertionError("unreachable: adding t's reaches theta = t")


def _alg5_cases(seed: int, mode: str) -> list[dict]:
    return [{"D": list(d), "lo": 0, "hi": 3, "property": p, "scale": 1.0}
            for d in _multisets(range(4), (1, 2, 3)) for p in PROPS]


def _prop_arg(p: Any) -> Any:
    return tuple(p) if isinstance(p, list) else p


def _ev_alg5_logits(mod: Any, c: dict) -> Outcome:
    p = _prop_arg(c["property"])
    want = [-c["scale"] * len_bfs(c["D"], t, c["lo"], c["hi"], p)
            for t in range(c["lo"], c["hi"] + 1)]
    got = [float(v) for v in mod.inv_sen_logits(list(c["D"]), c["lo"], c["hi"], p,
                                                c["scale"])]
    return Outcome(got == want, want, got, "-scale len_theta(D, t), t = lo..hi")


def _alg5_privacy_cases(seed: int, mode: str) -> list[dict]:
    return [{"D": list(d), "added": v, "lo": 0, "hi": 3, "property": p, "scale": s}
            for d in _multisets(range(4), (1, 2, 3)) for v in range(4) for p in PROPS
            for s in (0.25, 1.0)]


def _ev_alg5_privacy(mod: Any, c: dict) -> Outcome:
    """Exact loss of the kernel's law p(t) = exp(logit_t)/Z between D and D u {v}: must be
    <= 2 scale (len_theta moves by at most 1 per edit: Asi & Duchi's accounting)."""
    p = _prop_arg(c["property"])
    d1 = list(c["D"])
    d2 = sorted([*d1, c["added"]])
    with mpmath.workdps(30):
        laws = []
        for d in (d1, d2):
            lg = [mpmath.mpf(float(v)) for v in mod.inv_sen_logits(d, c["lo"], c["hi"], p,
                                                                   c["scale"])]
            z = mpmath.log(mpmath.fsum(mpmath.exp(v) for v in lg))
            laws.append([v - z for v in lg])
        losses = [abs(a - b) for a, b in zip(*laws, strict=True)]
        worst = max(losses)
        bound = 2 * mpmath.mpf(c["scale"])
        gap = float((bound - worst) / bound)
        ok = worst <= bound
        t = c["lo"] + losses.index(worst)
    return Outcome(ok, {"loss_at_most": float(bound)}, {"exact_loss": float(worst),
                                                         "output_t": t},
                   f"max_t |log p_D(t) - log p_D'(t)| = {float(worst):.6g} at t = {t}",
                   0.0 if ok else -gap, "" if ok else "above-2-scale",
                   gap if ok else min(gap, -1e-300))


def _alg5_replay_cases(seed: int, mode: str) -> list[dict]:
    g = np.random.default_rng(_seed(seed, "alg5-replay"))
    return [{"D": sorted(int(v) for v in g.integers(0, 5, int(g.integers(1, 5)))), "lo": 0,
             "hi": 4, "property": PROPS[int(g.integers(0, 3))],
             "scale": float(g.choice([0.25, 0.5, 1.0])), "seed": int(g.integers(0, 2**31 - 1))}
            for _ in range(8 if mode == "quick" else 30)]


def _ev_alg5_replay(mod: Any, c: dict) -> Outcome:
    p = _prop_arg(c["property"])
    out = np.asarray(mod.inv_sen_sample(list(c["D"]), c["lo"], c["hi"], p, c["scale"], ROWS,
                                        np.random.default_rng(c["seed"])), dtype=np.float64)
    lg = np.array([-c["scale"] * len_bfs(c["D"], t, c["lo"], c["hi"], p)
                   for t in range(c["lo"], c["hi"] + 1)])
    w = np.exp(lg - lg.max())
    exp = c["lo"] + np.random.default_rng(c["seed"]).choice(w.size, size=ROWS, p=w / w.sum())
    return _cmp(out, exp.astype(np.float64), np.zeros(ROWS, dtype=bool), 0.0)


def _alg4_core_cases(seed: int, mode: str) -> list[dict]:
    return [{"ks": list(d), "r": r, "l_hat": lh, "u_hat": uh, "beta": 0.5}
            for d in _multisets(range(-2, 3), (1, 2, 3, 4, 5))
            for r in (0.0, 1.0, 1.5, 2.0, 2.5) for lh, uh in ((-10.0, 10.0), (-0.5, 1.0))]


def ref_alg4_core(ks: Sequence[int], r: Any, l_hat: Any, u_hat: Any, beta: Any) -> list[int]:
    """Lines 5-6 transcribed: with 1-based i over the sorted grid units, i <= 3r/2 moves
    down one step, i >= n - 3r/2 up one step; keep values within [l-hat, u-hat] (exact)."""
    xs = sorted(ks)
    n, rr = len(xs), F(r)
    ys = [x - 1 if i <= F(3, 2) * rr else (x + 1 if i >= n - F(3, 2) * rr else x)
          for i, x in enumerate(xs, start=1)]
    b, lh, uh = F(beta), F(l_hat), F(u_hat)
    return [y for y in ys if lh <= y * b <= uh]


def _ev_alg4_core(mod: Any, c: dict) -> Outcome:
    want = ref_alg4_core(c["ks"], c["r"], c["l_hat"], c["u_hat"], c["beta"])
    got = [int(v) for v in mod.alg4_core(list(c["ks"]), c["r"], c["l_hat"], c["u_hat"],
                                         c["beta"])]
    return Outcome(got == want, want, got, "shift the 3r/2 smallest down, largest up, keep "
                   "[l-hat, u-hat]")


#: draws per Algorithm-4 replay case (one kernel call per draw)
ALG4_DRAWS = 40


def _alg4_replay_cases(seed: int, mode: str) -> list[dict]:
    g = np.random.default_rng(_seed(seed, "alg4-replay"))
    data = [0.0, 0.5, 0.5, 1.0, 1.5]
    return [{"data": data, "R": 2.0, "epsilon": e, "beta": 0.5, "property": p, "L": 1.0,
             "B": 1.0, "scale": s, "r": 1.0, "seed": int(g.integers(0, 2**31 - 1))}
            for e, p, s in ((4.0, "median", None), (8.0, ["quantile", 0.25], 0.5),
                            (4.0, "mean", 0.5))][: 3 if mode == "quick" else 3]


def _ev_alg4_replay(mod: Any, c: dict) -> Outcome:
    """Algorithm 4 replayed draw by draw: l-hat and u-hat through the exact pieces of
    Algorithm 2 (ranks r/4 and n - r/4, window beta/3, eps/4) on the regenerated uniforms,
    lines 5-6 by :func:`ref_alg4_core`, line 7's choice with the brute-force law."""
    p, beta, R = _prop_arg(c["property"]), c["beta"], c["R"]
    ks = [int(round(x / beta)) for x in c["data"]]
    q = [F(k) * F(beta) for k in ks]
    n, r, eps = len(ks), F(c["r"]), F(c["epsilon"])
    s = 1.0 if c["scale"] is None else c["scale"]
    laws: dict[tuple, np.ndarray] = {}
    out, exp, amb = [], [], []
    for i in range(ALG4_DRAWS):
        seed = c["seed"] + i
        out.append(float(mod.alg4_sample(list(c["data"]), R, c["epsilon"], beta, p, c["L"],
                                         c["B"], np.random.default_rng(seed), scale=c["scale"],
                                         r=c["r"])))
        g = np.random.default_rng(seed)
        u = [g.random(1) for _ in range(4)]
        lh, a1 = _replay_pieces(q, r / 4, F(-R), F(R), F(beta) / 3, eps / 4, u[0], u[1])
        uh, a2 = _replay_pieces(q, n - r / 4, F(-R), F(R), F(beta) / 3, eps / 4, u[2], u[3])
        l_hat, u_hat = float(lh[0]), float(uh[0])
        near = [abs(v / beta - round(v / beta)) < 1e-9 for v in (l_hat, u_hat)]
        kept = ref_alg4_core(ks, r, l_hat, u_hat, beta)
        lo, hi = math.ceil(l_hat / beta), math.floor(u_hat / beta)
        amb.append(bool(a1[0] or a2[0] or any(near)))
        if lo > hi or not kept:
            exp.append(math.nan)
            continue
        key = (tuple(kept), lo, hi)
        if key not in laws:
            lg = np.array([-s * len_bfs(kept, t, lo, hi, p) for t in range(lo, hi + 1)])
            w = np.exp(lg - lg.max())
            laws[key] = w / w.sum()
        exp.append(float((lo + g.choice(laws[key].size, size=1, p=laws[key])[0]) * beta))
    o, e = np.array(out), np.array(exp)
    same = np.isclose(o, e, rtol=0.0, atol=1e-12) | (np.isnan(o) & np.isnan(e)) | np.array(amb)
    bad = np.flatnonzero(~same)
    if bad.size:
        i = int(bad[0])
        return Outcome(False, exp[i], out[i], f"{bad.size} of {ALG4_DRAWS} draws differ from "
                       f"the replay through the exact references (first: seed {c['seed'] + i})",
                       1.0, "law")
    return Outcome(True, "all draws equal", "all draws equal",
                   f"{ALG4_DRAWS - int(sum(amb))} draws replayed")


#: the fractions of each piece's probability at which the threshold draws are steered
PIECE_FRACTIONS = (F(1, 4), F(1, 2), F(3, 4))


def _alg4_law_cases(seed: int, mode: str) -> list[dict]:
    """Data on the grid with records 2 beta apart (every piece of the threshold laws maps to
    its own grid value), R = 4, r = 1 (line 2 overridden), eps in {2, 4, 8}."""
    return [{"data": [0.0, 1.0, 2.0, 3.0], "R": 4.0, "epsilon": e, "beta": 0.5, "r": 1.0,
             "which": w} for e in (2.0, 4.0, 8.0) for w in ("l_hat", "u_hat")]


def _ev_alg4_law(mod: Any, c: dict) -> Outcome:
    """Algorithm 4's threshold draws steered with scripted uniforms: the l-hat (u-hat) draw is
    placed at the 1/4, 1/2 and 3/4 quantile of every piece of Algorithm 2's exact law at
    eps/4 (ranks r/4 and n - r/4, window beta/3, range [-R, R]) and a quarter into the
    piece; the other threshold is put in its extreme piece, and line 7's choice at its first
    (last) grid point, so the output is ceil(l-hat / beta) beta (floor(u-hat / beta) beta):
    it shows which piece the kernel's draw fell in."""
    beta, R, eps, r = F(c["beta"]), F(c["R"]), F(c["epsilon"]), F(c["r"])
    ks = [int(round(x / c["beta"])) for x in c["data"]]
    q = [F(k) * beta for k in ks]
    n = len(ks)
    lower = c["which"] == "l_hat"
    rank = r / 4 if lower else n - r / 4
    ex = exact_pieces(q, -R, R, beta / 3)
    with mpmath.workdps(30):
        prob = ex.probabilities(rank, eps / 4)
        cdf = [mpmath.mpf(0), *itertools.accumulate(prob)]
    tiny = 2.0**-30
    mismatches, checked = [], 0
    for k in range(len(prob)):
        for frac in PIECE_FRACTIONS:
            u = float(cdf[k] + mp(frac) * prob[k])
            pos = ex.lo[k] + (ex.hi[k] - ex.lo[k]) / 4
            # l-hat steered, u-hat in its last piece (u = 1 - tiny, 3/4 in), choice first
            # point; or l-hat in its first piece (u = tiny, 1/4 in), u-hat steered, last point
            us = ([u, 0.25, 1.0 - tiny, 0.75, 0.0] if lower else
                  [tiny, 0.25, u, 0.25, 1.0])
            got = float(mod.alg4_sample(list(c["data"]), c["R"], c["epsilon"], c["beta"],
                                        "median", 1.0, 1.0, ScriptedGenerator(u=us),
                                        r=c["r"]))
            # (both threshold laws share their pieces: same data, window and range)
            if lower:
                l_hat, u_hat = pos, ex.lo[-1] + 3 * (ex.hi[-1] - ex.lo[-1]) / 4
            else:
                l_hat, u_hat = ex.lo[0] + (ex.hi[0] - ex.lo[0]) / 4, pos
            kept = ref_alg4_core(ks, r, l_hat, u_hat, beta)
            lo_t, hi_t = math.ceil(l_hat / beta), math.floor(u_hat / beta)
            want = (math.nan if lo_t > hi_t or not kept else
                    float((lo_t if lower else hi_t) * beta))
            checked += 1
            if not (got == want or (math.isnan(got) and math.isnan(want))):
                mismatches.append({"piece": k, "fraction": str(frac), "u": u,
                                   "piece_range": [float(ex.lo[k]), float(ex.hi[k])],
                                   "expected": want, "kernel": got})
    if mismatches:
        m = mismatches[0]
        return Outcome(False, m["expected"], m["kernel"],
                       f"{len(mismatches)} of {checked} steered {c['which']} draws left their "
                       f"piece of Algorithm 2's law at eps/4 (first: piece {m['piece']} "
                       f"{m['piece_range']}, quantile {m['fraction']}, u = {m['u']!r})", 1.0,
                       "law")
    return Outcome(True, "every piece", "every piece",
                   f"{checked} steered draws ({len(prob)} pieces x {len(PIECE_FRACTIONS)})")


def _alg4_param_cases(seed: int, mode: str) -> list[dict]:
    return [{"R": R, "epsilon": e, "beta": b, "L": L, "B": B} for R in (1.0, 10.0)
            for e in (0.5, 1.0) for b in (0.01, 0.1) for L in (1.0, 2.0) for B in (1.0, 5.0)]


def _ev_alg4_params(mod: Any, c: dict) -> Outcome:
    with mpmath.workdps(40):
        eta = mpmath.mpf(c["L"]) * mpmath.mpf(c["beta"]) / mpmath.mpf(c["B"])
        r = 32 * mpmath.log(6 * mpmath.mpf(c["R"]) / (eta * mpmath.mpf(c["beta"]))) / (
            mpmath.mpf(c["epsilon"]))
        got = mod.alg4_parameters(c["R"], c["epsilon"], c["beta"], c["L"], c["B"])
        er = float(abs(mpmath.mpf(float(got["r"])) - r) / r)
        ee = float(abs(mpmath.mpf(float(got["eta"])) - eta) / eta)
    ok = er <= 1e-12 and ee <= 1e-12
    return Outcome(ok, {"eta": float(eta), "r": float(r)}, {k: float(v) for k, v in got.items()},
                   f"relative errors eta {ee:.3g}, r {er:.3g}", max(er, ee),
                   "" if ok else ("wrong-r" if er > 1e-12 else "wrong-eta"))


# ------------------------------------------------------------------------ the table
def _chk(cid: str, claim: str, where: str, method: Method, needs: tuple[str, ...],
         ev: Callable[[Any, Any], Outcome], make: Callable[[int, str], list], scope: str,
         exhaustive: bool = True, tol: dict | None = None, one_sided: str | None = None,
         bound: str = "the exact value", twin_arg: tuple[str, int] | None = None
         ) -> KernelCheck:
    return KernelCheck(cid, claim, f"{REF}, {where}", method, needs, ev,
                       Listed(make, exhaustive=exhaustive), tol, one_sided=one_sided,
                       twin_arg=twin_arg,
                       scope=scope, must_hold=True, bound_name=bound,
                       report_tightest=one_sided is not None)


GRID_TXT = "D every multiset on {0, 1/2, 1}"
PRIV = "; relation add/remove one record (Section 2)"


def _build() -> list[KernelCheck]:
    return [
        _chk("dick.rank-interval.vs-definition",
             "rank_interval(tau, D) = (min, max) of ranks(tau, D)", "Definition 3, Lemma 5",
             Method.EXHAUSTIVE, ("rank_interval",), _ev_rank_interval, _rank_cases,
             f"{GRID_TXT} of size 1..4, tau in {{-1/2, 0, 1/4, 1/2, 3/4, 1, 3/2}}; brute force "
             "over the integer ranks", tol={"exact": True}),
        _chk("dick.rank-error.vs-definition",
             "rank_error(tau, r, D) is the distance from r to ranks(tau, D)", "Definition 4",
             Method.EXHAUSTIVE, ("rank_error",), _ev_rank_error, _rank_error_cases,
             f"{GRID_TXT} of size 1..4, 7 taus, r in {{0, 1/2, ..., 5}} (non-integer r: the "
             "kernel's stated reading, distance to the real interval)", tol={"exact": True}),
        _chk("dick.window-loss.vs-definition",
             "window_loss is Algorithm 2 line 1: the least rank error within alpha of tau",
             "Algorithm 2 line 1", Method.EXHAUSTIVE, ("window_loss",), _ev_window,
             _window_cases, f"{GRID_TXT} of size 1..3, 7 taus, integer r in 0..n+1, alpha in "
             "{1/4, 1/2}; brute force over the window's points", tol={"exact": True}),
        _chk("dick.approx-threshold.vs-definition",
             "approx_threshold is Definition 5 ((alpha, beta)-approximate rank-r threshold)",
             "Definition 5", Method.EXHAUSTIVE, ("approx_threshold",), _ev_approx,
             _window_cases, f"{GRID_TXT} of size 1..3, 7 taus, integer r in 0..n+1, alpha in "
             "{1/4, 1/2}, beta in {0, 1/2, 1}", tol={"exact": True}),
        _chk("dick.alg2.pieces.vs-exact",
             "threshold_pieces is Algorithm 2's density: breakpoints x +- alpha and a, b; "
             "window losses; probabilities width exp(-eps/2 l)/Z",
             "Algorithm 2 lines 1-2, proof of Theorem 2", Method.EXHAUSTIVE,
             ("threshold_pieces",), _ev_pieces, _pieces_cases,
             f"{GRID_TXT} of size 1..3, r in 0..n+1 and 3/2, alpha in {{1/4, 1/2}}, [a, b] in "
             "{[-1, 1], [-10, 10]}, eps in {1, 1/2}; edges and losses exact, probabilities "
             "vs mpmath (30 digits) to 1e-12 relative", tol={"probability_rtol": 1e-12}),
        _chk("dick.alg2.privacy",
             "the kernel's Algorithm 2 law (public r, alpha) is eps-DP: its exact privacy loss "
             "on every add/remove pair is <= eps", "Algorithm 2, Theorem 2, Appendix A",
             Method.EXACT_LOSS, ("threshold_pieces",), _ev_alg2_privacy, _alg2_pairs,
             f"{GRID_TXT} of size 1..3 and D u {{v}}, v in {{-1, 0, 1/4, 1/2, 1}}, r in 0..n+1, "
             "alpha in {1/4, 1/2}, [a, b] in {[-1, 1], [-10, 10]}, eps = 1; loss = max over "
             "merged pieces of |log f_D - log f_D'| from the kernel's own densities (mpmath, "
             f"30 digits){PRIV}", tol={"loss_above_epsilon_allowed": 0}, one_sided="below",
             bound="epsilon", twin_arg=("threshold_pieces", 5)),
        _chk("dick.alg2.sampler.replay",
             "threshold_sample draws from threshold_pieces' law: the piece by inverse cdf, "
             "then a uniform point in it", "Algorithm 2 line 3, proof of Theorem 2",
             Method.CROSSCHECK, ("threshold_sample",), _ev_alg2_replay, _alg2_replay_cases,
             f"{ROWS} draws per case; random D on the quarter grid of [-1, 1] (n 1..6), "
             "r, alpha in {1/8, 1/4, 3/8}, eps in {1/2, ..., 2}, [a, b] = [-2, 2]; uniforms "
             "regenerated from the seed and replayed through the exact pieces (rows within "
             "1e-9 of a cdf boundary skipped)", exhaustive=False, tol={"atol": "1e-12 (b - a)"}),
        _chk("dick.alg1.location.vs-exact",
             "with zero noise, Algorithm 1 returns the exact mean of clip(D, [l, u])",
             "Algorithm 1 lines 1-5; Algorithm 3 line 4 (clip)", Method.EXHAUSTIVE,
             ("alg1_clipped_core",), _ev_alg1_location, _alg1_location_cases,
             "D every multiset on {0, 1/4, 1/2, 1} of size 1..4, [l, u] every interval with "
             "l in {0, 1/4, 1/2}, u in {1/2, 3/4, 1}; noise scripted to 0; exact Fractions "
             "(2^-50)", tol={"atol": 2**-50}),
        _chk("dick.alg1.privacy",
             "Algorithm 1 is eps-DP: the centre and the count and sum noise scales the sampler "
             "really uses give an exact loss 1/b_n + max|v - m|/b_s <= eps on the worst "
             "add/remove pair",
             "Algorithm 1, Lemma 2, Appendix B.2", Method.EXACT_LOSS, ("alg1_sample",),
             _ev_alg1_privacy, _alg1_privacy_cases,
             "[l, u] in {[0, 1], [-2, 6]}, eps in {1/2, 1, 2} (binary-exact scales); centre and "
             "scales measured with scripted draws (centre: count z = 2^60; count: D = [u], "
             "z = 1; sum: D = [m], z = 2^-6); worst pair: a record added at l or u; the count "
             "scale is "
             f"recovered by a float division (relative slack 1e-12){PRIV}",
             tol={"relative_slack": 1e-12}, one_sided="below", bound="epsilon"),
        _chk("dick.alg3.parameters.vs-exact",
             "alg3_parameters is Algorithm 3 line 1 (alpha = gamma/|D|, zeta, beta, t_l, t_u)",
             "Algorithm 3 line 1", Method.EXHAUSTIVE, ("alg3_parameters",), _ev_alg3_params,
             _alg3_param_cases, "|D| in {1, 5, 50, 1000}, R in {1, 10}, eps in {1/2, 1}, "
             "gamma in {1/10, 1}; mpmath 40 digits, 1e-12 relative (of max(1, |value|))",
             tol={"rtol": 1e-12}),
        _chk("dick.alg3.sampler.replay",
             "alg3_sample is Algorithm 3: l-hat, u-hat by Algorithm 2 at eps each (ranks t_l, "
             "t_u, window alpha), then Algorithm 1 at eps on clip(D, [min, max])",
             "Algorithm 3 lines 1-5", Method.CROSSCHECK, ("alg3_sample",), _ev_alg3_replay,
             _alg3_replay_cases,
             f"{ROWS} draws per case; random D on the quarter grid of [-2, 2] (n 3..11), R = 2, "
             "eps in {1, ..., 4}, gamma = 1/2; draws regenerated from the seed in protocol "
             "order and replayed through the exact pieces and Algorithm 1",
             exhaustive=False, tol={"atol": "1e-9 R"}),
        _chk("dick.alg5.logits.vs-brute-force",
             "inv_sen_logits is Algorithm 5 line 2: -scale len_theta(D, t) for t = lo..hi",
             "Algorithm 5, Appendix C", Method.EXHAUSTIVE, ("inv_sen_logits",),
             _ev_alg5_logits, _alg5_cases,
             "D every multiset on {0..3} of size 1..3, t in 0..3, mean / median / 1/4-"
             "quantile; len by breadth-first search over add/remove edits", tol={"exact": True}),
        _chk("dick.alg5.privacy",
             "the kernel's Algorithm 5 law exp(-scale len)/Z has exact privacy loss <= 2 scale "
             "on every add/remove pair (eps-DP at scale eps/2)", "Algorithm 5; Algorithm 4 "
             "line 7 (privacy parameter eps/2)", Method.EXACT_LOSS, ("inv_sen_logits",),
             _ev_alg5_privacy, _alg5_privacy_cases,
             "D every multiset on {0..3} of size 1..3 and D u {v}, v in 0..3, mean / median / "
             f"1/4-quantile, scale in {{1/4, 1}}; exact discrete loss, mpmath 30 digits{PRIV}",
             tol={"loss_above_2_scale_allowed": 0}, one_sided="below", bound="2 scale",
             twin_arg=("inv_sen_logits", 4)),
        _chk("dick.alg5.sampler.replay",
             "inv_sen_sample draws t with probability exp(-scale len_theta(D, t))/Z",
             "Algorithm 5 line 2", Method.CROSSCHECK, ("inv_sen_sample",), _ev_alg5_replay,
             _alg5_replay_cases, f"{ROWS} draws per case; random D on {{0..4}} (n 1..4), mean / "
             "median / 1/4-quantile, scale in {1/4, 1/2, 1}; the generator's choice replayed "
             "with the brute-force law", exhaustive=False, tol={"exact": True}),
        _chk("dick.alg4.core.vs-spec",
             "alg4_core is Algorithm 4 lines 5-6 (shift the 3r/2 smallest down and largest up "
             "by one grid step, keep [l-hat, u-hat])", "Algorithm 4 lines 5-6",
             Method.EXHAUSTIVE, ("alg4_core",), _ev_alg4_core, _alg4_core_cases,
             "ks every multiset on {-2..2} of size 1..5, r in {0, 1, 3/2, 2, 5/2} (3r/2 exact in "
             "binary), [l-hat, u-hat] "
             "in {[-10, 10], [-1/2, 1]}, beta = 1/2", tol={"exact": True}),
        _chk("dick.alg4.parameters.vs-exact",
             "alg4_parameters is Algorithm 4 line 2: eta = L beta/B, r = 32 log(6R/(eta "
             "beta))/eps", "Algorithm 4 line 2", Method.EXHAUSTIVE, ("alg4_parameters",),
             _ev_alg4_params, _alg4_param_cases, "R, eps, beta, L, B on a 2^5 grid; mpmath "
             "40 digits, 1e-12 relative", tol={"rtol": 1e-12}),
        _chk("dick.alg4.threshold-laws",
             "alg4_sample's l-hat and u-hat draws follow Algorithm 2's law at eps/4 each "
             "(ranks r/4 and n - r/4, window beta/3, range [-R, R]): a draw steered to a "
             "quantile of any piece of that exact law lands in that piece",
             "Algorithm 4 lines 3-4 (budget eps/4 each), Algorithm 2, proof of Theorem 3",
             Method.EXHAUSTIVE, ("alg4_sample",), _ev_alg4_law, _alg4_law_cases,
             "D = {0, 1, 2, 3} (grid units 0, 2, 4, 6 at beta = 1/2), R = 4, r = 1 (line 2 "
             "overridden), eps in {2, 4, 8}; every piece of the exact law (Fractions, "
             "probabilities by mpmath at 30 digits) at its 1/4, 1/2 and 3/4 quantile; "
             "uniforms and line 7's choice scripted (ScriptedGenerator), the output read as "
             "the grid point of the steered threshold", tol={"exact": True}),
        _chk("dick.alg4.sampler.replay",
             "alg4_sample is Algorithm 4: l-hat, u-hat by Algorithm 2 (window beta/3, budget "
             "eps/4 each, ranks r/4 and n - r/4), lines 5-6, then Algorithm 5 on the grid "
             "[l-hat, u-hat] (eps/4 + eps/4 + eps/2 = eps)", "Algorithm 4 lines 1-7",
             Method.CROSSCHECK, ("alg4_sample",), _ev_alg4_replay, _alg4_replay_cases,
             f"{ALG4_DRAWS} draws per case (one call each, seeds seed..seed+{ALG4_DRAWS - 1}); "
             "D = {0, 1/2, 1/2, 1, 3/2}, beta = 1/2, R = 2, r = 1 (line 2 overridden), median "
             "(scale as printed, 1) / 1/4-quantile / mean (scale 1/2); draws regenerated and "
             "replayed through the exact pieces, lines 5-6 and the brute-force law",
             exhaustive=False, tol={"atol": 1e-12}),
    ]


CHECKS: list[KernelCheck] = _build()

SUITE = KernelSuite(protocol=PROTOCOL, default_kernels="kernels.subset_optimal.api",
                    checks=CHECKS)
