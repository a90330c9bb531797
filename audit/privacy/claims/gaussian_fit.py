"""A claim tested under a declared Gaussian shift family: the sampler's mu = |a - a'| / s
bounded from its outputs, then decided exactly.

The family.  On each data set of a pair the mechanism's output is Gaussian, N(a, s^2) and
N(a', s^2), one scale s for both (a location-scale Gaussian mechanism).  Its trade-off
curve is G_mu, mu = |a - a'| / s (Dong, Roth & Su 2019, Theorem 2.7), and every claim of
:mod:`audit.privacy.claims` except explicit f-DP curves is monotone in mu: it holds iff mu
is at most a threshold (:mod:`audit.privacy.claims.exact_gaussian` decides it exactly).

The bound (:func:`fit_gaussian_shift`).  From n1, n2 outputs: the means m1, m2 and the
pooled variance S^2 with df = n1 + n2 - 2.  Under the family, df S^2 / s^2 ~ chi^2_df, so
s_U = S sqrt(df / chi^2_df(level / 2)) bounds s from above with probability >= 1 - level/2;
m2 - m1 ~ N(a' - a, s^2 (1/n1 + 1/n2)), so |a' - a| >= |m2 - m1| - z s c with probability
>= 1 - level/2 (z = Phi^-1(1 - level/4), two-sided in the sign, c = sqrt(1/n1 + 1/n2)).
On both events (probability >= 1 - level, union bound) mu = |a' - a| / s >=
(|m2 - m1| - z s_U c) / s_U = mu_L (the left side decreases in s).  Float64 sums (numpy
pairwise, per chunk, merged by Chan et al.'s update) carry a relative error far below the
relative safety margin :data:`MARGIN` = 1e-9 applied in the safe direction to S and
|m2 - m1|; mu_L is rounded down.

The family check (:func:`family_check`), on outputs drawn apart from the fit's: the
standardised outputs (y - m_i) / S must look N(0, 1) — Kolmogorov-Smirnov per data set,
the counts beyond +-3 and +-4 (both sides, both data sets; exact two-sided binomial tests:
KS is weak in the tails, where an (eps, delta) claim lives) — and the two scales must
agree (F test on the fit's outputs).  Eleven tests, Bonferroni at ``gof_level`` in all.
A rejection means the family is not trusted: no verdict under it.  The check can only
remove refutations, so it never raises the false-alarm rate under the family; it is what
keeps the family from being applied to outputs that are visibly not Gaussian (a Laplace or
discrete sampler, unequal scales, heavy tails).  It is a sampled check, not a proof: a
refutation reads "refuted under the declared Gaussian family".

Nothing here prints or writes files.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np
from scipy import stats

from audit.privacy.claims import mp
from audit.privacy.claims.approx import ApproxDP
from audit.privacy.claims.base import Claim
from audit.privacy.claims.exact_gaussian import gaussian_pair_verdict
from audit.privacy.claims.gdp import GaussianDP
from audit.privacy.claims.rdp import RenyiDP
from audit.privacy.claims.zcdp import ZCDP
from audit.rounding import float_down
from kernels.errors import InvalidParameterError

__all__ = ["GOF_LEVEL", "MARGIN", "GaussianFit", "Moments", "family_check",
           "fit_gaussian_shift", "strongest_from_mu", "verdict_under_family"]

#: relative safety margin on the float64 sums (module docstring)
MARGIN = 1e-9
#: default total level of the family check (a false rejection only costs power)
GOF_LEVEL = 1e-3
#: standardised tail points whose counts the family check tests
TAILS = (3.0, 4.0)


@dataclass
class Moments:
    """Count, mean and sum of squared deviations of a stream of outputs (chunks merged by
    Chan, Golub & LeVeque's pairwise update)."""

    n: int = 0
    mean: float = 0.0
    m2: float = 0.0

    def add(self, y: np.ndarray) -> None:
        y = np.asarray(y, dtype=np.float64).ravel()
        if y.size == 0:
            return
        if not np.all(np.isfinite(y)):
            raise InvalidParameterError("the outputs include NaN or infinity: no Gaussian "
                                        "fit")
        mb = float(np.mean(y))
        m2b = float(np.sum((y - mb) ** 2))
        n = self.n + y.size
        d = mb - self.mean
        self.mean += d * y.size / n
        self.m2 += m2b + d * d * self.n * y.size / n
        self.n = n


@dataclass(frozen=True)
class GaussianFit:
    """The fit of one pair (module docstring).  ``mu_lower``: mu >= mu_lower with
    probability >= 1 - ``level`` under the family; ``mu_upper`` the matching upper bound
    (its own statement at the same level)."""

    n: tuple[int, int]
    means: tuple[float, float]
    sd: float
    df: int
    mu_hat: float
    mu_lower: float
    mu_upper: float
    sd_upper: float
    level: float

    def as_dict(self) -> dict[str, Any]:
        return {"n": list(self.n), "means": list(self.means), "sd": self.sd, "df": self.df,
                "mu_hat": self.mu_hat, "mu_lower": self.mu_lower, "mu_upper": self.mu_upper,
                "sd_upper": self.sd_upper, "level": self.level}


def fit_gaussian_shift(first: Moments, second: Moments, level: float) -> GaussianFit:
    """The bounds on mu of the module docstring from the two data sets' moments."""
    if not 0.0 < level < 1.0:
        raise InvalidParameterError(f"level must be in (0, 1), got {level!r}")
    n1, n2 = first.n, second.n
    if min(n1, n2) < 2:
        raise InvalidParameterError(f"a Gaussian fit needs >= 2 outputs per data set, got "
                                    f"{n1} and {n2}")
    df = n1 + n2 - 2
    var = (first.m2 + second.m2) / df
    if not var > 0:
        raise InvalidParameterError("the outputs do not vary: no Gaussian scale to fit")
    sd = math.sqrt(var)
    c = math.sqrt(1.0 / n1 + 1.0 / n2)
    chi_lo = float(stats.chi2.ppf(level / 2, df))
    chi_hi = float(stats.chi2.isf(level / 2, df))
    sd_up = sd * math.sqrt(df / chi_lo) * (1 + MARGIN)
    sd_lo = sd * math.sqrt(df / chi_hi) * (1 - MARGIN)
    z = float(stats.norm.isf(level / 4))
    diff = abs(second.mean - first.mean)
    slack = MARGIN * (abs(first.mean) + abs(second.mean) + sd)
    shift_lo = max(0.0, diff - slack - z * sd_up * c)
    mu_lo = float_down(Fraction(shift_lo) / Fraction(sd_up)) if shift_lo > 0 else 0.0
    mu_up = (diff + slack + z * sd_up * c) / sd_lo * (1 + MARGIN)
    return GaussianFit((n1, n2), (first.mean, second.mean), sd, df, diff / sd, mu_lo,
                       mu_up, sd_up, level)


def family_check(fit: GaussianFit, first: Moments, second: Moments, y_first: np.ndarray,
                 y_second: np.ndarray, level: float = GOF_LEVEL) -> dict[str, Any]:
    """The family check of the module docstring: ``y_first`` / ``y_second`` drawn apart
    from the fit's outputs (whose moments are ``first`` / ``second``);
    ``{"rejected", "tests": [{"test", "p_value", ...}], "level", "per_test", "reasons"}``."""
    tests: list[dict[str, Any]] = []
    for name, y, m in (("D", y_first, fit.means[0]), ("D'", y_second, fit.means[1])):
        z = (np.asarray(y, dtype=np.float64).ravel() - m) / fit.sd
        ks = stats.kstest(z, "norm")
        tests.append({"test": f"KS N(0,1) on {name}", "statistic": float(ks.statistic),
                      "p_value": float(ks.pvalue), "n": int(z.size)})
        for c in TAILS:
            p_tail = float(stats.norm.sf(c))
            for side, k in ((f"> +{c:g}", int(np.count_nonzero(z > c))),
                            (f"< -{c:g}", int(np.count_nonzero(z < -c)))):
                bt = stats.binomtest(k, int(z.size), p_tail)
                tests.append({"test": f"count {side} on {name}", "count": k,
                              "expected": p_tail * z.size, "p_value": float(bt.pvalue)})
    d1, d2 = first.n - 1, second.n - 1
    ratio = (first.m2 / d1) / (second.m2 / d2)
    p = 2 * min(float(stats.f.cdf(ratio, d1, d2)), float(stats.f.sf(ratio, d1, d2)))
    tests.append({"test": "equal scales (F test)", "ratio": ratio, "p_value": min(1.0, p)})
    per = level / len(tests)
    bad = [t["test"] for t in tests if t["p_value"] < per]
    return {"rejected": bool(bad), "tests": tests, "level": level, "per_test": per,
            "reasons": bad}


def _eps_at_delta(mu_lo: float, delta: float) -> float:
    """The largest float v with delta(mu_lo, v) > delta shown in mpmath (bisection; the
    Gaussian's delta(eps) decreases in eps), i.e. every (eps <= v, delta) is refuted."""
    with mp.workprec():
        mu, d = mp.exact(mu_lo), mp.param(delta)

        def dl(e: Any) -> Any:
            return mpmath.ncdf(-e / mu + mu / 2) - mpmath.exp(e) * mpmath.ncdf(-e / mu - mu / 2)

        if not dl(mpmath.mpf(0)) > d:
            return 0.0
        lo, hi = mpmath.mpf(0), mpmath.mpf(1)
        while dl(hi) > d:
            lo, hi = hi, 2 * hi
        for _ in range(120):
            mid = (lo + hi) / 2
            if dl(mid) > d:
                lo = mid
            else:
                hi = mid
        return mp.down(lo)


def strongest_from_mu(claim: Claim, mu_lo: float) -> dict[str, float]:
    """The claim family's parameters that every Gaussian shift with mu >= ``mu_lo``
    violates when stronger (``mu >= ...``, ``rho >= mu^2/2``, ``eps@alpha >= alpha mu^2/2``,
    ``epsilon >= eps(delta)``), each rounded down."""
    out: dict[str, float] = {"mu": mu_lo}
    m2 = Fraction(mu_lo) ** 2
    if isinstance(claim, ZCDP):
        out["rho"] = float_down(m2 / 2)
    elif isinstance(claim, RenyiDP):
        for a, _ in claim.orders:
            out[f"eps@alpha={a:g}"] = float_down(Fraction(a) * m2 / 2)
    elif isinstance(claim, ApproxDP):
        out["epsilon"] = (math.inf if claim.delta == 0 and mu_lo > 0 else
                          _eps_at_delta(mu_lo, claim.delta) if mu_lo > 0 else 0.0)
    return out


def verdict_under_family(claim: Claim, mu_lo: float) -> dict[str, Any]:
    """Does the Gaussian shift with mu = ``mu_lo`` (and so every larger mu) violate the
    claim?  ``{"refuted", "strongest", "checks"}`` from the exact decision of
    :func:`audit.privacy.claims.exact_gaussian.gaussian_pair_verdict`."""
    if not isinstance(claim, (GaussianDP, ZCDP, RenyiDP, ApproxDP)):
        raise InvalidParameterError(f"the Gaussian family does not decide {claim.spec()} in "
                                    "closed form (explicit f-DP curves are tested by "
                                    "sampling)")
    v = gaussian_pair_verdict(claim, 0.0, mu_lo, 1.0)
    return {"refuted": v["status"] == "violates", "status": v["status"],
            "strongest": strongest_from_mu(claim, mu_lo), "checks": v["checks"]}
