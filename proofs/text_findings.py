"""Building paper Findings that state the reading they were tested under.

:func:`paper_finding` builds a :class:`audit.findings.Finding` and passes ``reading`` through
when the engine's Finding has that field (the verdict rules require it of every refuted paper
claim), and :data:`SPLIT` is the "refuted under one reading, holds under another" verdict
(``refuted-under-reading``) where the engine has it, else ``refuted``.  Either way the
readings tested and their outcomes are in ``evidence["readings"]``.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from audit.findings import Finding, Verdict

__all__ = ["SPLIT", "paper_finding"]

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
