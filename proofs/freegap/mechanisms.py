"""Free-gap mechanisms (Ding et al.) and their broken variants as :class:`Mechanism` objects,
plus *exact* event probabilities for them (the independent source of truth for witnesses).

Data sets are query-answer vectors ``q`` (1-D float arrays).  Neighbour relations: for general
queries of sensitivity 1, ``|q_i - q'_i| <= 1`` for every i (:data:`REPLACE_ONE`: replacing a
record moves each answer by at most 1); for monotone / counting queries, additionally all
differences have the same sign (:data:`ADD_REMOVE_ONE`: adding a record raises each count by 0
or 1).  Outputs follow the encodings documented in :mod:`kernels.freegap.mechanisms` /
:mod:`kernels.freegap.broken`.

Exact probabilities (mpmath, ``dps`` decimal digits, default 30).  Every Sparse-Vector-family
output is a function of the threshold noise r and of per-query noises that are independent
given r, so the probability of an event that constrains each processed position separately
(⊥ / ⊤, branch, value in an interval) is the one-dimensional integral

    P(E) = int f_r(r) prod_i p_i(r) dr,

integrated by ``mpmath.quad`` on the pieces between the kinks of the integrand (where an
argument of a Laplace cdf crosses 0, and r = 0).  Without threshold noise it is the product
at r = 0.  Noisy-Max events are handled the same way, conditioning on the winning value.
The :class:`Event` specs here are also what :func:`event_indicator` evaluates on samples, so a
Monte-Carlo frequency and the exact probability can be compared directly.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar

import mpmath
import numpy as np

from audit.protocols import ADD_REMOVE_ONE, REPLACE_ONE
from kernels.errors import InvalidParameterError
from kernels.freegap import broken as fb
from kernels.freegap import mechanisms as fg
from kernels.gini.release import SnapGrid

__all__ = [
    "AdaptiveSVTWithGap",
    "AdaptiveSVTWrongStop",
    "NoisyMaxWithValue",
    "SVTLeeClifton",
    "SVTNoHalting",
    "SVTNoQueryNoise",
    "SVTNoThresholdNoise",
    "SVTReleaseValue",
    "TopKWithGapHalfNoise",
    "witness_exact",
    "BROKEN_MECHANISMS",
    "CORRECT_MECHANISMS",
    "Condition",
    "NoisyMax",
    "SVTLaw",
    "SparseVector",
    "SVTWithGap",
    "TopKWithGap",
    "event_indicator",
    "event_log_ratio",
    "catalogue",
    "mechanism_for_variant",
    "noisy_max_value_probability",
    "svt_event_probability",
    "top1_gap_probability",
]


# ============================================================================ exact laws
def _lap_cdf(x: Any, b: Any) -> Any:
    """Laplace(b) cdf at mpmath precision; b == 0 is a point mass at 0 (cdf = [x >= 0])."""
    if b == 0:
        return mpmath.mpf(1) if x >= 0 else mpmath.mpf(0)
    if x == mpmath.inf:
        return mpmath.mpf(1)
    if x == -mpmath.inf:
        return mpmath.mpf(0)
    if x < 0:
        return mpmath.exp(x / b) / 2
    return 1 - mpmath.exp(-x / b) / 2


def _lap_interval(lo: Any, hi: Any, b: Any, *, open_lo: bool = False) -> Any:
    """P(lo <= X <= hi) (or lo < X <= hi) for X ~ Lap(b); for b == 0 the point mass at 0."""
    if hi < lo:
        return mpmath.mpf(0)
    if b == 0:
        inside = (lo < 0 if open_lo else lo <= 0) and 0 <= hi
        return mpmath.mpf(1) if inside else mpmath.mpf(0)
    return _lap_cdf(hi, b) - _lap_cdf(lo, b)


@dataclass(frozen=True)
class SVTLaw:
    """Noise law of a Sparse-Vector-family run (scales 0 = no noise).

    ``threshold_scale``: Laplace scale of the threshold noise; ``query_scale``: of the (middle
    branch / classical) query noise; ``top_scale`` and ``sigma``: of the top branch of
    Algorithm 2 (``top_scale=None``: no top branch); ``value``: what a ⊤ releases - ``"gap"``
    (q_i + nu_i - T~), ``"noisy"`` (q_i + nu_i, Roth's variant) or ``"none"``.
    ``strict_top``: line 8's ``>`` (True) - immaterial under continuous noise."""

    threshold_scale: float
    query_scale: float
    top_scale: float | None = None
    sigma: float = math.inf
    value: str = "gap"


@dataclass(frozen=True)
class Condition:
    """What one processed position must show.  ``kind``: ``"bottom"``, ``"above"`` (a ⊤ of a
    classical / middle branch), ``"top"`` (Algorithm 2's top branch); for ⊤ the released value
    must lie in ``[lo, hi]`` (default: anything)."""

    kind: str
    lo: float = -math.inf
    hi: float = math.inf

    def __post_init__(self) -> None:
        if self.kind not in ("bottom", "above", "top"):
            raise InvalidParameterError(
                f"Condition.kind must be 'bottom', 'above' or 'top', got {self.kind!r}"
            )


def _position_prob(qi: Any, t_noisy: Any, cond: Condition, law: SVTLaw) -> Any:
    """P(position shows ``cond`` | T~ = t_noisy)."""
    b = law.query_scale
    x = t_noisy - qi  # ⊤ (classical) iff nu >= x
    has_top = law.top_scale is not None
    sig = mpmath.mpf(law.sigma) if math.isfinite(law.sigma) else mpmath.inf
    # P(top branch fails) = P(q + xi - T~ <= sigma) = P(xi <= x + sigma)
    top_fails = _lap_cdf(x + sig, law.top_scale) if has_top and sig != mpmath.inf else 1
    lo, hi = mpmath.mpf(cond.lo), mpmath.mpf(cond.hi)
    if cond.kind == "bottom":
        return top_fails * (1 - _lap_interval(x, mpmath.inf, b))
    if cond.kind == "above":
        if law.value == "noisy":  # value = q + nu in [lo, hi] and nu >= x
            p = _lap_interval(max(x, lo - qi), hi - qi, b)
        elif law.value == "gap":  # gap = nu - x in [lo, hi], gap >= 0
            p = _lap_interval(x + max(lo, 0), x + hi, b)
        else:
            p = _lap_interval(x, mpmath.inf, b)
        return top_fails * p
    if not has_top:
        return mpmath.mpf(0)
    # top: gap = xi - x > sigma and in [lo, hi]
    return _lap_interval(x + max(lo, sig), x + hi, law.top_scale, open_lo=True)


def _kinks(q: Sequence[float], T: float, conds: Sequence[Condition], law: SVTLaw) -> list[Any]:
    pts = {mpmath.mpf(0)}
    for qi, c in zip(q, conds, strict=False):
        offs = [0.0, c.lo, c.hi]
        if law.top_scale is not None and math.isfinite(law.sigma):
            offs.append(law.sigma)
            offs.append(max(c.lo, law.sigma))
        for o in offs:
            if math.isfinite(o):
                # argument x + o = T + r - qi + o crosses 0 at r = qi - T - o
                pts.add(mpmath.mpf(qi) - mpmath.mpf(T) - mpmath.mpf(o))
        if law.value == "noisy":  # max(x, lo - qi) switches, and the interval empties,
            for o in (c.lo, c.hi):  # at T + r = lo, T + r = hi
                if math.isfinite(o):
                    pts.add(mpmath.mpf(o) - mpmath.mpf(T))
    return sorted(pts)


def svt_event_probability(
    q: Sequence[float], T: float, conds: Sequence[Condition], law: SVTLaw, *, dps: int = 30
) -> Any:
    """Exact P(the first ``len(conds)`` processed positions show ``conds``) for a
    Sparse-Vector-family run on answers ``q`` with threshold ``T`` (mpmath number).

    The caller must make sure the run does not halt before the last condition (a complete
    output pattern, or a prefix of one); the probability is otherwise that of a prefix that
    cannot occur.  Quadrature error is far below 10^-(dps-10) for these piecewise-smooth
    integrands."""
    if len(conds) > len(q):
        raise InvalidParameterError(
            f"more conditions ({len(conds)}) than queries ({len(q)})"
        )
    with mpmath.workdps(dps):
        qm = [mpmath.mpf(float(v)) for v in q]
        tm = mpmath.mpf(float(T))

        def integrand(r: Any) -> Any:
            p = mpmath.mpf(1)
            for qi, c in zip(qm, conds, strict=False):
                p *= _position_prob(qi, tm + r, c, law)
                if p == 0:
                    break
            return p

        s0 = law.threshold_scale
        if s0 == 0:
            return +integrand(mpmath.mpf(0))
        s0m = mpmath.mpf(s0)
        pts = [-mpmath.inf, *_kinks(q, T, conds, law), mpmath.inf]

        def weighted(r: Any) -> Any:
            return mpmath.exp(-abs(r) / s0m) / (2 * s0m) * integrand(r)

        return +mpmath.quad(weighted, pts)


def noisy_max_value_probability(
    q: Sequence[float], scale: float, lo: float, hi: float, *, index: int | None = None,
    dps: int = 30,
) -> Any:
    """Exact P(noisy max value in [lo, hi] (and argmax = ``index`` if given)) for
    Lap(``scale``) noise: sum_j int_lo^hi f(v - q_j) prod_{l != j} F(v - q_l) dv."""
    with mpmath.workdps(dps):
        b = mpmath.mpf(scale)
        qm = [mpmath.mpf(float(v)) for v in q]
        idx = range(len(qm)) if index is None else [index]
        total = mpmath.mpf(0)
        lo_m, hi_m = mpmath.mpf(lo), mpmath.mpf(hi)
        pts = sorted({v for v in qm if lo_m < v < hi_m} | {lo_m, hi_m})
        for j in idx:

            def dens(v: Any, j: int = j) -> Any:
                p = mpmath.exp(-abs(v - qm[j]) / b) / (2 * b)
                for ll, ql in enumerate(qm):
                    if ll != j:
                        p *= _lap_cdf(v - ql, b)
                return p

            total += mpmath.quad(dens, pts)
        return +total


def top1_gap_probability(
    q: Sequence[float], scale: float, index: int, gap_lo: float, *, dps: int = 30
) -> Any:
    """Exact P(j_1 = ``index`` and g_1 >= ``gap_lo``) for Noisy-Top-1-with-Gap with
    Lap(``scale``) noise: int f(x - q_j) prod_{l != j} F(x - gap_lo - q_l) dx."""
    with mpmath.workdps(dps):
        b = mpmath.mpf(scale)
        qm = [mpmath.mpf(float(v)) for v in q]
        g = mpmath.mpf(gap_lo)
        j = index
        pts = sorted({qm[j]} | {ql + g for ll, ql in enumerate(qm) if ll != j})

        def dens(x: Any) -> Any:
            p = mpmath.exp(-abs(x - qm[j]) / b) / (2 * b)
            for ll, ql in enumerate(qm):
                if ll != j:
                    p *= _lap_cdf(x - g - ql, b)
            return p

        return +mpmath.quad(dens, [-mpmath.inf, *pts, mpmath.inf])


def event_log_ratio(p: Any, p_prime: Any) -> float:
    """log(p / p'), +inf when p' = 0 < p, rounded down to a float (never overstated)."""
    if p_prime == 0:
        return math.inf if p > 0 else math.nan
    with mpmath.workdps(40):  # not the global precision another caller may have lowered
        v = mpmath.log(p) - mpmath.log(p_prime)
        f = float(v)
        return math.nextafter(f, -math.inf) if f > v else f


# ============================================================================ events on samples
def event_indicator(samples: np.ndarray, event: Sequence[dict[str, Any]]) -> np.ndarray:
    """Rows of ``samples`` (a sampler's 2-D output) in the event ``event``: a list of column
    conditions ``{"col": j, "op": OP, "value": v}`` with OP in ``==, !=, <=, >=, <, >`` or
    ``{"col": j, "op": "isnan"}`` / ``"notnan"``; all must hold (NaN fails every comparison)."""
    arr = np.asarray(samples, dtype=np.float64)
    if arr.ndim == 1:
        arr = arr[:, None]
    ok = np.ones(arr.shape[0], dtype=bool)
    for c in event:
        col = arr[:, int(c["col"])]
        op = c["op"]
        if op == "isnan":
            ok &= np.isnan(col)
            continue
        if op == "notnan":
            ok &= ~np.isnan(col)
            continue
        v = float(c["value"])
        with np.errstate(invalid="ignore"):
            if op == "==":
                ok &= col == v
            elif op == "!=":
                ok &= (col != v) & ~np.isnan(col)
            elif op == "<=":
                ok &= col <= v
            elif op == ">=":
                ok &= col >= v
            elif op == "<":
                ok &= col < v
            elif op == ">":
                ok &= col > v
            else:
                raise InvalidParameterError(f"unknown event op {op!r}")
    return ok


# ============================================================================ mechanisms
def _relation(monotone: bool) -> str:
    return ADD_REMOVE_ONE if monotone else REPLACE_ONE


@dataclass(frozen=True)
class NoisyMax:
    """eps-DP Noisy Max (:func:`kernels.freegap.mechanisms.sample_noisy_max`); output (size, 1)
    index."""

    epsilon: float
    monotone: bool = False
    name: str = field(default="noisy-max", compare=False)
    true_epsilon: float | None = field(default=None, init=False)  # proved <= claimed

    @property
    def claimed_epsilon(self) -> float:
        return float(self.epsilon)

    @property
    def relation(self) -> str:
        return _relation(self.monotone)

    def sample(self, dataset: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        return fg.sample_noisy_max(dataset, self.epsilon, rng, size, monotone=self.monotone)


@dataclass(frozen=True)
class TopKWithGap:
    """eps-DP Noisy-Top-K-with-Gap (Algorithm 1, Theorem 2); output (size, 2k).

    ``snap=True`` (opt-in; default False = the paper's mechanism as printed) clamps and
    rounds the released gaps to :meth:`snap_grid`
    (:func:`kernels.freegap.mechanisms.gap_snap_grid` of
    the Laplace scale and the public bound ``snap_query_bound`` on |q_i|): post-processing
    that closes the float64 low-bit leak of ``freegap.float-bits``."""

    k: int
    epsilon: float
    monotone: bool = False
    name: str = field(default="top-k-with-gap", compare=False)
    true_epsilon: float | None = field(default=None, init=False)
    snap: bool = False
    snap_query_bound: float = 0.0

    def snap_grid(self) -> SnapGrid | None:
        """The public grid of the snapped output (None when ``snap`` is False)."""
        if not self.snap:
            return None
        b = fg.top_k_noise_scale(self.k, self.epsilon, monotone=self.monotone)
        return fg.gap_snap_grid(b, self.snap_query_bound)

    @property
    def claimed_epsilon(self) -> float:
        return float(self.epsilon)

    @property
    def relation(self) -> str:
        return _relation(self.monotone)

    def sample(self, dataset: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        return fg.sample_top_k_with_gap(
            dataset, self.k, self.epsilon, rng, size, monotone=self.monotone,
            snap=self.snap_grid(),
        )


@dataclass(frozen=True)
class SparseVector:
    """eps-DP classical Sparse Vector (Lyu et al. Alg. 1), c answers; output (size, n)."""

    T: float
    epsilon: float
    c: int
    theta: float | None = None
    monotone: bool = False
    name: str = field(default="sparse-vector", compare=False)
    true_epsilon: float | None = field(default=None, init=False)

    @property
    def claimed_epsilon(self) -> float:
        return float(self.epsilon)

    @property
    def relation(self) -> str:
        return _relation(self.monotone)

    def _theta(self) -> float:
        return fg.recommended_theta(self.c, monotone=self.monotone) if self.theta is None \
            else float(self.theta)

    def svt_law(self) -> SVTLaw:
        th = self._theta()
        mult = 1.0 if self.monotone else 2.0
        return SVTLaw(1.0 / (th * self.epsilon), mult * self.c / ((1 - th) * self.epsilon),
                      value="none")

    def sample(self, dataset: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        return fg.sample_sparse_vector(
            dataset, self.T, self.epsilon, self.c, rng, size, theta=self.theta,
            monotone=self.monotone,
        )


@dataclass(frozen=True)
class AdaptiveSVTWithGap:
    """eps-DP Adaptive-Sparse-Vector-with-Gap (Algorithm 2, Theorem 4); ``adaptive=False``
    is Sparse-Vector-with-Gap.  Output (size, 2n): values then branch codes.

    ``snap=True`` (opt-in; default False = the paper's mechanism as printed) clamps and
    rounds the released values (not the branch codes; NaN stays NaN) to :meth:`snap_grid`
    (:func:`kernels.freegap.mechanisms.gap_snap_grid` of the largest Laplace scale - threshold,
    middle
    or top branch - and the public bound ``snap_query_bound`` on |q_i| and |T|):
    post-processing that closes the float64 low-bit leak of ``freegap.float-bits``."""

    T: float
    epsilon: float
    k: int
    theta: float | None = None
    sigma: float | None = None
    monotone: bool = False
    adaptive: bool = True
    name: str = field(default="adaptive-svt-with-gap", compare=False)
    true_epsilon: float | None = field(default=None, init=False)
    snap: bool = False
    snap_query_bound: float = 0.0

    def snap_grid(self) -> SnapGrid | None:
        """The public grid of the snapped output (None when ``snap`` is False)."""
        if not self.snap:
            return None
        law = self.svt_law()
        scales = [law.threshold_scale, law.query_scale]
        if law.top_scale is not None:
            scales.append(law.top_scale)
        return fg.gap_snap_grid(max(scales), max(self.snap_query_bound, abs(float(self.T))))

    @property
    def claimed_epsilon(self) -> float:
        return float(self.epsilon)

    @property
    def relation(self) -> str:
        return _relation(self.monotone)

    def budgets(self) -> fg.AdaptiveBudgets:
        th = fg.recommended_theta(self.k, monotone=self.monotone) if self.theta is None \
            else float(self.theta)
        return fg.adaptive_budgets(self.epsilon, self.k, th, monotone=self.monotone,
                                   sigma=self.sigma)

    def svt_law(self) -> SVTLaw:
        b = self.budgets()
        mult = 1.0 if self.monotone else 2.0
        if not self.adaptive:
            return SVTLaw(1.0 / b.eps0, mult / b.eps1, value="gap")
        return SVTLaw(1.0 / b.eps0, mult / b.eps1, top_scale=mult / b.eps2, sigma=b.sigma,
                      value="gap")

    def sample(self, dataset: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        return fg.sample_adaptive_svt_with_gap(
            dataset, self.T, self.epsilon, self.k, rng, size, theta=self.theta,
            sigma=self.sigma, monotone=self.monotone, adaptive=self.adaptive,
            snap=self.snap_grid(),
        )


@dataclass(frozen=True)
class SVTWithGap(AdaptiveSVTWithGap):
    """eps-DP Sparse-Vector-with-Gap (Wang et al. 2019; Algorithm 2 with sigma = inf)."""

    adaptive: bool = field(default=False, init=False)
    name: str = field(default="svt-with-gap", compare=False)


# ------------------------------------------------------------------------- broken ones
@dataclass(frozen=True)
class _Broken:
    """A deliberately broken variant of :data:`kernels.freegap.broken.BROKEN_VARIANTS`;
    ``params`` are the sampler's keyword arguments besides (q, rng, size) and must include
    ``epsilon``.  ``true_epsilon``: the table's factor times epsilon (inf: not DP for any
    finite epsilon over the variant's input domain; None: unknown)."""

    params: dict[str, Any]
    name: str = field(default="", compare=False)
    VARIANT: ClassVar[str] = ""
    MONOTONE: ClassVar[bool] = False

    def __post_init__(self) -> None:
        if "epsilon" not in self.params:
            raise InvalidParameterError(f"{self.VARIANT}: params must include 'epsilon'")
        if not self.name:
            object.__setattr__(self, "name", f"{self.VARIANT}<BROKEN>")

    @property
    def entry(self) -> dict[str, Any]:
        return fb.BROKEN_VARIANTS[self.VARIANT]

    @property
    def claimed_epsilon(self) -> float:
        return float(self.params["epsilon"])

    @property
    def true_epsilon(self) -> float | None:
        f = self.entry["true_epsilon_factor"]
        return None if f is None else f * self.claimed_epsilon

    @property
    def relation(self) -> str:
        return _relation(bool(self.params.get("monotone", False)))

    def sample(self, dataset: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        fn = getattr(fb, self.entry["sampler"])
        return fn(dataset, rng=rng, size=size, **self.params)

    @classmethod
    def witness(cls) -> _Broken:
        """This variant with its catalogue witness's parameters."""
        return cls(dict(fb.BROKEN_VARIANTS[cls.VARIANT]["witness"]["params"]))


class SVTNoThresholdNoise(_Broken):
    VARIANT = "svt_no_threshold_noise"

    def svt_law(self) -> SVTLaw:
        p = self.params
        eps2 = (1 - p.get("theta", 0.5)) * p["epsilon"]
        return SVTLaw(0.0, 2.0 * p["c"] / eps2, value="none")


class SVTNoQueryNoise(_Broken):
    VARIANT = "svt_no_query_noise"

    def svt_law(self) -> SVTLaw:
        p = self.params
        return SVTLaw(1.0 / (p.get("theta", 0.5) * p["epsilon"]), 0.0, value="none")


class SVTReleaseValue(_Broken):
    VARIANT = "svt_release_value"

    def svt_law(self) -> SVTLaw:
        p = self.params
        th = p.get("theta", 0.5)
        return SVTLaw(1.0 / (th * p["epsilon"]), p["c"] / ((1 - th) * p["epsilon"]),
                      value="noisy")


class SVTNoHalting(_Broken):
    VARIANT = "svt_no_halting"

    def svt_law(self) -> SVTLaw:
        p = self.params
        th = p.get("theta", 0.5)
        return SVTLaw(1.0 / (th * p["epsilon"]), 1.0 / ((1 - th) * p["epsilon"]), value="none")


class SVTLeeClifton(_Broken):
    VARIANT = "svt_lee_clifton"

    def svt_law(self) -> SVTLaw:
        e = self.params["epsilon"]
        return SVTLaw(4.0 / e, 4.0 / (3.0 * e), value="none")


class NoisyMaxWithValue(_Broken):
    VARIANT = "noisy_max_with_value"


class TopKWithGapHalfNoise(_Broken):
    VARIANT = "top_k_with_gap_half_noise"


class AdaptiveSVTWrongStop(_Broken):
    VARIANT = "adaptive_svt_wrong_stop"

    def svt_law(self) -> SVTLaw:
        p = self.params
        return AdaptiveSVTWithGap(
            0.0, p["epsilon"], p["k"], theta=p.get("theta"), sigma=p.get("sigma"),
            monotone=p.get("monotone", False), adaptive=p.get("adaptive", True),
        ).svt_law()


CORRECT_MECHANISMS: tuple[type, ...] = (
    NoisyMax, TopKWithGap, SparseVector, SVTWithGap, AdaptiveSVTWithGap,
)
BROKEN_MECHANISMS: dict[str, type[_Broken]] = {
    cls.VARIANT: cls
    for cls in (
        SVTNoThresholdNoise, SVTNoQueryNoise, SVTReleaseValue, SVTNoHalting, SVTLeeClifton,
        NoisyMaxWithValue, TopKWithGapHalfNoise, AdaptiveSVTWrongStop,
    )
}


def mechanism_for_variant(variant: str, **params: Any) -> _Broken:
    """The :class:`Mechanism` of a broken variant (``params`` default to its witness's)."""
    if variant not in BROKEN_MECHANISMS:
        raise InvalidParameterError(
            f"unknown broken variant {variant!r}; known: {sorted(BROKEN_MECHANISMS)}"
        )
    cls = BROKEN_MECHANISMS[variant]
    return cls(params) if params else cls.witness()


#: per SVT-family variant: the witness event as per-position conditions
_B = Condition("bottom")
_A = Condition("above")
_WITNESS_CONDS: dict[str, list[Condition]] = {
    "svt_no_threshold_noise": [_B] * 16,
    "svt_no_query_noise": [_B, _A],
    "svt_release_value": [_B] * 4 + [Condition("above", -math.inf, 2.0)],
    "svt_no_halting": [_B, _B, _A, _A],
    "svt_lee_clifton": [_B] * 4 + [_A],
    "adaptive_svt_wrong_stop": [_B] * 3 + [_A, _A],
}


def witness_exact(variant: str, *, dps: int = 30, same: bool = False
                  ) -> tuple[Any, Any, float]:
    """Exact ``(P(event | q), P(event | q'), log ratio)`` of a catalogue witness, computed
    from the noise law (mpmath), independently of the samplers and of the stored figures.
    ``same``: q' replaced by q (the twin of issue 42: the same evaluation on a pair with no
    difference, whose log ratio is 0)."""
    entry = fb.BROKEN_VARIANTS[variant]
    w = dict(entry["witness"])
    if same:
        w["q_prime"] = w["q"]
    p = w["params"]
    if variant in _WITNESS_CONDS:
        law = mechanism_for_variant(variant).svt_law()  # type: ignore[attr-defined]
        conds = _WITNESS_CONDS[variant]
        a = svt_event_probability(w["q"], p["T"], conds, law, dps=dps)
        b = svt_event_probability(w["q_prime"], p["T"], conds, law, dps=dps)
    elif variant == "noisy_max_with_value":
        scale = 2.0 / p["epsilon"]
        a = noisy_max_value_probability(w["q"], scale, -math.inf, 0.0, dps=dps)
        b = noisy_max_value_probability(w["q_prime"], scale, -math.inf, 0.0, dps=dps)
    elif variant == "top_k_with_gap_half_noise":
        scale = p["k"] / p["epsilon"]
        a = top1_gap_probability(w["q"], scale, 0, 3.0, dps=dps)
        b = top1_gap_probability(w["q_prime"], scale, 0, 3.0, dps=dps)
    else:  # pragma: no cover - every catalogue entry is handled above
        raise InvalidParameterError(f"no exact witness computation for {variant!r}")
    return a, b, event_log_ratio(a, b)


def catalogue() -> dict[str, str]:
    """Mechanisms this subject offers to the privacy testers (name -> description)."""
    out = {
        "NoisyMax": "Noisy-Max (Ding et al. eq. (2), k = 1)",
        "TopKWithGap": "Noisy-Top-K-with-Gap (Algorithm 1)",
        "SparseVector": "Sparse Vector (Lyu et al.)",
        "SVTWithGap": "Sparse-Vector-with-Gap",
        "AdaptiveSVTWithGap": "Adaptive-Sparse-Vector-with-Gap (Algorithm 2)",
    }
    for key, cls in BROKEN_MECHANISMS.items():
        out[key] = f"deliberately broken: {cls.__name__}"
    return out
