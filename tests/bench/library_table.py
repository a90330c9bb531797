"""The adapters on current library releases: black-box verdicts (real-number events only,
then with float64 bit-level events) and the exact sensitivity check where the library
exposes its aggregate.

    python -u tests/bench/library_table.py [--samples 20000] [--only opendp,diffprivlib,python-dp]

Per mechanism: outcome of ``test_mechanism`` with ``float_bits=False`` (real-number bound)
and ``float_bits=True`` (adds the float-bit events), epsilon_lower, outputs drawn and CPU
seconds; then the exact sensitivity check (pairs, verdict, worst family / n / distance /
claim, CPU seconds).  Records in [0, 1]; seed 1; n_select = n_certify = --samples.
Libraries that are not installed are listed as skipped with the reason.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import Any

from audit import test_mechanism
from audit.extra import LibraryMissing


def _mechanisms() -> list[tuple[str, Callable[[], Any]]]:
    def opendp_laplace() -> Any:
        import opendp.prelude as dp

        from audit.extra.opendp import measurement_mechanism
        dp.enable_features("contrib")
        sp = dp.vector_domain(dp.atom_domain(bounds=(0.0, 1.0))), dp.symmetric_distance()
        return measurement_mechanism(dp.t.make_sum(*sp) >> dp.m.then_laplace(1.0),
                                     name="opendp sum>>laplace(1)")

    def dpl_sum() -> Any:
        import diffprivlib.tools as t

        from audit.extra.diffprivlib import tool_mechanism
        return tool_mechanism(t.sum, epsilon=1.0, bounds=(0.0, 1.0))

    def pydp_sum() -> Any:
        from audit.extra.pydp import algorithm_mechanism
        return algorithm_mechanism("BoundedSum", epsilon=1.0, lower_bound=0.0,
                                   upper_bound=1.0, dtype="float")

    return [("opendp", opendp_laplace), ("diffprivlib", dpl_sum), ("python-dp", pydp_sum)]


def _exact(lib: str) -> str:
    t0 = time.process_time()
    if lib == "opendp":
        import opendp.prelude as dp

        from audit.extra.opendp import audit_transformation
        sp = dp.vector_domain(dp.atom_domain(bounds=(0.0, 1.0))), dp.symmetric_distance()
        f, r = audit_transformation(dp.t.make_sum(*sp), n_max=2**16)
    elif lib == "diffprivlib":
        import diffprivlib.tools as t

        from audit.extra.diffprivlib import audit_tool
        f, r = audit_tool(t.sum, lower=0.0, upper=1.0, n_max=2**16)
    else:
        return "n/a (no un-noised aggregate exposed)"
    w = r.worst or {}
    return (f"{f.verdict}: {r.evaluated} pairs, worst {w.get('family')} n={w.get('n')} "
            f"distance={w.get('distance')!r} claim={w.get('claimed')!r}, "
            f"{time.process_time() - t0:.1f} CPU s")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--samples", type=int, default=20000)
    ap.add_argument("--only", default="", help="comma-separated libraries (default: all)")
    a = ap.parse_args()
    only = {x for x in a.only.split(",") if x}
    for lib, make in _mechanisms():
        if only and lib not in only:
            continue
        try:
            mech = make()
        except (LibraryMissing, ImportError) as exc:
            print(f"{lib}: SKIPPED ({exc})")
            continue
        rel = getattr(mech, "relation", "replace-one")
        for fb in (False, True):
            t0 = time.process_time()
            r = test_mechanism(mech, lower=0.0, upper=1.0, relation=rel, float_bits=fb,
                               n_select=a.samples, n_certify=a.samples, seed=1)
            bb = next(f for f in r.findings if f.id == "user.blackbox")
            print(f"{lib} {getattr(mech, '__qualname__', getattr(mech, 'name', ''))} "
                  f"[{'float bits' if fb else 'real-number'}]: {r.outcome} "
                  f"(eps_lower {bb.evidence.get('epsilon_lower')!r}, "
                  f"event {bb.evidence.get('event')}, "
                  f"{bb.evidence.get('samples_total')} outputs, "
                  f"{time.process_time() - t0:.1f} CPU s)")
        print(f"{lib} exact sensitivity: {_exact(lib)}")


if __name__ == "__main__":
    main()
