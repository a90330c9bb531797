"""The replayer of a ``dpaudit prove MODULE:OBJECT`` refutation: ``dpaudit replay FILE``
re-imports the program and recomputes both event probabilities of the witness with the
**independent evaluator** (:mod:`audit.prove.enumerate_law`: its own path enumeration,
event membership and integration, sharing no code with the evaluator that found the
witness); the counterexample still fails when ln((P - err) / (P' + err)) exceeds the
claimed epsilon, err being that evaluator's error estimate (plus a 1e-12 relative rounding
slack; :func:`audit.prove.refute.independent_log_ratio`).  The exact evaluator's figures are
recomputed too and shown beside them.  Importing this module registers the replayer.
Nothing here prints or writes files.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import mpmath

from audit.prove.verdict import FINDING_ID
from audit.registry import replayer

__all__ = ["replay_refutation"]


@replayer(FINDING_ID)
def replay_refutation(inputs: dict[str, Any]) -> tuple[bool, Any, Any, str]:
    from audit.prove.refute import independent_log_ratio, replay_witness

    doc = inputs["witness"]
    p, pp, lo = independent_log_ratio(doc)
    still = bool(lo > mpmath.mpf(Fraction(doc["epsilon"]).numerator)
                 / Fraction(doc["epsilon"]).denominator)
    w = replay_witness(doc)
    shown = "inf" if lo == mpmath.inf else mpmath.nstr(lo, 12)
    return (still, f"log-ratio <= {doc['epsilon']}",
            f"log-ratio >= {shown} (independent evaluator; stored exact: >= "
            f"{doc['epsilon_witness_lower']})",
            f"{w.event.describe()} on q={doc['q']}, q'={doc['q_prime']}: independent "
            f"P = {mpmath.nstr(p, 15)}, P' = {mpmath.nstr(pp, 15)}; exact evaluator now "
            f"P = {mpmath.nstr(w.p.mid, 15)}, P' = {mpmath.nstr(w.p_prime.mid, 15)}")
