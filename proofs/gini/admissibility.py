"""Noise admissibility: which (alpha, beta) make density (10) epsilon-DP in the smooth-
sensitivity framework (Lan & Reiter 2025, Section 2.3, eqs. (8)-(10), Algorithm 3).

The release is g~ = g(X) + (S(X)/alpha) Z with Z ~ p(z) = c/(1 + |z|^gamma) (eqs. 9-10) and
S a beta-smooth upper bound on the local sensitivity (eq. 8, Definition 2.1).  For
neighbours X, X' write S(X') = e^lambda S(X) and delta = (g(X) - g(X')) alpha/S(X).  With
z = alpha (y - g(X))/S(X) the log-ratio of the two output densities at y is

    loss(z; lambda, delta) = lambda + log(1 + e^{-lambda gamma} |z + delta|^gamma)
                                    - log(1 + |z|^gamma)                           (L)

(the form of the ``kernels/release.py`` docstring).  Which (lambda, delta) can occur:
|lambda| <= beta (beta-smoothness), and |g(X) - g(X')| <= LS(X) <= S(X) and also
<= LS(X') <= S(X') (X is a neighbour of X' too), so |delta| <= alpha min(1, e^lambda).
Three parameter sets are reported:

* **attainable** (``whole``, the verdict): |lambda| <= beta, |delta| <= alpha min(1, e^lambda).
  This set is closed under exchanging X and X' (that maps (z, lambda, delta) to
  (e^{-lambda}(z + delta), -lambda, -e^{-lambda} delta) and loss to -loss), so its sup of
  loss equals its sup of |loss|: the exact worst privacy loss of the framework for any
  query f and any beta-smooth S >= LS.  ``whole <= epsilon`` proves epsilon-DP of every
  such release; ``whole > epsilon`` exhibits (lambda, delta, z) that some (f, S) pair
  satisfying the framework's hypotheses realises (whether the Gini release realises it is
  the exact-loss search's question, :mod:`audit.privacy.exact_loss`).
* **box** (``whole_box``): sup |loss| over the box |lambda| <= beta, |delta| <= alpha (the
  set the proof (*) of ``kernels/release.py`` covers; :func:`kernels.gini.release.loss_bound`
  must bound it).
* **box, signed** (``whole_box_signed``): sup loss (not |loss|) over the box — the figure
  quoted in the ``kernels/release.py`` docstring.

Also: the *sliding* loss sup_{|Delta| <= alpha, z} |log p(z) - log p(z + Delta)| (lambda = 0)
and the *dilation* loss sup_{|lambda| <= beta, z} |lambda + log p(z) - log p(e^{-lambda} z)|
(delta = 0: the output b Z against e^lambda b Z, densities p(y/b)/b and
p(y/(e^lambda b))/(e^lambda b)).

Derivation of the inner sup (ours).  Fix lambda and m >= 0 and put A = e^{-lambda gamma}.
For fixed z the worst delta in [-m, m] for loss is delta = sign(z) m (loss grows with
|z + delta|), and z >= 0 loses nothing (z -> -z, delta -> -delta), so
sup_{z, |delta| <= m} loss = sup_{z >= 0} M(z), M(z) = lambda + log(1 + A (z+m)^gamma)
- log(1 + z^gamma).  Then

    sign M'(z) = sign(G(z)),  G(z) = z^{1-gamma} - e^{lambda gamma} (z+m)^{1-gamma} - m,

(clear denominators in M'(z) and divide by A z^{gamma-1} (z+m)^{gamma-1} > 0).  For m > 0,
G -> +inf as z -> 0+ and G -> -m < 0 as z -> inf; G is decreasing where
1 + m/z > e^lambda and negative beyond (it increases to 0 from below there when
lambda > 0), so G has exactly one zero z* and sup_z M = M(z*) (an interior maximum, never at
z = inf).  For m = 0, M is monotone in z^gamma: sup = max(lambda, -lambda (gamma - 1)), at
z = 0 or as z -> inf.  Consequences: the sliding loss is M(z*) at lambda = 0, m = alpha; the
dilation loss is beta max(1, gamma - 1) exactly; for fixed z, delta the loss (L) is convex in
lambda (second derivative gamma^2 u/(1+u)^2, u = A|z+delta|^gamma), hence so is its sup
over z and |delta| <= m, and on a lambda-range with fixed m the maximum is at an endpoint.
Where m depends on lambda (m = alpha e^lambda) the sup over lambda is found on a grid of
``lam_grid`` points plus a bounded Brent refinement, and bounded *above* by the grid maximum
plus Lip * h/2 with Lip = max(1, gamma-1) + e^{2 beta} alpha (gamma-1)^{1-1/gamma} (the
loss is max(1, gamma-1)-Lipschitz in lambda and e^{-lambda}(gamma-1)^{1-1/gamma}-Lipschitz
in delta, and |dm/dlambda| <= alpha e^beta) and a float slack of 1e-12.

Precision.  The root z* is found in float (Brent, in u = log z: for gamma near 1 the
optimum can lie at z ~ e^{+-1000}) and refined with ``mpmath.findroot`` at 60 digits; the
loss at the maximiser is evaluated at 30 and 60 digits, which must agree to 1e-25
(relative to max(1, |loss|)); the reported float ``value_up`` is the 60-digit value plus
that tolerance, rounded UP to the next double (never below the real value at that point).
A verdict ``dp`` needs the rigorous upper figure <= epsilon; ``not-dp`` needs the certified
attained value (rounded DOWN) > epsilon; anything else is ``inconclusive``.

Choices of (alpha, beta) (all proportional to epsilon; the losses are not linear in
epsilon, so every figure is for the epsilon given, default 1):

* ``alg3`` — beta = eps/(2(gamma+1)) (Algorithm 3, line 1), alpha = eps/(4 gamma)
  (Section 2.3); what ``kernels.gini.release`` uses by default.
* ``section23`` — alpha = eps/(4 gamma), beta = eps/gamma (Section 2.3, text after eq. 10,
  attributed there to Nissim, Raskhodnikova & Smith 2007; Theorem 4.5 also takes
  beta = eps/gamma).
* ``calibrated`` — ``kernels.gini.release``'s own constants (not in the paper).
* ``alg3-equal`` — alpha = beta = eps/(2(gamma+1)): Algorithm 3 states no alpha; this is the
  reading that uses its beta constant for both (a reading, not printed in the paper).

NRS 2007 itself was not available to this audit; its constants enter only through the
paper's attribution (``section23``).
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np
from scipy.optimize import minimize_scalar

from audit import falsifiability
from audit.findings import Finding, Method, Verdict, counterexample_document
from audit.privacy.exact_loss import check_dps
from audit.rounding import float_down, float_up
from kernels.errors import InvalidParameterError
from kernels.gini.release import loss_bound, noise_constants
from kernels.gini.validate import check_gamma
from kernels.validate import check_epsilon
from proofs.gini.noise_law import ZSup, sup_loss_fixed, sup_z

__all__ = [
    "CHOICES",
    "CHOICE_SOURCES",
    "DEFAULT_GAMMAS",
    "DPS",
    "AdmissibilityRow",
    "AdmissibilityTable",
    "LossPoint",
    "admissibility_findings",
    "admissibility_row",
    "admissibility_table",
    "admissible",
    "choice_constants",
    "loss_at",
    "replay_admissibility",
    "sup_loss_fixed",
]

CHOICES: tuple[str, ...] = ("alg3", "section23", "calibrated", "alg3-equal")
CHOICE_SOURCES: dict[str, str] = {
    "alg3": "Lan & Reiter 2025, Algorithm 3 line 1 (beta = eps/(2(gamma+1))) with "
    "alpha = eps/(4 gamma) from Section 2.3",
    "section23": "Lan & Reiter 2025, Section 2.3 after eq. (10) (alpha = eps/(4 gamma), "
    "beta = eps/gamma, attributed to Nissim, Raskhodnikova & Smith 2007); Theorem 4.5 also "
    "uses beta = eps/gamma",
    "calibrated": "dpaudit kernels.gini.release (ours): beta max(1, gamma-1) = "
    "alpha (gamma-1)^(1-1/gamma) = eps/2 (1 - 1e-9)",
    "alg3-equal": "reading of Algorithm 3 (which states no alpha): alpha = beta = "
    "eps/(2(gamma+1))",
}
#: gamma grid on (1, 20]: points near 1, the paper's gamma = 2, and up to 20
DEFAULT_GAMMAS: tuple[float, ...] = (
    1.01, 1.05, 1.1, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0,
    12.0, 14.0, 16.0, 18.0, 20.0,
)
#: the two mpmath precisions (decimal digits) of the certification step
DPS: tuple[int, int] = (30, 60)
_AGREE = mpmath.mpf(10) ** -25  # required agreement of the two precisions (relative to max(1,|v|))
_SLACK = 1e-12  # float slack added to grid-based upper bounds


# ----------------------------------------------------------------------------- constants
def choice_constants(epsilon: Any, gamma: Any, choice: str) -> tuple[float, float]:
    """(alpha, beta) for ``choice`` (see the module docstring); validates its inputs."""
    eps = check_epsilon(epsilon)
    g = check_gamma(gamma)
    if choice in ("alg3", "section23", "calibrated"):
        c = noise_constants(eps, g, choice)  # type: ignore[arg-type]
        return c.alpha, c.beta
    if choice == "alg3-equal":
        v = eps / (2.0 * (g + 1.0))
        return v, v
    raise InvalidParameterError(f"choice must be one of {CHOICES}, got {choice!r}")


# ------------------------------------------------------------------- mpmath certification
def _loss_mp(g: Any, lam: Any, delta: Any, u: Any, at: str) -> Any:
    """loss (L) at z = e^u (or the limit z -> inf / z = 0) in the current mpmath precision."""
    if at == "inf":
        return lam * (1 - g)
    if at == "zero":
        z = mpmath.mpf(0)
    else:
        z = mpmath.exp(u)
    t1 = mpmath.exp(-lam * g) * mpmath.power(abs(z + delta), g)
    return lam + mpmath.log1p(t1) - mpmath.log1p(mpmath.power(z, g))


def _refine_u_mp(g: Any, lam: Any, m: Any, u0: float) -> Any:
    """The root of G in u = log z at the current precision (secant from the float root)."""

    def G(u: Any) -> Any:
        z = mpmath.exp(u)
        return mpmath.power(z, 1 - g) - mpmath.exp(lam * g) * mpmath.power(z + m, 1 - g) - m

    try:
        r = mpmath.findroot(G, mpmath.mpf(u0), tol=mpmath.mpf(10) ** (-(mpmath.mp.dps - 5)))
        if abs(r - u0) <= 1e-6 * max(1.0, abs(u0)):
            return r
    except (ValueError, ZeroDivisionError):
        pass
    return mpmath.mpf(u0)


@dataclass(frozen=True)
class LossPoint:
    """A certified loss value and where it is attained.

    ``value_mp`` (25 significant digits, 60-digit evaluation) is the loss (L) at
    (``lam``, ``delta``, z = e^``log_z``) — or its limit when ``at == "inf"`` (z -> inf) —
    and ``value_up`` / ``value_down`` bracket it by the float next above / below after a
    1e-25 relative allowance (rounding UP / DOWN).  ``certified``: the 30- and 60-digit
    evaluations agree to that allowance.  ``value`` is the nearest float, for tables.
    """

    value: float
    value_up: float
    value_down: float
    value_mp: str
    lam: float
    delta: float
    log_z: float | None
    at: str
    certified: bool
    dps: tuple[int, int] = DPS

    @property
    def z(self) -> float:
        if self.at == "inf":
            return math.inf
        if self.at == "zero" or self.log_z is None:
            return 0.0
        return math.exp(self.log_z) if self.log_z < 709 else math.inf

    def as_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["z"] = self.z
        return d


def _certify(g: float, lam: float, m: float, zs: ZSup, dps: tuple[int, int] = DPS) -> LossPoint:
    """Evaluate (L) at the maximiser of :func:`sup_z` at two precisions, round up/down."""
    u_ref = None
    if zs.at == "interior":
        assert zs.u is not None
        with mpmath.workdps(max(dps)):
            u_ref = _refine_u_mp(mpmath.mpf(g), mpmath.mpf(lam), mpmath.mpf(m), zs.u)
    vals = []
    for d in dps:
        with mpmath.workdps(d):
            vals.append(_loss_mp(mpmath.mpf(g), mpmath.mpf(lam), mpmath.mpf(m), u_ref, zs.at))
    with mpmath.workdps(max(dps) + 10):
        hi = vals[-1]
        tol = _AGREE * max(mpmath.mpf(1), abs(hi))
        ok = abs(vals[0] - hi) <= tol
        up = float_up(hi + tol)
        down = float_down(hi - tol)
        text = mpmath.nstr(hi, 25)
    log_z = float(u_ref) if u_ref is not None else None
    return LossPoint(float(hi), up, down, text, float(lam), float(m), log_z, zs.at, bool(ok),
                     tuple(dps))  # type: ignore[arg-type]




def loss_at(gamma: Any, lam: float, delta: float, z: float, dps: int = 60) -> Any:
    """loss (L) at the exact float point (z, lambda, delta), as an mpmath value at ``dps``
    digits (z = inf gives the limit lambda (1 - gamma)).  Used by the replayer and tests."""
    g = check_gamma(gamma)
    with mpmath.workdps(dps):
        gm, lm_ = mpmath.mpf(g), mpmath.mpf(lam)
        if math.isinf(z):
            return +(lm_ * (1 - gm))
        zz = mpmath.mpf(z)
        t1 = mpmath.exp(-lm_ * gm) * mpmath.power(abs(zz + mpmath.mpf(delta)), gm)
        return +(lm_ + mpmath.log1p(t1) - mpmath.log1p(mpmath.power(abs(zz), gm)))


# -------------------------------------------------------------------- sup over lambda
@dataclass(frozen=True)
class _LamSup:
    value: float  # attained (float) at the best lambda
    upper: float  # rigorous (up to float rounding) upper bound on the sup over the range
    lam: float
    m: float
    zs: ZSup


def _sup_lambda_fixed_m(g: float, lams: Sequence[float], m: float) -> _LamSup:
    """Convex in lambda at fixed m: the max over an interval is at an endpoint."""
    best = None
    for lam in lams:
        zs = sup_z(g, lam, m)
        if best is None or zs.value > best.value:
            best = _LamSup(zs.value, zs.value + _SLACK * max(1.0, abs(zs.value)), lam, m, zs)
    assert best is not None
    return best


def _sup_lambda_exp_m(g: float, lo: float, hi: float, alpha: float, beta: float,
                      n: int) -> _LamSup:
    """sup over lambda in [lo, hi] of sup_z loss with m = alpha e^lambda (grid + Brent)."""
    lams = np.linspace(lo, hi, n)
    vals = [sup_z(g, float(lam), alpha * math.exp(float(lam))).value for lam in lams]
    j = int(np.argmax(vals))
    h = (hi - lo) / (n - 1)
    lip = max(1.0, g - 1.0) + math.exp(2.0 * beta) * alpha * (g - 1.0) ** (1.0 - 1.0 / g)
    upper = max(vals) + lip * h / 2.0
    upper += _SLACK * max(1.0, abs(upper))
    a, b = float(lams[max(j - 1, 0)]), float(lams[min(j + 1, n - 1)])
    best_lam, best_val = float(lams[j]), vals[j]
    if b > a:
        res = minimize_scalar(
            lambda t: -sup_z(g, t, alpha * math.exp(t)).value,
            bounds=(a, b), method="bounded", options={"xatol": 1e-12 * max(1.0, beta)},
        )
        if -res.fun > best_val:
            best_lam, best_val = float(res.x), float(-res.fun)
    m = alpha * math.exp(best_lam)
    return _LamSup(best_val, upper, best_lam, m, sup_z(g, best_lam, m))


# ---------------------------------------------------------------------------- rows
@dataclass(frozen=True)
class AdmissibilityRow:
    """All figures for one (choice, epsilon, gamma); losses in nats, ``*_ratio`` = loss/eps.

    ``verdict``: "dp" (``whole_upper`` <= epsilon: every release with these constants is
    epsilon-DP), "not-dp" (the certified attained ``whole`` value, rounded down, exceeds
    epsilon), or "inconclusive".
    """

    choice: str
    epsilon: float
    gamma: float
    alpha: float
    beta: float
    sliding: LossPoint
    dilation: LossPoint
    whole: LossPoint
    whole_upper: float
    whole_box: LossPoint
    whole_box_upper: float
    whole_box_signed: LossPoint
    loss_bound: float
    verdict: str
    lam_grid: int
    duration_s: float = field(default=0.0, compare=False)

    @property
    def dp(self) -> bool | None:
        return {"dp": True, "not-dp": False}.get(self.verdict)

    def ratios(self) -> dict[str, float]:
        e = self.epsilon
        return {
            "sliding": self.sliding.value_up / e,
            "dilation": self.dilation.value_up / e,
            "whole": self.whole.value_up / e,
            "whole_upper": self.whole_upper / e,
            "whole_box": self.whole_box.value_up / e,
            "whole_box_signed": self.whole_box_signed.value_up / e,
            "loss_bound": self.loss_bound / e,
        }

    def as_dict(self) -> dict[str, Any]:
        """A flat, JSON-able row for a table (losses rounded up; witnesses as dicts)."""
        return {
            "choice": self.choice,
            "epsilon": self.epsilon,
            "gamma": self.gamma,
            "alpha": self.alpha,
            "beta": self.beta,
            "sliding": self.sliding.value_up,
            "dilation": self.dilation.value_up,
            "whole": self.whole.value_up,
            "whole_upper": self.whole_upper,
            "whole_box": self.whole_box.value_up,
            "whole_box_upper": self.whole_box_upper,
            "whole_box_signed": self.whole_box_signed.value_up,
            "loss_bound": self.loss_bound,
            "ratios": self.ratios(),
            "verdict": self.verdict,
            "certified": all(p.certified for p in (self.sliding, self.dilation, self.whole,
                                                   self.whole_box, self.whole_box_signed)),
            "witness_whole": self.whole.as_dict(),
            "witness_sliding": self.sliding.as_dict(),
            "witness_dilation": self.dilation.as_dict(),
        }


def admissibility_row(
    epsilon: Any, gamma: Any, choice: str = "alg3", *, lam_grid: int = 129,
    dps: tuple[int, int] = DPS,
) -> AdmissibilityRow:
    """Worst sliding, dilation and whole-mechanism loss of density (10) for one choice.

    See the module docstring for the sets, the derivation and the precision.  ``lam_grid``
    (>= 3) is the number of lambda grid points where the bound m on |delta| depends on lambda.
    """
    t0 = time.perf_counter()
    eps = check_epsilon(epsilon)
    g = check_gamma(gamma)
    if choice not in CHOICES:
        raise InvalidParameterError(f"choice must be one of {CHOICES}, got {choice!r}")
    if isinstance(lam_grid, bool) or not isinstance(lam_grid, int) or lam_grid < 3:
        raise InvalidParameterError(f"lam_grid must be an integer >= 3, got {lam_grid!r}")
    check_dps(dps)
    alpha, beta = choice_constants(eps, g, choice)

    sliding = _certify(g, 0.0, alpha, sup_z(g, 0.0, alpha), dps)
    dil = _sup_lambda_fixed_m(g, (-beta, beta), 0.0)
    dilation = _certify(g, dil.lam, 0.0, dil.zs, dps)

    # attainable set: lambda in [0, beta] with m = alpha (convex: endpoints), and
    # lambda in [-beta, 0] with m = alpha e^lambda (grid + Brent, Lipschitz upper bound)
    pos = _sup_lambda_fixed_m(g, (0.0, beta), alpha)
    neg = _sup_lambda_exp_m(g, -beta, 0.0, alpha, beta, lam_grid)
    best = pos if pos.value >= neg.value else neg
    whole = _certify(g, best.lam, best.m, best.zs, dps)
    whole_upper = max(pos.upper, neg.upper, whole.value_up)

    # box: signed sup (endpoints, m = alpha) and sup of -loss (m = alpha e^lambda on the
    # whole range, by the exchange map)
    signed = _sup_lambda_fixed_m(g, (-beta, beta), alpha)
    box_signed = _certify(g, signed.lam, signed.m, signed.zs, dps)
    neg_box = _sup_lambda_exp_m(g, -beta, beta, alpha, beta, lam_grid)
    bb = signed if signed.value >= neg_box.value else neg_box
    whole_box = box_signed if bb is signed else _certify(g, bb.lam, bb.m, bb.zs, dps)
    whole_box_upper = max(signed.upper, neg_box.upper, whole_box.value_up)

    all_certified = all(p.certified for p in (sliding, dilation, whole, whole_box, box_signed))
    if not all_certified:
        verdict = "inconclusive"
    elif whole_upper <= eps:
        verdict = "dp"
    elif whole.value_down > eps:
        verdict = "not-dp"
    else:
        verdict = "inconclusive"
    return AdmissibilityRow(
        choice=choice, epsilon=eps, gamma=g, alpha=alpha, beta=beta, sliding=sliding,
        dilation=dilation, whole=whole, whole_upper=whole_upper, whole_box=whole_box,
        whole_box_upper=whole_box_upper, whole_box_signed=box_signed,
        loss_bound=loss_bound(alpha, beta, g), verdict=verdict, lam_grid=lam_grid,
        duration_s=time.perf_counter() - t0,
    )


def admissible(epsilon: Any, gamma: Any, choice: str = "alg3") -> dict[str, Any]:
    """One (epsilon, gamma, choice): the row as a JSON-able dict plus ``dp`` (True / False /
    None for inconclusive), the source of the constants and the precision used.  Used by
    ``dpaudit certify`` for the release's own parameters."""
    row = admissibility_row(epsilon, gamma, choice)
    d = row.as_dict()
    d["dp"] = row.dp
    d["source"] = CHOICE_SOURCES[choice]
    d["precision"] = (
        f"mpmath {row.sliding.dps[0]} and {row.sliding.dps[1]} digits, agreement 1e-25, "
        "figures rounded up to float; lambda grid "
        f"{row.lam_grid} points with a Lipschitz upper bound"
    )
    d["duration_s"] = row.duration_s
    d["twin"] = whole_loss_twin([row])
    return d


# -------------------------------------------------------------------------- tables
@dataclass(frozen=True)
class AdmissibilityTable:
    """Rows for every (choice, gamma) of a grid at one epsilon, plus the gamma intervals
    (within the grid's range) where each choice fails, with their boundaries located by
    bisection on whole(gamma) = epsilon (``boundaries``: gamma values to ~1e-6)."""

    epsilon: float
    gammas: tuple[float, ...]
    choices: tuple[str, ...]
    rows: tuple[AdmissibilityRow, ...]
    failures: dict[str, list[tuple[float, float]]]
    boundaries: dict[str, list[float]]
    lam_grid: int
    dps: tuple[int, int]
    duration_s: float = 0.0

    def row(self, choice: str, gamma: float) -> AdmissibilityRow:
        for r in self.rows:
            if r.choice == choice and r.gamma == gamma:
                return r
        raise KeyError(f"no row for choice={choice!r}, gamma={gamma!r}")

    def table_rows(self) -> list[dict[str, Any]]:
        return [r.as_dict() for r in self.rows]

    def series(self) -> dict[str, dict[str, list[float]]]:
        """Per choice: gamma and loss/epsilon series (whole, sliding, dilation, box, bound)
        for a plot of gamma vs worst loss / epsilon."""
        out: dict[str, dict[str, list[float]]] = {}
        for c in self.choices:
            rs = [r for r in self.rows if r.choice == c]
            out[c] = {
                "gamma": [r.gamma for r in rs],
                **{k: [r.ratios()[k] for r in rs] for k in (
                    "whole", "whole_upper", "sliding", "dilation", "whole_box",
                    "whole_box_signed", "loss_bound")},
            }
        return out


def _whole_minus_eps(eps: float, g: float, choice: str, lam_grid: int) -> float:
    alpha, beta = choice_constants(eps, g, choice)
    pos = _sup_lambda_fixed_m(g, (0.0, beta), alpha)
    neg = _sup_lambda_exp_m(g, -beta, 0.0, alpha, beta, lam_grid)
    return max(pos.value, neg.value) - eps


def _boundary(eps: float, lo: float, hi: float, choice: str, lam_grid: int) -> float:
    flo = _whole_minus_eps(eps, lo, choice, lam_grid)
    for _ in range(40):
        mid = 0.5 * (lo + hi)
        fm = _whole_minus_eps(eps, mid, choice, lam_grid)
        if (fm > 0) == (flo > 0):
            lo, flo = mid, fm
        else:
            hi = mid
        if hi - lo < 1e-6:
            break
    return 0.5 * (lo + hi)


def admissibility_table(
    epsilon: Any = 1.0,
    gammas: Sequence[float] = DEFAULT_GAMMAS,
    choices: Sequence[str] = CHOICES,
    *,
    lam_grid: int = 129,
    dps: tuple[int, int] = DPS,
    locate_boundaries: bool = True,
) -> AdmissibilityTable:
    """:func:`admissibility_row` for every (choice, gamma); gammas are sorted and validated.

    With ``locate_boundaries`` the gamma where a choice's verdict changes between two grid
    points is located by bisection (the whole loss is continuous in gamma).
    """
    t0 = time.perf_counter()
    eps = check_epsilon(epsilon)
    if isinstance(gammas, (str, bytes)) or len(gammas) == 0:
        raise InvalidParameterError(f"gammas must be a non-empty sequence, got {gammas!r}")
    gs = tuple(sorted({check_gamma(g) for g in gammas}))
    for c in choices:
        if c not in CHOICES:
            raise InvalidParameterError(f"choice must be one of {CHOICES}, got {c!r}")
    rows = []
    failures: dict[str, list[tuple[float, float]]] = {}
    boundaries: dict[str, list[float]] = {}
    for c in choices:
        crow = [admissibility_row(eps, g, c, lam_grid=lam_grid, dps=dps) for g in gs]
        rows.extend(crow)
        bnds: list[float] = []
        for r0, r1 in zip(crow, crow[1:], strict=False):
            if (r0.verdict == "dp") != (r1.verdict == "dp") and locate_boundaries:
                bnds.append(_boundary(eps, r0.gamma, r1.gamma, c, lam_grid))
        boundaries[c] = bnds
        # failing intervals: maximal runs of non-"dp" grid points, widened to the boundaries
        fails: list[tuple[float, float]] = []
        i = 0
        while i < len(crow):
            if crow[i].verdict != "dp":
                j = i
                while j + 1 < len(crow) and crow[j + 1].verdict != "dp":
                    j += 1
                lo = crow[i].gamma if i == 0 else _nearest(bnds, crow[i - 1].gamma, crow[i].gamma)
                hi = (crow[j].gamma if j == len(crow) - 1
                      else _nearest(bnds, crow[j].gamma, crow[j + 1].gamma))
                fails.append((lo, hi))
                i = j + 1
            else:
                i += 1
        failures[c] = fails
    return AdmissibilityTable(
        epsilon=eps, gammas=gs, choices=tuple(choices), rows=tuple(rows), failures=failures,
        boundaries=boundaries, lam_grid=lam_grid, dps=dps,
        duration_s=time.perf_counter() - t0,
    )


def _nearest(bnds: list[float], lo: float, hi: float) -> float:
    inside = [b for b in bnds if lo <= b <= hi]
    return inside[0] if inside else (lo if not bnds else hi)


# ------------------------------------------------------------------------- findings
def whole_loss_twin(rows: Sequence[Any]) -> dict[str, Any]:
    """The twin of an admissibility check (issue 42): the same certified decision ("dp" iff
    the whole-mechanism loss's upper bound <= epsilon, "not-dp" iff its certified lower value
    at a witness exceeds epsilon) against epsilon tightened just below the largest certified
    lower value ``whole.value_down`` over ``rows`` (:class:`AdmissibilityRow`): refuted at
    that row's witness (gamma, lambda, delta, z), a loss the attainable set reaches."""
    r = max(rows, key=lambda q: q.whole.value_down / q.epsilon)
    w = r.whole
    return falsifiability.tightened_bound_twin(
        Fraction(w.value_down) if w.certified else None, Fraction(r.epsilon),
        at={"gamma": r.gamma, "lambda": w.lam, "delta": w.delta, "z": w.z, "log_z": w.log_z},
        what="the whole-mechanism loss")


def _check_id(choice: str) -> str:
    return f"privacy.admissibility.{choice}"


def admissibility_findings(table: AdmissibilityTable) -> list[Finding]:
    """One Finding per choice (method exact-loss): verified "epsilon-DP for every gamma in
    the grid" or refuted with the smallest failing gamma as a replayable counterexample."""
    out = []
    scope_tail = (
        f"epsilon = {table.epsilon:g}; gamma grid {list(table.gammas)}; attainable set "
        "|lambda| <= beta, |delta| <= alpha min(1, e^lambda); inner sup over z semi-analytic "
        f"(unique root), lambda grid {table.lam_grid} points + Lipschitz upper bound; mpmath "
        f"{table.dps[0]}/{table.dps[1]} digits, figures rounded up"
    )
    for c in table.choices:
        rows = [r for r in table.rows if r.choice == c]
        bad = [r for r in rows if r.verdict == "not-dp"]
        unsure = [r for r in rows if r.verdict == "inconclusive"]
        evidence = {
            "source": CHOICE_SOURCES[c],
            "rows": [
                {"gamma": r.gamma, "alpha": r.alpha, "beta": r.beta, **r.ratios(),
                 "verdict": r.verdict}
                for r in rows
            ],
            "failing_gamma_intervals": table.failures.get(c, []),
            "boundaries_gamma": table.boundaries.get(c, []),
            "max_whole_over_eps": max(r.whole.value_up for r in rows) / table.epsilon,
            "box_within_loss_bound": all(r.whole_box.value_up <= r.loss_bound for r in rows),
        }
        claim = (f"density (10) with {c} constants (alpha, beta) gives an epsilon-DP release "
                 "g(X) + (S(X)/alpha) Z for every beta-smooth S >= LS, at each gamma of the "
                 "stated grid (a finite grid: nothing is claimed between its points)")
        if bad:
            r = min(bad, key=lambda q: q.gamma)
            w = r.whole
            doc = counterexample_document(
                _check_id(c), f"noise-constants:{c}",
                {"choice": c, "epsilon": r.epsilon, "gamma": r.gamma, "alpha": r.alpha,
                 "beta": r.beta, "lambda": w.lam, "delta": w.delta, "z": w.z,
                 "log_z": w.log_z},
                expected=f"loss <= epsilon = {r.epsilon!r}",
                actual=w.value_mp,
                tolerance=None,
                note=("log-ratio (L) of the output densities for S(X') = e^lambda S(X), "
                      "g(X) - g(X') = delta S(X)/alpha, output y = g(X) + (S(X)/alpha) z; "
                      "exceeds epsilon (mpmath, two precisions)"),
            )
            verdict, cx = Verdict.REFUTED, doc
            scope = f"smallest failing gamma {r.gamma:g} of the grid; " + scope_tail
        elif unsure:
            verdict, cx = Verdict.INCONCLUSIVE, None
            scope = (f"inconclusive at gamma {[r.gamma for r in unsure]}; " + scope_tail)
        else:
            evidence["twin"] = tw = whole_loss_twin(rows)
            verdict, cx = falsifiability.decide(
                True, tw, failed=Verdict.INCONCLUSIVE,
                vacuous_reason="no positive certified loss is reached in the attainable set"
            ), None
            scope = "epsilon-DP at every gamma of the grid (not between grid points); " + scope_tail
        out.append(Finding(
            id=_check_id(c), claim=claim,
            reference=CHOICE_SOURCES[c], method=Method.EXACT_LOSS, verdict=verdict,
            scope=scope, evidence=evidence, counterexample=cx,
            duration_s=sum(r.duration_s for r in rows), subject=f"noise-constants:{c}",
        ))
    return out


def replay_admissibility(inputs: dict) -> tuple[bool, Any, Any, str]:
    """Replayer for the counterexample documents above: recompute the loss at the stored
    point (60 digits) and the choice's constants; (still_fails, expected, actual, detail)."""
    c = inputs["choice"]
    eps = float(inputs["epsilon"])
    g = float(inputs["gamma"])
    alpha, beta = choice_constants(eps, g, c)
    lam, delta = float(inputs["lambda"]), float(inputs["delta"])
    z = float(inputs["z"])
    if inputs.get("log_z") is not None and math.isinf(z):
        with mpmath.workdps(60):
            v = _loss_mp(mpmath.mpf(g), mpmath.mpf(lam), mpmath.mpf(delta),
                         mpmath.mpf(inputs["log_z"]), "interior")
    else:
        v = loss_at(g, lam, delta, z)
    feasible = abs(lam) <= beta and abs(delta) <= alpha * min(1.0, math.exp(lam)) * (1 + 1e-12)
    still = feasible and v > eps
    return (still, f"<= {eps}", mpmath.nstr(v, 20),
            f"alpha={alpha!r}, beta={beta!r}; point feasible: {feasible}")


def _register_replayers() -> None:
    """Register :func:`replay_admissibility` for ``dpaudit replay`` under every choice's
    check id (effective once this module is imported, e.g. via audit.registry.MODULES)."""
    from audit.registry import replayer

    for c in CHOICES:
        replayer(_check_id(c))(replay_admissibility)


_register_replayers()
