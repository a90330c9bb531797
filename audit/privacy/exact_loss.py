"""Exact (numerically certified) privacy loss of location-scale mechanisms, and a search for
the worst neighbour of a given data set.

A :class:`audit.protocols.LocationScaleMechanism` outputs y = a + b Z on X and
y = a' + b' Z on a neighbour X', Z with log-density l.  The privacy loss of the pair is

    eps(X, X') = sup_y |L(y)|,   L(y) = l((y - a)/b) - log b - l((y - a')/b') + log b'.

:func:`pair_loss` computes it as follows (the method in full: ``exact_loss.md`` beside this
module):

1. **Tails** from the mechanism's noise law (:mod:`audit.privacy.noise_laws`, confirmed
   against its ``noise_logpdf``): :meth:`~audit.privacy.noise_laws.NoiseLaw.tail_limits`.
   Without a confirmed law the tails are sampled at |y| ~ 1e12 scales and the result is
   marked not certified.
2. **Interior**: every local extremum of L on a float grid of y = c + w sinh(s) around both
   locations is bracketed and refined at 60 digits.
3. **Certification**: L at the maximiser is evaluated at 30 and 60 digits (the mechanism's
   ``noise_logpdf_mp``); they must agree to 1e-25 relative to max(1, |L|).

Guarantee: ``epsilon_up`` is never below the real loss at the maximiser found (the 60-digit
value plus the agreement tolerance, rounded up to a float); ``value_down`` is a certified
lower bound on eps(X, X').  That the maximiser is global rests on the grid (no extremum
narrower than ~1e-3 relative is missed for smooth densities): not proved.  A law with a
closed-form sup-loss and ``cross_check`` set has it reported as ``analytic_check``.

:func:`worst_neighbour` screens the replace-one (or add-remove-one) neighbours of a data set
with the fast float loss, optimises the new value for the best records within a stated
number of mechanism evaluations, and certifies the best pairs with :func:`pair_loss`.
Neighbours outside the mechanism's domain are skipped and counted.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np
from scipy.optimize import minimize_scalar

from audit.privacy.neighbours import AddRemoveOne, ReplaceOne, candidate_indices, replace
from audit.privacy.noise_laws import NoiseLaw, noise_law
from audit.protocols import (
    ADD_REMOVE_ONE,
    RELATIONS,
    REPLACE_ONE,
    LocationScaleMechanism,
)
from audit.rounding import float_down, float_up
from kernels.errors import InvalidParameterError
from kernels.validate import as_data, as_scalar, check_positive

__all__ = [
    "DPS",
    "REFERENCE_MAX_N",
    "REFERENCE_RTOL",
    "DatasetPairLoss",
    "NeighbourLoss",
    "NeighbourSearch",
    "PairLoss",
    "check_dps",
    "dataset_pair_loss",
    "noise_family",
    "pair_loss",
    "reference_location_scale",
    "screen_loss",
    "worst_neighbour",
]

#: the two mpmath precisions (decimal digits) of the certification
DPS: tuple[int, int] = (30, 60)
#: kernel float (location, scale) vs exact reference: stated relative tolerance
REFERENCE_RTOL = 1e-9
#: default: re-certify the worst pair on exact reference values up to this n (mechanisms
#: with exact_location_scale)
REFERENCE_MAX_N = 100_000
_AGREE_EXP = 25  # the two precisions must agree to 10^-25 (relative to max(1, |L|))
_GRID_SPAN = 1e9  # |y - c| up to _GRID_SPAN * scale on the search grid


# ------------------------------------------------------------------------ noise law
def check_dps(dps: Any) -> None:
    """``dps`` must be two mpmath precisions (low, high) with 20 <= low < high."""
    ok = (
        isinstance(dps, tuple) and len(dps) == 2
        and all(isinstance(d, int) and not isinstance(d, bool) for d in dps)
        and 20 <= dps[0] < dps[1]
    )
    if not ok:
        raise InvalidParameterError(
            f"dps must be a pair of integers (low, high) with 20 <= low < high, got {dps!r}"
        )


def noise_family(mech: Any) -> tuple[str, float | None]:
    """(name, parameter) of the mechanism's confirmed noise law
    (:func:`audit.privacy.noise_laws.noise_law`), or ("unknown", None)."""
    law = noise_law(mech)
    return ("unknown", None) if law is None else (law.name, law.parameter)


# ----------------------------------------------------------------------- fast screen
def screen_loss(mech: Any, a: float, b: float, a2: float, b2: float) -> float:
    """Fast float sup_y |L(y)| (for screening and the optimiser; not certified): the noise
    law's closed form (:meth:`NoiseLaw.sup_loss`) when it offers one, else the maximum on a
    float grid."""
    return _screen(mech, noise_law(mech), a, b, a2, b2)


def _screen(mech: Any, law: NoiseLaw | None, a: float, b: float, a2: float,
            b2: float) -> float:
    v = law.sup_loss(a, b, a2, b2) if law is not None else None
    if v is not None:
        return v
    y = _grid(a, b, a2, b2, 801)
    return float(np.max(np.abs(_L_float(mech, y, a, b, a2, b2))))


# ---------------------------------------------------------------------- pair loss
def _grid(a: float, b: float, a2: float, b2: float, n: int) -> np.ndarray:
    s = np.sinh(np.linspace(-math.asinh(_GRID_SPAN), math.asinh(_GRID_SPAN), n))
    y = np.concatenate([a + b * s, a2 + b2 * s, [a, a2]])
    y = np.unique(y[np.isfinite(y)])
    return y


def _L_float(mech: Any, y: np.ndarray, a: float, b: float, a2: float, b2: float) -> np.ndarray:
    with np.errstate(all="ignore"):
        z1 = (y - a) / b
        z2 = (y - a2) / b2
        return (np.asarray(mech.noise_logpdf(z1)) - math.log(b)
                - np.asarray(mech.noise_logpdf(z2)) + math.log(b2))


def _mpf(v: Any) -> Any:
    if isinstance(v, Fraction):
        return mpmath.mpf(v.numerator) / v.denominator
    return mpmath.mpf(v)


def _L_mp(mech: Any, y: Any, a: Any, b: Any, a2: Any, b2: Any) -> Any:
    z1 = (y - a) / b
    z2 = (y - a2) / b2
    return (mech.noise_logpdf_mp(z1) - mpmath.log(b)
            - mech.noise_logpdf_mp(z2) + mpmath.log(b2))




@dataclass(frozen=True)
class PairLoss:
    """Certified privacy loss of one pair of location-scale outputs (see module docstring).

    ``epsilon_up``: sup_y |L(y)| rounded UP to float (``inf`` if unbounded);
    ``value_down``: the same figure rounded DOWN (a certified lower bound);
    ``value_mp``: 25 significant digits at 60-digit precision ("inf" if unbounded);
    ``y_star``: the maximiser as a float, or "+inf" / "-inf" / "+-inf" for a tail limit;
    ``sign``: +1 if log p_X(y*) > log p_X'(y*) (the output is likelier under X), else -1;
    ``curve``: (y, L(y)) on a grid around both locations, for a plot;
    ``certified``: the two precisions agree (and the tails are known analytically);
    ``analytic_check``: density (10) only — the independent semi-analytic sup (float).
    """

    epsilon_up: float
    value_down: float
    value_mp: str
    y_star: float | str
    sign: int
    location: tuple[float, float]
    scale: tuple[float, float]
    family: str
    certified: bool
    tail_limit: float
    n_candidates: int
    curve: list[tuple[float, float]] = field(repr=False)
    analytic_check: float | None = None
    dps: tuple[int, int] = DPS
    rounding: str = "up"
    duration_s: float = field(default=0.0, compare=False)

    def as_dict(self, curve: bool = False) -> dict[str, Any]:
        d = {
            "epsilon_up": self.epsilon_up, "value_down": self.value_down,
            "value_mp": self.value_mp, "y_star": self.y_star, "sign": self.sign,
            "location": list(self.location), "scale": list(self.scale),
            "family": self.family, "certified": self.certified,
            "tail_limit": self.tail_limit, "n_candidates": self.n_candidates,
            "analytic_check": self.analytic_check, "dps": list(self.dps),
            "rounding": self.rounding,
        }
        if curve:
            d["curve"] = [list(p) for p in self.curve]
        return d


def _refine(mech: Any, lo: Any, hi: Any, sgn: int, a: Any, b: Any, a2: Any, b2: Any) -> Any:
    """Maximiser of sgn * L on [lo, hi] at the current precision."""

    def F(y: Any) -> Any:
        return sgn * _L_mp(mech, y, a, b, a2, b2)

    def dF(y: Any) -> Any:
        return mpmath.diff(F, y)

    width_tol = mpmath.mpf(10) ** (-(mpmath.mp.dps - 15)) * (abs(lo) + abs(hi) + abs(b))
    try:
        dlo, dhi = dF(lo), dF(hi)
    except (ValueError, ZeroDivisionError):
        dlo = dhi = mpmath.mpf(0)
    if dlo > 0 and dhi < 0:
        # Anderson-Bjorck (bracketing, superlinear) on dF; bisection if it leaves the bracket
        try:
            r = mpmath.findroot(dF, (lo, hi), solver="anderson", verify=False)
            if lo <= r <= hi and abs(dF(r)) <= abs(dlo) * mpmath.mpf(10) ** -(
                    mpmath.mp.dps // 2):
                return r
        except (ValueError, ZeroDivisionError):
            pass
        for _ in range(400):
            mid = (lo + hi) / 2
            if hi - lo <= width_tol:
                break
            if dF(mid) > 0:
                lo = mid
            else:
                hi = mid
        return (lo + hi) / 2
    # kink (or flat) maximum: golden-section search on F
    invphi = (mpmath.sqrt(5) - 1) / 2
    c, d = hi - invphi * (hi - lo), lo + invphi * (hi - lo)
    fc, fd = F(c), F(d)
    for _ in range(400):
        if hi - lo <= width_tol:
            break
        if fc >= fd:
            hi, d, fd = d, c, fc
            c = hi - invphi * (hi - lo)
            fc = F(c)
        else:
            lo, c, fc = c, d, fd
            d = lo + invphi * (hi - lo)
            fd = F(d)
    best = max((F(lo), lo), (F(hi), hi), (fc, c), (fd, d), key=lambda t: t[0])
    return best[1]


def pair_loss(
    mech: LocationScaleMechanism,
    a: Any,
    b: Any,
    a2: Any,
    b2: Any,
    *,
    dps: tuple[int, int] = DPS,
    grid: int = 4001,
    candidates: int = 6,
    curve_points: int = 401,
) -> PairLoss:
    """Certified sup_y |L(y)| for outputs a + b Z (X) and a2 + b2 Z (X').

    ``a``, ``b``, ``a2``, ``b2`` may be floats, Fractions or mpmath numbers (exact
    reference values); the float grid uses their float values, the certification their
    exact values.  ``grid`` points per centre; the ``candidates`` largest local extrema of
    |L| are refined.  See the module docstring for method, precision and rounding.
    """
    t0 = time.perf_counter()
    check_dps(dps)
    af, a2f = as_scalar(float(a), "a"), as_scalar(float(a2), "a2")
    bf, b2f = check_positive(float(b), "b"), check_positive(float(b2), "b2")
    for name, v, least in (("grid", grid, 3), ("candidates", candidates, 1),
                           ("curve_points", curve_points, 3)):
        if isinstance(v, bool) or not isinstance(v, int) or v < least:
            raise InvalidParameterError(f"{name} must be an integer >= {least}, got {v!r}")
    law = noise_law(mech)

    y = _grid(af, bf, a2f, b2f, grid)
    L = _L_float(mech, y, af, bf, a2f, b2f)
    ok = np.isfinite(L)
    y, L = y[ok], L[ok]
    cand: list[tuple[float, int, int]] = []  # (|L|, index, sign)
    for sgn in (1, -1):
        F = sgn * L
        left = np.concatenate([[-np.inf], F[:-1]])
        right = np.concatenate([F[1:], [-np.inf]])
        idx = np.flatnonzero((F >= left) & (F >= right) & (F > 0))
        cand.extend((float(F[i]), int(i), sgn) for i in idx)
    cand.sort(reverse=True)
    cand = cand[:candidates]

    hi_dps = max(dps)
    results: list[tuple[Any, Any, int]] = []  # (value at hi_dps, y*, sign)
    with mpmath.workdps(hi_dps):
        A, B, A2, B2 = _mpf(a), _mpf(b), _mpf(a2), _mpf(b2)
        for _, i, sgn in cand:
            lo = mpmath.mpf(float(y[max(i - 1, 0)]))
            hi = mpmath.mpf(float(y[min(i + 1, y.size - 1)]))
            ys = _refine(mech, lo, hi, sgn, A, B, A2, B2)
            results.append((abs(_L_mp(mech, ys, A, B, A2, B2)), ys, sgn))
        for yk in (A, A2):  # kinks of Laplace-type densities (harmless otherwise)
            v = _L_mp(mech, yk, A, B, A2, B2)
            results.append((abs(v), yk, 1 if v >= 0 else -1))
        best = None
        if results:
            # the largest value; among near-ties the point closest to a centre (in scales),
            # where the two-precision evaluation suffers least from cancellation
            top = max(t[0] for t in results)
            tie = mpmath.mpf(10) ** -_AGREE_EXP * max(mpmath.mpf(1), top)
            near = [t for t in results if t[0] >= top - tie]
            best = min(near, key=lambda t: min(abs(t[1] - A) / B, abs(t[1] - A2) / B2))

    # tails
    certified = True
    if law is None:
        certified = False
        far = _GRID_SPAN * 1e3 * max(bf, b2f)
        yy = np.array([min(af, a2f) - far, max(af, a2f) + far])
        tl = _L_float(mech, yy, af, bf, a2f, b2f)
        with mpmath.workdps(hi_dps):
            t_plus, t_minus = mpmath.mpf(float(tl[1])), mpmath.mpf(float(tl[0]))
    else:
        with mpmath.workdps(hi_dps):
            t_plus, t_minus = law.tail_limits(_mpf(a), _mpf(b), _mpf(a2), _mpf(b2))

    with mpmath.workdps(hi_dps + 10):
        tail_abs = max(abs(t_plus), abs(t_minus))
        interior = best[0] if best is not None else mpmath.mpf(0)
        tol_cmp = mpmath.mpf(10) ** -_AGREE_EXP * max(mpmath.mpf(1), abs(interior))
        # a best grid point far out in the tail (>= 1e6 scales) that only matches the limit
        # is the limit itself (approached, not attained): report y* = +-inf
        far = best is not None and min(abs(best[1] - _mpf(a)) / _mpf(b),
                                       abs(best[1] - _mpf(a2)) / _mpf(b2)) >= 1e6
        use_tail = (best is None or tail_abs > interior + tol_cmp
                    or (far and tail_abs >= interior - tol_cmp))
    if use_tail:
        if abs(t_plus) == abs(t_minus):
            ystar: float | str = "+-inf"
            sgn_t = t_plus if t_plus != 0 else t_minus
        elif abs(t_plus) > abs(t_minus):
            ystar, sgn_t = "+inf", t_plus
        else:
            ystar, sgn_t = "-inf", t_minus
        value_hi = tail_abs
        sign = 1 if sgn_t >= 0 else -1
        vals = []
        for d in dps:  # recompute the limit at both precisions
            with mpmath.workdps(d):
                if law is None:
                    vals.append(tail_abs)
                else:
                    tp, tm = law.tail_limits(_mpf(a), _mpf(b), _mpf(a2), _mpf(b2))
                    vals.append(max(abs(tp), abs(tm)))
    else:
        assert best is not None
        value_hi, ys, sign = best
        ystar = float(ys)
        vals = []
        for d in dps:
            with mpmath.workdps(d):
                vals.append(abs(_L_mp(mech, +ys, _mpf(a), _mpf(b), _mpf(a2), _mpf(b2))))

    with mpmath.workdps(hi_dps + 10):
        v_hi = vals[-1]
        if mpmath.isinf(v_hi):
            agree = all(mpmath.isinf(v) for v in vals)
            up = down = math.inf
            text = "inf"
        else:
            tol = mpmath.mpf(10) ** -_AGREE_EXP * max(mpmath.mpf(1), abs(v_hi))
            agree = all(abs(v - v_hi) <= tol for v in vals)
            up, down = float_up(v_hi + tol), max(0.0, float_down(v_hi - tol))
            text = mpmath.nstr(v_hi, 25)
        tail_up = float_up(tail_abs) if not mpmath.isinf(tail_abs) else math.inf
    analytic = None
    if law is not None and law.cross_check:
        analytic = _screen(mech, law, af, bf, a2f, b2f)

    # curve for a plot: both locations +- 20 scales, plus the maximiser if finite
    w = 20.0 * max(bf, b2f)
    cy = np.linspace(min(af, a2f) - w, max(af, a2f) + w, curve_points)
    if isinstance(ystar, float) and not (cy[0] <= ystar <= cy[-1]):
        cy = np.sort(np.append(cy, ystar))
    cl = _L_float(mech, cy, af, bf, a2f, b2f)
    curve = [(float(p), float(q)) for p, q in zip(cy, cl, strict=True)]
    return PairLoss(
        epsilon_up=up, value_down=down, value_mp=text, y_star=ystar, sign=sign,
        location=(af, a2f), scale=(bf, b2f), family="unknown" if law is None else law.name,
        certified=bool(agree and certified), tail_limit=tail_up, n_candidates=len(cand),
        curve=curve, analytic_check=analytic, dps=tuple(dps),  # type: ignore[arg-type]
        duration_s=time.perf_counter() - t0,
    )


# -------------------------------------------------------------- exact reference values
def reference_location_scale(mech: Any, dataset: Any) -> tuple[Any, Any]:
    """The mechanism's exact (location, scale) on ``dataset``, from its own
    ``exact_location_scale`` method (a Fraction or a >= 50-digit mpf each); mechanisms
    without one have no exact reference values."""
    fn = getattr(mech, "exact_location_scale", None)
    if fn is None:
        raise InvalidParameterError(
            f"exact reference values need a mechanism with exact_location_scale, got "
            f"{type(mech).__name__}"
        )
    return fn(dataset)


@dataclass(frozen=True)
class DatasetPairLoss:
    """Loss of one neighbouring pair from the kernel's float (location, scale) and, when
    available, from the exact reference values (``reference``), with their agreement:
    ``agreement`` holds the relative differences of a, b, a', b' and ``within_tolerance``
    compares them with :data:`REFERENCE_RTOL`."""

    kernel: PairLoss
    reference: PairLoss | None = None
    agreement: dict[str, float] | None = None
    within_tolerance: bool | None = None
    tolerance: float = REFERENCE_RTOL

    @property
    def epsilon_up(self) -> float:
        """The larger of the two certified figures (rounded up)."""
        if self.reference is None:
            return self.kernel.epsilon_up
        return max(self.kernel.epsilon_up, self.reference.epsilon_up)


def _rel(x: float, ref: Any) -> float:
    with mpmath.workdps(40):
        r = _mpf(ref)
        if r == 0:
            return abs(x)
        return float(abs(mpmath.mpf(x) - r) / abs(r))


def dataset_pair_loss(
    mech: LocationScaleMechanism, first: Any, second: Any, *, reference: bool = False,
    dps: tuple[int, int] = DPS, kernel_values: tuple[float, float, float, float] | None = None,
    reference_first: tuple[Any, Any] | None = None,
) -> DatasetPairLoss:
    """:func:`pair_loss` on two data sets (the mechanism's own float location/scale), and
    with ``reference=True`` (mechanisms with ``exact_location_scale``) also on the exact
    reference values.

    ``kernel_values`` = (a, b, a', b') already computed by the mechanism and
    ``reference_first`` = the reference (a, b) of ``first`` skip recomputing them."""
    if kernel_values is None:
        a, b = mech.location_scale(first)
        a2, b2 = mech.location_scale(second)
    else:
        a, b, a2, b2 = kernel_values
    k = pair_loss(mech, a, b, a2, b2, dps=dps)
    if not reference:
        return DatasetPairLoss(k)
    ra, rb = reference_first if reference_first is not None else reference_location_scale(
        mech, first)
    ra2, rb2 = reference_location_scale(mech, second)
    r = pair_loss(mech, ra, rb, ra2, rb2, dps=dps)
    agr = {"a": _rel(a, ra), "b": _rel(b, rb), "a2": _rel(a2, ra2), "b2": _rel(b2, rb2)}
    return DatasetPairLoss(k, r, agr, all(v <= REFERENCE_RTOL for v in agr.values()))


# --------------------------------------------------------------------- neighbour search
@dataclass(frozen=True)
class NeighbourLoss:
    """One evaluated neighbour: the public ``change`` (op, rank, old, new), its screening
    loss (float), and — for the certified top pairs — the certified loss."""

    change: dict[str, Any]
    screen: float
    location_scale: tuple[float, float]
    certified: DatasetPairLoss | None = None

    @property
    def epsilon_up(self) -> float:
        return self.certified.epsilon_up if self.certified is not None else math.nan


@dataclass(frozen=True)
class NeighbourSearch:
    """Result of :func:`worst_neighbour` (plain data; nothing printed).

    ``epsilon_up``: the largest certified loss among the certified pairs (rounded up);
    ``worst``: that pair; ``violates``: its certified lower figure exceeds the mechanism's
    claimed epsilon — a proved violation on this pair.  A non-violation covers only the
    pairs evaluated (``n_pairs``; ``truncated`` when the budget stopped the search).
    ``skipped`` counts neighbours outside the mechanism's domain by reason.
    """

    mechanism: str
    relation: str
    claimed_epsilon: float
    n: int
    base_location_scale: tuple[float, float]
    epsilon_up: float
    worst: NeighbourLoss | None
    top: list[NeighbourLoss]
    n_pairs: int
    n_location_scale: int
    n_skipped: int
    skipped: dict[str, int]
    truncated: bool
    violates: bool
    scope: str
    duration_s: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        def nl(x: NeighbourLoss) -> dict[str, Any]:
            d: dict[str, Any] = {"change": x.change, "screen": x.screen,
                                 "location_scale": list(x.location_scale)}
            if x.certified is not None:
                d["kernel"] = x.certified.kernel.as_dict()
                if x.certified.reference is not None:
                    d["reference"] = x.certified.reference.as_dict()
                    d["agreement"] = x.certified.agreement
                    d["within_tolerance"] = x.certified.within_tolerance
                d["epsilon_up"] = x.certified.epsilon_up
            return d

        return {
            "mechanism": self.mechanism, "relation": self.relation,
            "claimed_epsilon": self.claimed_epsilon, "n": self.n,
            "base_location_scale": list(self.base_location_scale),
            "epsilon_up": self.epsilon_up,
            "worst": nl(self.worst) if self.worst is not None else None,
            "top": [nl(t) for t in self.top], "n_pairs": self.n_pairs,
            "n_location_scale": self.n_location_scale, "n_skipped": self.n_skipped,
            "skipped": self.skipped, "truncated": self.truncated, "violates": self.violates,
            "scope": self.scope, "duration_s": self.duration_s,
        }


class _Budget(Exception):
    pass


def worst_neighbour(
    mech: LocationScaleMechanism,
    dataset: Any,
    *,
    relation: str | None = None,
    lower: float | None = None,
    upper: float | None = None,
    values: Sequence[float] = (),
    refine: int = 3,
    max_evals: int = 200,
    time_budget_s: float | None = None,
    certify_top: int = 3,
    reference: bool | None = None,
    dps: tuple[int, int] = DPS,
    screen: Callable[[dict[str, Any] | None], tuple[float, float]] | None = None,
    reference_first: tuple[Any, Any] | None = None,
) -> NeighbourSearch:
    """Search the neighbours of ``dataset`` for the largest privacy loss of ``mech``.

    ``relation`` defaults to the mechanism's own and must equal it (a mechanism may explain
    replace-one only: add-remove-one is refused).  ``lower``/``upper`` default to the
    mechanism's bounds (required otherwise).  ``max_evals`` bounds the number of
    neighbour evaluations (each one ``location_scale`` call): the search's scope, in work
    units; ``time_budget_s`` (default None: off) optionally also stops screening +
    optimisation after that wall time, for interactive use only: a scope cut by it depends
    on the machine's speed, so no dpaudit command passes it; ``refine`` records (by screened
    loss) get a bounded scalar optimisation over the new value; ``certify_top`` best pairs are
    certified with :func:`pair_loss` (the best pair of each distinct record);
    ``reference`` (default: a mechanism with exact_location_scale and n <= :data:`REFERENCE_MAX_N`)
    re-certifies the worst pair on exact reference values.

    ``screen`` (optional, for large n): ``screen(change)`` returns the neighbour's float
    (location, scale) without building it (e.g. O(log n) updates of the data set's prefix
    quantities), ``screen(None)`` those of the data set itself.  ``reference_first``: the
    exact (location, scale) of ``dataset`` when the caller already has them (else computed
    by ``mech.exact_location_scale`` for the reference re-certification).  ``screen`` only
    *steers* the search (screening and the optimiser); the certified pairs are recomputed with
    ``mech.location_scale`` on the data set and the materialised neighbour.  Neighbours are
    materialised one at a time (never the whole candidate list), and the time budget never
    stops the search before one neighbour has been evaluated.
    """
    t0 = time.perf_counter()
    if not isinstance(mech, LocationScaleMechanism):
        raise InvalidParameterError(
            f"mechanism must be a LocationScaleMechanism (location_scale, noise_logpdf, "
            f"noise_logpdf_mp), got {type(mech).__name__}"
        )
    rel = mech.relation if relation is None else relation
    if rel not in RELATIONS:
        raise InvalidParameterError(f"relation must be one of {RELATIONS}, got {relation!r}")
    if rel != mech.relation:
        note = getattr(mech, "relation_note", "")
        raise InvalidParameterError(
            f"relation {rel!r} refused: mechanism {mech.name!r} claims its epsilon under "
            f"{mech.relation!r}" + (f" ({note})" if note else "")
        )
    for name, v, lo_ in (("max_evals", max_evals, 1), ("refine", refine, 0),
                         ("certify_top", certify_top, 1)):
        if isinstance(v, bool) or not isinstance(v, int) or v < lo_:
            raise InvalidParameterError(f"{name} must be an integer >= {lo_}, got {v!r}")
    if time_budget_s is not None:
        check_positive(time_budget_s, "time_budget_s")
    lo = getattr(mech, "lower", None) if lower is None else lower
    hi = getattr(mech, "upper", None) if upper is None else upper
    if lo is None or hi is None:
        raise InvalidParameterError(
            f"lower and upper bounds are needed for {mech.name!r}, got lower={lower!r}, "
            f"upper={upper!r}"
        )
    lo, hi = as_scalar(lo, "lower"), as_scalar(hi, "upper")
    if hi <= lo:
        raise InvalidParameterError(f"upper must be > lower, got lower={lo!r}, upper={hi!r}")
    xs = as_data(dataset, "dataset", min_n=1 if rel == ADD_REMOVE_ONE else 2, copy=False)
    law = noise_law(mech)
    a, b = mech.location_scale(xs)
    # the screen's own figures for X, so screened pairs compare like with like
    sa, sb = screen(None) if screen is not None else (a, b)
    deadline = None if time_budget_s is None else t0 + float(time_budget_s)

    n_ls = 1
    skipped: dict[str, int] = {}
    evaluated: list[NeighbourLoss] = []
    seen: set[tuple] = set()

    def evaluate(change: dict[str, Any]) -> float:
        nonlocal n_ls
        if n_ls - 1 >= max_evals or (n_ls > 1 and deadline is not None
                                     and time.perf_counter() > deadline):
            raise _Budget
        key = tuple(sorted(change.items()))
        n_ls += 1
        try:
            if screen is not None:
                a2, b2 = screen(change)
            else:
                a2, b2 = mech.location_scale(_apply(xs, change))
        except ValueError as exc:  # kernels' InputError and reference errors are ValueErrors
            reason = type(exc).__name__
            skipped[reason] = skipped.get(reason, 0) + 1
            return -math.inf
        s = _screen(mech, law, sa, sb, a2, b2)
        if key not in seen:
            seen.add(key)
            evaluated.append(NeighbourLoss(dict(change), s, (a2, b2)))
        return s

    changes = _candidate_changes(rel, xs, lo, hi, values)
    # extremes first (new value L or U, removals), so a budget cut keeps the likely worst
    changes.sort(key=lambda c: 0 if c.get("new") in (lo, hi) or c["op"] == "remove" else 1)
    truncated = False
    try:
        for c in changes:
            evaluate(c)
        # local optimisation over the new value for the best few records / additions
        if refine and evaluated and max(e.screen for e in evaluated) < math.inf:
            targets = _refine_targets(evaluated, xs, lo, hi, rel, refine)
            for j, (label, lo_v, hi_v) in enumerate(targets):
                # share what is left of max_evals between the remaining targets
                left = max_evals - (n_ls - 1)
                per = min(25, left // (len(targets) - j))
                if per < 3:
                    raise _Budget

                def obj(v: float, label: dict = label) -> float:
                    s = evaluate({**label, "new": float(v)})
                    return -s if math.isfinite(s) else (1e300 if s < 0 else -1e300)

                minimize_scalar(obj, bounds=(lo_v, hi_v), method="bounded",
                                options={"xatol": 1e-7 * (hi - lo), "maxiter": per})
    except _Budget:
        truncated = True
    # the screen's tables (O(n) memory) are not needed for the certification below: drop
    # them before neighbours are built and recomputed (peak memory at census scale)
    screened = screen is not None
    screen = None

    n_pairs = len(evaluated)
    # certify the best pair of each distinct record (op, rank), best first
    ranked: list[NeighbourLoss] = []
    groups: set[tuple] = set()
    for e in sorted(evaluated, key=lambda e: e.screen, reverse=True):
        g = (e.change["op"], e.change.get("rank"))
        if g not in groups:
            groups.add(g)
            ranked.append(e)
    top: list[NeighbourLoss] = []
    use_ref = reference
    if use_ref is None:
        use_ref = hasattr(mech, "exact_location_scale") and xs.size <= REFERENCE_MAX_N
    for i, e in enumerate(ranked[:certify_top]):
        second = _apply(xs, e.change)
        ls2 = mech.location_scale(second) if screened else e.location_scale
        dpl = dataset_pair_loss(mech, xs, second, reference=bool(use_ref) and i == 0, dps=dps,
                                kernel_values=(a, b, *ls2), reference_first=reference_first)
        del second
        top.append(NeighbourLoss(e.change, e.screen, ls2, dpl))
    top.sort(key=lambda e: e.epsilon_up, reverse=True)
    worst = top[0] if top else None
    eps_up = worst.epsilon_up if worst is not None else 0.0
    claimed = float(mech.claimed_epsilon)
    violates = False
    if worst is not None and worst.certified is not None:
        cands = [worst.certified.kernel.value_down]
        if worst.certified.reference is not None:
            cands.append(worst.certified.reference.value_down)
        violates = max(cands) > claimed
    scope = (
        f"{rel} neighbours of the given data (n = {xs.size}) in [{lo:g}, {hi:g}]: "
        f"{n_pairs} neighbours evaluated ({len(changes)} generator candidates, then bounded "
        f"optimisation of the new value for {refine} records), {sum(skipped.values())} "
        f"skipped (outside the domain), top {min(certify_top, n_pairs)} certified with mpmath "
        f"{dps[0]}/{dps[1]} digits, rounded up"
        + ("; budget reached (truncated)" if truncated else "")
        + ("; screened by fast neighbour updates, certified pairs recomputed in full"
           if screened else "")
    )
    return NeighbourSearch(
        mechanism=mech.name, relation=rel, claimed_epsilon=claimed, n=int(xs.size),
        base_location_scale=(a, b), epsilon_up=eps_up, worst=worst, top=top,
        n_pairs=n_pairs, n_location_scale=n_ls, n_skipped=sum(skipped.values()),
        skipped=skipped, truncated=truncated, violates=violates, scope=scope,
        duration_s=time.perf_counter() - t0,
    )


def _apply(xs: np.ndarray, change: dict[str, Any]) -> np.ndarray:
    op = change["op"]
    if op == "replace":
        return replace(xs, int(change["rank"]), float(change["new"]))
    if op == "remove":
        return np.delete(xs, int(change["rank"]))
    if op == "add":
        return np.sort(np.append(xs, float(change["new"])))
    raise AssertionError(op)


def _candidate_changes(rel: str, xs: np.ndarray, lo: float, hi: float,
                       values: Sequence[float]) -> list[dict[str, Any]]:
    """The neighbour generator's candidates as changes only (the same records and values,
    in the same order, as :class:`ReplaceOne` / :class:`AddRemoveOne` ``.pairs``), so no
    neighbour is built before it is evaluated."""
    if rel == REPLACE_ONE:
        gen = ReplaceOne(lo, hi, tuple(values))
        idx = candidate_indices(xs, gen.max_distinct)
        vals = gen.new_values(xs, idx)
        return [{"op": "replace", "rank": i, "old": float(xs[i]), "new": v}
                for i in idx for v in vals if v != xs[i]]
    ar = AddRemoveOne(lo, hi, tuple(values))
    out: list[dict[str, Any]] = [{"op": "remove", "rank": i, "old": float(xs[i])}
                                 for i in candidate_indices(xs, ar.max_distinct)]
    extra = {float(lo), float(hi)} | {float(v) for v in values if lo <= v <= hi}
    out += [{"op": "add", "new": v} for v in sorted(extra)]
    return out


def _refine_targets(
    evaluated: list[NeighbourLoss], xs: np.ndarray, lo: float, hi: float, rel: str, k: int
) -> list[tuple[dict[str, Any], float, float]]:
    """(label, v_lo, v_hi) for the optimiser: the k best (record, direction) for
    replace-one; the added value for add-remove-one."""
    if rel == ADD_REMOVE_ONE:
        return [({"op": "add"}, lo, hi)]
    best: dict[tuple[int, str], float] = {}
    for e in evaluated:
        c = e.change
        if c["op"] != "replace":
            continue
        direction = "down" if c["new"] < c["old"] else "up"
        key = (int(c["rank"]), direction)
        best[key] = max(best.get(key, -math.inf), e.screen)
    chosen = sorted(best.items(), key=lambda t: t[1], reverse=True)[:k]
    out = []
    for (rank, direction), _ in chosen:
        old = float(xs[rank])
        v_lo, v_hi = (lo, old) if direction == "down" else (old, hi)
        if v_hi <= v_lo:
            continue
        out.append(({"op": "replace", "rank": rank, "old": old}, v_lo, v_hi))
    return out
