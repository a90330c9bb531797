"""Coverage calibration of the privacy testers: is each tester's error rate within its
nominal level, measured by repeating the test?

:mod:`audit.privacy.calibration` runs every known mechanism *once* and checks the verdict;
that cannot see a tester whose 90 % guarantee has silently become 60 %.  Here every tester
is repeated ``R`` times with independent seeds on a mechanism whose law is known exactly and
whose true epsilon sits exactly at the claim, at small sample sizes, and the number of
*errors* is tested against the tester's nominal error rate with an exact one-sided binomial
test.

What counts as an error (the event each tester's guarantee bounds):

* black-box testers (fixed and sequential schedule, threshold/interval/discrete events and the
  float-bit events): the guarantee is that, with probability >= ``confidence``, *every*
  one-sided Clopper-Pearson bound the tester certifies (two per certified event and look)
  holds for the true probability of its event (module docstrings of
  :mod:`audit.privacy.blackbox` and :mod:`audit.privacy.sequential`: the union bound).  A
  repetition is an error when any certified bound misses the event's true probability,
  computed exactly from the mechanism's law (Laplace: closed-form cdf; two-sided geometric:
  sum of its pmf over the event's support points, evaluated with the event's own mask).
  This is the quantity the union bound controls, so a correct tester's rate is close to (and
  below) 1 - confidence: a level split wrongly, confidence spent in full at every look, or
  certification on the selection samples inflates it.  The verdict false alarm (claim
  flagged although the true epsilon equals it) is a sub-event, reported too.
* the exact-loss tester (deterministic, certified, rounded outward): an error is a certified
  interval [value_down, epsilon_up] of the worst neighbour found that does not contain the
  true worst-case loss of the data set; nominal rate 0.
* subjects add their own cases (a ``coverage_calibration`` hook in their
  :class:`audit.registry.Subject`), e.g. the statistical links of a certify chain.

Power: each tester is also run on *twins* whose true epsilon is 2x and 1.2x the claim; the
flag rate is reported, and a tester whose flag rate on the 2x twin is significantly below
the case's stated floor (binomial test) is refuted as blind.

Statistics of the calibration itself: one-sided exact binomial test of H0 "error rate <=
nominal" at level :data:`LEVEL` per case; the smallest error rate the test detects with
power 0.8 at the R used is reported (e.g. R = 200, nominal 0.1: 0.19).  With ``quick`` the
black-box cases of nominal rate 0.1 use a truncated SPRT instead
(:mod:`audit.privacy.coverage_sprt`: at most 300 runs, exact size 0.0078, power 0.897
against a doubled rate, 62.6 runs expected at the nominal rate); ``reps`` keeps the fixed
test.

Nothing here prints or writes files.
"""

from __future__ import annotations

import math
import time
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np
from scipy import stats

from audit.findings import Finding, Method, Verdict, counterexample_document
from audit.privacy.blackbox import BlackBoxTester, Event
from audit.privacy.coverage_sprt import (
    SprtDesign,
    design_figures,
    quick_design,
    run_sprt,
    sprt_scope,
)
from audit.privacy.exact_loss import worst_neighbour
from audit.privacy.mechanisms import LaplaceMechanism
from audit.protocols import ADD_REMOVE_ONE, REPLACE_ONE, NeighbourPair
from kernels.errors import InvalidParameterError
from kernels.validate import as_data, check_epsilon, check_rng

__all__ = [
    "LEVEL",
    "TWINS",
    "CoverageCase",
    "GeometricMechanism",
    "Trial",
    "all_cases",
    "binomial_excess",
    "bound_misses",
    "detectable_rate",
    "discrete_event_probability",
    "generic_cases",
    "laplace_event_probability",
    "run_case",
    "run_coverage",
    "selected",
]

#: significance level of each case's binomial test (false alarm of ``calibrate --coverage``
#: per case; <= 1 - 0.99^cases over all cases)
LEVEL = 0.01
#: the twins' true epsilon as multiples of the claim
TWINS: tuple[float, ...] = (2.0, 1.2)
_POWER = 0.8  # power at which the detectable error rate is stated
_REL = 1e-12  # relative slack when comparing a bound with a float-computed true probability


# --------------------------------------------------------------------------- mechanisms
@dataclass(frozen=True)
class GeometricMechanism:
    """``f(D) + G`` with G two-sided geometric, P(G = k) = (1 - q) / (1 + q) q^|k|,
    q = exp(-epsilon / sensitivity) (Ghosh, Roughgarden & Sundararajan 2009): integer
    outputs, exactly epsilon-DP for an integer query of that sensitivity; on a pair with
    |f(D) - f(D')| = sensitivity its loss is exactly epsilon.  Query: the sum of integer
    records.  ``true_epsilon`` != ``epsilon`` gives a twin that claims ``epsilon``."""

    epsilon: float
    true_epsilon: float | None = None
    sensitivity: int = 1
    relation: str = REPLACE_ONE
    name: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        check_epsilon(self.epsilon)
        if self.true_epsilon is not None:
            check_epsilon(self.true_epsilon)
        if not self.name:
            object.__setattr__(self, "name", f"geometric[eps={self.epsilon:g}]")

    @property
    def claimed_epsilon(self) -> float:
        return float(self.epsilon)

    @property
    def q(self) -> float:
        e = self.epsilon if self.true_epsilon is None else self.true_epsilon
        return math.exp(-float(e) / self.sensitivity)

    def value(self, dataset: Any) -> float:
        d = as_data(dataset, "dataset", min_n=0)
        if np.any(d != np.round(d)):
            raise InvalidParameterError("the geometric mechanism's records must be integers")
        return float(np.sum(d))

    def sample(self, dataset: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        rng = check_rng(rng)
        p = 1.0 - self.q
        g = rng.geometric(p, size) - rng.geometric(p, size)
        return self.value(dataset) + g.astype(np.float64)

    def support(self, dataset: Any, mass: float = 1e-300) -> tuple[np.ndarray, np.ndarray]:
        """(support points, pmf) truncated where the two tails' mass is below ``mass``."""
        q = self.q
        k = int(math.ceil(math.log(mass) / math.log(q))) + 1
        ks = np.arange(-k, k + 1, dtype=np.float64)
        pmf = (1.0 - q) / (1.0 + q) * np.exp(np.abs(ks) * math.log(q))
        return self.value(dataset) + ks, pmf


# ------------------------------------------------------------------- exact event laws
def laplace_event_probability(event: Event, location: float, scale: float) -> float:
    """P(E) for a one-column event of a threshold/interval/equality kind under
    location + Lap(scale) (closed-form cdf, each tail on its accurate side)."""
    def sf(t: float) -> float:  # P(Y > t)
        z = (t - location) / scale
        return 0.5 * math.exp(-z) if z >= 0 else 1.0 - 0.5 * math.exp(z)

    def cdf(t: float) -> float:  # P(Y < t) = P(Y <= t)
        z = (t - location) / scale
        return 0.5 * math.exp(z) if z < 0 else 1.0 - 0.5 * math.exp(-z)

    if event.pattern:
        raise InvalidParameterError("pattern events have no law on a one-column output")
    k = event.kind
    if k == "gt":
        return sf(event.a)
    if k == "lt":
        return cdf(event.a)
    if k == "in":
        za, zb = (event.a - location) / scale, (event.b - location) / scale
        if za >= 0:  # both in the upper tail: sf(a) - sf(b) without cancellation
            return 0.5 * math.exp(-za) * -math.expm1(za - zb)
        if zb < 0:
            return 0.5 * math.exp(zb) * -math.expm1(za - zb)
        return sf(event.a) - sf(event.b)
    if k in ("eq", "f32", "bits"):
        return 0.0  # a continuous law puts no mass on a point (float grids: see docstring)
    if k in ("present", "all"):
        return 1.0
    if k == "absent":
        return 0.0
    raise InvalidParameterError(f"no Laplace law for event kind {k!r}")


def discrete_event_probability(event: Event, points: np.ndarray, pmf: np.ndarray) -> float:
    """P(E) for a law on ``points`` with probabilities ``pmf``: the event's own mask on the
    support (exact up to the truncation and float summation, ~1e-16 relative)."""
    m = event.mask(np.asarray(points, dtype=np.float64).reshape(-1, 1))
    return float(np.sum(pmf[m]))


def bound_misses(certified: Sequence[dict[str, Any]],
                 truth: Callable[[Event, int], float]) -> int:
    """How many one-sided bounds of the certificates miss their event's true probability.

    ``certified``: the tester's certified entries (``details["certified"]``: one per event
    and look); ``truth(event, which)``: P(E) under data set ``which`` (0 = pair.first).
    The favoured data set's lower bound misses when it exceeds the truth, the other's
    upper bound when it is below it (relative slack 1e-12 for the float truth)."""
    misses = 0
    for c in certified:
        ev = Event.from_dict(c["event_spec"])
        fav = int(c["direction_index"])
        p_fav, p_oth = truth(ev, fav), truth(ev, 1 - fav)
        misses += c["p_favoured_lower"] > p_fav * (1 + _REL) + 1e-300
        misses += c["p_other_upper"] < p_oth * (1 - _REL)
    return misses


# ------------------------------------------------------------------------ the binomial
def binomial_excess(k: int, r: int, nominal: float) -> float:
    """One-sided exact binomial p-value of ``k`` errors in ``r`` runs under H0: rate <=
    ``nominal`` (P(X >= k), X ~ Bin(r, nominal)); 1 when k = 0, 0 when nominal = 0 < k."""
    if k <= 0:
        return 1.0
    if nominal <= 0.0:
        return 0.0
    return float(stats.binom.sf(k - 1, r, nominal))


def detectable_rate(r: int, nominal: float, level: float = LEVEL,
                    power: float = _POWER) -> tuple[int, float]:
    """(k_crit, q): the test refutes at ``k >= k_crit`` errors, and an error rate q is
    detected with probability >= ``power`` (the smallest such q, by bisection)."""
    k = 1
    while binomial_excess(k, r, nominal) > level:
        k += 1
    lo, hi = nominal, 1.0
    for _ in range(60):
        mid = (lo + hi) / 2
        if stats.binom.sf(k - 1, r, mid) >= power:
            hi = mid
        else:
            lo = mid
    return k, hi


# ------------------------------------------------------------------------- the cases
@dataclass(frozen=True)
class Trial:
    """One repetition: ``error`` (the event the guarantee bounds happened), ``flagged``
    (the claim was flagged), and a few figures for the report."""

    error: bool
    flagged: bool
    figures: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class CoverageCase:
    """A tester on a mechanism with a known law: ``trial(seed, factor)`` runs the tester
    once on the mechanism whose true epsilon is ``factor`` x the claim (``factor = 1``: at
    the claim) and says whether an error happened and whether the claim was flagged."""

    key: str
    tester: str
    description: str
    nominal: float  # the tester's stated error rate bound
    error_means: str  # what an error is, in words
    trial: Callable[[int, float], Trial]
    reps: int = 200  # R at the default size
    #: a sequential test instead of the fixed R (``--quick``: :mod:`audit.privacy.coverage_sprt`)
    sprt: SprtDesign | None = None
    power_reps: int = 40  # runs per twin
    power_floor: float = 0.0  # the 2x twin's flag rate must not be significantly below this
    method: Method = Method.EMPIRICAL
    reference: str = "DESIGN.md 'Privacy testing'; Clopper & Pearson 1934"


def _laplace_pair() -> NeighbourPair:
    xs = np.array([0.0, 0.0])
    return NeighbourPair(xs, np.array([0.0, 1.0]), REPLACE_ONE,
                         {"op": "replace", "rank": 1, "new": 1.0})


def _geometric_pair() -> NeighbourPair:
    xs = np.array([0.0, 0.0])
    return NeighbourPair(xs, np.array([0.0, 1.0]), REPLACE_ONE,
                         {"op": "replace", "rank": 1, "new": 1.0})


def _rng(seed: int, *tags: int) -> np.random.Generator:
    return np.random.default_rng(np.random.SeedSequence([int(seed), *tags]))


def _certified(res: Any) -> list[dict[str, Any]]:
    return list(res.details.get("certified") or res.details.get("looks") or [])


def _accounted(res: Any) -> dict[str, Any]:
    """The run's exact level account (:mod:`audit.privacy.blackbox.accounting`; a run that
    overspent raised before this point): counted per case in the Finding's evidence."""
    acc = res.details.get("alpha_accounting")
    return {} if acc is None else {"level_accounted": bool(acc.get("ok"))}


def _blackbox_laplace(tester: BlackBoxTester, claim: float) -> Callable[[int, float], Trial]:
    pair = _laplace_pair()

    def trial(seed: int, factor: float) -> Trial:
        mech = LaplaceMechanism(claim, noise_scale_factor=1.0 / factor)
        res = tester.run(mech, [pair], _rng(seed, 1))
        locs = (float(np.sum(pair.first)), float(np.sum(pair.second)))

        def truth(ev: Event, which: int) -> float:
            return laplace_event_probability(ev, locs[which], mech.scale)

        cert = _certified(res)
        miss = bound_misses(cert, truth)
        return Trial(miss > 0, bool(res.violates),
                     {"bounds": 2 * len(cert), "misses": miss,
                      "epsilon_lower": float(res.epsilon_lower or 0.0),
                      **_accounted(res)})

    return trial


def _blackbox_geometric(tester: BlackBoxTester, claim: float) -> Callable[[int, float], Trial]:
    pair = _geometric_pair()

    def trial(seed: int, factor: float) -> Trial:
        mech = GeometricMechanism(claim, true_epsilon=claim * factor)
        res = tester.run(mech, [pair], _rng(seed, 2))
        laws = (mech.support(pair.first), mech.support(pair.second))

        def truth(ev: Event, which: int) -> float:
            return discrete_event_probability(ev, *laws[which])

        cert = _certified(res)
        miss = bound_misses(cert, truth)
        return Trial(miss > 0, bool(res.violates),
                     {"bounds": 2 * len(cert), "misses": miss,
                      "epsilon_lower": float(res.epsilon_lower or 0.0),
                      **_accounted(res)})

    return trial


def _exact_trial(mech: LaplaceMechanism, xs: np.ndarray, eps: float, truth: float,
                 n: int) -> Trial:
    """The worst-neighbour search on ``xs``; an error is (a) the certified interval
    [value_down, epsilon_up] of the pair it certifies not containing that pair's exact loss
    |a - a'| / b, with the neighbour rebuilt here from the reported change (equal Laplace
    scales: a rational number of the float locations and scale, compared with no slack: the
    outward rounding is tested), or (b) its epsilon_up below the true worst-case loss
    ``truth`` (relative slack 1e-12 for the float query)."""
    s = worst_neighbour(mech, xs, lower=0.0, upper=1.0, max_evals=400, certify_top=2,
                        time_budget_s=None)
    if s.worst is None or s.worst.certified is None:
        return Trial(True, False, {"truth": truth, "problem": "no pair certified"})
    k = s.worst.certified.kernel
    # the certified pair's neighbour rebuilt here from its stated change (so a neighbour
    # generator that builds something else than "xs with one record changed" is an error)
    ch = s.worst.change
    if ch["op"] == "replace":
        ys = xs.copy()
        ys[int(ch["rank"])] = float(ch["new"])
    elif ch["op"] == "add":
        ys = np.append(xs, float(ch["new"]))
    else:
        ys = np.delete(xs, int(ch["rank"]))
    (a, b), (a2, b2) = mech.location_scale(xs), mech.location_scale(np.sort(ys))
    pair_exact = abs(Fraction(a) - Fraction(a2)) / Fraction(b)
    contains = (b == b2 and Fraction(k.value_down) <= pair_exact <= Fraction(k.epsilon_up))
    err = not contains or k.epsilon_up < truth * (1 - _REL)
    # flagged: beyond the float query's own rounding (a float sum or mean of the records can
    # move by one ulp more than the real one: the float mechanism's loss then exceeds eps by
    # ~1e-16 relative, which the tester rightly reports but is not what the twins measure)
    return Trial(err, bool(k.value_down > eps * (1 + _REL)),
                 {"truth": truth, "pair_exact": float(pair_exact), "epsilon_up": k.epsilon_up,
                  "value_down": k.value_down, "n": n, "epsilon": eps,
                  "change": dict(s.worst.change)})


def _exact_loss_trial(seed: int, factor: float) -> Trial:
    """A random data set in [0, 1] (n = 3..8 records, or 70..100: more distinct values than
    the neighbour generator enumerates), the mean + Lap(1 / (n eps)) release (sensitivity
    1/n; a twin divides the scale by ``factor``): the worst neighbour replaces the record
    farthest from 1/2 by the opposite end, true loss = factor * eps * max_i max(x_i,
    1 - x_i).  Error: the certified interval [value_down, epsilon_up] of the worst neighbour
    found misses the true loss."""
    rng = _rng(seed, 3)
    n = int(rng.integers(3, 9)) if rng.random() < 0.5 else int(rng.integers(70, 101))
    eps = float(rng.choice([0.1, 0.5, 1.0, 2.0]))
    xs = np.sort(rng.uniform(0.0, 1.0, n))
    mech = LaplaceMechanism(eps, sensitivity=1.0 / n, query=np.mean,
                            noise_scale_factor=1.0 / factor)
    truth = factor * eps * float(np.max(np.maximum(xs, 1.0 - xs)))
    return _exact_trial(mech, xs, eps, truth, n)


def _exact_loss_add_remove_trial(seed: int, factor: float) -> Trial:
    """Add/remove-one: the sum of n = 2..8 records in [0, 1] + Lap(1/eps) (a twin divides
    the scale by ``factor``): the worst neighbour adds a record 1, true loss = factor * eps
    (a removal changes the sum by x_i <= 1).  Error as for the replace-one case."""
    rng = _rng(seed, 5)
    n = int(rng.integers(2, 9))
    eps = float(rng.choice([0.1, 0.5, 1.0, 2.0]))
    xs = np.sort(rng.uniform(0.0, 1.0, n))
    mech = LaplaceMechanism(eps, relation=ADD_REMOVE_ONE, noise_scale_factor=1.0 / factor)
    truth = factor * eps
    return _exact_trial(mech, xs, eps, truth, n)


def _binomial_tail_ge(k: int, n: int, p: float) -> Any:
    """P(X >= k), X ~ Bin(n, p), summed exactly at the current mpmath precision."""
    pm = mpmath.mpf(p)
    qm = 1 - pm
    return mpmath.fsum(mpmath.binomial(n, j) * pm**j * qm ** (n - j) for j in range(k, n + 1))


def _clopper_pearson_trial(seed: int, factor: float) -> Trial:
    """One (k, n, alpha) drawn at random (n log-uniform in 1..500, alpha in {0.05, 0.025,
    0.005}); an error is a one-sided bound on the unsafe side of the exact binomial tail:
    P_{p_L}(X >= k) > alpha or P_{p_U}(X <= k) > alpha (40-digit sums).  ``factor`` is
    unused (a deterministic bound has no twin)."""
    from audit.privacy.blackbox import clopper_pearson_lower, clopper_pearson_upper

    rng = _rng(seed, 6)
    n = int(10 ** rng.uniform(0.0, 2.7))
    k = int(rng.integers(0, n + 1))
    a = float(rng.choice([0.05, 0.025, 0.005]))
    lo, hi = float(clopper_pearson_lower(k, n, a)), float(clopper_pearson_upper(k, n, a))
    with mpmath.workdps(40):
        t_lo = _binomial_tail_ge(k, n, lo) if k > 0 else mpmath.mpf(0)
        t_hi = 1 - _binomial_tail_ge(k + 1, n, hi) if k < n else mpmath.mpf(0)
        err = bool(t_lo > a or t_hi > a)
    return Trial(err, False, {"k": k, "n": n, "alpha": a, "lower": lo, "upper": hi,
                              "tail_at_lower": float(t_lo), "tail_at_upper": float(t_hi)})


def generic_cases(quick: bool = False) -> list[CoverageCase]:
    """The engine's cases (mechanisms that name no paper)."""
    r = 60 if quick else 200
    sq = quick_design(0.1) if quick else None  # quick: the SPRT (coverage_sprt), not R = 60
    fixed = BlackBoxTester(n_select=2000, n_certify=4000, confidence=0.9)
    seq = BlackBoxTester(n_select=4000, n_certify=16_000, confidence=0.9, sequential=True,
                         seq_first=250)
    bits = BlackBoxTester(n_select=2000, n_certify=4000, confidence=0.9, float_grid=True,
                          intervals=False)
    return [
        CoverageCase(
            "clopper-pearson-exact", "Clopper-Pearson bounds (the testers' statistics)",
            "random (k, n <= 500, alpha); each one-sided bound against the exact binomial "
            "tail at 40 digits", 0.0,
            "a bound on the unsafe side of the exact tail (P > alpha at the bound)",
            _clopper_pearson_trial, reps=10 if quick else 30, power_reps=0,
            method=Method.CROSSCHECK,
            reference="Clopper & Pearson 1934; exact binomial tail (mpmath)"),
        CoverageCase(
            "blackbox-fixed-laplace", "black-box, fixed schedule",
            "Laplace, epsilon = 1 at the claim, pair sums 0 / 1; 2,000 selection + 4,000 "
            "certification draws per data set, 90 % confidence",
            0.1, "a certified Clopper-Pearson bound misses its event's true probability",
            _blackbox_laplace(fixed, 1.0), reps=r, power_floor=0.5, sprt=sq),
        CoverageCase(
            "blackbox-fixed-geometric", "black-box, fixed schedule",
            "two-sided geometric, epsilon = 0.5 at the claim, pair sums 0 / 1; same sizes",
            0.1, "a certified Clopper-Pearson bound misses its event's true probability",
            _blackbox_geometric(fixed, 0.5), reps=r, power_floor=0.3, sprt=sq),
        CoverageCase(
            "blackbox-sequential-laplace", "black-box, sequential schedule",
            "Laplace, epsilon = 1 at the claim; batches 250 x 2^r up to 16,000 (6 looks), "
            "selection pool 4,000, 90 % confidence spent over the looks",
            0.1, "a bound of any look misses its event's true probability",
            _blackbox_laplace(seq, 1.0), reps=r, power_floor=0.5, sprt=sq),
        CoverageCase(
            "float-bits-geometric", "black-box, float-bit events on",
            "two-sided geometric (integer outputs on the float grid), epsilon = 0.5; float-grid "
            "event family on, 2,000 + 4,000 draws per data set, 90 % confidence",
            0.1, "a certified bound (float-bit, equality or threshold event) misses its "
            "event's true probability",
            _blackbox_geometric(bits, 0.5), reps=r, power_floor=0.3, sprt=sq),
        CoverageCase(
            "exact-loss-mean", "exact loss + worst-neighbour search",
            "mean of n = 3..8 or 70..100 records in [0, 1] + Lap(1/(n eps)), eps in "
            "{0.1, 0.5, 1, 2}, random data per run, replace-one; worst neighbour known in "
            "closed form",
            0.0, "the certified [value_down, epsilon_up] of the worst neighbour found misses "
            "the true worst-case loss", _exact_loss_trial, reps=20 if quick else 60,
            power_reps=10, power_floor=0.8, method=Method.CROSSCHECK,
            reference="mpmath-certified loss vs closed form eps * max_i max(x_i, 1 - x_i)"),
        CoverageCase(
            "exact-loss-sum-add-remove", "exact loss + worst-neighbour search",
            "sum of n = 2..8 records in [0, 1] + Lap(1/eps), add/remove-one, random data "
            "per run; worst neighbour (add a 1) known in closed form",
            0.0, "the certified [value_down, epsilon_up] of the worst neighbour found misses "
            "the true worst-case loss", _exact_loss_add_remove_trial,
            reps=10 if quick else 30, power_reps=10, power_floor=0.8,
            method=Method.CROSSCHECK,
            reference="mpmath-certified loss vs closed form eps (add a record at the upper "
            "bound)"),
    ]


def all_cases(quick: bool = False) -> list[CoverageCase]:
    """The engine's cases, then every installed subject's (its ``coverage_calibration``
    hook, called with ``quick``).  A hook that fails to load raises
    :class:`audit.registry.SubjectLoadError` naming it: a run never passes with a subject's
    cases silently missing."""
    from audit import registry

    cases = generic_cases(quick)
    for s in registry.subjects().values():
        hook = getattr(s, "coverage_calibration", None)
        if hook:
            cases.extend(registry.resolve(hook)(quick))
    return cases


# --------------------------------------------------------------------------- running
def selected(key: str, only: str | None) -> bool:
    """``only`` None/empty: every case; else the key contains one of its comma-separated
    texts."""
    if not only:
        return True
    return any(t.strip() and t.strip() in key for t in only.split(","))


def _seed_of(seed: int, key: str, rep: int, twin: int) -> int:
    """The repetition's seed: from the run seed, the case's key (so adding a case changes no
    other case's draws), the repetition and the twin."""
    tag = zlib.crc32(key.encode("utf-8"))
    return int(np.random.SeedSequence([int(seed), tag, rep, twin]).generate_state(1)[0])


def run_case(case: CoverageCase, seed: int, reps: int | None = None,
             power_reps: int | None = None) -> Finding:
    """R repetitions at the claim and ``power_reps`` on each twin; the Finding (module
    docstring for the test and the verdict)."""
    t0 = time.perf_counter()
    r = case.reps if reps is None else int(reps)
    pr = case.power_reps if power_reps is None else int(power_reps)
    if r < 1 or pr < 0:
        raise InvalidParameterError(f"reps must be >= 1 and power_reps >= 0, got {r}, {pr}")
    tally = {"errors": 0, "flags": 0, "accounted": 0}
    first_error: dict[str, Any] | None = None

    def boundary_run(i: int) -> bool:
        nonlocal first_error
        s = _seed_of(seed, case.key, i, 0)
        t = case.trial(s, 1.0)
        tally["errors"] += t.error
        tally["flags"] += t.flagged
        tally["accounted"] += bool(t.figures.get("level_accounted"))
        if t.error and first_error is None:
            first_error = {"trial_seed": s, **t.figures}
        return bool(t.error or t.flagged)

    design = case.sprt if reps is None else None  # --reps: the fixed-size test
    seq = None
    if design is None:
        for i in range(r):
            boundary_run(i)
    else:
        seq = run_sprt(design, boundary_run)
        r = seq.runs
    errors, flags, accounted = tally["errors"], tally["flags"], tally["accounted"]
    p_err = binomial_excess(errors, r, case.nominal)
    p_flag = binomial_excess(flags, r, case.nominal)
    k_crit, q_det = detectable_rate(r, case.nominal)
    # the probability that this R refutes a tester whose error rate doubled
    power_double = (float(stats.binom.sf(k_crit - 1, r, min(1.0, 2 * case.nominal)))
                    if case.nominal > 0 else None)
    sprt_doc = None if design is None else design_figures(design)
    if sprt_doc is not None:
        power_double = sprt_doc["power_against_doubled_rate"]
    power: dict[str, Any] = {}
    blind_p = 1.0
    for j, f in enumerate(TWINS, 1):
        if pr == 0:
            break
        hit = sum(case.trial(_seed_of(seed, case.key, i, j), f).flagged for i in range(pr))
        power[f"{f:g}x"] = {"flagged": hit, "runs": pr, "rate": hit / pr}
        if f == 2.0 and case.power_floor > 0:
            blind_p = float(stats.binom.cdf(hit, pr, case.power_floor))
    # the SPRT decides on its own boundaries (a fixed-size p-value after optional stopping
    # is no test); the fixed-size test on the p-values
    inflated = (seq.decision == "refute" if seq is not None else
                p_err < LEVEL or p_flag < LEVEL)
    blind = blind_p < LEVEL
    verdict = Verdict.REFUTED if (inflated or blind) else Verdict.NOT_REFUTED
    cx = None
    if verdict is Verdict.REFUTED:
        what = []
        if inflated:
            what.append(f"{errors} errors in {r} runs against a nominal rate "
                        f"{case.nominal:g} (" + (f"binomial p = {min(p_err, p_flag):.3g}"
                                                 if seq is None or design is None else
                                                 f"the SPRT's boundary: {seq.bad} errors "
                                                 f"or flags >= {design.upper[r - 1]} at "
                                                 f"run {r}")
                        + ")")
        if blind:
            what.append(f"flag rate on the 2x twin {power['2x']['rate']:.2f} significantly "
                        f"below its floor {case.power_floor:g} (p = {blind_p:.3g})")
        cx = counterexample_document(
            f"coverage.{case.key}", "testers:audit.privacy",
            {"case": case.key, "seed": seed, "reps": r, "power_reps": pr,
             "first_error": first_error},
            {"error_rate_at_most": case.nominal, "twin_2x_flag_rate_at_least": case.power_floor},
            {"errors": errors, "false_alarms": flags, "power": power},
            {"level": LEVEL}, "; ".join(what))
    return Finding(
        id=f"coverage.{case.key}",
        claim=f"{case.tester}: on '{case.description}' (true epsilon at the claim) the rate "
        f"of '{case.error_means}' is at most {case.nominal:g}",
        reference=case.reference,
        method=case.method,
        verdict=verdict,
        scope=(f"R = {r} independent repetitions (seed {seed}); exact one-sided binomial test "
               f"at level {LEVEL:g}: refutes at >= {k_crit} errors, detects an error rate of "
               f"{q_det:.3g} with power {_POWER:g}" + (
                   "" if power_double is None else
                   f", a doubled rate with power {power_double:.2f}")
               if design is None or sprt_doc is None else
               sprt_scope(design, sprt_doc, r, seed))
        + f"; level accounting re-counted exactly in {accounted} of {r} runs; twins at "
        f"{', '.join(f'{f:g}x' for f in TWINS)} the claim, {pr} runs each",
        evidence={"tester": case.tester, "runs": r, "errors": errors,
                  "error_rate": errors / r, "false_alarms": flags,
                  "false_alarm_rate": flags / r, "nominal": case.nominal,
                  "binomial_p_value": p_err, "false_alarm_p_value": p_flag,
                  "refutes_at_errors": k_crit, "detectable_rate_power_0.8": q_det,
                  "power_against_doubled_rate": power_double,
                  "runs_with_exact_level_accounting": accounted,
                  "power": power, "power_floor_2x": case.power_floor,
                  "blind_p_value": blind_p, "first_error": first_error,
                  **({} if sprt_doc is None else {"sprt": {**sprt_doc, "runs": r,
                                                           "bad_runs": seq.bad if seq else 0,
                                                           "decision": seq.decision if seq
                                                           else None}})},
        counterexample=cx,
        seed=seed,
        duration_s=time.perf_counter() - t0,
        subject="testers:audit.privacy",
        tolerance={"level": LEVEL},
    )


def run_coverage(seed: int = 0, quick: bool = False, reps: int | None = None,
                 only: str | None = None,
                 on_finding: Callable[[Finding], None] | None = None,
                 ) -> tuple[list[Finding], list[dict[str, Any]]]:
    """Every case (``only``: keys containing this text, or any of several comma-separated
    texts; ``reps``: R for every case instead of its default); returns the Findings and a bar
    figure (error rate vs nominal)."""
    findings = []
    for case in all_cases(quick):
        if not selected(case.key, only):
            continue
        f = run_case(case, seed, reps)
        findings.append(f)
        if on_finding is not None:
            on_finding(f)
    fig = {
        "id": "coverage.rates",
        "title": "Observed error rate of each tester at the claim, and its nominal bound",
        "kind": "bars",
        "series": [
            {"label": "observed error rate", "x": [f.id for f in findings],
             "y": [f.evidence["error_rate"] for f in findings]},
            {"label": "nominal", "x": [f.id for f in findings],
             "y": [f.evidence["nominal"] for f in findings]},
        ],
        "xlabel": "tester / mechanism",
        "ylabel": "rate",
        "caption": "An error is the event the tester's guarantee bounds (a certified bound "
        "missing its event's true probability; an exact interval missing the true loss).",
    }
    return findings, [fig]
