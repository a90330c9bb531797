"""Black-box statistical privacy tester (in the line of StatDP, Ding et al. 2018, and
DP-Sniper, Bichsel et al. 2021): sample a mechanism on neighbouring data sets, *select* an
output event on one sample set, *certify* it on a fresh one, and report a lower bound on the
mechanism's epsilon that holds with a stated confidence.

What a verdict guarantees
-------------------------
With probability >= ``confidence`` over the tester's sampling (the certification draws), the
mechanism's true epsilon on the tested neighbour relation (indeed on the tested pairs) is
>= ``epsilon_lower``.  ``violates`` = ``epsilon_lower > claimed_epsilon``.  A non-violation
is NOT a proof of privacy: it only says that these pairs, these event families and this
many samples found no evidence.  The guarantee assumes that ``mechanism.sample`` returns
independent draws driven only by the ``rng`` it is given (numpy's PCG64 treated as random).

Why the figure is sound.  For any output event E and neighbours (D, D'), pure epsilon-DP
implies P_D(E) <= e^epsilon P_D'(E), so epsilon >= log(P_D(E) / P_D'(E)).  The event is
chosen on the *selection* samples only; the *certification* samples are drawn afterwards,
fresh, so for the chosen event the counts are plain binomials.  A one-sided Clopper-Pearson
lower bound on p = P_D(E) and upper bound on p' = P_D'(E) (exact binomial inversion,
``scipy.special.betaincinv``) give epsilon >= log(p_lower / p'_upper).  Bonferroni: with
``m`` certified events (m = 1 with ``certify="best"``, m = 2 x pairs with
``certify="per-direction"``) there are 2m one-sided bounds, each at level
(1 - confidence) / (2m), so all hold at once with probability >= confidence and the
maximum over the certified events is a valid lower bound.  The number of events *tried in
selection* does not enter the correction (selection never sees the certification data); it
is reported so a reader can judge the search.  Bounds are rounded in the safe direction:
scipy's inverse incomplete beta, polished by two Newton steps on the forward function, is
then shrunk (lower) or grown (upper) by a relative 2^-36 ~ 1.5e-11, 35x the worst error
measured against exact binomial tails (mpmath) for n <= 10^8; the tests check the bounds
against exact tails on a grid of (k, n) up to n = 2 x 10^7.

Algorithm
---------
1. Selection.  For every pair (D, D') draw ``n_select`` outputs of each (held in memory).
   Outputs of shape (size,) are treated as one column, (size, d) as d columns; NaN means
   "absent".  Candidate events, built from the pooled samples of the pair:

   * ``threshold``: per column, {y > t} and {y < t} for t on a grid of pooled quantiles
     (``n_thresholds`` evenly spaced levels plus ``n_tail`` geometrically spaced levels in
     each tail down to ~5/n_select, where heavy-tail and scale leaks live);
   * ``interval``: {a < y <= b} for a, b on a coarser quantile grid (``intervals=True``);
   * ``discrete``: per column with at most ``max_levels`` distinct values, {y == v}; for a
     column with NaNs, {y absent} and {y present};
   * ``pattern`` (vector outputs): the joint pattern of the discrete columns (and of the
     absent/present state of the continuous ones), {pattern == p} for the most frequent
     patterns, and the conjunctions {pattern == p AND y[c] > t}, {... AND y[c] < t};
   * ``float-grid`` (``float_grid=True``, off by default): events on the float64 encoding,
     {y in binade [2^e, 2^(e+1)) with sign s AND the last k mantissa bits == b} (k = 1..3),
     the same without the binade, {y exactly representable in float32} and its complement,
     and {y == v} for output values that repeat.

   The score of an event in one direction is a *lower-confidence* estimate of the bound it
   would certify: take the one-sided Clopper-Pearson bounds of the selection counts at
   level ``1 - selection_confidence`` (pessimistic frequencies: this is what keeps
   tiny-probability events, whose raw ratios are pure noise, from winning), then evaluate
   the certification bound those frequencies would give with ``n_certify`` samples at the
   certification level.  The best event per pair and direction (``certify="per-direction"``)
   or overall (``certify="best"``, default) is kept.
2. Certification.  Fresh outputs are streamed in chunks of ``chunk_size`` and only the
   counts of the kept events are accumulated (2 x 10^7 float64 outputs per data set would
   otherwise be 160 MB).  Bounds as above.

Power and calibration (``tests/bench/blackbox_calibration.py``; seeds 0-2, one core)
-----------------------------------------------------------------------------
``LaplaceMechanism(0.1)`` on D = [0, 0], D' = [0, 1] (true epsilon exactly 0.1), 10^6
selection outputs per data set: epsilon_lower 0.091-0.097 with 2 x 10^5 certification
outputs, 0.097-0.099 with 2 x 10^6 (the default, ~0.3 s), 0.097-0.099 with 2 x 10^7
(~1.1 s).  Coverage: 0 of 40 runs exceeded the true epsilon (0.1 and 1.0), against the
guaranteed <= 10 %.  Broken variants flagged: Laplace with half the scale (true 0.2):
~0.195; Gaussian noise: 0.18-0.21; Gini variants: see ``tests/test_blackbox.py``.

Crashes, (epsilon, delta), progress, sequential mode
---------------------------------------------------
* A mechanism that *raises* on a data set (anything but :class:`kernels.errors.InputError`,
  which means "not in my domain" and skips the pair), or returns something that is not an
  array of ``size`` real outputs, does not stop the run: the failure is recorded in
  ``details["crashes"]`` with the data set, the exception and the generator state before the
  failing call (replayable), and the other pairs are still tested.  If no pair is left, the
  result has ``epsilon_lower = None`` and ``details["outcome"] = "crashed"``.  The caller
  (:mod:`audit.user_test`, :func:`audit.test_mechanism`) turns each crash into a refuted
  Finding.
* ``delta > 0`` tests (epsilon, delta)-DP: P_D(E) <= e^eps P_D'(E) + delta gives
  eps >= log((p_lower - delta) / p'_upper), used for the score and the certificate alike.
* ``run(..., progress=f)`` calls ``f(stage, done, total)`` (outputs drawn so far in that
  stage) after every chunk; only command modules draw the bar.
* ``sequential=True``: :mod:`audit.privacy.sequential` (rounds of geometrically growing
  batches; select on everything seen so far, certify on the next fresh batch, alpha spent
  evenly over the looks: the union bound keeps the same guarantee); stops as soon as a
  look flags.

Float pitfalls (what the ``float-grid`` family found; Mironov 2012, "On significance of
the least significant bits for differential privacy"; Haney et al. 2022, "Precision-based
attacks and interval refining")
-----------------------------------------------------------------------------------------
The real-number analysis of ``f(D) + Lap(b)`` says epsilon = Delta / b.  Its float64
implementation ``v + rng.laplace(0, b)`` (numpy: ``-b log(2 - 2U)``, U on a 2^-53 grid, then
one rounded addition) is a different mechanism:

* Exact sums (unbounded loss).  With D = [0, 0] (v = 0) and D' = [0, 1] (v = 1), an output
  y in (-2, -1] under D' is 1 + t with t in (-3, -2]: t is a multiple of 2^-51, the sum is
  exact, so y's last mantissa bit (weight 2^-52) is always 0.  Under D, y = t itself, whose
  last bit is 1 about half the time.  The event {y in (-2, -1], last mantissa bit 1} has
  probability ~1.7 % under D and exactly 0 under D': the float mechanism is not
  epsilon-DP for any epsilon.  The tester finds this event itself and certifies 7.0, 9.3,
  11.6 with 2 x 10^5, 2 x 10^6, 2 x 10^7 certification samples (claim 0.1): the bound
  grows by ~log(10) per decade, the signature of an unbounded loss.
* The same holds for the DP Gini release as a plain float64 sum ``g + s Z``
  (``GiniRelease(..., snap=False)``): on X = [0, 1, 1, 1, 1] (g = 0.25) vs
  [1, 1, 1, 1, 1] (g = 0) the event {y in (-0.5, -0.25], last mantissa bit 1} is
  impossible for g = 0.25 (again an exact sum); certified epsilon_lower ~6.7 (3 x 10^5
  samples) to ~8.6 (2 x 10^6) against the claim 1 (real-number loss ~0.17).  The release
  now snaps its output to a power-of-two grid by default (``kernels.gini.release.snap``, after
  Mironov); on the snapped release the float-grid family certifies only ~0.15, the
  real-number loss, and does not flag it.
* Ties-to-even bias (bounded but large).  In the binade [1, 2) the rounding of 1 + t
  (t one bit finer than y) breaks ties to even, so the last mantissa bit is 0 about 81 % of
  the time under D' against 61 % under D; {y in [1, 2), last bit 1} alone has a ratio of
  about e^0.7.
* Negative control: a huge location (f(D) = 10^15, f(D') = 10^15 + 1, scale 1) does *not*
  separate the grids: both locations lie on the output grid (ulp 0.125), a shift by 1 is 8
  ulps, and every float-grid event has the same probability under D and D'; only the
  real-number loss (epsilon = 1) remains, and the tester certifies 0.994, not flagged.  A
  coarse grid leaks when the *noise* grid is coarser than the gap between locations (noise
  drawn in float32 and added to a float64 query: {y representable in float32} has
  probability 1 under f(D) = 0 and ~0 under f(D') = 0.1), or when the sum is exact for one
  location and rounded for the other, as above.  The usual cure is Mironov's snapping
  mechanism (clamp, then round the output to a power-of-two grid coarser than the noise
  resolution), which the Gini release now uses; ``LaplaceMechanism`` here is unsnapped.

These are properties of the float sampler, not of the paper's mechanism; the default event
families (thresholds, intervals, patterns) are monotone or coarse in y and do not see them,
so the default tester measures the real-number loss.  Turn ``float_grid`` on to audit an
implementation at the bit level; the report then names the event in plain words.
"""

from __future__ import annotations

import math
import numbers
import time
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
from scipy import special

from audit.protocols import RELATIONS, Mechanism, NeighbourPair, TestResult
from kernels.errors import InputError, InvalidParameterError
from kernels.validate import check_rng

__all__ = [
    "DEFAULT_N_CERTIFY",
    "DEFAULT_N_SELECT",
    "BlackBoxTester",
    "Event",
    "MechanismCrash",
    "clopper_pearson_lower",
    "clopper_pearson_upper",
]

#: Certification samples per data set when ``n_certify`` is not given.  Sized for the power
#: target: LaplaceMechanism(0.1) on a sensitivity-1 pair certifies >= 0.09 at 90 %
#: confidence with ~3 x 10^5 samples (margin ~1.6 (1/sqrt(n p) + 1/sqrt(n p')) with
#: p ~ p' ~ 0.5); 2 x 10^6 gives ~0.097 and leaves room for tail events (a Gaussian
#: mechanism's growing loss lives at p ~ 10^-3).
DEFAULT_N_CERTIFY = 2_000_000
#: Selection samples per data set.
DEFAULT_N_SELECT = 1_000_000

_SAFETY = 2.0**-36  # relative widening of every Clopper-Pearson bound (safe direction)
_FAMILIES = ("threshold", "discrete", "pattern", "float-grid", "interval")


# --------------------------------------------------------------------------------------------
# Clopper-Pearson bounds
# --------------------------------------------------------------------------------------------


def _check_counts(k: Any, n: Any, alpha: Any) -> tuple[np.ndarray, np.ndarray, float]:
    kk = np.asarray(k)
    nn = np.asarray(n)
    if kk.dtype.kind not in "iu" and not (kk.dtype.kind == "f" and np.all(kk == np.floor(kk))):
        raise InvalidParameterError(f"k must be integer counts, got {k!r}")
    if nn.dtype.kind not in "iu" and not (nn.dtype.kind == "f" and np.all(nn == np.floor(nn))):
        raise InvalidParameterError(f"n must be integer sample sizes, got {n!r}")
    kk = kk.astype(np.float64)
    nn = nn.astype(np.float64)
    if np.any(nn < 1):
        raise InvalidParameterError(f"n must be >= 1, got {n!r}")
    if np.any(kk < 0) or np.any(kk > nn):
        raise InvalidParameterError(f"k must lie in 0..n, got k={k!r}, n={n!r}")
    if isinstance(alpha, bool) or not isinstance(alpha, (numbers.Real, np.floating)):
        raise InvalidParameterError(f"alpha must be a real number in (0, 1), got {alpha!r}")
    a = float(alpha)
    if not 0.0 < a < 1.0:
        raise InvalidParameterError(f"alpha must be in (0, 1), got {alpha!r}")
    return kk, nn, a


def _scalar_or_array(x: np.ndarray) -> Any:
    return float(x) if x.ndim == 0 else x


def _newton(x: np.ndarray, a: np.ndarray, b: np.ndarray, q: float, upper: bool) -> np.ndarray:
    """Two Newton steps on I_x(a, b) = q (``upper``: 1 - I_x(a, b) = q) from scipy's inverse.

    scipy's inverses lose relative accuracy for tiny x and huge b (up to ~1e-9 at
    n = 10^8, k = 1); the forward functions do not, so polishing brings the error to
    ~1e-13 there (measured against exact binomial tails in mpmath)."""
    x = np.asarray(x, dtype=np.float64)
    for _ in range(2):
        ok = (x > 0) & (x < 1)
        xs = np.where(ok, x, 0.5)
        logpdf = (a - 1) * np.log(xs) + (b - 1) * np.log1p(-xs) - special.betaln(a, b)
        pdf = np.exp(logpdf)
        f = special.betaincc(a, b, xs) if upper else special.betainc(a, b, xs)
        step = (f - q) / pdf if upper else -(f - q) / pdf
        new = xs + step
        good = ok & np.isfinite(new) & (pdf > 0) & (new > 0) & (new < 1)
        x = np.where(good, new, x)
    return x


def clopper_pearson_lower(k: Any, n: Any, alpha: float) -> Any:
    """One-sided Clopper-Pearson lower bound on a binomial proportion.

    Returns p_L with P_{p_L}(X >= k) = alpha (X ~ Bin(n, p_L)), i.e. the alpha-quantile of
    Beta(k, n - k + 1); 0 when k = 0.  For any true p, P(p_L <= p) >= 1 - alpha.  Shrunk by
    a relative 2^-36 (safe direction).  ``k``, ``n`` may be arrays (broadcast).
    """
    kk, nn, a = _check_counts(k, n, alpha)
    aa, bb = np.maximum(kk, 1.0), nn - kk + 1.0
    with np.errstate(all="ignore"):
        lo = _newton(special.betaincinv(aa, bb, a), aa, bb, a, upper=False)
    lo = np.where(kk > 0, lo * (1.0 - _SAFETY), 0.0)
    return _scalar_or_array(np.clip(lo, 0.0, 1.0))


def clopper_pearson_upper(k: Any, n: Any, alpha: float) -> Any:
    """One-sided Clopper-Pearson upper bound on a binomial proportion.

    Returns p_U with P_{p_U}(X <= k) = alpha, i.e. the (1 - alpha)-quantile of
    Beta(k + 1, n - k); 1 when k = n.  For any true p, P(p_U >= p) >= 1 - alpha.  Grown by
    a relative 2^-36 (safe direction).
    """
    kk, nn, a = _check_counts(k, n, alpha)
    aa, bb = kk + 1.0, np.maximum(nn - kk, 1.0)
    with np.errstate(all="ignore"):
        # the inverse of the *complementary* regularised incomplete beta function: full
        # relative precision for small p_U (1 - betaincinv(...) would cancel).
        hi = _newton(special.betainccinv(aa, bb, a), aa, bb, a, upper=True)
    hi = np.where(kk < nn, hi * (1.0 + _SAFETY), 1.0)
    return _scalar_or_array(np.clip(hi, 0.0, 1.0))


def _log_ratio(lo: Any, hi: Any, delta: float = 0.0) -> Any:
    """log((lo - delta) / hi) with log(x <= 0) = -inf, vectorised (``delta = 0``: pure DP).

    With ``delta > 0`` the difference ``lo - delta`` is rounded down (one ulp of ``lo``), the
    safe direction for a lower bound."""
    lo = np.asarray(lo, dtype=np.float64)
    hi = np.asarray(hi, dtype=np.float64)
    if delta > 0:
        lo = np.nextafter(lo - delta, -np.inf)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.log(np.where(lo > 0, lo, 1.0)) - np.log(hi)
    return np.where(lo > 0, out, -np.inf)


class MechanismCrash(Exception):
    """The mechanism raised (or returned malformed output) on a data set.

    ``record`` is a JSON-able dict: the data set, the call's ``size``, the exception type,
    message and the last traceback lines, and the generator state before the call."""

    def __init__(self, record: dict[str, Any]) -> None:
        super().__init__(f"{record.get('exception')}: {record.get('message')}")
        self.record = record


# --------------------------------------------------------------------------------------------
# Events
# --------------------------------------------------------------------------------------------


def _fmt(x: float) -> str:
    return f"{x:.6g}" if abs(x) < 1e6 or x == 0 else f"{x:.17g}"


@dataclass(frozen=True)
class Event:
    """An output event: a base condition on one column, AND an optional discrete pattern.

    ``kind``: ``"gt"`` (y[c] > a), ``"lt"`` (y[c] < a), ``"in"`` (a < y[c] <= b), ``"eq"``
    (y[c] == a), ``"absent"`` / ``"present"`` (y[c] is / is not NaN), ``"all"`` (no base
    condition: the pattern alone), ``"bits"`` (float64 encoding of y[c]: ``bits`` = (sign,
    biased exponent or -1 for any, k, last k mantissa bits)), ``"f32"`` / ``"not-f32"`` (y[c]
    finite and (not) exactly representable in float32).  ``pattern``: conditions
    ``(column, "eq" | "absent" | "present", value)`` that must hold as well.
    """

    kind: str
    column: int = 0
    a: float = math.nan
    b: float = math.nan
    bits: tuple[int, int, int, int] = (0, -1, 0, 0)
    pattern: tuple[tuple[int, str, float], ...] = ()
    family: str = field(default="threshold", compare=False)

    def mask(self, y: np.ndarray) -> np.ndarray:
        """Boolean indicator of the event on outputs ``y`` of shape (size, d)."""
        col = y[:, self.column]
        k = self.kind
        if k == "gt":
            m = col > self.a
        elif k == "lt":
            m = col < self.a
        elif k == "in":
            m = (col > self.a) & (col <= self.b)
        elif k == "eq":
            m = col == self.a
        elif k == "absent":
            m = np.isnan(col)
        elif k == "present":
            m = ~np.isnan(col)
        elif k == "all":
            m = np.ones(col.shape, dtype=bool)
        elif k == "bits":
            m = _bits_mask(col, *self.bits)
        elif k in ("f32", "not-f32"):
            rep = _f32_representable(col)
            m = rep if k == "f32" else (np.isfinite(col) & ~rep)
        else:  # pragma: no cover - constructed internally only
            raise InvalidParameterError(f"unknown event kind {k!r}")
        for c, op, v in self.pattern:
            pc = y[:, c]
            if op == "absent":
                m = m & np.isnan(pc)
            elif op == "present":
                m = m & ~np.isnan(pc)
            else:
                m = m & (pc == v)
        return m

    def describe(self, d: int = 1) -> str:
        """The event in plain words (``d`` = number of output columns)."""
        def name(c: int) -> str:
            return "the output" if d == 1 else f"output[{c}]"

        y = name(self.column)
        k = self.kind
        if k == "gt":
            base = f"{y} > {_fmt(self.a)}"
        elif k == "lt":
            base = f"{y} < {_fmt(self.a)}"
        elif k == "in":
            base = f"{_fmt(self.a)} < {y} <= {_fmt(self.b)}"
        elif k == "eq":
            base = f"{y} == {self.a!r}"
        elif k == "absent":
            base = f"{y} is absent (NaN)"
        elif k == "present":
            base = f"{y} is present (not NaN)"
        elif k == "all":
            base = ""
        elif k == "bits":
            sign, expo, nbits, pat = self.bits
            where = ""
            if expo >= 0:
                lo = 0.0 if expo == 0 else math.ldexp(1.0, expo - 1023)
                hi = math.ldexp(1.0, max(expo, 1) - 1022)
                span = f"[{lo!r}, {hi!r})" if not sign else f"(-{hi!r}, -{lo!r}]"
                where = f"{y} lies in the binade {span} and "
            else:
                where = f"{y} is finite and "
            what = ("the last mantissa bit of its float64 encoding is"
                    if nbits == 1 else
                    f"the last {nbits} mantissa bits of its float64 encoding are")
            base = f"{where}{what} {pat:0{nbits}b}"
        elif k == "f32":
            base = f"{y} is exactly representable as a float32"
        else:
            base = f"{y} is finite and not exactly representable as a float32"
        conds = []
        for c, op, v in self.pattern:
            if op == "absent":
                conds.append(f"{name(c)} is absent (NaN)")
            elif op == "present":
                conds.append(f"{name(c)} is present")
            else:
                conds.append(f"{name(c)} == {v!r}")
        parts = ([base] if base else []) + conds
        return " and ".join(parts) if parts else "any output"

    @classmethod
    def from_dict(cls, spec: dict[str, Any]) -> Event:
        """Rebuild an event from :meth:`to_dict` output (replayers)."""
        bits = spec.get("bits")
        bt = (0, -1, 0, 0) if not bits else (int(bits["sign"]), int(bits["biased_exponent"]),
                                             int(bits["k"]), int(bits["pattern"]))
        pattern = tuple((int(c), str(op), float(v)) for c, op, v in spec.get("pattern", []))
        return cls(str(spec["kind"]), int(spec.get("column", 0)), float(spec.get("a", math.nan)),
                   float(spec.get("b", math.nan)), bt, pattern,
                   str(spec.get("family", "threshold")))

    def to_dict(self) -> dict[str, Any]:
        """A JSON-able description (enough to rebuild the event)."""
        out: dict[str, Any] = {"kind": self.kind, "column": self.column, "family": self.family}
        if not math.isnan(self.a):
            out["a"] = self.a
        if not math.isnan(self.b):
            out["b"] = self.b
        if self.kind == "bits":
            out["bits"] = {"sign": self.bits[0], "biased_exponent": self.bits[1],
                           "k": self.bits[2], "pattern": self.bits[3]}
        if self.pattern:
            out["pattern"] = [[c, op, v] for c, op, v in self.pattern]
        return out


def _float_fields(col: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(finite mask, sign bit, biased exponent, raw bits) of a float64 column."""
    c = np.ascontiguousarray(col, dtype=np.float64)
    raw = c.view(np.uint64)
    finite = np.isfinite(c)
    sign = (raw >> np.uint64(63)).astype(np.int64)
    expo = ((raw >> np.uint64(52)) & np.uint64(0x7FF)).astype(np.int64)
    return finite, sign, expo, raw


def _bits_mask(col: np.ndarray, sign: int, expo: int, k: int, pat: int) -> np.ndarray:
    finite, s, e, raw = _float_fields(col)
    low = (raw & np.uint64((1 << k) - 1)).astype(np.int64)
    m = finite & (low == pat)
    if expo >= 0:
        m &= (s == sign) & (e == expo)
    return m


def _f32_representable(col: np.ndarray) -> np.ndarray:
    with np.errstate(over="ignore", invalid="ignore"):
        back = col.astype(np.float32).astype(np.float64)
    return np.isfinite(col) & (back == col)


# --------------------------------------------------------------------------------------------
# Candidate events with their selection counts
# --------------------------------------------------------------------------------------------


@dataclass
class _Candidates:
    events: list[Event] = field(default_factory=list)
    ka: list[np.ndarray] = field(default_factory=list)
    kb: list[np.ndarray] = field(default_factory=list)

    def add(self, events: Sequence[Event], ka: Any, kb: Any) -> None:
        if len(events) == 0:
            return
        self.events.extend(events)
        self.ka.append(np.asarray(ka, dtype=np.int64).reshape(-1))
        self.kb.append(np.asarray(kb, dtype=np.int64).reshape(-1))

    def counts(self) -> tuple[np.ndarray, np.ndarray]:
        if not self.ka:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
        return np.concatenate(self.ka), np.concatenate(self.kb)


def _sorted_finite(col: np.ndarray) -> np.ndarray:
    v = col[~np.isnan(col)]
    v.sort()
    return v


def _count_gt(s: np.ndarray, t: np.ndarray) -> np.ndarray:
    return s.size - np.searchsorted(s, t, side="right")


def _count_lt(s: np.ndarray, t: np.ndarray) -> np.ndarray:
    return np.searchsorted(s, t, side="left")


def _threshold_grid(pooled: np.ndarray, levels: np.ndarray) -> np.ndarray:
    if pooled.size == 0:
        return np.zeros(0)
    idx = np.clip(np.round(levels * (pooled.size - 1)).astype(np.int64), 0, pooled.size - 1)
    t = np.unique(pooled[idx])
    return t[np.isfinite(t)] if t.size else t


def _threshold_events(
    sa: np.ndarray, sb: np.ndarray, levels: np.ndarray, column: int,
    pattern: tuple[tuple[int, str, float], ...], family: str, out: _Candidates,
) -> None:
    pooled = np.sort(np.concatenate([sa, sb]))
    t = _threshold_grid(pooled, levels)
    if t.size == 0:
        return
    ev = [Event("gt", column, float(x), pattern=pattern, family=family) for x in t]
    out.add(ev, _count_gt(sa, t), _count_gt(sb, t))
    ev = [Event("lt", column, float(x), pattern=pattern, family=family) for x in t]
    out.add(ev, _count_lt(sa, t), _count_lt(sb, t))


def _interval_events(
    sa: np.ndarray, sb: np.ndarray, levels: np.ndarray, column: int, out: _Candidates
) -> None:
    pooled = np.sort(np.concatenate([sa, sb]))
    t = _threshold_grid(pooled, levels)
    if t.size < 2:
        return
    ca = np.searchsorted(sa, t, side="right")
    cb = np.searchsorted(sb, t, side="right")
    i, j = np.triu_indices(t.size, k=1)
    ev = [Event("in", column, float(t[p]), float(t[q]), family="interval")
          for p, q in zip(i, j, strict=True)]
    out.add(ev, ca[j] - ca[i], cb[j] - cb[i])


def _codes(pooled: np.ndarray, max_levels: int) -> tuple[np.ndarray, np.ndarray] | None:
    """Integer codes (0 = NaN, 1.. = sorted distinct values) if the column has at most
    ``max_levels`` distinct non-NaN values, else None."""
    vals = pooled[~np.isnan(pooled)]
    levels = np.unique(vals)
    if levels.size > max_levels:
        return None
    codes = np.zeros(pooled.shape, dtype=np.int64)
    ok = ~np.isnan(pooled)
    codes[ok] = np.searchsorted(levels, pooled[ok]) + 1
    return codes, levels


@dataclass(frozen=True)
class _Settings:
    n_thresholds: int
    n_tail: int
    n_interval_points: int
    intervals: bool
    float_grid: bool
    max_levels: int
    max_patterns: int
    n_pattern_thresholds: int
    max_binades: int


def _levels(n: int, n_uniform: int, n_tail: int) -> np.ndarray:
    uniform = np.arange(1, n_uniform + 1) / (n_uniform + 1)
    pmin = min(0.05, max(5.0 / n, 1e-12))
    parts = [uniform]
    if n_tail > 0 and pmin < 0.05:
        tails = np.geomspace(pmin, 0.05, n_tail)
        parts += [tails, 1.0 - tails]
    return np.unique(np.concatenate(parts))


def _float_grid_events(ya: np.ndarray, yb: np.ndarray, column: int, max_binades: int,
                       out: _Candidates) -> None:
    fa, sa_, ea, ra = _float_fields(ya)
    fb, sb_, eb, rb = _float_fields(yb)
    # binades (sign, exponent) ranked by pooled frequency
    keys = np.concatenate([(sa_ * 2048 + ea)[fa], (sb_ * 2048 + eb)[fb]])
    if keys.size == 0:
        return
    uk, cnt = np.unique(keys, return_counts=True)
    top = uk[np.argsort(-cnt, kind="stable")][:max_binades]
    for k in (1, 2, 3):
        mask = np.uint64((1 << k) - 1)
        la = (ra & mask).astype(np.int64)
        lb = (rb & mask).astype(np.int64)
        # global patterns (any binade)
        ev = [Event("bits", column, bits=(0, -1, k, p), family="float-grid")
              for p in range(1 << k)]
        out.add(ev, np.bincount(la[fa], minlength=1 << k), np.bincount(lb[fb], minlength=1 << k))
        # per binade
        for key in top:
            sign, expo = divmod(int(key), 2048)
            ina = fa & (sa_ == sign) & (ea == expo)
            inb = fb & (sb_ == sign) & (eb == expo)
            ev = [Event("bits", column, bits=(sign, expo, k, p), family="float-grid")
                  for p in range(1 << k)]
            out.add(ev, np.bincount(la[ina], minlength=1 << k),
                    np.bincount(lb[inb], minlength=1 << k))
    ra32, rb32 = _f32_representable(ya), _f32_representable(yb)
    out.add([Event("f32", column, family="float-grid"),
             Event("not-f32", column, family="float-grid")],
            [ra32.sum(), (fa & ~ra32).sum()], [rb32.sum(), (fb & ~rb32).sum()])
    # output values that repeat (exact equality on a float grid)
    pooled = np.concatenate([ya[fa], yb[fb]])
    uv, uc = np.unique(pooled, return_counts=True)
    rep = uv[uc >= 5]
    if rep.size:
        rep = rep[np.argsort(-uc[uc >= 5], kind="stable")][:16]
        ev = [Event("eq", column, float(v), family="float-grid") for v in rep]
        out.add(ev, [(ya == v).sum() for v in rep], [(yb == v).sum() for v in rep])


def _candidates(a: np.ndarray, b: np.ndarray, s: _Settings) -> _Candidates:
    """All candidate events for outputs ``a`` (from D) and ``b`` (from D'), both (n, d),
    with their counts in each sample."""
    n, d = a.shape
    fam: dict[str, _Candidates] = {f: _Candidates() for f in _FAMILIES}
    levels = _levels(n, s.n_thresholds, s.n_tail)
    ilevels = np.arange(1, s.n_interval_points + 1) / (s.n_interval_points + 1)
    plevels = _levels(n, s.n_pattern_thresholds, max(2, s.n_tail // 4))
    pattern_cols: list[tuple[int, str, np.ndarray]] = []  # (column, "code" | "nan", codes)
    continuous: list[int] = []
    for c in range(d):
        ca, cb = a[:, c], b[:, c]
        pooled = np.concatenate([ca, cb])
        sa, sb = _sorted_finite(ca), _sorted_finite(cb)
        has_nan = sa.size < n or sb.size < n
        coded = _codes(pooled, s.max_levels)
        if has_nan:
            fam["discrete"].add(
                [Event("absent", c, family="discrete"), Event("present", c, family="discrete")],
                [n - sa.size, sa.size], [n - sb.size, sb.size])
        if coded is not None:
            codes, lv = coded
            pattern_cols.append((c, "code", codes))
            ka = np.bincount(codes[:n], minlength=lv.size + 1)[1:]
            kb = np.bincount(codes[n:], minlength=lv.size + 1)[1:]
            fam["discrete"].add([Event("eq", c, float(v), family="discrete") for v in lv], ka, kb)
            if lv.size > 2:  # ordered levels: {y > v} and {y < v} at each level
                fam["threshold"].add([Event("gt", c, float(v)) for v in lv],
                                     _count_gt(sa, lv), _count_gt(sb, lv))
                fam["threshold"].add([Event("lt", c, float(v)) for v in lv],
                                     _count_lt(sa, lv), _count_lt(sb, lv))
        else:
            continuous.append(c)
            if has_nan:
                pattern_cols.append((c, "nan", np.isnan(pooled).astype(np.int64)))
            _threshold_events(sa, sb, levels, c, (), "threshold", fam["threshold"])
            if s.intervals:
                _interval_events(sa, sb, ilevels, c, fam["interval"])
        if s.float_grid:
            _float_grid_events(ca, cb, c, s.max_binades, fam["float-grid"])
    if d > 1 and pattern_cols:
        _pattern_events(a, b, pattern_cols, continuous, plevels, s, fam["pattern"])
    out = _Candidates()
    for f in _FAMILIES:
        out.events.extend(fam[f].events)
        out.ka.extend(fam[f].ka)
        out.kb.extend(fam[f].kb)
    return out


def _pattern_events(a: np.ndarray, b: np.ndarray, cols: list[tuple[int, str, np.ndarray]],
                    continuous: list[int], plevels: np.ndarray, s: _Settings,
                    out: _Candidates) -> None:
    n = a.shape[0]
    cols = cols[:12]  # keeps the mixed-radix key within int64
    key = np.zeros(2 * n, dtype=np.int64)
    for _, _, codes in cols:
        key = key * (int(codes.max()) + 1) + codes
    uk, inv, cnt = np.unique(key, return_inverse=True, return_counts=True)
    order = np.argsort(-cnt, kind="stable")[: s.max_patterns]
    inv_a, inv_b = inv[:n], inv[n:]
    for u in order:
        rows = np.flatnonzero(inv == u)
        r0 = int(rows[0])
        pat: list[tuple[int, str, float]] = []
        src = a if r0 < n else b
        r = r0 if r0 < n else r0 - n
        for c, kind, _ in cols:
            v = float(src[r, c])
            if math.isnan(v):
                pat.append((c, "absent", math.nan))
            elif kind == "nan":
                pat.append((c, "present", math.nan))
            else:
                pat.append((c, "eq", v))
        pattern = tuple(pat)
        ina, inb = inv_a == u, inv_b == u
        if len(cols) > 1 or continuous:
            out.add([Event("all", cols[0][0], pattern=pattern, family="pattern")],
                    [ina.sum()], [inb.sum()])
        for c in continuous:
            if any(pc == c and op == "absent" for pc, op, _ in pattern):
                continue
            sa, sb = _sorted_finite(a[ina, c]), _sorted_finite(b[inb, c])
            _threshold_events(sa, sb, plevels, c, pattern, "pattern", out)


# --------------------------------------------------------------------------------------------
# The tester
# --------------------------------------------------------------------------------------------


def _check_int(value: Any, name: str, minimum: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, (numbers.Integral, np.integer)):
        raise InvalidParameterError(f"{name} must be an integer >= {minimum}, got {value!r}")
    if int(value) < minimum:
        raise InvalidParameterError(f"{name} must be an integer >= {minimum}, got {value!r}")
    return int(value)


def _check_unit(value: Any, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (numbers.Real, np.floating)):
        raise InvalidParameterError(f"{name} must be a number in (0, 1), got {value!r}")
    v = float(value)
    if not 0.0 < v < 1.0:
        raise InvalidParameterError(f"{name} must be in (0, 1), got {value!r}")
    return v


def _rng_record(rng: np.random.Generator) -> dict[str, Any]:
    bg = rng.bit_generator
    rec: dict[str, Any] = {"bit_generator": type(bg).__name__, "state": bg.state}
    seq = getattr(bg, "seed_seq", None)
    if seq is not None and hasattr(seq, "entropy"):
        rec["seed_entropy"] = seq.entropy
        rec["spawn_key"] = list(getattr(seq, "spawn_key", ()))
    return rec


@dataclass(frozen=True)
class _Pick:
    pair: int
    direction: int  # 0: event favoured by pair.first, 1: by pair.second
    event: Event
    score: float
    counts: tuple[int, int]  # selection counts (first, second)


@dataclass(frozen=True)
class BlackBoxTester:
    """Select-then-certify black-box tester for any :class:`~audit.protocols.Mechanism`.

    Verdict guarantee: with probability >= ``confidence`` over the tester's sampling, the
    mechanism's true epsilon on this relation is >= ``epsilon_lower`` (the maximum over the
    certified events of log(p_lower / p'_upper), floored at 0); ``violates`` =
    ``epsilon_lower > claimed_epsilon``; a non-violation is NOT a proof of privacy.  See the
    module docstring for the argument and the event families.

    Settings: ``n_select`` / ``n_certify`` outputs per data set for selection /
    certification (``n_certify=None``: :data:`DEFAULT_N_CERTIFY`); ``confidence``;
    ``max_events`` candidate events per pair (families beyond the budget are cut in the order
    threshold, discrete, pattern, float-grid, interval and the cut is reported);
    ``certify``: ``"best"`` (one event overall, Bonferroni factor 2) or ``"per-direction"``
    (one per pair and direction, factor 4 x pairs); ``selection_confidence``: the level of
    the pessimistic selection estimate; ``chunk_size``: outputs per call to ``sample``
    during certification; ``delta``: test (epsilon, delta)-DP instead of pure DP.  The other
    fields shape the event families.

    Sequential mode (``sequential=True``, :mod:`audit.privacy.sequential`): batches of
    ``seq_first``, ``seq_first * seq_growth``, ... outputs per data set up to a batch of
    ``n_certify``; the selection pool keeps at most ``n_select`` outputs per data set; after
    the first round only the ``seq_keep_pairs`` best-scoring pairs are sampled further;
    ``stop_when_cleared`` also stops when the selected event's *upper* bound is <= the claim;
    ``max_seconds`` stops after the first look (round >= 1) that ends past that wall time
    (``details["stopped"] = "time-budget"``: fewer samples than planned, less power).
    """

    n_select: int = DEFAULT_N_SELECT
    n_certify: int | None = None
    confidence: float = 0.9
    max_events: int = 5000
    certify: Literal["best", "per-direction"] = "best"
    selection_confidence: float = 0.95
    chunk_size: int = 1_000_000
    n_thresholds: int = 64
    n_tail: int = 24
    intervals: bool = True
    n_interval_points: int = 16
    float_grid: bool = False
    max_levels: int = 16
    max_patterns: int = 32
    n_pattern_thresholds: int = 16
    max_binades: int = 24
    name: str = "blackbox"
    delta: float = 0.0
    sequential: bool = False
    seq_first: int = 2000
    seq_growth: int = 2
    seq_keep_pairs: int = 2
    stop_when_cleared: bool = False
    max_seconds: float | None = None
    #: certification counts through :func:`audit.distributed.count_events`: chunk i of the
    #: n draws gets its own generator SeedSequence(entropy, spawn_key=(i,)) (entropy drawn
    #: from the tester's generator), so the counts are the same integers in this process
    #: and on a Dask cluster (``dask_client``).  Off by default: one sequential stream.  A
    #: mechanism may offer ``counting_sampler(dataset) -> (sample, data)``, a cheaper
    #: (picklable) sampler with the same law, used for these counts.
    chunk_streams: bool = False
    dask_client: Any = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        _check_int(self.n_select, "n_select", 10)
        if self.n_certify is not None:
            _check_int(self.n_certify, "n_certify", 1)
        _check_unit(self.confidence, "confidence")
        _check_unit(self.selection_confidence, "selection_confidence")
        _check_int(self.max_events, "max_events", 1)
        _check_int(self.chunk_size, "chunk_size", 1)
        _check_int(self.n_thresholds, "n_thresholds", 1)
        _check_int(self.n_tail, "n_tail", 0)
        _check_int(self.n_interval_points, "n_interval_points", 2)
        _check_int(self.max_levels, "max_levels", 1)
        _check_int(self.max_patterns, "max_patterns", 1)
        _check_int(self.n_pattern_thresholds, "n_pattern_thresholds", 1)
        _check_int(self.max_binades, "max_binades", 1)
        _check_int(self.seq_first, "seq_first", 10)
        _check_int(self.seq_growth, "seq_growth", 2)
        _check_int(self.seq_keep_pairs, "seq_keep_pairs", 1)
        if self.certify not in ("best", "per-direction"):
            raise InvalidParameterError(
                f"certify must be 'best' or 'per-direction', got {self.certify!r}")
        for flag in ("intervals", "float_grid", "sequential", "stop_when_cleared"):
            if not isinstance(getattr(self, flag), bool):
                raise InvalidParameterError(
                    f"{flag} must be True or False, got {getattr(self, flag)!r}")
        d = self.delta
        if isinstance(d, bool) or not isinstance(d, (numbers.Real, np.floating)) or not (
                0.0 <= float(d) < 1.0):
            raise InvalidParameterError(f"delta must be a number in [0, 1), got {d!r}")
        ms = self.max_seconds
        if ms is not None and (isinstance(ms, bool) or not isinstance(
                ms, (numbers.Real, np.floating)) or not float(ms) > 0):
            raise InvalidParameterError(f"max_seconds must be a number > 0, got {ms!r}")
        if not isinstance(self.name, str) or not self.name:
            raise InvalidParameterError(f"name must be a non-empty str, got {self.name!r}")

    @property
    def certify_samples(self) -> int:
        """Certification outputs per data set (``n_certify`` or the default)."""
        return DEFAULT_N_CERTIFY if self.n_certify is None else int(self.n_certify)

    def _settings(self) -> _Settings:
        return _Settings(self.n_thresholds, self.n_tail, self.n_interval_points, self.intervals,
                         self.float_grid, self.max_levels, self.max_patterns,
                         self.n_pattern_thresholds, self.max_binades)

    # -- sampling --------------------------------------------------------------------------

    @staticmethod
    def _draw(mechanism: Mechanism, dataset: Any, size: int, rng: np.random.Generator,
              d: int | None) -> np.ndarray:
        """``size`` outputs as a (size, d) float64 array.  An :class:`InputError` passes
        through (the data set is outside the mechanism's domain); any other exception, or
        malformed output, becomes a :class:`MechanismCrash` carrying the data set and the
        generator state before the call."""
        state = rng.bit_generator.state
        try:
            y = np.asarray(mechanism.sample(dataset, size, rng))
            if y.dtype.kind not in "biuf":
                raise TypeError(
                    f"{mechanism.name}.sample must return real numbers, got dtype {y.dtype}")
            if y.ndim == 1:
                y = y.reshape(-1, 1)
            if y.ndim != 2 or y.shape[0] != size:
                raise ValueError(
                    f"{mechanism.name}.sample(dataset, {size}, rng) must return shape ({size},)"
                    f" or ({size}, d), got {np.shape(y)}")
            if d is not None and y.shape[1] != d:
                raise ValueError(
                    f"{mechanism.name}.sample returned {y.shape[1]} columns, expected {d} "
                    "(the output dimension must not depend on the data set)")
            return np.asarray(y, dtype=np.float64)
        except InputError:
            raise
        except Exception as exc:  # the mechanism's own failure: a result, not an abort
            tb = traceback.format_exception(type(exc), exc, exc.__traceback__)
            raise MechanismCrash({
                "dataset": _jsonable_dataset(dataset),
                "size": int(size),
                "exception": type(exc).__name__,
                "message": str(exc),
                "traceback": "".join(tb[-3:]).strip(),
                "rng_state": state,
            }) from exc

    def _draw_chunked(self, mechanism: Mechanism, dataset: Any, n: int,
                      rng: np.random.Generator, d: int | None,
                      tick: Callable[[int], None] | None = None) -> np.ndarray:
        """``n`` outputs drawn in calls of at most ``chunk_size`` (the order a replay uses)."""
        parts: list[np.ndarray] = []
        done = 0
        while done < n:
            m = min(self.chunk_size, n - done)
            y = self._draw(mechanism, dataset, m, rng, d)
            d = y.shape[1]
            parts.append(y)
            done += m
            if tick is not None:
                tick(m)
        return parts[0] if len(parts) == 1 else np.concatenate(parts)

    def _count(self, mechanism: Mechanism, dataset: Any, events: list[Event], n: int,
               rng: np.random.Generator, d: int,
               tick: Callable[[int], None] | None = None) -> np.ndarray:
        if self.chunk_streams or self.dask_client is not None:
            return self._count_streams(mechanism, dataset, events, n, rng, tick)
        counts = np.zeros(len(events), dtype=np.int64)
        done = 0
        while done < n:
            m = min(self.chunk_size, n - done)
            y = self._draw(mechanism, dataset, m, rng, d)
            for i, e in enumerate(events):
                counts[i] += int(np.count_nonzero(e.mask(y)))
            done += m
            if tick is not None:
                tick(m)
        return counts

    def _count_streams(self, mechanism: Mechanism, dataset: Any, events: list[Event], n: int,
                       rng: np.random.Generator,
                       tick: Callable[[int], None] | None = None) -> np.ndarray:
        """:meth:`_count` with per-chunk generator streams (``chunk_streams``)."""
        from audit.distributed import count_events

        entropy = int(rng.integers(0, 2**63))
        if hasattr(mechanism, "counting_sampler"):
            sample, data = mechanism.counting_sampler(dataset)
        else:
            sample, data = mechanism.sample, dataset
        counts = count_events(sample, data, [e.mask for e in events], n, entropy=entropy,
                              chunk=self.chunk_size, dask_client=self.dask_client)
        if tick is not None:
            tick(n)
        return counts

    # -- the test ---------------------------------------------------------------------------

    def run(self, mechanism: Mechanism, pairs: list[NeighbourPair],
            rng: np.random.Generator,
            progress: Callable[[str, int, int], None] | None = None) -> TestResult:
        """Select on ``n_select`` outputs per data set, certify on ``n_certify`` fresh ones
        (``sequential=True``: see :mod:`audit.privacy.sequential`).

        Pairs whose data set the mechanism rejects (an :class:`kernels.errors.InputError`
        from ``sample``) are skipped and listed in ``details["skipped_pairs"]``; pairs on
        which it crashes are listed in ``details["crashes"]`` (module docstring).
        ``progress(stage, done, total)`` is called after every chunk of draws.
        """
        rng = check_rng(rng)
        _check_mechanism(mechanism)
        pairs = _check_pairs(pairs, mechanism)
        if self.sequential:
            from audit.privacy.sequential import run_sequential

            return run_sequential(self, mechanism, pairs, rng, progress)
        rng_start = _rng_record(rng)
        alpha = 1.0 - float(self.confidence)
        n_sel, n_cert = int(self.n_select), self.certify_samples
        settings = self._settings()
        t0 = time.perf_counter()

        # certified events m is fixed before certification: 1, or 2 per usable pair
        m_planned = 1 if self.certify == "best" else 2 * len(pairs)
        a_pred = alpha / (2 * m_planned)
        a_sel = 1.0 - float(self.selection_confidence)
        delta = float(self.delta)

        picks: list[_Pick] = []
        skipped: list[dict[str, Any]] = []
        crashes: list[dict[str, Any]] = []
        tried_total = 0
        per_pair: list[dict[str, Any]] = []
        d_out: int | None = None
        drawn = [0]
        sel_total = 2 * n_sel * len(pairs)

        def tick_sel(m: int) -> None:
            drawn[0] += m
            if progress is not None:
                progress("selection", drawn[0], sel_total)

        for idx, pair in enumerate(pairs):
            try:
                ya = self._draw_chunked(mechanism, pair.first, n_sel, rng, d_out, tick_sel)
                d_out = ya.shape[1]
                yb = self._draw_chunked(mechanism, pair.second, n_sel, rng, d_out, tick_sel)
            except InputError as exc:
                skipped.append({"pair_index": idx, "change": dict(pair.change),
                                "reason": str(exc)})
                continue
            except MechanismCrash as exc:
                crashes.append(_crash_entry(exc, idx, pair, "selection"))
                continue
            cand = _candidates(ya, yb, settings)
            ka, kb = cand.counts()
            generated = len(cand.events)
            events = cand.events[: self.max_events]
            ka, kb = ka[: self.max_events], kb[: self.max_events]
            tried_total += len(events)
            fam_counts: dict[str, int] = {}
            for e in events:
                fam_counts[e.family] = fam_counts.get(e.family, 0) + 1
            per_pair.append({"pair_index": idx, "events_generated": generated,
                             "events_tried": len(events), "families": fam_counts})
            for direction, (kf, ko) in enumerate(((ka, kb), (kb, ka))):
                score = _predicted(kf, ko, n_sel, n_cert, a_sel, a_pred, delta)
                j = int(np.argmax(score)) if score.size else -1
                if j < 0:
                    continue
                picks.append(_Pick(idx, direction, events[j], float(score[j]),
                                   (int(ka[j]), int(kb[j]))))
        if not picks:
            if crashes:
                return _crashed_result(self, mechanism, crashes, skipped, rng_start, len(pairs))
            reasons = "; ".join(s["reason"] for s in skipped[:3])
            raise InvalidParameterError(
                f"no usable neighbour pair: the mechanism rejected all {len(pairs)} pairs "
                f"({reasons})")
        if self.certify == "best":
            best = max(range(len(picks)), key=lambda i: (picks[i].score, -i))
            picks = [picks[best]]
        t_sel = time.perf_counter() - t0

        # certification on fresh samples
        m = len(picks)
        a_each = alpha / (2 * m)
        t1 = time.perf_counter()
        by_pair: dict[int, list[_Pick]] = {}
        for p in picks:
            by_pair.setdefault(p.pair, []).append(p)
        certified: list[dict[str, Any]] = []
        assert d_out is not None
        drawn[0] = 0
        cert_total = 2 * n_cert * len(by_pair)

        def tick_cert(k: int) -> None:
            drawn[0] += k
            if progress is not None:
                progress("certification", drawn[0], cert_total)

        for idx, plist in by_pair.items():
            pair = pairs[idx]
            events = [p.event for p in plist]
            state = rng.bit_generator.state
            try:
                cf = self._count(mechanism, pair.first, events, n_cert, rng, d_out, tick_cert)
                cs = self._count(mechanism, pair.second, events, n_cert, rng, d_out, tick_cert)
            except (InputError, MechanismCrash) as exc:
                if isinstance(exc, InputError):  # random domain errors: a crash as well
                    exc = _as_crash(exc, pair, rng)
                crashes.append(_crash_entry(exc, idx, pair, "certification"))
                continue
            for j, p in enumerate(plist):
                c = self._certify(p, pair, int(cf[j]), int(cs[j]), n_cert, a_each, d_out, delta)
                c["replay"] = {"rng_state": state, "chunk_size": int(self.chunk_size),
                               "n": n_cert}
                certified.append(c)
        t_cert = time.perf_counter() - t1
        if not certified:
            return _crashed_result(self, mechanism, crashes, skipped, rng_start, len(pairs))

        best_c = max(certified, key=lambda c: c["epsilon_lower_raw"])
        eps_lower = max(0.0, best_c["epsilon_lower_raw"])
        claimed = float(mechanism.claimed_epsilon)
        witness = dict(best_c)
        details = {
            "guarantee": _guarantee(self, mechanism),
            "mode": "fixed",
            "outcome": "flagged" if eps_lower > claimed else "not-flagged",
            "rng_at_start": rng_start,
            "n_select": n_sel,
            "n_certify": n_cert,
            "samples_per_dataset": n_sel + n_cert,
            "samples_total": 2 * n_sel * (len(pairs) - len(skipped))
                             + 2 * n_cert * len(by_pair),
            "chunk_size": int(self.chunk_size),
            "pairs": len(pairs),
            "pairs_used": len(pairs) - len(skipped),
            "skipped_pairs": skipped,
            "crashes": crashes,
            "events_tried_in_selection": tried_total,
            "events_per_pair": per_pair,
            "certify": self.certify,
            "certified_events": m,
            "one_sided_bounds": 2 * m,
            "bonferroni_factor": 2 * m,
            "alpha_total": alpha,
            "alpha_per_bound": a_each,
            "delta": delta,
            "selection_confidence": float(self.selection_confidence),
            "selection_score": "certification bound predicted from the selection counts' "
                               "one-sided Clopper-Pearson bounds at 1 - selection_confidence",
            "certified": certified,
            "settings": self._settings_dict(),
            "output_columns": d_out,
            "selection_s": t_sel,
            "certification_s": t_cert,
        }
        return TestResult(
            tester=self.name,
            mechanism=str(mechanism.name),
            relation=str(mechanism.relation),
            claimed_epsilon=claimed,
            epsilon_estimate=float(best_c["epsilon_point"]),
            epsilon_lower=eps_lower,
            confidence=float(self.confidence),
            violates=bool(eps_lower > claimed),
            witness=witness,
            details=details,
        )

    def _settings_dict(self) -> dict[str, Any]:
        return {
            "max_events": self.max_events, "n_thresholds": self.n_thresholds,
            "n_tail": self.n_tail, "intervals": self.intervals,
            "n_interval_points": self.n_interval_points, "float_grid": self.float_grid,
            "max_levels": self.max_levels, "max_patterns": self.max_patterns,
            "n_pattern_thresholds": self.n_pattern_thresholds,
            "max_binades": self.max_binades,
        }

    @staticmethod
    def _certify(p: _Pick, pair: NeighbourPair, k_first: int, k_second: int, n: int,
                 a_each: float, d: int, delta: float = 0.0) -> dict[str, Any]:
        kf, ko = (k_first, k_second) if p.direction == 0 else (k_second, k_first)
        lo = float(clopper_pearson_lower(kf, n, a_each))
        hi = float(clopper_pearson_upper(ko, n, a_each))
        raw = float(_log_ratio(lo, hi, delta))
        if kf == 0 or kf / n <= delta:
            point = 0.0
        elif ko == 0:
            point = math.inf
        else:
            point = math.log((kf / n - delta) / (ko / n))

        def interval(k: int) -> list[float]:
            return [float(clopper_pearson_lower(k, n, a_each)),
                    float(clopper_pearson_upper(k, n, a_each))]

        names = ("D (pair.first)", "D' (pair.second)")
        fav, oth = (names[0], names[1]) if p.direction == 0 else (names[1], names[0])
        return {
            "pair_index": p.pair,
            "change": dict(pair.change),
            "relation": pair.relation,
            "direction": f"P[{fav}](E) / P[{oth}](E)",
            "direction_index": p.direction,
            "event": p.event.describe(d),
            "event_spec": p.event.to_dict(),
            "counts": {"first": k_first, "second": k_second, "n": n},
            "selection_counts": {"first": p.counts[0], "second": p.counts[1]},
            "selection_score": p.score,
            "p_first_interval": interval(k_first),
            "p_second_interval": interval(k_second),
            "p_favoured_lower": lo,
            "p_other_upper": hi,
            "alpha_per_bound": a_each,
            "epsilon_lower_raw": raw,
            "epsilon_lower": max(0.0, raw),
            "epsilon_point": point,
        }


def _guarantee(t: BlackBoxTester, mechanism: Mechanism) -> str:
    dp = "epsilon" if not t.delta else f"epsilon at delta = {float(t.delta):g}"
    return (f"with probability >= {t.confidence} over the tester's sampling, the "
            f"mechanism's true {dp} on {mechanism.relation} is >= epsilon_lower; "
            "violates = epsilon_lower > claimed_epsilon; a non-violation is NOT a proof "
            "of privacy")


def _jsonable_dataset(dataset: Any) -> Any:
    """The data set as plain JSON values (lists of floats), or its repr when it is not
    array-like."""
    try:
        arr = np.asarray(dataset)
        if arr.dtype.kind in "biuf":
            return arr.tolist()
    except Exception:  # noqa: BLE001 - any object: fall back to its repr
        pass
    return repr(dataset)[:2000]


def _as_crash(exc: InputError, pair: NeighbourPair, rng: np.random.Generator) -> MechanismCrash:
    return MechanismCrash({"dataset": None, "size": None, "exception": type(exc).__name__,
                           "message": f"rejected a data set it had accepted before: {exc}",
                           "traceback": "", "rng_state": None})


def _crash_entry(exc: MechanismCrash, idx: int, pair: NeighbourPair, stage: str
                 ) -> dict[str, Any]:
    rec = dict(exc.record)
    if rec.get("dataset") is None:
        rec["dataset"] = _jsonable_dataset(pair.first)
    ds = rec["dataset"]
    which = ("first" if ds == _jsonable_dataset(pair.first) else
             "second" if ds == _jsonable_dataset(pair.second) else "?")
    return {"pair_index": idx, "change": dict(pair.change), "stage": stage,
            "which": which, **rec}


def _crashed_result(t: BlackBoxTester, mechanism: Mechanism, crashes: list[dict[str, Any]],
                    skipped: list[dict[str, Any]], rng_start: dict[str, Any], n_pairs: int,
                    extra: dict[str, Any] | None = None) -> TestResult:
    """No pair could be certified because the mechanism crashed: a result, not an abort."""
    return TestResult(
        tester=t.name, mechanism=str(mechanism.name), relation=str(mechanism.relation),
        claimed_epsilon=float(mechanism.claimed_epsilon), epsilon_estimate=math.nan,
        epsilon_lower=None, confidence=float(t.confidence), violates=False,
        witness={"crash": crashes[0]},
        details={"guarantee": _guarantee(t, mechanism), "outcome": "crashed",
                 "mode": "sequential" if t.sequential else "fixed",
                 "crashes": crashes, "skipped_pairs": skipped, "pairs": n_pairs,
                 "pairs_used": n_pairs - len(skipped), "rng_at_start": rng_start,
                 "delta": float(t.delta), **(extra or {})},
    )


def _predicted(kf: np.ndarray, ko: np.ndarray, n_sel: int, n_cert: int, a_sel: float,
               a_cert: float, delta: float = 0.0) -> np.ndarray:
    """Lower-confidence estimate of the bound each event would certify: pessimistic
    selection frequencies (one-sided CP at ``a_sel``), turned into the certification bound
    at ``a_cert`` with ``n_cert`` samples."""
    if kf.size == 0:
        return np.zeros(0)
    pf = np.asarray(clopper_pearson_lower(kf, n_sel, a_sel))
    po = np.asarray(clopper_pearson_upper(ko, n_sel, a_sel))
    cf = np.floor(pf * n_cert)
    co = np.minimum(np.ceil(po * n_cert), n_cert)
    lo = np.asarray(clopper_pearson_lower(cf, n_cert, a_cert))
    hi = np.asarray(clopper_pearson_upper(co, n_cert, a_cert))
    return _log_ratio(lo, hi, delta)


def _check_mechanism(mechanism: Any) -> None:
    for attr in ("sample", "claimed_epsilon", "relation", "name"):
        if not hasattr(mechanism, attr):
            raise TypeError(
                f"mechanism must implement the Mechanism protocol (sample, claimed_epsilon, "
                f"relation, name); {type(mechanism).__name__} has no {attr!r}")
    if mechanism.relation not in RELATIONS:
        raise InvalidParameterError(
            f"mechanism.relation must be one of {RELATIONS}, got {mechanism.relation!r}")
    eps = mechanism.claimed_epsilon
    if isinstance(eps, bool) or not isinstance(eps, (numbers.Real, np.floating)) or not (
            math.isfinite(float(eps)) and float(eps) > 0):
        raise InvalidParameterError(
            f"mechanism.claimed_epsilon must be a finite number > 0, got {eps!r}")


def _check_pairs(pairs: Any, mechanism: Mechanism) -> list[NeighbourPair]:
    if isinstance(pairs, NeighbourPair):
        raise InvalidParameterError(
            "pairs must be a list of NeighbourPair, got a single NeighbourPair (wrap it in [])")
    try:
        out = list(pairs)
    except TypeError:
        raise InvalidParameterError(
            f"pairs must be a non-empty list of NeighbourPair, got {pairs!r}") from None
    if not out:
        raise InvalidParameterError(
            f"pairs must be a non-empty list of NeighbourPair, got {pairs!r}")
    for i, p in enumerate(out):
        if not isinstance(p, NeighbourPair):
            raise InvalidParameterError(
                f"pairs[{i}] must be a NeighbourPair, got {type(p).__name__}: {p!r}")
        if p.relation != mechanism.relation:
            raise InvalidParameterError(
                f"pairs[{i}].relation is {p.relation!r} but {mechanism.name} claims its "
                f"epsilon under {mechanism.relation!r}")
    return out
