"""The privacy links of ``dpaudit certify`` (see :mod:`audit.certify` for the chain).

* ``certify.admissibility`` — the chosen (alpha, beta) for density (10) at this (epsilon,
  gamma): worst sliding, dilation and whole-mechanism loss (:mod:`audit.privacy.admissibility`).
* ``certify.exact-loss`` — exact privacy loss on the worst replace-one neighbours found
  around the data (:mod:`audit.privacy.exact_loss`), with the loss-curve figure.
* ``certify.blackbox`` — the black-box statistical tester (:mod:`audit.privacy.blackbox`)
  sampling the release itself on the worst pairs, with the released-values figure.
* ``certify.float-sampler`` — what the float64 sampler really draws, and how much
  probability mass departs from the real-number law of density (10).

Every link returns Findings and figures through the certify context; nothing prints.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable
from typing import Any

import mpmath

from audit import reference
from audit.findings import Finding, Method, Verdict

__all__ = ["FLOAT_DELTA_NEGLIGIBLE", "float_sampler", "steps"]

REF = "Lan & Reiter 2025"
DBL_MAX = sys.float_info.max
#: a departure from the real-number law below this probability is reported as negligible
FLOAT_DELTA_NEGLIGIBLE = 2.0**-64


def _tail_mass(t: float, gamma: float) -> float:
    """P(|Z| > t) under density (10), mpmath reference (certified at two precisions),
    converted to float rounding UP (it is used as a failure probability delta)."""
    v = 2 * reference.powerlaw_sf(t, gamma)
    f = float(v)
    if mpmath.mpf(f) < v:
        f = math.nextafter(f, math.inf)
    return f


def float_sampler(ctx: Any) -> list[Finding]:
    """How the float64 release departs from the real-number mechanism, with the mass of
    each departure computed exactly (mpmath reference survival function).

    The sampler (``kernels.noise.sample_powerlaw``) draws |Z| = exp((log G1 - log G2)/gamma)
    with G1 ~ Gamma(1/gamma), G2 ~ Gamma(1 - 1/gamma) and *redraws* non-finite magnitudes:
    it samples density (10) conditioned on |Z| <= DBL_MAX.  The release then computes
    fl(g + fl(scale * Z)), which overflows to +-inf when |scale Z| > DBL_MAX.  Both events
    have the same probability for X and X' only if their scales agree, so each is a
    delta-like failure probability of the pure epsilon-DP guarantee; this link reports
    them (rounded up) and calls them negligible below 2^-64.  The low-order-bit effects of
    rounding g + scale Z (Mironov 2012) are tested empirically by the black-box link.
    """
    cfg = ctx.cfg
    scale = ctx.shared.get("scale")
    if scale is None:
        from kernels.release import noise_constants
        from kernels.sensitivity import smooth_sensitivity

        c = noise_constants(cfg.epsilon, cfg.gamma, cfg.constants)
        scale = smooth_sensitivity(ctx.xs, cfg.lower, cfg.upper, c.beta, bound=cfg.bound).value
        scale /= c.alpha
    redraw = _tail_mass(DBL_MAX, cfg.gamma)
    overflow = _tail_mass(DBL_MAX / max(scale, 1e-300), cfg.gamma) if scale > 1 else 0.0
    delta = max(redraw, overflow)
    ok = delta <= FLOAT_DELTA_NEGLIGIBLE
    return [
        Finding(
            id="certify.float-sampler",
            claim="the float64 sampler draws density (10) and the float release "
            "g + scale*Z equals the real-number mechanism except on negligible mass",
            reference=f"{REF}, eq. (10); kernels/noise.py sample_powerlaw; Mironov 2012",
            method=Method.EXACT_LOSS,
            verdict=Verdict.VERIFIED if ok else Verdict.INCONCLUSIVE,
            scope=f"gamma = {cfg.gamma:g}, noise scale of this data; masses from the mpmath "
            "survival function (two precisions), rounded up; threshold 2^-64",
            evidence={
                "sampler": "|Z| = exp((log G1 - log G2)/gamma), G1 ~ Gamma(1/gamma), "
                "G2 ~ Gamma(1-1/gamma), uniform sign; non-finite magnitudes and G2 == 0 "
                "redrawn (conditions on |Z| <= DBL_MAX)",
                "release_arithmetic": "fl(g + fl(scale * Z)) in IEEE-754 binary64, "
                "round-to-nearest-even",
                "mass_redrawn_P(|Z|>DBL_MAX)_rounded_up": redraw,
                "mass_overflow_P(|scale*Z|>DBL_MAX)_rounded_up": overflow,
                "delta_equivalent": delta,
                "negligible_threshold": FLOAT_DELTA_NEGLIGIBLE,
                "consequence": "pure epsilon-DP holds for the float release up to a failure "
                f"probability delta <= {delta:.3g}" if not ok else "negligible",
            },
            seed=cfg.seed,
            subject=ctx.subject,
        )
    ]


def steps() -> list[tuple[str, str, Callable[[Any], list[Finding]]]]:
    """The privacy links, in order."""
    return [
        ("float", "float64 sampler: departures from density (10)", float_sampler),
    ]
