"""``dpaudit regress`` for the Gini subject: a kernel module implementing
:data:`kernels.gini.protocol.PROTOCOL` (default :mod:`kernels.gini.api`) against the exact
reference and oracles, on the engine's kernel-check runner (:mod:`audit.checks.kernel`).

* :mod:`.cases` - Hypothesis strategies and pinned cases;
* :mod:`.evaluators` - expected (reference / oracle) vs actual (kernel) per property;
* :mod:`.checks` - the declarative check table (:data:`CHECKS`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from audit.checks.kernel import Context, KernelCheck, KernelSuite
from audit.checks.kernel import run_checks as run_kernel_checks
from audit.findings import Finding
from kernels.gini.protocol import PROTOCOL
from proofs.gini.regress.checks import CHECKS, check_by_id

__all__ = ["CHECKS", "SUITE", "Context", "check_by_id", "run_checks"]


def run_checks(mod: Any, subject: str, ctx: Context, *,
               only: Callable[[KernelCheck], bool] | None = None,
               on_finding: Callable[[int, int, Finding], None] | None = None,
               stop_on_refute: bool = False) -> list[Finding]:
    """Every (selected) Gini check on ``mod`` (the engine runner over :data:`CHECKS`)."""
    return run_kernel_checks(CHECKS, mod, subject, ctx, only=only, on_finding=on_finding,
                             stop_on_refute=stop_on_refute)


SUITE = KernelSuite(protocol=PROTOCOL, default_kernels="kernels.gini.api", checks=CHECKS,
                    extra_parameters=lambda mod, mode: {
                        "max_n": Context(mode=mode,
                                         max_n=int(getattr(mod, "DPAUDIT_MAX_N", 3000))).max_n})
