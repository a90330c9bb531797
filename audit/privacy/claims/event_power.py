"""What a black-box event tester can reach against an (epsilon, delta) claim: the power of
the best single event on a known pair of output laws, at a given number of outputs.

An event tester refutes (epsilon, delta)-DP on an event E only if the certified corner
shows P[E | D'] - e^eps P[E | D] > delta (:mod:`audit.privacy.claims.approx`, the
favoured-side form; the other form is the same statement for the complement).  Its signal
is s(E) = P_D'(E) - e^eps P_D(E) - delta and, from n outputs per data set, its standard
error is se(E) = sqrt(P_D'(E)(1 - P_D'(E)) / n + e^(2 eps) P_D(E)(1 - P_D(E)) / n).

For a Gaussian shift N(0, s^2) vs N(1, s^2) the threshold events {y > t} are the best
events for this ratio: at a fixed P_D(E) the threshold maximises P_D'(E) (Neyman-Pearson),
and z = s / se increases with P_D'(E) while s > 0 and P_D'(E) <= 1/2 (d z / d P' has the
sign of 2 V - s (1 - 2 P'), V = se^2 n >= P'(1 - P'), positive there).  So the best
z over t is what an *oracle* that knows the best event, spends nothing on selection and
uses a normal test at one-sided level alpha could reach: power ~ Phi(z - z_(1-alpha)).

:func:`exact_corner_power` is the exact probability (binomial sums, float64: a power
analysis, not a certificate) that the Clopper-Pearson corner at ``alpha_each`` per bound
refutes the claim on a fixed event: what the certification step of
:func:`audit.privacy.claims.certify.certify_claim` does with a perfectly chosen event.

Nothing here prints or writes files.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats

__all__ = ["EventPower", "best_threshold_event", "exact_corner_power", "gaussian_delta",
           "outputs_for_power", "z_score"]


def gaussian_delta(mu: float, eps: float) -> float:
    """delta(eps) of a Gaussian shift with mu = shift / sigma (Balle & Wang 2018, Thm 8),
    float64."""
    return float(stats.norm.cdf(-eps / mu + mu / 2)
                 - math.exp(eps) * stats.norm.cdf(-eps / mu - mu / 2))


def z_score(p_fav: np.ndarray, p_oth: np.ndarray, n: int, eps: float,
            delta: float) -> np.ndarray:
    """(P_fav - e^eps P_oth - delta) / se at n outputs per data set (module docstring)."""
    pf, po = np.asarray(p_fav, dtype=np.float64), np.asarray(p_oth, dtype=np.float64)
    sig = pf - math.exp(eps) * po - delta
    se = np.sqrt(pf * (1 - pf) / n + math.exp(2 * eps) * po * (1 - po) / n)
    return np.asarray(sig / se)


def _cp_lower(k: np.ndarray, n: int, a: float) -> np.ndarray:
    kk = np.asarray(k, dtype=np.float64)
    with np.errstate(all="ignore"):
        return np.where(kk > 0, stats.beta.ppf(a, kk, n - kk + 1), 0.0)


def _cp_upper(k: np.ndarray, n: int, a: float) -> np.ndarray:
    kk = np.asarray(k, dtype=np.float64)
    with np.errstate(all="ignore"):
        return np.where(kk < n, stats.beta.isf(a, kk + 1, n - kk), 1.0)


def exact_corner_power(p_fav: float, p_oth: float, n: int, eps: float, delta: float,
                       alpha_each: float) -> float:
    """P[CP_lower(k_fav) - delta > e^eps CP_upper(k_oth)], k ~ Bin(n, p): the exact
    probability that the certified corner of one fixed event refutes (eps, delta)."""
    sd_o = math.sqrt(n * p_oth * (1 - p_oth))
    ko = np.arange(max(0, int(n * p_oth - 12 * sd_o) - 20),
                   min(n, int(n * p_oth + 12 * sd_o) + 20) + 1)
    w = stats.binom.pmf(ko, n, p_oth)
    need = delta + math.exp(eps) * _cp_upper(ko, n, alpha_each)
    sd_f = math.sqrt(n * p_fav * (1 - p_fav))
    k_hi = min(n, int(n * p_fav + 12 * sd_f) + 50)
    kf = np.arange(0, k_hi + 1)
    lo = _cp_lower(kf, n, alpha_each)  # increasing in k
    first = np.searchsorted(lo, need, side="right")  # smallest k_fav with lower > need
    pr = np.where(first <= k_hi, stats.binom.sf(first - 1, n, p_fav), 0.0)
    return float(np.sum(w * pr))


@dataclass(frozen=True)
class EventPower:
    """The threshold event {y > t} of a Gaussian shift with the best exact corner power at
    n outputs per data set: its probabilities, signal, standard error and z; ``z_max``
    the largest z over all thresholds and ``oracle_power`` = Phi(z_max - z_(1-alpha))."""

    sigma: float
    n: int
    threshold: float
    p_fav: float
    p_oth: float
    signal: float
    standard_error: float
    z: float
    z_max: float
    oracle_power: float  # known event, normal test, no selection
    exact_power: float  # exact CP corner power on the event (alpha_each per bound)


def best_threshold_event(sigma: float, eps: float, delta: float, n: int,
                         alpha_each: float = 0.05, alpha_test: float = 0.05,
                         grid: int = 401) -> EventPower:
    """N(0, sigma^2) vs N(1, sigma^2): the threshold maximising the exact corner power
    (searched within 1 of the z-optimal threshold), with its z and the oracle power."""
    ts = np.linspace(0.0, 12.0 * max(1.0, sigma), 24_001)
    pf, po = stats.norm.sf((ts - 1.0) / sigma), stats.norm.sf(ts / sigma)
    z = z_score(pf, po, n, eps, delta)
    j = int(np.nanargmax(z))
    best: tuple[float, float] | None = None
    for t in np.linspace(ts[j] - 1.0, ts[j] + 1.0, grid):
        p1, p0 = float(stats.norm.sf((t - 1.0) / sigma)), float(stats.norm.sf(t / sigma))
        if p1 * n < 1:
            continue
        pw = exact_corner_power(p1, p0, n, eps, delta, alpha_each)
        if best is None or pw > best[0]:
            best = (pw, float(t))
    pw, t = best if best is not None else (0.0, float(ts[j]))
    p1, p0 = float(stats.norm.sf((t - 1.0) / sigma)), float(stats.norm.sf(t / sigma))
    sig = p1 - math.exp(eps) * p0 - delta
    zt = float(z_score(np.array([p1]), np.array([p0]), n, eps, delta)[0])
    zc = float(z[j])
    return EventPower(
        sigma=sigma, n=n, threshold=t, p_fav=p1, p_oth=p0, signal=sig,
        standard_error=sig / zt if zt else math.inf, z=zt, z_max=zc,
        oracle_power=float(stats.norm.cdf(zc - stats.norm.ppf(1 - alpha_test))),
        exact_power=pw)


def outputs_for_power(sigma: float, eps: float, delta: float, target: float,
                      alpha_each: float = 0.05, n_min: int = 10**6,
                      n_max: int = 10**11) -> int | None:
    """The smallest n on the grid 10^(k/4) in [n_min, n_max] at which the best event's
    exact corner power reaches ``target`` (None if not by ``n_max``)."""
    k = math.ceil(4 * math.log10(n_min))
    while 10 ** (k / 4) <= n_max:
        n = int(round(10 ** (k / 4)))
        if best_threshold_event(sigma, eps, delta, n, alpha_each, grid=21).exact_power \
                >= target:
            return n
        k += 1
    return None
