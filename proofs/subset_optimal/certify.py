"""Certify Algorithm 3 (Dick et al.) on one data set: exact per-step privacy loss of its two
Algorithm 2 calls on add/remove neighbours of the data (the composition in Theorem 1's proof
charges eps to each step).  Pure: returns a dict; :mod:`.cli` prints it.

Verdict rules (same words and exit codes as the Gini chain):
* NOT CERTIFIED - some tested neighbour gives a step an exact loss above eps (the printed
  accounting eps + eps + eps = 3 eps fails on this data set; the joint release
  (l-hat, u-hat, mu-hat) then loses more than 3 eps whenever the two step losses together
  exceed 2 eps, reported as ``joint_lower``).
* CERTIFIED - only with a public size (``n_public``): then alpha, zeta, beta are public, each
  step's loss has add/remove sensitivity <= 1 for *every* neighbour (t_l moves by
  (2/eps) ln((n+1)/n) <= 1, t_u by 1 minus that, compensated by the count), so every step is
  eps-DP; the exact figures on the tested neighbours must agree (<= eps).
* INCONCLUSIVE - printed algorithm (alpha = gamma/|D|) and no tested neighbour exceeded eps:
  no proof covers all neighbours.
"""

from __future__ import annotations

import time
from fractions import Fraction
from typing import Any

import numpy as np

from proofs.subset_optimal.privacy import alg2_loss, alg3_params_exact


def certify_alg3(data: np.ndarray, R: float, epsilon: float, gamma: float,
                 n_public: int | None = None) -> dict[str, Any]:
    t0 = time.perf_counter()
    xs = sorted(Fraction(float(v)) for v in np.asarray(data, dtype=np.float64))
    n = len(xs)
    Rf, eps, g = Fraction(R), Fraction(epsilon), Fraction(gamma)
    med = xs[n // 2]
    neighbours = [("add", -Rf), ("add", Rf), ("add", med), ("remove", xs[0]),
                  ("remove", xs[-1]), ("remove", med)]
    rows = []
    for op, v in neighbours:
        if op == "add":
            d2 = sorted(xs + [v])
        else:
            d2 = list(xs)
            d2.remove(v)
        n2 = len(d2)
        losses = {}
        for key in ("t_l", "t_u"):
            a1 = alg3_params_exact(n, Rf, eps, g, n_public)["alpha"]
            a2 = alg3_params_exact(n2, Rf, eps, g, n_public)["alpha"]
            def r1(k: str = key) -> Any:
                return alg3_params_exact(n, Rf, eps, g, n_public)[k]

            def r2(k: str = key, m: int = n2) -> Any:
                return alg3_params_exact(m, Rf, eps, g, n_public)[k]

            res = alg2_loss(xs, r1, a1, d2, r2, a2, -Rf, Rf, eps)
            losses[key] = res.as_dict()
        rows.append({"op": op, "value": float(v), "l_hat_loss": losses["t_l"]["epsilon_up"],
                     "u_hat_loss": losses["t_u"]["epsilon_up"],
                     "l_hat_loss_down": losses["t_l"]["value_down"],
                     "u_hat_loss_down": losses["t_u"]["value_down"],
                     "l_hat_event": [float(e) for e in losses["t_l"]["event"]],
                     "u_hat_event": [float(e) for e in losses["t_u"]["event"]]})
    worst_step = max(max(r["l_hat_loss_down"], r["u_hat_loss_down"]) for r in rows)
    worst_up = max(max(r["l_hat_loss"], r["u_hat_loss"]) for r in rows)
    if worst_step > float(eps):
        verdict = "NOT CERTIFIED"
    elif n_public is not None and worst_up <= float(eps):
        verdict = "CERTIFIED"
    else:
        verdict = "INCONCLUSIVE"
    return {"verdict": verdict, "n": n, "R": float(R), "epsilon": float(epsilon),
            "gamma": float(gamma), "n_public": n_public, "claimed_total": 3 * float(epsilon),
            "claimed_per_step": float(epsilon), "worst_step_loss": worst_step,
            "relation": "add-remove-one", "neighbours": rows,
            "duration_s": time.perf_counter() - t0}
