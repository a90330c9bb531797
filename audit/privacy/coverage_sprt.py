"""A truncated sequential probability ratio test of a tester's error rate, with its size,
power and expected number of runs computed exactly (``calibrate --coverage --quick``).

The fixed-size test of :mod:`audit.privacy.coverage_calibration` needs R = 200 runs to see
a doubled error rate (nominal 0.1 -> 0.2) with power 0.96; at the quick size R = 60 its
power is 0.42.  Wald's SPRT (Wald 1945) of H0: rate = p0 against H1: rate = p1 = 2 p0
looks after every run and stops as soon as the evidence is clear, which at rates near the
nominal one takes about as many runs as the fixed quick test while keeping most of the
large test's power.

Design (:func:`sprt_design`): after run n with S_n bad runs (an error, or a flag: a flag
at the claim implies a certified bound missed, so the event's rate is bounded by the same
nominal), stop and *refute* when S_n >= ``upper[n]``, stop and *accept* when S_n <=
``lower[n]``; at n = ``r_max`` refute iff S_n >= ``upper[r_max]``.  The boundaries are
Wald's lines log LR(S_n, n) >= log B and <= log A = log(beta / (1 - level)) rounded to
integers; log B starts at Wald's log((1 - beta) / level) and is raised until the exact
size is at most ``level``.

Exactness: every probability is a sum over paths of the binomial process, computed in
integers (p0, p1 as decimal fractions: P(path) = p^S (1 - p)^(n - S), numerators of a
common denominator den^n) and returned as :class:`fractions.Fraction` -- no simulation,
no Wald approximation.  The refuting event is increasing in the runs' outcomes (a run
turned bad can only refute earlier, never accept), so by coupling its probability under
any independent runs with rates <= p0 is at most the size at p0: the size bounds the false
alarm of a tester at or below its nominal rate.  Nothing here prints or writes.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from functools import cache

from kernels.errors import InvalidParameterError

__all__ = ["QUICK_BETA", "QUICK_MAX_RUNS", "SprtDesign", "SprtRun", "design_figures",
           "operating", "quick_design", "run_sprt", "sprt_design", "sprt_scope"]

#: ``calibrate --coverage --quick``: at most this many runs at the claim per case ...
QUICK_MAX_RUNS = 300
#: ... and this nominal miss rate at the doubled error rate (the exact power is stated)
QUICK_BETA = Fraction(1, 10)
#: the level of each case's test (as audit.privacy.coverage_calibration.LEVEL)
_LEVEL = Fraction(1, 100)


@dataclass(frozen=True)
class SprtDesign:
    """Boundaries of a truncated SPRT: index n - 1 holds run n's (``lower`` -1: no
    acceptance yet; ``upper`` > n: no refutation yet)."""

    p0: Fraction
    p1: Fraction
    level: Fraction
    beta: Fraction
    r_max: int
    upper: tuple[int, ...]
    lower: tuple[int, ...]
    log_b: float

    def decide(self, n: int, s: int) -> str | None:
        """``"refute"``, ``"accept"`` or None (go on) after run ``n`` with ``s`` bad."""
        if s >= self.upper[n - 1]:
            return "refute"
        if n >= self.r_max or s <= self.lower[n - 1]:
            return "accept"
        return None


@dataclass(frozen=True)
class SprtRun:
    """A run of the design: runs made, bad runs, the decision."""

    runs: int
    bad: int
    decision: str


def _boundaries(p0: Fraction, p1: Fraction, level: Fraction, beta: Fraction, r_max: int,
                log_b: float) -> tuple[tuple[int, ...], tuple[int, ...]]:
    up = math.log(p1 / p0)
    down = math.log((1 - p1) / (1 - p0))
    d = up - down  # each bad run adds `up`, each good one `down` (< 0) to log LR
    log_a = math.log(beta / (1 - level))
    upper = tuple(math.ceil((log_b - n * down) / d - 1e-12) for n in range(1, r_max + 1))
    lower = tuple(math.floor((log_a - n * down) / d + 1e-12) for n in range(1, r_max + 1))
    return upper, lower


def operating(design: SprtDesign, p: Fraction) -> tuple[Fraction, Fraction]:
    """(P(refute), expected runs) of ``design`` when every run is bad with probability
    ``p`` independently: exact sums over the paths (module docstring)."""
    p = Fraction(p)
    den = p.denominator
    bad, good = p.numerator, den - p.numerator
    w = [1]  # w[s]: den^n * P(S_n = s, not stopped)
    refute = Fraction(0)
    runs = Fraction(0)
    scale = 1
    for n in range(1, design.r_max + 1):
        new = [0] * (len(w) + 1)
        for s, x in enumerate(w):
            if x:
                new[s] += x * good
                new[s + 1] += x * bad
        scale *= den
        u, lo = design.upper[n - 1], design.lower[n - 1]
        last = n == design.r_max
        hit = sum(new[u:]) if u < len(new) else 0
        stop = sum(new) if last else hit + sum(new[:max(lo + 1, 0)])
        refute += Fraction(hit, scale)
        runs += Fraction(n * stop, scale)
        if last:
            break
        w = [0 if (s >= u or s <= lo) else x for s, x in enumerate(new)]
    return refute, runs


@cache
def sprt_design(p0: Fraction, level: Fraction, beta: Fraction, r_max: int,
                factor: int = 2) -> SprtDesign:
    """The truncated SPRT of rate ``p0`` against ``factor`` x ``p0`` with exact size <=
    ``level`` and nominal miss rate ``beta`` at the alternative, at most ``r_max`` runs."""
    p0, level, beta = Fraction(p0), Fraction(level), Fraction(beta)
    p1 = p0 * factor
    if not (0 < p0 < p1 < 1 and 0 < level < 1 and 0 < beta < 1) or r_max < 1:
        raise InvalidParameterError(f"an SPRT needs 0 < p0 < {factor} p0 < 1, level and beta "
                                    f"in (0, 1), r_max >= 1; got {p0}, {level}, {beta}, "
                                    f"{r_max}")
    log_b = math.log((1 - beta) / level)
    for _ in range(400):
        upper, lower = _boundaries(p0, p1, level, beta, r_max, log_b)
        d = SprtDesign(p0, p1, level, beta, r_max, upper, lower, log_b)
        if operating(d, p0)[0] <= level:
            return d
        log_b += 0.02
    raise InvalidParameterError("no SPRT boundary keeps the size within the level")


def run_sprt(design: SprtDesign, bad_run: Callable[[int], bool]) -> SprtRun:
    """Runs ``bad_run(i)`` for i = 0, 1, ... until ``design`` decides."""
    s = 0
    for n in range(1, design.r_max + 1):
        s += bool(bad_run(n - 1))
        decision = design.decide(n, s)
        if decision is not None:
            return SprtRun(n, s, decision)
    raise AssertionError("unreachable: the design decides at r_max")  # pragma: no cover


def quick_design(nominal: float) -> SprtDesign:
    """The ``--quick`` design for a case of nominal error rate ``nominal`` (its decimal
    text read exactly): level 0.01, at most :data:`QUICK_MAX_RUNS` runs."""
    return sprt_design(Fraction(repr(float(nominal))), _LEVEL, QUICK_BETA, QUICK_MAX_RUNS)


@cache
def design_figures(design: SprtDesign) -> dict[str, float | int]:
    """The design's exact operating figures (:func:`operating`), as floats for a report:
    size (false alarm at the nominal rate), power against the doubled rate, expected runs
    at each."""
    size, n0 = operating(design, design.p0)
    power, n1 = operating(design, design.p1)
    return {"size": float(size), "power_against_doubled_rate": float(power),
            "expected_runs_at_nominal": float(n0), "expected_runs_at_doubled": float(n1),
            "max_runs": design.r_max, "nominal": float(design.p0),
            "alternative": float(design.p1), "log_b": design.log_b}


def sprt_scope(design: SprtDesign, fig: dict[str, float | int], runs: int,
               seed: int) -> str:
    """The scope sentence of a case decided by ``design`` after ``runs`` runs."""
    return (f"truncated SPRT (Wald 1945) of an error-or-flag rate {float(design.p0):g} "
            f"against {float(design.p1):g}, stopped after R = {runs} of at most "
            f"{design.r_max} independent repetitions (seed {seed}); exact path sums: false "
            f"alarm at the nominal rate {fig['size']:.4f} (<= {float(design.level):g}), a "
            f"doubled rate detected with power {fig['power_against_doubled_rate']:.3f}, "
            f"expected runs {fig['expected_runs_at_nominal']:.1f} at the nominal rate and "
            f"{fig['expected_runs_at_doubled']:.1f} at the doubled one")
