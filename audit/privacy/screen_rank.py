"""Does the neighbour search rank neighbours by sup |L|, both signs of the log-ratio?

:func:`audit.privacy.exact_loss.worst_neighbour` screens every neighbour X' of the user's
data set X with a fast float estimate of its loss sup_y |L(y)|, L = log p_X - log p_X',
and certifies only the best-screened ones (``certify_top``).  For a noise law without a
closed-form supremum (a subject's or a user's plug-in law) the screen is the maximum of
|L| on a float grid.  The pairs it ranks are (X, X') with X fixed: the family is *not*
closed under swapping the two data sets (the swapped pair (X', X) is a neighbour of X',
not of X), so sup L and sup |L| = max(sup L, sup -L) rank it differently, and a screen
that ranks by one sign of L certifies a neighbour that is not the worst.

Planted here: a scale-only mechanism y = b(X) Z with Z the skewed two-piece Student t of
:class:`audit.privacy.loss_reach.TwoPieceT` (no closed-form supremum: the grid screen
runs), b(X) = exp(c q(X)), q(X) = sum_i (x_i - h), records in [0, 1].  For a neighbour
with r = log(b'/b) = c (q(X') - q(X)), on each side of 0 both standardised outputs lie on
the same piece (index nu), and L(y) = l(y/b) - l(y/b') + r is monotone in y^2 there (its
derivative in u = y^2 is -(nu + 1)/2 [1/(nu b^2 + u) - 1/(nu b'^2 + u)], of one sign),
from L(0) = r to the tail limit -nu r.  Hence

    sup |L| = nu_max |r|        (nu_max = max(nu_-, nu_+) >= 1),

reached at a *minimum* of L (a tail, L -> -nu_max r) when the neighbour's scale is larger
(r > 0) and at a *maximum* when it is smaller, while the other sign's supremum is only
|r| (at y = 0).  Over the family: replace-one moves q by v - x_i, adding v by v - h,
removing x_i by h - x_i (v in [0, 1]), so the worst loss is, in closed form,

    c nu_max max |dq|.

Each case (:data:`CASES`) plants that worst neighbour on one sign and a *decoy* of the
other sign whose one-sided supremum is larger (nu_max |dq_decoy| > |dq_worst|) but whose
|L| is smaller: a screen ranking by sup L alone certifies the decoy on the "minimum of L"
cases, one ranking by sup -L alone on the "maximum of L" cases.  The search runs at its
default scope with ``certify_top = 1`` and must certify (``value_down``) the closed-form
worst loss within :data:`RTOL` relative, on either side.

The twins that show the check can fail: the same search steered by a law whose closed form
is one-sided (sup L only; sup -L only, each from the same float grid), which must miss
cases of both kinds.  Nothing here prints or writes files.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.special import beta as beta_fn

from audit.findings import Finding
from audit.privacy.exact_loss import worst_neighbour
from audit.privacy.loss_reach import NU, TwoPieceT
from audit.privacy.search_reach import describe_neighbour_miss, reach_finding
from audit.protocols import ADD_REMOVE_ONE, REPLACE_ONE

__all__ = ["CASES", "CHECK_ID", "C", "RTOL", "ScaleCase", "ScaleMechanism",
           "check_screen_rank", "replay_screen_rank"]

CHECK_ID = "engine.screen-rank"
#: relative tolerance between the certified lower bound and the closed-form worst loss
RTOL = 1e-9
#: log-scale per unit of q: the worst losses are 3.0 (replace-one) and 2.4 (add/remove)
C = 0.5


@dataclass(frozen=True)
class ScaleMechanism:
    """y = exp(c sum_i (x_i - h)) Z, Z two-piece t (``law``); the location is 0.

    A :class:`audit.protocols.LocationScaleMechanism` declaring its ``noise_law`` (no
    closed-form supremum), records in [0, 1] under ``relation``."""

    law: TwoPieceT
    h: float
    relation: str
    c: float = C
    name: str = "planted-scale"
    claimed_epsilon: float = 1.0
    lower: float = 0.0
    upper: float = 1.0

    @property
    def noise_law(self) -> TwoPieceT:
        return self.law

    def location_scale(self, dataset: Any) -> tuple[float, float]:
        xs = np.asarray(dataset, dtype=np.float64)
        return 0.0, math.exp(self.c * float(np.sum(xs - self.h)))

    def noise_logpdf(self, z: np.ndarray) -> np.ndarray:
        return self.law.logpdf(z)

    def noise_logpdf_mp(self, z: Any) -> Any:
        return self.law.logpdf_mp(z)

    def sample(self, dataset: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        """``size`` outputs: a side of 0 with probability proportional to its mass
        (sqrt(nu) B(1/2, nu/2) / 2 for the unnormalised piece of index nu), then |t_nu|."""
        _, b = self.location_scale(dataset)
        nm, np_ = self.law.nu_minus, self.law.nu_plus
        mass_m = math.sqrt(nm) * float(beta_fn(0.5, nm / 2))
        mass_p = math.sqrt(np_) * float(beta_fn(0.5, np_ / 2))
        left = rng.random(size) < mass_m / (mass_m + mass_p)
        z = np.where(left, -np.abs(rng.standard_t(nm, size)), np.abs(rng.standard_t(np_, size)))
        return b * z


@dataclass(frozen=True)
class ScaleCase:
    """One planted case: the data set, the offset h of q, the relation, the law's tail
    indices, and where the worst neighbour's supremum lies (``"min"``: a minimum of L)."""

    data: tuple[float, ...]
    h: float
    relation: str
    nu: tuple[float, float]
    at: str

    @property
    def key(self) -> str:
        rel = "replace" if self.relation == REPLACE_ONE else "add-remove"
        return f"{self.at}-of-L/{rel}/h={self.h:g}/t({self.nu[0]:g},{self.nu[1]:g})"

    def mechanism(self, law: type[TwoPieceT] = TwoPieceT) -> ScaleMechanism:
        return ScaleMechanism(law(*self.nu), self.h, self.relation,
                              name=f"planted[{self.key}]")

    def shifts(self) -> list[float]:
        """dq of the extreme neighbours (every neighbour's dq lies between two of them)."""
        if self.relation == REPLACE_ONE:
            return [v - x for x in self.data for v in (0.0, 1.0)]
        return [v - self.h for v in (0.0, 1.0)] + [self.h - x for x in self.data]

    def truth(self) -> float:
        """The worst loss over every neighbour of ``data`` in [0, 1], closed form."""
        return C * max(self.nu) * max(abs(d) for d in self.shifts())


#: the worst neighbour at a minimum of L (a larger scale) and at a maximum (a smaller
#: one), under both relations; the law and its mirror image (the sup in either tail)
CASES: tuple[ScaleCase, ...] = (
    ScaleCase((0.0, 0.5, 0.5, 0.5), 0.0, REPLACE_ONE, NU, "min"),
    ScaleCase((0.5, 0.5, 0.5, 1.0), 0.0, REPLACE_ONE, NU[::-1], "max"),
    ScaleCase((0.5, 0.5, 0.5), 0.2, ADD_REMOVE_ONE, NU[::-1], "min"),
    ScaleCase((0.5, 0.5, 0.5), 0.8, ADD_REMOVE_ONE, NU, "max"),
)


class _OneSided(TwoPieceT):
    """A twin's law: the same density with a 'closed form' that is the grid maximum of
    ``sign`` * L only (a one-sided screen)."""

    sign = 1

    def sup_loss(self, a: float, b: float, a2: float, b2: float) -> float | None:
        s = np.concatenate([[0.0], np.geomspace(1e-6, 1e9, 600)])
        y = np.concatenate([a + b * s, a - b * s, a2 + b2 * s, a2 - b2 * s])
        with np.errstate(all="ignore"):
            L = (self.logpdf((y - a) / b) - math.log(b)
                 - self.logpdf((y - a2) / b2) + math.log(b2))
        return float(np.max(self.sign * L[np.isfinite(L)]))


class _SupMinusL(_OneSided):
    sign = -1


def _certified(res: Any) -> float:
    cert = getattr(getattr(res, "worst", None), "certified", None)
    return 0.0 if cert is None else float(cert.kernel.value_down)


def _run(case: ScaleCase, law: type[TwoPieceT] = TwoPieceT) -> Any:
    return worst_neighbour(case.mechanism(law), np.array(case.data), certify_top=1)


def _misses(search: Callable[[ScaleCase], Any]) -> list[dict[str, Any]]:
    out = []
    for case in CASES:
        res = search(case)
        got, truth = _certified(res), case.truth()
        if not truth * (1 - RTOL) <= got <= truth * (1 + RTOL):  # missed, or beyond the worst
            out.append({"case": case.key, "truth": truth, "certified": got,
                        "change": dict(getattr(res.worst, "change", {}) or {})})
    return out


def replay_screen_rank(inp: dict) -> tuple[bool, Any, Any, str]:
    """Re-run the search on the stored planted case; still fails while it is missed."""
    case = next((c for c in CASES if c.key == inp.get("case")), None)
    if case is None:
        raise ValueError(f"unknown planted case {inp.get('case')!r}")
    got, truth = _certified(_run(case)), case.truth()
    return (not truth * (1 - RTOL) <= got <= truth * (1 + RTOL), truth, got,
            "closed-form worst loss c nu_max max|dq|")


def check_screen_rank(search: Callable[[ScaleCase], Any] = _run) -> Finding:
    """The Finding: every planted worst neighbour certified (``verified`` over
    :data:`CASES`, both one-sided twins refuted), or ``refuted`` with the first case
    missed."""
    t0 = time.perf_counter()
    n = len(CASES)
    missed = _misses(search)
    plus = _misses(lambda c: _run(c, _OneSided))
    minus = _misses(lambda c: _run(c, _SupMinusL))
    # the check can fail on both signs only if each one-sided twin misses a case
    twin = plus + minus if plus and minus else []
    return reach_finding(
        check_id=CHECK_ID,
        claim="the neighbour search ranks neighbours by sup |L| (both signs of the "
        "log-ratio): a worst neighbour planted at a minimum of L, or at a maximum, behind a "
        "decoy whose one-sided supremum is larger, is the one certified",
        reference="audit/privacy/screen_rank.py (closed form c nu_max max|dq|)",
        scope=f"{n} planted cases (scale-only mechanism exp(c sum(x_i - h)) Z, c = {C:g}, "
        f"Z two-piece t {NU[0]:g}/{NU[1]:g} and mirrored, no closed-form supremum: the grid "
        f"screen; worst at a minimum and at a maximum of L; replace-one and add/remove; "
        f"records in [0, 1]) at the search's default work units, certify_top = 1; "
        f"certified lower bound within {RTOL:g} relative of the closed-form worst loss "
        f"(either side); twins (a one-sided screen: sup L only / sup -L only) miss "
        f"{len(plus)} / {len(minus)} of {n}",
        n=n, missed=missed, twin=twin,
        twin_perturbation="the same search steered by a one-sided screen (sup L only, and "
        "sup -L only)", tolerance={"rtol": RTOL}, t0=t0,
        describe=lambda m: describe_neighbour_miss(
            m, ": its screen ranked another neighbour first"))
