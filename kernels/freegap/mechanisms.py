"""Noisy Max, Noisy-Top-K-with-Gap, Sparse Vector and Adaptive-Sparse-Vector-with-Gap.

Paper: Ding, Wang, Zhang & Kifer, "Free Gap Information from the Differentially Private
Sparse Vector and Noisy Max Mechanisms" (``papers/ding-et-al-free-gap-...md``), Algorithms 1
and 2, Theorems 2-4, Theorem 3 / Corollary 1 (BLUE), Section 6.2 and Lemma 5; classical
Sparse Vector after Lyu, Su & Li (2017, "Understanding the Sparse Vector Technique", Alg. 1)
and Dwork & Roth (2014, AboveThreshold with c answers).

Every printed equation was re-derived before being coded; where the printed text is wrong or
ambiguous the code follows the derivation and the docstring says so.  Summary of the
discrepancies found (details at each function):

* Appendix A.2 states ``E(theta theta^T)^{-1}_{ij} = (k-i) j / (k(1+lambda) sigma^2)`` "for all
  1 <= i <= j <= k-1": the index condition is reversed.  The displayed matrix (and the
  inverse of the tridiagonal matrix) is ``(k - max(i,j)) min(i,j) / k``; Theorem 3's X and Y
  are nevertheless correct (checked against generalised least squares, :func:`blue_top_k_matrix`).
* Section 6.2 / Lemma 5 say the gap noise of Algorithm 2 is ``eta_i - eta`` with scales
  ``1/epsilon_0`` and ``1/epsilon_*``; Algorithm 2 (line 7) draws the query noise with scale
  ``2/epsilon_*``.  Lemma 5 (which is correct as a statement about Laplace scales 1/e0, 1/e*)
  must be applied with ``epsilon_*/2`` for general queries (``epsilon_*`` only for the
  monotone variant of footnote 6): :func:`adaptive_gap_noise_rates`.
* Algorithm 2, line 8 tests ``> sigma`` while the text and the proof of Lemma 4 use ``>=``
  (a null event for continuous noise; the code follows line 8).
* Algorithm 2, line 16 (``if cost > eps - eps1 then break``) guarantees ``cost <= eps`` and at
  least k answers in exact arithmetic (proof of Theorem 4), but *as printed, in IEEE doubles*
  it can stop one answer early: e.g. eps = 0.7, k = 6, theta = 1/(1 + k^(2/3)) (the paper's
  own setting) gives only 5 middle-branch answers.  The cores here evaluate the rule exactly
  on integer budget units (see :func:`adaptive_svt_with_gap_core`); the printed float rule is
  kept as ``stopping="float-printed"`` for audits.  It can also answer at most 2k - 1 (not 2k)
  top-branch queries: "twice as many" in Section 6.1 is 2k - 1.
* The variances used in Sections 5.2 / 6.2 (e.g. ``Var(g) = 16 k^2/eps^2``) treat the selected
  indices as fixed.  Conditional on being selected, the noise is not zero-mean (gaps are
  positive; a query near the threshold passes because its noise was high), so the BLUE and
  the Section 6.2 combination are unbiased, and the MSE ratios of Corollary 1 / Section 6.2
  exact, only when selection is (essentially) deterministic - queries separated by many noise
  scales.  ``audit/freegap_sim.py`` measures both regimes.
* Section 6.2 combines each gap with its measurement separately; the gaps share the threshold
  noise ``-eta``, so for k >= 2 this is not the BLUE of the selected vector:
  :func:`svt_gap_blue_joint` is (lower variance, same unbiasedness assumptions).

Conventions.  Queries have sensitivity 1 (``|q_i(D) - q_i(D')| <= 1``); *monotone* means
counting-style queries whose differences all have the same sign (Definition 7).  Laplace
scale b means density ``exp(-|z|/b)/(2b)`` (numpy ``Generator.laplace(0, b)``).  Ties in
argmax are broken towards the smallest index (``numpy.argmax`` / a stable sort); under
continuous noise they have probability 0 (Section 5.1, "Implementation issues").

Deterministic cores take the noise explicitly so that a counterexample (e.g. from Z3) can be
replayed exactly; the samplers draw ``size`` independent runs at once, in a documented order
(so a test can regenerate the draws and replay them through the cores).

Sampler output encodings (all 2-D float64 arrays, one row per run):

* :func:`sample_noisy_max`: shape (size, 1), the selected index.
* :func:`sample_top_k_with_gap`: shape (size, 2k): columns 0..k-1 the indices j_1..j_k (in
  descending noisy value), columns k..2k-1 the gaps g_1..g_k.
* :func:`sample_sparse_vector`: shape (size, n): per query, NaN = not reached (halted), 0.0 = ⊥,
  1.0 = ⊤.
* :func:`sample_svt_with_gap`, :func:`sample_adaptive_svt_with_gap`: shape (size, 2n): columns
  0..n-1 the released value per query (NaN = not reached, 0.0 = ⊥, the gap for ⊤), columns
  n..2n-1 the branch code (NaN = not reached, 0 = ⊥, 1 = middle branch (budget eps1),
  2 = top branch (budget eps2)).

Snapped output (opt-in, ours; not in the paper).  In float64 the released gaps leak through
their last mantissa bits (``proofs/freegap_float.py``, claim ``freegap.float-bits``: e.g.
with all answers 1 every noisy answer fl(1 + eta) is a multiple of 2^-53, so a gap in
[1/4, 1/2) always ends in bit 0).  The samplers of Top-K-with-Gap, SVT-with-Gap and
Adaptive-SVT-with-Gap therefore take a keyword-only ``snap`` (a
:class:`kernels.gini.release.SnapGrid`, e.g. from :func:`gap_snap_grid`): the released real
numbers (the gaps only - never the indices, branch codes, the 0.0 of ⊥ or the NaN of "not
reached") are clamped to [-B, B] and rounded to the grid ``step = B 2^-40``
(:func:`snap_gaps`, reusing :func:`kernels.gini.release.snap`; Mironov 2012).  The default
``snap=None`` is the paper's mechanism as printed.  Clamping and rounding are
post-processing of the real-number output, so every real-number privacy claim is unchanged;
that the float64 snapped output behaves like the snapped real-number one is a mitigation with
a stated slack (see :func:`kernels.gini.release.snap`), checked empirically by
``freegap.float-bits.<mechanism>-snapped``, not proved.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from scipy import optimize

from kernels.errors import InvalidKError, InvalidParameterError, NonFiniteError, NotNumericError
from kernels.gini.release import SNAP_HEADROOM_BITS, SnapGrid
from kernels.gini.release import snap as _release_snap
from kernels.validate import as_data, as_scalar, check_epsilon, check_int, check_rng, check_size
from kernels.validate import describe as _describe

__all__ = [
    "BOTTOM",
    "MIDDLE",
    "TOP",
    "AdaptiveBudgets",
    "adaptive_budgets",
    "adaptive_from_noise",
    "adaptive_gap_noise_rates",
    "adaptive_svt_with_gap_core",
    "blue_top_k",
    "blue_top_k_matrix",
    "blue_top_k_printed",
    "blue_top_k_rows",
    "blue_variance_ratio",
    "gap_lower_confidence_bound",
    "gap_lower_tail_prob",
    "gap_snap_grid",
    "noisy_max_core",
    "recommended_theta",
    "sample_adaptive_svt_with_gap",
    "sample_noisy_max",
    "sample_sparse_vector",
    "sample_svt_with_gap",
    "sample_top_k_with_gap",
    "snap_gaps",
    "sparse_vector_core",
    "svt_gap_blue_joint",
    "svt_gap_combine",
    "svt_gap_variance",
    "svt_measure_ratio_printed",
    "svt_pattern_from_noise",
    "top_k_noise_scale",
    "top_k_with_gap_core",
    "as_noise",
    "as_vector",
    "check_theta",
]

#: branch codes of the Sparse-Vector-with-Gap samplers (code block of the output)
BOTTOM, MIDDLE, TOP = 0, 1, 2

Stopping = Literal["exact", "float-printed"]


# ------------------------------------------------------------------------------ validation
def as_vector(x: Any, name: str, *, min_n: int = 1) -> np.ndarray:
    """A float64 copy of 1-D finite real data (order kept); named errors otherwise."""
    return as_data(x, name, min_n=min_n, sort=False)


def as_noise(x: Any, n: int, name: str) -> np.ndarray:
    """Caller-supplied noise: a float64 vector of exactly ``n`` finite values."""
    arr = as_vector(x, name, min_n=0)
    if arr.size != n:
        raise InvalidParameterError(
            f"{name} must have one value per query (n = {n}), got {arr.size} values"
        )
    return arr


def check_theta(theta: Any) -> float:
    """The threshold share of the budget, a float in (0, 1)."""
    t = as_scalar(theta, "theta")
    if not 0.0 < t < 1.0:
        raise InvalidParameterError(
            f"theta (threshold share of the budget) must be in (0, 1), got {_describe(theta)}"
        )
    return t


def _check_level(level: Any) -> float:
    lv = as_scalar(level, "level")
    if not 0.5 <= lv < 1.0:
        raise InvalidParameterError(f"level must be in [0.5, 1), got {_describe(level)}")
    return lv


# ------------------------------------------------------------------------------ snapping
#: the clamp covers this many noise scales beyond the public bound on the answers
GAP_SNAP_TAIL_SCALES = 64.0


def _is_power_of_two(x: float) -> bool:
    return math.isfinite(x) and x > 0 and math.frexp(x)[0] == 0.5


def gap_snap_grid(noise_scale: Any, query_bound: Any = 0.0) -> SnapGrid:
    """Data-independent snapping grid for the released gaps of a free-gap mechanism.

    ``B = 2^ceil(log2(2 query_bound + 64 noise_scale))`` and ``step = 2^SNAP_HEADROOM_BITS
    ulp(B) = B 2^-40`` (as :func:`kernels.gini.release.snap_grid`).  ``noise_scale`` is the largest
    Laplace scale of the mechanism (query, threshold or top-branch noise) and
    ``query_bound`` a *public* bound on |q_i| (and |T|); both must be fixed before seeing the
    data.  Why this B: a gap is (q_i - q_j) + (noise difference) with |q_i - q_j| <= 2
    query_bound (|q_i - T| likewise), and a difference of two Laplace(b) draws exceeds 64 b in
    absolute value with probability below e^-31, so clamping rarely binds (when it does it is
    still post-processing: it only costs accuracy).  The intermediate sums q_i + eta_i stay
    below ~B as well, so their float rounding error (<= ulp(B)) is at most step / 4096: the
    float artefacts move cell boundaries only by a tiny fraction of a cell.  Answers far above
    the stated bound make the clamp bind and the headroom shrink - pass a real bound."""
    b = as_scalar(noise_scale, "noise_scale")
    m = as_scalar(query_bound, "query_bound")
    if b <= 0:
        raise InvalidParameterError(f"noise_scale must be > 0, got {_describe(noise_scale)}")
    if m < 0:
        raise InvalidParameterError(f"query_bound must be >= 0, got {_describe(query_bound)}")
    clamp = 2.0 ** math.ceil(math.log2(2.0 * m + GAP_SNAP_TAIL_SCALES * b))
    return SnapGrid(clamp, math.ulp(clamp) * 2.0**SNAP_HEADROOM_BITS)


def _check_snap(grid: Any) -> SnapGrid | None:
    if grid is None:
        return None
    if not isinstance(grid, SnapGrid):
        raise InvalidParameterError(
            f"snap must be None or a kernels.gini.release.SnapGrid, got {_describe(grid)}")
    if not (_is_power_of_two(grid.clamp) and _is_power_of_two(grid.step)
            and grid.step < grid.clamp):
        raise InvalidParameterError(
            f"snap grid needs power-of-two clamp > step, got clamp {grid.clamp!r}, "
            f"step {grid.step!r}")
    return grid


def snap_gaps(values: Any, grid: SnapGrid) -> np.ndarray:
    """Released real numbers clamped to [-B, B] and rounded to multiples of ``grid.step``
    (:func:`kernels.gini.release.snap`); NaN stays NaN and 0.0 stays 0.0.  Apply it to gap
    columns only (indices and branch codes are not real-number releases)."""
    g = _check_snap(grid)
    assert g is not None
    return _release_snap(values, g)


# ------------------------------------------------------------------------------ Noisy Max
def noisy_max_core(q: Any, eta: Any) -> int:
    """Noisy Max (Dwork & Roth 2014, Report Noisy Max; Algorithm 1 with k = 1 without the gap):
    the index of the largest ``q_i + eta_i``; ties go to the smallest index."""
    qa = as_vector(q, "q")
    noisy = qa + as_noise(eta, qa.size, "eta")
    return int(np.argmax(noisy))


def top_k_with_gap_core(q: Any, eta: Any, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Noisy-Top-K-with-Gap (Algorithm 1, lines 4-8) with explicit noise ``eta``.

    ``q~ = q + eta``; ``(j_1, ..., j_{k+1})`` are the indices of the k + 1 largest noisy values
    in descending order (ties: smaller index first; line 5's ``argmax_{k+1}``), and
    ``g_i = q~_{j_i} - q~_{j_{i+1}}`` for i = 1..k (line 7).  Returns ``(indices j_1..j_k as an
    int array, gaps g_1..g_k as a float array)``.

    The algorithm needs k + 1 items (g_k compares with the best unselected query), so
    ``1 <= k <= n - 1`` (the paper does not state this; ``InvalidKError`` otherwise).
    """
    qa = as_vector(q, "q", min_n=2)
    kk = check_int(k, "k", low=1, high=qa.size - 1, error=InvalidKError)
    noisy = qa + as_noise(eta, qa.size, "eta")
    order = np.argsort(-noisy, kind="stable")[: kk + 1]
    vals = noisy[order]
    return order[:kk].astype(np.int64), (vals[:-1] - vals[1:]).astype(np.float64)


def top_k_noise_scale(k: int, epsilon: float, *, monotone: bool = False) -> float:
    """Laplace scale of Algorithm 1 for an epsilon-DP release: ``2k/eps`` (line 3, Theorem 2)
    or ``k/eps`` for monotone (counting) queries.

    Theorem 2 says Algorithm 1 *with Lap(2k/eps)* is eps/2-DP for counting queries; rescaled,
    Lap(k/eps) gives eps-DP (its alignment cost is (eps/k) * sum_{i in I} 1 = eps, re-derived
    from the monotone case of the proof).  ``Var(q~_a - q~_b) = 2 * 2 b^2 = 16 k^2/eps^2`` for
    the general scale, ``4 k^2/eps^2`` for the monotone one (fixed indices)."""
    kk = check_int(k, "k", low=1, error=InvalidKError)
    eps = check_epsilon(epsilon)
    return (kk if monotone else 2.0 * kk) / eps


def _chunks(size: int, n: int, target: int = 1 << 21) -> list[tuple[int, int]]:
    step = max(1, target // max(n, 1))
    return [(a, min(size, a + step)) for a in range(0, size, step)]


def _top_k_rows(noisy: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Row-wise top-(k+1) (descending; ties: smaller index first, except exact ties at the
    (k+1)-th place when argpartition is used, a null event for continuous noise)."""
    n = noisy.shape[1]
    if n <= 4 * (k + 1) + 16:
        order = np.argsort(-noisy, axis=1, kind="stable")[:, : k + 1]
    else:
        part = np.argpartition(-noisy, k, axis=1)[:, : k + 1]
        pv = np.take_along_axis(noisy, part, axis=1)
        # sort candidates by (-value, index)
        sub = np.lexsort((part, -pv), axis=1)
        order = np.take_along_axis(part, sub, axis=1)
    vals = np.take_along_axis(noisy, order, axis=1)
    return order, vals


def sample_noisy_max(
    q: Any, epsilon: float, rng: np.random.Generator, size: int, *, monotone: bool = False
) -> np.ndarray:
    """``size`` runs of eps-DP Noisy Max: noise Lap(2/eps) (Lap(1/eps) for monotone queries).

    Draws: ``eta = rng.laplace(0, b, size=(size, n))`` (one call).  Output (size, 1) float:
    the index (ties to the smallest index)."""
    qa = as_vector(q, "q")
    eps = check_epsilon(epsilon)
    rng = check_rng(rng)
    m = check_size(size)
    b = (1.0 if monotone else 2.0) / eps
    eta = rng.laplace(0.0, b, size=(m, qa.size))
    return np.argmax(qa[None, :] + eta, axis=1).astype(np.float64)[:, None]


def sample_top_k_with_gap(
    q: Any,
    k: int,
    epsilon: float,
    rng: np.random.Generator,
    size: int,
    *,
    monotone: bool = False,
    snap: SnapGrid | None = None,
) -> np.ndarray:
    """``size`` runs of eps-DP Noisy-Top-K-with-Gap (Algorithm 1, Theorem 2).

    Noise Lap(:func:`top_k_noise_scale`) = Lap(2k/eps), or Lap(k/eps) for monotone (counting)
    queries.  Draws: ``eta = rng.laplace(0, b, size=(size, n))`` (one call).  Output (size, 2k):
    indices j_1..j_k then gaps g_1..g_k.

    ``snap`` (keyword-only, default None = the paper's mechanism as printed): a grid (e.g.
    ``gap_snap_grid(b, query_bound)``) to which the gaps - not the indices - are clamped and
    rounded (:func:`snap_gaps`): a deviation from the paper that closes the float64 low-bit
    leak (module docstring); post-processing, so Theorem 2 still applies."""
    qa = as_vector(q, "q", min_n=2)
    kk = check_int(k, "k", low=1, high=qa.size - 1, error=InvalidKError)
    b = top_k_noise_scale(kk, epsilon, monotone=monotone)
    rng = check_rng(rng)
    m = check_size(size)
    grid = _check_snap(snap)
    eta = rng.laplace(0.0, b, size=(m, qa.size))
    out = np.empty((m, 2 * kk), dtype=np.float64)
    for a, z in _chunks(m, qa.size):
        order, vals = _top_k_rows(qa[None, :] + eta[a:z], kk)
        out[a:z, :kk] = order[:, :kk]
        out[a:z, kk:] = vals[:, :-1] - vals[:, 1:]
    if grid is not None:
        out[:, kk:] = snap_gaps(out[:, kk:], grid)
    return out


# ------------------------------------------------------------------------ Sparse Vector
def sparse_vector_core(q: Any, T: float, eta: float, nu: Any, c: int) -> list[bool]:
    """Classical Sparse Vector (Lyu, Su & Li 2017, Alg. 1; Dwork & Roth's AboveThreshold run
    for c answers) with explicit noise: threshold noise ``eta`` (one number) and query noises
    ``nu`` (one per query).  Query i is answered ⊤ iff ``q_i + nu_i >= T + eta``; the run halts
    right after the c-th ⊤.  Returns one bool per processed query."""
    qa = as_vector(q, "q")
    t = as_scalar(T, "T")
    e = as_scalar(eta, "eta")
    nv = as_noise(nu, qa.size, "nu")
    cc = check_int(c, "c", low=1, error=InvalidKError)
    out: list[bool] = []
    count = 0
    for i in range(qa.size):
        above = bool(qa[i] + nv[i] >= t + e)
        out.append(above)
        if above:
            count += 1
            if count >= cc:
                break
    return out


def recommended_theta(k: int, *, monotone: bool = False) -> float:
    """Threshold share theta of the budget for the ratio 1 : (2k)^(2/3) (1 : k^(2/3) for
    monotone queries) between threshold and query budgets (Lyu et al. 2017, quoted in
    Section 6.2 and used in Section 7.3 as theta = 1/(1 + k^(2/3)))."""
    kk = check_int(k, "k", low=1, error=InvalidKError)
    r = (kk if monotone else 2.0 * kk) ** (2.0 / 3.0)
    return 1.0 / (1.0 + r)


def _svt_prep(
    q: Any, T: Any, epsilon: Any, count: Any, count_name: str, rng: Any, size: Any, theta: Any,
    monotone: bool,
) -> tuple[np.ndarray, float, float, int, np.random.Generator, int, float]:
    qa = as_vector(q, "q")
    t = as_scalar(T, "T")
    eps = check_epsilon(epsilon)
    cc = check_int(count, count_name, low=1, error=InvalidKError)
    th = recommended_theta(cc, monotone=monotone) if theta is None else check_theta(theta)
    return qa, t, eps, cc, check_rng(rng), check_size(size), th


def sample_sparse_vector(
    q: Any,
    T: float,
    epsilon: float,
    c: int,
    rng: np.random.Generator,
    size: int,
    *,
    theta: float | None = None,
    monotone: bool = False,
) -> np.ndarray:
    """``size`` runs of eps-DP classical Sparse Vector (Lyu et al. 2017, Alg. 1).

    eps1 = theta eps (threshold), eps2 = (1 - theta) eps (queries); threshold noise
    Lap(1/eps1), query noise Lap(2c/eps2) (Lap(c/eps2) for monotone queries).  ``theta=None``
    uses :func:`recommended_theta` (Lyu et al.'s Alg. 1 itself uses theta = 1/2).
    Draws: ``eta = rng.laplace(0, 1/eps1, size)`` then ``nu = rng.laplace(0, bq, (size, n))``.
    Output (size, n): NaN = not reached, 0 = ⊥, 1 = ⊤."""
    qa, t, eps, cc, rng, m, th = _svt_prep(q, T, epsilon, c, "c", rng, size, theta, monotone)
    eps1, eps2 = th * eps, (1.0 - th) * eps
    eta = rng.laplace(0.0, 1.0 / eps1, size=m)
    nu = rng.laplace(0.0, (1.0 if monotone else 2.0) * cc / eps2, size=(m, qa.size))
    return svt_pattern_from_noise(qa, t, eta, nu, cc)


def svt_pattern_from_noise(
    q: np.ndarray, T: float, eta: np.ndarray, nu: np.ndarray, c: int | None
) -> np.ndarray:
    """Vectorised classical SVT decision on given noises (rows = runs); ``c=None`` never
    halts.  Same encoding as :func:`sample_sparse_vector`.  Internal helper, also used by
    the broken variants (no validation)."""
    above = (q[None, :] + nu) >= (T + eta)[:, None]
    out = above.astype(np.float64)
    if c is not None:
        before = np.cumsum(above, axis=1) - above  # number of ⊤ strictly before position i
        out[before >= c] = np.nan
    return out


# ------------------------------------------------------------- Adaptive SVT with Gap
@dataclass(frozen=True)
class AdaptiveBudgets:
    """Budgets of Algorithm 2, line 2: eps0 = theta eps, eps1 = (1 - theta) eps / k,
    eps2 = eps1 / 2, and sigma (printed: 4 sqrt(2)/eps2 = two standard deviations of
    Lap(2/eps2), footnote 5)."""

    epsilon: float
    k: int
    theta: float
    eps0: float
    eps1: float
    eps2: float
    sigma: float


def adaptive_budgets(
    epsilon: float, k: int, theta: float, *, monotone: bool = False, sigma: float | None = None
) -> AdaptiveBudgets:
    """Line 2 of Algorithm 2.  ``sigma=None``: 4 sqrt(2)/eps2 as printed; for the monotone
    variant (footnote 6, noise Lap(1/eps2)) the paper does not restate sigma - we apply
    footnote 5's rule (two standard deviations of the top-branch noise) to the noise actually
    used: 2 sqrt(2)/eps2."""
    eps = check_epsilon(epsilon)
    kk = check_int(k, "k", low=1, error=InvalidKError)
    th = check_theta(theta)
    eps0 = th * eps
    eps1 = (1.0 - th) * eps / kk
    eps2 = eps1 / 2.0
    if sigma is None:
        sig = (2.0 if monotone else 4.0) * math.sqrt(2.0) / eps2
    else:
        if isinstance(sigma, bool) or not isinstance(sigma, (numbers.Real, np.floating)):
            raise NotNumericError(f"sigma must be a real number, got {_describe(sigma)}")
        sig = float(sigma)
        if math.isnan(sig) or sig <= 0:
            raise InvalidParameterError(f"sigma must be > 0 (+inf allowed), got {_describe(sigma)}")
    return AdaptiveBudgets(eps, kk, th, eps0, eps1, eps2, sig)


def adaptive_gap_noise_rates(
    epsilon: float, k: int, theta: float, branch: int, *, monotone: bool = False
) -> tuple[float, float]:
    """(epsilon_0, epsilon_*') to plug into Lemma 5 for a gap released by Algorithm 2 in
    ``branch`` (:data:`TOP` or :data:`MIDDLE`): the gap noise is ``eta_i - eta`` with
    eta ~ Lap(1/eps0) and eta_i ~ Lap(2/eps_*) (line 7), i.e. Lemma 5's rate is eps_*/2, not
    eps_* as Section 6.2 says; for the monotone variant (footnote 6, Lap(1/eps_*)) it is
    eps_*."""
    bud = adaptive_budgets(epsilon, k, theta, monotone=monotone)
    if branch not in (TOP, MIDDLE):
        raise InvalidParameterError(f"branch must be TOP (2) or MIDDLE (1), got {branch!r}")
    e_star = bud.eps2 if branch == TOP else bud.eps1
    return bud.eps0, (e_star if monotone else e_star / 2.0)


def _units_exceeded(units: int, k: int) -> bool:
    """Line 16 ``cost > eps - eps1`` in exact arithmetic.  cost = eps0 + eps2 * units with
    units = #top + 2 #middle, and eps - eps1 = eps0 + (k - 1) eps1 = eps0 + eps2 (2k - 2)
    (line 2: eps = eps0 + k eps1 exactly), so the test is ``units > 2k - 2``."""
    return units > 2 * k - 2


def adaptive_svt_with_gap_core(
    q: Any,
    T: float,
    eta: float,
    xi: Any,
    eta_q: Any,
    epsilon: float,
    k: int,
    theta: float,
    *,
    adaptive: bool = True,
    sigma: float | None = None,
    monotone: bool = False,
    stopping: Stopping = "exact",
) -> list[tuple[str, float | None, float]]:
    """Adaptive-Sparse-Vector-with-Gap (Algorithm 2) with explicit noise.

    ``eta``: threshold noise (line 3), ``xi[i]``: top-branch query noise, ``eta_q[i]``:
    middle-branch query noise (line 7).  For query i (line 8-15), with ``T~ = T + eta``:

    * top (line 8): ``q_i + xi_i - T~ > sigma`` -> ``("top", q_i + xi_i - T~, eps2)``;
    * middle (line 11): else ``q_i + eta_q_i - T~ >= 0`` -> ``("middle", gap, eps1)``;
    * bottom: ``("bottom", None, 0.0)``.

    Stopping (line 16, checked after every query): ``if cost > eps - eps1 then break`` with
    cost = eps0 + budgets used so far.  As printed this guarantees total cost <= eps: before a
    query is processed cost <= eps - eps1 and one answer adds at most max(eps1, eps2) = eps1
    (proof of Theorem 4) - confirmed by exhaustive enumeration in
    ``proofs/freegap_claims.py``.  It also guarantees at least k answers (each costs <= eps1)
    and at most 2k - 1 (all top-branch: after 2k - 1 of them cost = eps - eps2 > eps - eps1).
    ``stopping="exact"`` (default) evaluates the rule exactly on integer units
    (:func:`_units_exceeded`); ``stopping="float-printed"`` accumulates ``cost`` in doubles as
    printed, which can stop one answer early (module docstring).

    ``adaptive=False`` is sigma = +inf: the top branch is never taken and the algorithm is
    Sparse-Vector-with-Gap of Wang et al. (2019) (Section 6.1); ``sigma`` defaults to
    :func:`adaptive_budgets`' value.  ``monotone`` only changes the default sigma (the noise
    is given explicitly).
    """
    qa = as_vector(q, "q")
    t = as_scalar(T, "T")
    e = as_scalar(eta, "eta")
    xv = as_noise(xi, qa.size, "xi")
    ev = as_noise(eta_q, qa.size, "eta_q")
    if stopping not in ("exact", "float-printed"):
        raise InvalidParameterError(
            f"stopping must be 'exact' or 'float-printed', got {_describe(stopping)}"
        )
    bud = adaptive_budgets(epsilon, k, theta, monotone=monotone, sigma=sigma)
    sig = bud.sigma if adaptive else math.inf
    noisy_t = t + e
    out: list[tuple[str, float | None, float]] = []
    units = 0
    cost = bud.eps0
    for i in range(qa.size):
        top_gap = qa[i] + xv[i] - noisy_t
        if top_gap > sig:
            out.append(("top", float(top_gap), bud.eps2))
            units += 1
            cost += bud.eps2
        else:
            mid_gap = qa[i] + ev[i] - noisy_t
            if mid_gap >= 0:
                out.append(("middle", float(mid_gap), bud.eps1))
                units += 2
                cost += bud.eps1
            else:
                out.append(("bottom", None, 0.0))
        if stopping == "exact":
            if _units_exceeded(units, bud.k):
                break
        elif cost > bud.epsilon - bud.eps1:
            break
    return out


def sample_adaptive_svt_with_gap(
    q: Any,
    T: float,
    epsilon: float,
    k: int,
    rng: np.random.Generator,
    size: int,
    *,
    theta: float | None = None,
    sigma: float | None = None,
    monotone: bool = False,
    adaptive: bool = True,
    snap: SnapGrid | None = None,
) -> np.ndarray:
    """``size`` runs of Algorithm 2 (Theorem 4: eps-DP).

    Noise: threshold Lap(1/eps0); top-branch Lap(2/eps2), middle-branch Lap(2/eps1) (line 7),
    or Lap(1/eps2), Lap(1/eps1) for monotone queries (footnote 6).  ``theta=None`` uses
    :func:`recommended_theta`; ``sigma=None`` as in :func:`adaptive_budgets`;
    ``adaptive=False`` gives Sparse-Vector-with-Gap.  Stopping rule evaluated exactly.
    Draws, in this order: ``eta`` (size,), ``xi`` (size, n), ``eta_q`` (size, n) - all three
    even when ``adaptive=False`` (so the two variants can be coupled on the same draws).
    Output (size, 2n): gap/0/NaN values then branch codes (module docstring).

    ``snap`` (keyword-only, default None = the paper's mechanism as printed): a grid (e.g.
    :func:`gap_snap_grid` of the largest noise scale) to which the value block is clamped and
    rounded (:func:`snap_gaps`; NaN and the 0.0 of ⊥ unchanged, branch codes untouched): a
    deviation from the paper that closes the float64 low-bit leak (module docstring);
    post-processing, so Theorem 4 still applies."""
    qa, t, eps, kk, rng, m, th = _svt_prep(q, T, epsilon, k, "k", rng, size, theta, monotone)
    grid = _check_snap(snap)
    bud = adaptive_budgets(eps, kk, th, monotone=monotone, sigma=sigma)
    mult = 1.0 if monotone else 2.0
    eta = rng.laplace(0.0, 1.0 / bud.eps0, size=m)
    xi = rng.laplace(0.0, mult / bud.eps2, size=(m, qa.size))
    eta_q = rng.laplace(0.0, mult / bud.eps1, size=(m, qa.size))
    out = adaptive_from_noise(qa, t, eta, xi, eta_q, kk, bud.sigma if adaptive else math.inf)
    if grid is not None:
        out[:, : qa.size] = snap_gaps(out[:, : qa.size], grid)
    return out


def adaptive_from_noise(
    q: np.ndarray,
    T: float,
    eta: np.ndarray,
    xi: np.ndarray,
    eta_q: np.ndarray,
    k: int,
    sigma: float,
    *,
    max_units: int | None = None,
) -> np.ndarray:
    """Vectorised Algorithm 2 on given noises (rows = runs); stops when units > max_units
    (default 2k - 2, the exact line 16).  Internal helper (no validation), shared with the
    broken variants."""
    m, n = xi.shape
    limit = 2 * k - 2 if max_units is None else max_units
    out = np.full((m, 2 * n), np.nan)
    noisy_t = T + eta
    units = np.zeros(m, dtype=np.int64)
    for i in range(n):
        active = units <= limit
        if not active.any():
            break
        top_gap = q[i] + xi[:, i] - noisy_t
        mid_gap = q[i] + eta_q[:, i] - noisy_t
        top = active & (top_gap > sigma)
        mid = active & ~top & (mid_gap >= 0)
        bot = active & ~top & ~mid
        vals = out[:, i]
        codes = out[:, n + i]
        vals[top] = top_gap[top]
        vals[mid] = mid_gap[mid]
        vals[bot] = 0.0
        codes[top] = TOP
        codes[mid] = MIDDLE
        codes[bot] = BOTTOM
        units += top.astype(np.int64) + 2 * mid.astype(np.int64)
    return out


def sample_svt_with_gap(
    q: Any,
    T: float,
    epsilon: float,
    k: int,
    rng: np.random.Generator,
    size: int,
    *,
    theta: float | None = None,
    monotone: bool = False,
    snap: SnapGrid | None = None,
) -> np.ndarray:
    """Sparse-Vector-with-Gap (Wang et al. 2019; Algorithm 2 with sigma = inf): threshold
    Lap(1/eps0), query noise Lap(2/eps1) = Lap(2k/((1 - theta) eps)) (Lap(1/eps1) monotone),
    at most k ⊤ answers, each with its gap.  Same draws and encoding as
    :func:`sample_adaptive_svt_with_gap` with ``adaptive=False``; ``snap`` as there
    (default None: unsnapped, as printed)."""
    return sample_adaptive_svt_with_gap(
        q, T, epsilon, k, rng, size, theta=theta, monotone=monotone, adaptive=False, snap=snap
    )


# ------------------------------------------------------------------- BLUE (Theorem 3)
def _blue_inputs(alpha: Any, gaps: Any, lam: Any) -> tuple[np.ndarray, np.ndarray, float]:
    a = as_vector(alpha, "alpha")
    g = as_noise(gaps, a.size - 1, "gaps")
    lm = as_scalar(lam, "lam")
    if lm <= 0:
        raise InvalidParameterError(f"lam = Var(eta)/Var(xi) must be > 0, got {_describe(lam)}")
    return a, g, lm


def blue_top_k(alpha: Any, gaps: Any, lam: float) -> np.ndarray:
    """BLUE of the k selected queries from fresh measurements ``alpha`` (k values) and the
    first k - 1 gaps of Algorithm 1 (Theorem 3), by the printed linear-time algorithm:

    1. a = sum_i alpha_i, p = sum_{i=1}^{k-1} (k - i) g_i;
    2. prefix sums p_0 = 0, p_i = p_{i-1} + g_i;
    3. beta_i = (a + lam k alpha_i + p - k p_{i-1}) / ((1 + lam) k).

    ``lam = Var(eta_i)/Var(xi_i)`` (gap noise over measurement noise): 1 for counting queries
    with the budget split of Section 5.2, 4 for general queries.  Verified against
    generalised least squares (:func:`blue_top_k_matrix`) in the tests."""
    a, g, lm = _blue_inputs(alpha, gaps, lam)
    k = a.size
    total = a.sum()
    weights = np.arange(k - 1, 0, -1, dtype=np.float64)
    p = float(weights @ g) if k > 1 else 0.0
    prefix = np.concatenate(([0.0], np.cumsum(g)))  # p_0..p_{k-1}
    return (total + lm * k * a + p - k * prefix) / ((1.0 + lm) * k)


def blue_top_k_rows(alpha: Any, gaps: Any, lam: float) -> np.ndarray:
    """:func:`blue_top_k` applied to every row of ``alpha`` (R x k) and ``gaps`` (R x (k-1))
    at once (same three steps, vectorised; for simulations)."""
    a = np.asarray(alpha, dtype=np.float64)
    g = np.asarray(gaps, dtype=np.float64)
    if a.ndim != 2 or g.ndim != 2 or g.shape != (a.shape[0], a.shape[1] - 1):
        raise InvalidParameterError(
            f"alpha must be R x k and gaps R x (k-1), got shapes {a.shape} and {g.shape}"
        )
    if not (np.isfinite(a).all() and np.isfinite(g).all()):
        raise NonFiniteError("alpha and gaps must be finite")
    lm = _positive(lam, "lam")
    k = a.shape[1]
    total = a.sum(axis=1, keepdims=True)
    p = g @ np.arange(k - 1, 0, -1, dtype=np.float64)
    prefix = np.hstack([np.zeros((a.shape[0], 1)), np.cumsum(g, axis=1)])
    return (total + lm * k * a + p[:, None] - k * prefix) / ((1.0 + lm) * k)


def blue_top_k_matrix(alpha: Any, gaps: Any, lam: float) -> np.ndarray:
    """The same BLUE by generalised least squares, built only from the covariance model
    (independent of the printed X, Y): observations ``z = [alpha; g] = A q + noise`` with
    ``A = [I_k; N]`` (N the (k-1) x k first-difference matrix), ``Cov = diag(I, lam N N^T)``
    (up to the common factor Var(xi)); ``beta = (A^T C^-1 A)^-1 A^T C^-1 z``."""
    a, g, lm = _blue_inputs(alpha, gaps, lam)
    k = a.size
    if k == 1:
        return a.copy()
    n_mat = np.zeros((k - 1, k))
    idx = np.arange(k - 1)
    n_mat[idx, idx] = 1.0
    n_mat[idx, idx + 1] = -1.0
    design = np.vstack([np.eye(k), n_mat])
    cov = np.zeros((2 * k - 1, 2 * k - 1))
    cov[:k, :k] = np.eye(k)
    cov[k:, k:] = lm * (n_mat @ n_mat.T)
    cinv_a = np.linalg.solve(cov, design)
    cinv_z = np.linalg.solve(cov, np.concatenate([a, g]))
    return np.linalg.solve(design.T @ cinv_a, design.T @ cinv_z)


def blue_top_k_printed(k: int, lam: float) -> tuple[np.ndarray, np.ndarray]:
    """Theorem 3's matrices as printed: ``beta = (X alpha + Y g) / ((1 + lam) k)`` with
    X = J + lam k I (k x k) and Y_{ij} = (k - j) - k [j < i] (k x (k-1)).  Returned unscaled
    (the caller divides by (1 + lam) k)."""
    kk = check_int(k, "k", low=1, error=InvalidKError)
    lm = as_scalar(lam, "lam")
    x = np.ones((kk, kk)) + lm * kk * np.eye(kk)
    i = np.arange(1, kk + 1)[:, None]
    j = np.arange(1, kk)[None, :]
    y = (kk - j) - kk * (j < i)
    return x, y.astype(np.float64)


def blue_variance_ratio(k: int, lam: float) -> float:
    """Corollary 1: ``E|beta_i - q_i|^2 / E|alpha_i - q_i|^2 = (1 + lam k)/(k + lam k)``
    (re-derived: Var(x_i) = (k + 2 k lam + k^2 lam^2) s^2, Var(y_i) = (k^2 - k) lam s^2)."""
    kk = check_int(k, "k", low=1, error=InvalidKError)
    lm = as_scalar(lam, "lam")
    return (1.0 + lm * kk) / (kk + lm * kk)


# ------------------------------------------------------ Section 6.2: gaps + measurements
def svt_gap_variance(
    epsilon: float, k: int, theta: float | None = None, *, monotone: bool = False
) -> float:
    """Unconditional variance of a Sparse-Vector-with-Gap gap's noise ``eta_i - eta`` run at
    budget ``epsilon``: 2/eps0^2 + 2 (c/eps1)^2 with c = 2 (1 for monotone), eps0 = theta eps,
    eps1 = (1 - theta) eps / k.  With theta from :func:`recommended_theta` this is
    2 (1 + r)^3 / eps^2, r = (2k)^(2/3) (k^(2/3) monotone) - Section 6.2's
    8 (1 + r)^3 / eps_total^2 at eps = eps_total/2 (re-derived)."""
    eps = check_epsilon(epsilon)
    kk = check_int(k, "k", low=1, error=InvalidKError)
    th = recommended_theta(kk, monotone=monotone) if theta is None else check_theta(theta)
    eps0 = th * eps
    eps1 = (1.0 - th) * eps / kk
    mult = 1.0 if monotone else 2.0
    return 2.0 / eps0**2 + 2.0 * (mult / eps1) ** 2


def svt_measure_ratio_printed(k: int, *, monotone: bool = False) -> float:
    """Section 6.2: Var(beta_i)/Var(alpha_i) = (1 + r)^3 / ((1 + r)^3 + k^2) with
    r = cbrt(4 k^2) = (2k)^(2/3) (general; limit 4/5) or cbrt(k^2) (monotone; limit 1/2)."""
    kk = check_int(k, "k", low=1, error=InvalidKError)
    r = (kk * kk if monotone else 4.0 * kk * kk) ** (1.0 / 3.0)
    return (1.0 + r) ** 3 / ((1.0 + r) ** 3 + kk * kk)


def svt_gap_combine(
    alpha: Any, gamma: Any, T: float, var_alpha: float, var_gamma: float
) -> np.ndarray:
    """Section 6.2's per-query inverse-variance combination
    ``beta_i = (alpha_i/Var(alpha) + (gamma_i + T)/Var(gamma)) / (1/Var(alpha) + 1/Var(gamma))``
    of a fresh measurement ``alpha_i`` and the released gap ``gamma_i``."""
    a = as_vector(alpha, "alpha", min_n=0)
    g = as_noise(gamma, a.size, "gamma")
    t = as_scalar(T, "T")
    va = _positive(var_alpha, "var_alpha")
    vg = _positive(var_gamma, "var_gamma")
    return (a / va + (g + t) / vg) / (1.0 / va + 1.0 / vg)


def _positive(x: Any, name: str) -> float:
    v = as_scalar(x, name)
    if v <= 0:
        raise InvalidParameterError(f"{name} must be > 0, got {_describe(x)}")
    return v


def svt_gap_blue_joint(
    alpha: Any,
    gamma: Any,
    T: float,
    var_alpha: float,
    var_query: float,
    var_threshold: float,
) -> tuple[np.ndarray, np.ndarray]:
    """Joint BLUE (generalised least squares) of the selected queries from measurements
    ``alpha`` and gaps ``gamma`` (not in the paper).  Model: ``alpha = q + xi``,
    ``gamma + T = q + eta_vec - eta 1`` with Cov(xi) = var_alpha I and
    Cov(eta_vec - eta 1) = var_query I + var_threshold J (the gaps share -eta).
    Returns ``(beta, per-query variances)``.  For k = 1 it equals :func:`svt_gap_combine`."""
    a = as_vector(alpha, "alpha")
    g = as_noise(gamma, a.size, "gamma")
    t = as_scalar(T, "T")
    va = _positive(var_alpha, "var_alpha")
    vq = _positive(var_query, "var_query")
    vt = _positive(var_threshold, "var_threshold")
    k = a.size
    cg = vq * np.eye(k) + vt * np.ones((k, k))
    info = np.eye(k) / va + np.linalg.inv(cg)
    cov = np.linalg.inv(info)
    beta = cov @ (a / va + np.linalg.solve(cg, g + t))
    return beta, np.diag(cov).copy()


# ------------------------------------------------------------------------------ Lemma 5
def gap_lower_tail_prob(t: Any, eps0: float, eps_star: float) -> Any:
    """Lemma 5: ``P(eta_i - eta >= -t)`` for eta ~ Lap(1/eps0), eta_i ~ Lap(1/eps_star)
    independent, t >= 0.  Printed:

        1 - (eps0^2 e^{-eps* t} - eps*^2 e^{-eps0 t}) / (2 (eps0^2 - eps*^2))   (eps0 != eps*)
        1 - (2 + eps0 t)/4 e^{-eps0 t}                                         (eps0 == eps*)

    (re-derived; correct).  Evaluated without the cancellation of the first form near
    eps0 = eps*: with d = eps0 - eps*, tail = eps0^2 u / (2 (eps0 + eps*)) + e^{-eps0 t}/2,
    u = (e^{-eps* t} - e^{-eps0 t})/d (-> t e^{-eps0 t} as d -> 0), continuous across d = 0.
    Mind the scales: for Algorithm 2's gaps use :func:`adaptive_gap_noise_rates`.
    Scalar t gives a float, array t an array."""
    a = check_epsilon(eps0, "eps0")
    b = check_epsilon(eps_star, "eps_star")
    tt = np.asarray(t, dtype=np.float64)
    if np.isnan(tt).any() or (tt < 0).any():
        raise InvalidParameterError(f"t must be >= 0 (and not NaN), got {t!r}")
    d = a - b
    ea = np.exp(-a * tt)
    if d == 0.0:
        u = tt * ea
    elif d > 0:
        u = np.exp(-b * tt) * (-np.expm1(-d * tt)) / d
    else:
        u = ea * np.expm1(d * tt) / d
    with np.errstate(invalid="ignore"):
        u = np.where(np.isinf(tt), 0.0, u)
    tail = a * a * u / (2.0 * (a + b)) + ea / 2.0
    res = 1.0 - tail
    return float(res) if res.ndim == 0 else res


def gap_lower_confidence_bound(level: float, eps0: float, eps_star: float) -> float:
    """t_level with ``P(eta_i - eta >= -t_level) = level`` (Lemma 5; Section 6.2's lower
    confidence bound ``q_i >= gamma_i + T - t_level``), ``level`` in [0.5, 1).

    Coverage caveat (ours): the probability is over the noise of a *fixed* query; conditional
    on the query having been released (gap >= 0) the coverage is lower for queries near the
    threshold (for q_i = T it is 2 level - 1).  Solved with Brent's method to ~1e-12."""
    lv = _check_level(level)
    a = check_epsilon(eps0, "eps0")
    b = check_epsilon(eps_star, "eps_star")
    if lv == 0.5:
        return 0.0
    hi = 1.0 / min(a, b)
    while gap_lower_tail_prob(hi, a, b) < lv:
        hi *= 2.0
    return float(
        optimize.brentq(lambda x: gap_lower_tail_prob(x, a, b) - lv, 0.0, hi, xtol=1e-14,
                        rtol=1e-13, maxiter=500)
    )
