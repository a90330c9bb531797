"""Registry of paper claims checked by ``dpaudit prove`` (SymPy / Z3) and ``dpaudit search``
(exhaustive / randomised), and of the replayers that re-run their counterexamples.

A claim module registers functions with :func:`claim`; each function takes a time budget
(seconds) and a seed and returns a list of :class:`audit.findings.Finding`.  Every refuted
Finding carries a counterexample document (``audit.findings.counterexample_document``)
whose ``check`` names a replayer registered with :func:`replayer`; ``dpaudit replay``
calls it with the stored ``inputs`` (already decoded: Fractions are Fractions again).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from audit.findings import Finding

__all__ = ["PAPERS", "Claim", "CLAIMS", "REPLAYERS", "claim", "replayer", "load_all", "MODULES"]

#: a replayer returns (still_fails, expected, actual, detail)
Replayer = Callable[[dict], tuple[bool, Any, Any, str]]


@dataclass(frozen=True)
class Claim:
    key: str  # short stable key, e.g. "gini.eq1-vs-eq2"
    title: str
    command: str  # "prove" (symbolic / SMT) or "search" (exhaustive / randomised)
    run: Callable[[float, int], list[Finding]]
    paper: str = "lan-reiter-2025"  # the paper whose claim this is (a report subject)


CLAIMS: list[Claim] = []
REPLAYERS: dict[str, Replayer] = {}

#: modules that register claims (imported by load_all)
MODULES = (
    "proofs.derivations",
    "proofs.subsets",
    "proofs.claims",
    "proofs.privacy_claims",
    # Ding, Wang, Zhang & Kifer (free-gap Noisy-Max / Sparse Vector)
    "proofs.alignment",
    "proofs.freegap_derivations",
    "proofs.freegap_claims",
    "proofs.freegap_blackbox",
    "proofs.freegap_float",
    # replayers of dpaudit certify's counterexamples
    "audit.privacy.certify_links",
    "audit.privacy.admissibility",
    "audit.privacy.calibration",
    "audit.certify",
)


#: papers whose claims are registered (the ``paper`` of a Claim)
PAPERS = ("lan-reiter-2025", "ding-et-al-free-gap")


def claim(key: str, title: str, command: str, paper: str = "lan-reiter-2025") -> Callable:
    if command not in ("prove", "search"):
        raise ValueError(f"command must be 'prove' or 'search', got {command!r}")
    if paper not in PAPERS:
        raise ValueError(f"paper must be one of {PAPERS}, got {paper!r}")

    def deco(fn: Callable[[float, int], list[Finding]]) -> Callable[[float, int], list[Finding]]:
        if any(c.key == key for c in CLAIMS):
            raise ValueError(f"duplicate claim key {key!r}")
        CLAIMS.append(Claim(key, title, command, fn, paper))
        return fn

    return deco


def replayer(check_id: str) -> Callable[[Replayer], Replayer]:
    def deco(fn: Replayer) -> Replayer:
        REPLAYERS[check_id] = fn
        return fn

    return deco


def load_all() -> list[Claim]:
    """Import every claim module that exists (missing optional modules are skipped)."""
    for name in MODULES:
        try:
            importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name != name:
                raise
    return list(CLAIMS)
