"""The tail and sampling steps of Theorem 2's proof (Appendix A: the exponential mechanism's
tail bound, the loss's definition, Corollary 1's (b - a)/alpha <= 3m and the steps of its case
tau~ != tau~' on a grid, the two-stage sampler), the steps of Appendix E.1 (Corollary 2's first
display, the moment chain, Lemma 8's proof) and Section 3.1's sentences on rank thresholds
(repeated points, the quantile reading, rank error 0) of Dick, Kulesza, Sun & Suresh, each
tested itself.

Appendix A's steps are checked exactly with eps = 2 ln 2, where the exponential mechanism's
density exp(-eps l(tau)/2) = 2^-l(tau) is rational: every integral is a finite sum of
Fractions (the loss is piecewise constant between the points x +- alpha, a step checked by
``text.subset.a-piecewise``).  Appendix E.1's steps are checked exactly (Fractions; a k-th root
compared through k-th powers) per sample and, for the expectations, over every n-tuple of a
finite distribution with rational probabilities; the one Jensen step with a sum of square
roots is decided in certified interval arithmetic (mpmath.iv, 60 digits).

A step that holds carries a twin (the step perturbed: a factor dropped, a constant tightened),
refuted in the same scope (:func:`proofs.subset_optimal.claims_proofsteps.family_findings`); a
step that fails as printed is reported with its readings and a replayable counterexample.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Iterator
from fractions import Fraction as F
from typing import Any

import mpmath
import sympy as sp

from audit.falsifiability import decide, twin
from audit.findings import Finding, Method, Verdict, counterexample_document
from audit.registry import replayer
from proofs.subset_optimal import NAME, claim
from proofs.subset_optimal.claims_proofsteps import (
    Family,
    Printed,
    Step,
    data_sets,
    family_findings,
    memo,
    mu,
    printed_findings,
    register_replayers,
)
from proofs.subset_optimal.reference import rank_error_exact, window_loss_exact
from proofs.text_findings import paper_finding

SUBJECT = f"paper:{NAME}"
REF = "Dick, Kulesza, Sun & Suresh (subset optimality), Appendices A and E.1"
CS = (0, 1, 2, 3)  # the loss levels c of S_c = {tau : l(tau) >= c}


# ---------------------------------------------------------- Appendix A: the tail of Algorithm 2
def tail_cases() -> Iterator[dict]:
    """(D, rank 1 <= r <= |D|, alpha = 1/2, [a, b] = [-1, 8]) with eps = 2 ln 2."""
    for D in data_sets(1, 3):
        for r in range(1, len(D) + 1):
            yield {"D": D, "r": F(r), "alpha": F(1, 2), "a": F(-1), "b": F(8)}


def pieces(c: dict) -> list[tuple[F, F, int]]:
    """(lo, hi, loss) of the pieces of [a, b] cut at x +- alpha (the loss constant on each)."""
    def make() -> list[tuple[F, F, int]]:
        a, b, al = c["a"], c["b"], c["alpha"]
        cuts = sorted({a, b} | {x + d for x in c["D"] for d in (-al, al) if a < x + d < b})
        return [(lo, hi, window_loss_exact((lo + hi) / 2, c["r"], al, c["D"]))
                for lo, hi in zip(cuts, cuts[1:], strict=False)]
    return memo(c, "_pieces", make)


def _z(c: dict) -> F:
    """The normaliser int_a^b 2^-l(tau) d tau."""
    return sum(((hi - lo) / 2 ** loss for lo, hi, loss in pieces(c)), F(0))


def _mass(c: dict, level: int) -> F:
    """Pr(tau^ in S_c) = int_{S_c} 2^-l / normaliser."""
    return sum(((hi - lo) / 2 ** loss for lo, hi, loss in pieces(c) if loss >= level),
               F(0)) / _z(c)


def _integral_bound(c: dict, shrink: int = 1) -> bool:
    """int_{S_c} 2^-l <= int_{S_c} 2^-c <= (b - a) 2^-c (``shrink``: the twin's divisor)."""
    w = c["b"] - c["a"]
    return all(
        sum(((hi - lo) / 2 ** loss for lo, hi, loss in pieces(c) if loss >= lv), F(0))
        <= sum((hi - lo for lo, hi, loss in pieces(c) if loss >= lv), F(0)) / 2 ** lv
        <= w / 2 ** lv / shrink for lv in CS)


def _tail(c: dict, factor: bool = True) -> bool:
    """Pr(S_c) <= ((b - a)/alpha) 2^-c and Pr(l < c) = 1 - Pr(S_c) (``factor`` False: the
    twin, the factor (b - a)/alpha dropped)."""
    f = (c["b"] - c["a"]) / c["alpha"] if factor else 1
    below = sum(((hi - lo) / 2 ** loss for lo, hi, loss in pieces(c)), F(0))
    return all(_mass(c, lv) <= f / 2 ** lv
               and sum(((hi - lo) / 2 ** loss for lo, hi, loss in pieces(c) if loss < lv),
                       F(0)) / below == 1 - _mass(c, lv) for lv in CS)


def _approx(c: dict, window: F | None = None) -> bool:
    """For tau on the 1/2 grid of [a, b]: l(tau) < c implies some tau' with |tau - tau'| <=
    alpha (``window``) and err_rank(tau', r, D) < c, found by brute force over the 1/8 grid of
    the window and the data points in it."""
    al = c["alpha"] if window is None else window
    for t in (c["a"] + F(i, 2) for i in range(int(2 * (c["b"] - c["a"])) + 1)):
        loss = window_loss_exact(t, c["r"], c["alpha"], c["D"])
        near = [t + F(i, 8) for i in range(-int(8 * al), int(8 * al) + 1)]
        near += [x for x in c["D"] if abs(x - t) <= al]
        if min(rank_error_exact(p, c["r"], c["D"]) for p in near) > loss:
            return False
    return True


def _sampler(c: dict, widths: bool = True) -> bool:
    """Pick I_i with probability width(I_i) p_i / sum (``widths`` False: p_i / sum, the twin),
    then a uniform point of it: Pr(tau^ in [s, s + 1/8]) equals int 2^-l / normaliser computed
    cell by cell on the 1/8 grid (independent of the pieces)."""
    ps = pieces(c)
    weights = [(hi - lo if widths else 1) / 2 ** loss for lo, hi, loss in ps]
    tot = sum(weights, F(0))
    z = _z(c)
    for i in range(int(8 * (c["b"] - c["a"]))):
        s, t = c["a"] + F(i, 8), c["a"] + F(i + 1, 8)
        direct = (t - s) / 2 ** window_loss_exact((s + t) / 2, c["r"], c["alpha"], c["D"]) / z
        two_stage = sum((w / tot * (min(t, hi) - max(s, lo)) / (hi - lo)
                         for w, (lo, hi, _) in zip(weights, ps, strict=True)
                         if min(t, hi) > max(s, lo)), F(0))
        if direct != two_stage:
            return False
    return True


TAIL_STEPS: tuple[Step, ...] = (
    ("int_{S_c} exp(-eps l/2) <= int_{S_c} exp(-eps c/2) <= (b - a) exp(-eps c/2)",
     _integral_bound, lambda c: _integral_bound(c, 2)),
    ("Pr(tau^ in S_c) = int_{S_c} f <= ((b - a)/alpha) exp(-eps c/2), so with probability at "
     "least 1 - Pr(S_c) the loss l(tau^) < c", _tail, lambda c: _tail(c, factor=False)),
    ("'from the definition of the loss': l(tau^) < c makes tau^ an (alpha, c)-approximate "
     "rank-r threshold (some tau' within alpha has err_rank(tau', r, D) <= l(tau^))", _approx,
     lambda c: _approx(c, c["alpha"] / 2)),
    ("the density is constant on each I_i, so sampling I^ with Pr(I^ = I_i) proportional to "
     "width(I_i) p_i and then a uniform point of I^ samples the output distribution",
     _sampler, lambda c: _sampler(c, widths=False)),
)


def cor1_cases() -> Iterator[dict]:
    """Corollary 1's grid: m in 2..40 points, spacing gamma in {1/2, 1, 3}, zeta in {1/10,
    1/2, 1}."""
    for m in range(2, 41):
        for gamma in (F(1, 2), F(1), F(3)):
            for zeta in (F(1, 10), F(1, 2), F(1)):
                yield {"m": m, "gamma": gamma, "zeta": zeta}


def _cor1(c: dict, slack: int = 0) -> bool:
    """(b - a)/alpha = (z_m - z_1)/(gamma/3) <= 3m (``slack``: the twin's 3m - slack), hence
    the log argument (b - a)/(alpha zeta) <= 3m/zeta (the log is increasing)."""
    width = (c["m"] - 1) * c["gamma"]
    ratio = width / (c["gamma"] / 3)
    return ratio <= 3 * c["m"] - slack and ratio / c["zeta"] <= 3 * c["m"] / c["zeta"]


COR1_STEPS: tuple[Step, ...] = (
    ("'(where we used the fact that (b - a)/alpha <= 3m)': err_rank <= (2/eps) ln((b - a)/("
     "alpha zeta)) <= (2/eps) ln(3m/zeta) = beta", _cor1, lambda c: _cor1(c, 4)),
)


# ------------------------------------------ Corollary 1's proof, the case tau~ != tau~'
def cor1_case2_cases() -> Iterator[dict]:
    """Grid {0, 1, 2} (gamma = 1), every multiset D of size 1..3 on it, tau^ and tau' on the
    1/12 lattice of [0, 2] with |tau^ - tau'| <= 2 gamma/3 (the steps need <= alpha = gamma/3;
    the twins use the doubled distance)."""
    lattice = [F(i, 12) for i in range(25)]
    for D in itertools.chain.from_iterable(
            itertools.combinations_with_replacement(_GRID2, n) for n in (1, 2, 3)):
        for t1 in lattice:
            for t2 in lattice:
                if abs(t1 - t2) <= F(2, 3):
                    yield {"D": list(D), "t1": t1, "t2": t2}


_GRID2 = (F(0), F(1), F(2))


def _nearest(t: F) -> set[F]:
    """The closest grid points of ``t`` (both at a tie: the proof's tie-break is not stated)."""
    best = min(abs(t - z) for z in _GRID2)
    return {z for z in _GRID2 if abs(t - z) == best}


def _split(c: dict, reach: F) -> bool:
    """The case's premise: |tau^ - tau'| <= ``reach`` and some choice of closest grid points
    differs (tau~ != tau~')."""
    n1, n2 = _nearest(c["t1"]), _nearest(c["t2"])
    return abs(c["t1"] - c["t2"]) <= reach and not (len(n1) == len(n2) == 1 and n1 == n2)


def _between(c: dict, pts: Any, closed: bool = True) -> list[F]:
    lo, hi = min(c["t1"], c["t2"]), max(c["t1"], c["t2"])
    return [x for x in pts if (lo <= x <= hi if closed else lo < x < hi)]


def _no_data_between(c: dict, reach: F = F(1, 3)) -> bool:
    """'First we argue that D cap [tau^, tau'] must be the empty set'."""
    return not _split(c, reach) or not _between(c, c["D"])


def _grid_point_close(c: dict, halve: bool = False) -> bool:
    """'Then, x is a grid point, and max{|tau^ - x|, |tau' - x|} <= |tau^ - tau'| <= alpha =
    gamma/3' (x a grid point in [tau^, tau']; ``halve``: the twin, <= |tau^ - tau'|/2)."""
    d = abs(c["t1"] - c["t2"])
    if d > F(1, 3):
        return True
    lim = d / 2 if halve else d
    return all(max(abs(c["t1"] - x), abs(c["t2"] - x)) <= lim for x in _between(c, _GRID2))


def _same_closest(c: dict, reach: F = F(1, 3)) -> bool:
    """'both tau^ and tau' are within distance gamma/3 of the same grid point, which means we
    must have tau~ = tau~'' (``reach`` 2/3: the twin)."""
    close = [x for x in _GRID2 if abs(c["t1"] - x) <= reach and abs(c["t2"] - x) <= reach]
    return all(_nearest(c["t1"]) == _nearest(c["t2"]) == {x} for x in close)


def _same_ranks(c: dict, closed: bool = True) -> bool:
    """'Since there are no datapoints in [tau^, tau'], by Lemma 5 ranks(tau^, D) = ranks(tau',
    D)' (``closed`` False: the twin, no datapoint in the open interval)."""
    if _between(c, c["D"], closed):
        return True
    return (sum(1 for x in c["D"] if x < c["t1"]), sum(1 for x in c["D"] if x <= c["t1"])) == (
        sum(1 for x in c["D"] if x < c["t2"]), sum(1 for x in c["D"] if x <= c["t2"]))


def _err_chain(c: dict, reach: F = F(1, 3)) -> bool:
    """'It follows that err_rank(tau~, r, D) <= err_rank(tau^, r, D) = err_rank(tau', r, D)'
    for every rank r and every closest grid point tau~ of tau^ (``reach`` 2/3: the twin)."""
    if not _split(c, reach):
        return True
    D = c["D"]
    for r in range(len(D) + 1):
        e1, e2 = rank_error_exact(c["t1"], r, D), rank_error_exact(c["t2"], r, D)
        if e1 != e2 or any(rank_error_exact(z, r, D) > e1 for z in _nearest(c["t1"])):
            return False
    return True


COR1_CASE2_STEPS: tuple[Step, ...] = (
    ("'First we argue that D cap [tau^, tau'] must be the empty set' (tau~ != tau~', |tau^ - "
     "tau'| <= alpha = gamma/3)", _no_data_between, lambda c: _no_data_between(c, F(2, 3))),
    ("'Then, x is a grid point, and max{|tau^ - x|, |tau' - x|} <= |tau^ - tau'| <= alpha = "
     "gamma/3'", _grid_point_close, lambda c: _grid_point_close(c, halve=True)),
    ("'both tau^ and tau' are within distance gamma/3 of the same grid point, which means we "
     "must have tau~ = tau~''", _same_closest, lambda c: _same_closest(c, F(2, 3))),
    ("'Since there are no datapoints in [tau^, tau'], by Lemma 5 we have that ranks(tau^, D) = "
     "ranks(tau', D)'", _same_ranks, lambda c: _same_ranks(c, closed=False)),
    ("'It follows that err_rank(tau~, r, D) <= err_rank(tau^, r, D) = err_rank(tau', r, D)'",
     _err_chain, lambda c: _err_chain(c, F(2, 3))),
)


def choice_of_c() -> dict[str, object]:
    """6b8f579e: c = (2/eps) ln((b - a)/(alpha zeta)) makes ((b - a)/alpha) exp(-eps c/2) =
    zeta (SymPy, symbolic positive b - a, alpha, zeta, eps); the twin: c with 1/eps."""
    w, al, ze, eps = sp.symbols("w alpha zeta epsilon", positive=True)
    c = 2 / eps * sp.log(w / (al * ze))
    c_twin = 1 / eps * sp.log(w / (al * ze))
    gap = sp.simplify(w / al * sp.exp(-eps * c / 2) - ze)
    gap_twin = sp.simplify(w / al * sp.exp(-eps * c_twin / 2) - ze)
    return {"gap": gap, "gap_twin": gap_twin}


# ----------------------------------------------------------------- Appendix E.1 (Corollary 2)
def lemma8_cases() -> Iterator[dict]:
    """Every multiset X of size 2..6 on {-2, 0, 1, 3, 6}, k = 1/eps in 1..n/2, moment order
    km in {2, 3}."""
    for n in range(2, 7):
        for X in itertools.combinations_with_replacement((F(-2), F(0), F(1), F(3), F(6)), n):
            for k in range(1, n // 2 + 1):
                for km in (2, 3):
                    yield {"X": list(X), "k": k, "km": km}


def _devs(c: dict) -> tuple[list[F], list[F]]:
    """(|X_i - mu(X)| over L_k cup U_k, over all i)."""
    X, k = c["X"], c["k"]
    m = mu(X)
    ends = X[:k] + X[len(X) - k:]
    return [abs(x - m) for x in ends], [abs(x - m) for x in X]


def _l8_first(c: dict, denom_shift: bool = True) -> bool:
    X, k = c["X"], c["k"]
    n = len(X)
    lhs = abs(mu(X[k:]) - mu(X[:n - k]))
    return lhs == abs(sum(X[:k], F(0)) - sum(X[n - k:], F(0))) / (n - k if denom_shift else n)


def _l8_second(c: dict, two: int = 2) -> bool:
    X, k = c["X"], c["k"]
    n = len(X)
    return abs(sum(X[:k], F(0)) - sum(X[n - k:], F(0))) / (n - k) <= F(two, n) * sum(
        _devs(c)[0], F(0))


def _l8_holder(c: dict, count: int = 2) -> bool:
    """sum_{L cup U} |d| <= (sum_{L cup U} |d|^km)^{1/km} (count k)^{(km-1)/km} <= (sum_{[n]}
    |d|^km)^{1/km} (count k)^{(km-1)/km}, compared through km-th powers (``count``: the number
    of points in L cup U over k; the paper's 2, the twin's 1)."""
    ends, every = _devs(c)
    km, k = c["km"], c["k"]
    s1 = sum(ends, F(0))
    return (s1 ** km <= sum((d ** km for d in ends), F(0)) * (count * k) ** (km - 1)
            and sum((d ** km for d in ends), F(0)) <= sum((d ** km for d in every), F(0)))


def _l8_last(c: dict, const: int = 4) -> bool:
    """(2/n)(n M^_km)^{1/km} (2k)^{(km-1)/km} <= const M^_km^{1/km} / (n eps)^{1 - 1/km}
    (eps = 1/k), compared through km-th powers."""
    X, k, km = c["X"], c["k"], c["km"]
    n = len(X)
    mhat = sum((d ** km for d in _devs(c)[1]), F(0)) / n
    lhs = F(2, n) ** km * n * mhat * (2 * k) ** (km - 1)
    rhs = const ** km * mhat * F(k, n) ** (km - 1)
    return lhs <= rhs


def _l8_printed(c: dict) -> bool:
    """The display's last relation as printed: '=' (through km-th powers)."""
    X, k, km = c["X"], c["k"], c["km"]
    n = len(X)
    mhat = sum((d ** km for d in _devs(c)[1]), F(0)) / n
    return F(2, n) ** km * n * mhat * (2 * k) ** (km - 1) == 4 ** km * mhat * F(k, n) ** (km - 1)


LEMMA8_STEPS: tuple[Step, ...] = (
    ("|mu(X^n \\ L_{1/eps}) - mu(X^n \\ U_{1/eps})| = 1/(n - 1/eps) |sum_{L} X_i - sum_{U} X_i|",
     _l8_first, lambda c: _l8_first(c, denom_shift=False)),
    ("<= (2/n) sum_{i in L cup U} |X_i - mu(X^n)| (1/eps <= n/2)", _l8_second,
     lambda c: _l8_second(c, 1)),
    ("<= (2/n) (sum_{L cup U} |X_i - mu(X^n)|^k)^{1/k} (sum_{L cup U} 1)^{(k-1)/k} <= (2/n) "
     "(sum_{[n]} |X_i - mu(X^n)|^k)^{1/k} (sum_{L cup U} 1)^{(k-1)/k} (Hoelder)", _l8_holder,
     lambda c: _l8_holder(c, 1)),
    ("the last line, read as '<=': (2/n)(n M^_k)^{1/k} (2/eps)^{(k-1)/k} <= 4 M^_k^{1/k} / (n "
     "eps)^{1 - 1/k}", _l8_last, lambda c: _l8_last(c, 2)),
)


#: finite distributions p (support, probabilities) for the expectations of E.1
DISTRIBUTIONS: tuple[tuple[tuple[F, ...], tuple[F, ...]], ...] = (
    ((F(0), F(1)), (F(1, 2), F(1, 2))),
    ((F(0), F(1)), (F(1, 4), F(3, 4))),
    ((F(-1), F(0), F(2)), (F(1, 3), F(1, 3), F(1, 3))),
    ((F(0), F(1), F(5)), (F(1, 2), F(1, 4), F(1, 4))),
    ((F(3),), (F(1),)),
)


def moment_cases() -> Iterator[dict]:
    """Every distribution of :data:`DISTRIBUTIONS` and n in 1..4 (every n-tuple enumerated)."""
    for i in range(len(DISTRIBUTIONS)):
        for n in range(1, 5):
            yield {"p": F(i), "n": F(n)}


def _tuples(c: dict) -> list[tuple[F, tuple[F, ...]]]:
    """(probability, X^n) for every n-tuple of the distribution."""
    def make() -> list[tuple[F, tuple[F, ...]]]:
        sup, pr = DISTRIBUTIONS[int(c["p"])]
        out = []
        for idx in itertools.product(range(len(sup)), repeat=int(c["n"])):
            w = F(1)
            for i in idx:
                w *= pr[i]
            out.append((w, tuple(sup[i] for i in idx)))
        return out
    return memo(c, "_tuples", make)


def _pmean(c: dict) -> F:
    sup, pr = DISTRIBUTIONS[int(c["p"])]
    return sum((x * q for x, q in zip(sup, pr, strict=True)), F(0))


def _pmoment(c: dict, k: int) -> F:
    sup, pr = DISTRIBUTIONS[int(c["p"])]
    m = _pmean(c)
    return sum((abs(x - m) ** k * q for x, q in zip(sup, pr, strict=True)), F(0))


def _first_display(c: dict, n_shift: int = 0) -> bool:
    """E|mu(X^n) - mu| <= sqrt(E|mu(X^n) - mu|^2) = sqrt(M_2(p)/n) (squared; ``n_shift``: the
    twin's M_2/(n + 1))."""
    m = _pmean(c)
    e1 = sum((w * abs(mu(list(x)) - m) for w, x in _tuples(c)), F(0))
    e2 = sum((w * (mu(list(x)) - m) ** 2 for w, x in _tuples(c)), F(0))
    return e1 ** 2 <= e2 and e2 == _pmoment(c, 2) / (c["n"] + n_shift)


def _sqrt_le(a: F, b: F, c: F, two: int = 2) -> bool:
    """sqrt(a) <= two (sqrt(b) + c), exactly (a, b, c >= 0)."""
    lhs = a - two * two * b - two * two * c * c
    if lhs <= 0:
        return True
    return lhs * lhs <= (2 * two * two * c) ** 2 * b


def _moment_chain(c: dict, two: int = 2) -> bool:
    """Per sample (k = 2): M^_2(X^n)^{1/2} <= two ((sum |X_i - mu(p)|^2/n)^{1/2} + (sum |mu(X^n)
    - mu(p)|^2/n)^{1/2}), the last root being |mu(X^n) - mu(p)|; and the last line's Jensen
    step E[(sum |X_i - mu(p)|^2/n)^{1/2}] <= M_2(p)^{1/2} in certified intervals."""
    m = _pmean(c)
    n = c["n"]
    for _, x in _tuples(c):
        xs = list(x)
        a = sum(((v - mu(xs)) ** 2 for v in xs), F(0)) / n
        b = sum(((v - m) ** 2 for v in xs), F(0)) / n
        cc = abs(mu(xs) - m)
        if sum(((mu(xs) - m) ** 2 for _ in xs), F(0)) / n != cc ** 2 or not _sqrt_le(a, b, cc,
                                                                                        two):
            return False
    with mpmath.workdps(60):
        e_root = sum((_iv(w) * mpmath.iv.sqrt(_iv(sum(((v - m) ** 2 for v in x), F(0)) / n))
                      for w, x in _tuples(c)), _iv(F(0)))
        bound = mpmath.iv.sqrt(_iv(_pmoment(c, 2)))
        return bool(e_root.b <= bound.a)  # certified: the upper end below the lower end


def _iv(q: F) -> Any:
    """The exact rational ``q`` as an mpmath interval (one division, outward rounded)."""
    return mpmath.iv.mpf(q.numerator) / q.denominator


def _sme_triangle(c: dict, with_mean_term: bool = True) -> bool:
    """Theorem 4's proof: |a - mu| <= |mu(D) - mu| + |a - mu(D)| for every n-tuple D and every
    output a in {-2, -1, .., 6}, hence E|A(D) - mu| <= E|mu(D) - mu| + E|A(D) - mu(D)| for any A
    with outputs there (``with_mean_term`` False: the twin, that term dropped)."""
    m = _pmean(c)
    return all(abs(a - m) <= (abs(mu(list(x)) - m) if with_mean_term else 0)
               + abs(a - mu(list(x))) for _, x in _tuples(c) for a in map(F, range(-2, 7)))


MOMENT_STEPS: tuple[Step, ...] = (
    ("E|mu(X^n) - mu| <= sqrt(E|mu(X^n) - mu|^2) = sqrt(M_2(p)/n)", _first_display,
     lambda c: _first_display(c, 1)),
    ("E[M^_k(X^n)^{1/k}] <= 2 E[(sum |X_i - mu(p)|^k/n)^{1/k} + (sum |mu(X^n) - mu(p)|^k/n)^{1/k}]"
     " = 2 E[(sum |X_i - mu(p)|^k/n)^{1/k}] + 2 E|mu(X^n) - mu(p)| (per sample; k = 2), and "
     "E[(sum |X_i - mu(p)|^k/n)^{1/k}] <= M_k(p)^{1/k} (Jensen)", _moment_chain,
     lambda c: _moment_chain(c, 0)),
    ("Theorem 4's proof: R_SME(A, p) = E|A(D) - mu| <= E|mu(D) - mu| + E|A(D) - mu(D)|",
     _sme_triangle, lambda c: _sme_triangle(c, with_mean_term=False)),
)


# ------------------------------------------------------ Section 3.1: rank thresholds in words
def sec31_cases() -> Iterator[dict]:
    """Every multiset D of size 1..5 on {0, 1, 2}."""
    yield from ({"D": D} for D in data_sets(1, 5) if max(D) <= 2)


_TAUS = [F(v, 2) for v in range(-1, 6)]  # every step point of #{x <= tau} and between them


def _counts_le(D: list[F]) -> set[int]:
    """{#{x in D : x <= tau} : tau real}."""
    return {sum(1 for x in D if x <= t) for t in _TAUS}


def _runs_without_threshold(c: dict, widen: int = 0) -> bool:
    """For each value x of multiplicity m >= 2, no tau has exactly r points <= tau for r in
    #{y < x} + 1 .. #{y < x} + m - 1 (``widen`` 1: the twin also claims #{y < x})."""
    D = c["D"]
    have = _counts_le(D)
    for x in set(D):
        m, below = D.count(x), sum(1 for y in D if y < x)
        if m >= 2 and any(r in have for r in range(below + 1 - widen, below + m)):
            return False
    return True


def _constant(c: dict, both: bool = True) -> bool:
    """D = n copies of x: #{y <= tau} is 0 or n for every tau (``both`` False: the twin, 0
    only)."""
    D = c["D"]
    return len(set(D)) > 1 or _counts_le(D) <= ({0, len(D)} if both else {0})


def _rank_formula(D: list[F], tau: F, r: int, strict: bool = False) -> bool:
    lt, le = sum(1 for x in D if x < tau), sum(1 for x in D if x <= tau)
    return (lt < r if strict else lt <= r) and r <= le


def _quantile(c: dict, strict: bool = False) -> bool:
    """tau is a rank-r threshold (Definition 3) iff it is an (r/n)-quantile of the empirical
    distribution: P(X < tau) <= r/n <= P(X <= tau) (``strict``: the twin, P(X < tau) < r/n)."""
    D = c["D"]
    n = len(D)
    return all(_rank_formula(D, t, r) == (F(sum(1 for x in D if x < t), n)
                                          <= F(r, n) <= F(sum(1 for x in D if x <= t), n))
               if not strict else
               _rank_formula(D, t, r) == (F(sum(1 for x in D if x < t), n) < F(r, n)
                                          <= F(sum(1 for x in D if x <= t), n))
               for t in _TAUS for r in range(n + 1))


def _zero_error(c: dict, strict: bool = False) -> bool:
    """err_rank(tau, r, D) = 0 iff tau is a rank-r threshold (Definition 3's formula;
    ``strict``: the twin's formula with #{x < tau} < r)."""
    D = c["D"]
    return all((rank_error_exact(t, r, D) == 0) == _rank_formula(D, t, r, strict)
               for t in _TAUS for r in range(len(D) + 1))


SEC31_STEPS: tuple[Step, ...] = (
    ("'if D has repeated points then there can be ranks for which no such threshold exists' "
     "(no tau with exactly r points <= tau, r strictly inside a run of equal points)",
     _runs_without_threshold, lambda c: _runs_without_threshold(c, 1)),
    ("'D = {x, .., x}, n copies of the same point; exactly 0 or n points are less than or equal "
     "to any threshold tau'", _constant, lambda c: _constant(c, both=False)),
    ("'This definition is consistent with the standard definition of quantiles for "
     "distributions with point-masses': rank-r iff P(X < tau) <= r/n <= P(X <= tau)",
     _quantile, lambda c: _quantile(c, strict=True)),
    ("'The rank error ... is equal to 0 if and only if tau is a rank-r threshold'", _zero_error,
     lambda c: _zero_error(c, strict=True)),
)


FAMILIES: dict[str, Family] = {
    "tail": (tail_cases, TAIL_STEPS, "Appendix A, eps = 2 ln 2 (density 2^-l): every multiset D "
             "of size 1..3 on {0, 1, 2, 4, 7}, every rank 1 <= r <= |D|, alpha = 1/2, [a, b] = "
             "[-1, 8], c in {0, 1, 2, 3}, the output on the 1/8 grid, tau on the 1/2 grid"),
    "cor1": (cor1_cases, COR1_STEPS, "Corollary 1's proof: m in 2..40 grid points, gamma in "
             "{1/2, 1, 3}, alpha = gamma/3, zeta in {1/10, 1/2, 1}"),
    "lemma8": (lemma8_cases, LEMMA8_STEPS, "Appendix E.1, Lemma 8's proof: every multiset X of "
               "size 2..6 on {-2, 0, 1, 3, 6}, 1/eps in 1..n/2, moment order k in {2, 3}"),
    "moments": (moment_cases, MOMENT_STEPS, "Appendix E.1: five finite distributions with "
                "rational probabilities (supports {0, 1}, {-1, 0, 2}, {0, 1, 5}, {3}), n in "
                "1..4, every n-tuple; the Jensen step in certified intervals (mpmath.iv)"),
    "sec31": (sec31_cases, SEC31_STEPS, "Section 3.1: every multiset D of size 1..5 on {0, 1, "
              "2}, every tau in {-1/2, 0, .., 5/2}, every rank 0..|D|"),
    "cor1-case2": (cor1_case2_cases, COR1_CASE2_STEPS, "Corollary 1's proof, case tau~ != "
                   "tau~': grid {0, 1, 2} (gamma = 1, alpha = 1/3), every multiset D of size "
                   "1..3 on it, tau^, tau' on the 1/12 lattice of [0, 2] within 2/3 of each "
                   "other (the steps apply within 1/3; ties: every closest grid point), every "
                   "rank 0..|D|"),
}


def family_id(name: str) -> str:
    return {"tail": "text.subset.a-tail", "cor1": "text.subset.a-cor1-grid",
            "lemma8": "text.subset.e1-lemma8-proof", "moments": "text.subset.e1-moments",
            "sec31": "text.subset.sec31-rank-prose",
            "cor1-case2": "text.subset.a-cor1-case2"}[name]


def _label(fid: str) -> str:
    return ("Appendix A: " if fid.startswith("text.subset.a-") else
            "Section 3.1: " if fid.startswith("text.subset.sec31") else "Appendix E.1: ")


_PRINTED: tuple[Printed, ...] = (
    ("text.subset.e1-lemma8-last-line",
     "Appendix E.1, proof of Lemma 8: the display's last relation '(2/n)(sum_{[n]} |X_i - "
     "mu(X^n)|^k)^{1/k} (sum_{L cup U} 1)^{(k-1)/k} = 4 M^_k(X^n)^{1/k}/(n eps)^{1 - 1/k}'",
     "lemma8", _l8_printed, "(a) as printed: '=' (the left side is 2^{2 - 1/k} M^^{1/k} / (n "
     "eps)^{1 - 1/k}, less than 4 unless M^_k = 0)", "(b) read as '<=' (text.subset.e1-lemma8-"
     "proof's last step)", _l8_last),
)


@claim("text.subset.a-e1-steps", "Appendix A: the exponential mechanism's tail steps, the loss's "
       "definition, Corollary 1's (b - a)/alpha <= 3m and its case tau~ != tau~', the two-stage "
       "sampler; Appendix E.1: "
       "Corollary 2's first display, the moment chain, Lemma 8's proof; Section 3.1's sentences "
       "on rank thresholds (exhaustive, exact)",
       "prove", reference="Appendices A, E.1")
def a_e1_steps(budget_s: float, seed: int) -> list[Finding]:
    t0 = time.perf_counter()
    out = family_findings(FAMILIES, family_id, _label, seed, t0, REF)
    out += printed_findings(seed, t0, _PRINTED, FAMILIES, REF)
    r = choice_of_c()
    ok = r["gap"] == 0
    tw = twin("c = (1/eps) ln((b - a)/(alpha zeta)) (the factor 2 dropped): the same SymPy "
              "simplification", "refuted" if r["gap_twin"] != 0 else "not-refuted",
              witness={"gap": str(r["gap_twin"])})
    fid = "text.subset.a-choice-of-c"
    out.append(paper_finding(
        id=fid, claim="Appendix A: 'Choosing c = (2/eps) ln((b - a)/(alpha zeta)) results in "
        "Pr(tau^ in S_c) <= zeta': ((b - a)/alpha) exp(-eps c/2) = zeta", reference=REF,
        method=Method.SYMBOLIC, reading="",
        verdict=decide(ok, tw, failed=Verdict.REFUTED,
                       vacuous_reason="the perturbed choice simplifies to zeta too"),
        scope="SymPy simplify for symbolic b - a, alpha, zeta, eps > 0",
        evidence={"gap": str(r["gap"]), "twin": tw},
        counterexample=None if ok else counterexample_document(
            fid, SUBJECT, {"symbolic": True}, "0", str(r["gap"]), None),
        seed=seed, duration_s=time.perf_counter() - t0, subject=SUBJECT))
    return out


@replayer("text.subset.a-choice-of-c")
def replay_choice(inputs: dict) -> tuple[bool, object, object, str]:
    gap = choice_of_c()["gap"]
    return gap != 0, "0", str(gap), f"((b - a)/alpha) exp(-eps c/2) - zeta = {gap}"


register_replayers(FAMILIES, family_id, _PRINTED)
