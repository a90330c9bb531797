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
    """``Finding(**kw)``; ``reading`` is kept only where the Finding type has the field."""
    if "reading" not in _FIELDS:
        kw.pop("reading", None)
    return Finding(**kw)
