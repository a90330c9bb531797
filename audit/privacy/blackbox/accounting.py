"""Exact alpha accounting of a black-box run, recomputed from what the run recorded.

The black-box testers' guarantee is a union bound: every one-sided Clopper-Pearson bound
that a verdict can rest on holds with probability >= 1 - its level, and the levels of all
of them (per look, per side, per certified event) sum to at most alpha = 1 - confidence.
An edit that spends the level twice (a Bonferroni factor dropped, alpha not split over
the sequential looks, a side forgotten) raises the false-alarm rate by a factor that a few
dozen coverage runs cannot see; this module sees it in every run, exactly:

* the sum of the recorded per-bound levels over the run's schedule (every planned look of
  the sequential test, both sides of every certified event of the fixed test) is compared
  with the stated alpha as Fractions of the recorded floats (no rounding);
* every certified one-sided bound is re-derived from its recorded counts by an evaluator
  that shares no code with :mod:`~audit.privacy.blackbox.statistics`: the exact binomial
  tail at the recorded bound, summed term by term in 40-digit mpmath arithmetic, must be
  at most the bound's level (a lower bound above the exact Clopper-Pearson quantile, or an
  upper bound below it, is refused);
* the recorded raw epsilon bound must not exceed log((p_lower - delta) / p_upper) computed
  in mpmath from the recorded bounds (relative slack 1e-12: float rounding of the log).

:func:`check_alpha` returns the account (stored in the run's details) and raises
:class:`AlphaAccountingError`, an internal error (exit 4), when the run spent more than it
states: a tester that miscounts its level is a bug of dpaudit, never a user's problem.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Any

import mpmath

from audit.rounding import float_up

__all__ = ["AlphaAccountingError", "binomial_tail_ge", "binomial_tail_le", "check_alpha",
           "check_shared_alpha", "confidence_share", "documented_batches",
           "lower_bound_unsafe", "upper_bound_unsafe"]

_DPS = 40
_STOP = mpmath.mpf(10) ** -45  # relative size of the last summed term


class AlphaAccountingError(RuntimeError):
    """The run's recorded levels sum to more than its stated alpha, or a recorded bound is
    on the unsafe side of its exact value: a bug in dpaudit's tester."""


def _term(n: int, j: int, p: Any) -> Any:
    """P[X = j] for X ~ Bin(n, p), 0 < p < 1 (mpmath, log-gamma)."""
    lg = mpmath.loggamma
    return mpmath.exp(lg(n + 1) - lg(j + 1) - lg(n - j + 1)
                      + j * mpmath.log(p) + (n - j) * mpmath.log1p(-p))


def binomial_tail_ge(k: int, n: int, p: float) -> Any:
    """P[X >= k], X ~ Bin(n, p), summed from j = k upward (40 digits).  Exact to the
    stated digits when k >= the mode (the terms then fall geometrically); otherwise the
    complement of :func:`binomial_tail_le` at k - 1."""
    with mpmath.workdps(_DPS):
        pp = mpmath.mpf(p)
        if k <= 0 or pp >= 1:
            return mpmath.mpf(1)
        if pp <= 0:
            return mpmath.mpf(0)
        if k < (n + 1) * pp:
            return 1 - binomial_tail_le(k - 1, n, p)
        t = _term(n, k, pp)
        total = t
        ratio_p = pp / (1 - pp)
        j = k
        while j < n and t > _STOP * total:
            t = t * (n - j) / (j + 1) * ratio_p
            total += t
            j += 1
        return total


def binomial_tail_le(k: int, n: int, p: float) -> Any:
    """P[X <= k], X ~ Bin(n, p), summed from j = k downward (40 digits); the complement of
    :func:`binomial_tail_ge` at k + 1 when k is above the mode."""
    with mpmath.workdps(_DPS):
        pp = mpmath.mpf(p)
        if k >= n or pp <= 0:
            return mpmath.mpf(1)
        if k < 0 or pp >= 1:
            return mpmath.mpf(0)
        if k > (n + 1) * pp:
            return 1 - binomial_tail_ge(k + 1, n, p)
        t = _term(n, k, pp)
        total = t
        ratio_q = (1 - pp) / pp
        j = k
        while j > 0 and t > _STOP * total:
            t = t * j / (n - j + 1) * ratio_q
            total += t
            j -= 1
        return total


def lower_bound_unsafe(k: int, n: int, lo: Any, level: Any) -> bool:
    """A lower bound ``lo`` on p from k of n is on its unsafe side: above the exact
    level-``level`` Clopper-Pearson value (k = 0: anything but 0)."""
    if k == 0:
        return bool(lo != 0)
    return bool(binomial_tail_ge(k, n, lo) > level)


def upper_bound_unsafe(k: int, n: int, hi: Any, level: Any) -> bool:
    """An upper bound ``hi`` on p from k of n is on its unsafe side: below the exact
    level-``level`` Clopper-Pearson value (k = n: anything but 1)."""
    if k == n:
        return bool(hi != 1)
    return bool(binomial_tail_le(k, n, hi) > level)


def _bound_errors(c: Mapping[str, Any], delta: float) -> list[str]:
    """What is wrong with one certified event's two bounds and raw epsilon (empty: fine)."""
    counts = c["counts"]
    n = int(counts["n"])
    kf, ko = ((counts["first"], counts["second"]) if int(c.get("direction_index", 0)) == 0
              else (counts["second"], counts["first"]))
    kf, ko = int(kf), int(ko)
    a = mpmath.mpf(c["alpha_per_bound"])
    lo, hi = float(c["p_favoured_lower"]), float(c["p_other_upper"])
    out = []
    if lower_bound_unsafe(kf, n, lo, a):
        out.append(f"lower bound {lo!r} with 0 of {n} events (must be 0)" if kf == 0 else
                   f"lower bound {lo!r} on {kf}/{n} is above its exact level-{float(a):.3g} "
                   "Clopper-Pearson value")
    if upper_bound_unsafe(ko, n, hi, a):
        out.append(f"upper bound {hi!r} with {n} of {n} events (must be 1)" if ko == n else
                   f"upper bound {hi!r} on {ko}/{n} is below its exact level-{float(a):.3g} "
                   "Clopper-Pearson value")
    raw = float(c["epsilon_lower_raw"])
    with mpmath.workdps(_DPS):
        num = mpmath.mpf(lo) - mpmath.mpf(delta)
        if hi > 0 and num > 0:
            exact = mpmath.log(num / mpmath.mpf(hi))
            if raw > exact + abs(exact) * mpmath.mpf("1e-12") + mpmath.mpf("1e-300"):
                out.append(f"raw epsilon bound {raw!r} exceeds log((p_lower - delta) / "
                           f"p_upper) = {mpmath.nstr(exact, 17)}")
        elif num <= 0 and raw > 0:  # (hi = 0 with num > 0: the log-ratio is +inf)
            out.append(f"raw epsilon bound {raw!r} > 0 with p_lower - delta <= 0")
    return out


def _decision_errors(c: Mapping[str, Any]) -> list[str]:
    """A sequential look's flag/clear decision rests on four one-sided bounds, each at the
    look's per-bound level (README: "at level alpha_r / 2 each"): each is re-derived from
    the look's counts like the certificate's."""
    b = c.get("decision_bounds")
    if not b:
        return []
    counts = c["counts"]
    n = int(counts["n"])
    kf, ko = ((counts["first"], counts["second"]) if int(c.get("direction_index", 0)) == 0
              else (counts["second"], counts["first"]))
    a = mpmath.mpf(c["alpha_per_bound"])
    # a bound equal to the certificate's (already re-derived by _bound_errors) is not redone
    done = {"favoured_lower": float(c["p_favoured_lower"]),
            "other_upper": float(c["p_other_upper"])}
    bad = []
    for name, k, lower in (("favoured_lower", int(kf), True), ("other_upper", int(ko), False),
                           ("favoured_upper", int(kf), False), ("other_lower", int(ko), True)):
        v = float(b[name])
        if done.get(name) == v:
            continue
        if (lower_bound_unsafe if lower else upper_bound_unsafe)(k, n, v, a):
            bad.append(name)
    return [f"look {c.get('round')}: the decision's {', '.join(bad)} bound(s) are on the "
            f"unsafe side of their exact level-{float(a):.3g} values"] if bad else []


def documented_batches(first: int, growth: int, n_max: int) -> list[int]:
    """The sequential schedule as documented (README, :mod:`~audit.privacy.blackbox.
    sequential`): ``first * growth^r`` while <= ``n_max``, at least two rounds (the second
    ``max(first, n_max)`` when the first growth step would pass ``n_max``)."""
    out = [int(first)]
    while out[-1] * int(growth) <= n_max:
        out.append(out[-1] * int(growth))
    return out if len(out) >= 2 else [int(first), int(max(first, n_max))]


def check_alpha(details: Mapping[str, Any], confidence: float,
                plan: tuple[int, int, int] | None = None) -> dict[str, Any]:
    """The exact account of a black-box run's ``details`` (fixed or sequential, as the
    testers record it): stated alpha, levels spent (as exact fractions shown as floats),
    bounds re-derived; ``plan = (first, growth, n_max)``: the sequential schedule must be the
    documented one; raises :class:`AlphaAccountingError` on any excess or departure.  A run that
    certified nothing (every pair crashed) has nothing to account: ``checked = 0``."""
    certified: Sequence[Mapping[str, Any]] = details.get("certified") or []
    if not certified:
        return {"ok": True, "certified": False}
    stated = Fraction(details["alpha_total"])
    problems: list[str] = []
    if stated != Fraction(1.0 - float(confidence)):
        problems.append(f"alpha {float(stated)!r} is not 1 - confidence = "
                        f"{1.0 - float(confidence)!r}")
    mode = details.get("mode")
    if mode == "sequential":
        per_look = [Fraction(a) for a in details["alpha_per_look"]]
        if plan is not None and list(details["schedule"]) != documented_batches(*plan):
            problems.append(f"schedule {list(details['schedule'])} is not the documented "
                            f"{documented_batches(*plan)} (first, growth, n = {plan})")
        if len(per_look) != len(details["schedule"]) - 1:
            problems.append(f"{len(per_look)} look levels for {len(details['schedule']) - 1} "
                            "planned looks")
        spent = sum(per_look, Fraction(0))
        for c in certified:
            r = int(c["round"])
            level = per_look[r - 1] if 1 <= r <= len(per_look) else Fraction(0)
            if 2 * Fraction(c["alpha_per_bound"]) > level:
                problems.append(f"look {r} spends 2 x {c['alpha_per_bound']!r} > its level "
                                f"{float(level)!r}")
        bounds = 2 * len(per_look)
    else:
        m = int(details["certified_events"])
        each = Fraction(details["alpha_per_bound"])
        if len(certified) > m:
            problems.append(f"{len(certified)} events certified, {m} accounted for")
        for c in certified:
            if Fraction(c["alpha_per_bound"]) > each:
                problems.append(f"an event certified at {c['alpha_per_bound']!r} > the "
                                f"accounted level {float(each)!r}")
        spent = 2 * m * each
        bounds = 2 * m
    if spent > stated:
        problems.append(f"levels sum to {float(spent)!r} > stated alpha {float(stated)!r} "
                        f"({bounds} one-sided bounds)")
    delta = float(details.get("delta", 0.0))
    for c in certified:
        problems.extend(_bound_errors(c, delta))
        problems.extend(_decision_errors(c))
    # only data-independent facts: the number of bounds can depend on the usable pairs
    account = {"ok": not problems, "alpha_stated": float(stated),
               "levels_within_alpha": spent <= stated, "bounds_rederived": True}
    if problems:
        raise AlphaAccountingError(
            "dpaudit's black-box tester miscounted its confidence level (a bug of dpaudit): "
            + "; ".join(problems[:3]))
    return account


def confidence_share(confidence: float, parts: int) -> float:
    """The confidence of each of ``parts`` testers that share alpha = 1 - ``confidence``
    (union bound): the smallest double c >= 1 - alpha / parts (exact Fraction), so that
    ``parts`` x (1 - c) <= alpha exactly (1 - c is exact in floats for c >= 1/2; the float
    expression ``1 - (1 - confidence) / parts`` gave each part alpha / 2 + 1 ulp at the
    default 0.9)."""
    if int(parts) <= 1:
        return float(confidence)
    return float_up(1 - Fraction(1.0 - float(confidence)) / int(parts))


def check_shared_alpha(alphas: Sequence[float], confidence: float, what: str) -> dict[str, Any]:
    """Testers sharing one confidence (e.g. ``dpaudit test``'s real-number and float-bit
    kinds): their stated alphas (each already accounted by :func:`check_alpha`) summed as
    Fractions must not exceed 1 - ``confidence``; raises :class:`AlphaAccountingError`."""
    spent = sum((Fraction(a) for a in alphas), Fraction(0))
    stated = Fraction(1.0 - float(confidence))
    if spent > stated:
        raise AlphaAccountingError(
            f"dpaudit's {what} miscounted its confidence level (a bug of dpaudit): "
            f"{len(alphas)} testers spend {float(spent)!r} > 1 - confidence = "
            f"{float(stated)!r}")
    return {"ok": True, "testers": len(alphas), "alpha_stated": float(stated)}
