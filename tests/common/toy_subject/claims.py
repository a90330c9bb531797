"""The toy subject's claims (``dpaudit prove|search --subject toy-sums``) and replayer.

* ``toy.sensitivity`` (prove): the sum of n records in {0, ..., k} changes by at most k
  between replace-one neighbours — exhaustive over every data set and every neighbour for
  n <= 3, k <= 3 (a stated finite scope: verified).
* ``toy.laplace-scale`` (search): "the Laplace scale (U - L)/eps makes the secant-noise sum
  eps-DP" — refuted: the exact loss is (pi/2) eps (:mod:`.noise_law`), computed by the
  engine's exact-loss tester; replayable.
"""

from __future__ import annotations

import itertools
from typing import Any

from audit.findings import Finding, Method, Verdict, counterexample_document
from audit.privacy.exact_loss import pair_loss
from audit.registry import replayer

from . import claim
from .mechanisms import ToySum

REF = "A. Toy (test subject)"


@claim("toy.sensitivity", "the sum moves by at most U - L between replace-one neighbours",
       "prove", reference="Lemma 1")
def sensitivity(budget_s: float, seed: int) -> list[Finding]:
    worst_excess, checked = 0, 0
    for k in range(1, 4):
        for n in range(1, 4):
            for xs in itertools.product(range(k + 1), repeat=n):
                for i, v in itertools.product(range(n), range(k + 1)):
                    ys = list(xs)
                    ys[i] = v
                    worst_excess = max(worst_excess, abs(sum(xs) - sum(ys)) - k)
                    checked += 1
    return [Finding(id="toy.sensitivity", claim="|sum(X) - sum(X')| <= U - L",
                    reference=f"{REF}, Lemma 1", method=Method.EXHAUSTIVE,
                    verdict=Verdict.VERIFIED if worst_excess <= 0 else Verdict.REFUTED,
                    scope="every data set in {0..k}^n and every replace-one neighbour, "
                    "n <= 3, k <= 3", evidence={"pairs_checked": checked}, seed=seed,
                    subject="paper:toy-sums")]


def _loss(lower: float, upper: float, epsilon: float, laplace_scale: bool) -> Any:
    mech = ToySum(lower, upper, epsilon, laplace_scale)
    b = mech.scale
    return pair_loss(mech, 0.0, b, upper - lower, b)


@replayer("toy.laplace-scale")
def replay_laplace_scale(inputs: dict) -> tuple[bool, Any, Any, str]:
    r = _loss(float(inputs["lower"]), float(inputs["upper"]), float(inputs["epsilon"]), True)
    eps = float(inputs["epsilon"])
    return r.value_down > eps, f"loss <= {eps:g}", r.epsilon_up, "exact loss recomputed now"


@claim("toy.laplace-scale", "the Laplace scale (U - L)/eps keeps the secant-noise sum "
       "eps-DP", "search", reference="Remark 2")
def laplace_scale(budget_s: float, seed: int) -> list[Finding]:
    inputs = {"lower": 0.0, "upper": 1.0, "epsilon": 1.0}
    r = _loss(0.0, 1.0, 1.0, True)
    refuted = r.value_down > 1.0
    cx = counterexample_document("toy.laplace-scale", "paper:toy-sums", inputs,
                                 {"max_loss": 1.0}, {"loss_down": r.value_down}, seed,
                                 "secant noise at the Laplace scale") if refuted else None
    return [Finding(id="toy.laplace-scale", claim="Remark 2 as printed", reference=f"{REF}, "
                    "Remark 2", method=Method.EXACT_LOSS,
                    verdict=Verdict.REFUTED if refuted else Verdict.NOT_REFUTED,
                    scope="L = 0, U = 1, eps = 1, the worst replace-one shift",
                    evidence={"sup_loss": r.epsilon_up, "family": r.family},
                    counterexample=cx, seed=seed, subject="paper:toy-sums")]
