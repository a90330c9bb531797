"""The replayer of a ``dpaudit prove MODULE:OBJECT`` refutation: ``dpaudit replay FILE``
re-imports the program and recomputes both event probabilities of the witness with the
**independent evaluator** (:mod:`audit.prove.enumerate_law`: its own path enumeration,
event membership and integration, sharing no code with the evaluator that found the
witness); the counterexample still fails when ln((P - err) / (P' + err)) exceeds the
claimed epsilon, err being that evaluator's error estimate (plus a 1e-12 relative rounding
slack).  The exact evaluator's figures
are recomputed too and shown beside them.  Importing this module registers the replayer.
Nothing here prints or writes files.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import mpmath

from audit.prove.verdict import FINDING_ID
from audit.registry import replayer

__all__ = ["ROUNDING", "independent_log_ratio", "replay_refutation"]

#: relative rounding slack on each independent probability (it carries ~15 digits)
ROUNDING = 1e-12


def independent_log_ratio(doc: dict[str, Any]) -> tuple[Any, Any, Any]:
    """(P, P', certified-by-error-estimate lower bound of ln(P / P')) of a witness document
    by the independent evaluator."""
    from audit.prove.refute import (
        Event,
        independent_probability,
        load_program,
        to_fraction,
    )

    prog = load_program(doc["program"])
    params = {k: to_fraction(Fraction(v)) for k, v in doc.get("params", {}).items()}
    ev = Event.from_doc(doc["event"])
    eps = Fraction(doc["epsilon"])
    a = independent_probability(prog, [Fraction(v) for v in doc["q"]], eps, params, ev)
    b = independent_probability(prog, [Fraction(v) for v in doc["q_prime"]], eps, params, ev)
    # the error estimate plus a relative rounding slack of ROUNDING (the evaluator works at
    # enumerate_law.DPS = 15 digits): an exactly-eps ratio never reads as above eps
    hi_b = b.value * (1 + ROUNDING) + b.error
    lo_a = a.value * (1 - ROUNDING) - a.error
    if lo_a <= 0:
        return a.value, b.value, -mpmath.inf
    if hi_b <= 0:
        return a.value, b.value, mpmath.inf
    return a.value, b.value, mpmath.log(lo_a / hi_b)


@replayer(FINDING_ID)
def replay_refutation(inputs: dict[str, Any]) -> tuple[bool, Any, Any, str]:
    from audit.prove.refute import replay_witness

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
