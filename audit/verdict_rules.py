"""The verdict rules every :class:`~audit.findings.Finding` obeys (DESIGN.md, "Trust rules").

:func:`check` is called by ``Finding.__post_init__``, so a Finding that breaks a rule cannot be
built, and hence cannot reach a report (``build_report`` takes Finding objects only; a stored
report read back through ``Finding.from_dict`` is checked again).

The rules, each a :class:`VerdictRuleError` (a ``ValueError``) naming the finding and the rule:

* **verified-method** -- ``verified`` only with a method that can prove: ``proof``,
  ``symbolic``, ``smt`` (an UNSAT), ``exhaustive`` (over the stated finite scope), ``exact``
  (exact comparison on the whole input), or the engine's exact comparisons ``crosscheck`` /
  ``exact-loss`` when they covered every input of their scope (a run that drew its inputs
  says so with ``evidence["sampled"] = True``).  ``empirical``, ``sampled``, ``timing``,
  ``grid-bound`` and ``oracle`` (random sub-samples against a brute-force oracle) give at
  most ``not-refuted``.
* **verified-scope** -- ``verified`` needs a non-empty ``scope`` and non-empty ``evidence``.
* **verified-sampled** -- ``evidence["sampled"] is True`` (inputs drawn at random, a grid lower
  bound used as the truth, a timing) forbids ``verified``.
* **verified-bound** -- when the evidence states a certified bound next to the claimed value
  (``evidence["claimed"]`` and one of :data:`BOUND_KEYS`), ``verified`` needs
  ``bound <= claimed`` compared exactly (floats as the dyadic rationals they are): a bound
  above the claim by any amount, 1.0000000000000002 against 1, is never verified (no tolerance
  covers it; the check reports it refuted or inconclusive with the margin).
* **verified-twin** -- a ``verified`` finding that carries a twin (``evidence["twin"]``, see
  :mod:`audit.falsifiability`) needs that twin refuted; a finding of a check converted to the
  twin rule (:data:`audit.falsifiability.TWIN_REQUIRED`) needs one.  A check whose twin is
  not refuted in its scope is ``vacuous``.
* **vacuous** -- ``vacuous`` states why the check could not fail
  (``evidence["vacuous_reason"]`` or its twin's), a non-empty scope, and no counterexample.
* **refuted-reading** -- a refutation of a paper claim (``subject`` ``"paper:..."``) names the
  statement it tested (a non-empty ``reference``) and the reading used (``reading``).
* **reading-split** -- ``refuted-under-reading`` (the statement fails under ``reading`` but
  holds under another plausible one) lists every reading tested and its outcome in
  ``evidence["readings"]`` (reading -> ``"refuted"`` / ``"holds"``), at least one of each, and
  carries a counterexample for the failing reading.
* **not-tight** -- ``not-tight`` (a bound the paper calls conservative holds but is not
  attained) states the exact gap in ``evidence["slack"]`` and a non-empty scope.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, NoReturn, Protocol

from audit import falsifiability


class Finding(Protocol):
    """What the rules read of a :class:`audit.findings.Finding` (that module imports this
    one, so the rules name the fields they read instead of importing the class)."""

    id: str
    claim: str
    reference: str
    method: Any
    verdict: Any
    scope: str
    evidence: dict
    counterexample: dict | None
    subject: str
    tolerance: dict | None
    reading: str

__all__ = [
    "BOUND_KEYS",
    "NON_VERIFYING_METHODS",
    "VERIFYING_METHODS",
    "VerdictRuleError",
    "bound_covered",
    "check",
]

#: methods that can give ``verified`` (with a finite stated scope)
VERIFYING_METHODS = frozenset(
    {"proof", "symbolic", "smt", "exhaustive", "exact", "crosscheck", "exact-loss"}
)
#: methods that give at most ``not-refuted``
NON_VERIFYING_METHODS = frozenset({"empirical", "sampled", "timing", "grid-bound", "oracle"})

#: evidence keys that hold a certified upper bound to compare with ``evidence["claimed"]``
BOUND_KEYS = ("certified_bound", "worst_upper_bound", "worst_joint", "loss_bound_certified")


class VerdictRuleError(ValueError):
    """A Finding breaks a verdict rule (the message names the finding and the rule)."""


def _number(v: Any) -> float | Fraction | None:
    if isinstance(v, bool):
        return None
    if isinstance(v, (int, float, Fraction)):
        return v
    if isinstance(v, (list, tuple)) and v:  # (value, witness) pairs
        return _number(v[0])
    try:  # numpy scalars
        import numpy as np

        if isinstance(v, (np.integer, np.floating)):
            return v.item()
    except ImportError:  # pragma: no cover
        pass
    return None


def bound_covered(bound: float | Fraction, claimed: float | Fraction) -> bool:
    """``bound <= claimed``, compared exactly (a float as the dyadic rational it is); NaN and
    an infinite bound are never covered (except an infinite claim)."""
    if math.isnan(float(bound)) or math.isnan(float(claimed)):
        return False
    if math.isinf(float(claimed)) and float(claimed) > 0:
        return True
    if math.isinf(float(bound)):
        return float(bound) < 0
    return Fraction(bound) <= Fraction(claimed)


def check(f: Finding) -> None:
    """Raise :class:`VerdictRuleError` if ``f`` breaks a rule of the module docstring."""
    v, m = f.verdict.value, f.method.value

    def fail(rule: str, why: str) -> NoReturn:
        raise VerdictRuleError(f"Finding {f.id!r} breaks verdict rule {rule}: {why}")

    ev = f.evidence
    if v == "verified":
        if m not in VERIFYING_METHODS:
            fail("verified-method", f"method {m!r} gives at most 'not-refuted'")
        if not f.scope.strip():
            fail("verified-scope", "empty scope")
        if not ev:
            fail("verified-scope", "empty evidence")
        if ev.get("sampled") is True:
            fail("verified-sampled", "evidence['sampled'] is true (drawn inputs, a grid lower "
                 "bound or a timing): at most 'not-refuted'")
        claimed = _number(ev.get("claimed"))
        if claimed is not None:
            for key in BOUND_KEYS:
                bound = _number(ev.get(key))
                if bound is not None and not bound_covered(bound, claimed):
                    margin = Fraction(bound) - Fraction(claimed) if math.isfinite(
                        float(bound)) else bound
                    fail("verified-bound", f"certified {key} = {bound!r} exceeds the claimed "
                         f"{claimed!r} by {margin} (exact): a bound above the claim is not a "
                         "proof of it")
        problem = falsifiability.twin_problem(ev)
        if "twin" in ev and problem:
            fail("verified-twin", problem + ": a check whose twin is not refuted in its scope "
                 "is 'vacuous'")
        if problem and falsifiability.needs_twin(f.id):
            fail("verified-twin", problem + " (this check is bound by the twin rule: "
                 "audit.falsifiability.TWIN_REQUIRED)")
    if v == "vacuous":
        if not falsifiability.vacuous_reason(ev):
            fail("vacuous", "evidence['vacuous_reason'] (why the check cannot fail) is missing")
        if not f.scope.strip():
            fail("vacuous", "empty scope")
        if f.counterexample is not None:
            fail("vacuous", "a vacuous check carries no counterexample")
    if v in ("refuted", "refuted-under-reading") and f.subject.startswith("paper:"):
        if not f.reference.strip():
            fail("refuted-reading", "a refutation of a paper claim cites the statement tested "
                 "(empty reference)")
        if not f.reading.strip():
            fail("refuted-reading", "a refutation of a paper claim states the reading it tested "
                 "(empty reading)")
    if v == "refuted-under-reading":
        readings = ev.get("readings")
        if not isinstance(readings, dict) or not readings:
            fail("reading-split", "evidence['readings'] (reading -> outcome) is missing")
        outcomes = set(readings.values())
        if "refuted" not in outcomes or "holds" not in outcomes:
            fail("reading-split", "needs at least one reading refuted and one that holds; "
                 "otherwise the verdict is 'refuted' or 'verified'")
        if not f.reading.strip() or readings.get(f.reading) != "refuted":
            fail("reading-split", f"reading {f.reading!r} must be one of the refuted readings")
        if not f.counterexample:
            fail("reading-split", "the failing reading needs a counterexample")
    if v == "not-tight":
        if "slack" not in ev:
            fail("not-tight", "evidence['slack'] (the exact gap) is missing")
        if not f.scope.strip():
            fail("not-tight", "empty scope")


#: the reading a subject states when it tested the statement literally, as printed
AS_PRINTED = "as printed: the statement read literally, with the paper's own definitions"


def reading_for(verdict: Any, reading: str = "") -> str:
    """``reading`` if given; else :data:`AS_PRINTED` for a refutation, ``""`` otherwise (the
    Finding helpers of the subjects call this, so a refutation always names its reading)."""
    if reading:
        return reading
    return AS_PRINTED if str(getattr(verdict, "value", verdict)) == "refuted" else ""
