"""Exact verdict of a trade-off claim for a declared location-scale Gaussian mechanism.

A mechanism that declares ``location_scale(D) -> (a, b)`` and Gaussian noise (its
``noise_logpdf`` confirmed by :func:`audit.privacy.noise_laws.noise_law`, standard
deviation s) outputs N(a, (b s)^2) on D.  On a pair with equal scales its trade-off is
exactly G_mu with mu = |a - a'| / (b s) (Dong, Roth & Su 2019, Theorem 2.7), so every
claim is decided in closed form, with no sampling:

* mu-GDP claim m: holds iff mu <= m;
* rho-zCDP: holds iff mu^2 / 2 <= rho (the Gaussian's D_alpha = alpha mu^2 / 2, Mironov 2017,
  Proposition 7, is the whole Renyi curve);
* RDP orders (alpha, e): holds iff alpha mu^2 / 2 <= e at every order;
* (eps, delta): holds iff Phi(-eps/mu + mu/2) - e^eps Phi(-eps/mu - mu/2) <= delta (Balle &
  Wang 2018, Theorem 8); pure eps (delta = 0): holds iff mu = 0.

GDP, zCDP and RDP are decided exactly in rationals (mu^2 of the doubles a, a', b s against
the claim's decimal parameters as fractions: a tie "holds"); (eps, delta) in mpmath at 60
digits: "holds" when delta rounded up is <= the claimed delta, "violates" when rounded down
is > it, else "undecided".  Scope of a "verified" reading: the declared density on the
tested pairs; the implementation's sampler is not examined (the black-box tester does
that).  Pairs with unequal scales (not a shift family) are reported "unsupported".
Explicit f-DP curves are not decided here.  Nothing here prints or writes files.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import mpmath

from audit.privacy.claims import mp
from audit.privacy.claims.approx import ApproxDP
from audit.privacy.claims.base import Claim
from audit.privacy.claims.gdp import GaussianDP
from audit.privacy.claims.rdp import RenyiDP
from audit.privacy.claims.zcdp import ZCDP
from audit.privacy.noise_laws import Gaussian, noise_law
from audit.protocols import NeighbourPair
from audit.rounding import float_down, float_up
from kernels.errors import InvalidParameterError

__all__ = ["gaussian_pair_verdict", "gaussian_claim_verdicts"]


def _dec(x: float) -> Fraction:
    return Fraction(repr(float(x)))


def _rational(claim: Claim, mu2: Fraction) -> list[tuple[str, Fraction, Fraction]] | None:
    """(quantity, exact value, claimed bound) for the claims decided in rationals (mu^2
    of doubles is rational; mu <= m iff mu^2 <= m^2)."""
    if isinstance(claim, GaussianDP):
        return [("mu^2", mu2, _dec(claim.mu) ** 2)]
    if isinstance(claim, ZCDP):
        return [("rho", mu2 / 2, _dec(claim.rho))]
    if isinstance(claim, RenyiDP):
        return [(f"eps@alpha={a:g}", _dec(a) * mu2 / 2, _dec(e)) for a, e in claim.orders]
    return None


def _value_and_bounds(claim: Claim, mu: Any) -> list[tuple[str, Any, Any]]:
    """(quantity, value at mu in mpmath, claimed bound) for (epsilon, delta) claims."""
    if isinstance(claim, ApproxDP):
        e = mp.param(claim.eps)
        if mu == 0:
            d = mpmath.mpf(0)
        else:
            d = mpmath.ncdf(-e / mu + mu / 2) - mpmath.exp(e) * mpmath.ncdf(-e / mu - mu / 2)
        return [("delta", d, mp.param(claim.delta))]
    raise InvalidParameterError(f"the exact Gaussian verdict does not decide {claim.spec()} "
                                "(explicit f-DP curves are tested by sampling)")


def gaussian_pair_verdict(claim: Claim, loc_a: float, loc_b: float,
                          scale: float | Fraction) -> dict[str, Any]:
    """The claim on one pair N(loc_a, scale^2) vs N(loc_b, scale^2) (module docstring):
    ``{"mu_up", "status": "holds" | "violates" | "undecided", "checks": [...]}``."""
    if not scale > 0:
        raise InvalidParameterError(f"scale must be > 0, got {scale!r}")
    mu2 = (Fraction(loc_a) - Fraction(loc_b)) ** 2 / Fraction(scale) ** 2
    exact = _rational(claim, mu2)
    if exact is not None:
        checks = [{"quantity": n, "value_down": float_down(v), "value_up": float_up(v),
                   "claimed": float(bd), "status": "holds" if v <= bd else "violates"}
                  for n, v, bd in exact]
        status = "violates" if any(c["status"] == "violates" for c in checks) else "holds"
        with mp.workprec():
            mu_up = float_up(mpmath.sqrt(mpmath.mpf(mu2.numerator) / mu2.denominator)
                             * (1 + mpmath.mpf("1e-40")))
        return {"mu_up": mu_up, "status": status, "checks": checks}
    with mp.workprec():
        sc = Fraction(scale)
        mu = abs(mp.exact(loc_a) - mp.exact(loc_b)) / (mpmath.mpf(sc.numerator)
                                                      / sc.denominator)
        checks = []
        status = "holds"
        for name, val, bound in _value_and_bounds(claim, mu):
            down, up = mp.down(val), float_up(val + abs(val) * mpmath.mpf("1e-40"))
            if mpmath.mpf(down) > bound:
                ok = "violates"
            elif mpmath.mpf(up) <= bound:
                ok = "holds"
            else:
                ok = "undecided"
            checks.append({"quantity": name, "value_down": down, "value_up": up,
                           "claimed": float(bound), "status": ok})
            if ok == "violates" or (ok == "undecided" and status == "holds"):
                status = ok
        return {"mu_up": float_up(mu), "status": status, "checks": checks}


def gaussian_claim_verdicts(claim: Claim, mech: Any, pairs: list[NeighbourPair]
                            ) -> dict[str, Any]:
    """Every pair's exact verdict for a mechanism declaring Gaussian location-scale noise;
    ``status``: "violates" if any pair violates, else "holds" if every supported pair
    holds (a verified reading within the scope above), else "undecided"."""
    law = noise_law(mech)
    if not isinstance(law, Gaussian):
        raise InvalidParameterError("the mechanism declares no confirmed Gaussian noise law "
                                    "(noise='gaussian' with a matching noise_logpdf)")
    rows = []
    for i, p in enumerate(pairs):
        a, b = mech.location_scale(p.first)
        a2, b2 = mech.location_scale(p.second)
        if float(b) != float(b2):
            rows.append({"pair_index": i, "status": "unsupported",
                         "reason": f"unequal scales {b!r} and {b2!r}: not a Gaussian shift"})
            continue
        rows.append({"pair_index": i, **gaussian_pair_verdict(
            claim, float(a), float(a2), Fraction(float(b)) * Fraction(law.sigma))})
    statuses = {r["status"] for r in rows}
    overall = ("violates" if "violates" in statuses else
               "holds" if statuses == {"holds"} else "undecided")
    return {"claim": claim.spec(), "status": overall, "pairs": rows,
            "scope": "the declared Gaussian density on the tested pairs (not its sampler)"}
