"""What the broken-kernel twins cost ``dpaudit regress`` (issue 42): each suite's checks run
in one process twice, with the twin (:mod:`audit.checks.kernel_twin`) and with it replaced by a
stub that returns a refuted twin without running anything (the baseline: the check alone),
and the CPU-time ratio is printed per suite, with the twin sweep's own share.

    python tests/bench/twin_cost.py [--repeat R]
"""

from __future__ import annotations

import argparse
import time
from typing import Any

from audit import falsifiability
from audit.checks import kernel
from audit.protocols import load_kernels

SUITES = {
    "liu-global-sensitivity": ("proofs.global_sensitivity.regress",
                               "kernels.global_sensitivity.api"),
    "dick-et-al-subset-optimal": ("proofs.subset_optimal.regress", "kernels.subset_optimal.api"),
}


def _run(suite: Any, mod: Any) -> float:
    t0 = time.process_time()
    suite.run(mod, "kernels:bench", 0, "quick", None, lambda i, n, f: None)
    return time.process_time() - t0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=1)
    a = ap.parse_args()
    import importlib

    real = kernel.kernel_twin

    def stub(*args: Any, **kw: Any) -> dict[str, Any]:
        return falsifiability.twin("baseline stub (no twin run)", "refuted")

    print(f"{'suite':<28} {'with twin s':>12} {'without s':>10} {'ratio':>6}")
    for name, (suite_mod, kern) in SUITES.items():
        suite = importlib.import_module(suite_mod).SUITE
        mod = load_kernels(kern, suite.protocol)
        with_t = without_t = 0.0
        for _ in range(a.repeat):
            kernel.kernel_twin = real  # type: ignore[assignment]
            with_t += _run(suite, mod)
            kernel.kernel_twin = stub  # type: ignore[assignment]
            without_t += _run(suite, mod)
        kernel.kernel_twin = real  # type: ignore[assignment]
        print(f"{name:<28} {with_t:>12.2f} {without_t:>10.2f} {with_t / without_t:>6.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
