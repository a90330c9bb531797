"""The proof steps of Appendices A and B.3 of Dick, Kulesza, Sun & Suresh (the privacy proof of
Algorithm 2, the accuracy of Algorithm 3 and the proof of Lemma 6), each tested itself -- not
through the theorem it proves.

Every step below is a statement about a finite data set D and cut points, so it is checked
exhaustively and exactly (Fractions) on every multiset D of size 1..6 drawn from {0, 1, 2, 4, 7}
(size 2..5 where the step needs k = 1/eps <= |D|/2 or two cut points), with L_k / U_k the k
smallest / largest points, mu the mean, clip(x, [a, b]) = min(b, max(x, a)), and a rank-t
threshold as in Definition 3 (:func:`proofs.subset_optimal.reference.ranks_exact`).

A step that holds carries a twin (:mod:`audit.falsifiability`): the same step with its constant
tightened past the value the scope attains (or its sign flipped), refuted in the same scope.
A step that fails as printed is reported with the reading under which it fails and the one
under which it holds, and a replayable counterexample.
"""

from __future__ import annotations

import itertools
import time
from collections import Counter
from collections.abc import Callable, Iterator
from fractions import Fraction as F
from typing import Any

from audit.falsifiability import twin
from audit.findings import Finding, Method, Verdict, counterexample_document, from_jsonable
from audit.registry import replayer
from proofs.subset_optimal import NAME, claim
from proofs.subset_optimal.reference import rank_error_exact, ranks_exact, window_loss_exact
from proofs.text_findings import SPLIT, exhaustive_step_finding, paper_finding

SUBJECT = f"paper:{NAME}"
REF = "Dick, Kulesza, Sun & Suresh (subset optimality), Appendix B.3"
GRID = (F(0), F(1), F(2), F(4), F(7))
CUTS = (F(-1), F(1), F(3), F(8))


def mu(xs: list[F]) -> F:
    return sum(xs, F(0)) / len(xs)


def clip(x: F, a: F, b: F) -> F:
    return min(b, max(x, a))


def data_sets(lo: int, hi: int) -> Iterator[list[F]]:
    """Every sorted multiset of size lo..hi on :data:`GRID`."""
    for n in range(lo, hi + 1):
        for c in itertools.combinations_with_replacement(GRID, n):
            yield list(c)


# ------------------------------------------------------------------------ the cases and steps
#: a step: (its name with the paper's words, the check (True = holds), the twin's check)
Step = tuple[str, Callable[[dict], bool], Callable[[dict], bool]]
#: a family of steps: (its cases, its steps, its scope in words)
Family = tuple[Callable[[], Iterator[dict]], tuple[Step, ...], str]
#: a step that may fail as printed: (id, claim, family, printed check, the reading under which
#: it fails, the reading under which it holds, its check)
Printed = tuple[str, str, str, Callable[[dict], bool], str, str, Callable[[dict], bool]]


def clip_cases() -> Iterator[dict]:
    """(D, l' <= u', l^ = l' + d1, u^ = u' + d2 with |d| <= alpha = 1, l^ <= u^)."""
    a = F(1)
    for D in data_sets(1, 4):
        for lp, up in itertools.combinations_with_replacement(CUTS, 2):
            for d1, d2 in itertools.product((-a, F(0), a), repeat=2):
                if lp + d1 <= up + d2:
                    yield {"D": D, "l'": lp, "u'": up, "l^": lp + d1, "u^": up + d2, "alpha": a}


def _clip_diffs(c: dict) -> list[F]:
    return [abs(clip(x, c["l^"], c["u^"]) - clip(x, c["l'"], c["u'"])) for x in c["D"]]


def _mean_shift(c: dict) -> F:
    D = c["D"]
    return abs(mu([clip(x, c["l^"], c["u^"]) for x in D]) - mu([clip(x, c["l'"], c["u'"])
                                                                 for x in D]))


CLIP_STEPS: tuple[Step, ...] = (
    ("|mu(clip(D, [l^, u^])) - mu(clip(D, [l', u']))| <= 1/|D| sum |clip(x, [l^, u^]) - "
     "clip(x, [l', u'])|", lambda c: _mean_shift(c) <= mu(_clip_diffs(c)),
     lambda c: _mean_shift(c) <= mu(_clip_diffs(c)) / 2),
    ("|clip(x, [l^, u^]) - clip(x, [l', u'])| <= 2 alpha, so the second term is <= 2 alpha",
     lambda c: max(_clip_diffs(c)) <= 2 * c["alpha"],
     lambda c: max(_clip_diffs(c)) <= c["alpha"] / 2),
)


def one_sided_cases() -> Iterator[dict]:
    """(D, l' <= u') and every k = 1/eps <= |D|/2."""
    for D in data_sets(1, 6):
        for lp, up in itertools.combinations_with_replacement(CUTS, 2):
            yield {"D": D, "l'": lp, "u'": up}


def _low(c: dict) -> F:
    return sum((c["l'"] - x for x in c["D"] if x < c["l'"]), F(0))


def _high(c: dict) -> F:
    return sum((c["u'"] - x for x in c["D"] if x > c["u'"]), F(0))


def _sums(c: dict, sign: int = 1) -> tuple[F, F]:
    D, lp, up = c["D"], c["l'"], c["u'"]
    lo = sum((x for x in D if x < lp), F(0))
    mid = sum((x for x in D if lp <= x <= up), F(0))
    hi = sum((x for x in D if x > up), F(0))
    n = len(D)
    clipped = (lp * sum(1 for x in D if x < lp) + mid + up * sum(1 for x in D if x > up)) / n
    return (lo + mid + sign * hi) / n, clipped


def _bias(c: dict) -> F:
    D = c["D"]
    return abs(mu([clip(x, c["l'"], c["u'"]) for x in D]) - mu(D))


def _ab(c: dict, k: int) -> tuple[F, F]:
    D = c["D"]
    return mu(D[k:]) - mu(D), mu(D) - mu(D[:len(D) - k])


def _one_sided_bias(c: dict, factor: int = 1) -> bool:
    """(1/|D|) sum_{x < l'} (l' - x) = mu(clip(D, [l', inf))) - mu(D) and (1/|D|) sum_{x > u'}
    (x - u') = mu(D) - mu(clip(D, (-inf, u'])) (``factor``: the twin's multiple)."""
    D, lp, up = c["D"], c["l'"], c["u'"]
    n = len(D)
    return (factor * _low(c) / n == mu([max(x, lp) for x in D]) - mu(D)
            and -factor * _high(c) / n == mu(D) - mu([min(x, up) for x in D]))


ONE_SIDED_STEPS: tuple[Step, ...] = (
    ("1/|D| max{sum_{x < l'} (l' - x), sum_{x > u'} (x - u')} 'is the maximum bias we introduce "
     "if we only clipped either points to the left of l' or to the right of u'' (each sum / |D| "
     "is that one-sided clipping bias)", _one_sided_bias, lambda c: _one_sided_bias(c, 2)),
    ("mu(D) = 1/|D| (sum_{x < l'} x + sum_{l' <= x <= u'} x + sum_{x > u'} x)",
     lambda c: _sums(c)[0] == mu(c["D"]), lambda c: _sums(c, -1)[0] == mu(c["D"])),
    ("mu(clip(D, [l', u'])) = 1/|D| (sum_{x < l'} l' + sum_{l' <= x <= u'} x + sum_{x > u'} u')",
     lambda c: _sums(c)[1] == mu([clip(x, c["l'"], c["u'"]) for x in c["D"]]),
     lambda c: _sums(c)[1] == mu(c["D"])),
    ("|mu(clip(D, [l', u'])) - mu(D)| = 1/|D| |sum_{x < l'} (l' - x) + sum_{x > u'} (u' - x)|; "
     "the two sums have opposite signs, so it is <= 1/|D| max{sum (l' - x), sum (x - u')}",
     lambda c: (_bias(c) == abs(_low(c) + _high(c)) / len(c["D"]) and _low(c) >= 0 >= _high(c)
                and _bias(c) <= max(_low(c), -_high(c)) / len(c["D"])),
     lambda c: _bias(c) <= max(_low(c), -_high(c)) / len(c["D"]) / 2),
    ("max{mu(D \\ L_k) - mu(D), mu(D) - mu(D \\ U_k)} <= mu(D \\ L_k) - mu(D \\ U_k) (both "
     "non-negative: 'the maximum of two numbers is not larger than the sum'), every k <= |D|/2",
     lambda c: all(min(_ab(c, k)) >= 0 and max(_ab(c, k)) <= sum(_ab(c, k))
                   for k in range(1, len(c["D"]) // 2 + 1)),
     lambda c: all(max(_ab(c, k)) <= sum(_ab(c, k)) / 2 for k in range(1, len(c["D"]) // 2 + 1))),
)


def rank_cases() -> Iterator[dict]:
    """(D, tau, t) with tau a rank-t threshold for D (Definition 3)."""
    for D in data_sets(1, 6):
        for tau in sorted(set(CUTS + GRID)):
            for t in ranks_exact(tau, D):
                yield {"D": D, "tau": tau, "t": t}


def _q(c: dict) -> int:
    return sum(1 for x in c["D"] if x < c["tau"])


RANK_STEPS: tuple[Step, ...] = (
    ("l' a rank-t threshold: every x in U_{|D| - t} satisfies x >= l', so sum_x 1{x >= l'} >= "
     "|U_{|D|-t}| = |D| - t and q = |D| - sum_x 1{x >= l'} <= t",
     lambda c: (all(x >= c["tau"] for x in c["D"][c["t"]:])
                and sum(1 for x in c["D"] if x >= c["tau"]) >= len(c["D"]) - c["t"]
                and _q(c) <= c["t"]),
     lambda c: _q(c) <= c["t"] - 1),
    ("every x in L_t satisfies x <= l' (and, for u' a rank-t'_u threshold, every x in "
     "U_{|D| - t'_u} satisfies x >= u')",
     lambda c: all(x <= c["tau"] for x in c["D"][:c["t"]]),
     lambda c: all(x < c["tau"] for x in c["D"][:c["t"]])),
)


def separation_cases() -> Iterator[dict]:
    """(D, k = 1/eps <= |D|/2, alpha = 1, l^, u^) with the premises of B.3: every point of L_k
    is <= l^ + alpha, every point of U_k >= u^ - alpha."""
    a = F(1)
    for D in data_sets(2, 5):
        for k in range(1, len(D) // 2 + 1):
            for lh in range(-1, 9):
                for uh in range(-1, 9):
                    if D[k - 1] <= lh + a and D[len(D) - k] >= uh - a:
                        yield {"D": D, "k": k, "alpha": a, "l^": F(lh), "u^": F(uh)}


def _gap(c: dict) -> F:
    return c["u^"] - c["l^"] - 2 * c["alpha"]


def _sep(c: dict) -> F:
    D, k = c["D"], c["k"]
    return mu(D[k:]) - mu(D[:len(D) - k])


SEPARATION_STEPS: tuple[Step, ...] = (
    ("the distance from any point in L_{1/eps} to any point in U_{1/eps} is at least u^ - l^ - "
     "2 alpha", lambda c: c["D"][len(c["D"]) - c["k"]] - c["D"][c["k"] - 1] >= _gap(c),
     lambda c: c["D"][len(c["D"]) - c["k"]] - c["D"][c["k"] - 1] >= _gap(c) + F(1, 2)),
    ("mu(D \\ L_{1/eps}) - mu(D \\ U_{1/eps}) >= (u^ - l^ - 2 alpha)/(eps(|D| - 1/eps)) = (u^ - "
     "l^ - 2 alpha)/(eps|D| - 1)", lambda c: _sep(c) >= c["k"] * _gap(c) / (len(c["D"]) - c["k"]),
     lambda c: _sep(c) >= c["k"] * (_gap(c) + F(1, 2)) / (len(c["D"]) - c["k"])),
    ("the first term: 3(u^ - l^)/(|D| eps) <= 3(mu(D \\ L_{1/eps}) - mu(D \\ U_{1/eps})) + 6 "
     "alpha/(eps|D|), so with Lemma 1 (<= 2e^2 R(D, eps)) it is <= 6e^2 R(D, eps) + 6 alpha/"
     "(eps|D|)", lambda c: _first_term(c, 6), lambda c: _first_term(c, 3)),
)


def _first_term(c: dict, const: int) -> bool:
    """3 k (u^ - l^)/|D| <= 3 sep + ``const`` alpha k/|D| (eps = 1/k; the paper: const 6)."""
    n, k = len(c["D"]), c["k"]
    return 3 * k * (c["u^"] - c["l^"]) / n <= 3 * _sep(c) + const * c["alpha"] * k / n


def _last_line(c: dict) -> bool:
    """d1a9ed6b's last step: (u^ - l^ - 2 alpha)/(eps|D| - 1) >= (u^ - l^)/(eps|D|) - 2 alpha /
    (eps|D|), eps = 1/k."""
    m = F(len(c["D"]), c["k"])
    return _gap(c) / (m - 1) >= (c["u^"] - c["l^"]) / m - 2 * c["alpha"] / m


def lemma6_cases() -> Iterator[dict]:
    """(D, 1 <= n1 <= n2 <= |D|/2)."""
    for D in data_sets(2, 6):
        for n1 in range(1, len(D) // 2 + 1):
            for n2 in range(n1, len(D) // 2 + 1):
                yield {"D": D, "n1": n1, "n2": n2}


def _A(D: list[F], m: int) -> F:
    return mu(D[m:]) - mu(D[:m])


def _ad04(c: dict) -> bool:
    D, n1, n2 = c["D"], c["n1"], c["n2"]
    n = len(D)
    lhs = 2 * _A(D, n1) - _A(D, n2)
    step1 = 2 * mu(D[n1:]) - mu(D[n2:]) - mu(D[:n1])
    step2 = 2 * mu(D[n1:]) - ((n - n1) * mu(D[n1:]) - sum(D[n1:n2], F(0))) / (n - n2) - mu(D[:n1])
    mid = mu(D[n1:n2]) if n2 > n1 else F(0)
    step3 = (2 - F(n - n1, n - n2)) * mu(D[n1:]) + F(n2 - n1, n - n2) * mid - mu(D[:n1])
    return lhs >= step1 and step1 == step2 == step3 and step3 >= 0


LEMMA6_STEPS: tuple[Step, ...] = (
    ("|mu_D - mu_{D \\ L_n'}| = 1/n sum_i (mu_{D \\ L_n'} - X_i) 1{X_i in L_n'} (first line of "
     "the display), so it is enough to prove mu_{D \\ L_n2} - mu_{L_n2} <= 2(mu_{D \\ L_n1} - "
     "mu_{L_n1})", lambda c: all(
        abs(mu(c["D"]) - mu(c["D"][m:])) == sum((mu(c["D"][m:]) - x for x in c["D"][:m]), F(0))
        / len(c["D"]) == F(m, len(c["D"])) * _A(c["D"], m) for m in (c["n1"], c["n2"]))
     and _A(c["D"], c["n2"]) <= 2 * _A(c["D"], c["n1"]),
     lambda c: _A(c["D"], c["n2"]) <= _A(c["D"], c["n1"])),
    ("2(mu_{D \\ L_n1} - mu_{L_n1}) - (mu_{D \\ L_n2} - mu_{L_n2}) >= 2 mu_{D \\ L_n1} - mu_{D \\ "
     "L_n2} - mu_{L_n1} = ... = (2 - (n - n1)/(n - n2)) mu_{D \\ L_n1} + (n2 - n1)/(n - n2) "
     "mu_{L_n2 \\ L_n1} - mu_{L_n1} >= 0", _ad04,
     lambda c: 2 * _A(c["D"], c["n1"]) - _A(c["D"], c["n2"]) >= _A(c["D"], c["n1"])),
)


def _lemma6_printed(c: dict) -> bool:
    """39f31412 as printed end to end: |mu_D - mu_{D \\ L_n'}| = n (mu_{D \\ L_n'} - mu_D)."""
    D, m = c["D"], c["n1"]
    return abs(mu(D) - mu(D[m:])) == len(D) * (mu(D[m:]) - mu(D))


def one_sided_q_cases() -> Iterator[dict]:
    """(D, k = 1/eps <= |D|/2, l' with q = #{x < l'} <= |D|/2 and l' a rank-t threshold with t
    >= k, beta in {0, 1/2, 1} with q <= k + 2 beta)."""
    for D in data_sets(2, 6):
        for k in range(1, len(D) // 2 + 1):
            for lp in sorted(set(CUTS + GRID)):
                q = sum(1 for x in D if x < lp)
                if q > len(D) // 2 or max(ranks_exact(lp, D)) < k:
                    continue
                for beta in (F(0), F(1, 2), F(1)):
                    if q <= k + 2 * beta:
                        yield {"D": D, "k": k, "l'": lp, "q": q, "beta": beta}


def _delete(c: dict, m: int) -> F:
    return mu(c["D"][m:]) - mu(c["D"])


def _middle_printed(c: dict) -> bool:
    """bf3e9565's middle step as printed: mu(D \\ L_q) - mu(D) <= 2q/(1/eps) (mu(D \\ L_{1/eps})
    - mu(D))."""
    return _delete(c, c["q"]) <= F(2 * c["q"], c["k"]) * _delete(c, c["k"])


ONE_SIDED_Q_STEPS: tuple[Step, ...] = (
    ("1/|D| sum_{x in L_q} (l' - x) <= (2 + 4 beta eps)(mu(D \\ L_{1/eps}) - mu(D)) (the chain's "
     "conclusion; q <= t'_l <= 1/eps + 2 beta), and 2q/(1/eps) <= 2 + 4 beta eps",
     lambda c: (_low(c) / len(c["D"]) <= (2 + 4 * c["beta"] / c["k"]) * _delete(c, c["k"])
                and F(2 * c["q"], c["k"]) <= 2 + 4 * c["beta"] / c["k"])
     and (c["q"] < c["k"] or _middle_printed(c)),
     lambda c: _low(c) / len(c["D"]) <= (1 + 4 * c["beta"] / c["k"]) * _delete(c, c["k"]) / 2),
)


def one_sided_p_cases() -> Iterator[dict]:
    """The mirror of :func:`one_sided_q_cases` (D negated, u' = -l', p = q): the upper side."""
    for c in one_sided_q_cases():
        yield {"D": sorted(-x for x in c["D"]), "k": c["k"], "u'": -c["l'"], "p": c["q"],
               "beta": c["beta"]}


def _up_chain(c: dict, const: F = F(2), scale: F = F(1)) -> bool:
    """(1/|D|) sum_{x in U_p} (x - u') <= mu(D) - mu(D \\ U_p) <= (``const`` + 4 beta eps)
    ``scale`` (mu(D) - mu(D \\ U_{1/eps})), U_p the p = #{x > u'} largest points."""
    D, k, p = c["D"], c["k"], c["p"]
    n = len(D)
    lhs = sum((x - c["u'"] for x in D[n - p:]), F(0)) / n
    mid = mu(D) - mu(D[:n - p])
    return lhs <= mid <= (const + 4 * c["beta"] / k) * scale * (mu(D) - mu(D[:n - k]))


ONE_SIDED_P_STEPS: tuple[Step, ...] = (
    ("'A similar argument to the above shows that p <= 1/eps + 2 beta and that' (1/|D|) sum_{x "
     "in U_q} (x - u') <= mu(D) - mu(D \\ U_p) <= (2 + 4 beta eps)(mu(D) - mu(D \\ "
     "R_{1/eps})) (U_q read as U_p, R_{1/eps} as U_{1/eps})", _up_chain,
     lambda c: _up_chain(c, F(1), F(1, 2))),
)


def decomposition_cases() -> Iterator[dict]:
    """R = 2: every multiset D of size 1..2 on {-2, -1, 0, 1, 2}, every l^ <= u^ and l' <= u'
    in {-2, .., 2}."""
    pts = [F(v) for v in range(-2, 3)]
    for n in range(1, 3):
        for D in itertools.combinations_with_replacement(pts, n):
            for lh, uh in itertools.combinations_with_replacement(pts, 2):
                for lp, up in itertools.combinations_with_replacement(pts, 2):
                    yield {"D": list(D), "R": F(2), "l^": lh, "u^": uh, "l'": lp, "u'": up}


def _outputs(c: dict) -> list[F]:
    """Algorithm 1's possible outputs on [l^, u^]: clip(y, [-w/2, w/2]) + m, y a grid of
    estimates s^/n^ - m."""
    m, w = (c["l^"] + c["u^"]) / 2, c["u^"] - c["l^"]
    return [clip(F(y, 2), -w / 2, w / 2) + m for y in range(-10, 11, 4)]


def _decomp(c: dict, terms: int = 3) -> bool:
    D = c["D"]
    hat = mu([clip(x, c["l^"], c["u^"]) for x in D])
    prime = mu([clip(x, c["l'"], c["u'"]) for x in D])
    return all(abs(a - mu(D)) <= abs(a - hat) + abs(hat - prime)
               + (abs(prime - mu(D)) if terms == 3 else 0) for a in _outputs(c))


DECOMPOSITION_STEPS: tuple[Step, ...] = (
    ("|mu^ - mu(D)| <= |mu^ - mu(clip(D, [l^, u^]))| + |mu(clip(D, [l^, u^])) - mu(clip(D, [l', "
     "u']))| + |mu(clip(D, [l', u'])) - mu(D)| (the error decomposition)", _decomp,
     lambda c: _decomp(c, 2)),
    ("'we bound the error when G does not hold by 2R': |mu^ - mu(D)| <= 2R (mu^ in [l^, u^] "
     "subset of [-R, R], D subset of [-R, R])",
     lambda c: all(abs(a - mu(c["D"])) <= 2 * c["R"] for a in _outputs(c)),
     lambda c: all(abs(a - mu(c["D"])) <= 2 * c["R"] - F(1, 2) for a in _outputs(c))),
)


# ----------------------------------------------- Appendix A: the proof of Theorem 2 (Algorithm 2)
def neighbour_cases() -> Iterator[dict]:
    """(D, D' = D with one point added or removed, tau, integer rank r, alpha = 1/2)."""
    taus = (F(-1), F(0), F(1, 2), F(1), F(3, 2), F(2), F(3), F(4), F(7), F(8))
    for D in data_sets(1, 3):
        neighbours = [sorted(D + [v]) for v in GRID] + [D[:i] + D[i + 1:]
                                                        for i in range(len(D)) if len(D) > 1]
        for Dp in neighbours:
            for r in range(0, len(D) + 1):
                for tau in taus:
                    yield {"D": D, "D'": Dp, "r": r, "tau": tau, "alpha": F(1, 2)}


def _near(c: dict) -> bool:
    """every r' in ranks(tau, D) has r' - 1, r' or r' + 1 in ranks(tau, D')."""
    other = set(ranks_exact(c["tau"], c["D'"]))
    return all({rp - 1, rp, rp + 1} & other for rp in ranks_exact(c["tau"], c["D"]))


def _err_gap(c: dict) -> int:
    return abs(rank_error_exact(c["tau"], c["r"], c["D"])
               - rank_error_exact(c["tau"], c["r"], c["D'"]))


def _loss_gap(c: dict) -> int:
    return abs(window_loss_exact(c["tau"], c["r"], c["alpha"], c["D"])
               - window_loss_exact(c["tau"], c["r"], c["alpha"], c["D'"]))


def _premise_rank(c: dict, shift: int = 0) -> bool:
    """'suppose every x in L_r satisfies x <= tau and every x in U_{|D|-r} satisfies x >= tau':
    then tau is a rank-r threshold, i.e. #{x < tau} <= r <= #{x <= tau} (the definition).
    ``shift`` = 1 (the twin): then tau would be a rank-(r + 1) threshold."""
    D, r, tau = c["D"], c["r"], c["tau"]
    if not (all(x <= tau for x in D[:r]) and all(x >= tau for x in D[r:])):
        return True
    r += shift
    return (sum(1 for x in D if x < tau) <= r <= sum(1 for x in D if x <= tau)
            and r in ranks_exact(tau, D))


NEIGHBOUR_STEPS: tuple[Step, ...] = (
    ("adding or removing a point changes each sum of ranks(tau', D) (Lemma 5) by at most one, so "
     "whenever r' in ranks(tau', D), one of r' - 1, r', r' + 1 is in ranks(tau', D')", _near,
     lambda c: bool(set(ranks_exact(c["tau"], c["D"])) & set(ranks_exact(c["tau"], c["D'"])))),
    ("|err_rank(tau', r, D) - err_rank(tau', r, D')| <= 1", lambda c: _err_gap(c) <= 1,
     lambda c: _err_gap(c) == 0),
    ("taking the minimum over tau' in [tau - alpha, tau + alpha]: the sensitivity of the loss "
     "l is bounded by one", lambda c: _loss_gap(c) <= 1, lambda c: _loss_gap(c) == 0),
    ("tau with every x in L_r <= tau and every x in U_{|D|-r} >= tau is a rank-r threshold "
     "(#{x < tau} <= r and #{x <= tau} >= r)", _premise_rank,
     lambda c: _premise_rank(c, 1)),
)


def piecewise_cases() -> Iterator[dict]:
    """(D, integer rank r, alpha = 1/2)."""
    for D in data_sets(1, 4):
        for r in range(0, len(D) + 1):
            yield {"D": D, "r": r, "alpha": F(1, 2)}


def _changes(c: dict) -> tuple[list[F], set[F]]:
    """Where the loss l(tau) = min over the window changes, scanning tau on the 1/8 grid of
    [-2, 9] (a change between two grid points is located at the right one), and the printed
    candidate locations x +- alpha, x in D."""
    grid = [F(i, 8) for i in range(-16, 73)]
    vals = [window_loss_exact(t, c["r"], c["alpha"], c["D"]) for t in grid]
    moves = [grid[i] for i in range(1, len(grid)) if vals[i] != vals[i - 1]]
    cands = {x + d for x in c["D"] for d in (-c["alpha"], c["alpha"])}
    return moves, cands


def _piecewise(c: dict) -> bool:
    """l is piecewise constant with at most 2|D| discontinuities, all at x +- alpha (on the 1/8
    grid a change is seen in the grid step that contains it: [t - 1/8, t])."""
    moves, cands = _changes(c)
    return len(moves) <= 2 * len(c["D"]) and all(
        any(t - F(1, 8) <= p <= t for p in cands) for t in moves)


PIECEWISE_STEPS: tuple[Step, ...] = (
    ("the loss l(tau) is piecewise constant with at most 2|D| discontinuities, at x +- alpha for "
     "x in D (an endpoint of [tau - alpha, tau + alpha] crossing a data point)", _piecewise,
     lambda c: len(_changes(c)[0]) <= len(c["D"]) - 1 or not c["D"]),
)


def interval_cases() -> Iterator[dict]:
    """(D, integer rank r, alpha = 1/2, [a, b] = [-1, 8], tau* in [a, b] a rank-r threshold)."""
    for D in data_sets(1, 4):
        for r in range(0, len(D) + 1):
            for t in range(-2, 17):
                tau = F(t, 2)
                if r in ranks_exact(tau, D):
                    yield {"D": D, "r": r, "alpha": F(1, 2), "a": F(-1), "b": F(8), "tau*": tau}


def zero_loss_width(c: dict) -> F:
    """The width of {tau in [a, b] : l(tau) = 0}: l is constant between consecutive points of
    {x +- alpha} and a, b (text.subset.a-piecewise), evaluated at each piece's midpoint."""
    a, b, al = c["a"], c["b"], c["alpha"]
    cuts = sorted({a, b} | {x + d for x in c["D"] for d in (-al, al) if a < x + d < b})
    return sum((hi - lo for lo, hi in zip(cuts, cuts[1:], strict=False)
                if window_loss_exact((lo + hi) / 2, c["r"], al, c["D"]) == 0), F(0))


def _interval(c: dict) -> bool:
    t, al = c["tau*"], c["alpha"]
    near = [t + k * al / 2 for k in range(-2, 3) if c["a"] <= t + k * al / 2 <= c["b"]]
    return zero_loss_width(c) >= al and all(
        window_loss_exact(x, c["r"], al, c["D"]) == 0 for x in near)


INTERVAL_STEPS: tuple[Step, ...] = (
    ("there is an interval I* in [a, b] of width at least alpha with l(tau) = 0 for every tau in "
     "I* ('since tau is within distance alpha of an exact rank-r threshold'), so int_a^b "
     "exp(-eps l(tau)/2) d tau >= int_{I*} exp(0) d tau >= alpha", _interval,
     lambda c: zero_loss_width(c) >= 4 * c["alpha"]),
)


def _sym_diff(x: list[F], y: list[F]) -> int:
    cx, cy = Counter(x), Counter(y)
    return sum(((cx - cy) + (cy - cx)).values())


def b2_cases() -> Iterator[dict]:
    """(D1, D2 = D1 with one point added, shift m, width w): Algorithm 1's shifted and clipped
    data D' = clip(D - m, [-w/2, w/2])."""
    for D in data_sets(1, 4):
        for v in GRID:
            for m in (F(0), F(2)):
                for w in (F(2), F(4)):
                    yield {"D": D, "D2": sorted(D + [v]), "m": m, "w": w}


def _shifted(D: list[F], m: F, w: F) -> list[F]:
    return [clip(x - m, -w / 2, w / 2) for x in D]


def _clip_closer(c: dict, factor: F = F(1)) -> bool:
    target = mu(_shifted(c["D"], c["m"], c["w"]))
    half = c["w"] / 2
    return all(abs(clip(F(y, 2), -half, half) - target) <= factor * abs(F(y, 2) - target)
               for y in range(-12, 13))


def _shift_identity(c: dict, shift: bool = True) -> bool:
    """The error of Algorithm 1 equals the error on the shifted data (``shift`` False: the
    twin, the output's + m forgotten)."""
    D, m, w = c["D"], c["m"], c["w"]
    if not all(m - w / 2 <= x <= m + w / 2 for x in D):
        return True
    target = mu(_shifted(D, m, w))
    return all(clip(F(y, 2), -w / 2, w / 2) + (m if shift else 0) - mu(D)
               == clip(F(y, 2), -w / 2, w / 2) - target for y in range(-12, 13))


B2_STEPS: tuple[Step, ...] = (
    ("the symmetric difference of D'_1 and D'_2 (shifted and clipped) is no larger than that of "
     "D_1 and D_2: neighbours stay neighbours, so the shifting and clipping can be ignored in "
     "the privacy analysis",
     lambda c: _sym_diff(_shifted(c["D"], c["m"], c["w"]), _shifted(c["D2"], c["m"], c["w"]))
     <= _sym_diff(c["D"], c["D2"]),
     lambda c: _sym_diff(_shifted(c["D"], c["m"], c["w"]), _shifted(c["D2"], c["m"], c["w"]))
     < _sym_diff(c["D"], c["D2"])),
    ("|clip(s^/n^, [-w/2, w/2]) - mu(D')| <= |s^/n^ - mu(D')| (mu(D') lies in [-w/2, w/2]), for "
     "every s^/n^ in {-6, -11/2, .., 6}", _clip_closer, lambda c: _clip_closer(c, F(1, 2))),
    ("for D in [m - w/2, m + w/2] (Lemma 2's D in [l, u]): mu^ - mu(D) = clip(s^/n^, [-w/2, "
     "w/2]) - mu(D'), mu^ = clip(s^/n^, [-w/2, w/2]) + m, for every s^/n^ in {-6, -11/2, .., 6}",
     _shift_identity, lambda c: _shift_identity(c, shift=False)),
)



FAMILIES: dict[str, Family] = {
    "clip": (clip_cases, CLIP_STEPS, "every multiset D of size 1..4 on {0, 1, 2, 4, 7}, l' <= "
             "u' in {-1, 1, 3, 8}, alpha = 1, l^ - l', u^ - u' in {-1, 0, 1} with l^ <= u^"),
    "one-sided": (one_sided_cases, ONE_SIDED_STEPS, "every multiset D of size 1..6 on {0, 1, 2, "
                  "4, 7}, l' <= u' in {-1, 1, 3, 8}, every k <= |D|/2"),
    "rank": (rank_cases, RANK_STEPS, "every multiset D of size 1..6 on {0, 1, 2, 4, 7}, every "
             "tau in {-1, 0, 1, 2, 3, 4, 7, 8} and every t it is a rank-t threshold for"),
    "separation": (separation_cases, SEPARATION_STEPS, "every multiset D of size 2..5 on {0, 1, "
                   "2, 4, 7}, k = 1/eps <= |D|/2, alpha = 1, integer l^, u^ in -1..8 with every "
                   "point of L_k <= l^ + alpha and of U_k >= u^ - alpha"),
    "lemma6": (lemma6_cases, LEMMA6_STEPS, "every multiset D of size 2..6 on {0, 1, 2, 4, 7}, "
               "1 <= n1 <= n2 <= |D|/2"),
    "neighbour": (neighbour_cases, NEIGHBOUR_STEPS, "Appendix A: every multiset D of size 1..3 "
                  "on {0, 1, 2, 4, 7}, every D' with one point of {0, 1, 2, 4, 7} added or one "
                  "removed, every integer r in 0..|D|, tau in {-1, 0, 1/2, 1, 3/2, 2, 3, 4, 7, "
                  "8}, alpha = 1/2"),
    "piecewise": (piecewise_cases, PIECEWISE_STEPS, "Appendix A: every multiset D of size 1..4 "
                  "on {0, 1, 2, 4, 7}, every integer r in 0..|D|, alpha = 1/2, the loss scanned "
                  "on the 1/8 grid of [-2, 9]"),
    "interval": (interval_cases, INTERVAL_STEPS, "Appendix A: every multiset D of size 1..4 on "
                 "{0, 1, 2, 4, 7}, every integer r in 0..|D|, alpha = 1/2, [a, b] = [-1, 8], "
                 "every tau* in the 1/2 grid of [-1, 8] that is a rank-r threshold"),
    "b2": (b2_cases, B2_STEPS, "Appendix B.2: every multiset D_1 of size 1..4 on {0, 1, 2, 4, "
           "7}, D_2 = D_1 with one point of the grid added, shift m in {0, 2}, width w in {2, 4}"),
    "one-sided-p": (one_sided_p_cases, ONE_SIDED_P_STEPS, "the mirror of the one-sided-q scope "
                    "(D negated, u' = -l', p = q): every multiset D of size 2..6 on {-7, -4, "
                    "-2, -1, 0}, p = #{x > u'} <= |D|/2, beta in {0, 1/2, 1} with p <= k + 2 "
                    "beta"),
    "decomposition": (decomposition_cases, DECOMPOSITION_STEPS, "R = 2: every multiset D of "
                      "size 1..2 on {-2, .., 2}, every l^ <= u^ and l' <= u' in {-2, .., 2}, "
                      "Algorithm 1's outputs clip(y, [-w/2, w/2]) + m for y in {-5, -3, .., "
                      "5}"),
    "one-sided-q": (one_sided_q_cases, ONE_SIDED_Q_STEPS, "every multiset D of size 2..6 on "
                    "{0, 1, 2, 4, 7}, k = 1/eps <= |D|/2, l' in {-1, 0, 1, 2, 3, 4, 7, 8} a "
                    "rank-t threshold with t >= k and q = #{x < l'} <= |D|/2, beta in {0, 1/2, 1} "
                    "with q <= k + 2 beta"),
}


def family_id(name: str) -> str:
    """The finding id of a step family (Appendix A's families: ``text.subset.a-*``)."""
    prefix = {"neighbour": "a", "piecewise": "a", "interval": "a", "b2": "b2"}.get(name, "b3")
    return f"text.subset.{prefix}-{name}" if prefix != "b2" else "text.subset.b2-steps"


def _jsonable(c: dict) -> dict:
    """A case as JSON text; keys starting with ``_`` are values derived from the others and
    cached in the case (:func:`memo`), left out (a replay recomputes them)."""
    return {k: [str(x) for x in v] if isinstance(v, list) else str(v) for k, v in c.items()
            if not k.startswith("_")}


def memo(c: dict, key: str, make: Callable[[], Any]) -> Any:
    """``c[key]``, computed by ``make`` once per case (``key`` starts with ``_``)."""
    if key not in c:
        c[key] = make()
    return c[key]


def run_family(name: str, families: dict[str, Family] | None = None) -> dict[str, Any]:
    """Every step of family ``name`` (of ``families``, default :data:`FAMILIES`) over its
    scope: the first violation of each step and of each twin, and the number of cases."""
    cases, steps, _ = (families or FAMILIES)[name]
    bad: dict[str, Any] = {s[0]: None for s in steps}
    twin_bad: dict[str, Any] = {s[0]: None for s in steps}
    count = 0
    for c in cases():
        count += 1
        for label, ok, twin_ok in steps:
            if bad[label] is None and not ok(c):
                bad[label] = _jsonable(c)
            if twin_bad[label] is None and not twin_ok(c):
                twin_bad[label] = _jsonable(c)
    return {"violations": bad, "twins": twin_bad, "cases": count}


#: case keys that hold integers (counts, ranks); every other scalar is a Fraction
INT_KEYS = frozenset({"k", "t", "q", "p", "n1", "n2", "m", "km"})


def _decode(inputs: dict) -> dict:
    out: dict[str, Any] = {}
    for k, v in from_jsonable(inputs).items():
        if k in ("family",):
            continue
        out[k] = [F(x) for x in v] if isinstance(v, list) else (
            int(v) if k in INT_KEYS else F(v))
    return out


# ------------------------------------------------------------------------------ the claim
@claim("text.subset.b3-proof-steps", "Appendices A and B.3: each step of the proof of "
       "Theorem 2 (rank sensitivity, the piecewise-constant loss) and of the accuracy proof of "
       "Algorithm 3 (the clipping terms, the rank-threshold counts, the separation of L_{1/eps} "
       "and U_{1/eps}, the one-sided bias chain) and of the proof of Lemma 6 (exhaustive, exact)",
       "prove", reference="Appendices A, B.3")
def b3_proof_steps(budget_s: float, seed: int) -> list[Finding]:
    t0 = time.perf_counter()
    out = family_findings(FAMILIES, family_id, _label, seed, t0)
    out += printed_findings(seed, t0)
    return out


def _label(fid: str) -> str:
    return ("Appendix A: " if fid.startswith("text.subset.a-") else
            "Appendix B.2: " if fid.startswith("text.subset.b2") else "Appendix B.3: ")


def family_findings(families: dict[str, Family], id_of: Callable[[str], str],
                    label_of: Callable[[str], str], seed: int, t0: float,
                    ref: str = REF) -> list[Finding]:
    """One finding per step family: refuted with the first violation as its counterexample,
    else verified when every step's twin is refuted in the same scope (vacuous otherwise)."""
    out = []
    for name, (_, steps, scope) in families.items():
        r = run_family(name, families)
        bad = {k: v for k, v in r["violations"].items() if v is not None}
        parts = {k: twin("the step tightened past what the scope attains (a constant halved or "
                         "moved by 1/2, a factor 2 dropped, a sign flipped)",
                         "refuted" if v else "not-refuted", witness=v)
                 for k, v in r["twins"].items()}
        live = all(p["outcome"] == "refuted" for p in parts.values())
        tw = twin("each step tightened (per step in evidence['twins'])",
                  "refuted" if live else "not-refuted", detail="every step's twin is refuted")
        first = next(iter(bad.values()), None)
        fid = id_of(name)
        out.append(exhaustive_step_finding(
            id=fid, claim=label_of(fid) + "; ".join(f"'{s[0]}'" for s in steps),
            reference=ref, subject=SUBJECT, violation=first, twin=tw,
            scope=f"{scope} ({r['cases']} cases), exact",
            evidence={"violations": bad, "twins": parts}, seed=seed, started=t0,
            vacuous_reason="a tightened step also held",
            inputs={"family": name, **first} if first else None))
    return out


#: steps that fail as printed in part of the scope: (id, claim, family, printed check, the
#: reading under which it fails, the reading under which it holds, its check)
_PRINTED: tuple[Printed, ...] = (
    ("text.subset.b3-lower-bound-last-step",
     "Appendix B.3: '(u^ - l^ - 2 alpha)/(eps|D| - 1) >= (u^ - l^)/(eps|D|) - 2 alpha/(eps|D|)' "
     "(the last step of the lower bound on 2e^2 R(D, eps))", "separation", _last_line,
     "(a) as printed, for every u^, l^ the premises allow",
     "(b) only where u^ - l^ >= 2 alpha (where the bound is non-negative; elsewhere 2e^2 R >= 0 "
     "already exceeds the final expression)", lambda c: _gap(c) < 0 or _last_line(c)),
    ("text.subset.b3-lemma6-middle-step",
     "Appendix B.3: 'mu(D \\ L_q) - mu(D) <= 2q/(1/eps) (mu(D \\ L_{1/eps}) - mu(D))' (the middle "
     "step of the one-sided bias chain, 'using Lemma 6 to handle the fact that q may be larger "
     "than 1/eps')", "one-sided-q", _middle_printed,
     "(a) as printed, for every q <= 1/eps + 2 beta",
     "(b) only for q >= 1/eps (Lemma 6 needs n1 <= n2; for q < 1/eps the deletion bias is "
     "monotone in q and the chain's conclusion holds, see text.subset.b3-one-sided-q)",
     lambda c: c["q"] < c["k"] or _middle_printed(c)),
    ("text.subset.lemma6-proof-display",
     "Proof of Lemma 6: '|mu_D - mu_{D \\ L_n'}| = 1/n sum_i (mu_{D \\ L_n'} - X_i) 1{X_i in "
     "L_n'} = ... = n (mu_{D \\ L_n'} - mu_D)' (the 1/n of the first line is dropped from the "
     "second line on)", "lemma6", _lemma6_printed,
     "(a) as printed: the display's two ends equal",
     "(b) the second to last lines read as n times the first (the 1/n restored)",
     lambda c: len(c["D"]) * abs(mu(c["D"]) - mu(c["D"][c["n1"]:]))
     == len(c["D"]) * (mu(c["D"][c["n1"]:]) - mu(c["D"]))),
)


def printed_findings(seed: int, t0: float, table: tuple[Printed, ...] | None = None,
                     families: dict[str, Family] | None = None,
                     ref: str = REF) -> list[Finding]:
    """The steps of ``table`` (default :data:`_PRINTED`) that may fail as printed: verified
    when the printed step holds in its family's scope, refuted under the failing reading (with
    a counterexample) when only the other reading holds, refuted when neither does."""
    out = []
    for fid, text, fam, printed, bad_reading, good_reading, good in (table or _PRINTED):
        cases, _, scope = (families or FAMILIES)[fam]
        first_bad = first_good_bad = None
        count = 0
        for c in cases():
            count += 1
            if first_bad is None and not printed(c):
                first_bad = _jsonable(c)
            if first_good_bad is None and not good(c):
                first_good_bad = _jsonable(c)
        readings = {bad_reading: "refuted" if first_bad else "holds",
                    good_reading: "refuted" if first_good_bad else "holds"}
        verdict = (Verdict.VERIFIED if first_bad is None else
                   SPLIT if first_good_bad is None else Verdict.REFUTED)
        out.append(paper_finding(
            id=fid, claim=text, reference=ref, method=Method.EXHAUSTIVE,
            reading=bad_reading if first_bad else "", verdict=verdict,
            scope=f"{scope} ({count} cases), exact", evidence={"readings": readings,
                                                             "first_failure": first_bad},
            counterexample=counterexample_document(fid, SUBJECT, {"family": fam, **first_bad},
                                                   True, False, None, note=bad_reading)
            if first_bad else None,
            seed=seed, duration_s=time.perf_counter() - t0, subject=SUBJECT))
    return out


def replay_family(name: str, families: dict[str, Family] | None = None
                   ) -> Callable[[dict], tuple[bool, Any, Any, str]]:
    def run(inputs: dict) -> tuple[bool, Any, Any, str]:
        c = _decode(inputs)
        failed = [s[0] for s in (families or FAMILIES)[name][1] if not s[1](c)]
        return bool(failed), [], failed, f"failing steps: {failed}"
    return run


def replay_printed(check: Callable[[dict], bool]) -> Callable[[dict], tuple[bool, Any, Any,
                                                                             str]]:
    def run(inputs: dict) -> tuple[bool, Any, Any, str]:
        ok = check(_decode(inputs))
        return not ok, True, ok, "the printed step " + ("holds" if ok else "fails") + " here"
    return run


def register_replayers(families: dict[str, Family], id_of: Callable[[str], str],
                       table: tuple[Printed, ...]) -> None:
    """A replayer for each step family (its steps on the counterexample's case) and for each
    printed step of ``table``."""
    for name in families:
        replayer(id_of(name))(replay_family(name, families))
    for fid, _text, _fam, check, *_ in table:
        replayer(fid)(replay_printed(check))


register_replayers(FAMILIES, family_id, _PRINTED)
