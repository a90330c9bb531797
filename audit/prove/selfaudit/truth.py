"""The true privacy loss of a generated program, computed from its :class:`~.spec.Spec` alone.

This oracle shares no code with the prover (it imports nothing from ``audit.prove`` but the
spec, and nothing from ``audit.dsl``): it never runs the DSL program, and it computes output
probabilities in closed form.

Exact output laws.  Every probability the families need is an integral (Laplace noise) or a
sum over the integers (two-sided geometric noise) of a product of *piecewise exponential*
factors in one variable x: the density / pmf of a noise at x - m, its CDF at x - m + s or
its complement, each of the form ``sum_r c_r e^{r x}`` on either side of one breakpoint.  On
every interval between consecutive breakpoints the product is again such a sum (rates add,
exact Fractions), and ``int c e^{rx} dx`` / ``sum_k c e^{rk}`` over the interval has a closed
form (a geometric series for the integers).  So the probability of one SVT output given q
(integrating over the threshold noise rho), of one Noisy-Max index (integrating over the
winner's noisy value), the density of the Noisy-Max value, and the density of (index, gap)
are evaluated exactly up to floating rounding: each term is computed with a relative error
of a few ulps, so the result's error is at most :data:`REL_ERR` times the sum of the
absolute values of the terms, which is carried along (a certified error bound).

Loss.  For a finite output space the largest ratio over events is the largest ratio over
single outputs; for a continuous output, the density ratio at a point (densities are
continuous, so a small box around it has nearly the same ratio).  A *witness* at n is a
neighbouring pair q, q' (differences in the relation; integers for geometric programs) and
an output whose ratio exceeds e^eps even after the error bounds are subtracted: a certified
"not eps-DP at n".  The pairs searched are structured (:func:`pairs`): q all 0 or all +-L,
with d all +1, all -1, one entry against the rest, alternating, or a single +-1.

*Private at n* needs a proof, not a search: a sufficient condition from the literature with
its alignment cost, in :func:`private_bound` (Lyu, Su & Li, PVLDB 2017, Thm. 2 and the
monotone case of their Sec. 4; Dwork & Roth 2014, Claim 3.9 and the Laplace mechanism; Ding,
Wang, Zhang & Kifer, PVLDB 2019, Thm. 2 and Sec. 4.1; sequential composition), each
restated with its alignment in the docstring.  The sums families have an exact loss:
outputs ``mu_k(q) + X_k`` with independent noises have
``sup log ratio = sum_k |mu_k(q') - mu_k(q)| / s_k``, attained far out in the tails (and at
every far integer point for geometric noise), maximised over the relation's vertices (a
convex function of d); a shared noise makes the differences of outputs exact, so a pair
that changes them has infinite loss.

Nothing here prints or writes files.
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Iterator
from dataclasses import dataclass, field
from fractions import Fraction

from audit.prove.selfaudit.spec import Spec

__all__ = ["EPS", "N_MAX", "REL_ERR", "Truth", "Witness", "pair_loss", "pair_witness", "pairs",
           "private_bound", "probability", "status_at", "truth"]

#: the claimed epsilon of every generated program
EPS = Fraction(1)
#: the oracle decides n = 1 .. N_MAX
N_MAX = 6
#: relative error bound of one closed-form term (exp, a product of at most ~10 factors, a
#: division; each a few ulps): generous
REL_ERR = 1e-12

Terms = dict[Fraction, float]


@dataclass(frozen=True)
class _Factor:
    """``left`` (for x < beta) or ``right`` (x >= beta), each ``sum_r c_r e^{r x}``."""

    beta: Fraction
    left: Terms
    right: Terms

    def at(self, x: float | Fraction) -> Terms:
        return self.left if x < self.beta else self.right


def _complement(f: _Factor) -> _Factor:
    def one_minus(t: Terms) -> Terms:
        out = {r: -c for r, c in t.items()}
        out[Fraction(0)] = out.get(Fraction(0), 0.0) + 1.0
        return out
    return _Factor(f.beta, one_minus(f.left), one_minus(f.right))


def _density(law: str, s: Fraction, m: Fraction) -> _Factor:
    """The density (Laplace) or pmf (geometric, integer x) of a noise of scale s at x - m."""
    k = 1 / (2 * float(s)) if law == "laplace" else math.tanh(1 / (2 * float(s)))
    # geometric: (1 - a) / (1 + a) with a = e^{-1/s} is tanh(1 / (2 s))
    r = 1 / s
    return _Factor(m, {r: k * math.exp(-float(m * r))}, {-r: k * math.exp(float(m * r))})


def _cdf(law: str, s: Fraction, m: Fraction, shift: int = 0) -> _Factor:
    """P(X <= x - m + shift) for a noise X of scale s (``shift`` only for integer x)."""
    r = 1 / s
    if law == "laplace":
        # t = x - m: t < 0: e^{t/s}/2; t >= 0: 1 - e^{-t/s}/2
        return _Factor(m, {r: 0.5 * math.exp(-float(m * r))},
                       {Fraction(0): 1.0, -r: -0.5 * math.exp(float(m * r))})
    a1 = 1 / (1 + math.exp(-float(r)))  # 1 / (1 + a)
    # t = x - m + shift (integer): t >= 0: 1 - a^{t+1}/(1+a); t <= -1: a^{-t}/(1+a)
    beta = m - shift
    return _Factor(beta, {r: a1 * math.exp(float((shift - m) * r))},
                   {Fraction(0): 1.0, -r: -a1 * math.exp(float((m - shift - 1) * r))})


def _interval_integral(r: Fraction, lo: float, hi: float, discrete: bool) -> float:
    """``int_lo^hi e^{r x} dx`` or ``sum_{x = lo}^{hi - 1} e^{r x}`` (lo, hi may be
    infinite; the caller guarantees convergence)."""
    rf = float(r)
    if r == 0:
        if math.isinf(lo) or math.isinf(hi):
            raise ArithmeticError("a divergent term (the integrand does not decay)")
        return hi - lo
    e_lo = 0.0 if lo == -math.inf else math.exp(rf * lo)
    e_hi = 0.0 if hi == math.inf else math.exp(rf * hi)
    if (lo == -math.inf and rf < 0) or (hi == math.inf and rf > 0):
        raise ArithmeticError("a divergent term (the integrand does not decay)")
    if discrete:
        return (e_lo - e_hi) / -math.expm1(rf)
    return (e_hi - e_lo) / rf


def _product(factors: list[Terms]) -> Terms:
    acc: Terms = {Fraction(0): 1.0}
    for t in factors:
        nxt: Terms = {}
        for r1, c1 in acc.items():
            for r2, c2 in t.items():
                nxt[r1 + r2] = nxt.get(r1 + r2, 0.0) + c1 * c2
        acc = nxt
    return acc


def _integrate(factors: list[_Factor], discrete: bool) -> tuple[float, float]:
    """``int`` (or ``sum`` over the integers) of the product of ``factors`` over the line, and
    its error bound."""
    cuts = sorted({f.beta for f in factors})
    bounds = [-math.inf, *[float(c) for c in cuts], math.inf]
    total = 0.0
    mass = 0.0
    for i in range(len(bounds) - 1):
        lo, hi = bounds[i], bounds[i + 1]
        if lo == hi:
            continue
        probe = cuts[i - 1] if i > 0 else cuts[0] - 1  # a point of the interval
        terms = _product([f.at(probe) for f in factors])
        for r, c in terms.items():
            if c == 0.0:
                continue
            v = c * _interval_integral(r, lo, hi, discrete)
            total += v
            mass += abs(v)
    return total, REL_ERR * (mass + 1e-300)


def _evaluate(factors: list[_Factor], x: Fraction) -> tuple[float, float]:
    """The product of ``factors`` at the point x, and its error bound."""
    total, mass = 1.0, 1.0
    for f in factors:
        t = f.at(x)
        v = sum(c * math.exp(float(r * x)) for r, c in t.items())
        total *= v
        mass *= sum(abs(c) * math.exp(float(r * x)) for r, c in t.items())
    return total, REL_ERR * (mass + 1e-300)


# output laws ------------------------------------------------------------------------------------
def svt_outputs(n: int, cutoff: int) -> list[tuple[bool, ...]]:
    """Every output of SVT on n queries: True/False per query read, halting after ``cutoff``
    Trues."""
    outs: list[tuple[bool, ...]] = []

    def grow(prefix: tuple[bool, ...], trues: int) -> None:
        if trues == cutoff or len(prefix) == n:
            outs.append(prefix)
            return
        grow((*prefix, False), trues)
        grow((*prefix, True), trues + 1)
    grow((), 0)
    return outs


def _svt_prob(spec: Spec, q: tuple[Fraction, ...], out: tuple[bool, ...]
              ) -> tuple[float, float]:
    """P(out | q): query i answers True iff q_i + nu_i >= T + rho (T = 0); x = rho."""
    geo = spec.law == "geometric"
    fs = []
    for i, top in enumerate(out):
        # nu_i >= x - q_i  <=>  not (nu_i <= x - q_i - 1) (integers) / not (nu_i < x - q_i)
        below = _cdf(spec.law, spec.q_scale, q[i], -1 if geo else 0)
        fs.append(_complement(below) if top else below)
    if spec.t_scale is None:
        return _evaluate(fs, Fraction(0))
    fs.append(_density(spec.law, spec.t_scale, Fraction(0)))
    return _integrate(fs, geo)


def _index_prob(spec: Spec, q: tuple[Fraction, ...], k: int) -> tuple[float, float]:
    """P(argmax = k | q), ties to the lowest index; x = the winner's noisy value."""
    geo = spec.law == "geometric"
    fs = [_density(spec.law, spec.q_scale, q[k])]
    for j in range(len(q)):
        if j != k:  # q_j + X_j < x for j < k, <= x for j > k
            fs.append(_cdf(spec.law, spec.q_scale, q[j], -1 if (geo and j < k) else 0))
    return _integrate(fs, geo)


def _value_density(spec: Spec, q: tuple[Fraction, ...], y: Fraction) -> tuple[float, float]:
    """Density (pmf) of the largest noisy value at y."""
    geo = spec.law == "geometric"
    tot, err = 0.0, 0.0
    for k in range(len(q)):
        fs = [_density(spec.law, spec.q_scale, q[k])]
        fs += [_cdf(spec.law, spec.q_scale, q[j], -1 if (geo and j < k) else 0)
               for j in range(len(q)) if j != k]
        v, e = _evaluate(fs, y)
        tot, err = tot + v, err + e
    return tot, err


def _gap_density(spec: Spec, q: tuple[Fraction, ...], k: int, g: Fraction
                 ) -> tuple[float, float]:
    """Density of (argmax = k, gap = g > 0) for Laplace noise; x = the winner's value."""
    tot, err = 0.0, 0.0
    for j in range(len(q)):
        if j == k:
            continue
        fs = [_density(spec.law, spec.q_scale, q[k]),
              _density(spec.law, spec.q_scale, q[j] + g)]
        fs += [_cdf(spec.law, spec.q_scale, q[m] + g) for m in range(len(q))
               if m not in (k, j)]
        v, e = _integrate(fs, False)
        tot, err = tot + v, err + e
    return tot, err


def _events(spec: Spec, n: int, q_all: list[tuple[Fraction, ...]]) -> list[object]:
    """The outputs (or density points) compared for one n."""
    if spec.family == "svt":
        return list(svt_outputs(n, spec.cutoff))
    if spec.output == "index":
        return list(range(n))
    lo = min(min(q) for q in q_all) - 4 * spec.q_scale
    hi = max(max(q) for q in q_all) + 4 * spec.q_scale
    step = Fraction(1) if spec.law == "geometric" else spec.q_scale / 2
    ys: list[object] = []
    y = Fraction(math.floor(lo))
    while y <= hi:
        ys.append(y)
        y += step
    if spec.output == "value":
        return ys
    gaps = [spec.q_scale * f for f in (Fraction(1, 8), Fraction(1, 2), Fraction(1),
                                       Fraction(2), Fraction(4))]
    return [(k, g) for k in range(n) for g in gaps]


def probability(spec: Spec, q: tuple[Fraction, ...], event: object) -> tuple[float, float]:
    """The probability (or density) of ``event`` on q, with its error bound."""
    if spec.family == "svt":
        assert isinstance(event, tuple)
        return _svt_prob(spec, q, event)
    if spec.output == "index":
        assert isinstance(event, int)
        return _index_prob(spec, q, event)
    if spec.output == "value":
        assert isinstance(event, Fraction)
        return _value_density(spec, q, event)
    assert isinstance(event, tuple)
    return _gap_density(spec, q, event[0], event[1])


# the pairs searched --------------------------------------------------------------------------
def _in_relation(d: tuple[int, ...], relation: str) -> bool:
    if relation == "monotone1":
        return all(v >= 0 for v in d) or all(v <= 0 for v in d)
    if relation == "onehot1":
        return sum(1 for v in d if v) <= 1
    return True


def pairs(spec: Spec, n: int) -> Iterator[tuple[tuple[Fraction, ...], tuple[Fraction, ...]]]:
    """The neighbouring pairs (q, q') searched at n (see the module docstring)."""
    ds: list[tuple[int, ...]] = [(1,) * n, (-1,) * n, (*(1,) * (n - 1), -1),
                                 (*(-1,) * (n - 1), 1), (1, *(-1,) * (n - 1)),
                                 (-1, *(1,) * (n - 1)),
                                 tuple(1 if i % 2 == 0 else -1 for i in range(n))]
    for i in range(n):
        for sgn in (1, -1):
            ds.append(tuple(sgn if j == i else 0 for j in range(n)))
    big = int(math.ceil(2 * max(spec.q_scale, spec.t_scale or 0)))
    qs = [(0,) * n, (big,) * n, (-big,) * n]
    seen = set()
    for qv in qs:
        for d in ds:
            if not any(d) or not _in_relation(d, spec.relation) or (qv, d) in seen:
                continue
            seen.add((qv, d))
            yield (tuple(Fraction(v) for v in qv),
                   tuple(Fraction(a + b) for a, b in zip(qv, d, strict=True)))


# sufficient conditions --------------------------------------------------------------------------
def private_bound(spec: Spec, n: int) -> tuple[Fraction | None, str]:
    """An upper bound on the loss at n from a proof in the literature (None: no such bound),
    with the argument.  Normalised: scales at eps = 1.

    * SVT, at most k = min(c, n) Trues: shift rho by 1 and each True's nu_i by 2 (Lyu et al.
      Thm. 2): 1/sT + 2k/sQ; monotone queries: rho by 1 (d >= 0) or 0 (d <= 0) and a True's
      nu_i by 1 - d_i or -d_i (Lyu et al. Sec. 4): 1/sT + k/sQ; every nu_i by d_i (the
      output is a function of the n noisy comparisons given rho): n/sQ; at n = 1 rho alone by
      d_0: 1/sT.  Integer shifts, so the same for geometric noise.
    * Noisy Max index: winner's noise by 2 (Dwork & Roth Claim 3.9 for general queries;
      ties to the lowest index keep the winner when its value rises by at least 1): 2/s; monotone:
      1 - d_k or -d_k: 1/s; gap (Ding et al. Thm. 2 / Sec. 4.1): the same; index, gap, value are
      functions of the n noisy values: n/s (Laplace mechanism, linf1 and monotone1).
    * n = 1 Noisy Max index: a constant output, loss 0."""
    s = spec.q_scale
    if spec.family == "svt":
        k = min(spec.cutoff, n)
        t = None if spec.t_scale is None else 1 / spec.t_scale
        cands: list[tuple[Fraction, str]] = [(n / s, "every nu_i shifted by d_i (n/sQ)")]
        if t is not None:
            per = 1 if spec.relation == "monotone1" else 2
            cands.append((t + per * k / s, f"Lyu et al. alignment (1/sT + {per}k/sQ)"))
            if n == 1:
                cands.append((t, "rho shifted by d_0 (1/sT)"))
        if spec.relation == "onehot1":
            cands.append((1 / s, "the one changed query's nu shifted (1/sQ)"))
        return min(cands)
    if spec.family == "noisy_max":
        cands = [(n / s, "functions of the n noisy values (n/s)")]
        if spec.output in ("index", "gap") and n == 1:
            cands.append((Fraction(0), "a constant output"))
        if spec.output in ("index", "gap"):
            per = 1 if spec.relation == "monotone1" else 2
            cands.append((per / s, f"winner's noise shifted ({per}/s)"))
        return min(cands)
    return None, "exact (sums)"


def _sum_loss(spec: Spec, n: int) -> Fraction | None:
    """Exact loss of the sums families at n (None: infinite), over the relation's vertices."""
    best = Fraction(0)
    for d in itertools.product((-1, 0, 1), repeat=n):
        if not _in_relation(d, spec.relation):
            continue
        pre = list(itertools.accumulate(d))
        if spec.family == "sum":
            moves = [pre[-1]]
        elif spec.family == "histogram":
            moves = list(d)
        elif spec.family == "prefix":
            moves = pre
        else:  # shared_prefix: one noise; the differences of prefixes are exact
            if any(v != pre[0] for v in pre):
                return None
            moves = [pre[0]]
        best = max(best, sum((Fraction(abs(v)) for v in moves), Fraction(0)) / spec.q_scale)
    return best


# the verdict of the oracle ----------------------------------------------------------------------
@dataclass
class Witness:
    """A certified violation at n: ``log_ratio_lower`` > eps."""

    n: int
    q: tuple[Fraction, ...]
    q_prime: tuple[Fraction, ...]
    event: object
    log_ratio_lower: float

    def text(self) -> str:
        q = [str(v) for v in self.q]
        qp = [str(v) for v in self.q_prime]
        return (f"n={self.n} q={q} q'={qp} event={self.event!r} "
                f"log-ratio >= {self.log_ratio_lower:.4f}")


@dataclass
class Truth:
    """Per n: ``private`` (with the bound and its argument), ``not-private`` (a witness, or
    the exact infinite / above-eps loss of a sums program) or ``undetermined``."""

    spec: Spec
    status: dict[int, str] = field(default_factory=dict)
    bound: dict[int, Fraction | None] = field(default_factory=dict)
    argument: dict[int, str] = field(default_factory=dict)
    witness: dict[int, Witness] = field(default_factory=dict)
    #: oracle self-contradictions (a witness against a proved bound): must stay empty
    conflicts: list[str] = field(default_factory=list)

    def first_violation(self) -> int | None:
        bad = [n for n, s in self.status.items() if s == "not-private"]
        return min(bad) if bad else None

    def private_upto(self) -> int:
        """The largest m with every n <= m private."""
        m = 0
        for n in sorted(self.status):
            if self.status[n] != "private":
                break
            m = n
        return m

    def label(self) -> str:
        v = self.first_violation()
        if v is not None:
            return f"not private (n >= {v})" if v > 1 else "not private"
        if all(s == "private" for s in self.status.values()):
            return "private"
        return "undetermined"


def _random_pairs(spec: Spec, n: int, count: int, rng: random.Random
                  ) -> list[tuple[tuple[Fraction, ...], tuple[Fraction, ...]]]:
    """``count`` random pairs: q on the grid of step 1/2 (1 for geometric programs) within
    +-3 scales, d a random vertex of the relation."""
    step = Fraction(1) if spec.law == "geometric" else Fraction(1, 2)
    span = int(3 * max(spec.q_scale, spec.t_scale or 0) / step) + 1
    out = []
    for _ in range(count):
        q = tuple(rng.randint(-span, span) * step for _ in range(n))
        while True:
            if spec.relation == "onehot1":
                d = [0] * n
                d[rng.randrange(n)] = rng.choice((1, -1))
            elif spec.relation == "monotone1":
                sgn = rng.choice((1, -1))
                d = [sgn * rng.choice((0, 1, 1)) for _ in range(n)]
            else:
                d = [rng.choice((-1, 0, 1)) for _ in range(n)]
            if any(d):
                break
        out.append((q, tuple(a + b for a, b in zip(q, d, strict=True))))
    return out


#: random pairs per n, then greedy steps (moving one q_i by +-1/2 or +-1) from the best
RANDOM_PAIRS = 120
CLIMB_STEPS = 40


def _search(spec: Spec, n: int, eps: Fraction) -> tuple[Witness | None, float]:
    """The largest certified log-ratio lower bound over the pairs and events at n, and a
    witness when it exceeds eps: the structured pairs (:func:`pairs`), then
    :data:`RANDOM_PAIRS` random ones (a generator seeded by the program's name and n), then
    a greedy climb from the best pair.  A lower bound on the loss in every case."""
    events = _events(spec, n, [(Fraction(-8 * max(spec.q_scale, spec.t_scale or 0)),) * n,
                               (Fraction(8 * max(spec.q_scale, spec.t_scale or 0)),) * n])
    cache: dict[tuple[tuple[Fraction, ...], object], tuple[float, float]] = {}

    def prob(q: tuple[Fraction, ...], ev: object) -> tuple[float, float]:
        key = (q, ev)
        if key not in cache:
            cache[key] = probability(spec, q, ev)
        return cache[key]

    def score(q: tuple[Fraction, ...], qp: tuple[Fraction, ...]) -> tuple[float, Witness]:
        top, wit = -math.inf, Witness(n, q, qp, None, -math.inf)
        for ev in events:
            (a, ea), (b, eb) = prob(q, ev), prob(qp, ev)
            for num, en, den, ed, pair in ((a, ea, b, eb, (q, qp)), (b, eb, a, ea, (qp, q))):
                if num - en <= 0:
                    continue
                lr = math.inf if den + ed <= 0 else math.log((num - en) / (den + ed))
                if lr > top:
                    top, wit = lr, Witness(n, pair[0], pair[1], ev, lr)
        return top, wit

    rng = random.Random(f"{spec.name}/{n}")
    best, best_w = -math.inf, None
    for q, qp in [*pairs(spec, n), *_random_pairs(spec, n, RANDOM_PAIRS, rng)]:
        val, w = score(q, qp)
        if val > best:
            best, best_w = val, w
        if best > float(eps):
            return best_w, best
    step = Fraction(1) if spec.law == "geometric" else Fraction(1, 2)
    for _ in range(CLIMB_STEPS):
        if best_w is None:
            break
        i = rng.randrange(n)
        mv = rng.choice((step, -step))
        q = tuple(v + (mv if j == i else 0) for j, v in enumerate(best_w.q))
        qp = tuple(v + (mv if j == i else 0) for j, v in enumerate(best_w.q_prime))
        val, w = score(q, qp)
        if val > best:
            best, best_w = val, w
            if best > float(eps):
                return best_w, best
    return None, best


def status_at(spec: Spec, n: int, eps: Fraction = EPS, sanity: bool = False
              ) -> tuple[str, Fraction | None, str, Witness | None, str]:
    """The oracle at one n: (status, bound, argument, witness, conflict) -- ``conflict``
    non-empty when ``sanity`` searched a private-by-proof n and found a witness."""
    if spec.family in ("sum", "histogram", "prefix", "shared_prefix"):
        loss = _sum_loss(spec, n)
        why = "exact: sum_k |mu_k(q') - mu_k(q)| / s_k over the relation" + (
            "" if loss is not None else " (a shared noise: an exact difference changes)")
        ok = loss is not None and loss <= eps
        return ("private" if ok else "not-private"), loss, why, None, ""
    bound, why = private_bound(spec, n)
    if bound is not None and bound <= eps:
        conflict = ""
        if sanity:
            w, _ = _search(spec, n, eps)
            if w is not None:
                conflict = f"{spec.name}: proved bound {bound} ({why}) but witness {w.text()}"
        return "private", bound, why, None, conflict
    w, _ = _search(spec, n, eps)
    return ("not-private" if w is not None else "undetermined"), bound, why, w, ""


def pair_loss(spec: Spec, q: tuple[Fraction, ...], q_prime: tuple[Fraction, ...]
              ) -> tuple[float, float] | None:
    """Certified (lower, upper) bounds on the largest log-ratio over single outputs of one
    pair, both directions, for the finite-output families (SVT, Noisy-Max index): the sup of
    the ratio over every event of that pair.  None for other families."""
    if spec.family != "svt" and spec.output != "index":
        return None
    lo, hi = -math.inf, -math.inf
    for ev in _events(spec, len(q), [q, q_prime]):
        (a, ea), (b, eb) = probability(spec, q, ev), probability(spec, q_prime, ev)
        for num, en, den, ed in ((a, ea, b, eb), (b, eb, a, ea)):
            if num + en <= 0:
                continue
            lo = max(lo, math.log((num - en) / (den + ed)) if num - en > 0 else -math.inf)
            hi = max(hi, math.inf if den - ed <= 0 else math.log((num + en) / (den - ed)))
    return lo, hi


def pair_witness(spec: Spec, q: tuple[Fraction, ...], q_prime: tuple[Fraction, ...],
                 eps: Fraction = EPS) -> Witness | None:
    """A certified witness on the one given pair (both directions, every event of the
    family at that n), evaluated by this oracle: how a pair found elsewhere (e.g. by the
    prover's refutation search) is confirmed independently."""
    n = len(q)
    events = _events(spec, n, [q, q_prime])
    best: Witness | None = None
    for ev in events:
        (a, ea), (b, eb) = probability(spec, q, ev), probability(spec, q_prime, ev)
        for num, en, den, ed, pair in ((a, ea, b, eb, (q, q_prime)),
                                       (b, eb, a, ea, (q_prime, q))):
            if num - en <= 0:
                continue
            lr = math.inf if den + ed <= 0 else math.log((num - en) / (den + ed))
            if lr > float(eps) and (best is None or lr > best.log_ratio_lower):
                best = Witness(n, pair[0], pair[1], ev, lr)
    return best


def truth(spec: Spec, n_max: int = N_MAX, eps: Fraction = EPS, sanity_n: int = 3) -> Truth:
    """The oracle's verdict for n = 1..``n_max`` (module docstring).  Private-by-proof sizes
    are also searched for n <= ``sanity_n``: a witness there is a conflict."""
    t = Truth(spec)
    for n in range(1, n_max + 1):
        st, bound, why, w, conflict = status_at(spec, n, eps, sanity=n <= sanity_n)
        t.status[n], t.bound[n], t.argument[n] = st, bound, why
        if w is not None:
            t.witness[n] = w
        if conflict:
            t.conflicts.append(conflict)
    return t
