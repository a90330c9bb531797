"""The twin of a PROVED DSL program (issue 42): the same prover, in the same scope, on the
claim tightened below the privacy loss the program attains -- which it must refute.

What the twin is.  ``dpaudit prove`` proves "M is eps-DP for every n <= N under the
relation" by an alignment whose cost Z3 bounds by eps (UNSAT).  The twin claim is
"M is eps'-DP" with eps' an exact rational strictly below a privacy loss M *attains* in the
same scope:

1. **An attained loss** (:func:`attained_loss`): the exact refutation search's evaluator
   (:func:`audit.prove.refute.evaluate_pair`) runs M on the neighbouring pairs of
   :func:`~audit.prove.refute.candidate_pairs` (the relation's differences on the base grid),
   size by size from n = 1, at the epsilon of the proof (the claimed epsilon when the proof
   is for every eps > 0), and keeps the pair and output event with the largest *certified
   lower bound* L of ln(P(M(q) in E) / P(M(q') in E)); the first size n <= N that has a pair
   with L > 0 ends the search (a work bound: pairs, never seconds).  The witness is then
   re-evaluated by the independent evaluator (:func:`audit.prove.refute.confirm`,
   :mod:`audit.prove.enumerate_law`); a disagreement leaves the twin ``inconclusive``.
2. **The twin claim** eps' = floor(L * 2^20) / 2^20 (minus 2^-20 when that equals L), a
   Fraction with eps' < L <= the true loss: the witness refutes "eps'-DP" exactly.
3. **The same Z3 check on the twin claim** (:func:`audit.prove.cegis.check_alignment`): the
   verification conditions of the proved alignment with the cost bound eps' (normalised:
   eps' / eps for a proof over every eps > 0) must come out SAT (a counterexample).  If they
   were UNSAT the alignment would prove a claim an exact witness violates: the prover or the
   evaluator is wrong, and the twin says so (``inconclusive``, never a silent pass).

The twin is ``refuted`` only when both hold.  Why this twin is sound: a refuted twin shows,
in the proof's own scope, a claim the same check rejects and that is really false (an
exactly evaluated, independently confirmed witness), so the PROVED could have failed.  Why
not a program with its noise scales halved: a correct program whose claim is loose (noise
over-provisioned by 2x or more) would stay DP after halving and its proof would be
mislabelled vacuous; the tightened claim is refutable for every program whose output law
depends on its queries at all.  When no pair of the scope has a positive certified loss
(e.g. a program that ignores its queries) no eps' >= 0 can be refuted: the twin is
``not-refuted`` and the PROVED is reported ``vacuous`` with that reason.

Nothing here prints or writes files.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from fractions import Fraction
from typing import Any

import mpmath

from audit.falsifiability import twin
from audit.prove import refute as refute_mod
from audit.prove.cegis import check_alignment
from audit.prove.exact_event import UnsupportedEvent

__all__ = ["GRID_BITS", "attained_loss", "prove_twin", "tightened_epsilon"]

#: eps' is a multiple of 2^-GRID_BITS strictly below the attained loss
GRID_BITS = 20


def attained_loss(mech: Any, eps: Fraction, relation: str, sizes: list[int]
                  ) -> tuple[Any, int]:
    """The witness with the largest certified lower log-ratio at the first size of
    ``sizes`` (ascending) where one is positive, or None; and the pairs evaluated."""
    values = refute_mod._default_values(mech)
    cache: dict[Any, Any] = {}
    pairs = 0
    for n in sorted(sizes):
        best = None
        try:
            for q, qp in refute_mod.candidate_pairs(n, relation, values):
                try:
                    w, _ = refute_mod.evaluate_pair(mech, q, qp, eps, cache=cache)
                except UnsupportedEvent:
                    continue
                pairs += 1
                if w is not None and (best is None or w.eps_lower > best.eps_lower):
                    best = w
        except IndexError:  # the program needs more queries than n
            continue
        if best is not None and best.eps_lower > 0:
            return best, pairs
    return None, pairs


def tightened_epsilon(loss_lower: Any) -> Fraction:
    """The largest multiple of 2^-GRID_BITS strictly below ``loss_lower`` (an mpf > 0)."""
    scale = 2 ** GRID_BITS
    k = int(mpmath.floor(loss_lower * scale))
    if mpmath.mpf(k) / scale >= loss_lower:
        k -= 1
    return Fraction(max(k, 0), scale)


def _tightened(prob: Any, bound: Fraction) -> Any:
    """``prob`` (and its sign halves) with the cost bound ``bound``."""
    halves = {h: dataclasses.replace(sub, bound=bound) for h, sub in prob.halves.items()}
    return dataclasses.replace(prob, bound=bound, halves=halves)


def prove_twin(mech: Any, prob: Any, theta: Mapping[tuple[str, str, int], Fraction],
               relation: str) -> dict[str, Any]:
    """The twin evidence (:func:`audit.falsifiability.twin`) of a PROVED ``mech`` with
    problem ``prob`` and alignment ``theta`` (module docstring)."""
    eps0 = prob.eps if prob.eps is not None else Fraction(mech.claimed_epsilon)
    sizes = list(prob.ns)
    w, pairs = attained_loss(mech, eps0, relation, sizes)
    what = f"the claim tightened below the loss attained at epsilon = {eps0}"
    if w is None:
        return twin(f"{what} (no pair found)", "not-refuted",
                    detail=f"no neighbouring pair of the scope ({pairs} pairs, n in {sizes}) "
                    "has a positive certified log-ratio: the output law does not depend on "
                    "the queries there, so no claim eps' >= 0 can be refuted")
    eps_t = tightened_epsilon(w.eps_lower)
    claim = (f"epsilon' = {eps_t} (< the attained loss {mpmath.nstr(w.eps_lower, 12)} at "
             f"epsilon = {eps0}, n = {len(w.q)})")
    conf = refute_mod.confirm(mech, w)
    doc = {**dataclasses.replace(w, independent=conf.as_doc()).as_doc(),
           "twin_claim_epsilon": str(eps_t), "pairs_evaluated": pairs}
    if not conf.agree:
        return twin(claim, "inconclusive", witness=doc,
                    detail="the independent evaluator did not confirm the witness")
    bound = eps_t if prob.eps is not None else eps_t / eps0
    cexs = check_alignment(_tightened(prob, bound), dict(theta))
    margin = {"proved_epsilon": eps0, "attained_loss_lower": mpmath.nstr(w.eps_lower, 20),
              "twin_epsilon": eps_t, "cost_bound": bound}
    if cexs is None:
        return twin(claim, "inconclusive", witness=doc, margin=margin,
                    detail="Z3 unknown on the alignment's conditions at the tightened bound")
    if not cexs:
        return twin(claim, "inconclusive", witness=doc, margin=margin,
                    detail="CONTRADICTION: the alignment's conditions are UNSAT at the "
                    "tightened bound, yet an exact confirmed witness violates it (a bug in "
                    "the prover or the evaluators)")
    z3_cx = cexs[0].describe()
    return twin(claim, "refuted", witness={**doc, "z3_counterexample": z3_cx}, margin=margin,
                detail=f"the exact witness (confirmed by the independent evaluator) violates "
                f"epsilon' and Z3 finds {len(cexs)} counterexample(s) to the proved "
                f"alignment at cost bound {bound}")
