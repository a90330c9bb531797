"""Neighbouring pairs that hunt for the known floating-point bug classes of DP libraries.

A library's privacy claim for an aggregate over records in ``[L, U]`` is usually stated in
real arithmetic (a clamped sum has sensitivity ``U - L`` under replace-one, ``max(|L|, |U|)``
under add/remove).  Its float arithmetic can exceed that bound: rounding of a running sum
depends on the magnitude of the partial sums and on the record order, so changing one record
can change the rounding of every later addition (Casacuberta, Shoemate, Vadhan & Wagaman,
"Widespread underestimation of sensitivity in differentially private libraries and how to
fix it", CCS 2022, Sections 3-4).  Random data sets almost never hit those cases; the
families here are built to (each pair's ``change["family"]`` names its family):

* ``bounds`` — one to four records at L, U and the midpoint, one record replaced by the
  other bound (or added / removed);
* ``empty`` — the empty and one-record data sets under add/remove;
* ``large-magnitude`` — records ``±2^k`` (k up to the exponent of the larger bound) with one
  record moved to the other bound: far from zero a partial sum's ulp is large;
* ``dyadic-grid`` — records on a quarter-ulp grid just below U (and above L): every addition
  rounds;
* ``binade-straddle`` — n records: ``m`` copies of a large record whose partial sum lands
  on a power of two in D and just below it in D' (one record changed from U to L), then
  ``n - m`` copies of a small value ``v`` slightly above half an ulp of that partial sum:
  in D every ``v`` rounds *up* to a whole ulp, in D' it is added at the finer ulp of the
  lower binade, so the outputs differ by ``(U - L) + (n - m) ulp / 2`` (the "many equal
  records with one changed" family; it needs ``n`` of order ``2^26`` to exceed ``U - L`` by
  a visible margin, which only a sample-free check reaches);
* ``constant`` — the "all records equal, one moved to a bound" family at the sizes that
  matter (the fixed ``size``, the data's own ``n`` given as ``at_sizes``, and the size
  ladder): ``n`` copies of one value ``v`` with the first or the last record replaced by L
  or U (added / removed under add/remove).  The values: the bounds and midpoint, and
  rounding-prone values whose low bits sit just above half an ulp of the running sum
  ``n v`` (every addition then rounds the same way, so the error accumulates ``n`` times)
  and large powers of two with an offset in their last bits;
* ``data-order`` — only with the user's records (:func:`data_pairs`): the data's own
  records sorted ascending and descending (a running sum of sorted records accumulates the
  most rounding in one direction), their largest and smallest record moved to the other
  bound, and the ``constant`` family at the data's size for the data's median and extremes;
* ``order`` — only for an *unordered* relation (the data set is a multiset but the library
  sees a list): D and D' of the other families presented in the orders that change the
  rounding (large records first vs small records first);
* ``clip`` — only when the mechanism clamps its input (its domain is all floats): records
  far outside ``[L, U]`` that clamping moves to the bound, against records inside;
  with the user's records (:func:`data_pairs`), their own data with one record (the largest,
  the smallest, the first) moved beyond a bound, to a bound, or from beyond one bound to
  beyond the other (a library that clips a copy but computes on the raw records —
  SmartNoise synth's ``DPCovariance``, smartnoise-sdk issue 622 — differs there);
* ``ulp-step`` — ``n`` copies of a record ``v`` a few ulps from a bound or the midpoint
  (``v = b + j ulp(b)``, ``j`` in -2..2) with the first or last record moved by one or two
  ulps or to a bound, at the sizes that matter (the fixed ``size``, the data's ``n``, else
  ``n_max``).  Far from zero (bounds ``[M, M + 1]`` with ``M = 2^50``) the records' sum is
  exact for ``D`` and rounds in ``D'``, so a mean computed in float moves by a whole ulp;
  a statistic that subtracts that mean from every record (a sum of squared deviations,
  a variance) then changes by about ``n ulp(M)^2``, far beyond a real-number sensitivity
  (OpenDP 0.5.0-0.16's ``make_sum_of_squared_deviations``, opendp issue 2923).

Every pair is checked to be neighbours *in the order the mechanism sees the records*
(:func:`are_neighbours` with ``ordered=True``: same length and one position differs, or one
record inserted at one position), or, for an unordered relation, as multisets.  Nothing
here evaluates a mechanism; :mod:`audit.privacy.sensitivity_check` and the black-box tester
do.  The generators are lazy: a pair of ``2^26``-record data sets is 1 GiB.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from audit.protocols import ADD_REMOVE_ONE, REPLACE_ONE, NeighbourPair
from kernels.errors import InvalidParameterError

__all__ = [
    "DATA_FAMILY",
    "FAMILIES",
    "SearchSpace",
    "are_neighbours",
    "beyond_bounds",
    "data_pairs",
    "neighbour_search",
    "rounding_values",
    "size_ladder",
    "ulp_step_values",
]

#: the family built from the user's own records (:func:`data_pairs`)
DATA_FAMILY = "data-order"
FAMILIES = ("bounds", "empty", "large-magnitude", "dyadic-grid", "binade-straddle", "constant",
            "order", "clip", "ulp-step")


def _ordered_neighbours(a: np.ndarray, b: np.ndarray, relation: str) -> bool:
    if relation == REPLACE_ONE:
        if a.shape != b.shape:
            return False
        diff = np.flatnonzero(~_same(a, b))
        return diff.size <= 1
    big, small = (a, b) if len(a) > len(b) else (b, a)
    if len(big) != len(small) + 1:
        return False
    if len(small) == 0:
        return True
    eq = _same(big[:-1], small)
    first = int(np.argmin(eq)) if not bool(np.all(eq)) else len(small)
    # big = small[:first] + [x] + small[first:]
    return bool(np.all(_same(big[first + 1:], small[first:])))


def _same(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Record-wise equality (rows compare whole; NaN equals NaN bit-for-bit)."""
    if a.ndim == 1:
        return (a == b) | (np.isnan(a) & np.isnan(b)) if a.dtype.kind == "f" else a == b
    w = int(np.prod(a.shape[1:]))
    return np.all(a.reshape(len(a), w) == b.reshape(len(b), w), axis=1)


def _multiset_neighbours(a: np.ndarray, b: np.ndarray, relation: str) -> bool:
    from collections import Counter

    def key(x: np.ndarray) -> Counter:
        x = np.ascontiguousarray(x)
        return Counter(r.tobytes() for r in x.reshape(len(x), int(np.prod(x.shape[1:]))))

    ca, cb = key(a), key(b)
    if relation == REPLACE_ONE:
        return len(a) == len(b) and sum(((ca - cb) + (cb - ca)).values()) <= 2
    return abs(len(a) - len(b)) == 1 and sum(((ca - cb) + (cb - ca)).values()) == 1


def are_neighbours(first: object, second: object, relation: str, ordered: bool = True) -> bool:
    """True when ``first`` and ``second`` are neighbours under ``relation``
    (:data:`REPLACE_ONE` or :data:`ADD_REMOVE_ONE`).  ``ordered=True`` compares records in
    the order the mechanism sees them (replace-one: one position differs; add/remove: one
    record inserted at one position); ``ordered=False`` compares multisets.  Records may be
    scalars or rows (the first axis indexes records)."""
    a, b = np.asarray(first), np.asarray(second)
    if a.size == 0:
        a = a.reshape(0, *b.shape[1:]) if b.ndim > 1 else a.reshape(0)
    if b.size == 0:
        b = b.reshape(0, *a.shape[1:]) if a.ndim > 1 else b.reshape(0)
    if a.shape[1:] != b.shape[1:]:
        return False
    if ordered:
        return _ordered_neighbours(a, b, relation)
    return _multiset_neighbours(a, b, relation)


def size_ladder(n_max: int) -> list[int]:
    """Data-set sizes tried: 1, 2, 3, 4, then powers of 4 from 16, then ``n_max``."""
    if isinstance(n_max, bool) or not isinstance(n_max, (int, np.integer)) or n_max < 1:
        raise InvalidParameterError(f"--n must be an integer >= 1, got {n_max!r}")
    sizes = [s for s in (1, 2, 3, 4) if s <= n_max]
    s = 16
    while s < n_max:
        sizes.append(s)
        s *= 4
    if n_max not in sizes:
        sizes.append(int(n_max))
    return sizes


@dataclass(frozen=True)
class SearchSpace:
    """What the search may generate: records in ``[lower, upper]`` (finite, lower < upper),
    data sets of at most ``n_max`` records, the neighbour ``relation``, whether the relation
    is ``ordered`` (the mechanism's guarantee is over sequences; False: over multisets, so
    any order of D and D' is a legal presentation), whether the mechanism ``clamps``
    its input (then records outside the bounds are in its domain), and an optional fixed
    ``size`` (a sized domain: every data set is padded to it with :attr:`pad` records at the
    end; replace-one only); ``at_sizes``: further sizes the ``constant`` and
    ``binade-straddle`` families are built at (e.g. the user's data set's ``n``)."""

    lower: float
    upper: float
    relation: str = REPLACE_ONE
    n_max: int = 1024
    ordered: bool = True
    clamps: bool = False
    size: int | None = None
    at_sizes: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        lo, hi = float(self.lower), float(self.upper)
        if not (math.isfinite(lo) and math.isfinite(hi)) or not lo < hi:
            raise InvalidParameterError(
                f"--lower must be < --upper (both finite), got {self.lower!r} and {self.upper!r}")
        if self.relation not in (REPLACE_ONE, ADD_REMOVE_ONE):
            raise InvalidParameterError(f"relation must be {REPLACE_ONE!r} or "
                                        f"{ADD_REMOVE_ONE!r}, got {self.relation!r}")
        size_ladder(self.n_max)
        if self.size is not None:
            size_ladder(self.size)
            if self.n_max < self.size:
                object.__setattr__(self, "n_max", int(self.size))
            if self.relation != REPLACE_ONE:
                raise InvalidParameterError(
                    "a fixed data-set size (sized domain) needs the replace-one relation")

    @property
    def pad(self) -> float:
        """The record appended to reach a fixed ``size``: 0 when in the domain, else L."""
        return 0.0 if self.lower <= 0.0 <= self.upper else float(self.lower)


def _pair(a: list[float] | np.ndarray, b: list[float] | np.ndarray, sp: SearchSpace,
          family: str, **info: object) -> NeighbourPair | None:
    x = np.asarray(a, dtype=np.float64)
    y = np.asarray(b, dtype=np.float64)
    if sp.size is not None:
        if x.size > sp.size or y.size != x.size:
            return None
        if x.size < sp.size:
            fill = np.full(sp.size - x.size, sp.pad)
            x, y = np.concatenate([x, fill]), np.concatenate([y, fill])
            info = {**info, "padded_to": sp.size}
    if not sp.clamps and ((x.size and (x.min() < sp.lower or x.max() > sp.upper))
                          or (y.size and (y.min() < sp.lower or y.max() > sp.upper))):
        return None
    if max(x.size, y.size) > sp.n_max or not are_neighbours(x, y, sp.relation, ordered=True):
        return None
    return NeighbourPair(x, y, sp.relation, {"family": family, "n": int(max(x.size, y.size)),
                                             **info})


def _edit(base: np.ndarray, sp: SearchSpace, new: float, at: int = 0
          ) -> tuple[np.ndarray, np.ndarray]:
    """(D, D') with D' = D with record ``at`` replaced by ``new`` (replace-one) or with
    ``new`` inserted at ``at`` (add/remove)."""
    if sp.relation == REPLACE_ONE:
        other = base.copy()
        other[at] = new
        return base, other
    return base, np.insert(base, at, new)


def _bounds_family(sp: SearchSpace) -> Iterator[NeighbourPair | None]:
    lo, hi = sp.lower, sp.upper
    mid = lo + (hi - lo) / 2
    for base in ([lo], [hi], [lo, hi], [hi, lo], [lo] * 3, [hi] * 3, [lo, mid, hi],
                 [hi] * 4, [lo] * 4):
        if len(base) > sp.n_max:
            continue
        xs = np.asarray(base, dtype=np.float64)
        for new in (lo, hi, mid):
            for at in (0, len(xs) - 1):
                d, d2 = _edit(xs, sp, new, at)
                yield _pair(d, d2, sp, "bounds", op=_op(sp), at=at, new=new)


def _op(sp: SearchSpace) -> str:
    return "replace" if sp.relation == REPLACE_ONE else "add"


def _empty_family(sp: SearchSpace) -> Iterator[NeighbourPair | None]:
    if sp.relation != ADD_REMOVE_ONE:
        return
    lo, hi = sp.lower, sp.upper
    for v in (hi, lo, lo + (hi - lo) / 2):
        yield _pair([], [v], sp, "empty", op="add", new=v)
        yield _pair([v], [], sp, "empty", op="remove", old=v)
    for v in (lo, hi):
        for w in (lo, hi):
            yield _pair([v], [v, w], sp, "empty", op="add", new=w)


def _large_family(sp: SearchSpace) -> Iterator[NeighbourPair | None]:
    big = max(abs(sp.lower), abs(sp.upper))
    kmax = math.frexp(big)[1] - 1
    ks = sorted({kmax, kmax - 1, kmax - 26, kmax - 52, 0} & set(range(kmax - 60, kmax + 1)),
                reverse=True)
    for k in ks:
        for sign in (1.0, -1.0):
            v = sign * 2.0 ** k
            if not sp.lower <= v <= sp.upper:
                continue
            for n in (2, 3, 4, 16):
                if n > sp.n_max:
                    continue
                xs = np.full(n, v)
                for new in (sp.lower, sp.upper):
                    d, d2 = _edit(xs, sp, new, 0)
                    yield _pair(d, d2, sp, "large-magnitude", k=k, op=_op(sp), new=new)
                    d, d2 = _edit(xs, sp, new, n - 1)
                    yield _pair(d, d2, sp, "large-magnitude", k=k, op=_op(sp), new=new)


def _grid_family(sp: SearchSpace) -> Iterator[NeighbourPair | None]:
    for edge, direction in ((sp.upper, -1.0), (sp.lower, 1.0)):
        if edge == 0.0:
            continue
        q = math.ulp(edge) / 4
        for n in (3, 4, 16, 64):
            if n > sp.n_max:
                continue
            grid = edge + direction * q * np.arange(1, n + 1, dtype=np.float64)
            grid = np.clip(grid, sp.lower, sp.upper)
            for new in (sp.lower, sp.upper):
                d, d2 = _edit(grid, sp, new, 0)
                yield _pair(d, d2, sp, "dyadic-grid", edge=edge, step=q, op=_op(sp), new=new)


def straddle_pair(sp: SearchSpace, n: int) -> NeighbourPair | None:
    """The ``binade-straddle`` pair at size ``n`` (module docstring), or None when the
    bounds leave no room for it (the small value must lie in ``[L, U]``).  Built for a
    left-to-right sum of non-negative records (U > 0); the mirror image is used for
    ``|L| > U``."""
    lo, hi = sp.lower, sp.upper
    sign = 1.0
    if abs(lo) > abs(hi) and lo < 0:
        sign, lo, hi = -1.0, -hi, -lo
    if hi <= 0 or n < 3:
        return None
    width = hi - lo
    j = math.floor(math.log2(max(n * hi / 2, hi)))
    m = max(2, math.ceil(2.0 ** j / hi))
    if m >= n:
        return None
    k = n - m
    s_hi = hi * m  # the prefix sum in D lands on (or just above) 2^j
    u = math.ulp(s_hi)
    v = (u / 2) * (1 + 2.0 ** -20)
    if not (lo <= v <= hi):
        return None
    d = np.empty(n, dtype=np.float64)
    d[:m] = hi
    d[m:] = v
    d2 = d.copy()
    d2[0] = lo
    if sp.relation == ADD_REMOVE_ONE:
        d2 = d[1:].copy()  # remove the first large record
    if sign < 0:
        d, d2 = -d, -d2
    return _pair(d, d2, sp, "binade-straddle", m=m, small=sign * v,
                 op="replace" if sp.relation == REPLACE_ONE else "remove",
                 expected_gap=width + k * u / 2)


def _sizes(sp: SearchSpace) -> list[int]:
    """The sizes the size-dependent families are built at: the fixed size alone, else the
    ``at_sizes`` (the data's n) first, then the ladder up to ``n_max``."""
    if sp.size is not None:
        return [sp.size]
    extra = [int(n) for n in sp.at_sizes if 1 <= int(n) <= sp.n_max]
    return list(dict.fromkeys(extra + size_ladder(sp.n_max)))


def _straddle_family(sp: SearchSpace) -> Iterator[NeighbourPair | None]:
    for n in _sizes(sp):
        if n >= 3:
            yield straddle_pair(sp, n)


def rounding_values(lower: float, upper: float, n: int) -> list[float]:
    """Record values in ``[lower, upper]`` whose running sum over ``n`` copies rounds at
    (nearly) every addition: for a target magnitude ``t`` (U, |L|, the midpoint, a large
    power of two in range) the value ``t`` moved to the nearest float whose remainder modulo
    ``ulp(n t)`` is just above half of it (each addition then rounds up by almost half an
    ulp), plus ``t`` itself.  Deterministic; finite; sorted; no duplicates."""
    lo, hi = float(lower), float(upper)
    targets = {hi, lo, lo + (hi - lo) / 2}
    big = max(abs(lo), abs(hi))
    if big > 0:
        p2 = 2.0 ** (math.frexp(big)[1] - 1)
        targets |= {p2, -p2, p2 * (1 + 2.0 ** -26), -p2 * (1 + 2.0 ** -26)}
    out: set[float] = set()
    for t in targets:
        if not (lo <= t <= hi) or t == 0.0:
            continue
        out.add(t)
        u = math.ulp(abs(t) * max(n, 1))
        if u <= math.ulp(t):  # no room below the sum's ulp: nothing rounds
            continue
        base = math.floor(abs(t) / u) * u
        for frac in (0.5 + 2.0 ** -20, 0.75, 0.5 + 2.0 ** -10):
            v = base - u + u * frac if base - u + u * frac > 0 else base + u * frac
            v = math.copysign(v, t)
            if lo <= v <= hi and math.isfinite(v):
                out.add(float(v))
    return sorted(out)


def _constant_at(sp: SearchSpace, n: int, values: list[float], family: str,
                 **info: object) -> Iterator[NeighbourPair | None]:
    for v in values:
        xs = np.full(n, v, dtype=np.float64)
        for new in (sp.lower, sp.upper):
            if new == v and sp.relation == REPLACE_ONE:
                continue
            for at in ((0, n - 1) if n > 1 else (0,)):
                d, d2 = _edit(xs, sp, new, at)
                yield _pair(d, d2, sp, family, value=v, at=at, op=_op(sp), new=new, **info)
        if sp.relation == ADD_REMOVE_ONE and n > 1:
            yield _pair(xs, xs[1:], sp, family, value=v, op="remove", **info)


def ulp_step_values(lower: float, upper: float, bases: tuple[float, ...] = ()
                    ) -> list[tuple[float, float]]:
    """``(v, step)`` for the ``ulp-step`` family: ``v = b + j step`` with ``step = ulp(b)``
    for each base ``b`` (the bounds, the midpoint and ``bases``; a zero base is skipped:
    its ulp is subnormal) and ``j`` in -2..2, kept when ``v`` lies in ``[lower, upper]``.
    Deterministic, no duplicates."""
    lo, hi = float(lower), float(upper)
    out: dict[float, float] = {}
    for b in (lo, hi, lo + (hi - lo) / 2, *map(float, bases)):
        if b == 0.0 or not math.isfinite(b):
            continue
        step = math.ulp(b)
        for j in (0, 1, -1, 2, -2):
            v = b + j * step
            if lo <= v <= hi and v not in out:
                out[v] = step
    return list(out.items())


def _ulp_step_at(sp: SearchSpace, n: int, values: list[tuple[float, float]], family: str,
                 **info: object) -> Iterator[NeighbourPair | None]:
    for v, step in values:
        xs = np.full(n, v, dtype=np.float64)
        news = dict.fromkeys((v + step, v - step, v + 2 * step, sp.lower, sp.upper))
        for new in news:
            if new == v or not sp.lower <= new <= sp.upper:
                continue
            for at in ((0, n - 1) if n > 1 else (0,)):
                d, d2 = _edit(xs, sp, new, at)
                yield _pair(d, d2, sp, family, value=v, step=step, at=at, op=_op(sp),
                            new=new, **info)


def _ulp_step_family(sp: SearchSpace) -> Iterator[NeighbourPair | None]:
    sizes = ([sp.size] if sp.size is not None
             else list(dict.fromkeys([*(int(n) for n in sp.at_sizes if 1 <= int(n) <= sp.n_max),
                                      sp.n_max])))
    values = ulp_step_values(sp.lower, sp.upper)
    for n in sizes:
        if n >= 2:
            yield from _ulp_step_at(sp, n, values, "ulp-step")


def _constant_family(sp: SearchSpace) -> Iterator[NeighbourPair | None]:
    for n in _sizes(sp):
        if n >= 2:
            yield from _constant_at(sp, n, rounding_values(sp.lower, sp.upper, n), "constant")


def data_pairs(data: object, space: SearchSpace) -> Iterator[NeighbourPair]:
    """The ``data-order`` family (module docstring) from the user's records (1-D, in
    ``[L, U]``; records outside are the caller's error to report, never clipped here,
    unless the space ``clamps``: then they are in the mechanism's domain and the ``clip``
    pairs of the data are added); also the ``ulp-step`` pairs at the data's median and
    extremes.
    Every pair is a neighbour under the space's relation in the order given, at the data's
    own size (or the fixed ``size``, which the data must then have)."""
    xs = np.asarray(data, dtype=np.float64).ravel()
    n = int(xs.size)
    if n == 0:
        return
    if space.size is not None and n != space.size:
        raise InvalidParameterError(
            f"the data has {n} records but the library's domain holds data sets of exactly "
            f"--size {space.size} records")
    sp = SearchSpace(space.lower, space.upper, space.relation, n_max=max(space.n_max, n),
                     ordered=space.ordered, clamps=space.clamps, size=space.size)
    raw: list[NeighbourPair | None] = []
    for name, arr in (("ascending", np.sort(xs)), ("descending", np.sort(xs)[::-1].copy())):
        for at in (0, n - 1):
            for new in (sp.lower, sp.upper):
                if arr[at] == new and sp.relation == REPLACE_ONE:
                    continue
                d, d2 = _edit(arr, sp, new, at)
                raw.append(_pair(d, d2, sp, DATA_FAMILY, presentation=name, at=at,
                                 op=_op(sp), new=new))
        if sp.relation == ADD_REMOVE_ONE:
            raw.append(_pair(arr, arr[1:], sp, DATA_FAMILY, presentation=name,
                             op="remove", at=0))
    srt = np.sort(xs)
    vals = sorted({float(srt[0]), float(srt[n // 2]), float(srt[-1])})
    inside = [v for v in vals if sp.lower <= v <= sp.upper]
    raw.extend(_constant_at(sp, n, inside, DATA_FAMILY, presentation="constant"))
    own = set(ulp_step_values(sp.lower, sp.upper))
    steps = [vs for vs in ulp_step_values(sp.lower, sp.upper, tuple(inside)) if vs not in own]
    raw.extend(_ulp_step_at(sp, n, steps, DATA_FAMILY, presentation="ulp-step"))
    if sp.clamps:
        raw.extend(_clip_data(xs, sp))
    seen: set[bytes] = set()
    for p in raw:
        if p is None:
            continue
        key = p.first.tobytes() + b"|" + p.second.tobytes()
        if key not in seen:
            seen.add(key)
            yield NeighbourPair(p.first, p.second, p.relation, {**p.change, "from_data": True})


def _clip_data(xs: np.ndarray, sp: SearchSpace) -> Iterator[NeighbourPair | None]:
    """The user's records (in their order) with one record — the largest, the smallest,
    the first — moved beyond a bound, to a bound, or (when it lies beyond one) to the
    other side; only for a clipping mechanism (``sp.clamps``): a correct clipper's output
    then moves as if the record moved to the bound."""
    n = xs.size
    at_s = list(dict.fromkeys((int(np.argmax(xs)), int(np.argmin(xs)), 0)))
    targets = [*beyond_bounds(sp.lower, sp.upper), sp.lower, sp.upper]
    for at in at_s:
        for new in targets:
            if new == xs[at] and sp.relation == REPLACE_ONE:
                continue
            d, d2 = _edit(xs, sp, new, at)
            yield _pair(d, d2, sp, "clip", presentation="data", at=at, op=_op(sp), new=new,
                        record=float(xs[at]))
    if sp.relation == ADD_REMOVE_ONE and n > 1:
        for at in at_s:
            yield _pair(xs, np.delete(xs, at), sp, "clip", presentation="data", at=at,
                        op="remove", old=float(xs[at]))


def _order_family(sp: SearchSpace, base: Iterator[NeighbourPair | None]
                  ) -> Iterator[NeighbourPair | None]:
    """Other presentations of the same multisets: D' reversed, both sorted both ways."""
    for p in base:
        if p is None or p.first.size < 2:
            continue
        a, b = p.first, p.second
        for name, fa, fb in (("second-reversed", a, b[::-1]),
                             ("both-ascending", np.sort(a), np.sort(b)),
                             ("both-descending", np.sort(a)[::-1], np.sort(b)[::-1]),
                             ("ascending-vs-descending", np.sort(a), np.sort(b)[::-1])):
            if are_neighbours(fa, fb, sp.relation, ordered=False):
                yield NeighbourPair(np.ascontiguousarray(fa), np.ascontiguousarray(fb),
                                    sp.relation, {**p.change, "family": "order",
                                                  "from": p.change.get("family"),
                                                  "presentation": name})


def beyond_bounds(lower: float, upper: float) -> list[float]:
    """Records outside ``[lower, upper]`` for a clipping mechanism: just beyond each bound
    (one width), far beyond it (a thousand widths) and, for the ``clip`` family of
    constant data sets, near the float range's end.  Deterministic, finite."""
    lo, hi = float(lower), float(upper)
    w = hi - lo
    return [hi + w, hi + 1000 * w, lo - w, lo - 1000 * w]


def _clip_family(sp: SearchSpace) -> Iterator[NeighbourPair | None]:
    if not sp.clamps:
        return
    far = float(np.finfo(np.float64).max) / 4
    outside = [sp.upper * 2 if sp.upper > 0 else sp.upper + 1, far,
               sp.lower * 2 if sp.lower < 0 else sp.lower - 1, -far,
               *beyond_bounds(sp.lower, sp.upper)]
    for n in (1, 2, 4):
        if n > sp.n_max:
            continue
        for x in outside:
            xs = np.full(n, x)
            for new in (sp.lower, sp.upper):
                d, d2 = _edit(xs, sp, new, 0)
                yield _pair(d, d2, sp, "clip", op=_op(sp), old=x, new=new)


def neighbour_search(space: SearchSpace, families: tuple[str, ...] = FAMILIES
                     ) -> Iterator[NeighbourPair]:
    """All pairs of the named families (lazily, small data sets first within a family,
    duplicates dropped).  Each pair's ``change`` names its ``family``."""
    unknown = set(families) - set(FAMILIES)
    if unknown:
        raise InvalidParameterError(f"unknown neighbour families {sorted(unknown)}; "
                                    f"known: {', '.join(FAMILIES)}")
    makers = {"bounds": _bounds_family, "empty": _empty_family, "large-magnitude": _large_family,
              "dyadic-grid": _grid_family, "binade-straddle": _straddle_family,
              "constant": _constant_family, "clip": _clip_family,
              "ulp-step": _ulp_step_family}
    seen: set[tuple[int, bytes, bytes]] = set()
    for fam in families:
        if fam == "order":
            if space.ordered:
                continue
            gen: Iterator[NeighbourPair | None] = _order_family(
                space, (p for f in ("bounds", "large-magnitude", "dyadic-grid",
                                    "binade-straddle") for p in makers[f](space)))
        else:
            gen = makers[fam](space)
        for p in gen:
            if p is None:
                continue
            if p.first.size <= 64:
                key = (p.first.size, p.first.tobytes(), p.second.tobytes())
                if key in seen:
                    continue
                seen.add(key)
            yield p
