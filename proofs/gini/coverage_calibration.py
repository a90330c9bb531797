"""Coverage-calibration cases of the DP Gini release for ``dpaudit calibrate --coverage``
(see :mod:`audit.privacy.coverage_calibration` for what a case measures).

* ``gini-blackbox-fixed``: the black-box tester on the (unsnapped) release on a replace-one
  pair, with the claim set to that pair's exact privacy loss (so the true epsilon on the pair
  sits exactly at the claim); an error is a certified bound missing its event's probability
  under g + s Z, Z ~ density (10) (:func:`kernels.gini.noise.powerlaw_sf`).  Twins: the claim
  divided by 2 and 1.2 (true epsilon 2x / 1.2x the claim, exactly).
* ``gini-exact-loss``: the exact-loss tester (``dataset_pair_loss``) on random pairs; an
  error is a certified interval [value_down, epsilon_up] missing the semi-analytic loss
  (:func:`proofs.gini.noise_law.sup_loss_fixed`, an independent algorithm: the root of
  the derivative's sign function); nominal 0.
* ``gini-release-dkw`` and ``gini-posterior-coverage``: the certify chain's two statistical
  links (``release``: DKW band at level 1e-6 on the release's standardised draws;
  ``posterior``: exact binomial test of 90 % credible-interval coverage at level 1e-3), run
  on random small data sets, each repetition a fresh data set and seed.  The release twins
  shrink the released noise by 2 and 1.2 while declaring the correct scale.

The links are taken from the chain's public link table (``CHAIN.links``) and run on the
chain's own :class:`~proofs.gini.certify.context.CertifyContext` (no fingerprint key).
"""

from __future__ import annotations

import dataclasses
import functools
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from audit.findings import Method, Verdict
from audit.privacy.blackbox import BlackBoxTester, Event
from audit.privacy.coverage_calibration import CoverageCase, Trial, bound_misses
from audit.privacy.coverage_sprt import quick_design
from audit.privacy.exact_loss import dataset_pair_loss
from audit.protocols import REPLACE_ONE, NeighbourPair
from kernels.gini.noise import powerlaw_sf
from kernels.gini.release import release_gini
from proofs.gini.certify import chain
from proofs.gini.certify.context import CertifyContext
from proofs.gini.mechanisms import GiniRelease
from proofs.gini.noise_law import sup_loss_fixed

__all__ = ["cases"]

_REL = 1e-9  # sup_loss_fixed is a float root-finder: relative slack against the mpmath value


def _rng(seed: int, tag: int) -> np.random.Generator:
    return np.random.default_rng(np.random.SeedSequence([int(seed), 7000 + tag]))


def _random_pair(rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    n = int(rng.integers(3, 7))
    xs = np.sort(rng.choice(np.array([1.0, 1.25, 1.5, 1.75, 2.0]), n))
    i = int(rng.integers(0, n))
    new = float(rng.choice(np.array([1.0, 2.0])))
    ys = xs.copy()
    ys[i] = new
    return xs, np.sort(ys)


@dataclass(frozen=True)
class _Claimed:
    """The release with a different claimed epsilon (same law)."""

    mech: GiniRelease
    claimed_epsilon: float
    relation: str = REPLACE_ONE

    @property
    def name(self) -> str:
        return f"{self.mech.name}<claim {self.claimed_epsilon:.6g}>"

    def sample(self, dataset: Any, size: int, rng: np.random.Generator) -> np.ndarray:
        return self.mech.sample(dataset, size, rng)


_PAIR_X = (1.0, 1.0, 1.0, 2.0)
_PAIR_Y = (1.0, 1.0, 2.0, 2.0)
_EPS = 8.0  # the release's epsilon: the pair's loss is then 0.631 (large enough to test)


@functools.cache
def _gini_pair() -> tuple[GiniRelease, NeighbourPair, float, tuple[tuple[float, float], ...]]:
    mech = GiniRelease(1.0, 2.0, _EPS, snap=False)
    x, y = np.array(_PAIR_X), np.array(_PAIR_Y)
    loss = dataset_pair_loss(mech, x, y).kernel
    pair = NeighbourPair(x, y, REPLACE_ONE, {"op": "replace", "rank": 2, "new": 2.0})
    return mech, pair, float(loss.value_down), (mech.location_scale(x), mech.location_scale(y))


def _blackbox_trial(seed: int, factor: float) -> Trial:
    mech, pair, loss, ls = _gini_pair()
    tester = BlackBoxTester(n_select=4000, n_certify=10_000, confidence=0.9)
    res = tester.run(_Claimed(mech, loss / factor), [pair], _rng(seed, 1))

    def truth(ev: Event, which: int) -> float:
        a, b = ls[which]
        if ev.kind == "gt":
            return float(powerlaw_sf((ev.a - a) / b, mech.gamma))
        if ev.kind == "lt":
            return float(powerlaw_sf((a - ev.a) / b, mech.gamma))
        if ev.kind == "in":
            return float(powerlaw_sf((ev.a - a) / b, mech.gamma)
                         - powerlaw_sf((ev.b - a) / b, mech.gamma))
        raise AssertionError(ev.kind)

    cert = list(res.details["certified"])
    miss = bound_misses(cert, truth)
    return Trial(miss > 0, bool(res.violates), {"misses": miss, "claim": loss / factor,
                                                "epsilon_lower": res.epsilon_lower})


def _exact_loss_trial(seed: int, factor: float) -> Trial:
    rng = _rng(seed, 2)
    xs, ys = _random_pair(rng)
    eps = float(rng.choice(np.array([0.25, 1.0, 2.0])))
    mech = GiniRelease(1.0, 2.0, eps)
    got = dataset_pair_loss(mech, xs, ys).kernel
    (a, b), (a2, b2) = mech.location_scale(xs), mech.location_scale(ys)
    lam, d = math.log(b2 / b), abs(a - a2) / b
    truth = max(sup_loss_fixed(mech.gamma, lam, d),
                sup_loss_fixed(mech.gamma, -lam, math.exp(-lam) * d))
    err = not (got.value_down <= truth * (1 + _REL) and got.epsilon_up >= truth * (1 - _REL))
    return Trial(err, bool(got.value_down > eps),
                 {"truth": truth, "epsilon_up": got.epsilon_up, "value_down": got.value_down,
                  "data": xs.tolist(), "neighbour": ys.tolist()})


# ------------------------------------------------------------------- the chain's links
def _link(key: str) -> Any:
    for link in chain.CHAIN.links:
        if link.key == key:
            return link.run
    raise LookupError(f"the certify chain has no link {key!r}")


def _shrunk_release(factor: float) -> Any:
    """A release that declares the correct scale but adds noise divided by ``factor``."""
    def release(*args: Any, **kw: Any) -> Any:
        r = release_gini(*args, **kw)
        v = r.gini + (np.asarray(r.value) - r.gini) / factor
        return dataclasses.replace(r, value=v)

    return release


def _link_trial(key: str, quick: bool) -> Any:
    def trial(seed: int, factor: float) -> Trial:
        rng = _rng(seed, 3)
        xs = np.sort(rng.uniform(0.0, 10.0, int(rng.integers(5, 40))))
        cfg = chain.CertifyConfig(
            data=xs, source={"sample": "coverage-calibration"}, lower=0.0, upper=10.0,
            epsilon=float(rng.choice(np.array([0.5, 1.0, 2.0]))), quick=quick, seed=seed,
            release=None if factor == 1.0 else _shrunk_release(factor))
        # the chain's own context; no key: counterexamples refer to the data unkeyed
        ctx = CertifyContext(cfg, xs, None, "coverage-calibration", _rng(seed, 4))
        found = _link(key)(ctx)
        bad = any(f.verdict is not Verdict.NOT_REFUTED for f in found)
        ev = found[0].evidence
        figs = {k: ev[k] for k in ("noise_law_max_cdf_deviation", "noise_law_dkw_band",
                                   "coverage", "binomial_p_value", "problems") if k in ev}
        return Trial(bad, bad, figs)

    return trial


def cases(quick: bool = False) -> list[CoverageCase]:
    ref = "Lan & Reiter 2025, eqs. (9)-(11); DESIGN.md 'Privacy testing'"
    return [
        CoverageCase(
            "gini-blackbox-fixed", "black-box, fixed schedule",
            f"DP Gini release (alg3, gamma = 2, [1, 2], epsilon = 8, unsnapped), pair {_PAIR_X} -> "
            f"{_PAIR_Y}, claim = the pair's exact loss (0.631); 4,000 + 10,000 draws, "
            "90 % confidence",
            0.1, "a certified Clopper-Pearson bound misses its event's true probability",
            _blackbox_trial, reps=60 if quick else 200, power_floor=0.3, reference=ref,
            sprt=quick_design(0.1) if quick else None),
        CoverageCase(
            "gini-exact-loss", "exact loss (mpmath, rounded outward)",
            "DP Gini release (alg3, gamma = 2, [1, 2]), random pairs n = 3..6, eps in "
            "{0.25, 1, 2}", 0.0,
            "the certified [value_down, epsilon_up] misses the semi-analytic loss "
            "(sup_loss_fixed)", _exact_loss_trial, reps=10 if quick else 40, power_reps=0,
            method=Method.CROSSCHECK, reference=ref),
        CoverageCase(
            "gini-release-dkw", "certify chain: release link (DKW noise-law test)",
            "random data n = 5..39 in [0, 10], eps in {0.5, 1, 2}; "
            f"{'100,000' if quick else '400,000'} release draws per run; twins shrink the "
            "noise", 1e-6, "the link refutes the correct release",
            _link_trial("release", quick), reps=20 if quick else 60, power_reps=5,
            power_floor=0.5, reference=ref),
        CoverageCase(
            "gini-posterior-coverage", "certify chain: posterior link (coverage test)",
            "random data n = 5..39 in [0, 10]; 90 % credible intervals, "
            f"{200 if quick else 1000} prior draws per run, binomial test at 1e-3", 1e-3,
            "the link refutes the correct posterior computation",
            _link_trial("posterior", quick), reps=10 if quick else 30, power_reps=0,
            reference=ref),
    ]
