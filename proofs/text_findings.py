"""Building paper Findings that state the reading they were tested under.

:func:`paper_finding` builds a :class:`audit.findings.Finding` and passes ``reading`` through
when the engine's Finding has that field (the verdict rules require it of every refuted paper
claim), and :data:`SPLIT` is the "refuted under one reading, holds under another" verdict
(``refuted-under-reading``) where the engine has it, else ``refuted``.  Either way the
readings tested and their outcomes are in ``evidence["readings"]``.
"""

from __future__ import annotations

import dataclasses
import time
from typing import Any

from audit.falsifiability import decide
from audit.findings import Finding, Method, Verdict, counterexample_document

__all__ = ["SPLIT", "exhaustive_step_finding", "paper_finding"]

#: refuted under one plausible reading, holds under another
SPLIT: Verdict = getattr(Verdict, "REFUTED_UNDER_READING", Verdict.REFUTED)

_FIELDS = {f.name for f in dataclasses.fields(Finding)}


def paper_finding(**kw: Any) -> Finding:
    """``Finding(**kw)``; ``reading`` is kept only where the Finding type has the field.  A
    finding with a ``reading`` and no ``evidence["readings"]`` gets ``{reading: outcome}``
    (outcome ``"refuted"`` for a refuting verdict, else ``"holds"``)."""
    reading = kw.get("reading", "")
    evidence = kw.get("evidence") or {}
    if reading and "readings" not in evidence:
        refuted = str(getattr(kw.get("verdict"), "value", kw.get("verdict"))).startswith(
            "refuted")
        kw["evidence"] = {**evidence, "readings": {reading: "refuted" if refuted else "holds"}}
    if "reading" not in _FIELDS:
        kw.pop("reading", None)
    return Finding(**kw)


def exhaustive_step_finding(*, id: str, claim: str, reference: str, subject: str,
                            violation: dict | None, twin: dict, scope: str, evidence: dict,
                            seed: int, started: float, vacuous_reason: str,
                            inputs: dict | None = None, method: Any = None) -> Finding:
    """The finding of an exhaustive check of a printed step (issue 42): ``refuted`` "as printed"
    with a replayable counterexample (``inputs``, default the ``violation`` itself) when the
    step fails somewhere in ``scope``; else ``verified`` when its ``twin`` (the perturbed step,
    :func:`audit.falsifiability.twin`) is refuted in the same scope, ``vacuous`` otherwise."""
    return paper_finding(
        id=id, claim=claim, reference=reference, method=method or Method.EXHAUSTIVE,
        reading="" if violation is None else "as printed",
        verdict=decide(violation is None, twin, failed=Verdict.REFUTED,
                       vacuous_reason=vacuous_reason),
        scope=scope, evidence={**evidence, "twin": twin},
        counterexample=counterexample_document(id, subject, inputs or violation, True, False,
                                               None, note=str(violation))
        if violation is not None else None,
        seed=seed, duration_s=time.perf_counter() - started, subject=subject)
