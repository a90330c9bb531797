"""Exact probability of an output event of a DSL mechanism on concrete inputs.

Input: independent draws (``laplace`` = Laplace(0, b), density exp(-|x|/b) / (2b);
``geometric`` = two-sided geometric on the integers, P(k) = (1-a)/(1+a) a^|k| with
a = exp(-1/b)) and an *event*: a union of disjoint paths, each a conjunction of linear
constraints ``sum_j a_j x_j + c  (>= | > | <= | < | ==)  0`` over the draws with numeric
coefficients (a path of the symbolic executor with the queries and epsilon substituted).

Class of events handled (anything else raises :class:`UnsupportedEvent` naming the reason):

* the draws that occur in some constraint split into *components* (draws linked by a
  constraint over two or more draws); components are independent, so the probability of a
  conjunction is the product over components;
* every component is a **star**: one *hub* draw h and leaves, each constraint involving at
  most h and one leaf (the threshold noise of Sparse Vector, the winner's noise of Noisy
  Max, the fresh noise of a released value) -- given h the leaves are independent, so
  P = E_h[ prod_leaf P(leaf in its interval | h) ];
* or an all-Laplace **tree**: every constraint involves at most two draws and the pairs
  linked by constraints form a tree (several constraints on one pair allowed; e.g. the
  chain of comparisons a Noisy Max path makes with its running maximum);
* a Laplace hub may only have Laplace leaves; a geometric hub may have any leaves.
  Cycles (three draws compared pairwise, e.g. a runner-up tracked beside the maximum) and
  constraints over three or more draws are refused.

Method and guarantee.

* Laplace components are integrated **exactly**: given the hub s, each leaf's probability
  is F_b(U(s)) - F_b(L(s)) with L, U the tightest lower / upper bounds (lines in s), and the
  Laplace CDF is one exponential on each side of 0.  Between consecutive *kinks* (zeros of
  the bound lines, their pairwise crossings, 0 for the hub's density, the hub's own bounds)
  the integrand is a finite sum of terms ``c * exp(e + r s)`` with rational c, e, r
  (rational arithmetic: :class:`fractions.Fraction`; floats are converted exactly), which
  integrates in closed form.  The result is an exact closed form
  ``P = sum_k c_k exp(e_k)`` (rational c_k, e_k), evaluated in mpmath *interval*
  arithmetic to a certified enclosure at the requested number of digits.
* Geometric hubs are summed over the integers |s| <= M, the rest bounded rigorously by the
  hub's tail mass P(|S| > M) = 2 a^(M+1) / (1+a) (every other factor is a probability
  <= 1), so the enclosure is [sum, sum + tail]; leaves are evaluated in interval arithmetic.
* Trees are integrated exactly by message passing from the leaves to a root: the message
  of a draw x to its parent p is g(p) = integral of f_x(x) over max L(p) <= x <= min U(p),
  f_x = density x own-range indicator x children's messages, a piecewise sum of terms
  ``c p^k exp(e + r p)`` (rational c, e, r; antiderivatives by parts, bounds substituted by
  binomial expansion); the root's integral is again ``sum c_k exp(e_k)``.
* Constraints with a continuous (Laplace) draw and ``==`` have probability 0; strict and
  non-strict inequalities differ only for geometric draws (handled exactly).

Nothing here prints or writes files.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import mpmath

__all__ = [
    "OPS",
    "Constraint",
    "DrawLaw",
    "ExactProbability",
    "UnsupportedEvent",
    "conjunction_probability",
    "event_probability",
    "from_symbolic_path",
    "to_fraction",
]

OPS = (">=", ">", "<=", "<", "==")
LAWS = ("laplace", "geometric")
Number = int | float | Fraction


class UnsupportedEvent(ValueError):
    """The event is outside the class :mod:`audit.prove.exact_event` computes exactly."""


def to_fraction(v: object, what: str = "value") -> Fraction:
    """``v`` as an exact rational (a float is converted exactly; NaN / inf refused)."""
    if isinstance(v, Fraction):
        return v
    if isinstance(v, bool):
        return Fraction(int(v))
    if isinstance(v, int):
        return Fraction(v)
    try:
        f = float(v)  # type: ignore[arg-type]  # numpy scalars, sympy numbers
    except (TypeError, ValueError):
        raise UnsupportedEvent(f"{what} {v!r} is not a number") from None
    if not math.isfinite(f):
        raise UnsupportedEvent(f"{what} {v!r} is not finite")
    try:  # keep an exact rational if the object has one (sympy Rational)
        p, q = int(v.p), int(v.q)  # type: ignore[attr-defined]
        return Fraction(p, q)
    except (AttributeError, TypeError, ValueError):
        return Fraction(f)


@dataclass(frozen=True)
class DrawLaw:
    """One independent draw: ``law`` in ("laplace", "geometric") with scale ``scale`` > 0."""

    name: str
    law: str
    scale: Fraction

    def __post_init__(self) -> None:
        if self.law not in LAWS:
            raise UnsupportedEvent(f"draw {self.name!r}: law {self.law!r} is not one of {LAWS}")
        object.__setattr__(self, "scale", to_fraction(self.scale, f"scale of {self.name!r}"))
        if self.scale <= 0:
            raise UnsupportedEvent(f"draw {self.name!r}: scale {self.scale} must be > 0")


@dataclass(frozen=True)
class Constraint:
    """``sum_j coeffs[j] * x_j + const  op  0`` with numeric (rational) coefficients."""

    coeffs: Mapping[str, Fraction]
    const: Fraction
    op: str

    def __post_init__(self) -> None:
        if self.op not in OPS:
            raise UnsupportedEvent(f"constraint operator {self.op!r} is not one of {OPS}")
        cs = {k: to_fraction(v, f"coefficient of {k!r}") for k, v in self.coeffs.items()}
        object.__setattr__(self, "coeffs", {k: v for k, v in cs.items() if v != 0})
        object.__setattr__(self, "const", to_fraction(self.const, "constant"))

    @property
    def draws(self) -> frozenset[str]:
        return frozenset(self.coeffs)

    def holds(self, values: Mapping[str, Number]) -> bool:
        """Exact truth on concrete draw values (used by the tests and by replays)."""
        v = self.const + sum((c * to_fraction(values[k]) for k, c in self.coeffs.items()),
                             Fraction(0))
        return {">=": v >= 0, ">": v > 0, "<=": v <= 0, "<": v < 0, "==": v == 0}[self.op]

    def describe(self) -> str:
        parts = [f"{c}*{k}" for k, c in sorted(self.coeffs.items())]
        return f"{' + '.join(parts) or '0'} + {self.const} {self.op} 0"


@dataclass(frozen=True)
class ExactProbability:
    """A probability with a certified enclosure ``[lower, upper]`` (mpmath ``mpf``).

    ``closed_form`` (when every component is Laplace) is the exact value as a list of
    ``(c, e)`` rationals meaning ``sum c * exp(e)``; ``None`` when a geometric sum was
    truncated (then the enclosure includes the rigorous tail bound)."""

    lower: mpmath.mpf
    upper: mpmath.mpf
    digits: int
    closed_form: tuple[tuple[Fraction, Fraction], ...] | None = None
    notes: tuple[str, ...] = field(default=())

    @property
    def mid(self) -> mpmath.mpf:
        return (self.lower + self.upper) / 2

    def as_dict(self) -> dict[str, object]:
        return {
            "lower": mpmath.nstr(self.lower, self.digits),
            "upper": mpmath.nstr(self.upper, self.digits),
            "digits": self.digits,
            "closed_form": (None if self.closed_form is None else
                            [[str(c), str(e)] for c, e in self.closed_form]),
        }


# =============================================================================================
# exact piecewise-exponential algebra: a term (c, e, r) is c * exp(e + r*s)
# =============================================================================================

Term = tuple[Fraction, Fraction, Fraction]
_ONE: list[Term] = [(Fraction(1), Fraction(0), Fraction(0))]


def _key(x: Fraction) -> tuple[int, int]:
    """A dictionary key of a Fraction: the pair of ints hashes far faster than the Fraction
    (whose hash is a modular inverse of the denominator), and is equal exactly when the
    (normalised) Fractions are."""
    return x.numerator, x.denominator


def _mul(a: list[Term], b: list[Term]) -> list[Term]:
    acc: dict[tuple[int, int, int, int], list[Fraction]] = {}
    for c1, e1, r1 in a:
        for c2, e2, r2 in b:
            e, r = e1 + e2, r1 + r2
            key = (e.numerator, e.denominator, r.numerator, r.denominator)
            hit = acc.get(key)
            if hit is None:
                acc[key] = [c1 * c2, e, r]
            else:
                hit[0] += c1 * c2
    return [(c, e, r) for c, e, r in acc.values() if c != 0]


def _lap_cdf_terms(alpha: Fraction, beta: Fraction, b: Fraction, nonneg: bool) -> list[Term]:
    """Laplace(b) CDF at y = alpha*s + beta on a piece where y >= 0 (``nonneg``) or y < 0."""
    if nonneg:  # 1 - exp(-y/b)/2
        return [(Fraction(1), Fraction(0), Fraction(0)),
                (Fraction(-1, 2), -beta / b, -alpha / b)]
    return [(Fraction(1, 2), beta / b, alpha / b)]  # exp(y/b)/2


Line = tuple[Fraction, Fraction]  # alpha*s + beta


def _at(line: Line, s: Fraction) -> Fraction:
    return line[0] * s + line[1]


@dataclass
class _Leaf:
    """Bounds on one leaf draw x as lines in the hub s: x >= lowers, x <= uppers
    (strictness recorded for geometric leaves)."""

    law: DrawLaw
    lowers: list[tuple[Line, bool]] = field(default_factory=list)  # (line, strict)
    uppers: list[tuple[Line, bool]] = field(default_factory=list)
    impossible: bool = False  # an '==' on a continuous leaf

    def add(self, a_x: Fraction, a_s: Fraction, c: Fraction, op: str) -> None:
        """Record ``a_x x + a_s s + c op 0``."""
        line: Line = (-a_s / a_x, -c / a_x)  # x  op'  line(s)
        if op == "==":
            if self.law.law == "laplace":
                self.impossible = True
                return
            self.lowers.append((line, False))
            self.uppers.append((line, False))
            return
        strict = op in (">", "<")
        ge = op in (">=", ">")
        if a_x < 0:
            ge = not ge
        (self.lowers if ge else self.uppers).append((line, strict))

    def lines(self) -> list[Line]:
        return [ln for ln, _ in self.lowers] + [ln for ln, _ in self.uppers]


def _kinks(leaves: Sequence[_Leaf]) -> set[Fraction]:
    pts: set[Fraction] = {Fraction(0)}
    for leaf in leaves:
        ls = leaf.lines()
        for al, be in ls:
            if al != 0:
                pts.add(-be / al)
        for i in range(len(ls)):
            for j in range(i + 1, len(ls)):
                (a1, b1), (a2, b2) = ls[i], ls[j]
                if a1 != a2:
                    pts.add((b2 - b1) / (a1 - a2))
    return pts


def _leaf_terms_on_piece(leaf: _Leaf, mid: Fraction) -> list[Term]:
    """Exact terms of P(L(s) <= x <= U(s)) for a Laplace leaf on the piece containing mid."""
    if leaf.impossible:
        return []
    b = leaf.law.scale
    lo = max(leaf.lowers, key=lambda t: _at(t[0], mid), default=None)
    up = min(leaf.uppers, key=lambda t: _at(t[0], mid), default=None)
    if lo is not None and up is not None and _at(up[0], mid) <= _at(lo[0], mid):
        return []
    terms: list[Term] = []
    if up is None:
        terms += _ONE
    else:
        terms += _lap_cdf_terms(*up[0], b, _at(up[0], mid) >= 0)
    if lo is not None:
        terms += [(-c, e, r) for c, e, r in _lap_cdf_terms(*lo[0], b, _at(lo[0], mid) >= 0)]
    return _mul(terms, _ONE)  # merges equal exponents


def _integrate(terms: list[Term], lo: Fraction | None, hi: Fraction | None
               ) -> list[tuple[Fraction, Fraction]]:
    """Exact integral of sum c exp(e + r s) over (lo, hi) (None = infinite) as (c, e) pairs."""
    out: list[tuple[Fraction, Fraction]] = []
    for c, e, r in terms:
        if r == 0:
            if lo is None or hi is None:
                raise ArithmeticError("divergent constant term on an infinite piece")
            out.append((c * (hi - lo), e))
            continue
        if hi is not None:
            out.append((c / r, e + r * hi))
        elif r > 0:
            raise ArithmeticError("divergent term at +infinity")
        if lo is not None:
            out.append((-c / r, e + r * lo))
        elif r < 0:
            raise ArithmeticError("divergent term at -infinity")
    return out


def _merge(cf: Iterable[tuple[Fraction, Fraction]]) -> list[tuple[Fraction, Fraction]]:
    acc: dict[tuple[int, int], list[Fraction]] = {}
    for c, e in cf:
        hit = acc.get(_key(e))
        if hit is None:
            acc[_key(e)] = [c, e]
        else:
            hit[0] += c
    return sorted(((c, e) for c, e in acc.values() if c != 0), key=lambda t: t[1])


def _cf_mul(a: list[tuple[Fraction, Fraction]], b: list[tuple[Fraction, Fraction]]
            ) -> list[tuple[Fraction, Fraction]]:
    return _merge((c1 * c2, e1 + e2) for c1, e1 in a for c2, e2 in b)


def _hub_range(cons: Sequence[tuple[Fraction, Fraction, str]], law: DrawLaw
               ) -> tuple[Fraction | None, Fraction | None, bool]:
    """Interval of the hub from hub-only constraints ``a s + c op 0`` (continuous: closure);
    third item False when empty / measure zero."""
    lo: Fraction | None = None
    hi: Fraction | None = None
    for a, c, op in cons:
        v = -c / a
        if op == "==":  # measure zero for a continuous hub; an integer hub needs v integer
            if law.law != "geometric" or v.denominator != 1:
                return v, v, False
            lo = v if lo is None else max(lo, v)
            hi = v if hi is None else min(hi, v)
            continue
        ge = op in (">=", ">")
        if a < 0:
            ge = not ge
        if law.law == "geometric":  # integers: tighten strict bounds exactly
            if ge:
                v = Fraction(math.floor(v) + 1) if (op in (">", "<") and v == math.floor(v)) \
                    else Fraction(math.ceil(v))
            else:
                v = Fraction(math.ceil(v) - 1) if (op in (">", "<") and v == math.ceil(v)) \
                    else Fraction(math.floor(v))
        if ge:
            lo = v if lo is None else max(lo, v)
        else:
            hi = v if hi is None else min(hi, v)
    ok = not (lo is not None and hi is not None and hi < lo)
    return lo, hi, ok


def _laplace_star(hub: DrawLaw | None, hub_cons: list[tuple[Fraction, Fraction, str]],
                  leaves: list[_Leaf]) -> list[tuple[Fraction, Fraction]]:
    """Exact closed form (pairs (c, e): sum c exp(e)) of one all-Laplace star component."""
    if hub is None:  # a single leaf, no hub: constant lines
        (leaf,) = leaves
        return _merge((c, e) for c, e, _ in _leaf_terms_on_piece(leaf, Fraction(0)))
    s_lo, s_hi, ok = _hub_range(hub_cons, hub)
    if not ok or (s_lo is not None and s_lo == s_hi):
        return []
    b = hub.scale
    pts = sorted(p for p in _kinks(leaves)
                 if (s_lo is None or p > s_lo) and (s_hi is None or p < s_hi))
    edges: list[Fraction | None] = [s_lo, *pts, s_hi]
    total: list[tuple[Fraction, Fraction]] = []
    for lo, hi in zip(edges[:-1], edges[1:], strict=True):
        if lo is None and hi is None:
            mid = Fraction(0)
        elif lo is None:
            mid = Fraction(hi) - 1  # type: ignore[arg-type]
        elif hi is None:
            mid = lo + 1
        else:
            mid = (lo + hi) / 2
        dens: list[Term] = [(1 / (2 * b), Fraction(0), (-1 if mid >= 0 else 1) / b)]
        integrand = dens
        for leaf in leaves:
            integrand = _mul(integrand, _leaf_terms_on_piece(leaf, mid))
            if not integrand:
                break
        total += _integrate(integrand, lo, hi)
    return _merge(total)


# =============================================================================================
# tree-structured Laplace components: message passing over piecewise poly-exponentials
# =============================================================================================

PTerm = tuple[Fraction, int, Fraction, Fraction]  # c * s^k * exp(e + r s)
Piece = tuple[Fraction | None, Fraction | None, list[PTerm]]


def _pmerge(terms: Iterable[PTerm]) -> list[PTerm]:
    acc: dict[tuple[int, int, int, int, int], list[Any]] = {}
    for c, k, e, r in terms:
        key = (k, e.numerator, e.denominator, r.numerator, r.denominator)
        hit = acc.get(key)
        if hit is None:
            acc[key] = [c, k, e, r]
        else:
            hit[0] += c
    return [(c, k, e, r) for c, k, e, r in acc.values() if c != 0]


def _pmul(a: list[PTerm], b: list[PTerm]) -> list[PTerm]:
    return _pmerge((c1 * c2, k1 + k2, e1 + e2, r1 + r2)
                   for c1, k1, e1, r1 in a for c2, k2, e2, r2 in b)


def _antiderivative(terms: list[PTerm]) -> list[PTerm]:
    """An antiderivative of sum c s^k e^(e + r s) (integration by parts, exact)."""
    out: list[PTerm] = []
    for c, k, e, r in terms:
        if r == 0:
            out.append((c / (k + 1), k + 1, e, r))
            continue
        fact = Fraction(1)  # k!/(k-j)!
        for j in range(k + 1):
            out.append(((-1) ** j * c * fact / r ** (j + 1), k - j, e, r))
            fact *= k - j
    return _pmerge(out)


def _at_const(terms: list[PTerm], v: Fraction | None, side: int) -> list[PTerm]:
    """The antiderivative at the point v (None: the limit at side * infinity, 0 for the
    convergent terms of an integrable function)."""
    if v is None:
        for c, _k, _e, r in terms:
            if c != 0 and (r == 0 or (r > 0) == (side > 0)):
                raise ArithmeticError("divergent term at infinity")
        return []
    return _pmerge((c * v ** k, 0, e + r * v, Fraction(0)) for c, k, e, r in terms)


def _at_line(terms: list[PTerm], alpha: Fraction, beta: Fraction) -> list[PTerm]:
    """The antiderivative at x = alpha p + beta, as terms in p (binomial expansion)."""
    out: list[PTerm] = []
    for c, k, e, r in terms:
        e2, r2 = e + r * beta, r * alpha
        for j in range(k + 1):
            out.append((c * math.comb(k, j) * alpha ** j * beta ** (k - j), j, e2, r2))
    return _pmerge(out)


def _pw_density(b: Fraction) -> list[Piece]:
    return [(None, Fraction(0), [(1 / (2 * b), 0, Fraction(0), 1 / b)]),
            (Fraction(0), None, [(1 / (2 * b), 0, Fraction(0), -1 / b)])]


def _cuts(f: list[Piece]) -> list[Fraction]:
    return [hi for _, hi, _ in f[:-1] if hi is not None]


def _pieces_at(f: list[Piece], cuts: list[Fraction]) -> list[Piece]:
    """``f`` refined to the breakpoints ``cuts`` (sorted, distinct)."""
    edges: list[Fraction | None] = [None, *cuts, None]
    out: list[Piece] = []
    for lo, hi in zip(edges[:-1], edges[1:], strict=True):
        m = _midpoint(lo, hi)
        out.append((lo, hi, _piece_terms(f, m)))
    return out


def _midpoint(lo: Fraction | None, hi: Fraction | None) -> Fraction:
    if lo is None and hi is None:
        return Fraction(0)
    if lo is None:
        return Fraction(hi) - 1  # type: ignore[arg-type]
    if hi is None:
        return lo + 1
    return (lo + hi) / 2


def _piece_terms(f: list[Piece], m: Fraction) -> list[PTerm]:
    for lo, hi, t in f:
        if (lo is None or lo < m) and (hi is None or m < hi):
            return t
    raise AssertionError("midpoint on a breakpoint")


def _pw_mul(f: list[Piece], g: list[Piece]) -> list[Piece]:
    cuts = sorted(set(_cuts(f)) | set(_cuts(g)))
    edges: list[Fraction | None] = [None, *cuts, None]
    out: list[Piece] = []
    for lo, hi in zip(edges[:-1], edges[1:], strict=True):
        m = _midpoint(lo, hi)
        out.append((lo, hi, _pmul(_piece_terms(f, m), _piece_terms(g, m))))
    return out


def _pw_restrict(f: list[Piece], lo: Fraction | None, hi: Fraction | None) -> list[Piece]:
    cuts = sorted(set(_cuts(f)) | {v for v in (lo, hi) if v is not None})
    out = []
    for a, b, t in _pieces_at(f, cuts):
        m = _midpoint(a, b)
        inside = (lo is None or m > lo) and (hi is None or m < hi)
        out.append((a, b, t if inside else []))
    return out


def _pw_integral_total(f: list[Piece]) -> list[PTerm]:
    out: list[PTerm] = []
    for lo, hi, t in f:
        if not t:
            continue
        a = _antiderivative(t)
        out += _at_const(a, hi, 1)
        out += [(-c, k, e, r) for c, k, e, r in _at_const(a, lo, -1)]
    return _pmerge(out)


def _pw_message(f: list[Piece], leaf: _Leaf) -> list[Piece]:
    """g(p) = integral of f(x) over max L(p) <= x <= min U(p), as a piecewise function of
    the parent p (the bounds are the lines of ``leaf``)."""
    kappas = _cuts(f)
    lines = leaf.lines()
    pts: set[Fraction] = set()
    for al, be in lines:
        if al != 0:
            pts.update((kap - be) / al for kap in kappas)
    for i in range(len(lines)):
        for j in range(i + 1, len(lines)):
            (a1, b1), (a2, b2) = lines[i], lines[j]
            if a1 != a2:
                pts.add((b2 - b1) / (a1 - a2))
    anti = [(lo, hi, _antiderivative(t)) for lo, hi, t in f]
    cuts = sorted(pts)
    edges: list[Fraction | None] = [None, *cuts, None]
    out: list[Piece] = []
    for plo, phi in zip(edges[:-1], edges[1:], strict=True):
        m = _midpoint(plo, phi)
        lo_ln = max((ln for ln, _ in leaf.lowers), key=lambda ln: _at(ln, m), default=None)
        up_ln = min((ln for ln, _ in leaf.uppers), key=lambda ln: _at(ln, m), default=None)
        lm = None if lo_ln is None else _at(lo_ln, m)
        um = None if up_ln is None else _at(up_ln, m)
        if lm is not None and um is not None and um <= lm:
            out.append((plo, phi, []))
            continue
        # pieces of f met by [lm, um]: i (holding lm) .. j (holding um)
        i = 0 if lm is None else next(t for t, (lo, hi, _) in enumerate(anti)
                                      if (lo is None or lo <= lm) and (hi is None or lm < hi))
        j = len(anti) - 1 if um is None else next(
            t for t, (lo, hi, _) in enumerate(anti)
            if (lo is None or lo < um) and (hi is None or um <= hi))
        terms: list[PTerm] = []
        for t in range(i, j + 1):
            lo, hi, a = anti[t]
            if t == j:
                terms += (_at_line(a, *up_ln) if up_ln is not None else _at_const(a, None, 1))
            else:
                terms += _at_const(a, hi, 1)
            if t == i:
                low = (_at_line(a, *lo_ln) if lo_ln is not None else _at_const(a, None, -1))
            else:
                low = _at_const(a, lo, -1)
            terms += [(-c, k, e, r) for c, k, e, r in low]
        out.append((plo, phi, _pmerge(terms)))
    return out


def _laplace_tree(draws: Mapping[str, DrawLaw], names: set[str], cons: list[Constraint]
                  ) -> list[tuple[Fraction, Fraction]]:
    """Exact closed form of an all-Laplace component whose constraints over two draws form
    a tree (several constraints on one pair allowed): messages from the leaves to a root,
    each a piecewise sum of c p^k exp(e + r p) terms of the parent p."""
    adj: dict[str, set[str]] = {x: set() for x in names}
    single: dict[str, list[Constraint]] = {x: [] for x in names}
    pair: dict[frozenset[str], list[Constraint]] = {}
    for c in cons:
        if len(c.draws) > 2:
            raise UnsupportedEvent(f"constraint {c.describe()} links {len(c.draws)} draws; "
                                   "only constraints over two draws are handled")
        if len(c.draws) == 1:
            single[next(iter(c.draws))].append(c)
            continue
        x, y = sorted(c.draws)
        adj[x].add(y)
        adj[y].add(x)
        pair.setdefault(frozenset((x, y)), []).append(c)
    if len(pair) != len(names) - 1:
        raise UnsupportedEvent("the constraints over pairs of draws " + ", ".join(
            sorted(names)) + " form a cycle (neither a star nor a tree)")
    root = max(sorted(names), key=lambda x: len(adj[x]))
    order: list[str] = [root]
    parent: dict[str, str | None] = {root: None}
    for x in order:
        for y in sorted(adj[x]):
            if y not in parent:
                parent[y] = x
                order.append(y)
    msgs: dict[str, list[list[Piece]]] = {x: [] for x in names}
    for x in reversed(order):
        f = _pw_density(draws[x].scale)
        for c in single[x]:
            if c.op == "==":
                return []
            lf = _Leaf(draws[x])
            lf.add(c.coeffs[x], Fraction(0), c.const, c.op)
            lo = max((ln[1] for ln, _ in lf.lowers), default=None)
            hi = min((ln[1] for ln, _ in lf.uppers), default=None)
            if lo is not None and hi is not None and hi <= lo:
                return []
            f = _pw_restrict(f, lo, hi)
        for g in msgs[x]:
            f = _pw_mul(f, g)
        p = parent[x]
        if p is None:
            return _merge((c, e) for c, _k, e, _r in _pw_integral_total(f))
        lf = _Leaf(draws[x])
        for c in pair[frozenset((x, p))]:
            lf.add(c.coeffs[x], c.coeffs[p], c.const, c.op)
        if lf.impossible:
            return []
        msgs[p].append(_pw_message(f, lf))
    raise AssertionError("no root")


def _iv_closed_form(cf: Sequence[tuple[Fraction, Fraction]]) -> mpmath.ctx_iv.ivmpf:
    iv = mpmath.iv
    acc = iv.mpf(0)
    for c, e in cf:
        acc += (iv.mpf(c.numerator) / c.denominator) * iv.exp(iv.mpf(e.numerator) / e.denominator)
    return acc


def _geo_alpha(b: Fraction) -> mpmath.ctx_iv.ivmpf:
    return mpmath.iv.exp(-1 / mpmath.iv.mpf(b.numerator) * b.denominator)


def _geo_int_range(leaf: _Leaf, s: int) -> tuple[int | None, int | None]:
    lo: int | None = None
    hi: int | None = None
    for (al, be), strict in leaf.lowers:
        v = al * s + be
        k = math.floor(v) + 1 if (strict and v == math.floor(v)) else math.ceil(v)
        lo = k if lo is None else max(lo, k)
    for (al, be), strict in leaf.uppers:
        v = al * s + be
        k = math.ceil(v) - 1 if (strict and v == math.ceil(v)) else math.floor(v)
        hi = k if hi is None else min(hi, k)
    return lo, hi


def _geo_cdf(m: int, a: mpmath.ctx_iv.ivmpf) -> mpmath.ctx_iv.ivmpf:
    """P(G <= m) for the two-sided geometric with ratio a (exact formula, interval)."""
    if m >= 0:
        return 1 - a ** (m + 1) / (1 + a)
    return a ** (-m) / (1 + a)


def _leaf_prob_at(leaf: _Leaf, s: int) -> mpmath.ctx_iv.ivmpf:
    iv = mpmath.iv
    if leaf.impossible:
        return iv.mpf(0)
    if leaf.law.law == "laplace":
        sf = Fraction(s)
        return _iv_closed_form(_merge((c, e + r * sf) for c, e, r in
                                      _leaf_terms_on_piece(_shift(leaf, sf), sf)))
    lo, hi = _geo_int_range(leaf, s)
    if lo is not None and hi is not None and hi < lo:
        return iv.mpf(0)
    a = _geo_alpha(leaf.law.scale)
    up = iv.mpf(1) if hi is None else _geo_cdf(hi, a)
    dn = iv.mpf(0) if lo is None else _geo_cdf(lo - 1, a)
    return up - dn


def _shift(leaf: _Leaf, s: Fraction) -> _Leaf:
    """The leaf with the hub fixed at ``s`` (all lines constant)."""
    out = _Leaf(leaf.law, impossible=leaf.impossible)
    out.lowers = [((Fraction(0), _at(ln, s)), st) for ln, st in leaf.lowers]
    out.uppers = [((Fraction(0), _at(ln, s)), st) for ln, st in leaf.uppers]
    return out


def _geometric_star(hub: DrawLaw, hub_cons: list[tuple[Fraction, Fraction, str]],
                    leaves: list[_Leaf], digits: int) -> tuple[object, object]:
    """Enclosure [lo, hi] of a star with a geometric hub: the sum over |s| <= M plus the
    tail bound 2 a^(M+1)/(1+a)."""
    iv = mpmath.iv
    s_lo, s_hi, ok = _hub_range(hub_cons, hub)
    if not ok:
        return iv.mpf(0), iv.mpf(0)
    a = _geo_alpha(hub.scale)
    # a^(M+1) <= 10^-(digits+5):  M = ceil((digits+5) ln 10 * b)
    m_cut = int(math.ceil((digits + 5) * math.log(10) * float(hub.scale))) + 1
    lo_s = -m_cut if s_lo is None else max(-m_cut, int(s_lo))
    hi_s = m_cut if s_hi is None else min(m_cut, int(s_hi))
    norm = (1 - a) / (1 + a)
    acc = iv.mpf(0)
    for s in range(lo_s, hi_s + 1):
        term = norm * a ** abs(s)
        for leaf in leaves:
            term = term * _leaf_prob_at(leaf, s)
            if term.b == 0:
                break
        acc += term
    tail = 2 * a ** (m_cut + 1) / (1 + a)
    return acc, acc + tail


def _components(draws: Mapping[str, DrawLaw], cons: Sequence[Constraint]
                ) -> list[tuple[set[str], list[Constraint]]]:
    parent = {k: k for k in draws}

    def find(x: str) -> str:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for c in cons:
        ds = sorted(c.draws)
        for d in ds[1:]:
            parent[find(d)] = find(ds[0])
    groups: dict[str, tuple[set[str], list[Constraint]]] = {}
    for c in cons:
        if not c.draws:
            continue
        r = find(next(iter(c.draws)))
        groups.setdefault(r, (set(), []))
        groups[r][0].update(c.draws)
        groups[r][1].append(c)
    return list(groups.values())


def _pick_hub(names: set[str], cons: list[Constraint]) -> str | None:
    multi = [c for c in cons if len(c.draws) >= 2]
    if not multi:
        return None
    for c in multi:
        if len(c.draws) > 2:
            raise UnsupportedEvent(
                f"constraint {c.describe()} links {len(c.draws)} draws; only constraints over "
                "a hub draw and one other draw are handled")
    common = set(multi[0].draws)
    for c in multi[1:]:
        common &= c.draws
    if not common:
        raise UnsupportedEvent(
            "the draws " + ", ".join(sorted(names)) + " are linked without a common hub draw "
            "(not a star: conditioning on one draw does not make the others independent)")
    return sorted(common)[0]


def conjunction_probability(draws: Mapping[str, DrawLaw] | Sequence[DrawLaw],
                            constraints: Sequence[Constraint], digits: int = 40
                            ) -> ExactProbability:
    """P(all ``constraints`` hold) for independent ``draws`` (module docstring: class,
    method, guarantee); enclosure certified at ``digits`` significant digits."""
    return event_probability(draws, [constraints], digits)


def event_probability(draws: Mapping[str, DrawLaw] | Sequence[DrawLaw],
                      paths: Sequence[Sequence[Constraint]], digits: int = 40
                      ) -> ExactProbability:
    """P(union of the disjoint ``paths``), each a conjunction of linear constraints."""
    if not isinstance(draws, Mapping):
        draws = {d.name: d for d in draws}
    if digits < 1 or digits > 1000:
        raise UnsupportedEvent(f"digits {digits} must be in 1..1000")
    prec = int(digits * 3.33) + 40
    saved = mpmath.iv.prec
    mpmath.iv.prec = prec
    try:
        return _event_probability(draws, paths, digits, prec)
    finally:
        mpmath.iv.prec = saved


def _event_probability(draws: Mapping[str, DrawLaw], paths: Sequence[Sequence[Constraint]],
                       digits: int, prec: int) -> ExactProbability:
    with mpmath.workprec(prec):
        total_lo = mpmath.iv.mpf(0)
        total_hi = mpmath.iv.mpf(0)
        closed: list[tuple[Fraction, Fraction]] | None = []
        for path in paths:
            lo, hi, cf = _path_enclosure(draws, path, digits)
            total_lo += lo
            total_hi += hi
            if cf is None or closed is None:
                closed = None
            else:
                closed = _merge([*closed, *cf])
        lower = max(mpmath.mpf(total_lo.a), mpmath.mpf(0))
        upper = min(mpmath.mpf(total_hi.b), mpmath.mpf(1))
        return ExactProbability(lower=lower, upper=upper, digits=digits,
                                closed_form=None if closed is None else tuple(closed))


def _path_enclosure(draws: Mapping[str, DrawLaw], path: Sequence[Constraint], digits: int
                    ) -> tuple[object, object, list[tuple[Fraction, Fraction]] | None]:
    iv = mpmath.iv
    for c in path:
        unknown = c.draws - set(draws)
        if unknown:
            raise UnsupportedEvent(f"constraint {c.describe()} uses undeclared draws "
                                   f"{sorted(unknown)}")
        if not c.draws:
            v = c.const
            if not {">=": v >= 0, ">": v > 0, "<=": v <= 0, "<": v < 0, "==": v == 0}[c.op]:
                return iv.mpf(0), iv.mpf(0), []
    cf: list[tuple[Fraction, Fraction]] | None = [(Fraction(1), Fraction(0))]
    lo_acc, hi_acc = iv.mpf(1), iv.mpf(1)
    for names, cons in _components(draws, path):
        try:
            hub = _pick_hub(names, cons)
        except UnsupportedEvent:
            if any(draws[x].law != "laplace" for x in names):
                raise
            comp = _laplace_tree(draws, names, cons)
            p = _iv_closed_form(comp)
            lo_acc, hi_acc = lo_acc * p, hi_acc * p
            if cf is not None:
                cf = _cf_mul(cf, comp)
            continue
        hub_cons: list[tuple[Fraction, Fraction, str]] = []
        leaves: dict[str, _Leaf] = {}
        for c in cons:
            others = [d for d in c.draws if d != hub]
            if not others:
                hub_cons.append((c.coeffs[hub], c.const, c.op))  # type: ignore[index]
                continue
            (x,) = others
            leaf = leaves.setdefault(x, _Leaf(draws[x]))
            a_s = c.coeffs.get(hub, Fraction(0)) if hub is not None else Fraction(0)
            leaf.add(c.coeffs[x], a_s, c.const, c.op)
        hub_law = draws[hub] if hub is not None else None
        if hub_law is None or hub_law.law == "laplace":
            bad = [x for x, lf in leaves.items() if lf.law.law != "laplace"]
            if hub_law is not None and bad:
                raise UnsupportedEvent(
                    f"geometric draw(s) {bad} linked to the Laplace draw {hub!r}: a "
                    "continuous hub with integer leaves is not handled")
            if hub_law is None and leaves and next(iter(leaves.values())).law.law == "geometric":
                (leaf,) = leaves.values()
                p = _leaf_prob_at(leaf, 0)
                lo_acc, hi_acc = lo_acc * p, hi_acc * p
                cf = None
                continue
            comp = _laplace_star(hub_law, hub_cons, list(leaves.values()))
            p = _iv_closed_form(comp)
            lo_acc, hi_acc = lo_acc * p, hi_acc * p
            if cf is not None:
                cf = _cf_mul(cf, comp)
        else:
            lo, hi = _geometric_star(hub_law, hub_cons, list(leaves.values()), digits)
            lo_acc, hi_acc = lo_acc * lo, hi_acc * hi
            cf = None
    return lo_acc, hi_acc, cf


def from_symbolic_path(path: object, q: Sequence[Number], eps: Number,
                       params: Mapping[str, Number] | None = None
                       ) -> tuple[dict[str, DrawLaw], list[Constraint]]:
    """The draws and constraints of one path of the symbolic executor
    (:class:`audit.prove.symbolic.Path`: ``draws`` with ``scale.value(eps)``, constraints
    with ``at(q, params) -> (coefficients, constant)``) at concrete queries and epsilon."""
    e = to_fraction(eps, "epsilon")
    draws = {d.name: DrawLaw(d.name, d.law, to_fraction(d.scale.value(e), "noise scale"))
             for d in path.draws}  # type: ignore[attr-defined]
    cons: list[Constraint] = []
    for c in path.constraints:  # type: ignore[attr-defined]
        coeffs, const = c.at([to_fraction(v) for v in q], dict(params or {}))
        cons.append(Constraint(coeffs, const, c.op))
    return draws, cons
