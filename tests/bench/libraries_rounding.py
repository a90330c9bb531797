"""Real DP libraries audited the way their users work (issue 41): the library table.

    python -u tests/bench/libraries_rounding.py [--runs 20] [--opendp040 DIR]
        [--out reports/bench/libraries-issue41.txt]

Rows (case, found?, bound, glue lines, CPU s):

* the exact sensitivity check from *random data* (no pairs file) at the library's own size:
  OpenDP 0.4.0's sized float sum at n = 1024 on [0, 1] and on [0, 2^40] (sums near 2^50;
  needs ``--opendp040 DIR``, a folder opendp 0.4.0 was pip-installed into with
  ``--no-deps --target``: it cannot share this environment), OpenDP 0.16's sized sum of
  squared deviations and its sized sum (correct: must not be refuted), diffprivlib's
  ``tools.sum``;
* false alarms on correct releases: ``--runs`` runs per kind (real-number, float64 bits)
  of ``audit_mechanism`` on OpenDP 0.16's ``sum >> laplace`` (its claim, relation and
  bounds read from OpenDP; confidence 0.9 per run, i.e. the CLI default) and ``--runs``
  exact checks of OpenDP 0.16's sized sum on fresh random data sets.

"glue lines" counts the user's lines between the library objects and dpaudit (the adapter
call and its arguments), as printed in each case's source below.  CPU seconds are
``time.process_time`` of this process (children's for the 0.4.0 subprocess).  Writes the
table to ``--out`` (a benchmark script: it prints and writes).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[2]

OLD = textwrap.dedent("""
    import json, sys, time, numpy as np
    np.bool8 = np.bool_  # numpy 2 removed the alias opendp 0.4.0 imports
    from opendp.mod import enable_features
    from opendp.trans import make_sized_bounded_sum
    from opendp.meas import make_base_laplace
    from audit.extra.opendp import measurement_mechanism
    from audit.privacy.neighbour_search import SearchSpace
    from audit.privacy.search_pairs import sensitivity_check_finding
    enable_features("contrib", "floating-point")
    upper = float(sys.argv[1])
    t0 = time.process_time()
    t = make_sized_bounded_sum(1024, (0.0, upper))
    mech = measurement_mechanism(t >> make_base_laplace(1.0), metric="SymmetricDistance",
                                 size=1024, lower=0.0, upper=upper, query=t)
    data = np.random.default_rng(1).uniform(0.0, upper, 1024)   # random data, no pairs
    space = SearchSpace(0.0, upper, "replace-one", n_max=1024, size=1024)
    f = sensitivity_check_finding(mech, space, name="opendp040", data=data)
    w = f.evidence["worst"]
    print(json.dumps({"verdict": str(f.verdict), "family": w["family"], "n": w["n"],
                      "distance": w["distance"], "claimed": w["claimed"],
                      "pairs": f.evidence["evaluated"], "cpu": time.process_time() - t0}))
""")


def _row(case: str, found: str, bound: str, glue: int, cpu: float) -> str:
    return f"| {case} | {found} | {bound} | {glue} | {cpu:.1f} |"


def opendp040(target: str | None, upper: float) -> str:
    case = f"OpenDP 0.4.0 sized float sum, n = 1024, [0, {upper:g}], exact, random data"
    if not target:
        return _row(case, "not run (--opendp040 DIR not given)", "-", 2, 0.0)
    env = {**os.environ, "PYTHONPATH": f"{target}{os.pathsep}{ROOT}"}
    out = subprocess.run([sys.executable, "-c", OLD, repr(upper)], capture_output=True,
                         text=True, env=env, timeout=1200)
    if out.returncode != 0:
        return _row(case, f"ERROR {out.stderr.strip().splitlines()[-1][:120]}", "-", 2, 0.0)
    r = json.loads(out.stdout.strip().splitlines()[-1])
    found = "yes" if r["verdict"] == "refuted" else "no"
    return _row(case, f"{found} ({r['family']}, {r['pairs']} pairs)",
                f"distance {r['distance']!r} vs claim {r['claimed']!r}", 2, r["cpu"])


def _exact(case: str, mech: Any, glue: int, data: np.ndarray) -> tuple[str, bool]:
    from audit.privacy.neighbour_search import SearchSpace
    from audit.privacy.search_pairs import sensitivity_check_finding
    from audit.privacy.user_mechanism import normalise_relation

    t0 = time.process_time()
    space = SearchSpace(mech.lower, mech.upper, normalise_relation(mech.relation),
                        n_max=max(1024, data.size), size=getattr(mech, "size", None))
    f = sensitivity_check_finding(mech, space, name=case, data=data)
    assert f is not None
    w = f.evidence["worst"]
    refuted = str(f.verdict) == "refuted"
    return _row(case, f"{'yes' if refuted else 'no'} ({w['family']}, n = {w['n']}, "
                f"{f.evidence['evaluated']} pairs)",
                f"distance {w['distance']!r} vs claim {w['claimed']!r}", glue,
                time.process_time() - t0), refuted


def opendp16_rows(runs: int) -> list[str]:
    import opendp.prelude as dp

    from audit.extra.opendp import measurement_mechanism

    dp.enable_features("contrib")
    rows = []
    rng = np.random.default_rng(7)
    dom = dp.vector_domain(dp.atom_domain(bounds=(0.0, 1.0), nan=False), size=1024)
    ssd = dp.t.make_sum_of_squared_deviations(dom, dp.symmetric_distance())
    m = measurement_mechanism(ssd >> dp.m.then_laplace(1.0), query=ssd)   # glue: 1 line
    rows.append(_exact("OpenDP 0.16 sized sum of squared deviations, n = 1024, exact, "
                       "random data", m, 1, rng.uniform(0.0, 1.0, 1024))[0])
    s = dp.t.make_sum(dom, dp.symmetric_distance())
    ms = measurement_mechanism(s >> dp.m.then_laplace(1.0), query=s)
    alarms, cpu = 0, 0.0
    for i in range(runs):
        t0 = time.process_time()
        row, refuted = _exact(f"OpenDP 0.16 sized sum run {i}", ms, 1,
                              rng.uniform(0.0, 1.0, 1024))
        cpu += time.process_time() - t0
        alarms += refuted
    rows.append(_row(f"OpenDP 0.16 sized sum (correct), exact, {runs} random data sets",
                     f"false alarms {alarms}/{runs}", "-", 1, cpu))
    return rows


def diffprivlib_row() -> str:
    import diffprivlib.tools as tools

    from audit.extra.diffprivlib import tool_mechanism

    m = tool_mechanism(tools.sum, epsilon=1.0, bounds=(0.0, 1.0))   # glue: 1 line
    data = np.random.default_rng(3).uniform(0.0, 1.0, 1000)
    return _exact("diffprivlib 0.6.6 tools.sum, exact, random data (n = 1000)", m, 1,
                  data)[0]


def blackbox_false_alarms(runs: int) -> list[str]:
    import opendp.prelude as dp

    from audit import audit_mechanism
    from audit.extra.opendp import measurement_mechanism

    dp.enable_features("contrib")
    sp = dp.vector_domain(dp.atom_domain(bounds=(0.0, 1.0))), dp.symmetric_distance()
    m = measurement_mechanism(dp.t.make_sum(*sp) >> dp.m.then_laplace(1.0))  # glue: 1
    counts = {"user.blackbox": 0, "user.float-bits": 0}
    cpu = 0.0
    for seed in range(runs):
        t0 = time.process_time()
        a = audit_mechanism(m, seed=seed, n_select=4000, n_certify=8000, first_batch=2000,
                            max_pairs=4)
        cpu += time.process_time() - t0
        for f in a.findings:
            if f.id in counts and str(f.verdict) == "refuted":
                counts[f.id] += 1
        print(f"  run {seed}: {a.outcome}", flush=True)
    return [_row(f"OpenDP 0.16 sum >> laplace (correct), black-box, {runs} runs, "
                 f"confidence 0.9", f"false alarms real-number {counts['user.blackbox']}/"
                 f"{runs}, float64 bits {counts['user.float-bits']}/{runs}",
                 "claim, relation, bounds read from OpenDP", 1, cpu)]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--opendp040", default=None)
    ap.add_argument("--out", default=str(ROOT / "reports/bench/libraries-issue41.txt"))
    ap.add_argument("--skip-blackbox", action="store_true")
    a = ap.parse_args()
    lines = [f"# tests/bench/libraries_rounding.py --runs {a.runs}"
             f"{' --opendp040 DIR' if a.opendp040 else ''}; "
             f"{time.strftime('%Y-%m-%d %H:%M', time.gmtime())} UTC; 2 shared cores",
             "| case | found? | bound | glue lines | CPU s |", "|---|---|---|---|---|"]
    for upper in (1.0, 2.0**40):
        lines.append(opendp040(a.opendp040, upper))
        print(lines[-1], flush=True)
    for row in [*opendp16_rows(a.runs), diffprivlib_row()]:
        lines.append(row)
        print(row, flush=True)
    if not a.skip_blackbox:
        for row in blackbox_false_alarms(a.runs):
            lines.append(row)
            print(row, flush=True)
    Path(a.out).parent.mkdir(parents=True, exist_ok=True)
    Path(a.out).write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"written {a.out}")


if __name__ == "__main__":
    main()
