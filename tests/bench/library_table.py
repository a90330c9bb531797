"""The adapters on current library releases: black-box verdicts by kind (the real-number
bound and the float-bit bound, two findings of one run) and the exact sensitivity check
where the library exposes its aggregate.

    python -u tests/bench/library_table.py [--samples 10000] [--only opendp,diffprivlib,...]

Per mechanism: one ``test_mechanism`` run (float bits on) giving ``user.blackbox``
(real-number events) and ``user.float-bits`` (float64 bit events): verdict, epsilon_lower,
outputs drawn by each, CPU seconds of the run; then the exact sensitivity check (pairs,
verdict, worst family / n / distance / claim, CPU seconds).  Records in [0, 1]; seed 1;
n_select = n_certify = --samples.  Libraries that are not installed in this interpreter
are listed as skipped with the reason (Tumult Core and SmartNoise SQL pin numpy < 2 /
opendp < 0.15 and live in venvs of their own: run the script there with --only).
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

    def tumult_quantile() -> Any:
        from audit.extra import require
        from audit.extra.tumult import measurement_mechanism
        require("tmlt.core", "tumult")
        from tmlt.core.domains.numpy_domains import NumpyFloatDomain
        from tmlt.core.domains.pandas_domains import PandasSeriesDomain
        from tmlt.core.measurements.pandas_measurements.series import NoisyQuantile
        from tmlt.core.measures import PureDP
        return measurement_mechanism(NoisyQuantile(
            PandasSeriesDomain(NumpyFloatDomain()), output_measure=PureDP(), quantile=0.5,
            lower=0.0, upper=1.0, epsilon=1), name="tmlt NoisyQuantile(0.5, eps 1)")

    def tumult_laplace() -> Any:
        import numpy as np

        from audit.extra import require
        from audit.extra.tumult import measurement_mechanism
        require("tmlt.core", "tumult")
        from tmlt.core.domains.numpy_domains import NumpyFloatDomain
        from tmlt.core.measurements.noise_mechanisms import AddLaplaceNoise
        return measurement_mechanism(
            AddLaplaceNoise(NumpyFloatDomain(), scale=1),
            query=lambda x: float(np.sum(np.clip(x, 0.0, 1.0))), d_in=1,
            relation="add-remove", name="tmlt AddLaplaceNoise(1) on a clamped sum")

    def smartnoise_laplace() -> Any:
        from audit.extra.smartnoise import noise_mechanism
        return noise_mechanism("laplace", epsilon=1.0, lower=0.0, upper=1.0)

    return [("opendp", opendp_laplace), ("diffprivlib", dpl_sum), ("python-dp", pydp_sum),
            ("tumult", tumult_quantile), ("tumult", tumult_laplace),
            ("smartnoise", smartnoise_laplace)]


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
        return "n/a (no un-noised aggregate exposed to the adapter)"
    w = r.worst or {}
    return (f"{f.verdict}: {r.evaluated} pairs, worst {w.get('family')} n={w.get('n')} "
            f"distance={w.get('distance')!r} claim={w.get('claimed')!r}, "
            f"{time.process_time() - t0:.1f} CPU s")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--samples", type=int, default=10000)
    ap.add_argument("--only", default="", help="comma-separated libraries (default: all)")
    a = ap.parse_args()
    only = {x for x in a.only.split(",") if x}
    exact_done: set[str] = set()
    for lib, make in _mechanisms():
        if only and lib not in only:
            continue
        try:
            mech = make()
        except (LibraryMissing, ImportError) as exc:
            print(f"{lib}: SKIPPED ({exc})")
            continue
        rel = getattr(mech, "relation", "replace-one")
        t0 = time.process_time()
        r = test_mechanism(mech, lower=0.0, upper=1.0, relation=rel, float_bits=True,
                           n_select=a.samples, n_certify=a.samples, seed=1)
        cpu = time.process_time() - t0
        name = getattr(mech, "__qualname__", getattr(mech, "name", ""))
        print(f"{lib} {name}: outcome {r.outcome}, {cpu:.1f} CPU s, reproducible "
              f"{r.parameters['reproducible']}")
        for f in r.findings:
            if f.id in ("user.blackbox", "user.float-bits"):
                ev = f.evidence
                print(f"    {ev.get('kind'):<12} {f.verdict.value:<12} eps_lower "
                      f"{ev.get('epsilon_lower')!r} (claim {r.parameters['epsilon']:g}, "
                      f"confidence {ev.get('confidence')}), event {ev.get('event')}, "
                      f"{ev.get('samples_total')} outputs"
                      + (f"; {ev['point_mass']['sentence']}" if ev.get("point_mass") else ""))
        if lib not in exact_done:
            exact_done.add(lib)
            print(f"{lib} exact sensitivity: {_exact(lib)}")


if __name__ == "__main__":
    main()
