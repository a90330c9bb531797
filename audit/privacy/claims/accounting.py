"""Exact alpha accounting of a ``dpaudit test --claim`` run, recomputed from its record.

The claim tester's guarantee (:mod:`audit.privacy.claims.certify`,
:mod:`audit.privacy.claims.histogram_renyi`) is a union bound: the event certificate's two
one-sided Clopper-Pearson bounds and, for a zCDP / Renyi claim, the histogram
certificate's two bounds per bin all hold together with probability >= confidence, so
their levels must sum to at most alpha = 1 - confidence.  The claim tester splits alpha
itself (half to each certificate, then Bonferroni within each); this module re-counts that
split from what the run recorded, exactly, as :mod:`audit.privacy.blackbox.accounting`
does for the epsilon testers:

* the schedule: the certification counts are on the planned ``n_certify`` outputs per
  data set (the selection draws are never certified on: that is checked by coverage);
* the levels: 2 bounds at the event's recorded level plus 2 per bin of the histogram (the
  bins counted from the recorded edges, not from the tester's constant) at its recorded
  level, summed as Fractions of the recorded floats, must not exceed
  ``Fraction(1 - confidence)``;
* every certified bound is re-derived from its recorded count: the exact binomial tail at
  the bound (:func:`~audit.privacy.blackbox.accounting.binomial_tail_ge` / ``_le``, 40-digit
  mpmath, no code shared with the testers' Clopper-Pearson inversion) must be at most the
  bound's level; a bin's counts are taken from the recorded per-data-set counts and
  direction, so a bound computed from the other data set's count is refused;
* the histogram's certified Renyi divergence is at most log(sum pL^a qU^(1-a)) / (a - 1)
  recomputed in mpmath from the recorded bounds, and the strongest refuted parameter is
  at most what that divergence gives (relative slack 1e-12: the float of the log).

:func:`check_claim_alpha` returns the data-independent account (for the finding's
evidence) and raises :class:`~audit.privacy.blackbox.accounting.AlphaAccountingError`, an
internal error (exit 4), on any excess or departure.  Nothing here prints or writes files.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

import mpmath

from audit.privacy.blackbox.accounting import (
    AlphaAccountingError,
    lower_bound_unsafe,
    upper_bound_unsafe,
)

__all__ = ["check_claim_alpha", "event_record", "histogram_record"]

_DPS = 40
_REL = mpmath.mpf("1e-12")


def event_record(k_other: int, k_favoured: int, n: int, level: float, a_up: float,
                 b_up: float) -> dict[str, Any]:
    """What the event certificate must record for its account: the two counts on the
    ``n`` certification outputs per data set, the level of each bound, and the corner
    (a_U = the upper bound of P[E | other], b_U = 1 - the lower bound of P[E | favoured])."""
    return {"k_other": int(k_other), "k_favoured": int(k_favoured), "n": int(n),
            "level": float(level), "a_up": float(a_up), "b_up": float(b_up)}


def histogram_record(counts: Mapping[str, Sequence[int]], direction: int, n: int,
                     level: float, order: float, p_lower: Sequence[float],
                     q_upper: Sequence[float], divergence: float,
                     strongest: Mapping[str, float], per_order: bool) -> dict[str, Any]:
    """What the histogram certificate must record: the per-data-set bin counts, the
    direction (0: P = pair.first's law), the level per bound, the Renyi order, the bins'
    certified bounds, the certified divergence and the strongest refuted parameter
    (``per_order``: an RDP parameter, the divergence itself; else zCDP's rho = D / order)."""
    return {"counts": {k: [int(v) for v in vs] for k, vs in counts.items()},
            "direction": int(direction), "n": int(n), "level": float(level),
            "order": float(order), "p_lower": [float(v) for v in p_lower],
            "q_upper": [float(v) for v in q_upper], "divergence": float(divergence),
            "strongest": {k: float(v) for k, v in strongest.items()},
            "per_order": bool(per_order)}


def _event_errors(ev: Mapping[str, Any], n_plan: int) -> list[str]:
    n, lv = int(ev["n"]), mpmath.mpf(ev["level"])
    out = []
    if n != n_plan:
        out.append(f"event certified on {n} outputs per data set, planned {n_plan}")
    with mpmath.workdps(_DPS):
        p_lo = 1 - mpmath.mpf(ev["b_up"])  # exact: both are doubles in [0, 1]
        if lower_bound_unsafe(int(ev["k_favoured"]), n, p_lo, lv):
            out.append(f"event: 1 - b_U = {mpmath.nstr(p_lo, 17)} on {ev['k_favoured']}/{n} "
                       f"is above its exact level-{float(lv):.3g} Clopper-Pearson value")
        if upper_bound_unsafe(int(ev["k_other"]), n, mpmath.mpf(ev["a_up"]), lv):
            out.append(f"event: a_U = {ev['a_up']!r} on {ev['k_other']}/{n} is below its "
                       f"exact level-{float(lv):.3g} Clopper-Pearson value")
    return out


def _histogram_errors(h: Mapping[str, Any], n_plan: int) -> list[str]:
    n, lv = int(h["n"]), mpmath.mpf(h["level"])
    first, second = list(h["counts"]["first"]), list(h["counts"]["second"])
    kp, kq = (first, second) if int(h["direction"]) == 0 else (second, first)
    pl, qu = list(h["p_lower"]), list(h["q_upper"])
    out = []
    if n != n_plan:
        out.append(f"histogram certified on {n} outputs per data set, planned {n_plan}")
    if not len(kp) == len(kq) == len(pl) == len(qu):
        return out + [f"histogram: {len(kp)}/{len(kq)} bin counts for {len(pl)}/{len(qu)} "
                      "bounds"]
    if sum(kp) != n or sum(kq) != n:
        out.append(f"histogram: bin counts sum to {sum(kp)} and {sum(kq)}, not n = {n}")
    bad = [i for i in range(len(pl)) if lower_bound_unsafe(int(kp[i]), n, mpmath.mpf(pl[i]), lv)
           or upper_bound_unsafe(int(kq[i]), n, mpmath.mpf(qu[i]), lv)]
    if bad:
        out.append(f"histogram: the bounds of {len(bad)} of {len(pl)} bins (first: bin "
                   f"{bad[0]}) are on the unsafe side of their exact level-{float(lv):.3g} "
                   "Clopper-Pearson values for the recorded counts")
    with mpmath.workdps(_DPS):
        a = mpmath.mpf(h["order"])
        s = mpmath.fsum(mpmath.mpf(p) ** a * mpmath.mpf(q) ** (1 - a)
                        for p, q in zip(pl, qu, strict=True) if p > 0)
        d = mpmath.log(s) / (a - 1) if s > 0 else mpmath.ninf
        slack = abs(d) * _REL + mpmath.mpf("1e-300") if s > 0 else 0
        if mpmath.mpf(h["divergence"]) > d + slack:
            out.append(f"histogram: certified divergence {h['divergence']!r} exceeds "
                       f"{mpmath.nstr(d, 17)} from its bounds")
        implied = d if h["per_order"] else d / a
        for k, v in h["strongest"].items():
            if v > 0 and mpmath.mpf(v) > implied + abs(implied) * _REL + mpmath.mpf("1e-300"):
                out.append(f"histogram: strongest refuted {k} >= {v!r} exceeds the "
                           f"{mpmath.nstr(implied, 17)} its bounds give")
    return out


def check_claim_alpha(record: Mapping[str, Any], confidence: float,
                      n_certify: int) -> dict[str, Any]:
    """The exact account of a claim run's ``record`` (``{"alpha_total": float, "event":
    event_record(...), "histogram": histogram_record(...) or None, "family_level": float or
    None}``) against the user's
    ``confidence`` and the planned ``n_certify``; raises
    :class:`~audit.privacy.blackbox.accounting.AlphaAccountingError` (exit 4) on an excess,
    a departure from the plan or a bound on its unsafe side (module docstring)."""
    stated = Fraction(record["alpha_total"])
    problems: list[str] = []
    if stated != Fraction(1.0 - float(confidence)):
        problems.append(f"alpha {float(stated)!r} is not 1 - confidence = "
                        f"{1.0 - float(confidence)!r}")
    ev = record["event"]
    spent = 2 * Fraction(ev["level"])
    bounds = 2
    problems.extend(_event_errors(ev, int(n_certify)))
    h = record.get("histogram")
    if h is not None:
        bins = len(h["p_lower"])
        spent += 2 * bins * Fraction(h["level"])
        bounds += 2 * bins
        problems.extend(_histogram_errors(h, int(n_certify)))
    fam = record.get("family_level")
    if fam is not None:  # the Gaussian family tester's share (one two-sided fit)
        spent += Fraction(fam)
        bounds += 1
    if spent > stated:
        problems.append(f"levels sum to {float(spent)!r} > stated alpha {float(stated)!r} "
                        f"({bounds} one-sided bounds)")
    if problems:
        raise AlphaAccountingError(
            "dpaudit's claim tester miscounted its confidence level (a bug of dpaudit): "
            + "; ".join(problems[:3]))
    return {"ok": True, "alpha_stated": float(stated), "levels_within_alpha": True,
            "bounds_rederived": True,
            "certificates": "event + histogram" if h is not None else "event"}
