"""The DP Gini release, the DP upper bound for U, and the Bayesian post-processing.

Paper: Lan & Reiter (2025), eq. (9)-(10) (mechanism), Section 2.3 and Algorithm 3
(constants alpha, beta), Section 5.1 (DP upper bound U = 2.5 * x~ from a noisy count and
AboveThreshold after Durfee 2023), eq. (11) (posterior under a Uniform(0, 1) prior).
Neighbour relation: replace one record (the smooth sensitivity is over size-n data sets).

Which (alpha, beta) make g~ = g(X) + (S(X)/alpha) Z, Z ~ (10), epsilon-DP?  Write the log
density ratio of the outputs for neighbours X, X' with S(X') = e^lambda S(X),
|lambda| <= beta (beta-smoothness), and delta = alpha (g(X) - g(X'))/S(X), |delta| <= alpha
(S >= LS).  With z = alpha (y - g(X))/S(X),

    loss(z) = lambda + [ln(1 + e^{-lambda gamma}|z+delta|^gamma) - ln(1 + |z+delta|^gamma)]
                     + [ln(1 + |z+delta|^gamma) - ln(1 + |z|^gamma)].

The first bracket lies between min(0, -lambda gamma) and max(0, -lambda gamma); the second
is at most |delta| sup_t gamma t^{gamma-1}/(1+t^gamma) = |delta| (gamma-1)^{1-1/gamma}.  So

    sup loss <= beta * max(1, gamma - 1) + alpha * (gamma - 1)^{1 - 1/gamma}.    (*)

* ``"alg3"`` (DEFAULT): beta = eps/(2(gamma+1)) (Algorithm 3, line 1) with
  alpha = eps/(4 gamma) (Section 2.3; Algorithm 3 does not state alpha).  By (*) the loss is
  <= eps/2 + eps/4 < eps for every gamma > 1: proved epsilon-DP.
* ``"section23"``: alpha = eps/(4 gamma), beta = eps/gamma (Section 2.3, attributed to
  Nissim, Raskhodnikova & Smith 2007).  (*) does not certify it, and a direct numerical
  maximisation of loss(z) over |lambda| <= beta, |delta| <= alpha finds a worst-case loss
  above eps for gamma >= ~8 (about 1.05 eps at gamma = 10, 1.14 eps at gamma = 20) and for
  gamma close to 1 (about 1.08 eps at gamma = 1.01); at the paper's gamma = 2 it is about
  0.52 eps.  Selectable for audits, never the default.  (The admissibility audit of
  ``audit/privacy`` reproduces these figures.)
* ``"calibrated"`` (ours, not in the paper): spend the budget that (*) leaves unused —
  beta max(1, gamma-1) = alpha (gamma-1)^{1-1/gamma} = eps/2 * (1 - 1e-9).  Proved eps-DP by
  (*) like "alg3", but "alg3" certifies only ~0.29 eps at gamma = 2 (1/6 + 1/8); the
  calibrated alpha is 4x larger at gamma = 2, i.e. 4x less noise for the same eps.

Privacy parameters are reported exactly as chosen; the bound (*) is evaluated in float and
rounded *up* by one ulp (:func:`loss_bound`) so that a reported guarantee is never smaller
than the real-number value.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from kernels.errors import InvalidParameterError
from kernels.gini.index import gini_sorted
from kernels.gini.noise import NoiseDistribution, powerlaw
from kernels.gini.sensitivity import BoundName, smooth_sensitivity
from kernels.gini.validate import as_incomes, check_gamma
from kernels.validate import (
    as_data,
    as_scalar,
    check_epsilon,
    check_positive,
    check_rng,
)

__all__ = [
    "CONSTANT_CHOICES",
    "NoiseConstants",
    "noise_constants",
    "loss_bound",
    "ReleaseResult",
    "release_gini",
    "SNAP_HEADROOM_BITS",
    "SnapGrid",
    "snap",
    "snap_grid",
    "UpperBoundResult",
    "dp_upper_bound",
    "ComposedRelease",
    "release_gini_dp_bounds",
    "Posterior",
    "posterior_exact",
    "posterior_grid",
    "posterior_importance",
]

ConstantsName = Literal["alg3", "section23", "calibrated"]
CONSTANT_CHOICES: tuple[str, ...] = ("alg3", "section23", "calibrated")


@dataclass(frozen=True)
class NoiseConstants:
    """alpha (noise scale divisor) and beta (smoothness) for density (10) with shape gamma."""

    name: str
    epsilon: float
    gamma: float
    alpha: float
    beta: float
    proved_loss_bound: float  # value of (*) for these constants, rounded up
    proved_dp: bool  # True iff proved_loss_bound <= epsilon


def loss_bound(alpha: float, beta: float, gamma: float) -> float:
    """Bound (*) on the worst privacy loss, beta max(1, g-1) + alpha (g-1)^(1-1/g), rounded up."""
    g = check_gamma(gamma)
    val = beta * max(1.0, g - 1.0) + alpha * (g - 1.0) ** (1.0 - 1.0 / g)
    return float(np.nextafter(np.nextafter(val, math.inf), math.inf))


def noise_constants(epsilon: Any, gamma: Any, choice: ConstantsName = "alg3") -> NoiseConstants:
    """(alpha, beta) for the chosen rule; see the module docstring for the proofs/figures."""
    eps = check_epsilon(epsilon)
    g = check_gamma(gamma)
    if choice == "alg3":
        alpha, beta = eps / (4 * g), eps / (2 * (g + 1))
    elif choice == "section23":
        alpha, beta = eps / (4 * g), eps / g
    elif choice == "calibrated":
        half = 0.5 * eps * (1.0 - 1e-9)
        alpha = half / (g - 1.0) ** (1.0 - 1.0 / g)
        beta = half / max(1.0, g - 1.0)
    else:
        raise InvalidParameterError(f"constants must be one of {CONSTANT_CHOICES}, got {choice!r}")
    lb = loss_bound(alpha, beta, g)
    return NoiseConstants(choice, eps, g, alpha, beta, lb, lb <= eps)


#: extra bits between the float resolution at the clamp and the snapping grid
SNAP_HEADROOM_BITS = 12


@dataclass(frozen=True)
class SnapGrid:
    """Public clamp ``B`` and grid ``step`` of the snapped release (both powers of two)."""

    clamp: float
    step: float


def snap_grid(alpha: Any) -> SnapGrid:
    """Data-independent snapping parameters for a release with constant ``alpha``.

    ``B = 2^ceil(log2(1024/alpha))``: the noise scale S/alpha is at most 1/alpha (S <= 1), so
    |g + (S/alpha) Z| > B needs |Z| > ~1023 (probability ~6e-4 for the Cauchy gamma = 2,
    less for larger gamma).  ``step = 2^SNAP_HEADROOM_BITS ulp(B) = B 2^-40``: every float
    in [-B, B] has a spacing at most ulp(B) = step / 4096.
    """
    a = check_positive(alpha, "alpha")
    b = 2.0 ** math.ceil(math.log2(1024.0 / a))
    return SnapGrid(b, math.ulp(b) * 2.0**SNAP_HEADROOM_BITS)


def snap(y: Any, grid: SnapGrid) -> np.ndarray:
    """Clamp to [-B, B] and round to the nearest multiple of ``step`` (ties to even).

    Exact in float64: y/step and k*step are exact scalings by powers of two, and |y/step| <=
    2^40.  Why (Mironov 2012, "On significance of the least significant bits for DP",
    Section 5, adapted to density (10)): the float sum fl(g + fl(s Z)) leaks through its
    last mantissa bits — e.g. g(X) = 2/9 rounds to an odd multiple of 2^-53, so every
    output in (-2, -1] is a tie rounded to even and ends in bit 0, while g(X') = 1/7 gives
    ~43% ones (``audit.privacy.calibration``, run ``float-gini-release``).  After snapping,
    an output reveals only which cell of width ``step`` the float sum fell in; the float
    errors move a cell's boundaries by at most ~2 ulp(B) = step/2048, so the cell
    probabilities are those of the real-number mechanism up to that boundary jitter.  This
    is a mitigation with a stated slack, not a proof: it also assumes the float sampler's
    Z has the cdf of density (10) to double precision at the cell boundaries.  Clamping
    and rounding the *real* output are post-processing, so the real-number guarantee is
    unchanged.
    """
    yy = np.clip(np.asarray(y, dtype=np.float64), -grid.clamp, grid.clamp)
    return np.rint(yy / grid.step) * grid.step


@dataclass(frozen=True)
class ReleaseResult:
    """Output of :func:`release_gini`.

    Only ``value`` (and the public parameters) may be published.  ``gini``,
    ``smooth_sensitivity`` and ``scale`` are computed from the confidential data and are
    returned for auditing only: publishing them is itself a disclosure.
    """

    value: float
    epsilon: float
    gamma: float
    constants: NoiseConstants
    bound: str
    lower: float
    upper: float
    n: int
    gini: float = field(repr=False)
    smooth_sensitivity: float = field(repr=False)
    scale: float = field(repr=False)
    k_argmax: int = field(repr=False)
    k_evaluated: int = field(repr=False)
    noise: float = field(repr=False)
    snapped: SnapGrid | None = None


def release_gini(
    x: Any,
    lower: Any,
    upper: Any,
    epsilon: Any,
    rng: np.random.Generator,
    *,
    gamma: Any = 2.0,
    constants: ConstantsName = "alg3",
    bound: BoundName = "thm43",
    clip: bool = False,
    snap_output: bool = True,
    size: int | None = None,
) -> ReleaseResult:
    """epsilon-DP Gini index g~ = g(X) + (S(X)/alpha) Z, Z ~ density (10) (eq. 9).

    Deviation from the paper (float safety): with ``snap_output`` (default) the float sum
    is clamped to [-B, B] and rounded to a grid of width B 2^-40 (:func:`snap`,
    :func:`snap_grid`); without it the float64 output leaks through its low-order bits
    (found by ``dpaudit calibrate``, run ``float-gini-release``).

    S is the beta-smooth sensitivity of :func:`kernels.gini.sensitivity.smooth_sensitivity`
    (k from 0, eq. 23 on the true k-replacement extremes by default).  The default
    constants ``"alg3"`` are proved epsilon-DP for every gamma > 1 (module docstring).
    ``rng`` must be a fresh, unpredictable generator for a real release
    (``numpy.random.default_rng()``); a seeded generator makes the noise reproducible,
    which is only acceptable for testing.

    ``size`` (auditing only): draw ``size`` independent outputs on the same data in one call
    (``value`` and ``noise`` are then arrays of shape (size,); the data-dependent part is
    computed once).  Same mechanism per draw; ``size=None`` (default) is one release and
    consumes the generator exactly as one draw of ``size=1``.  ``dpaudit certify`` samples
    the shipped release this way; never publish more than one draw.
    """
    rng = check_rng(rng)
    xs, lo, hi = as_incomes(x, lower, upper, clip=clip, copy=False)
    c = noise_constants(epsilon, gamma, constants)
    ss = smooth_sensitivity(xs, lo, hi, c.beta, bound=bound)
    g = ss.gini if ss.gini is not None else gini_sorted(xs)  # the same eq.-(2) value
    scale = float(np.nextafter(ss.value / c.alpha, math.inf))  # rounded up: never less noise
    if size is not None and (isinstance(size, bool) or not isinstance(size, (int, np.integer))
                             or size < 1):
        raise InvalidParameterError(f"size must be a positive int or None, got {size!r}")
    zs = powerlaw(c.gamma).sample(rng, 1 if size is None else int(size))
    z = float(zs[0]) if size is None else zs
    grid = snap_grid(c.alpha) if snap_output else None
    value = g + scale * z
    if grid is not None:
        value = snap(value, grid)
        value = float(value) if size is None else value
    return ReleaseResult(
        value=value,
        epsilon=c.epsilon,
        gamma=c.gamma,
        constants=c,
        bound=bound,
        lower=lo,
        upper=hi,
        n=int(xs.size),
        gini=g,
        smooth_sensitivity=ss.value,
        scale=scale,
        k_argmax=ss.k_argmax,
        k_evaluated=ss.k_evaluated,
        noise=z,
        snapped=grid,
    )


@dataclass(frozen=True)
class UpperBoundResult:
    """DP upper bound of Section 5.1: U = inflation * x~, x~ from AboveThreshold.

    ``epsilon`` = epsilon_count + epsilon_threshold (sequential composition).  ``halted``
    is False when no guess passed the threshold (then x~ is the last guess).
    """

    upper: float
    x_tilde: float
    n_tilde: float
    steps: int
    halted: bool
    epsilon_count: float
    epsilon_threshold: float
    inflation: float

    @property
    def epsilon(self) -> float:
        return self.epsilon_count + self.epsilon_threshold


def dp_upper_bound(
    x: Any,
    rng: np.random.Generator,
    *,
    epsilon_count: Any = 0.075,
    epsilon_threshold: Any = 0.075,
    inflation: Any = 2.5,
    start: Any = 1.0,
    ratio: Any = 1.001,
    max_guess: Any = 1e15,
) -> UpperBoundResult:
    """Section 5.1: DP estimate x~ of max(X), then U = 2.5 x~ (post-processing).

    1. n~ = n + Lap(1/epsilon_count)  (count, sensitivity 1 under add/remove; under
       replace-one n is public and this step spends budget for nothing — kept because the
       paper does it).
    2. AboveThreshold (Dwork & Roth 2014, Algorithm 1 / Theorem 3.23), threshold n~:
       T^ = n~ + Lap(2/epsilon_threshold); for guesses t_i = start * ratio^i (i = 0, 1, ...,
       up to max_guess) the query q_i = #{x <= t_i} (sensitivity 1, both relations) is
       compared as q_i + Lap(4/epsilon_threshold) >= T^; the first guess that passes is x~.
       The paper's text says it counts observations that *exceed* the guess and stops when
       that noisy count exceeds n~, which would stop at the first guess; we read it as the
       count at or below the guess (Durfee 2023's formulation).
    3. U = inflation * x~.
    Total epsilon = epsilon_count + epsilon_threshold (sequential composition).
    """
    rng = check_rng(rng)
    xs = as_data(x, "x", min_n=1)
    e1 = check_epsilon(epsilon_count, "epsilon_count")
    e2 = check_epsilon(epsilon_threshold, "epsilon_threshold")
    infl = as_scalar(inflation, "inflation")
    st = as_scalar(start, "start")
    r = as_scalar(ratio, "ratio")
    mg = as_scalar(max_guess, "max_guess")
    if infl < 1:
        raise InvalidParameterError(f"inflation must be >= 1, got {inflation!r}")
    if st <= 0:
        raise InvalidParameterError(f"start must be > 0, got {start!r}")
    if r <= 1:
        raise InvalidParameterError(f"ratio must be > 1, got {ratio!r}")
    if mg <= st:
        raise InvalidParameterError(f"max_guess must be > start={st!r}, got {max_guess!r}")
    n_tilde = xs.size + rng.laplace(0.0, 1.0 / e1)
    t_hat = n_tilde + rng.laplace(0.0, 2.0 / e2)
    m = int(math.floor(math.log(mg / st) / math.log(r))) + 1
    guesses = st * r ** np.arange(m, dtype=np.float64)
    counts = np.searchsorted(xs, guesses, side="right")
    noisy = counts + rng.laplace(0.0, 4.0 / e2, size=m)
    hit = np.flatnonzero(noisy >= t_hat)
    halted = hit.size > 0
    i = int(hit[0]) if halted else m - 1
    x_tilde = float(guesses[i])
    return UpperBoundResult(
        upper=infl * x_tilde,
        x_tilde=x_tilde,
        n_tilde=float(n_tilde),
        steps=i + 1,
        halted=halted,
        epsilon_count=e1,
        epsilon_threshold=e2,
        inflation=infl,
    )


@dataclass(frozen=True)
class ComposedRelease:
    """A Gini release whose upper bound U was itself set privately (Section 5.1).

    ``epsilon_total`` = upper-bound budget + Gini budget (sequential composition; the
    clipping to the DP bound and the release are post-processing of the DP U).
    """

    release: ReleaseResult
    upper_bound: UpperBoundResult
    epsilon_total: float
    n_clipped: int = field(repr=False)  # confidential diagnostic


def release_gini_dp_bounds(
    x: Any,
    lower: Any,
    epsilon: Any,
    rng: np.random.Generator,
    *,
    epsilon_upper: Any = 0.15,
    gamma: Any = 2.0,
    constants: ConstantsName = "alg3",
    bound: BoundName = "thm43",
) -> ComposedRelease:
    """Section 5.1 end to end: U = 2.5 x~ with budget ``epsilon_upper`` (split evenly
    between the noisy count and AboveThreshold, as the paper's 0.075 + 0.075), records
    clipped to [L, U], then :func:`release_gini` with budget ``epsilon``."""
    rng = check_rng(rng)
    xs = as_data(x, "x")
    e_u = check_epsilon(epsilon_upper, "epsilon_upper")
    ub = dp_upper_bound(xs, rng, epsilon_count=e_u / 2, epsilon_threshold=e_u / 2)
    lo = as_scalar(lower, "lower bound L")
    n_clipped = int(np.count_nonzero((xs > ub.upper) | (xs < lo)))
    r = release_gini(
        xs, lower, ub.upper, epsilon, rng, gamma=gamma, constants=constants, bound=bound, clip=True
    )
    return ComposedRelease(r, ub, r.epsilon + ub.epsilon, n_clipped)


@dataclass(frozen=True)
class Posterior:
    """Posterior of g given g~ under a Uniform(0, 1) prior (eq. 11)."""

    method: str
    g_tilde: float
    scale: float
    mean: float
    interval: tuple[float, float]
    level: float
    grid: np.ndarray | None = field(default=None, repr=False)
    density: np.ndarray | None = field(default=None, repr=False)
    draws: np.ndarray | None = field(default=None, repr=False)


def _post_args(g_tilde: Any, scale: Any, level: Any) -> tuple[float, float, float]:
    gt = as_scalar(g_tilde, "g_tilde")
    sc = check_positive(scale, "scale")
    lv = as_scalar(level, "level")
    if not 0 < lv < 1:
        raise InvalidParameterError(f"level must be in (0, 1), got {level!r}")
    return gt, sc, lv


def posterior_exact(
    g_tilde: Any, scale: Any, noise: NoiseDistribution, *, level: Any = 0.95
) -> Posterior:
    """Closed-form posterior: P(g <= t | g~) = [F(g~/s) - F((g~-t)/s)] / [F(g~/s) - F((g~-1)/s)].

    (F the noise cdf, s the scale.)  The central interval solves the cdf for (1 -+ level)/2
    by bisection (both ends together, from brackets on the grid of the mean, to float
    resolution); the mean is int_0^1 (1 - cdf) by the trapezoid
    rule on a grid refined around g~.  Used as the reference for the two samplers below.
    Where the closed form cancels (g~ so far from [0, 1] that the two tail values agree to
    more than 6 digits, which happens with positive probability for gamma near 1) the cdf
    is integrated from the density instead (see the comment in the body).
    """
    gt, sc, lv = _post_args(g_tilde, scale, level)

    def tail_mass(t: np.ndarray) -> np.ndarray:
        # F(g~/s) - F((g~-t)/s) computed from whichever side is more accurate
        a = (gt - t) / sc
        b = gt / sc
        return np.where(a >= 0, noise.sf(a) - noise.sf(b), noise.cdf(b) - noise.cdf(a))

    total = float(tail_mass(np.array(1.0)))
    # Far from [0, 1] (|g~|/s huge, heavy tails: gamma near 1) F(g~/s) - F((g~-1)/s) is a
    # difference of two nearly equal tail values and cancels (to 0 at g~ = 2e25, s = 4e-3,
    # gamma = 1.05).  Then integrate the density directly: the posterior density on [0, 1]
    # is proportional to p((g~ - t)/s), which varies on the scale |g~ - t| >> 1 there, so a
    # cumulative trapezoid on 20,001 points is accurate to ~1e-12 relative.
    a_far = (gt - 1.0) / sc if gt >= 1.0 else -gt / sc
    side = float(noise.sf(abs(a_far)))
    if not total > 1e-6 * side:
        grid = np.linspace(0.0, 1.0, 20001)
        logw = np.asarray(noise.logpdf((gt - grid) / sc))
        w = np.exp(logw - logw.max())
        cum = np.concatenate([[0.0], np.cumsum((w[1:] + w[:-1]) * 0.5 * (grid[1] - grid[0]))])
        if not (cum[-1] > 0 and np.isfinite(cum[-1])):
            raise InvalidParameterError(
                f"posterior mass underflows for g_tilde={gt!r}, scale={sc!r}: "
                "g~ is too far from [0,1]"
            )
        cum /= cum[-1]

        def cdf(t: np.ndarray) -> np.ndarray:
            return np.interp(t, grid, cum)
    else:

        def cdf(t: np.ndarray) -> np.ndarray:
            return tail_mass(t) / total

    # E[g] = int_0^1 (1 - cdf(t)) dt, trapezoid on a grid that is uniform on [0, 1] and,
    # in addition, sinh-spaced around g~ on the noise scale (the posterior may be a spike)
    core = gt + sc * np.sinh(np.linspace(-12.0, 12.0, 4001))
    t = np.unique(np.clip(np.concatenate([np.linspace(0.0, 1.0, 4001), core]), 0.0, 1.0))
    ct = cdf(t)
    mean = float(np.trapezoid(1.0 - ct, t))
    a = (1 - lv) / 2
    qs = np.array([a, 1 - a])
    # both quantiles at once: bracket on the grid (cdf is non-decreasing), then bisect the
    # brackets together until they stop shrinking (float resolution)
    j = np.clip(np.searchsorted(ct, qs, side="left"), 1, t.size - 1)
    lo, hi = t[j - 1].copy(), t[j].copy()
    for _ in range(80):
        mid = 0.5 * (lo + hi)
        below = cdf(mid) < qs
        lo = np.where(below, mid, lo)
        hi = np.where(below, hi, mid)
        if np.all(hi - lo <= 4 * np.spacing(np.maximum(hi, 1e-300))):
            break
    q_lo, q_hi = 0.5 * (lo + hi)
    return Posterior("exact", gt, sc, mean, (float(q_lo), float(q_hi)), lv)


def posterior_grid(
    g_tilde: Any,
    scale: Any,
    noise: NoiseDistribution,
    *,
    level: Any = 0.95,
    grid_size: int = 20001,
) -> Posterior:
    """Grid sampler of eq. (11): density on a uniform grid of [0, 1] (trapezoid rule)."""
    gt, sc, lv = _post_args(g_tilde, scale, level)
    if grid_size < 3:
        raise InvalidParameterError(f"grid_size must be >= 3, got {grid_size!r}")
    grid = np.linspace(0.0, 1.0, grid_size)
    logw = noise.logpdf((gt - grid) / sc)
    w = np.exp(logw - logw.max())
    h = grid[1] - grid[0]
    cum = np.concatenate([[0.0], np.cumsum((w[1:] + w[:-1]) * h / 2)])
    z = cum[-1]
    dens = w / z
    cdf = cum / z
    a = (1 - lv) / 2
    lo = float(np.interp(a, cdf, grid))
    hi = float(np.interp(1 - a, cdf, grid))
    mean = float(np.trapezoid(grid * dens, grid))
    return Posterior("grid", gt, sc, mean, (lo, hi), lv, grid=grid, density=dens)


def posterior_importance(
    g_tilde: Any,
    scale: Any,
    noise: NoiseDistribution,
    rng: np.random.Generator,
    *,
    level: Any = 0.95,
    n_proposals: int = 200_000,
    n_draws: int = 100_000,
) -> Posterior:
    """Self-normalised importance resampling (Section 3): Uniform(0, 1) proposals, weights
    proportional to p(g~ | g) = noise.pdf((g~ - g)/s)/s, multinomial resampling."""
    rng = check_rng(rng)
    gt, sc, lv = _post_args(g_tilde, scale, level)
    if n_proposals < 2 or n_draws < 2:
        raise InvalidParameterError(
            f"n_proposals and n_draws must be >= 2, got {n_proposals!r}, {n_draws!r}"
        )
    props = rng.random(n_proposals)
    logw = noise.logpdf((gt - props) / sc)
    w = np.exp(logw - logw.max())
    w /= w.sum()
    draws = rng.choice(props, size=n_draws, replace=True, p=w)
    a = (1 - lv) / 2
    lo, hi = np.quantile(draws, [a, 1 - a])
    return Posterior(
        "importance", gt, sc, float(draws.mean()), (float(lo), float(hi)), lv, draws=draws
    )
