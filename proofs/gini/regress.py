"""``dpaudit regress`` for the Gini subject: a kernel module implementing
:data:`kernels.gini.protocol.PROTOCOL` against the exact reference and oracles
(:mod:`proofs.gini.crosscheck`)."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from audit.findings import Finding, from_jsonable
from kernels.gini.protocol import PROTOCOL
from proofs.gini.crosscheck import CHECKS, Context, _safe_eval, check_by_id, run_checks

__all__ = ["SUITE", "GiniRegress"]


@dataclass(frozen=True)
class GiniRegress:
    protocol: dict[str, str]
    default_kernels: str = "kernels.gini.api"

    def check_ids(self) -> list[str]:
        """The ids of the checks this suite runs (``--only`` selects among them)."""
        return [c.id for c in CHECKS]

    def run(self, mod: Any, subject: str, seed: int, mode: str, only: str | None,
            on_finding: Callable[[int, int, Finding], None]) -> None:
        ctx = Context(seed=seed, mode=mode, max_n=int(getattr(mod, "DPAUDIT_MAX_N", 3000)))
        selected = None if only is None else (lambda c: only in c.id)
        run_checks(mod, subject, ctx, only=selected, on_finding=on_finding)

    def parameters(self, mod: Any, mode: str) -> dict[str, Any]:
        return {"max_n": Context(mode=mode, max_n=int(getattr(mod, "DPAUDIT_MAX_N", 3000))).max_n}

    def replay(self, doc: dict, mod: Any) -> tuple[bool, list[str]] | None:
        try:
            check = check_by_id(doc["check"])
        except KeyError:
            return None
        inputs = from_jsonable(doc["inputs"])
        out = _safe_eval(check.evaluate, mod, inputs)
        shown = json.dumps(doc["inputs"])
        lines = [
            f"replay {check.id} on {getattr(mod, '__name__', mod)}",
            f"  claim     {check.claim}",
            f"  reference {check.reference}",
            f"  input     {shown[:300]}{'...' if len(shown) > 300 else ''}",
            f"  expected  {out.expected!r}   (recomputed now by the exact reference / oracle)",
            f"  actual    {out.actual!r}   (recomputed now by the kernel module)",
            f"  stored    expected {doc.get('expected')!r}, actual {doc.get('actual')!r}",
            f"  tolerance {doc.get('tolerance')!r}",
        ]
        if out.detail:
            lines.append(f"  detail    {out.detail}")
        return (not out.ok), lines


SUITE = GiniRegress(protocol=PROTOCOL)
