"""The steps of Section 4.1.1 (one element increased: the sign of (14), Lemma 4.1's proof, the
term B of (20)) and the displays (37)-(39), (50), (51) and Lemma A.1's proof of Appendix
A.1.2 / A.1.3 of Lan & Reiter (2025), each tested itself (issue 42).

Exhaustive and exact (Fractions) on every multiset of size 3..6 drawn from {1, 2, 3, 5, 8}
(:func:`proofs.gini.claims_appendix.data_sets`; for B's sign also {0, 1, 2, 3}, where g_0 = 1
occurs).  Delta g is always recomputed from eq. (2) on the perturbed data set
(:func:`proofs.gini.claims_a2_steps.gini`); A(m, m') is the bracket of (14) (eq. (15)'s
expression, :func:`proofs.gini.claims_appendix.rank_bracket`), D(m, m') the bracket of (48);
s_m, q_m as in :mod:`proofs.gini.claims_appendix` (s_m = n when no m' < n qualifies).  The
increase a runs over the ends, quarter points and midpoint of each rank's interval
[x_{m'} - x_m, x_{m'+1} - x_m] (the last one to x_n - x_m + 2).
"""

from __future__ import annotations

import functools
import itertools
from fractions import Fraction as Q

from audit.findings import Finding
from audit.registry import replayer
from proofs.gini import claim
from proofs.gini.claims_a2_steps import (
    Bad,
    Data,
    Vec,
    gini,
    multisets,
    readings_finding,
    replay_table,
    sign_of,
    step_finding,
    step_findings,
)
from proofs.gini.claims_appendix import data_sets, q_t, rank_bracket, s_t

REF411 = ("Lan & Reiter 2025, Sections 4.1.1 / 4.1.3 (Lemma 4.1 and its proof, eq. (20), "
          "the steps of (21))")
REFA1 = "Lan & Reiter 2025, Appendix A.1.2 / A.1.3"
SCOPE = ("every multiset of size 3..6 on {{1, 2, 3, 5, 8}} ({count} data sets){extra}; exact "
         "Fractions, Delta g from eq. (2) on the perturbed data")


def delta(x: Vec, m: int, v: Q) -> Q:
    """g(X with x_m replaced by v) - g(X), eq. (2)."""
    return _delta(tuple(x), m, v)


@functools.lru_cache(maxsize=1 << 16)
def _delta(x: tuple, m: int, v: Q) -> Q:
    y = list(x)
    y[m - 1] = v
    return gini(y) - _g0(x)


@functools.lru_cache(maxsize=1 << 12)
def _g0(x: tuple) -> Q:
    return gini(list(x))


def coef(x: Vec, mp: int) -> Q:
    """2m'/(n - 1) - w - g_0, w = (n + 1)/(n - 1)."""
    n = len(x)
    return Q(2 * mp - n - 1, n - 1) - _g0(tuple(x))


def a_points(x: Vec, m: int, mp: int) -> list[Q]:
    """Increases a placing x_m + a in rank m' (ends, quarter points, midpoint)."""
    return _a_points(tuple(x), m, mp)


@functools.lru_cache(maxsize=1 << 14)
def _a_points(x: tuple, m: int, mp: int) -> list[Q]:
    lo = x[mp - 1] - x[m - 1]
    hi = (x[mp] if mp < len(x) else x[-1] + 2) - x[m - 1]
    return [lo + (hi - lo) * Q(j, 4) for j in range(5)] if hi > lo else []


def signs_of_13(data: Data) -> dict[int, dict]:
    """A witness of each sign of Delta g(m, m', a) (a > 0) in the scope."""
    found: dict[int, dict] = {}
    for x in data:
        for m in range(1, len(x) + 1):
            for mp in range(m, len(x) + 1):
                for a in a_points(x, m, mp):
                    if a > 0:
                        s = sign_of(delta(x, m, x[m - 1] + a))
                        found.setdefault(s, {"data": [str(v) for v in x], "m": m, "a": str(a)})
    return found


def monotone_in_a_violation(x: Vec, across: bool = False) -> dict | None:
    """'within any interval ... Delta g(m, m', a) [is] always increasing or always
    decreasing' at fixed (m, m').  ``across`` (the twin): one direction for every m' too."""
    for m in range(1, len(x) + 1):
        dirs = set()
        for mp in range(m, len(x) + 1):
            vals = [delta(x, m, x[m - 1] + a) for a in a_points(x, m, mp)]
            step = {sign_of(b - a) for a, b in itertools.pairwise(vals)} - {0}
            if len(step) > 1:
                return {"m": m, "m'": mp, "values": [str(v) for v in vals]}
            dirs |= step
        if across and len(dirs) > 1:
            return {"m": m, "directions": sorted(dirs)}
    return None


def extreme_at_ends_violation(x: Vec, at_middle: bool = False) -> dict | None:
    """'the largest absolute value of Delta g(m, m', a) is ... when a = x_{m'} - x_m or
    a ~ x_{m'+1} - x_m'.  ``at_middle`` (the twin): at the interval's midpoint."""
    for m in range(1, len(x) + 1):
        for mp in range(m, len(x) + 1):
            pts = a_points(x, m, mp)
            if not pts:
                continue
            vals = [abs(delta(x, m, x[m - 1] + a)) for a in pts]
            best = vals[2] if at_middle else max(vals[0], vals[-1])
            if best < max(vals):
                return {"m": m, "m'": mp, "abs_delta": [str(v) for v in vals]}
    return None


def sign_at_m_violation(x: Vec, drop_w: bool = False) -> dict | None:
    """'When m' = m, the sign of (14) is determined by the sign of 2m/(n-1) - w - g_0'.
    ``drop_w`` (the twin): by the sign of 2m/(n-1) - g_0."""
    n = len(x)
    for m in range(1, n + 1):
        c = coef(x, m) + (Q(n + 1, n - 1) if drop_w else 0)
        if sign_of(rank_bracket(x, m, m, 1)) != sign_of(c):
            return {"m": m, "A": str(rank_bracket(x, m, m, 1)), "sign_term": str(c)}
    return None


def switch_violation(x: Vec, reading: str = "m-prime") -> dict | None:
    """'When 2m/(n-1) - w - g_0 < 0, increasing m [m'] eventually switches the sign of (14)
    from negative to positive': "m-prime", A(m, m') over m' = m..n is negative at m' = m,
    positive at n, nondecreasing; "m" (as printed), A(j, j) over j = m..n the same."""
    n = len(x)
    for m in range(1, n + 1):
        if coef(x, m) >= 0:
            continue
        seq = [rank_bracket(x, m, mp, 1) for mp in range(m, n + 1)] if reading == "m-prime" else \
            [rank_bracket(x, j, j, 1) for j in range(m, n + 1)]
        if not (seq[0] < 0 < seq[-1] and all(a <= b for a, b in itertools.pairwise(seq))):
            return {"m": m, "A_sequence": [str(v) for v in seq]}
    return None


def _trajectory(x: Vec, m: int) -> list[Q]:
    """Delta g as x_m rises through every rank (a on every interval's points, in order)."""
    return _trajectory_t(tuple(x), m)


@functools.lru_cache(maxsize=1 << 12)
def _trajectory_t(x: tuple, m: int) -> list[Q]:
    return [delta(list(x), m, x[m - 1] + a) for mp in range(m, len(x) + 1)
            for a in a_points(list(x), m, mp)]


def unimodal_violation(x: Vec, increasing: bool = False) -> dict | None:
    """'When 2m/(n-1) - w - g_0 < 0 ... Delta g(m, m', a) decreases until some m' and
    increases thereafter' (as x_m rises).  ``increasing`` (the twin): increases throughout."""
    for m in range(1, len(x) + 1):
        if coef(x, m) >= 0:
            continue
        steps = [sign_of(b - a) for a, b in itertools.pairwise(_trajectory(x, m))]
        steps = [s for s in steps if s]
        ok = all(s > 0 for s in steps) if increasing else \
            all(b >= a for a, b in itertools.pairwise(steps))
        if not ok:
            return {"m": m, "step_signs": steps}
    return None


def positive_case_violation(x: Vec, reading: str = "strict") -> dict | None:
    """'When 2m/(n-1) - w - g_0 >= 0, (14) is always positive, so that Delta g increases
    monotonically with m''.  "strict": A(m, m') > 0 for every m' >= m; "weak": A >= 0; both
    with Delta g nondecreasing as x_m rises."""
    for m in range(1, len(x) + 1):
        if coef(x, m) < 0:
            continue
        vals = {mp: rank_bracket(x, m, mp, 1) for mp in range(m, len(x) + 1)}
        bad = [mp for mp, v in vals.items() if (v <= 0 if reading == "strict" else v < 0)]
        traj = _trajectory(x, m)
        if bad or any(b < a for a, b in itertools.pairwise(traj)):
            return {"m": m, "non_positive_A_at": bad}
    return None


def grow_after_s_violation(x: Vec, reading: str = "strict") -> dict | None:
    """'Since A is nondecreasing and positive for all m' >= s_m, Delta g continues to grow for
    each increment of m' until reaching n'.  "strict": A(m, m') > 0 for m' >= s_m; "weak":
    A >= 0; both with Delta g nondecreasing once x_m + a >= x_{s_m}."""
    n = len(x)
    for m in range(1, n + 1):
        sm = s_t(x, m, "printed")
        vals = [rank_bracket(x, m, mp, 1) for mp in range(max(sm, m), n + 1)]
        if any(v <= 0 if reading == "strict" else v < 0 for v in vals) \
                or any(b < a for a, b in itertools.pairwise(vals)):
            return {"m": m, "s_m": sm, "A": [str(v) for v in vals]}
        tail = [delta(x, m, x[m - 1] + a) for mp in range(max(sm, m), n + 1)
                for a in a_points(x, m, mp)]
        if any(b < a for a, b in itertools.pairwise(tail)):
            return {"m": m, "s_m": sm, "delta_falls": True}
    return None


def b_term(x: Vec, m: int) -> Q:
    """B of (20): 2(n - m)/(n - 1) - 1 + g_0."""
    n = len(x)
    return Q(2 * (n - m), n - 1) - 1 + _g0(tuple(x))


def b_decreasing_violation(x: Vec, flipped: bool = False) -> dict | None:
    """'The sign of (20) depends on the expression labeled B, which decreases strictly with m'
    ((20)'s left side = B (x_{m+1} - x_m)).  ``flipped`` (the twin): B increases."""
    n, g0 = len(x), gini(x)
    for m in range(1, n):
        lhs = (x[m - 1] - x[m]) * (1 - g0) + Q(2 * (n - m), n - 1) * (x[m] - x[m - 1])
        if lhs != b_term(x, m) * (x[m] - x[m - 1]):
            return {"m": m, "lhs": str(lhs)}
        step = b_term(x, m + 1) - b_term(x, m)
        if (step <= 0) if flipped else (step >= 0):
            return {"m": m, "B_step": str(step)}
    return None


def b_signs_violation(x: Vec) -> dict | None:
    """'This B is positive when m = 1 and eventually becomes negative' (by m = n)."""
    b1, bn = b_term(x, 1), b_term(x, len(x))
    return None if b1 > 0 and bn < 0 else {"B_1": str(b1), "B_n": str(bn)}


def a12_display_violation(x: Vec, nudge: Q = Q(0)) -> dict | None:
    """(37) Delta g(m, s_m, a) = [a (2 s_m/(n-1) - g_0 - w) + 2/(n-1) sum_{i=m}^{s_m}
    (x_m - x_i)] / (n xbar + a) at a = x_{s_m} - x_m; (38) c_m >= 0; (39) Delta g = A -
    c_m / (n xbar + a) -- each against eq. (2).  ``nudge`` (the twin): c_m + nudge in (39)."""
    n, S = len(x), sum(x)
    for m in range(1, n + 1):
        sm = s_t(x, m, "printed")
        a = x[sm - 1] - x[m - 1]
        truth = delta(x, m, x[sm - 1])
        eq37 = (a * coef(x, sm) + Q(2, n - 1) * sum(x[m - 1] - x[i - 1]
                                                   for i in range(m, sm + 1))) / (S + a)
        cm = rank_bracket(x, m, sm, 1)
        eq39 = coef(x, sm) - (cm + nudge) / (S + a)
        if eq37 != truth or cm < 0 or eq39 != truth:
            return {"m": m, "s_m": sm, "truth": str(truth), "eq37": str(eq37), "c_m": str(cm),
                    "eq39": str(eq39)}
    return None


def a13_display_violation(x: Vec, nudge: Q = Q(0)) -> dict | None:
    """(50) d_m <= 0 at m' = q_m; (51) Delta g(m, q_m, a) = -(g_0 - 2 q_m/(n-1) + w) +
    d_m / (n xbar - a) at a = x_m - x_{q_m}, against eq. (2), with q_m by (49) as printed
    (m' = m allowed: on the grid q_m = m, a = 0, whenever it exists) and with m' < m (the rank
    moves, a > 0).  ``nudge`` (the twin): d_m + nudge in (51)."""
    S = sum(x)
    for m, reading in itertools.product(range(1, len(x) + 1), ("printed", "moved")):
        qm = q_t(x, m, reading)
        if qm is None:
            continue
        a = x[m - 1] - x[qm - 1]
        dm = rank_bracket(x, m, qm, -1)
        eq51 = coef(x, qm) + (dm + nudge) / (S - a)
        truth = delta(x, m, x[qm - 1])
        if dm > 0 or eq51 != truth:
            return {"m": m, "q_m": qm, "reading": reading, "d_m": str(dm), "eq51": str(eq51),
                    "truth": str(truth)}
    return None


def nontrivial_cases(data: Data) -> dict[str, int]:
    """(data set, m) pairs where s_m (printed) or q_m (m' < m) moves x_m (a != 0)."""
    s_moves = sum(x[s_t(x, m, "printed") - 1] != x[m - 1] for x in data
                  for m in range(1, len(x) + 1))
    q_moves = sum(q is not None and x[q - 1] != x[m - 1] for x in data
                  for m in range(1, len(x) + 1) if (q := q_t(x, m, "moved")) is not None)
    return {"s_m (37)-(39)": s_moves, "q_m, m' < m (50)-(51)": q_moves}


def decrease_sign_violation(x: Vec, case: str = "otherwise") -> dict | None:
    """Lemma A.1's proof, D(m, m') the bracket of (48): "otherwise": 'when g_0 - 2m/(n-1) + w
    <= 0, the sign of the derivative remains positive for all m' < m'; "switch": 'When g_0 -
    2m/(n-1) + w > 0, increasing m' eventually switches the sign ... from negative to
    positive' (D over m' = 1..m: negative first, positive last)."""
    n = len(x)
    for m in range(2, n + 1):
        c = -coef(x, m)
        d = [rank_bracket(x, m, mp, -1) for mp in range(1, m + 1)]
        if case == "otherwise" and c <= 0 and any(v <= 0 for v in d[:-1]):
            return {"m": m, "D_over_m_prime": [str(v) for v in d]}
        if case == "switch" and c > 0 and not (d[0] < 0 < d[-1]):
            return {"m": m, "D_over_m_prime": [str(v) for v in d]}
    return None


def m_i(x: Vec) -> int:
    """m_I = floor(n - (1 - g_0)(n - 1)/2) (Section 4.1.1), at least 1."""
    n = len(x)
    v = n - (1 - _g0(tuple(x))) * (n - 1) / 2
    return max(1, v.numerator // v.denominator)


def triangle_violation(x: Vec, use_min: bool = False) -> dict | None:
    """(21)'s second step, 'because of the triangle inequality': |a (1 - g_t) + 2/(n-1)
    sum_{i=m}^n (x_m - x_i)| / (n xbar_t + a) <= max(a (1 - g_t), 2/(n-1) sum_{i=m}^n (x_i -
    x_m)) / (n xbar_t + a), at m = m_I and every m, a in {0, 1/2, ..., x_n + 2} (L = 0,
    U = x_n + 2).  ``use_min`` (the twin): min in place of max."""
    n, S, g = len(x), sum(x), _g0(tuple(x))
    for m in sorted({m_i(x), *range(1, n + 1)}):
        tail = Q(2, n - 1) * sum(x[i - 1] - x[m - 1] for i in range(m, n + 1))
        for a in (Q(j, 2) for j in range(0, 2 * (x[-1] + 2) + 1)):
            lhs = abs(a * (1 - g) - tail) / (S + a)
            rhs = (min if use_min else max)(a * (1 - g), tail) / (S + a)
            if lhs > rhs:
                return {"m": m, "a": str(a), "lhs": str(lhs), "rhs": str(rhs)}
    return None


def sum_limits_violation(x: Vec, at_top: bool = False) -> dict | None:
    """(21)'s third step: 'the largest value of the summation term occurs when the limits go
    from 1 to n': sum_{i=m}^n (x_i - x_m) <= sum_{i=1}^n (x_i - x_1) for every m.  ``at_top``
    (the twin): largest from n - 1 to n."""
    n = len(x)
    sums = [sum(x[i - 1] - x[m - 1] for i in range(m, n + 1)) for m in range(1, n + 1)]
    best = sums[n - 2] if at_top else sums[0]
    return None if best == max(sums) else {"sums_by_m": [str(v) for v in sums]}


def eq22_first_line_violation(x: Vec, reading: str = "q-m") -> dict | None:
    """(22)'s first line: |Delta g(m = n, m' = q_m, a)| = |a (g_t - 2/(n-1) + 1) + 2/(n-1)
    sum_{i=q_m}^n (x_ti - x_tn)| / (n xbar_t - a), against eq. (2) with x_n lowered by
    a = x_n - x_{m'} to the value of x_{m'}; "q-m": m' = q_m by eq. (49) with m' < m (the
    rank moves: as printed q_n = n, a = 0 and the line reads 0 = 0); "one": m' = 1."""
    n, S, g = len(x), sum(x), _g0(tuple(x))
    mp = q_t(x, n, "moved") if reading == "q-m" else 1
    if mp is None or x[mp - 1] == x[-1]:
        return None
    a = x[-1] - x[mp - 1]
    printed = abs(a * (g - Q(2, n - 1) + 1) + Q(2, n - 1) * sum(x[i - 1] - x[-1]
                                                              for i in range(mp, n + 1))) / (S - a)
    truth = abs(delta(x, n, x[mp - 1]))
    return None if printed == truth else {"m_prime": mp, "a": str(a), "printed": str(printed),
                                          "eq2": str(truth)}


# ------------------------------------------------------------------------- the findings
def s411_findings(seed: int) -> list[Finding]:
    data = [[int(v) for v in x] for x in data_sets()]
    sc = SCOPE.format(count=len(data), extra="; every m, m' and a (5 points per rank)")
    found = signs_of_13(data)
    zero = [[v - 1 for v in x] for x in multisets(range(3, 6))] + data  # g_0 = 1 occurs
    zero = [x for x in zero if sum(x) > 0]
    strict = {"strict": "(a) 'positive': strictly", "weak": "(b) 'positive' read as >= 0"}
    rising = functools.partial(unimodal_violation, increasing=True)
    steps = (
        ("text.s411.monotone-in-a", "Section 4.1.1: 'When the ranks m and m' are held fixed ... "
         "within any interval ... we can expect Delta g(m, m', a) to be always increasing or "
         "always decreasing'", monotone_in_a_violation, "one direction for every m' too",
         functools.partial(monotone_in_a_violation, across=True)),
        ("text.s411.extreme-at-ends", "Section 4.1.1: 'the largest absolute value of Delta "
         "g(m, m', a) is likely to occur at the maximum or minimum possible values of a that "
         "change the rank from m to m''", extreme_at_ends_violation,
         "at the interval's midpoint",
         functools.partial(extreme_at_ends_violation, at_middle=True)),
        ("text.s411.sign-at-m", "Section 4.1.1: 'When m' = m, the sign of (14) is determined by "
         "the sign of 2m/(n-1) - w - g_0'", sign_at_m_violation,
         "the sign of 2m/(n-1) - g_0 (w dropped)",
         functools.partial(sign_at_m_violation, drop_w=True)),
        ("text.s411.decrease-then-increase", "Section 4.1.1: 'Thus, Delta g(m, m', a) decreases "
         "until some m' and increases thereafter' (as x_m rises, when 2m/(n-1) - w - g_0 < 0)",
         unimodal_violation, "Delta g increases throughout", rising),
        ("text.s411.b-decreasing", "Section 4.1.1: 'The sign of (20) depends on the expression "
         "labeled B, which decreases strictly with m'", b_decreasing_violation, "B increases",
         functools.partial(b_decreasing_violation, flipped=True)),
        ("text.s413.triangle-step", "Section 4.1.3, (21): 'The second step holds because of the "
         "triangle inequality' (|x + y| <= max(|x|, |y|) for a (1 - g_t) >= 0 and the sum "
         "term <= 0)", triangle_violation, "min in place of max",
         functools.partial(triangle_violation, use_min=True)),
        ("text.s413.sum-limits", "Section 4.1.3, (21): 'the largest value of the summation term "
         "occurs when the limits go from 1 to n'", sum_limits_violation,
         "largest from n - 1 to n", functools.partial(sum_limits_violation, at_top=True)),
    )
    positive = (
        ("text.s411.positive-case", "Section 4.1.1: 'When 2m/(n-1) - w - g_0 >= 0, (14) is "
         "always positive, so that Delta g(m, m', a) increases monotonically with m''",
         positive_case_violation),
        ("text.s411.grow-after-s", "Section 4.1.1: 'Since A is nondecreasing and positive for "
         "all m' >= s_m, Delta g(m, m', a) continues to grow for each increment of m' until "
         "reaching n'", grow_after_s_violation))
    return [
        step_finding("text.s411.eq13-signs",
              "Section 4.1.1: 'Note that (13) can be positive or negative (or in rare cases "
              "zero)' (a witness of each sign)", [[]], sc,
              lambda _: None if {-1, 0, 1} <= set(found) else {"signs": sorted(found)},
              "(13) is never negative", lambda _: found.get(-1), seed,
              "no negative value was found", ref=REF411),
        *step_findings(steps, data, sc, seed, REF411),
        readings_finding("text.s411.sign-switch",
                  "Section 4.1.1: 'When 2m/(n-1) - w - g_0 < 0, increasing m eventually "
                  "switches the sign of (14) from negative to positive'", data, sc,
                  {"m-prime": switch_violation,
                   "m": functools.partial(switch_violation, reading="m")},
                  {"m-prime": "(a) 'increasing m' read as m' (the rank after the increase)",
                   "m": "(b) as printed: increasing m (with m' = m)"},
                  "the sign switches from positive to negative (Delta g increasing throughout)",
                  rising, seed, ref=REF411),
        *(readings_finding(fid, text, data, sc, {"strict": chk, "weak": functools.partial(
            chk, reading="weak")}, strict, "Delta g increases throughout for every m (the case "
            "dropped)", rising, seed, ref=REF411) for fid, text, chk in positive),
        readings_finding("text.s411.b-signs",
                  "Section 4.1.1: 'This B is positive when m = 1 and eventually becomes "
                  "negative'", zero, SCOPE.format(count=len(zero), extra=" and with 1 taken off "
                                                  "each value (zeros, g_0 = 1)"),
                  {"any": b_signs_violation,
                   "g-below-1": lambda x: None if gini(x) == 1 else b_signs_violation(x)},
                  {"any": "(a) any non-negative data (g_0 = 1 allowed)",
                   "g-below-1": "(b) data with g_0 < 1"},
                  "B positive at m = n too", lambda x: None if b_term(x, len(x)) > 0
                  else {"B_n": str(b_term(x, len(x)))}, seed, ref=REF411),
    ]


def eq22_findings(seed: int) -> list[Finding]:
    data = [[int(v) for v in x] for x in data_sets()]
    sc = SCOPE.format(count=len(data), extra="; m = n, a = x_n - x_{m'} (x_n lowered to x_{m'})")
    with_q = sum(q_t([Q(v) for v in x], len(x), "moved") is not None for x in data)
    return [readings_finding(
        "text.s413.eq22-first-line",
        "Section 4.1.3, (22) first line: |Delta g(m = n, m' = q_m, a)| = |(a (g_t - 2/(n-1) + "
        "1) + 2/(n-1) sum_{i=q_m}^n (x_ti - x_tn)) / (n xbar_t - a)|", data, sc,
        {"q-m": eq22_first_line_violation,
         "one": functools.partial(eq22_first_line_violation, reading="one")},
        {"q-m": "(a) as printed: m' = q_m (eq. (49), m' < n: the rank moves)",
         "one": "(b) m' = 1 (the coefficient g_t - 2/(n-1) + 1 is (46)'s at m' = 1 with w "
                "read as 1)"},
        "unused", lambda x: None, seed, ref="Lan & Reiter 2025, Section 4.1.3 (eq. (22))",
        extra={"note": "(46) at m = n gives the coefficient g_t - 2m'/(n-1) + w; at m' = 1 that "
                       "is g_t + 1, not g_t + 1 - 2/(n-1)",
               "cases_compared": {"q-m": with_q, "one": len(data)}})]


def a1_findings(seed: int) -> list[Finding]:
    data = [[int(v) for v in x] for x in data_sets()]
    sc = SCOPE.format(count=len(data), extra="; every m; s_m = n when no m' < n qualifies")
    moved = nontrivial_cases(data)
    out = [
        *step_findings(((
            "text.a12.eq37-39", "Appendix A.1.2, (37)-(39): Delta g(m, s_m, a) at a = x_{s_m} - "
            "x_m as (37); c_m >= 0 (38); Delta g(m, s_m, a) = A - c_m / (n xbar + a) (39)",
            a12_display_violation, "c_m + 1/8 in (39)",
            functools.partial(a12_display_violation, nudge=Q(1, 8))), (
            "text.a13.eq50-51", "Appendix A.1.3, (50)-(51): d_m <= 0 at m' = q_m; Delta g(m, "
            "q_m, a) = -(g_0 - 2 q_m/(n-1) + w) + d_m / (n xbar - a) at a = x_m - x_{q_m}",
            a13_display_violation, "d_m + 1/8 in (51)",
            functools.partial(a13_display_violation, nudge=Q(1, 8)))), data, sc, seed, REFA1),
        *(step_finding(fid, text, data, sc, functools.partial(decrease_sign_violation, case=case),
                "the case's sign condition reversed",
                functools.partial(decrease_sign_violation, case=other), seed,
                "the reversed case held too", ref=REFA1)
          for fid, case, other, text in (
              ("text.a13.sign-otherwise", "otherwise", "switch",
               "Appendix A.1.3 (Lemma A.1's proof): 'Otherwise, when g_0 - 2m/(n-1) + w <= 0, "
               "the sign of d g(m, m', a)/da remains positive for all m' < m'"),
              ("text.a13.sign-switch", "switch", "otherwise",
               "Appendix A.1.3 (Lemma A.1's proof): 'When g_0 - 2m/(n-1) + w > 0, increasing "
               "m' eventually switches the sign of d g(m, m', a)/da from negative to "
               "positive'"))),
    ]
    for f in out[:2]:
        f.evidence["cases_with_a_nonzero"] = moved
    return out


@claim("text.sec411.lemma41-proof-steps", "Section 4.1.1: the sign of (14), Lemma 4.1's proof "
       "steps and the term B of (20), each checked itself (exhaustive, exact)", "prove",
       reference="Section 4.1.1")
def s411_steps(budget_s: float, seed: int) -> list[Finding]:
    return [*s411_findings(seed), *eq22_findings(seed)]


@claim("text.a1.display-steps", "Appendix A.1.2 / A.1.3: displays (37)-(39), (50)-(51) and "
       "Lemma A.1's proof signs (exhaustive, exact)", "prove", reference="Appendix A.1")
def a1_steps(budget_s: float, seed: int) -> list[Finding]:
    return a1_findings(seed)


_REPLAY: dict[str, dict[str, Bad]] = {
    "text.s411.monotone-in-a": {"": monotone_in_a_violation},
    "text.s411.extreme-at-ends": {"": extreme_at_ends_violation},
    "text.s411.sign-at-m": {"": sign_at_m_violation},
    "text.s411.sign-switch": {"m-prime": switch_violation,
                              "m": functools.partial(switch_violation, reading="m")},
    "text.s411.decrease-then-increase": {"": unimodal_violation},
    "text.s411.positive-case": {"strict": positive_case_violation,
                                "weak": functools.partial(positive_case_violation,
                                                          reading="weak")},
    "text.s411.grow-after-s": {"strict": grow_after_s_violation,
                               "weak": functools.partial(grow_after_s_violation,
                                                         reading="weak")},
    "text.s411.b-decreasing": {"": b_decreasing_violation},
    "text.s411.b-signs": {"any": b_signs_violation},
    "text.s413.eq22-first-line": {
        "q-m": eq22_first_line_violation,
        "one": functools.partial(eq22_first_line_violation, reading="one")},
    "text.a12.eq37-39": {"": a12_display_violation},
    "text.a13.eq50-51": {"": a13_display_violation},
    "text.a13.sign-otherwise": {"": decrease_sign_violation},
    "text.a13.sign-switch": {"": functools.partial(decrease_sign_violation, case="switch")},
}

for _fid in _REPLAY:
    replayer(_fid)(replay_table(_REPLAY, _fid))
